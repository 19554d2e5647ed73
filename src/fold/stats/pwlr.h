/* pwlr.h: piecewise-linear regression of folded cumulative curves (phases).
 *
 * Owns breakpoint detection on one or more folded series sharing the same
 * normalised time axis. The cumulative share of every series is modelled as
 * piecewise linear with common breakpoints (a phase changes the rates of all
 * counters at once); the breakpoints are the region's phases.
 *
 * Folded data are not independent points with Gaussian noise: the noise is
 * dominated by instance-to-instance variation (an instance preempted or
 * stretched shifts all of its points), so residuals are heavy-tailed and
 * correlated within an instance. The method is built for that:
 *  1. Robust reference curve per series: linear interpolation through the
 *     medians of equal-width cells, anchored at (0,0) and (1,1). The noise
 *     sigma_s is 1.4826 x the median absolute residual (not the RMS), and
 *     points are winsorised to the reference +- clip x sigma_s, so a few
 *     stretched instances cannot buy breakpoints.
 *  2. Design effect per series, d_s = sum over instances of (sum of its
 *     residuals)^2 / sum of squared residuals (1 for independent points, up
 *     to the points per instance when an instance moves as a whole); the
 *     evidence of series s is divided by d_s and the sample size becomes
 *     N_eff = sum n_s / d_s.
 *  3. Exact segmented least squares (segment neighbourhood dynamic
 *     programme) over `cells` candidate cells for K = 1..max_segments, cost =
 *     sum over detecting series of SSE_s / (sigma_s^2 d_s), each SSE in O(1)
 *     from prefix sums (a precomputed cell-pair cost table). Minimum segment
 *     length min_len.
 *  4. K by BIC = N_eff ln(J_K / N_eff) + (2S + 1) K ln N_eff, then lowered
 *     until every boundary is meaningful: some detecting series changes its
 *     slope by at least min_change of the larger slope AND by at least z
 *     standard errors (design-effect corrected).
 *  5. Steps 1-4 run twice: the second pass winsorises around the first
 *     pass's fit (sharp corners instead of the reference's rounded ones).
 *  6. Transitions: a short inner segment whose slopes lie between its
 *     neighbours' in every detecting series is the smear of one switch (the
 *     switch moves from instance to instance when one phase's length
 *     varies): it is absorbed, one boundary where the neighbour lines meet.
 *     "Short" is 4 x smear (the relative spread of instance durations),
 *     at least 1.5 x min_len, at most 0.1.
 *  7. Each breakpoint refined on the raw points within +-1 cell.
 *  8. Curves: a continuous linear spline per series (tent basis) with knots
 *     at the breakpoints, pinned to 0 at x = 0 and 1 at x = 1.
 *  9. Phase rates (slope[]): least-squares slope over the phase interior,
 *     a margin of 2 x smear (at least one cell) away from inner boundaries,
 *     so the smear of a switch does not bias them; the continuous spline's
 *     slope when the interior holds too few points, or points that spread
 *     over less than half of it (a cloud at one end). Negative slopes -> 0.
 *     rate_at[] records the stretch each slope was measured on.
 * 10. Gradual changes: a run of 3 or more segments whose slopes move the
 *     same way in every detecting series (a staircase cut into a ramp) is
 *     one gradual segment when a single quadratic cumulative curve (a rate
 *     changing linearly) explains its raw points as well as the staircase
 *     does, by BIC on the design-effect corrected sums of squares: steps
 *     have corners a quadratic cannot follow, a ramp has curvature inside
 *     every step. The merged segment keeps the outer knots; its curve is
 *     the chord plus curv x (x - a)(x - b), its slope[] the chord's (the
 *     mean rate), and pwlr__rate() gives the rate at any x.
 * Series flagged rates_only are fitted and get rates but do not place
 * breakpoints (noisy or sparse series). Deterministic; no randomness.
 * Callers turn GSL's aborting error handler off (gsl_set_error_handler_off)
 * once, before any thread uses this module.
 */
#ifndef FOLD_PWLR_H
#define FOLD_PWLR_H

#include <stddef.h>
#include <stdint.h>

#define FOLD_PWLR_MAX_SEGMENTS 32

typedef struct pwlr__series {
	const double *x, *y; /* folded points, any order, x in [0,1] */
	size_t n;
	const uint32_t *inst; /* instance of each point (NULL: points independent) */
	int rates_only;       /* 1: gets rates but does not place breakpoints */
} pwlr__series;

typedef struct pwlr__opts {
	unsigned cells;        /* default 400 */
	double min_len;        /* default 0.02 */
	unsigned max_segments; /* default 12, at most FOLD_PWLR_MAX_SEGMENTS */
	double clip;           /* winsorise beyond clip x robust sigma (default 3) */
	double min_change;     /* smallest relative slope change of a boundary (default 0.1) */
	double z;              /* ... and in standard errors (default 4) */
	double smear;          /* relative spread of instance durations (default 0) */
} pwlr__opts;

void pwlr__opts_init(pwlr__opts *o);

typedef struct pwlr__result {
	size_t nseg;
	double bounds[FOLD_PWLR_MAX_SEGMENTS + 1]; /* bounds[0] = 0, bounds[nseg] = 1 */
	size_t nseries;
	double *knot;  /* nseries x (nseg + 1): fitted cumulative at each bound */
	double *slope; /* nseries x nseg: robust d(cum)/dx of each phase (interior), >= 0 */
	/* nseries x nseg x 2: the stretch [from, to] of phase j whose points gave
	 * series i its rate as a least-squares line's slope (the interior, step
	 * 9); NAN when the rate is no line's there (events over time, the
	 * spline's slope, a gradual phase) */
	double *rate_at;
	double *rms;   /* nseries: RMS residual of the continuous fit (raw points) */
	double *sigma; /* nseries: robust noise sigma */
	double *deff;  /* nseries: design effect (1 = independent points) */
	double bic;
	size_t bic_segments; /* K chosen by BIC, before the meaningfulness and transition steps */
	size_t transitions;  /* segments absorbed as the smear of a switch */
	double noise[8];     /* first series' noise sigma, for reports */
	unsigned char gradual[FOLD_PWLR_MAX_SEGMENTS]; /* 1: a gradual change (step 10) */
	double *curv;          /* nseries x nseg: curvature of gradual segments (0 elsewhere) */
	size_t gradual_merged; /* segments merged into gradual ones */
} pwlr__result;

/* Returns 0, -EINVAL (no series has 3 points) or -ENOMEM. */
int pwlr__fit(const pwlr__series *s, size_t ns, const pwlr__opts *o, pwlr__result *r);
void pwlr__result_free(pwlr__result *r);
/* Fitted cumulative share of series i at x (monotone). */
double pwlr__cum(const pwlr__result *r, size_t i, double x);
/* Fitted rate (d cum / dx, relative to the mean) of series i at x: the
 * segment's slope, varying linearly inside a gradual segment; >= 0. */
double pwlr__rate(const pwlr__result *r, size_t i, double x);
/* Series i's rate on segment g's own line at x, clamped into the segment:
 * at a bound, pwlr__rate gives the next segment's rate, this the rate the
 * segment ends (or starts) with. */
double pwlr__segment_rate(const pwlr__result *r, size_t i, size_t g, double x);
/* Rates of r (a fit of points aligned on a boundary) from `from` (the
 * unaligned fit): warping an instance rescales its slopes by its own
 * factor, which biases the pooled slope, so each phase of r takes the rate
 * of from's phase at its middle (measured there away from the smear of the
 * switch) — unless that phase is a transition (its slope between its
 * neighbours'), either is gradual, or the rate contradicts r's own rise
 * across the phase (knots; warping moves points along x only, so the rise
 * is each instance's own) by more than max(25%, 2 x smear) of the larger:
 * then from's phase measured another stretch of the instances (miniFE's
 * MPI_Send under load: 1.04 on a narrow cloud of first samples for an
 * aligned rise of 3.08; the table held 57% of the CPU time). Those keep
 * r's own rate. */
void pwlr__adopt_rates(pwlr__result *r, const pwlr__result *from, double smear);
/* Segment containing x. */
size_t pwlr__segment(const pwlr__result *r, double x);

#endif
