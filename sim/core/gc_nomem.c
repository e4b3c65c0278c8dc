/* SPDX-License-Identifier: MIT */
/* gc_nomem: out of memory as a message and an exit status (gc_nomem.h). */
#include "gc_nomem.h"

#include <glib.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "gc_outfile.h"

/* GLib's message for a failed g_malloc is "...: failed to allocate N
 * bytes" ("overflow allocating N*M bytes" for a count too large to
 * multiply); any other fatal error keeps GLib's own handling. The handler
 * formats into a stack buffer and writes with write(2): the heap is what
 * ran out. */
static void on_glib_error(const gchar *domain, GLogLevelFlags level, const gchar *message,
			  gpointer data)
{
	const char *at = message ? strstr(message, "failed to allocate ") : NULL;
	if (!at && message)
		at = strstr(message, "overflow allocating ");
	if (!at) {
		g_log_default_handler(domain, level, message, data);
		return;
	}
	gc_outfile_remove_pending();
	const char *prg = g_get_prgname();
	char buf[256];
	int n = snprintf(buf, sizeof(buf),
			 "%s: out of memory (%s); a smaller scenario (fewer nodes or GPUs, smaller "
			 "sizes) or more memory would do\n",
			 prg ? prg : "gcsim", at);
	if (n > 0)
		(void)!write(STDERR_FILENO, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
	_exit(GC_ERR_NOMEM);
}

void gc_nomem_install(void)
{
	g_log_set_handler("GLib", G_LOG_LEVEL_ERROR | G_LOG_FLAG_FATAL | G_LOG_FLAG_RECURSION,
			  on_glib_error, NULL);
}

void *gc_try_alloc0(size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	size_t bytes = n * size;
	return g_try_malloc0(bytes > 0 ? bytes : 1);
}

gc_status gc_nomem_err(char **errmsg, const char *what, size_t n, size_t size)
{
	if (errmsg) {
		if (size && n > SIZE_MAX / size)
			*errmsg = g_strdup_printf("out of memory: %s needs more than %zu bytes", what,
						  (size_t)SIZE_MAX);
		else
			*errmsg = g_strdup_printf("out of memory: %s needs %zu bytes", what, n * size);
	}
	return GC_ERR_NOMEM;
}
