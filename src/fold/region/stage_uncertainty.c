/* stage_uncertainty.c: how far the phases can be trusted. Bootstrap
 * re-fits (uncertainty.c) give every phase start and rate a 90% interval
 * (around the table's rate, with the typical instance's rate's own spread
 * in quadrature); the odd/even self-check folds two halves of the
 * instances on their own and says whether they agree -> r->phases
 * intervals, r->bootstrap_replicates, r->self_check, and warnings when the
 * phases are not reproducible or a boundary moves with the duration.
 *
 * Invariants: an interval always holds the rate it qualifies; a phase
 * without data (NaN rate) has NaN bounds.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "region_work.h"
#include "uncertainty.h"

/* The self-check's figures (from u) into r->self_check, and the verdict
 * they give r->fidelity. */
static void self_check_of(fold_region_result *r, const uncertainty__result *u)
{
	fold_self_check *sc = &r->self_check;
	sc->done = u->checked;
	sc->why_not = u->checked ? NULL : u->check_why_not ? u->check_why_not : "not computed";
	sc->instances_a = u->ninst_a;
	sc->instances_b = u->ninst_b;
	sc->phases_a = u->nseg_a;
	sc->phases_b = u->nseg_b;
	sc->boundary = u->check_boundary;
	sc->rate = u->check_rate;
	sc->boundary_allowed = u->check_boundary_allowed;
	sc->rate_allowed = u->check_rate_allowed;
	sc->reproducible = sc->done && u->check_excess <= 1;
	r->fidelity.verdict = !sc->done          ? FOLD_FIDELITY_UNCHECKED
	                      : sc->reproducible ? FOLD_FIDELITY_CONSISTENT
	                                         : FOLD_FIDELITY_SUSPECT;
	r->fidelity.reasons = sc->done && !sc->reproducible ? FOLD_FIDELITY_HALVES : 0;
}

/* Intervals of every phase's start and of its rates, and the self-check. */
int stage_uncertainty(analyze_ctx *c, region_work *w)
{
	fold_region_result *r = w->r;
	const series_work *sw = w->sw;
	size_t nsw = w->nsw;
	const pwlr__result *pr = &w->pr;
	const size_t *pw = w->pw;
	const instances__region_acc *A = w->acc;
	uncertainty__result u;
	double *dur = malloc((A->ninst + 1) * sizeof *dur);
	if (!dur)
		return -ENOMEM;
	for (size_t i = 0; i < A->ninst; i++)
		dur[i] = A->inst[i].dur_ns;
	int rc = uncertainty__estimate(w->ps, w->nps, &w->po, pr, FOLD__BOOTSTRAP_REPLICATES, c->opt->seed,
	                               dur, &u);
	free(dur);
	if (rc) {
		uncertainty__result_free(&u);
		return rc;
	}
	r->bootstrap_replicates = u.replicates;
	for (size_t p = 0; p < r->nphases; p++) {
		fold_phase_result *ph = &r->phases[p];
		ph->start_lo = u.replicates ? u.blo[p] : NAN;
		ph->start_hi = u.replicates ? u.bhi[p] : NAN;
		ph->rate_lo = calloc(nsw + 1, sizeof *ph->rate_lo);
		ph->rate_hi = calloc(nsw + 1, sizeof *ph->rate_hi);
		if (!ph->rate_lo || !ph->rate_hi) {
			uncertainty__result_free(&u);
			return -ENOMEM;
		}
		for (size_t k = 0; k < nsw; k++) {
			int in = pw[k] < pr->nseries && u.replicates;
			size_t q = in ? pw[k] * pr->nseg + p : 0;
			ph->rate_lo[k] = in ? u.rlo[q] * sw[k].rscale : NAN;
			ph->rate_hi[k] = in ? u.rhi[q] * sw[k].rscale : NAN;
			/* The replicates vary the fit's interior slope; the table may
			 * give the phase another estimate of the same rate (events over
			 * time, sample pairs). The interval keeps the replicates' spread
			 * on each side but around the table's rate, so it always holds
			 * the number it qualifies (a burst's 2.67e8 sat under its own
			 * [3.9e8, 1e9]). */
			double mid = in ? u.rmid[q] * sw[k].rscale : NAN;
			if (in && k < ph->nrates && isfinite(ph->rates[k]) && isfinite(mid)) {
				/* The replicates vary the shape (slopes relative to each
				 * instance's own rate), not the scale, the typical
				 * instance's rate: its own 90% spread over the instances
				 * adds in quadrature. A region of one phase had none
				 * (page faults 508/s [508, 508] from 116 faults). */
				double v = ph->rates[k],
				       e = isfinite(sw[k].rscale_rel) ? 1.645 * sw[k].rscale_rel * v : 0;
				double dl = fmax(0, mid - ph->rate_lo[k]), dh = fmax(0, ph->rate_hi[k] - mid);
				ph->rate_lo[k] = v - sqrt(dl * dl + e * e);
				ph->rate_hi[k] = v + sqrt(dh * dh + e * e);
			}
			double max = region__series_max(sw[k].skind, r->series[k].name);
			int nodata = k < ph->nrates && isnan(ph->rates[k]);
			ph->rate_lo[k] = nodata ? NAN : region__clamp_rate(ph->rate_lo[k], max);
			ph->rate_hi[k] = nodata ? NAN : region__clamp_rate(ph->rate_hi[k], max);
		}
		ph->nrate_ci = nsw;
	}
	fold_self_check *sc = &r->self_check;
	self_check_of(r, &u);
	/* Judged on the phases reported: each boundary must have a counterpart
	 * in both halves and each phase's rates must agree. A half with extra
	 * boundaries of its own (half the samples: the fit follows more noise)
	 * does not contradict them; a half lacking one of them does, through
	 * the boundary figure. */
	fold_diag_subject subj = analyze__subject_region(r->name);
	if (sc->done && !sc->reproducible)
		analyze__diag(c, FOLD_DIAG_SELF_CHECK_FAILED, &subj,
		              ANALYZE_VALUES({"phases_a", "count", (double)sc->phases_a},
		                             {"phases_b", "count", (double)sc->phases_b},
		                             {"phases", "count", (double)r->nphases},
		                             {"boundary", "share", sc->boundary}, {"rate", "share", sc->rate},
		                             {"worst", "share", u.check_worst},
		                             {"allowed", "share", u.check_worst_allowed}),
		              u.check_worst_rate ? "rate" : "boundary",
		              "region %s: self-check failed: its two halves of instances folded on their own "
		              "give %zu and %zu phase(s) (all: %zu), boundaries %.1f%% of the instance and "
		              "rates %.0f%% apart; a %s %.1f%% apart where their sampling noise allows "
		              "%.1f%%: these phases are not reproducible",
		              r->name, sc->phases_a, sc->phases_b, r->nphases, 100 * sc->boundary,
		              100 * sc->rate, u.check_worst_rate ? "rate" : "boundary", 100 * u.check_worst,
		              100 * u.check_worst_allowed);
	/* A boundary that moves between the shorter and the longer instances
	 * by more than the halves' own disagreement (and 1% of the instance):
	 * a phase whose length varies. */
	if (u.dur_checked) {
		double shift = fabs(u.dur_long - u.dur_short);
		sc->duration_shift = u.dur_long - u.dur_short;
		if (shift > 0.01 && (!sc->done || shift > 2 * sc->boundary))
			analyze__diag(
			    c, FOLD_DIAG_BOUNDARY_MOVES, &subj,
			    ANALYZE_VALUES({"at", "share", pr->bounds[u.dur_boundary]},
			                   {"shorter", "share", u.dur_short},
			                   {"longer", "share", u.dur_long}),
			    NULL,
			    "region %s: the phase boundary at %.3f moves with the instance's duration "
			    "(%.3f in the shorter half of the instances, %.3f in the longer): a phase's "
			    "length varies from instance to instance, so phase shares and durations are "
			    "averages over different code positions",
			    r->name, pr->bounds[u.dur_boundary], u.dur_short, u.dur_long);
	}
	uncertainty__result_free(&u);
	return 0;
}
