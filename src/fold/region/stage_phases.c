/* stage_phases.c: the phases of the folded instance. Decides which series
 * may place phase boundaries (reliable ones only: not wall time, counting
 * noise, the clock of an always busy region, estimates from too few
 * samples), fits them jointly piecewise-linearly (pwlr.c), aligns a
 * boundary whose position varies between instances and fits again, and
 * drops boundaries the bootstrap does not locate -> w->ps, w->pw, w->po,
 * w->pr, w->ai, and the fit parameters align.* and pwlr.unlocated_dropped.
 *
 * Invariants: series left out of the boundaries still take part in the fit
 * (rates_only), so every series but wall time has slopes per phase; the
 * alignment warps the series' own points (w->sw[k].f.x) in place.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "region_work.h"
#include "uncertainty.h"

/* Decides which series place the phase boundaries. Phases are what a user
 * reads as code phases, so only reliable series may create them:
 *  - not wall time (y = x has no phases);
 *  - not a counter with few events per instance, or with no event in most
 *    instances (its folded curve is a staircase of counting noise);
 *  - when some series has boundary values recorded at enter and exit, not
 *    the series whose boundary values are estimated from samples (CPU time,
 *    counters missing at the events): the estimate's error moves every
 *    point of an instance and varies with preemption;
 *  - not a series with estimated boundary values when the instances carry
 *    fewer than FOLDING__EXTRAPOLATE_MIN samples each (samples_per_instance);
 *  - not the CPU clock (CPU time, TASK-CLOCK) when the folded instances ran
 *    on a CPU nearly all of their time (busy_share: their median CPU share):
 *    a typical instance then has no waiting phase, and what the clock shows
 *    is where single instances were preempted. Measured precisely, those
 *    dips outweigh a real switch of the other counters (in a loaded run of
 *    the README demo one half of the instances put its only boundary at
 *    0.74 on TASK-CLOCK, away from the 10x flop-rate switch at 0.47; and
 *    a miniFE burst folded only by it showed 0.27 CPUs, then 1.0).
 * Series left out still get per-phase rates. */
static size_t choose_reliable_series(series_work *sw, size_t nsw, double busy_share,
                                     double samples_per_instance)
{
	int any_exact = 0;
	size_t few = 0;
	for (size_t k = 0; k < nsw; k++) {
		series_work *s = &sw[k];
		s->rates_only = s->skind == FOLD__SER_WALL || region__is_sparse(s);
		if (!s->rates_only && s->skind == FOLD__SER_COUNTER && 2 * s->f.nexact >= s->f.ninst)
			any_exact = 1;
	}
	if (any_exact)
		for (size_t k = 0; k < nsw; k++)
			if (sw[k].skind == FOLD__SER_CPU || 2 * sw[k].f.nexact < sw[k].f.ninst)
				sw[k].rates_only = 1;
	/* Estimated boundary values need enough samples per instance to
	 * extrapolate from inside it; with fewer, each instance's cumulative
	 * share assumes its mean rate up to its edges, which bends the folded
	 * curve: 5 samples per 1 ms instance gave 4 phases for 2, 2 samples 7
	 * phases, 1 sample a switch at 0.64 for 0.37. */
	for (size_t k = 0; k < nsw; k++)
		if (!sw[k].rates_only && sw[k].skind != FOLD__SER_WALL &&
		    2 * sw[k].f.nexact < sw[k].f.ninst &&
		    !(samples_per_instance >= FOLDING__EXTRAPOLATE_MIN)) {
			sw[k].rates_only = 1;
			few++;
		}
	if (busy_share >= FOLD__BUSY_SHARE)
		for (size_t k = 0; k < nsw; k++)
			if (sw[k].skind == FOLD__SER_CPU || region__is_cpu_clock(&sw[k]))
				sw[k].rates_only = 1;
	return few;
}

/* Sets each series' rates_only (choose_reliable_series). Returns 1 when no
 * series may place boundaries: the region then has one phase (an always
 * busy region measured only by the CPU clock, whose dips are preemptions;
 * only sparse counters, whose points are counting noise; estimates from
 * too few samples), and *few says how many series were left out for too
 * few samples per instance (then a warning says so). */
static int choose_phase_series(series_work *sw, size_t nsw, double busy_share, double samples_per_instance,
                               size_t *few)
{
	*few = choose_reliable_series(sw, nsw, busy_share, samples_per_instance);
	for (size_t k = 0; k < nsw; k++)
		if (!sw[k].rates_only)
			return 0;
	return 1;
}

/* Relative spread of the used instances' durations (1.4826 MAD / median):
 * how far a phase switch can smear across the folded instance. */
static double duration_smear(const instances__instance *inst, size_t n)
{
	double *v = malloc((n + 1) * sizeof *v);
	size_t m = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (inst[i].used)
			v[m++] = inst[i].dur_ns;
	double smear = 0;
	if (m >= 3) {
		qsort(v, m, sizeof *v, region__cmp_dbl);
		double med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
		for (size_t i = 0; i < m; i++)
			v[i] = fabs(v[i] - med);
		qsort(v, m, sizeof *v, region__cmp_dbl);
		double mad = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
		smear = med > 0 ? 1.4826 * mad / med : 0;
	}
	free(v);
	return smear;
}

/* A phase whose length varies from instance to instance puts its boundary
 * at a different share of each instance: folded on shares, the switch
 * smears and phase durations come out wrong (shares cannot hold a fixed and
 * a variable phase at once). When the boundary that moves most between the
 * shorter and the longer half of the instances moves by more than
 * FOLD__ALIGN_MIN_SHIFT, each instance's own position of it is estimated
 * (the place that best matches the folded curve of the first series that
 * places boundaries, between the neighbouring boundaries, on a grid) and
 * every series' points of that instance are warped piecewise-linearly so
 * that it lands on the duration-weighted mean position: phase durations are
 * then the mean durations. The phases are fitted again on the aligned
 * points. Needs FOLD__ALIGN_MIN_POINTS points of an instance near the
 * boundary; instances with fewer are left as they are, and when they are
 * most of the instances nothing is aligned. */
#define FOLD__ALIGN_MIN_SHIFT 0.03
#define FOLD__ALIGN_MIN_POINTS 4
/* ... and at least this share of the instances with points must have their
 * own estimate: a fit of a few warped instances among many that are not
 * has phases of neither, which the unaligned fit's rates do not match
 * (miniFE's MPI_Send, 13 of 117 aligned: 5 phases, one without samples,
 * three given one rate, the curve +77% and -18% off them; miniMD's
 * timestep, 94 of 350: its first phase, over two unaligned ones, took the
 * second's rate, the curve +135% off it) */
#define FOLD__ALIGN_MIN_SHARE 0.5
#define FOLD__ALIGN_GRID 80

/* One alignment pass over the fit in w (w->ps, w->po, w->pr): xs[k] are
 * the fitted series' own point arrays, warped in place; the fit is done
 * again on them (the one before kept in *keep when keep has none yet). */
static int align_boundary(region_work *w, double *const *xs, align_info *ai, pwlr__result *keep)
{
	pwlr__series *ps = w->ps;
	size_t nps = w->nps, n = w->acc->ninst;
	const pwlr__opts *po = &w->po;
	pwlr__result *pr = &w->pr;
	const instances__instance *inst = w->acc->inst;
	memset(ai, 0, sizeof *ai);
	size_t k0 = SIZE_MAX;
	for (size_t k = 0; k < nps && k0 == SIZE_MAX; k++)
		if (!ps[k].rates_only && ps[k].inst)
			k0 = k;
	if (pr->nseg < 2 || k0 == SIZE_MAX || !n)
		return 0;
	double *dur = malloc(n * sizeof *dur), *bi = malloc(n * sizeof *bi);
	size_t *cnt = calloc(n + 1, sizeof *cnt), *idx = malloc((ps[k0].n + 1) * sizeof *idx);
	int rc = -ENOMEM;
	if (!dur || !bi || !cnt || !idx)
		goto out;
	for (size_t i = 0; i < n; i++)
		dur[i] = inst[i].dur_ns;
	size_t j;
	double as, al;
	rc = uncertainty__duration_shift(ps, nps, po, pr, dur, &j, &as, &al);
	if (rc <= 0 || !(fabs(al - as) > FOLD__ALIGN_MIN_SHIFT))
		goto out;
	rc = 0;
	if (j == 0 || j >= pr->nseg)
		goto out;
	/* the window: the neighbouring boundaries, past a segment next to it
	 * whose slope lies between its own neighbours' (the same smeared
	 * switch: a transition) */
	size_t jl = j - 1, jh = j + 1;
	const double *sl = pr->slope + k0 * pr->nseg;
	if (jl > 0 && j < pr->nseg &&
	    (sl[jl] - sl[jl - 1]) * (sl[j] - sl[jl]) > 0) /* segment jl between jl-1 and j */
		jl--;
	if (jh < pr->nseg && (sl[jh - 1] - sl[j - 1]) * (sl[jh] - sl[jh - 1]) > 0) /* segment j */
		jh++;
	double lo = pr->bounds[jl], b = pr->bounds[j], hi = pr->bounds[jh];
	/* points of the reference series grouped by instance (counting sort) */
	const pwlr__series *s = &ps[k0];
	for (size_t i = 0; i < s->n; i++)
		if (s->inst[i] < n)
			cnt[s->inst[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		cnt[i + 1] += cnt[i];
	for (size_t i = 0; i < s->n; i++)
		if (s->inst[i] < n)
			idx[cnt[s->inst[i]]++] = i;
	for (size_t i = n; i > 0; i--)
		cnt[i] = cnt[i - 1];
	cnt[0] = 0;
	double sw = 0, sd = 0;
	for (size_t i = 0; i < n; i++) {
		bi[i] = NAN;
		size_t near = 0;
		for (size_t q = cnt[i]; q < cnt[i + 1]; q++)
			near += s->x[idx[q]] >= lo && s->x[idx[q]] <= hi;
		if (near < FOLD__ALIGN_MIN_POINTS)
			continue;
		double best = INFINITY;
		for (int g = 0; g <= FOLD__ALIGN_GRID; g++) {
			double bb = lo + (hi - lo) * (0.05 + 0.9 * g / FOLD__ALIGN_GRID), cost = 0;
			for (size_t q = cnt[i]; q < cnt[i + 1]; q++) {
				double x = s->x[idx[q]];
				if (x < lo || x > hi)
					continue;
				double e = s->y[idx[q]] - pwlr__cum(pr, k0, region__warp(x, lo, bb, b, hi));
				cost += e * e;
			}
			if (cost < best) {
				best = cost;
				bi[i] = bb;
			}
		}
		sw += bi[i] * dur[i];
		sd += dur[i];
		ai->aligned++;
	}
	size_t with_points = 0;
	for (size_t i = 0; i < n; i++)
		with_points += cnt[i + 1] > cnt[i];
	if (ai->aligned < 10 || (double)ai->aligned < FOLD__ALIGN_MIN_SHARE * (double)with_points ||
	    !(sd > 0))
		goto out;
	double target = sw / sd;

	for (size_t k = 0; k < nps; k++)
		for (size_t i = 0; i < ps[k].n; i++) {
			uint32_t id = ps[k].inst ? ps[k].inst[i] : UINT32_MAX;
			if (id < n && !isnan(bi[id]))
				xs[k][i] = region__warp(xs[k][i], lo, bi[id], target, hi);
		}
	if (keep && !keep->knot)
		*keep = *pr; /* the unaligned fit, for the rates */
	else
		pwlr__result_free(pr);
	rc = pwlr__fit(ps, nps, po, pr);
	ai->done = rc == 0;
	ai->at = target;
	ai->npass = 1;
	ai->bi[0] = bi;
	ai->lo[0] = lo;
	ai->to[0] = target;
	ai->hi[0] = hi;
	bi = NULL;
out:
	free(dur);
	free(bi);
	free(cnt);
	free(idx);
	return rc < 0 ? rc : 0;
}

/* Joint piecewise-linear fit over every series but wall time (y = x has no
 * phases); only the reliable ones place boundaries (choose_phase_series).
 * w->pw[k]: series k's index among the fitted series, SIZE_MAX if none.
 * *few: series left out for too few samples per instance. */
static int fit_phases(region_work *w, size_t *few)
{
	const fold_region_result *r = w->r;
	series_work *sw = w->sw;
	size_t nsw = w->nsw, *pw = w->pw, n = w->acc->ninst;
	const instances__instance *inst = w->acc->inst;
	pwlr__series *ps = w->ps;
	pwlr__opts *po = &w->po;
	pwlr__result *pr = &w->pr;
	align_info *ai = &w->ai;
	double busy_share = r->groups[r->selected_group].cpu_share;
	double samples_per_instance =
	    r->instances_used ? (double)r->samples_folded / (double)r->instances_used : 0;
	int one_phase = choose_phase_series(sw, nsw, busy_share, samples_per_instance, few);
	if (!one_phase)
		*few = 0;
	size_t nps = 0;
	for (size_t k = 0; k < nsw; k++) {
		pw[k] = SIZE_MAX;
		if (sw[k].skind != FOLD__SER_WALL) {
			pw[k] = nps;
			ps[nps++] =
			    (pwlr__series){sw[k].f.x, sw[k].f.y, sw[k].f.n, sw[k].f.inst, sw[k].rates_only};
		}
	}
	if (!nps) {
		pw[0] = 0;
		ps[nps++] = (pwlr__series){sw[0].f.x, sw[0].f.y, sw[0].f.n, sw[0].f.inst, 0};
	}
	pwlr__opts_init(po);
	po->smear = duration_smear(inst, n);
	if (one_phase) /* nothing may place boundaries: one phase, not the fallback of every series */
		po->max_segments = 1;
	w->nps = nps;
	int rc = pwlr__fit(ps, nps, po, pr);
	if (rc)
		return rc;
	/* the series' own point arrays, in the fit's order, for the alignment */
	double *xs[64];
	if (nps > 64)
		return 0;
	for (size_t k = 0; k < nps; k++)
		xs[k] = NULL;
	for (size_t k = 0; k < nsw; k++)
		if (pw[k] < nps)
			xs[pw[k]] = sw[k].f.x;
	for (size_t k = 0; k < nps; k++)
		if (!xs[k])
			return 0;
	/* twice: the first pass aligns on a smeared fit, the second on the
	 * sharper fit of the aligned points */
	align_info a2;
	pwlr__result first;
	memset(&first, 0, sizeof first);
	if ((rc = align_boundary(w, xs, ai, &first)) || !ai->done ||
	    (rc = align_boundary(w, xs, &a2, NULL))) {
		pwlr__result_free(&first);
		return rc;
	}
	if (a2.done) {
		ai->at = a2.at;
		ai->npass = 2;
		ai->bi[1] = a2.bi[0];
		ai->lo[1] = a2.lo[0];
		ai->to[1] = a2.to[0];
		ai->hi[1] = a2.hi[0];
		a2.bi[0] = NULL;
	}
	region__align_info_free(&a2);
	/* Rates: warping an instance rescales its slopes by its own factor,
	 * which biases the pooled slope: the unaligned fit's where they
	 * measure the same phase (pwlr__adopt_rates). */
	if (first.knot)
		pwlr__adopt_rates(pr, &first, po->smear);
	pwlr__result_free(&first);
	return 0;
}

/* An inner boundary whose 90% bootstrap interval is wider than this share
 * of the instance is not located by the data. */
#define FOLD__UNLOCATED_WIDTH 0.15

/* Do the phases on either side of inner boundary j differ in some series
 * that places boundaries, beyond their bootstrap intervals? A boundary
 * whose position varies from instance to instance (a wait of varying
 * length) is not located, yet separates real phases. */
static int rates_differ(const pwlr__series *ps, size_t nps, const pwlr__result *pr,
                        const uncertainty__result *u, size_t j)
{
	for (size_t k = 0; k < nps && k < pr->nseries; k++) {
		if (ps[k].rates_only)
			continue;
		double alo = u->rlo[k * pr->nseg + j - 1], ahi = u->rhi[k * pr->nseg + j - 1];
		double blo = u->rlo[k * pr->nseg + j], bhi = u->rhi[k * pr->nseg + j];
		if (isnan(alo) || isnan(ahi) || isnan(blo) || isnan(bhi))
			continue;
		if (ahi < blo || bhi < alo)
			return 1;
	}
	return 0;
}

/* Boundaries the data do not locate, between rates they do not tell apart,
 * are not phase boundaries. With three
 * phases or more, the bootstrap re-fits locate each inner boundary and
 * bound each phase's rates; when some boundary's interval is wider than
 * FOLD__UNLOCATED_WIDTH and no series' rates on its two sides are apart
 * beyond their intervals, the fit is done again with that many segments
 * fewer (up to three times). A page-faulting phase
 * whose fault cost rises 15% across it was cut into 3 to 7 sub-phases of
 * 0.45e6 to 2.9e6 faults/s for a truth of 1.3e6, their boundaries' intervals
 * spanning 0.16-0.40 of the instance, while the real switch's spanned 0.03.
 * *dropped: how many boundaries went. */
static int drop_unlocated(analyze_ctx *c, const pwlr__series *ps, size_t nps, pwlr__opts *po,
                          pwlr__result *pr, size_t *dropped)
{
	*dropped = 0;
	for (int round = 0; round < 3 && pr->nseg >= 3; round++) {
		uncertainty__result u;
		int rc = uncertainty__estimate(ps, nps, po, pr, FOLD__BOOTSTRAP_REPLICATES, c->opt->seed,
		                               NULL, &u);
		if (rc) {
			uncertainty__result_free(&u);
			return rc;
		}
		size_t wide = 0;
		for (size_t j = 1; u.replicates && j < pr->nseg; j++)
			wide +=
			    u.bhi[j] - u.blo[j] > FOLD__UNLOCATED_WIDTH && !rates_differ(ps, nps, pr, &u, j);
		uncertainty__result_free(&u);
		if (!wide)
			break;
		pwlr__opts fewer = *po;
		fewer.max_segments = (unsigned)(pr->nseg - wide);
		pwlr__result again;
		if ((rc = pwlr__fit(ps, nps, &fewer, &again)) != 0) {
			pwlr__result_free(&again);
			return rc;
		}
		*dropped += pr->nseg - again.nseg;
		pwlr__result_free(pr);
		*pr = again;
		*po = fewer;
	}
	return 0;
}

int stage_phases(analyze_ctx *c, region_work *w)
{
	fold_region_result *r = w->r;
	size_t few = 0;
	w->pw = malloc(w->nsw * sizeof *w->pw);
	w->ps = calloc(w->nsw, sizeof *w->ps);
	if (!w->pw || !w->ps)
		return -ENOMEM;
	int rc = fit_phases(w, &few);
	if (rc)
		return rc;
	fold_diag_subject subj = analyze__subject_region(r->name);
	double per_instance = r->instances_used ? (double)r->samples_folded / (double)r->instances_used : 0;
	if (few)
		analyze__diag(
		    c, FOLD_DIAG_ONE_PHASE, &subj,
		    ANALYZE_VALUES({"samples_per_instance", "count", per_instance},
		                   {"needed", "count", FOLDING__EXTRAPOLATE_MIN}),
		    r->kind == TRACE_REGION_FUNCTION ? "function"
		    : r->kind == TRACE_REGION_OPENMP ? "openmp"
		                                     : NULL,
		    "region %s: one phase shown: the series that could place phase boundaries are not "
		    "read at enter and exit%s, and its instances carry %.1f samples each, too few to "
		    "estimate them (%d needed); rates come from consecutive samples. Sample more often "
		    "(FOLD_SAMPLE), or mark the code with a fold_region() API region",
		    r->name,
		    r->kind == TRACE_REGION_FUNCTION ? " (a function region)"
		    : r->kind == TRACE_REGION_OPENMP ? " (an OpenMP region)"
		                                     : "",
		    per_instance, FOLDING__EXTRAPOLATE_MIN);
	if (w->ai.done) {
		analyze__diag(
		    c, FOLD_DIAG_BOUNDARIES_ALIGNED, &subj,
		    ANALYZE_VALUES({"at", "share", w->ai.at}, {"instances", "count", (double)w->ai.aligned}),
		    NULL,
		    "region %s: a phase's length varies from instance to instance: each instance's "
		    "phase boundary was aligned to %.3f (%zu instances) before the phases were fitted",
		    r->name, w->ai.at, w->ai.aligned);
		if ((rc = fit__number(&FIT__PARAMS_OF(r), "align.boundary", w->ai.at, "instance")) ||
		    (rc = fit__integer(&FIT__PARAMS_OF(r), "align.instances", w->ai.aligned, "instances")))
			return rc;
	}
	if (!w->ai.done && w->pr.nseg >= 3) {
		size_t dropped = 0;
		if ((rc = drop_unlocated(c, w->ps, w->nps, &w->po, &w->pr, &dropped)))
			return rc;
		if (dropped &&
		    (rc = fit__integer(&FIT__PARAMS_OF(r), "pwlr.unlocated_dropped", dropped, "boundaries")))
			return rc;
	}
	return 0;
}
