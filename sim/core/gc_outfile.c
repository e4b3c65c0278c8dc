/* SPDX-License-Identifier: MIT */
/* gc_outfile: output files written without replacing what is not a
 * regular file, all or nothing where they are (see gc_outfile.h). */
/* fopencookie: a stream whose writes keep their errno (see sink) */
#define _GNU_SOURCE
#include "gc_outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <glib.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The temporary files open now, for gc_outfile_remove_pending. A process
 * writes a few outputs at a time; one beyond these is still removed by
 * its own commit or abort, only not by a fatal-error exit. */
#define PENDING_MAX 16
static const char *pending[PENDING_MAX];

static void pending_add(const char *tmp)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (!pending[i]) {
			pending[i] = tmp;
			return;
		}
}

static void pending_drop(const char *tmp)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i] == tmp)
			pending[i] = NULL;
}

void gc_outfile_remove_pending(void)
{
	for (int i = 0; i < PENDING_MAX; i++)
		if (pending[i])
			unlink(pending[i]);
}

/* The descriptor under an output stream and the first error of a write
 * to it. A stdio stream keeps only a flag once a write failed, and a
 * later fflush of the emptied buffer succeeds, so the reason (a full
 * disk, a file size limit) is kept here for the message. */
typedef struct sink {
	int fd;
	int err;
} sink;

static ssize_t sink_write(void *c, const char *buf, size_t n)
{
	sink *k = c;
	size_t done = 0;
	while (done < n && !k->err) {
		ssize_t w = write(k->fd, buf + done, n - done);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			k->err = w < 0 ? errno : EIO;
		else
			done += (size_t)w;
	}
	/* fopencookie: the bytes taken, 0 on an error */
	return k->err ? 0 : (ssize_t)done;
}

static int sink_close(void *c)
{
	sink *k = c;
	if (close(k->fd) != 0 && !k->err)
		k->err = errno;
	return k->err ? -1 : 0;
}

/* How PATH is written. */
typedef enum out_kind {
	OUT_NEW,      /* nothing there: dest.tmp, renamed onto dest */
	OUT_REPLACE,  /* a regular file: the same, keeping its mode */
	OUT_IN_PLACE, /* a character device or a FIFO: opened and written */
	OUT_FD,	      /* one of this process's descriptors, by name */
} out_kind;

static gc_status fail(const char *path, const char *what, const char *why, char **errmsg)
{
	if (errmsg)
		*errmsg = g_strdup_printf("%s: cannot write %s: %s", path, what, why);
	return GC_ERR_IO;
}

/* The descriptor a name such as /dev/stdout or /dev/fd/3 stands for, or
 * -1. Written through a copy of the descriptor, such a name shares its
 * file offset with this process's own writes, as a shell's redirection. */
static int named_fd(const char *path)
{
	if (!strcmp(path, "/dev/stdout"))
		return STDOUT_FILENO;
	if (!strcmp(path, "/dev/stderr"))
		return STDERR_FILENO;
	const char *p = g_str_has_prefix(path, "/dev/fd/")	? path + strlen("/dev/fd/")
			: g_str_has_prefix(path, "/proc/self/fd/") ? path + strlen("/proc/self/fd/")
								   : NULL;
	if (!p || !g_ascii_isdigit(*p))
		return -1;
	char *end;
	errno = 0;
	long n = strtol(p, &end, 10);
	return *end || errno || n > INT_MAX ? -1 : (int)n;
}

/* The folder of PATH ("." for a bare name). */
static char *dir_of(const char *path)
{
	return g_path_get_dirname(path);
}

/* Whether a new file can be made in dest's folder (without making it). */
static gc_status folder_writable(const char *path, const char *dest, const char *what,
				 char **errmsg)
{
	char *dir = dir_of(dest);
	struct stat sb;
	gc_status st = GC_OK;
	if (stat(dir, &sb) != 0)
		st = fail(path, what, g_strerror(errno), errmsg);
	else if (!S_ISDIR(sb.st_mode))
		st = fail(path, what, g_strerror(ENOTDIR), errmsg);
	else if (access(dir, W_OK | X_OK) != 0)
		st = fail(path, what, g_strerror(errno), errmsg);
	g_free(dir);
	return st;
}

/* What is at PATH and so how it is written: *dest is the file to write
 * (PATH, or where its symbolic links lead), *fd the descriptor for OUT_FD.
 * Refuses what is not written at all. */
static gc_status classify(const char *path, const char *what, out_kind *kind, char **dest,
			  int *fd, char **errmsg)
{
	*dest = NULL;
	*fd = named_fd(path);
	if (*fd >= 0) {
		if (fcntl(*fd, F_GETFD) < 0)
			return fail(path, what, g_strerror(errno), errmsg);
		*kind = OUT_FD;
		*dest = g_strdup(path);
		return GC_OK;
	}
	if (!path[0])
		return fail("''", what, "an empty file name", errmsg);
	char *cur = g_strdup(path);
	for (int hops = 0;; hops++) {
		struct stat ls, sb;
		if (lstat(cur, &ls) != 0) {
			if (errno != ENOENT) {
				gc_status st = fail(path, what, g_strerror(errno), errmsg);
				g_free(cur);
				return st;
			}
			/* nothing there (or a link's missing target): a new file */
			gc_status st = folder_writable(path, cur, what, errmsg);
			if (st != GC_OK) {
				g_free(cur);
				return st;
			}
			*kind = OUT_NEW;
			*dest = cur;
			return GC_OK;
		}
		if (S_ISLNK(ls.st_mode)) {
			/* a device or FIFO behind the link is written through it;
			 * a regular file (or none) is written where the link
			 * leads, one link at a time, so the link stays */
			if (stat(cur, &sb) == 0 && (S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))) {
				ls = sb;
			} else {
				GError *ge = NULL;
				char *to = hops < 32 ? g_file_read_link(cur, &ge) : NULL;
				if (!to) {
					gc_status st = fail(path, what,
							    ge ? ge->message : g_strerror(ELOOP), errmsg);
					if (ge)
						g_error_free(ge);
					g_free(cur);
					return st;
				}
				if (!g_path_is_absolute(to)) {
					char *dir = dir_of(cur);
					char *abs = g_build_filename(dir, to, NULL);
					g_free(dir);
					g_free(to);
					to = abs;
				}
				g_free(cur);
				cur = to;
				continue;
			}
		}
		gc_status st = GC_OK;
		if (S_ISREG(ls.st_mode)) {
			*kind = OUT_REPLACE;
			/* as fopen(PATH, "w") would: a file the user may not write
			 * is refused, not replaced */
			if (access(cur, W_OK) != 0)
				st = fail(path, what, g_strerror(errno), errmsg);
			else
				st = folder_writable(path, cur, what, errmsg);
		} else if (S_ISCHR(ls.st_mode) || S_ISFIFO(ls.st_mode)) {
			*kind = OUT_IN_PLACE;
			if (access(cur, W_OK) != 0)
				st = fail(path, what, g_strerror(errno), errmsg);
		} else if (S_ISDIR(ls.st_mode)) {
			st = fail(path, what, "it is a directory; name a file in it", errmsg);
		} else {
			st = fail(path, what,
				  S_ISBLK(ls.st_mode) ? "it is a block device; gcsim writes regular "
							"files, character devices and FIFOs"
						      : "it is a socket; gcsim writes regular files, "
							"character devices and FIFOs",
				  errmsg);
		}
		if (st != GC_OK) {
			g_free(cur);
			return st;
		}
		*dest = cur;
		return GC_OK;
	}
}

gc_status gc_outfile_check(const char *path, const char *what, char **errmsg)
{
	out_kind kind;
	char *dest = NULL;
	int fd;
	gc_status st = classify(path, what, &kind, &dest, &fd, errmsg);
	g_free(dest);
	return st;
}

gc_status gc_outfile_open(gc_outfile *o, const char *path, const char *what, char **errmsg)
{
	memset(o, 0, sizeof(*o));
	out_kind kind;
	char *dest = NULL;
	int fd = -1;
	gc_status st = classify(path, what, &kind, &dest, &fd, errmsg);
	if (st != GC_OK)
		return st;
	char *tmp = NULL;
	int e = 0;
	if (kind == OUT_FD) {
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		e = fd < 0 ? errno : 0;
	} else if (kind == OUT_IN_PLACE) {
		fd = open(dest, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		struct stat sb;
		e = fd < 0 ? errno : 0;
		/* what was checked is what was opened: a device or a FIFO
		 * still, not a file put there meanwhile */
		if (fd >= 0 && (fstat(fd, &sb) != 0 || !(S_ISCHR(sb.st_mode) || S_ISFIFO(sb.st_mode))))
			e = EEXIST;
	} else {
		/* a stale DEST.tmp (a killed run's) is removed first; O_EXCL
		 * then creates a new one and never follows a link put there */
		tmp = g_strdup_printf("%s.tmp", dest);
		struct stat ts;
		if (lstat(tmp, &ts) == 0 && S_ISDIR(ts.st_mode))
			e = EISDIR;
		else if (unlink(tmp) != 0 && errno != ENOENT)
			e = errno;
		if (!e) {
			fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
			e = fd < 0 ? errno : 0;
		}
		struct stat sb;
		if (fd >= 0 && kind == OUT_REPLACE && stat(dest, &sb) == 0)
			(void)fchmod(fd, sb.st_mode & 07777); /* best effort: the old file's mode */
	}
	FILE *f = NULL;
	sink *k = NULL;
	if (!e) {
		k = g_new0(sink, 1);
		k->fd = fd;
		f = fopencookie(k, "w", (cookie_io_functions_t){.write = sink_write, .close = sink_close});
		e = f ? 0 : errno ? errno : ENOMEM;
		if (f)
			setvbuf(f, NULL, _IOFBF, 1 << 16);
		else
			g_clear_pointer(&k, g_free);
	}
	if (e) {
		if (fd >= 0)
			close(fd);
		if (tmp && e != EISDIR)
			unlink(tmp);
		st = fail(path, what,
			  e == EISDIR	? "its temporary file (.tmp) is a directory"
			  : e == EEXIST ? "it changed while being opened"
					: g_strerror(e),
			  errmsg);
		g_free(tmp);
		g_free(dest);
		return st;
	}
	o->f = f;
	o->path = g_strdup(path);
	o->dest = dest;
	o->tmp = tmp;
	o->what = what;
	o->sink = k;
	if (tmp)
		pending_add(tmp);
	return GC_OK;
}

static void clear(gc_outfile *o)
{
	if (o->tmp) {
		pending_drop(o->tmp);
		g_free(o->tmp);
	}
	g_free(o->sink);
	g_free(o->path);
	g_free(o->dest);
	memset(o, 0, sizeof(*o));
}

gc_status gc_outfile_commit(gc_outfile *o, char **errmsg)
{
	if (!o->f)
		return GC_OK;
	/* the first error of any write since the open, else of the close */
	const sink *k = o->sink;
	int bad = fflush(o->f) != 0 || ferror(o->f);
	bad |= fclose(o->f) != 0;
	int e = k->err ? k->err : bad ? EIO : 0;
	o->f = NULL;
	if (!e && o->tmp && rename(o->tmp, o->dest) != 0)
		e = errno;
	gc_status st = GC_OK;
	if (e) {
		if (o->tmp)
			unlink(o->tmp);
		st = fail(o->path, o->what, g_strerror(e), errmsg);
	}
	clear(o);
	return st;
}

void gc_outfile_abort(gc_outfile *o)
{
	if (o->f) {
		fclose(o->f);
		if (o->tmp)
			unlink(o->tmp);
	}
	clear(o);
}

gc_status gc_outfile_write(const char *path, const char *what, const void *data, size_t len,
			   char **errmsg)
{
	gc_outfile o;
	gc_status st = gc_outfile_open(&o, path, what, errmsg);
	if (st != GC_OK)
		return st;
	if (len)
		fwrite(data, 1, len, o.f); /* a short write leaves the error flag */
	return gc_outfile_commit(&o, errmsg);
}
