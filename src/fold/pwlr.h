/* pwlr.h: piecewise-linear regression of folded cumulative curves (phases).
 *
 * Owns breakpoint detection on one or more folded series sharing the same
 * normalised time axis. The cumulative share of every series is modelled as
 * piecewise linear with common breakpoints (a phase changes the rates of all
 * counters at once); the breakpoints are the region's phases.
 *
 * Method:
 *  1. Candidate breakpoints on a grid of `cells` cells over [0,1]. Exact
 *     segmented least squares (segment neighbourhood dynamic programme) for
 *     every segment count K = 1..max_segments, segment cost = sum over series
 *     of SSE / sigma_s^2 computed in O(1) from prefix sums; sigma_s^2 is each
 *     series' noise, estimated from a fine equal-width fit. Every segment is at
 *     least min_len long.
 *  2. K chosen by BIC = N ln(J_K / N) + (2S + 1) K ln N (N points, S series).
 *  3. Each breakpoint refined against the raw points within +-1 cell, exact
 *     for the two adjacent segments (two sweeps).
 *  4. A continuous fit per series: linear splines (tent basis) with knots at
 *     the breakpoints, pinned to 0 at x = 0 and 1 at x = 1; the slopes are
 *     the per-phase relative rates (negative slopes clipped to 0).
 * Deterministic; no randomness. Callers turn GSL's aborting error handler off
 * (gsl_set_error_handler_off) once, before any thread uses this module.
 */
#ifndef FOLD_PWLR_H
#define FOLD_PWLR_H

#include <stddef.h>

#define FOLD_PWLR_MAX_SEGMENTS 32

typedef struct fold__pwlr_series {
	const double *x, *y; /* folded points, any order, x in [0,1] */
	size_t n;
} fold__pwlr_series;

typedef struct fold__pwlr_opts {
	unsigned cells;        /* default 400 */
	double min_len;        /* default 0.02 */
	unsigned max_segments; /* default 12, at most FOLD_PWLR_MAX_SEGMENTS */
} fold__pwlr_opts;

void fold__pwlr_opts_init(fold__pwlr_opts *o);

typedef struct fold__pwlr_result {
	size_t nseg;
	double bounds[FOLD_PWLR_MAX_SEGMENTS + 1]; /* bounds[0] = 0, bounds[nseg] = 1 */
	size_t nseries;
	double *knot;  /* nseries x (nseg + 1): fitted cumulative at each bound */
	double *slope; /* nseries x nseg: d(cum)/dx per segment, >= 0 */
	double *rms;   /* nseries: RMS residual of the continuous fit */
	double bic;
	double noise[8]; /* first series' noise sigma, for reports */
} fold__pwlr_result;

/* Returns 0, -EINVAL (no series has 3 points) or -ENOMEM. */
int fold__pwlr_fit(const fold__pwlr_series *s, size_t ns, const fold__pwlr_opts *o, fold__pwlr_result *r);
void fold__pwlr_result_free(fold__pwlr_result *r);
/* Fitted cumulative share of series i at x (monotone). */
double fold__pwlr_cum(const fold__pwlr_result *r, size_t i, double x);
/* Segment containing x. */
size_t fold__pwlr_segment(const fold__pwlr_result *r, double x);

#endif
