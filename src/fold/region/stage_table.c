/* stage_table.c: the phase table. Turns the phase fit into r->phases:
 * each phase's bounds and per-series rates (the fit's slopes times the
 * typical instance's rate, clamped to the physical range; ramps for
 * gradual phases), the folded samples inside it and the instances sampled
 * on either side of it, and no rate (NaN, "no data") where the samples do
 * not support one; warns of phases with too few samples.
 *
 * Invariants: r->phases[p].rates[k] is series k's (r->series[k]); a NaN
 * rate is "no data", never 0.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "region_work.h"

/* Fewest folded samples inside a phase for its rates: with n samples a
 * rate's relative standard error is about 1/sqrt(n), over 30% below 10. */
#define FOLD__MIN_PHASE_SAMPLES 10

/* Counts each phase's folded samples and the instances sampled on either
 * side of it with none inside (pairs_across), and the extent of its
 * samples (xlo[p], xhi[p]; +-INFINITY without any). */
static int count_phase_samples(analyze_ctx *c, fold_region_result *r, const pwlr__result *pr,
                               const grouped *g, const align_info *ai, double *xlo, double *xhi)
{
	size_t nid = 0;
	for (size_t i = 0; i < g->npieces; i++)
		nid = g->pieces[i].id >= nid ? g->pieces[i].id + 1 : nid;
	/* each instance's phase of its latest sample: the pieces of one
	 * instance (around its nested calls of the same region) are one run */
	size_t *last = malloc((nid + 1) * sizeof *last);
	if (!last)
		return -ENOMEM;
	for (size_t i = 0; i < nid; i++)
		last[i] = SIZE_MAX;
	for (size_t p = 0; p < pr->nseg; p++) {
		xlo[p] = INFINITY;
		xhi[p] = -INFINITY;
	}
	unsigned long no_time = 0;
	for (size_t i = 0; i < g->npieces; i++) {
		const instances__instance *in = &g->pieces[i];
		if (in->used && in->t1 <= in->t0)
			no_time += in->se - in->sb;
		if (!in->used || in->t1 <= in->t0)
			continue;
		const ingest__thread *th = &c->tr[in->proc]->threads[in->thread];
		double span = (double)(in->t1 - in->t0);
		for (size_t k = in->sb; k < in->se; k++) {
			double x =
			    region__aligned_x(ai, in->id, ((double)th->smp[k].tick - (double)in->t0) / span);
			size_t p = pwlr__segment(pr, x), prev = last[in->id];
			r->phases[p].samples++;
			if (th->waited_ns && th->waited_ns[k])
				r->phases[p].samples_waited++;
			for (size_t q = prev + 1; prev != SIZE_MAX && q < p; q++)
				r->phases[q].pairs_across++;
			last[in->id] = p;
			if (x < xlo[p])
				xlo[p] = x;
			if (x > xhi[p])
				xhi[p] = x;
		}
	}
	free(last);
	/* A piece whose samples' cost took all of its time (a 1 us XSBench
	 * lookup carrying a 25 us sample: compensated duration 0) has no
	 * position for them: they are not folded, and the count says so
	 * (38 of 971 under load), not only the phases' sum. */
	if (no_time) {
		r->samples_folded = r->samples_folded > no_time ? r->samples_folded - no_time : 0;
		if (fit__integer(&FIT__PARAMS_OF(r), "samples.no_time_left", no_time, "samples"))
			return -ENOMEM;
	}
	return 0;
}

/* Rates the samples do not support are NAN ("no data"). */
static void withhold_unsupported_rates(analyze_ctx *c, fold_region_result *r, const series_work *sw,
                                       size_t nsw, const double *xlo, const double *xhi)
{
	/* A phase at an end of the instance whose samples do not cover at least
	 * half of it (none, or all at its inner edge: the sample-free ends that
	 * delivery lag and sample cost leave) is measured there only by the
	 * boundary values: a series whose boundary values are estimated
	 * (extrapolated from the samples inside) has no data there, and says so
	 * (NaN: "no data" in the reports, null in the JSON), rather than a rate
	 * the samples do not support. The same for a phase without any sample
	 * anywhere in the instance, where wall time's 1 s/s is no data either. */
	for (size_t p = 0; p < r->nphases; p++) {
		fold_phase_result *ph = &r->phases[p];
		/* Fewer than FOLD__MIN_PHASE_SAMPLES folded samples: no rate from
		 * the samples inside (its relative error would pass 30%). Such a
		 * phase is where the folded samples leave a gap (a preemption or a
		 * wait the signal was delivered after, aligned across instances):
		 * its rates were slopes between its neighbours' edges, e.g. page
		 * faults at 29/s where TASK-CLOCK read 0, over 0 samples of a
		 * loaded miniMD step. */
		if (ph->samples < FOLD__MIN_PHASE_SAMPLES) {
			/* A series read at enter and exit keeps its rate when many
			 * instances have samples on either side, whose values bracket
			 * the phase (a nested call's time in a recursive region). */
			int across = ph->pairs_across >= FOLD__MIN_PHASE_SAMPLES;
			for (size_t k = 0; k < ph->nrates; k++) {
				if (across && k < nsw && sw[k].skind == FOLD__SER_COUNTER &&
				    !region__is_sparse(&sw[k]) && 2 * sw[k].f.nexact >= sw[k].f.ninst)
					continue;
				ph->rates[k] = NAN;
				if (k < ph->nrange)
					ph->rate_from[k] = ph->rate_to[k] = NAN;
			}
			continue;
		}
		/* no sample at all, anywhere in the instance: only the values
		 * read at enter/exit measure it; wall time (1 s/s) says nothing */
		int none = ph->samples == 0;
		if (!none && p != 0 && p + 1 != r->nphases)
			continue;
		if (!none && xhi[p] - xlo[p] >= 0.5 * (ph->end - ph->start))
			continue;
		for (size_t k = 0; k < nsw && k < ph->nrates; k++)
			if ((none && sw[k].skind == FOLD__SER_WALL) ||
			    (sw[k].skind != FOLD__SER_WALL && sw[k].f.nexact < sw[k].f.ninst)) {
				ph->rates[k] = NAN;
				if (k < ph->nrange)
					ph->rate_from[k] = ph->rate_to[k] = NAN;
			}
	}
}

/* A warning for each phase with too few samples: which rates it still
 * shows (counters read at enter and exit, across it) or that it shows none. */
static void warn_thin_phases(analyze_ctx *c, const fold_region_result *r)
{
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		if (ph->samples >= FOLD__MIN_PHASE_SAMPLES)
			continue;
		size_t shown = 0;
		for (size_t k = 0; k < ph->nrates; k++)
			shown += !isnan(ph->rates[k]);
		fold_diag_subject subj = region__subject_phase(r->name, p + 1);
		if (shown)
			analyze__diag(
			    c, FOLD_DIAG_PHASE_ENDPOINT_RATES, &subj,
			    ANALYZE_VALUES({"start", "share", ph->start}, {"end", "share", ph->end},
			                   {"samples", "count", (double)ph->samples},
			                   {"pairs_across", "count", (double)ph->pairs_across}),
			    NULL,
			    "region %s: phase %zu [%.3f, %.3f] holds only %lu sample(s): its rates are "
			    "those of the counters read at enter and exit, across it in %lu instances "
			    "sampled on either side",
			    r->name, p + 1, ph->start, ph->end, ph->samples, ph->pairs_across);
		else
			analyze__diag(
			    c, FOLD_DIAG_PHASE_NO_RATES, &subj,
			    ANALYZE_VALUES({"start", "share", ph->start}, {"end", "share", ph->end},
			                   {"samples", "count", (double)ph->samples}),
			    NULL,
			    "region %s: phase %zu [%.3f, %.3f] holds only %lu sample(s), too few for "
			    "its rates (none shown)",
			    r->name, p + 1, ph->start, ph->end, ph->samples);
	}
}

/* Phases with per-series rates from the piecewise-linear slopes, and the
 * samples of the used instances per phase. */
static int build_phases(analyze_ctx *c, fold_region_result *r, const series_work *sw, size_t nsw,
                        const pwlr__result *pr, const size_t *pw, const grouped *g, const align_info *ai)
{
	size_t room = nsw + models__max_metrics(c->models) + 1;
	r->phases = calloc(pr->nseg, sizeof *r->phases);
	if (!r->phases)
		return -ENOMEM;
	r->nphases = pr->nseg;
	size_t nclamped = 0;
	for (size_t p = 0; p < pr->nseg; p++) {
		fold_phase_result *ph = &r->phases[p];
		ph->start = pr->bounds[p];
		ph->end = pr->bounds[p + 1];
		ph->rate_names = calloc(room, sizeof *ph->rate_names);
		ph->rates = calloc(room, sizeof *ph->rates);
		if (!ph->rate_names || !ph->rates)
			return -ENOMEM;
		ph->gradual = pr->gradual[p];
		if (ph->gradual) {
			ph->rate_from = calloc(room, sizeof *ph->rate_from);
			ph->rate_to = calloc(room, sizeof *ph->rate_to);
			if (!ph->rate_from || !ph->rate_to)
				return -ENOMEM;
		}
		for (size_t k = 0; k < nsw; k++) {
			double slope = pw[k] < pr->nseries ? pr->slope[pw[k] * pr->nseg + p] : 1.0;
			ph->rate_names[ph->nrates] = util_strdup(r->series[k].name);
			ph->rates[ph->nrates] = slope * sw[k].rscale;
			double max = region__series_max(sw[k].skind, r->series[k].name);
			if (ph->rates[ph->nrates] > max || ph->rates[ph->nrates] < 0) {
				ph->rates[ph->nrates] = ph->rates[ph->nrates] < 0 ? 0 : max;
				nclamped++;
			}
			if (!ph->rate_names[ph->nrates])
				return -ENOMEM;
			if (ph->gradual) {
				int in = pw[k] < pr->nseries;
				/* the phase's own line at its ends: at its end pwlr__rate
				 * would give the next phase's rate (a ramp 0.48 -> 0.44
				 * read "0.48 -> 0.92", the rate after it) */
				ph->rate_from[ph->nrates] =
				    in ? pwlr__segment_rate(pr, pw[k], p, ph->start) * sw[k].rscale
				       : ph->rates[ph->nrates];
				ph->rate_to[ph->nrates] =
				    in ? pwlr__segment_rate(pr, pw[k], p, ph->end) * sw[k].rscale
				       : ph->rates[ph->nrates];
				ph->rate_from[ph->nrates] =
				    region__clamp_rate(ph->rate_from[ph->nrates], max);
				ph->rate_to[ph->nrates] = region__clamp_rate(ph->rate_to[ph->nrates], max);
				ph->nrange = ph->nrates + 1;
			}
			ph->nrates++;
		}
	}
	double *xlo = malloc(2 * (pr->nseg + 1) * sizeof *xlo);
	if (!xlo)
		return -ENOMEM;
	if (count_phase_samples(c, r, pr, g, ai, xlo, xlo + pr->nseg + 1)) {
		free(xlo);
		return -ENOMEM;
	}
	withhold_unsupported_rates(c, r, sw, nsw, xlo, xlo + pr->nseg + 1);
	free(xlo);
	if (nclamped) {
		fit_params params = FIT__PARAMS_OF(r);
		if (fit__integer(&params, "bounds.phase_rates", nclamped, "rates"))
			return -ENOMEM;
	}
	warn_thin_phases(c, r);
	return 0;
}

int stage_table(analyze_ctx *c, region_work *w)
{
	return build_phases(c, w->r, w->sw, w->nsw, &w->pr, w->pw, &w->gr, &w->ai);
}
