/* phase_split.h: one instance's increments of a counter over the phases of
 * a folded region, from the instance's own points (internal to src/fold).
 *
 * The points are what the instance measured: its enter and exit values,
 * its samples (a waited sample's value at its timer's deadline too), at
 * their positions in the aligned instance coordinate the phase bounds are
 * in, and at their times. Each gap between consecutive points gives its
 * increment to the phases it overlaps: a phase whose rate is known takes
 * that rate over its share of the gap, all of them together at most the
 * increment; the phases left share the rest in proportion to their time.
 * Invariants: every phase's increment is >= 0; the phases' increments sum
 * to the instance's (exit minus enter, when the points rise); each lies
 * between what the points allow, at least the gaps wholly inside the phase
 * (lo), at most every gap that overlaps it (hi); for a series with a
 * largest rate (a CPU clock: one CPU), also at least what the rest of a
 * shared gap cannot hold at that rate and at most what the phase's time
 * can, within a slack of 10% of the gap (a busy region's CPU clock over a
 * phase between two enter/exit values without a sample inside read
 * [0.12, 1] CPUs without it).
 */
#ifndef FOLD_PHASE_SPLIT_H
#define FOLD_PHASE_SPLIT_H

#include <stddef.h>

/* One phase's share of one instance. */
typedef struct phase_split__share {
	double dv; /* increment */
	double dt; /* time, in the points' unit */
	double lo, hi;
} phase_split__share;

/* An instance's n points: u[i] its position (rising), t[i] its time
 * (rising), v[i] its value. */
typedef struct phase_split__points {
	const double *u, *t, *v;
	size_t n;
} phase_split__points;

/* Divides the points pts over the nseg phases between bounds[0..nseg]
 * (bounds[0] = 0, bounds[nseg] = 1). known[p]: phase p's rate in value per
 * unit of pts->t, NaN where it is the one to estimate (or unknown);
 * max_rate: the series' largest rate in the same unit (INFINITY: none).
 * out[0..nseg) is overwritten. */
void phase_split__instance(const double *bounds, size_t nseg, const double *known, double max_rate,
                           const phase_split__points *pts, phase_split__share *out);

#endif
