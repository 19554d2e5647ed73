/* stage_rates.c: phase rates the fit's slopes do not give. A series whose
 * enter/exit values are estimated takes its phase rates from consecutive
 * samples of one instance inside the phase (stage_sampled_rates); a series
 * measured at enter and exit whose fitted rate sits at its physical bound
 * (or, in a starved group, outside what the instances allow) takes it from
 * each instance's own values at the phase's bounds (stage_bound_rates).
 * Either way the 90% interval treats the pieces as clusters, and the
 * series' curve becomes the steps of its phase rates -> r->phases rates and
 * intervals, r->series curves, fit parameters rates.*.
 *
 * Invariants: gradual phases keep the fit's rates; a phase with fewer than
 * FOLD__MIN_SAMPLE_PAIRS pairs gets no rate from here; pieces stretched
 * below FOLD__MIN_RELATIVE_UTILISATION of the median CPU share are left out
 * (all count in a starved group).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "phase_split.h"
#include "region_work.h"

/* Consecutive samples of one instance inside a phase that a rate needs. */
#define FOLD__MIN_SAMPLE_PAIRS 5

/* Per-phase sums of one series over consecutive samples of one piece that
 * lie in the same phase: the increment dv over the wall time dt, and the
 * ratio estimator's spread over pieces (each piece a cluster). */
typedef struct pair_sums {
	double dv, dt;          /* summed over pieces */
	double dv_lo, dv_hi;    /* span_accumulate: what the points allow dv to be at least, at most */
	double pdv, pdt;        /* the current piece's */
	double q1, q2, q3;      /* sums of pdv^2, pdv*pdt, pdt^2 over pieces */
	unsigned long pairs, n; /* pairs, pieces with a pair */
} pair_sums;

/* Which pieces a series' rates count and where its values are: the
 * counter's id in every trace, each piece's CPU share (stretched_pieces;
 * NULL: every piece counts) and the least a piece needs to count. */
typedef struct rate_source {
	const int64_t *ids;
	const double *share;
	double share_min;
} rate_source;

/* One increment dv over wall time dt of the current piece. */
static void pair_add(pair_sums *q, double dv, double dt)
{
	q->pdv += dv;
	q->pdt += dt;
	q->dv += dv;
	q->dt += dt;
	q->pairs++;
}

static void pair_close_piece(pair_sums *ps, size_t nseg)
{
	for (size_t p = 0; p < nseg; p++) {
		pair_sums *q = &ps[p];
		if (q->pdt > 0) {
			q->q1 += q->pdv * q->pdv;
			q->q2 += q->pdv * q->pdt;
			q->q3 += q->pdt * q->pdt;
			q->n++;
		}
		q->pdv = q->pdt = 0;
	}
}

/* The series' value at sample k (CPU ns for cpu_time); 0 or -1 when absent. */
static int series_value_at(const ingest__trace *t, const ingest__thread *th, size_t k, const series_work *s,
                           int64_t id, double *v)
{
	if (s->skind == FOLD__SER_CPU) {
		if (!th->cpu_cum)
			return -1;
		*v = th->cpu_cum[k];
		return 0;
	}
	return id < 0 ? -1 : folding__sample_value(t, th, k, (uint32_t)id, v);
}

/* Adds series s's increments between consecutive samples of one piece that
 * lie in the same phase to ps[0..pr->nseg). Pieces whose instance got less
 * than share_min of a CPU (share, stretched_pieces) are left out. */
static void pair_accumulate(analyze_ctx *c, const region_work *w, const series_work *s,
                            const rate_source *src, pair_sums *ps)
{
	const pwlr__result *pr = &w->pr;
	const grouped *g = &w->gr;
	const align_info *ai = &w->ai;
	const int64_t *ids = src->ids;
	const double *share = src->share, share_min = src->share_min;
	memset(ps, 0, pr->nseg * sizeof *ps);
	for (size_t i = 0; i < g->npieces; i++) {
		const instances__instance *in = &g->pieces[i];
		if (!in->used || in->t1 <= in->t0 || (share && share[i] < share_min))
			continue;
		const ingest__trace *t = c->tr[in->proc];
		const ingest__thread *th = &t->threads[in->thread];
		int64_t id = s->skind == FOLD__SER_COUNTER ? ids[in->proc] : -1;
		double span = (double)(in->t1 - in->t0), v0 = 0, v1;
		int have0 = 0;
		for (size_t j = in->sb; j < in->se; j++) {
			if (series_value_at(t, th, j, s, id, &v1)) {
				have0 = 0;
				continue;
			}
			if (have0 && th->smp[j].tick > th->smp[j - 1].tick) {
				size_t p0 = pwlr__segment(
				    pr,
				    region__aligned_x(ai, in->id,
				                      ((double)th->smp[j - 1].tick - (double)in->t0) / span));
				size_t p1 = pwlr__segment(
				    pr, region__aligned_x(ai, in->id,
				                          ((double)th->smp[j].tick - (double)in->t0) / span));
				if (p0 == p1 && v1 >= v0)
					pair_add(&ps[p0], v1 - v0,
					         (double)(th->smp[j].tick - th->smp[j - 1].tick) *
					             t->ns_per_tick);
			}
			v0 = v1;
			have0 = 1;
		}
		pair_close_piece(ps, pr->nseg);
	}
}

/* One instance's increments of series k over each phase, from its points
 * (pu: aligned position, pt: ticks since its enter, pv: value; n of them),
 * added to ps as one piece's (phase_split.h): the phases outside the mask
 * `target` run at their fitted rates, the target phases share the rest. */
static void span_gaps(const fold_region_result *r, size_t k, unsigned long target, const pwlr__result *pr,
                      const phase_split__points *pts, double ns_per_tick, double max_per_ns, pair_sums *ps)
{
	double known[FOLD_PWLR_MAX_SEGMENTS] = {0};
	phase_split__share sh[FOLD_PWLR_MAX_SEGMENTS];
	size_t nseg = pr->nseg < FOLD_PWLR_MAX_SEGMENTS ? pr->nseg : FOLD_PWLR_MAX_SEGMENTS;
	for (size_t p = 0; p < nseg; p++) {
		int outside = p >= 8 * sizeof target || !(target >> p & 1);
		known[p] = outside && k < r->phases[p].nrates && isfinite(r->phases[p].rates[k])
		               ? r->phases[p].rates[k] * 1e-9 * ns_per_tick
		               : NAN;
	}
	phase_split__instance(pr->bounds, nseg, known, max_per_ns * ns_per_tick,
	                      &(phase_split__points){pts->u, pts->t, pts->v, pts->n}, sh);
	for (size_t p = 0; p < nseg; p++) {
		if (!(sh[p].dt > 0))
			continue;
		pair_add(&ps[p], sh[p].dv, sh[p].dt * ns_per_tick);
		ps[p].dv_lo += sh[p].lo;
		ps[p].dv_hi += sh[p].hi;
	}
}

/* Adds each whole instance's own increment of series s (r's series k) over
 * each phase to ps[0..pr->nseg): its value and wall time at the phase's two
 * bounds, between its own consecutive points (its enter and exit values,
 * which the events carry, its samples, and a waited sample's value at its
 * timer's deadline too, where nothing ran since), in the aligned instance
 * coordinate the bounds are in; each gap between them divided among the
 * phases it overlaps (span_gaps). A pair there counts an instance.
 * Instances without measured enter and exit values, pieces of instances
 * and instances that got less than share_min of a CPU are left out. */
static int span_accumulate(analyze_ctx *c, const region_work *w, size_t k, unsigned long target,
                           const series_work *s, const rate_source *src, pair_sums *ps)
{
	const fold_region_result *r = w->r;
	const pwlr__result *pr = &w->pr;
	const grouped *g = &w->gr;
	const align_info *ai = &w->ai;
	const int64_t *ids = src->ids;
	const double *share = src->share, share_min = src->share_min;
	memset(ps, 0, pr->nseg * sizeof *ps);
	/* the counter's largest rate per ns (a CPU clock: one CPU), which
	 * bounds what a phase can hold of a gap it shares (phase_split.h) */
	const double max_per_ns = region__series_max(s->skind, r->series[k].name) / 1e9;
	size_t cap = 0;
	double *pu = NULL, *pt = NULL, *pv = NULL;
	int rc = 0;
	for (size_t i = 0; i < g->npieces && !rc; i++) {
		const instances__instance *in = &g->pieces[i];
		if (!in->used || in->t1 <= in->t0 || (share && share[i] < share_min))
			continue;
		const ingest__trace *t = c->tr[in->proc];
		const ingest__thread *th = &t->threads[in->thread];
		int64_t id = s->skind == FOLD__SER_COUNTER ? ids[in->proc] : -1;
		const ingest__event *en = &th->ev[in->ev_enter], *ex = &th->ev[in->ev_exit];
		double v0, v1;
		if (id < 0 || en->tick != in->t0 || ex->tick != in->t1 ||
		    folding__event_value(t, th, en, (uint32_t)id, &v0) ||
		    folding__event_value(t, th, ex, (uint32_t)id, &v1) || v1 < v0)
			continue;
		size_t need = 2 * (in->se - in->sb) + 2, n = 0;
		if (need > cap) {
			double *a = realloc(pu, need * sizeof *a),
			       *b = a ? realloc(pt, need * sizeof *b) : NULL,
			       *d = b ? realloc(pv, need * sizeof *d) : NULL;
			pu = a ? a : pu;
			pt = b ? b : pt;
			pv = d ? d : pv;
			if (!d) {
				rc = -ENOMEM;
				break;
			}
			cap = need;
		}
		double span = (double)(in->t1 - in->t0), last = v0;
		pu[n] = region__aligned_x(ai, in->id, 0);
		pt[n] = 0;
		pv[n++] = v0;
		for (size_t j = in->sb; j < in->se; j++) {
			double v;
			if (series_value_at(t, th, j, s, id, &v) || v < last || v > v1)
				continue;
			double tj = (double)(th->smp[j].tick - in->t0);
			if (th->waited_ns && th->waited_ns[j] && t->ns_per_tick > 0) {
				double tw = tj - (double)th->waited_ns[j] / t->ns_per_tick;
				if (tw > pt[n - 1]) {
					pu[n] = region__aligned_x(ai, in->id, tw / span);
					pt[n] = tw;
					pv[n++] = v;
				}
			}
			if (tj > pt[n - 1] && tj < span) {
				pu[n] = region__aligned_x(ai, in->id, tj / span);
				pt[n] = tj;
				pv[n++] = v;
				last = v;
			}
		}
		pu[n] = region__aligned_x(ai, in->id, 1);
		pt[n] = span;
		pv[n++] = v1;
		span_gaps(r, k, target, pr, &(phase_split__points){pu, pt, pv, n}, t->ns_per_tick, max_per_ns,
		          ps);
		pair_close_piece(ps, pr->nseg);
	}
	free(pu);
	free(pt);
	free(pv);
	return rc;
}

/* Phase p's rate of series k from its pair sums q (events or CPU time over
 * wall time) and, with the pieces as clusters, the ratio's 90% interval;
 * NaN (no data) with fewer than FOLD__MIN_SAMPLE_PAIRS pairs. */
static void pair_rate(fold_region_result *r, size_t k, const series_work *s, size_t p, const pair_sums *q)
{
	fold_phase_result *ph = &r->phases[p];
	if (k >= ph->nrates)
		return;
	double unit = s->skind == FOLD__SER_COUNTER ? 1e9 : 1.0;
	double max = region__series_max(s->skind, r->series[k].name);
	double rate = NAN, lo = NAN, hi = NAN;
	if (q->pairs >= FOLD__MIN_SAMPLE_PAIRS && q->dt > 0) {
		double R = q->dv / q->dt;
		rate = R * unit;
		if (q->n >= 2) {
			double ss = q->q1 - 2 * R * q->q2 + R * R * q->q3;
			double se = sqrt(fmax(ss, 0) * (double)q->n / (double)(q->n - 1)) / q->dt;
			lo = region__clamp_rate((R - 1.645 * se) * unit, max);
			hi = region__clamp_rate((R + 1.645 * se) * unit, max);
		}
		rate = region__clamp_rate(rate, max);
	}
	/* span_accumulate's bounds: the interval holds what the points allow */
	if (isfinite(rate) && q->dv_hi > 0) {
		double blo = region__clamp_rate(q->dv_lo / q->dt * unit, max),
		       bhi = region__clamp_rate(q->dv_hi / q->dt * unit, max);
		lo = isfinite(lo) ? fmin(lo, blo) : blo;
		hi = isfinite(hi) ? fmax(hi, bhi) : bhi;
	}
	ph->rates[k] = rate;
	if (k < ph->nrate_ci) {
		ph->rate_lo[k] = lo;
		ph->rate_hi[k] = hi;
	}
}

/* Each piece's CPU share over its consecutive samples (*share, NULL when
 * the trace has no CPU time) and the least a piece needs to count
 * (*share_min): FOLD__MIN_RELATIVE_UTILISATION of the median piece's. A
 * piece below it was stretched (preempted, stalled) and would lower every
 * phase's rate below what the code does when it runs: the folded instance
 * is the typical one, as the fitted rates' scale is the median instance's. */
static int stretched_pieces(analyze_ctx *c, const grouped *g, double **share, double *share_min)
{
	*share = NULL;
	*share_min = 0;
	double *sh = malloc((g->npieces + 1) * sizeof *sh), *tmp = malloc((g->npieces + 1) * sizeof *tmp);
	if (!sh || !tmp) {
		free(sh);
		free(tmp);
		return -ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < g->npieces; i++) {
		const instances__instance *in = &g->pieces[i];
		const ingest__thread *th = &c->tr[in->proc]->threads[in->thread];
		sh[i] = INFINITY; /* unknown: kept */
		if (!in->used || !th->cpu_cum || in->se < in->sb + 2)
			continue;
		double dt =
		    (double)(th->smp[in->se - 1].tick - th->smp[in->sb].tick) * c->tr[in->proc]->ns_per_tick;
		if (dt > 0) {
			sh[i] = (th->cpu_cum[in->se - 1] - th->cpu_cum[in->sb]) / dt;
			tmp[m++] = sh[i];
		}
	}
	if (m >= 5) {
		qsort(tmp, m, sizeof *tmp, region__cmp_dbl);
		*share_min = FOLD__MIN_RELATIVE_UTILISATION * tmp[m / 2];
		*share = sh;
		sh = NULL;
	}
	free(sh);
	free(tmp);
	return 0;
}

/* Whether the folded group's instances ran on a CPU less than
 * FOLD__LOW_CPU_SHARE of their time (fold warns of it, warn_cpu_share).
 * Their pauses are then what the rates over wall time measure, in most
 * instances: the rates from the instances' own values take them all in,
 * not only those the pauses stretched least (stretched_pieces), or the
 * phases' rates sum to more than the instances did (a synthetic region
 * preempted once per instance, 52% on a CPU: 5.7e8 against 3.55e8/s). */
static int starved_group(const fold_region_result *r)
{
	return r->selected_group < r->ngroups && r->groups[r->selected_group].cpu_share < FOLD__LOW_CPU_SHARE;
}

/* A series whose values at enter/exit are estimated (extrapolated from the
 * instance's own samples) folds into curves whose shape, not level, is
 * measured: its slope over a phase, scaled by the instance's mean rate,
 * smears a phase's rate towards the instance's mean. What the samples
 * measure is the increment between consecutive samples of one instance:
 * those inside one phase give its rate (events or CPU time over wall time)
 * and, with the pieces as clusters, the ratio's 90% interval. A phase with
 * fewer than FOLD__MIN_SAMPLE_PAIRS such pairs has no rate (no data).
 * Gradual phases keep the fit's rates. */
int stage_sampled_rates(analyze_ctx *c, region_work *w)
{
	fold_region_result *r = w->r;
	const series_work *sw = w->sw;
	size_t nsw = w->nsw;
	const pwlr__result *pr = &w->pr;
	const grouped *g = &w->gr;
	int64_t *ids = malloc((c->ntr + 1) * sizeof *ids);
	pair_sums *ps = malloc(pr->nseg * sizeof *ps);
	double *share = NULL, share_min = 0;
	int rc = ids && ps ? stretched_pieces(c, g, &share, &share_min) : -ENOMEM;
	util_buf which;
	util_buf_init(&which);
	for (size_t k = 0; k < nsw && !rc; k++) {
		const series_work *s = &sw[k];
		/* measured for most instances (as choose_phase_series judges it):
		 * the fitted rates hold; a few instances without boundary values
		 * (a counter set switched between them) do not make it estimated */
		if (s->skind == FOLD__SER_WALL || 2 * s->f.nexact >= s->f.ninst)
			continue;
		const char *name = r->series[k].name; /* sw[k].name moved there */
		if (!name || (s->skind == FOLD__SER_COUNTER && !region__counter_ids_of(c, name, ids)))
			continue;
		pair_accumulate(c, w, s, &(rate_source){ids, starved_group(r) ? NULL : share, share_min}, ps);
		for (size_t p = 0; p < r->nphases; p++)
			if (!r->phases[p].gradual)
				pair_rate(r, k, s, p, &ps[p]);
		region__step_curve(r, k, pr);
		util_buf_printf(&which, "%s%s", which.len ? ", " : "", name);
	}
	if (!rc && which.len &&
	    fit__note(&FIT__PARAMS_OF(r), "rates.from_sample_pairs",
	              "%s: boundary values estimated; phase rates from consecutive samples of one instance "
	              "(at least %d per phase)",
	              which.oom ? "?" : which.data, FOLD__MIN_SAMPLE_PAIRS))
		rc = -ENOMEM;
	util_buf_free(&which);
	free(ids);
	free(ps);
	free(share);
	return rc;
}

/* A series measured at enter and exit whose fitted rate over a phase is at
 * its physical bound (0, or its maximum such as one CPU) without the
 * instances showing it: the fit mixes instances whose points disagree (a
 * preemption that splits one instance's work at one place and another's
 * elsewhere), and a slope it bounds or clamps there says nothing of the
 * rate. MPI_Waitall under load read TASK-CLOCK 0/s [0, 0] over a phase
 * where 38 of its samples found the thread running; a synthetic region
 * preempted near its end read 0/s where it ran 3.7% of the time. Such a
 * phase takes its rate from what each instance measures over it (its
 * counter and wall time at the phase's bounds, between its own points,
 * span_accumulate), with the instances as clusters for the 90% interval;
 * the curve there is that rate and its band that interval. A phase
 * fewer than FOLD__MIN_SAMPLE_PAIRS instances measure keeps the fit's.
 *
 * In a starved group (its instances on a CPU less than FOLD__LOW_CPU_SHARE
 * of their time, which fold warns of) the fit's rate can be off inside the
 * bounds too: the instances' points disagree wherever the scheduler paused
 * them, and a least-squares slope over a phase's interior weighs the
 * instances that ran there. miniMD omp2 under stress-ng --cpu 2 (35% CPU
 * share) read its time step's phases at 2.4e8 and 7.2e8 CPU ns/s, where its
 * instances' own values gave 3.8e8 [3.3e8, 4.2e8] and 4.8e8 [4.2e8, 5.3e8]
 * (the folded points' mean at the switch agreed with the instances, not
 * the table). There a fitted rate outside what the instances allow
 * (each phase on its own, the others at their fitted rates) and more than
 * FOLD__RATE_APART from theirs is replaced the same way (fit_params
 * rates.from_instances). Outside starved groups the fit's rate is the
 * typical instance's when it runs, and the ratio over all instances
 * (0.998 against 0.9997 CPU in a busy burst) is not the better answer. */
#define FOLD__RATE_APART 0.05
int stage_bound_rates(analyze_ctx *c, region_work *w)
{
	fold_region_result *r = w->r;
	const series_work *sw = w->sw;
	size_t nsw = w->nsw;
	const pwlr__result *pr = &w->pr;
	const grouped *g = &w->gr;
	int64_t *ids = NULL;
	pair_sums *ps = NULL;
	double *share = NULL, share_min = 0;
	util_buf which, apart;
	util_buf_init(&which);
	util_buf_init(&apart);
	int rc = 0, started = 0;
	const size_t maxp = 8 * sizeof(unsigned long);
	int starved = starved_group(r);
	for (size_t k = 0; k < nsw && k < r->nseries && !rc; k++) {
		const series_work *s = &sw[k];
		const char *name = r->series[k].name;
		if (s->skind != FOLD__SER_COUNTER || 2 * s->f.nexact < s->f.ninst || !name)
			continue;
		double max = region__series_max(s->skind, name);
		unsigned long at_bound = 0, fitted = 0;
		for (size_t p = 0; p < r->nphases && p < maxp; p++) {
			const fold_phase_result *ph = &r->phases[p];
			if (ph->gradual || k >= ph->nrates || !isfinite(ph->rates[k]))
				continue;
			if (ph->rates[k] <= 0 || ph->rates[k] >= max)
				at_bound |= 1ul << p;
			else
				fitted |= 1ul << p;
		}
		/* only a starved group's fitted rates are compared with the
		 * instances' (below): elsewhere the work would change nothing */
		if (!starved)
			fitted = 0;
		if (!at_bound && !fitted)
			continue;
		if (!started) {
			started = 1;
			ids = malloc((c->ntr + 1) * sizeof *ids);
			ps = malloc(pr->nseg * sizeof *ps);
			if (!ids || !ps || (rc = stretched_pieces(c, g, &share, &share_min))) {
				rc = rc ? rc : -ENOMEM;
				break;
			}
		}
		if (!region__counter_ids_of(c, name, ids))
			continue;
		/* a fitted rate outside what the instances' own values over its
		 * phase allow (the other phases at their rates) */
		unsigned long outside = 0;
		for (size_t p = 0; p < r->nphases && p < maxp && !rc; p++) {
			if (!(fitted >> p & 1))
				continue;
			if ((rc =
			         span_accumulate(c, w, k, 1ul << p, s,
			                         &(rate_source){ids, starved ? NULL : share, share_min}, ps)))
				break;
			fold_phase_result *ph = &r->phases[p];
			if (ps[p].pairs < FOLD__MIN_SAMPLE_PAIRS || !(ps[p].dt > 0) || k >= ph->nrate_ci)
				continue;
			double v = ph->rates[k], lo = ph->rate_lo[k], hi = ph->rate_hi[k];
			pair_rate(r, k, s, p, &ps[p]);
			double own = ph->rates[k];
			if (starved && !(v >= ph->rate_lo[k] && v <= ph->rate_hi[k]) &&
			    fabs(v - own) > FOLD__RATE_APART * fmax(fabs(v), fabs(own)))
				outside |= 1ul << p;
			ph->rates[k] = v;
			ph->rate_lo[k] = lo;
			ph->rate_hi[k] = hi;
		}
		unsigned long target = at_bound | outside;
		if (rc || !target)
			continue;
		if ((rc = span_accumulate(c, w, k, target, s,
		                          &(rate_source){ids, starved ? NULL : share, share_min}, ps)))
			break;
		unsigned long redone = 0;
		for (size_t p = 0; p < r->nphases && p < maxp; p++) {
			if (!(target >> p & 1) || ps[p].pairs < FOLD__MIN_SAMPLE_PAIRS || !(ps[p].dt > 0))
				continue;
			pair_rate(r, k, s, p, &ps[p]);
			redone |= 1ul << p;
			util_buf *b = at_bound >> p & 1 ? &which : &apart;
			util_buf_printf(b, "%s%s phase %zu", b->len ? ", " : "", name, p + 1);
		}
		/* the whole curve from the table: the fit's cumulative and its
		 * shape elsewhere would no longer integrate to the phases' rates
		 * (a starved miniMD step's cumulative read 45% at a switch its
		 * steps and its points put at 66%) */
		if (redone)
			region__step_curve(r, k, pr);
	}
	fit_params fp = FIT__PARAMS_OF(r);
	if (!rc && which.len &&
	    fit__note(&fp, "rates.at_bound_from_instances",
	              "%s: the fit's rate sat at its physical bound; rate from each instance's own values "
	              "at the phase's bounds; the series' curve is the phase rates' steps",
	              which.oom ? "?" : which.data))
		rc = -ENOMEM;
	if (!rc && apart.len &&
	    fit__note(&fp, "rates.from_instances",
	              "%s: the fit's rate lay outside what the instances' own values over the phase allow; "
	              "rate from those values; the series' curve is the phase rates' steps",
	              apart.oom ? "?" : apart.data))
		rc = -ENOMEM;
	util_buf_free(&which);
	util_buf_free(&apart);
	free(ids);
	free(ps);
	free(share);
	return rc;
}
