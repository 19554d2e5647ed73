/* region_work.c: the pipeline's work record (region_work.h) and the
 * helpers its stages share: which series is the CPU clock or counting
 * noise, the counters' ids per trace, a series' physical rate bound, and
 * the boundary alignment's warp of instance positions, the subjects of
 * its diagnostics.
 *
 * Invariants: nothing here warns or writes the region's result; a work
 * record owns every pointer in it until a stage moves it into the result.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "region_work.h"

void region__work_init(region_work *w, analyze_ctx *c, size_t g, fold_region_result *r)
{
	memset(w, 0, sizeof *w);
	w->g = g;
	w->acc = &c->acc[g];
	w->r = r;
}

void region__work_free(region_work *w)
{
	for (size_t k = 0; w->sw && k < w->nsw; k++) {
		folding__folded_free(&w->sw[k].f);
		free(w->sw[k].name);
	}
	free(w->sw);
	free(w->pw);
	free(w->ps);
	free(w->gr.pieces);
	pwlr__result_free(&w->pr);
	region__align_info_free(&w->ai);
	memset(w, 0, sizeof *w);
}

fold_diag_subject region__subject_group(const char *name, size_t group)
{
	fold_diag_subject s = analyze__subject_region(name);
	s.type = FOLD_SUBJECT_GROUP;
	s.group = (long)group;
	return s;
}

fold_diag_subject region__subject_phase(const char *name, size_t phase)
{
	fold_diag_subject s = analyze__subject_region(name);
	s.type = FOLD_SUBJECT_PHASE;
	s.phase = (long)phase;
	return s;
}

fold_diag_subject region__subject_counter(const char *name, const char *counter)
{
	fold_diag_subject s = analyze__subject_region(name);
	s.type = FOLD_SUBJECT_COUNTER;
	s.counter = (char *)counter;
	return s;
}

/* Is series s the thread's CPU clock as a counter? */
int region__is_cpu_clock(const series_work *s)
{
	return s->skind == FOLD__SER_COUNTER && ingest__is_cpu_clock(s->name);
}

/* A counter of counting noise: fewer than FOLD__MIN_EVENTS_PER_INSTANCE
 * events per instance, or none in most instances. */
int region__is_sparse(const series_work *s)
{
	const folding__folded *f = &s->f;
	return s->skind == FOLD__SER_COUNTER &&
	       (!f->ninst || f->sum_total / (double)f->ninst < FOLD__MIN_EVENTS_PER_INSTANCE ||
	        2 * f->nzero > f->ninst);
}

int region__cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* The trace counter id of the run's counter k in every trace (-1: absent
 * there). Returns whether any trace has it. */
int region__counter_ids(analyze_ctx *c, size_t k, int64_t *ids)
{
	int any = 0;
	for (size_t i = 0; i < c->ntr; i++) {
		ids[i] = k < c->c_ncounters ? c->ctr_ids[k * c->ntr + i] : -1;
		any |= ids[i] >= 0;
	}
	return any;
}

/* The same for the run's counter called name (a->counters holds at most
 * FOLD__MAX_COUNTERS). */
int region__counter_ids_of(analyze_ctx *c, const char *name, int64_t *ids)
{
	for (size_t k = 0; k < c->a->ncounters; k++)
		if (!strcmp(c->a->counters[k].name, name))
			return region__counter_ids(c, k, ids);
	return 0;
}

/* The largest rate a series can physically have on one thread: CPU time
 * 1 s/s, a CPU-clock counter 1e9 ns/s (instances are per thread);
 * otherwise unbounded. Every counter is cumulative: no rate is below 0. */
double region__series_max(int skind, const char *name)
{
	if (skind == FOLD__SER_CPU || skind == FOLD__SER_WALL)
		return 1.0;
	series_work probe = {.skind = skind, .name = (char *)name};
	return region__is_cpu_clock(&probe) ? 1e9 : INFINITY;
}

/* v within [0, max]; NaN (no data) stays NaN. */
double region__clamp_rate(double v, double max)
{
	return v < 0 ? 0 : v > max ? max : v;
}

void region__align_info_free(align_info *ai)
{
	for (int k = 0; k < 2; k++)
		free(ai->bi[k]);
	memset(ai, 0, sizeof *ai);
}

double region__warp(double x, double lo, double from, double to, double hi)
{
	if (x < lo || x > hi || !(from > lo) || !(from < hi))
		return x;
	return x < from ? lo + (x - lo) * (to - lo) / (from - lo) : to + (x - from) * (hi - to) / (hi - from);
}

/* Position x of instance id as the phases were fitted (after its warps). */
double region__aligned_x(const align_info *ai, uint32_t id, double x)
{
	for (int k = 0; ai && k < ai->npass; k++)
		if (ai->bi[k] && !isnan(ai->bi[k][id]))
			x = region__warp(x, ai->lo[k], ai->bi[k][id], ai->to[k], ai->hi[k]);
	return x;
}
