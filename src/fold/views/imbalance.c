/* imbalance.c: load imbalance over ranks and over the threads of a process
 * (a->imbalance), from the exact profile.
 *
 * By rank (runs of two or more MPI ranks, or of two or more processes
 * when none is a rank; a launcher's helper traced with the ranks is left
 * out): first the ranks' computation
 * outside MPI (their main thread's wall time minus its time in MPI calls,
 * the "useful" time of the POP metrics), then every region in the order of
 * the profile (largest total first), each rank's value being its threads'
 * summed inclusive time in the region (0 for a rank that never entered it).
 * By thread: every OpenMP region run by two or more threads of a process,
 * one value per thread that ran it.
 *
 * Invariants: lb = mean / max in (0, 1] (1 = balanced); max/mean >= 1;
 * slowest is the rank (or stream id) of the largest value, the lowest one
 * on ties; rows without any time are left out.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"
#include "threads_class.h"

#define MAX_RANK_ROWS 16
#define MAX_THREAD_ROWS 12

typedef struct imb_list {
	fold_imbalance *v;
	size_t n, cap;
} imb_list;

/* Appends a row over n values (taken over), computing its statistics. */
static int add_row(imb_list *l, const char *region, unsigned kind, int by_thread, unsigned proc, double *v,
                   long *who, size_t n)
{
	double sum = 0, mn = 0, mx = 0;
	size_t at = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i];
		if (!i || v[i] < mn)
			mn = v[i];
		if (!i || v[i] > mx) {
			mx = v[i];
			at = i;
		}
	}
	if (!n || mx <= 0) {
		free(v);
		free(who);
		return 0;
	}
	if (util_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v)) {
		free(v);
		free(who);
		return -ENOMEM;
	}
	fold_imbalance *o = &l->v[l->n++];
	memset(o, 0, sizeof *o);
	o->region = util_strdup(region);
	o->kind = kind;
	o->by_thread = by_thread;
	o->proc = proc;
	o->n = n;
	o->values_ns = v;
	o->who = who;
	o->min_ns = mn;
	o->max_ns = mx;
	o->mean_ns = sum / (double)n;
	o->lb = o->mean_ns / mx;
	o->slowest = who[at];
	return o->region ? 0 : -ENOMEM;
}

/* The processes compared over ranks: the MPI ranks when any process is
 * one (a launcher's helper traced with them, Open MPI's orted, is not a
 * rank and did none of their work), else every process. slot[p]: process
 * p's place among them (its rank when the ranks are 0..n-1 once each,
 * else its order), SIZE_MAX when it is not compared; who[]: the rank, or
 * the process index, of each place. Returns their number. */
static size_t rank_slots(const fold_analysis *a, size_t *slot, long *who)
{
	int any_rank = 0;
	for (size_t p = 0; p < a->nprocs; p++)
		any_rank |= a->procs[p].rank >= 0;
	size_t n = 0;
	for (size_t p = 0; p < a->nprocs; p++)
		slot[p] = !any_rank || a->procs[p].rank >= 0 ? n++ : SIZE_MAX;
	/* Ranks 0..n-1 once each: places in rank order; otherwise in file
	 * order (also when the array to tell is not to be had). */
	char *seen = any_rank ? calloc(n ? n : 1, 1) : NULL;
	int by_rank_id = seen != NULL;
	for (size_t p = 0; p < a->nprocs && by_rank_id; p++) {
		long r = a->procs[p].rank;
		if (slot[p] == SIZE_MAX)
			continue;
		if (r < 0 || (size_t)r >= n || seen[r])
			by_rank_id = 0;
		else
			seen[r] = 1;
	}
	free(seen);
	for (size_t p = 0; p < a->nprocs; p++) {
		if (slot[p] == SIZE_MAX)
			continue;
		if (by_rank_id)
			slot[p] = (size_t)a->procs[p].rank;
		who[slot[p]] = by_rank_id ? a->procs[p].rank : (long)p;
	}
	return n;
}

static int by_rank(fold_analysis *a, imb_list *l)
{
	size_t np = a->nprocs;
	if (np < 2)
		return 0;
	size_t *slot = malloc(np * sizeof *slot);
	long *who0 = malloc(np * sizeof *who0);
	if (!slot || !who0) {
		free(slot);
		free(who0);
		return -ENOMEM;
	}
	size_t n = rank_slots(a, slot, who0);
	int rc = 0;
	if (n < 2)
		goto out;
	double *v = calloc(n, sizeof *v);
	long *who = malloc(n * sizeof *who);
	if (!v || !who) {
		free(v);
		free(who);
		rc = -ENOMEM;
		goto out;
	}
	memcpy(who, who0, n * sizeof *who);
	int any_mpi = 0;
	for (size_t p = 0; p < np; p++) {
		size_t s = slot[p];
		if (s == SIZE_MAX)
			continue;
		unsigned main_stream = 0;
		int have_main = 0;
		for (size_t k = 0; k < a->nthreads; k++)
			if (a->threads[k].proc == p && a->threads[k].index == 0) {
				v[s] = a->threads[k].wall_ns;
				main_stream = a->threads[k].stream;
				have_main = 1;
			}
		for (size_t e = 0; e < a->nprofile && have_main; e++) {
			const fold_profile_entry *pe = &a->profile[e];
			if (pe->kind != TRACE_REGION_MPI)
				continue;
			for (size_t k = 0; k < pe->nper_thread; k++)
				if (pe->per_thread[k].proc == p && pe->per_thread[k].thread == main_stream) {
					v[s] -= pe->per_thread[k].inclusive_ns;
					any_mpi = 1;
				}
		}
		if (v[s] < 0)
			v[s] = 0;
	}
	if (any_mpi) {
		rc = add_row(l, "computation (outside MPI)", 0, 0, 0, v, who, n);
	} else {
		free(v);
		free(who);
	}
	for (size_t e = 0; e < a->nprofile && !rc && l->n < MAX_RANK_ROWS; e++) {
		const fold_profile_entry *pe = &a->profile[e];
		v = calloc(n, sizeof *v);
		who = malloc(n * sizeof *who);
		if (!v || !who) {
			free(v);
			free(who);
			rc = -ENOMEM;
			break;
		}
		memcpy(who, who0, n * sizeof *who);
		for (size_t k = 0; k < pe->nper_thread; k++)
			if (pe->per_thread[k].proc < np && slot[pe->per_thread[k].proc] != SIZE_MAX)
				v[slot[pe->per_thread[k].proc]] += pe->per_thread[k].inclusive_ns;
		rc = add_row(l, pe->name ? pe->name : "?", pe->kind, 0, 0, v, who, n);
	}
out:
	free(slot);
	free(who0);
	return rc;
}

static int by_thread(fold_analysis *a, imb_list *l)
{
	int rc = 0;
	size_t rows = 0;
	for (size_t e = 0; e < a->nprofile && !rc && rows < MAX_THREAD_ROWS; e++) {
		const fold_profile_entry *pe = &a->profile[e];
		if (pe->kind != TRACE_REGION_OPENMP)
			continue;
		for (size_t p = 0; p < a->nprocs && !rc; p++) {
			size_t n = 0;
			for (size_t k = 0; k < pe->nper_thread; k++)
				n += pe->per_thread[k].proc == p;
			if (n < 2)
				continue;
			double *v = calloc(n, sizeof *v);
			long *who = calloc(n, sizeof *who);
			if (!v || !who) {
				free(v);
				free(who);
				return -ENOMEM;
			}
			size_t m = 0;
			for (size_t k = 0; k < pe->nper_thread; k++)
				if (pe->per_thread[k].proc == p) {
					v[m] = pe->per_thread[k].inclusive_ns;
					who[m++] = pe->per_thread[k].thread;
				}
			rc = add_row(l, pe->name ? pe->name : "?", pe->kind, 1, (unsigned)p, v, who, n);
			rows++;
		}
	}
	return rc;
}

int imbalance__compute(fold_analysis *a)
{
	imb_list l = {0};
	int rc = by_rank(a, &l);
	if (!rc)
		rc = by_thread(a, &l);
	a->imbalance = l.v;
	a->nimbalance = l.n;
	return rc;
}
