/* SPDX-License-Identifier: MIT */
/*
 * gh_vrank: the interpreter's virtual ranks replayed piece by piece (the
 * model is described in gh_vrank.h).
 */
#include "hw/gh_vrank.h"

#include <glib.h>
#include <math.h>
#include <string.h>

/* A time on some path and what that path is made of: the pieces passed and
 * the bytes they carried (the launch is added at the end). */
typedef struct vt {
	double t, pieces, bytes, hops;
} vt;

static inline vt vt_max(vt a, vt b)
{
	return b.t > a.t ? b : a;
}

double gh_vrank_working_set(const gh_interp_plan *plan)
{
	double ws = (double)plan->rank_stride * plan->nranks;
	for (int c = 0; c < plan->nconns; c++)
		ws += (double)plan->conn_slots[c] * GH_SLOT_BYTES;
	return ws;
}

/* The largest share of an n-byte piece that one of a strand's K blocks moves. */
static uint64_t share_bytes(uint64_t n, uint64_t bytes, int proto, int K)
{
	uint64_t most = 0;
	for (int b = 0; b < K; b++) {
		uint64_t lo, hi;
		gh_interp_part(n, bytes, proto, K, b, &lo, &hi);
		most = hi - lo > most ? hi - lo : most;
	}
	return most;
}

static int cmp_t(const void *a, const void *b)
{
	const double x = ((const vt *)a)->t, y = ((const vt *)b)->t;
	return x < y ? -1 : x > y;
}

gc_status gh_vrank_time(const gh_interp_plan *plan, const gh_vrank_model *m, gh_vrank_path *out,
			char **errmsg)
{
	const int ns = plan->nranks * plan->nstrands;
	const double ws = gh_vrank_working_set(plan);
	const double h = ws > 0 && m->l2_bytes < ws ? m->l2_bytes / ws : 1.0;
	/* microseconds per byte of a pass: 1 GB/s is 1e3 bytes per microsecond */
	const double us_per_byte = h / (m->l2_GBps * 1e3) + (1 - h) / (m->hbm_GBps * 1e3);
	/* a strand's blocks pass their shares of a piece side by side: the
	 * pass takes the largest share's time */
	const int K = plan->blocks > 1 ? plan->blocks : 1;
	GArray **posted = g_new0(GArray *, plan->nconns > 0 ? plan->nconns : 1);
	guint *taken = g_new0(guint, plan->nconns > 0 ? plan->nconns : 1);
	const size_t nsig = (size_t)plan->nranks * plan->nsignals;
	GArray **sig = g_new0(GArray *, nsig > 0 ? nsig : 1);
	uint64_t *si = g_new(uint64_t, ns > 0 ? ns : 1), *off = g_new0(uint64_t, ns > 0 ? ns : 1);
	vt *cur = g_new0(vt, ns > 0 ? ns : 1);
	bool *met = g_new0(bool, ns > 0 ? ns : 1); /* the current step's meeting counted */
	for (int c = 0; c < plan->nconns; c++)
		posted[c] = g_array_new(FALSE, FALSE, sizeof(vt));
	for (size_t k = 0; k < nsig; k++)
		sig[k] = g_array_new(FALSE, FALSE, sizeof(vt));
	int left = 0; /* strands with steps still to run */
	for (int i = 0; i < ns; i++) {
		si[i] = plan->strand_off[i];
		left += si[i] < plan->strand_off[i + 1];
	}
	bool progress = true;
	/* Each sweep runs every strand as far as its inputs allow; a strand
	 * blocked on a piece or a signal not yet produced waits for a later
	 * sweep. Pieces of a connection are produced and consumed in order, so
	 * the times do not depend on the order of the strands in a sweep. */
	while (left > 0 && progress) {
		progress = false;
		for (int i = 0; i < ns; i++) {
			const uint64_t end = plan->strand_off[i + 1];
			const int rank = i / plan->nstrands;
			bool ran = false;
			while (si[i] < end) {
				const gs_step *st = &plan->steps[si[i]];
				const gh_step_aux *ax = &plan->aux[si[i]];
				if (K > 1 && (ax->props & GH_P_SYNC) && off[i] == 0 && !met[i]) {
					/* the blocks meet: a wait and a fence, as a piece's */
					cur[i].t += m->piece_us;
					cur[i].pieces += 1;
					met[i] = true;
				}
				if (ax->props & GH_P_PUT) {
					const double share = (double)share_bytes(st->bytes, st->bytes, GH_PROTO_SIMPLE, K);
					cur[i].t += m->piece_us + share * us_per_byte;
					cur[i].pieces += 1;
					cur[i].bytes += share;
				} else if (ax->props & GH_P_SIGNAL) {
					size_t k = (size_t)st->send_peer * plan->nsignals + st->dst_off;
					g_array_append_val(sig[k], cur[i]);
				} else if (ax->props & GH_P_WAIT) {
					GArray *a = sig[(size_t)rank * plan->nsignals + st->src_off];
					if (a->len < st->bytes)
						break;
					if (st->bytes > 0) {
						/* the arrival that meets the threshold */
						qsort(a->data, a->len, sizeof(vt), cmp_t);
						cur[i] = vt_max(cur[i], g_array_index(a, vt, st->bytes - 1));
					}
				} else {
					/* LL and LL128 receivers poll flags; Simple waits for the head */
					const bool ll = st->bytes <= GH_LL_MAX || plan->proto == GH_PROTO_LL128;
					const uint64_t cap = gh_interp_piece_cap(st->bytes, plan->proto);
					const uint64_t n = st->bytes - off[i] < cap ? st->bytes - off[i] : cap;
					const double share = (double)share_bytes(n, st->bytes, plan->proto, K);
					const bool mailbox = ax->recv_conn >= 0 || ax->send_conn >= 0;
					vt in = {-1, 0, 0, 0};
					if (ax->recv_conn >= 0) {
						GArray *a = posted[ax->recv_conn];
						if (a->len <= taken[ax->recv_conn])
							break;
						in = g_array_index(a, vt, taken[ax->recv_conn]);
						taken[ax->recv_conn]++;
					}
					if (!ll && in.t >= 0)
						cur[i] = vt_max(cur[i], in); /* Simple: the head, then the pass */
					/* a local pass has no mailbox to wait on, fence or count */
					cur[i].t += (mailbox ? m->piece_us : 0) + share * us_per_byte;
					cur[i].pieces += mailbox;
					cur[i].bytes += share;
					if (ll && in.t >= 0) {
						/* LL: the block polls the lines as they land, so its pass
						 * ends no sooner than a line's latency after the sender's */
						in.t += m->ll_hop_us;
						in.hops += 1;
						cur[i] = vt_max(cur[i], in);
					}
					if (ax->send_conn >= 0)
						g_array_append_val(posted[ax->send_conn], cur[i]);
					off[i] += cap;
					ran = true;
					if (off[i] < st->bytes)
						continue;
					off[i] = 0;
				}
				ran = true;
				met[i] = false;
				si[i]++;
			}
			if (ran) {
				progress = true;
				if (si[i] == end)
					left--;
			}
		}
	}
	gc_status st = GC_OK;
	if (left > 0) {
		for (int i = 0; i < ns; i++)
			if (si[i] < plan->strand_off[i + 1]) {
				*errmsg = g_strdup_printf("virtual-rank model: rank %d strand %d waits forever at "
							  "step %" G_GUINT64_FORMAT " (%s)",
							  i / plan->nstrands, i % plan->nstrands,
							  si[i] - plan->strand_off[i],
							  gs_op_name(plan->steps[si[i]].op));
				break;
			}
		st = GC_ERR_INPUT;
	} else {
		vt last = {0, 0, 0, 0};
		for (int i = 0; i < ns; i++)
			last = vt_max(last, cur[i]);
		*out = (gh_vrank_path){.time_us = m->launch_us + last.t, .pieces = last.pieces,
				       .bytes = last.bytes, .hops = last.hops, .hit = h, .working_set = ws};
	}
	for (int c = 0; c < plan->nconns; c++)
		g_array_free(posted[c], TRUE);
	for (size_t k = 0; k < nsig; k++)
		g_array_free(sig[k], TRUE);
	g_free(posted);
	g_free(taken);
	g_free(sig);
	g_free(si);
	g_free(off);
	g_free(cur);
	g_free(met);
	return st;
}

gc_status gh_vrank_plan(const gs_params *p, gs_sched **s, gh_interp_plan *plan, char **errmsg)
{
	gs_gen *g = NULL;
	memset(plan, 0, sizeof(*plan));
	*s = NULL;
	gc_status st = gs_gen_create(p, &g, errmsg);
	if (st == GC_OK) {
		*s = gs_sched_materialize(g);
		st = gs_sched_validate(*s, errmsg);
	}
	if (st == GC_OK)
		st = gh_interp_plan_build(*s, plan, errmsg);
	if (g)
		gs_gen_free(g);
	if (st != GC_OK && *s) {
		gs_sched_free(*s);
		*s = NULL;
	}
	return st;
}

/* Solves the n x n system a x = b in place (Gaussian elimination with
 * partial pivoting); false when it is singular. */
static bool solve(double *a, double *b, int n)
{
	for (int c = 0; c < n; c++) {
		int p = c;
		for (int r = c + 1; r < n; r++)
			if (fabs(a[r * n + c]) > fabs(a[p * n + c]))
				p = r;
		if (fabs(a[p * n + c]) < 1e-300)
			return false;
		for (int k = 0; k < n; k++) {
			double t = a[c * n + k];
			a[c * n + k] = a[p * n + k];
			a[p * n + k] = t;
		}
		double t = b[c];
		b[c] = b[p];
		b[p] = t;
		for (int r = c + 1; r < n; r++) {
			double f = a[r * n + c] / a[c * n + c];
			for (int k = c; k < n; k++)
				a[r * n + k] -= f * a[c * n + k];
			b[r] -= f * b[c];
		}
	}
	for (int c = n - 1; c >= 0; c--) {
		for (int k = c + 1; k < n; k++)
			b[c] -= a[c * n + k] * b[k];
		b[c] /= a[c * n + c];
	}
	return true;
}

gc_status gh_vrank_fit(const gc_result_point *pts, size_t n, const char *coll, const char *algo,
		       int ranks, int channels, gh_vrank_model *m, size_t *used, double *maxerr,
		       char **errmsg)
{
	int c = 0, a = 0;
	while (c < GS_COLL__COUNT && strcmp(gs_coll_name((gs_coll)c), coll))
		c++;
	while (a < GS_ALGO__COUNT && strcmp(gs_algo_name((gs_algo)a), algo))
		a++;
	if (c == GS_COLL__COUNT || a == GS_ALGO__COUNT) {
		*errmsg = g_strdup_printf("virtual-rank fit: unknown collective '%s' or algorithm '%s'",
					  coll, algo);
		return GC_ERR_INPUT;
	}
	enum { K = 3 };
	gh_interp_plan *plans = g_new0(gh_interp_plan, n + 1);
	gs_sched **scheds = g_new0(gs_sched *, n + 1);
	double *y = g_new(double, n + 1);
	size_t k = 0;
	gc_status st = GC_OK;
	for (size_t i = 0; i < n && st == GC_OK; i++) {
		const gc_result_point *p = &pts[i];
		if (strcmp(p->collective, coll) || strcmp(p->algo, algo) || p->nranks != ranks ||
		    p->size_bytes == 0 || !(p->time_us > 0))
			continue;
		gs_params gp = {.coll = (gs_coll)c, .algo = (gs_algo)a, .dtype = GS_DT_F32, .nranks = ranks,
				.bytes = p->size_bytes, .nchannels = channels,
				.chunk_bytes = GH_INTERP_CHUNK, .slice_bytes = GH_INTERP_SLICE,
				.ranks_per_node = ranks};
		st = gh_vrank_plan(&gp, &scheds[k], &plans[k], errmsg);
		if (st == GC_OK)
			y[k++] = p->time_us;
	}
	if (st == GC_OK && k < K) {
		*errmsg = g_strdup_printf("virtual-rank fit: %zu %s %s points at %d ranks, at least %d needed "
					  "for its %d parameters",
					  k, algo, coll, ranks, K, K);
		st = GC_ERR_INPUT;
	}
	/* Start from a model whose critical paths are those of pure bandwidth,
	 * then refit while the paths change (a few rounds at most). */
	gh_vrank_model cur = *m;
	cur.piece_us = 1, cur.l2_GBps = 1, cur.hbm_GBps = 1;
	gh_vrank_path *path = g_new(gh_vrank_path, k + 1);
	for (int round = 0; st == GC_OK && round < 32; round++) {
		for (size_t i = 0; i < k && st == GC_OK; i++)
			st = gh_vrank_time(&plans[i], &cur, &path[i], errmsg);
		if (st != GC_OK)
			break;
		/* T - launch = pieces * piece + bytes * (h x1 + (1 - h) x2), weights 1/T^2 */
		double A[K * K] = {0}, b[K] = {0};
		for (size_t i = 0; i < k; i++) {
			const double row[K] = {path[i].pieces, path[i].bytes * path[i].hit,
					       path[i].bytes * (1 - path[i].hit)};
			const double w = 1 / (y[i] * y[i]);
			for (int r = 0; r < K; r++) {
				for (int q = 0; q < K; q++)
					A[r * K + q] += w * row[r] * row[q];
				b[r] += w * row[r] * (y[i] - cur.launch_us - path[i].hops * cur.ll_hop_us);
			}
		}
		bool hbm_seen = false;
		for (size_t i = 0; i < k; i++)
			hbm_seen |= path[i].hit < 1;
		if (!hbm_seen) {
			/* the working set always fit in L2: the HBM rate is not observed */
			*errmsg = g_strdup_printf("virtual-rank fit: every %s %s size fits in the L2, so the "
						  "HBM rate cannot be fitted; measure larger sizes",
						  algo, coll);
			st = GC_ERR_INPUT;
			break;
		}
		if (!solve(A, b, K) || !(b[0] > 0) || !(b[1] > 0) || !(b[2] > 0)) {
			*errmsg = g_strdup_printf(
				"virtual-rank fit: no positive piece time and rates fit the %s %s points "
				"with a launch of %.4g us (piece %.4g us, us per KB %.4g and %.4g)",
				algo, coll, cur.launch_us, b[0], b[1] * 1e3, b[2] * 1e3);
			st = GC_ERR_INPUT;
			break;
		}
		gh_vrank_model next = cur;
		next.piece_us = b[0];
		next.l2_GBps = 1 / (b[1] * 1e3), next.hbm_GBps = 1 / (b[2] * 1e3);
		const bool same = fabs(next.piece_us - cur.piece_us) <= 1e-9 * cur.piece_us &&
				  fabs(next.l2_GBps - cur.l2_GBps) <= 1e-9 * cur.l2_GBps &&
				  fabs(next.hbm_GBps - cur.hbm_GBps) <= 1e-9 * cur.hbm_GBps;
		cur = next;
		if (same)
			break;
	}
	if (st == GC_OK) {
		double worst = 0;
		for (size_t i = 0; i < k && st == GC_OK; i++) {
			st = gh_vrank_time(&plans[i], &cur, &path[i], errmsg);
			double e = fabs(path[i].time_us - y[i]) / y[i];
			worst = e > worst ? e : worst;
		}
		if (st == GC_OK) {
			*m = cur;
			*used = k;
			*maxerr = worst;
		}
	}
	for (size_t i = 0; i < n + 1; i++) {
		gh_interp_plan_clear(&plans[i]);
		if (scheds[i])
			gs_sched_free(scheds[i]);
	}
	g_free(plans);
	g_free(scheds);
	g_free(y);
	g_free(path);
	return st;
}
