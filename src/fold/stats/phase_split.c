/* phase_split.c: one instance's increments of a counter over the phases of
 * a folded region, from its own points. See phase_split.h for the
 * invariants; the region pipeline (stage_rates.c, stage_bound_rates) uses
 * it for the phases whose fitted rate sat at its physical bound. */
#include "phase_split.h"

#include <math.h>

#define SPLIT_SLACK 0.10 /* see phase_split__instance */

/* The phase holding x: the last whose start is at or before it. */
static size_t phase_of(const double *bounds, size_t nseg, double x)
{
	size_t p = 0;
	while (p + 1 < nseg && x >= bounds[p + 1])
		p++;
	return p;
}

void phase_split__instance(const double *bounds, size_t nseg, const double *known, double max_rate,
                           const phase_split__points *pts, phase_split__share *out)
{
	const double *pu = pts->u, *pt = pts->t, *pv = pts->v;
	size_t n = pts->n;
	for (size_t p = 0; p < nseg; p++)
		out[p] = (phase_split__share){0, 0, 0, 0};
	for (size_t j = 0; j + 1 < n; j++) {
		double u0 = pu[j], u1 = pu[j + 1], gt = pt[j + 1] - pt[j], gv = pv[j + 1] - pv[j];
		if (!(gt > 0) || !(gv >= 0))
			continue;
		size_t pa = phase_of(bounds, nseg, u0), pb = u1 > u0 ? phase_of(bounds, nseg, u1) : pa;
		/* what the phases with a known rate would take of the increment,
		 * and the time of the others */
		double want = 0, open = 0;
		for (size_t p = pa; p <= pb; p++) {
			double a = fmax(bounds[p], u0), b = fmin(bounds[p + 1], u1);
			double t = u1 > u0 ? fmax(0, b - a) / (u1 - u0) * gt : gt;
			if (isfinite(known[p]))
				want += fmax(0, known[p]) * t;
			else
				open += t;
		}
		/* more than the increment: the known phases share it in proportion
		 * to what they would take; none left open: they take all of it */
		double scale = want > gv || (!(open > 0) && want > 0) ? gv / want : 1;
		double rest = fmax(0, gv - want * scale);
		for (size_t p = pa; p <= pb; p++) {
			double a = fmax(bounds[p], u0), b = fmin(bounds[p + 1], u1);
			double t = u1 > u0 ? fmax(0, b - a) / (u1 - u0) * gt : gt;
			if (!(t > 0))
				continue;
			out[p].dv += isfinite(known[p]) ? fmax(0, known[p]) * t * scale : rest * t / open;
			out[p].dt += t;
			if (pa == pb) { /* wholly inside the phase: all of it */
				out[p].lo += gv;
				out[p].hi += gv;
				continue;
			}
			/* A gap the phase shares: at most all of it, or what the
			 * phase's time holds at the series' largest rate; at least what
			 * the rest of the gap cannot hold at that rate. Where the bounds
			 * lie in this instance and the values' own corrections (the
			 * samples' cost taken out of a CPU clock) are not exact:
			 * SPLIT_SLACK of the gap's increment both ways, so a phase at 4%
			 * of a CPU next to one at 100% is not bounded by 1% errors in
			 * the other's share. */
			out[p].hi += fmin(gv, t * max_rate + SPLIT_SLACK * gv);
			out[p].lo += fmax(0, gv - (gt - t) * max_rate - SPLIT_SLACK * gv);
		}
	}
}
