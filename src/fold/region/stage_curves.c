/* stage_curves.c: the series' curves. stage_curves gives every folded
 * series the chosen fit's rate curve on the grid (fit.h; Kriging unless
 * --fit says otherwise, the phase fit's curve when it fails or has too few
 * points), clamped to the series' physical range, and records the phase
 * fit's parameters -> r->series, r->fit_method, fit parameters.
 * stage_steps, after the phase rates are final, makes the curve of a
 * sparse counter, of the busy CPU clock and of the phases whose shape the
 * fit withheld the steps of the phase rates, so curve and table agree.
 *
 * Invariants: r->series[k] is w->sw[k] (the name and points move there);
 * only the first series' fit records the fit's own parameters.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "kriging.h"
#include "region_work.h"

static int curve_alloc(fold_curve *cv, size_t n, int band)
{
	cv->n = n;
	cv->x = calloc(n, sizeof *cv->x);
	cv->cum = calloc(n, sizeof *cv->cum);
	cv->value = calloc(n, sizeof *cv->value);
	if (band) {
		cv->lo = calloc(n, sizeof *cv->lo);
		cv->hi = calloc(n, sizeof *cv->hi);
	}
	if (!cv->x || !cv->cum || !cv->value || (band && (!cv->lo || !cv->hi)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		cv->x[i] = n > 1 ? (double)i / (double)(n - 1) : 0;
	return 0;
}

/* Clamps a fitted curve's values (and band) to [0, max]; returns how many
 * values were outside. */
static size_t clamp_curve(fold_curve *cv, double max)
{
	size_t n = 0;
	for (size_t i = 0; i < cv->n; i++) {
		double *v[3] = {&cv->value[i], cv->lo ? &cv->lo[i] : NULL, cv->hi ? &cv->hi[i] : NULL};
		for (int j = 0; j < 3; j++) {
			if (!v[j] || !isfinite(*v[j]))
				continue;
			if (*v[j] < 0 || *v[j] > max) {
				*v[j] = *v[j] < 0 ? 0 : max;
				n += j == 0;
			}
		}
	}
	return n;
}

/* The phase fit's parameters (pwlr.*), which series placed the boundaries
 * (with their robust noise and design effect), and the seed. */
static int record_phase_params(const fit_params *p, const pwlr__result *pr, const pwlr__opts *po,
                               const series_work *sw, const fold_series *series, size_t nsw, const size_t *pw,
                               uint64_t seed)
{
	int rc;
	if ((rc = fit__integer(p, "pwlr.segments", pr->nseg, "segments")) ||
	    (rc = fit__integer(p, "pwlr.cells", po->cells, "cells")) ||
	    (rc = fit__number(p, "pwlr.min_len", po->min_len, "instance")) ||
	    (rc = fit__number(p, "pwlr.bic", pr->bic, "")) ||
	    (rc = fit__integer(p, "pwlr.bic_segments", pr->bic_segments, "segments")) ||
	    (rc = fit__integer(p, "pwlr.transitions_absorbed", pr->transitions, "transitions")) ||
	    (rc = fit__integer(p, "pwlr.gradual_merged", pr->gradual_merged, "segments")) ||
	    (rc = fit__number(p, "pwlr.smear", po->smear, "")))
		return rc;
	char *list = NULL;
	for (size_t k = 0; k < nsw; k++) {
		if (pw[k] >= pr->nseries || sw[k].rates_only)
			continue;
		char *nl = util_asprintf("%s%s%s (sigma %.3g, design effect %.3g)", list ? list : "",
		                         list ? ", " : "", series[k].name, pr->sigma[pw[k]], pr->deff[pw[k]]);
		free(list);
		list = nl;
		if (!list)
			return -ENOMEM;
	}
	/* none qualified: one phase (choose_phase_series) */
	rc = fit__note(p, "pwlr.phase_series", "%s", list ? list : "(none: one phase)");
	free(list);
	return rc ? rc : fit__integer(p, "seed", seed, "");
}

/* r->series from the folded series, each with the chosen fit's curve on the
 * grid (the phase fit's when the chosen one fails). The first series
 * records the fit's parameters. */
static int fit_curves(analyze_ctx *c, fold_region_result *r, series_work *sw, size_t nsw,
                      const pwlr__result *pr, const size_t *pw)
{
	const fold_options *opt = c->opt;
	const fit_method *fit = opt->fit ? fit__find(opt->fit) : &fit__kriging;
	if (!fit)
		fit = &fit__kriging;
	size_t G = opt->grid >= 2 ? opt->grid : 200;
	r->fit_method = util_strdup(fit->name);
	r->series = calloc(nsw + models__max_metrics(c->models) + 1, sizeof *r->series);
	if (!r->series || !r->fit_method)
		return -ENOMEM;
	fit_params params = FIT__PARAMS_OF(r);
	for (size_t k = 0; k < nsw; k++) {
		series_work *s = &sw[k];
		fold_series *o = &r->series[r->nseries++];
		double max = region__series_max(s->skind, s->name);
		o->name = s->name;
		s->name = NULL;
		o->unit = util_strdup(s->unit);
		o->counter_kind = s->kind;
		o->npoints = s->f.n;
		o->px = s->f.x;
		o->py = s->f.y;
		s->f.x = s->f.y = NULL;
		o->total_per_instance = s->f.ninst ? s->f.sum_total / (double)s->f.ninst : 0;
		o->mean_rate = s->scale;
		o->boundaries_estimated = s->skind != FOLD__SER_WALL && s->f.nexact < s->f.ninst;
		o->instances_folded = s->f.ninst;
		o->instances_skipped = s->f.nskipped;
		if (!o->name || !o->unit || curve_alloc(&o->fit, G, fit->band))
			return -ENOMEM;
		unsigned long withheld = 0;
		fit_input in = {o->px, o->py, s->f.inst, o->npoints, s->scale, s->rscale,
		                max,   pr,    pw[k],     opt->seed,  &withheld};
		/* Too few points for a Kriging curve (a sparse counter: a few
		 * samples carry an event) is expected, not a failure: the
		 * piecewise-linear curve, said in fit_params. */
		int few = fit == &fit__kriging && o->npoints < KRIGING__MIN_POINTS;
		int rc = few ? 1 : fit->fit(&in, &o->fit, &o->fit_error, k == 0 ? &params : NULL);
		if (rc < 0)
			return rc;
		if (few) {
			if (fit__note(&params, "kriging.too_few_points",
			              "%s: %zu point(s), piecewise-linear curve", o->name, o->npoints) ||
			    (rc = fit__pwlr.fit(&in, &o->fit, &o->fit_error, NULL)))
				return rc ? rc : -ENOMEM;
		} else if (rc > 0) {
			fold_diag_subject subj = region__subject_counter(r->name, o->name);
			analyze__diag(c, FOLD_DIAG_KRIGING_FAILED, &subj, NULL, NULL,
			              "region %s, %s: Kriging fit failed; showing the piecewise-linear fit",
			              r->name, o->name);
			if ((rc = fit__pwlr.fit(&in, &o->fit, &o->fit_error, NULL)))
				return rc;
		}
		s->withheld = withheld;
		if (withheld) {
			/* phases as the reports number them, with their spans */
			char list[160] = "", key[160];
			size_t len = 0;
			for (unsigned b = 0;
			     b < 8 * sizeof withheld && b < pr->nseg && len + 24 < sizeof list; b++)
				if (withheld >> b & 1)
					len += (size_t)snprintf(list + len, sizeof list - len,
					                        "%s%u [%.3f, %.3f]", len ? ", " : "", b + 1,
					                        pr->bounds[b], pr->bounds[b + 1]);
			snprintf(key, sizeof key, "curve.shape_withheld.%s", o->name);
			if (fit__note(&params, key, "phase(s) %s", list))
				return -ENOMEM;
			unsigned nwithheld = 0;
			for (unsigned long m = withheld; m; m &= m - 1)
				nwithheld++;
			fold_diag_subject subj = region__subject_counter(r->name, o->name);
			analyze__diag(
			    c, FOLD_DIAG_CURVE_CONTRADICTS, &subj,
			    ANALYZE_VALUES({"phases", "count", nwithheld}), NULL,
			    "region %s, %s: in phase(s) %s the folded points of different instances "
			    "contradict each other (their fitted mean falls where it should rise): "
			    "the curve shows the phase's mean rate there, not a shape",
			    r->name, o->name, list);
		}
		size_t nclamp = clamp_curve(&o->fit, max);
		if (nclamp && fit__note(&params, "bounds.curve", "%s: %zu of %zu points clamped to [0, %g]",
		                        o->name, nclamp, o->fit.n, max))
			return -ENOMEM;
	}
	return 0;
}

/* What phase ph's table says of series k at x inside it: its rate there
 * (*v; a gradual phase's ramp from rate_from to rate_to), the band (its
 * interval, moved along a ramp by the ramp's distance from its mean; NaN
 * where the interval does not hold the rate) and the rate's integral from
 * the phase's start to x (*area); all NaN where the phase has no data for
 * it. Returns 0 when the table has no such series. */
static int table_at(const fold_phase_result *ph, size_t k, double x, double *v, double *lo, double *hi,
                    double *area)
{
	if (k >= ph->nrates)
		return 0;
	if (!isfinite(ph->rates[k])) {
		*v = *lo = *hi = *area = NAN;
		return 1;
	}
	double mean = ph->rates[k], w = ph->end - ph->start, u = x - ph->start;
	int ci = k < ph->nrate_ci && ph->rate_lo[k] <= mean && mean <= ph->rate_hi[k];
	*v = mean;
	*area = mean * u;
	*lo = ci ? ph->rate_lo[k] : NAN;
	*hi = ci ? ph->rate_hi[k] : NAN;
	if (ph->gradual && k < ph->nrange && isfinite(ph->rate_from[k]) && isfinite(ph->rate_to[k]) &&
	    w > 0) {
		double a = ph->rate_from[k], b = ph->rate_to[k];
		*v = a + (b - a) * u / w;
		*area = a * u + (b - a) * u * u / (2 * w);
		*lo = fmax(0, *lo + *v - mean);
		*hi += *v - mean;
	}
	return 1;
}

/* Series k's curve as the steps of its phase rates (ramps in gradual
 * phases) with their intervals as the band, its cumulative share their
 * integral when every phase has a rate: the fitted curve of a series with
 * estimated boundary values has the smeared shape its phase rates no
 * longer have. */
void region__step_curve(fold_region_result *r, size_t k, const pwlr__result *pr)
{
	fold_curve *cv = &r->series[k].fit;
	double total = 0, v, lo, hi, area;
	int all = 1;
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		all &= table_at(ph, k, ph->end, &v, &lo, &hi, &area) && isfinite(area);
		if (all)
			total += area;
	}
	for (size_t i = 0; i < cv->n; i++) {
		size_t p = pwlr__segment(pr, cv->x[i]);
		const fold_phase_result *ph = &r->phases[p < r->nphases ? p : r->nphases - 1];
		if (!table_at(ph, k, cv->x[i], &v, &lo, &hi, &area))
			continue;
		cv->value[i] = v;
		if (cv->lo && cv->hi) {
			cv->lo[i] = lo;
			cv->hi[i] = hi;
		}
		if (all && total > 0 && cv->cum) {
			double c = 0, qv, ql, qh, qa;
			for (size_t q = 0; q < p && q < r->nphases; q++)
				if (table_at(&r->phases[q], k, r->phases[q].end, &qv, &ql, &qh, &qa))
					c += qa;
			cv->cum[i] = (c + area) / total;
		}
	}
}

/* In the phases where the fit withheld series k's shape (its instances'
 * points contradict each other), the curve is the phase's rate as the
 * table gives it (a gradual phase's ramp), with that rate's interval over
 * the instances as its band (none without one): the fit's band there is
 * the envelope of a shape that is not shown (6-9 times the rate in a
 * loaded CloverLeaf burst; 0-6168/s around a loaded miniMD burst's page
 * faults at 114/s), and its mean slope not quite the table's rate. The
 * cumulative stays the straight line the fit drew. */
static void withheld_steps(fold_region_result *r, size_t k, unsigned long withheld, const pwlr__result *pr)
{
	fold_curve *cv = &r->series[k].fit;
	for (size_t i = 0; i < cv->n; i++) {
		size_t p = pwlr__segment(pr, cv->x[i]);
		if (p >= r->nphases || p >= 8 * sizeof withheld || !(withheld >> p & 1))
			continue;
		double v, lo, hi, area;
		if (!table_at(&r->phases[p], k, cv->x[i], &v, &lo, &hi, &area) || !isfinite(v))
			continue;
		cv->value[i] = v;
		if (cv->lo && cv->hi) {
			cv->lo[i] = lo;
			cv->hi[i] = hi;
		}
	}
}

/* A counter of a few events per instance (one that places no boundary,
 * choose_phase_series) read at enter/exit: its phase rates count each
 * instance's events in the phase (pwlr), and its folded points are a few 0s
 * and 1s per instance whose fitted shape inside a phase is counting noise
 * (a Kriging curve bent by it averaged 253/s over a phase of 163/s). Its
 * curve is the steps of its phase rates, with their intervals as the band:
 * curve and table from the same count. So are the phases where the fit
 * withheld a series' shape (withheld_steps). */
static int sparse_steps(fold_region_result *r, const series_work *sw, size_t nsw, const pwlr__result *pr,
                        double busy_share)
{
	util_buf which, busy;
	util_buf_init(&which);
	util_buf_init(&busy);
	for (size_t k = 0; k < nsw && k < r->nseries; k++) {
		const series_work *s = &sw[k];
		if (s->withheld)
			withheld_steps(r, k, s->withheld, pr);
		if (2 * s->f.nexact < s->f.ninst)
			continue;
		if (region__is_sparse(s)) {
			region__step_curve(r, k, pr);
			util_buf_printf(&which, "%s%s", which.len ? ", " : "", r->series[k].name);
		} else if (busy_share >= FOLD__BUSY_SHARE && s->skind == FOLD__SER_COUNTER &&
		           ingest__is_cpu_clock(r->series[k].name)) { /* s->name moved to the series */
			/* its dips are single instances' preemptions, left out of the
			 * phases (choose_reliable_series): the curve shows the same */
			region__step_curve(r, k, pr);
			util_buf_printf(&busy, "%s%s", busy.len ? ", " : "", r->series[k].name);
		}
	}
	int rc = 0;
	if (which.len &&
	    fit__note(&FIT__PARAMS_OF(r), "curve.steps",
	              "%s: fewer than %g events per instance (or none in most): the curve is the phase "
	              "rates' steps",
	              which.oom ? "?" : which.data, FOLD__MIN_EVENTS_PER_INSTANCE))
		rc = -ENOMEM;
	if (!rc && busy.len &&
	    fit__note(&FIT__PARAMS_OF(r), "curve.steps_busy",
	              "%s: the instances ran on a CPU %.0f%% of their time (median): the curve is the "
	              "phase rates' steps; its dips were single instances' preemptions",
	              busy.oom ? "?" : busy.data, 100 * busy_share))
		rc = -ENOMEM;
	util_buf_free(&which);
	util_buf_free(&busy);
	return rc;
}

int stage_curves(analyze_ctx *c, region_work *w)
{
	fit_params params = FIT__PARAMS_OF(w->r);
	int rc = fit_curves(c, w->r, w->sw, w->nsw, &w->pr, w->pw);
	return rc ? rc
	          : record_phase_params(&params, &w->pr, &w->po, w->sw, w->r->series, w->nsw, w->pw,
	                                c->opt->seed);
}

int stage_steps(analyze_ctx *c, region_work *w)
{
	(void)c;
	return sparse_steps(w->r, w->sw, w->nsw, &w->pr, w->r->groups[w->r->selected_group].cpu_share);
}
