/* stage_fold.c: folds the series of the group stage_group chose: every
 * counter the run has, then CPU time (wall time only when nothing else
 * folds), each into the points (position in the instance, cumulative share
 * of its events) and the rate scales the fits need -> w->sw. Keeps one CPU
 * time series where both the samples' CPU time and a CPU-clock counter
 * folded. Stops the region (returns 1) when nothing folds.
 *
 * Invariants: w->sw has room for every counter plus two; a series that
 * does not fold (fewer than 3 points, no events) leaves no entry.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "region_work.h"

/* Slopes of a folded curve are relative to an instance's own mean rate, so
 * they convert to events per second with the typical instance's rate (the
 * median over instances): stretched instances (preempted: same events, longer
 * duration) do not lower it. Sparse counters use the mean rate (events over
 * time): the typical instance of one with no event in most instances has
 * none, and the median of a count of a few events is a whole number of them
 * (0.55 page faults per 1.6 ms instance: the median instance's 1 read 625/s
 * where the instances hold 340/s). */
static double rate_scale(const folding__folded *f, double mean_scale, double unit)
{
	if (2 * f->nzero >= f->ninst || !(f->median_rate > 0) ||
	    f->sum_total < FOLD__MIN_EVENTS_PER_INSTANCE * (double)f->ninst)
		return mean_scale;
	return f->median_rate * unit;
}

/* Folds one series (called name) into *s. Returns 1 if it has enough to
 * fit, 0 if it was dropped (said when instances carried it: a CPU clock as
 * a diagnostic, another counter's name appended to empty, FOLD__EMPTY_LEN
 * bytes, when empty is not NULL), or a negative errno. */
#define FOLD__EMPTY_LEN 512

static int fold_one(analyze_ctx *c, const fold_region_result *r, const grouped *g, const folding__spec *spec,
                    const char *name, char *empty, series_work *s)
{
	if (folding__fold_series(c->tr, g->pieces, g->npieces, spec, &s->f)) {
		folding__folded_free(&s->f);
		return -ENOMEM;
	}
	if (s->f.n < 3 || s->f.sum_total <= 0 || s->f.sum_dur_ns <= 0) {
		/* Instances carried it but it did not fold: said, never silent.
		 * A CPU clock cannot stand still in instances that ran (one
		 * corrected for more than it counted, under load): a warning. A
		 * counter that counted nothing there (no page fault in a steady
		 * loop) is a fact: a note among the fit's notes. */
		int clock = spec->kind == FOLD__SER_CPU || ingest__is_cpu_clock(name);
		if (s->f.ninst && spec->kind != FOLD__SER_WALL && clock) {
			fold_diag_subject subj = region__subject_counter(r->name, name);
			analyze__diag(
			    c, FOLD_DIAG_SERIES_NOT_FOLDED, &subj,
			    ANALYZE_VALUES({"instances", "count", (double)s->f.ninst},
			                   {"gained", "count", (double)(s->f.ninst - s->f.nzero)},
			                   {"points", "count", (double)s->f.n}),
			    NULL,
			    "region %s: the CPU clock %s is in %zu folded instance(s) but advanced in %zu "
			    "of them (%zu value(s) inside): it has no curve or rates here",
			    r->name, name, s->f.ninst, s->f.ninst - s->f.nzero, s->f.n);
		} else if (s->f.ninst && spec->kind != FOLD__SER_WALL && empty) {
			size_t at = strlen(empty);
			snprintf(empty + at, FOLD__EMPTY_LEN - at, "%s%s", at ? ", " : "", name);
		}
		folding__folded_free(&s->f);
		return 0;
	}
	/* Counters in events/s; CPU and wall time in seconds per second. */
	double unit = spec->kind == FOLD__SER_COUNTER ? 1e9 : 1.0;
	s->skind = spec->kind;
	s->scale = s->f.sum_total / s->f.sum_dur_ns * unit;
	s->rscale = rate_scale(&s->f, s->scale, unit);
	s->rscale_rel = s->rscale == s->scale ? s->f.mean_rel_se : s->f.median_rel_se;
	s->unit = spec->kind == FOLD__SER_COUNTER ? "events/s" : "s/s";
	return 1;
}

/* Every counter, then CPU time; wall time only when nothing else folded.
 * sw has room for every counter plus two. */
static int fold_all_series(analyze_ctx *c, const fold_region_result *r, const grouped *g, series_work *sw,
                           size_t *nsw, char *empty)
{
	const fold_analysis *a = c->a;
	int64_t *ids = malloc((c->ntr + 1) * sizeof *ids);
	if (!ids)
		return -ENOMEM;
	int rc = 0;
	for (size_t k = 0; k < a->ncounters && rc >= 0; k++) {
		if (!region__counter_ids(c, k, ids))
			continue;
		folding__spec spec = {FOLD__SER_COUNTER, ids};
		rc = fold_one(c, r, g, &spec, a->counters[k].name, empty, &sw[*nsw]);
		if (rc > 0) {
			sw[*nsw].name = util_strdup(a->counters[k].name);
			sw[*nsw].kind = a->counters[k].kind;
			(*nsw)++;
		}
	}
	for (int kind = FOLD__SER_CPU; kind <= FOLD__SER_WALL && rc >= 0; kind++) {
		if (kind == FOLD__SER_WALL && *nsw)
			break;
		folding__spec spec = {kind, ids};
		const char *nm = kind == FOLD__SER_CPU ? "cpu_time" : "wall_time";
		rc = fold_one(c, r, g, &spec, nm, NULL, &sw[*nsw]);
		if (rc > 0) {
			sw[*nsw].name = util_strdup(kind == FOLD__SER_CPU ? "cpu_time" : "wall_time");
			sw[*nsw].kind = 0;
			(*nsw)++;
		}
	}
	free(ids);
	return rc < 0 ? rc : 0;
}

/* One CPU-time series, not several that disagree: when the samples' CPU
 * time (cpu_time) and a CPU-clock counter (TASK-CLOCK) both folded, keep
 * the counter if its values at enter/exit were read there (measured) for
 * most instances, else cpu_time (both are then read at the samples only);
 * drop the other and say which in fit_params (cpu_series). */
static int one_cpu_series(series_work *sw, size_t *nsw, fit_params *params)
{
	size_t cpu = SIZE_MAX, clk = SIZE_MAX;
	for (size_t k = 0; k < *nsw; k++) {
		if (sw[k].skind == FOLD__SER_CPU)
			cpu = k;
		else if (region__is_cpu_clock(&sw[k]) && clk == SIZE_MAX)
			clk = k;
	}
	if (cpu == SIZE_MAX || clk == SIZE_MAX)
		return 0;
	int measured = 2 * sw[clk].f.nexact >= sw[clk].f.ninst && sw[clk].f.ninst > 0;
	size_t keep = measured ? clk : cpu, drop = measured ? cpu : clk;
	int rc = fit__note(params, "cpu_series", "%s (%s); %s dropped: the same CPU time, %s", sw[keep].name,
	                   measured ? "read at enter/exit" : "read at the samples", sw[drop].name,
	                   measured ? "estimated at the boundaries" : "not read at enter/exit either");
	folding__folded_free(&sw[drop].f);
	free(sw[drop].name);
	for (size_t k = drop; k + 1 < *nsw; k++)
		sw[k] = sw[k + 1];
	(*nsw)--;
	memset(&sw[*nsw], 0, sizeof sw[*nsw]);
	return rc;
}

int stage_fold(analyze_ctx *c, region_work *w)
{
	fold_region_result *r = w->r;
	w->sw = calloc(c->a->ncounters + 2, sizeof *w->sw);
	if (!w->sw)
		return -ENOMEM;
	char empty[FOLD__EMPTY_LEN] = "";
	int rc = fold_all_series(c, r, &w->gr, w->sw, &w->nsw, empty);
	fit_params cp = FIT__PARAMS_OF(r);
	if (!rc && *empty)
		rc = fit__note(&cp, "series_empty",
		               "%s: no event in the folded instances, so no curve or rates (0/s)", empty);
	if (rc || (rc = one_cpu_series(w->sw, &w->nsw, &cp)))
		return rc;
	if (!w->nsw) {
		rc = analyze__not_folded(r, FOLD_DIAG_NOTHING_FOLDABLE, NULL,
		                         "no counter, CPU time or sample could be folded");
		return rc ? rc : 1;
	}
	return 0;
}
