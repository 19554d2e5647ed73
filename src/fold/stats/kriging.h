/* kriging.h: Gaussian-process (Kriging) fit of a folded cumulative curve.
 *
 * Owns the smooth fit of folded points (x in [0,1], y = cumulative share)
 * and its derivative, the relative rate. Model: y = m(x) + g(x) + noise,
 * m the trend (y = x unless given, see below), g a zero-mean Matern-3/2
 * process (variance s2, length scale l), noise variance s2 * eta per point.
 * The Matern-3/2 process has an exact 2-state linear state-space form
 * (Hartikainen & Sarkka 2010), so a Kalman filter and RTS smoother over the
 * points sorted by x solve it in O(N); the second state is g'(x), giving
 * the rate and its variance directly.
 *
 * Trend: the caller may give the mean curve (a cumulative curve with its
 * slope; the analysis gives the phase table, fit_kriging.c); g then models
 * only the deviations from it. A stationary process cannot be smooth inside
 * a flat phase and sharp at a phase switch at once: fitted around y = x,
 * the switches force a rough process that wiggled by 5-18 % of the rate
 * inside flat phases of folded data and disagreed with the phase table.
 * Around the phase table the switches are in the trend, and g stays smooth
 * where the data agree with the phases. Zones: stretches whose points count
 * for less (around the switches, where the trend's switch is trusted over
 * a few points that a misplaced or non-Gaussian switch leaves off it).
 *
 * Hyper-parameters: s2 is profiled out of the marginal likelihood (it
 * scales the band, not the curve); (l, eta) are chosen on a deterministic
 * log grid (20 x 10, l in [max(2 median dx, 0.001), 2], eta in [1e-6, 1e2]) and a local
 * 5 x 5 refinement. With each point's instance given, by leave-instances-out
 * cross-validation, not by the likelihood: points of one instance are
 * correlated (an instance that runs faster shifts all of its points), so
 * the likelihood, which treats every point as independent, over-trusts
 * folded data; held-out instances measure what carries over to another
 * instance. The instances, ranked by id, go into `folds` folds (rank mod
 * folds: each fold spread over the run; one instance per fold with 3 to
 * folds - 1 instances); for each (l, eta) the curve is fitted without each fold and scored by
 * the squared error of the held-out instances' points (their means in 250
 * bins: the spread inside a bin does not depend on the fit, and each fit
 * stays O(250)). The CV grid is coarse (every other l and eta, then the
 * refinement around the least error). Of the pairs tried, the smoothest
 * (largest eta l^3, the smoother's bandwidth to the fourth) whose CV error
 * is within one standard error over the folds of the least is chosen (the
 * one-standard-error rule): where the phases explain the data the CV error
 * is flat, and the noise of the folds would otherwise pick a rough curve.
 * Without instances the likelihood chooses; with only one or two instances
 * carrying the points nothing tells their pattern from the population's,
 * and the smoothest pair of the grid (l = 2, eta = 100) is taken. No random numbers are used (the seed is
 * recorded for reproducibility only). Anchors at x = 0 and 1 (on the trend)
 * are observations a million times as heavy as an average one: the share
 * is exactly 0 at entry and 1 at exit in every instance.
 *
 * Approximation: with more points than `bins`, points are averaged in
 * equal-width x bins, each bin an observation at its points' mean x with
 * noise s2 * eta / n_bin; the error this adds is at most the curvature of g
 * times the squared bin width over 8 (stated in the result). The cumulative
 * curve is projected onto monotone curves (pool-adjacent-violators) and the
 * rate clipped at 0.
 */
#ifndef FOLD_KRIGING_H
#define FOLD_KRIGING_H

#include <stddef.h>
#include <stdint.h>

/* A stretch [a, b) of x whose points count for `weight` of a point each:
 * where the trend is trusted more than the points. */
typedef struct kriging__zone {
	double a, b, weight;
} kriging__zone;

typedef struct kriging__opts {
	unsigned bins;  /* default 1000 */
	unsigned n_len; /* length-scale grid points (default 20) */
	unsigned n_eta; /* nugget-ratio grid points (default 10) */
	uint64_t seed;  /* recorded only: the fit is deterministic */
	unsigned folds; /* cross-validation folds (default 5) */
	/* instance of each point (NULL: points independent, marginal likelihood) */
	const uint32_t *inst;
	/* the mean curve and its slope at x (NULL: y = x, slope 1) */
	void (*trend)(const void *arg, double x, double *cum, double *slope);
	const void *trend_arg;
	/* disjoint stretches of down-weighted points (NULL: none) */
	const kriging__zone *zones;
	size_t nzones;
} kriging__opts;

void kriging__opts_init(kriging__opts *o);

typedef struct kriging__result {
	size_t n;                     /* grid points */
	double *cum, *rate;           /* at the grid: cumulative share, d cum/dx */
	double *rate_lo, *rate_hi;    /* 95% band of the rate */
	double *slope;                /* the unconstrained curve's slope (rate before its clip at 0) */
	double rms;                   /* RMS residual of the points */
	double length_scale, eta, s2; /* chosen hyper-parameters */
	double loglik;
	double cv_rmse; /* held-out RMS error at the choice (of bin means when binned; NaN: no CV) */
	unsigned folds; /* folds of the cross-validation (0: none) */
	size_t ninst;   /* distinct instances among the points (0: not given) */
	size_t nbins;   /* observations after binning (0: none) */
	char approximation[160];
} kriging__result;

/* Fewest points kriging__fit fits. */
#define KRIGING__MIN_POINTS 5

/* grid: G positions in [0,1], ascending. Returns 0, -EINVAL (fewer than
 * KRIGING__MIN_POINTS points) or -ENOMEM. r is always safe to free. */
int kriging__fit(const double *x, const double *y, size_t n, const kriging__opts *o, const double *grid,
                 size_t G, kriging__result *r);
void kriging__result_free(kriging__result *r);

#endif
