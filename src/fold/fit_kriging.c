/* fit_kriging.c: the Kriging fit as a fit_method (kriging.c does the work):
 * a smooth rate curve with a 95% band around the phase fit. Its
 * hyper-parameters are recorded as kriging.* parameters.
 *
 * Trend: the phase fit's cumulative curve of the series (pwlr__cum), each
 * inner boundary's corner rounded the way folding rounds it: a switch that
 * sits at a slightly different x in each instance makes the folded curve the
 * corner averaged over those positions. With the switch at b + N(0, sig^2)
 * the corner (x - b)+ becomes sig (phi(z) + z Phi(z)), z = (x - b) / sig,
 * its slope Phi(z). Each boundary's sig is the least-squares choice on the
 * binned points within w = min(0.1, half the shorter neighbouring phase) of
 * it, from 0 and a log grid 0.001 .. w / 2. The Gaussian process then models
 * what the phases do not explain; without a phase fit of the series (wall
 * time) the trend is y = x. */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "kriging.h"

enum { TREND_BINS = 1000, TREND_SIGMAS = 20 };
static const double ZONE_HALF = 0.01, ZONE_ELL = 0.005;

typedef struct phase_trend {
	const pwlr__result *pr;
	size_t i;                                   /* the series in pr */
	double sig[FOLD_PWLR_MAX_SEGMENTS + 1];     /* spread of boundary j's switch (0: sharp) */
	double dslope[FOLD_PWLR_MAX_SEGMENTS + 1];  /* slope change at boundary j */
	kriging__zone zone[FOLD_PWLR_MAX_SEGMENTS]; /* around the boundaries, merged */
	size_t nzone;
} phase_trend;

/* The phase fit's curve (continuous, piecewise linear or quadratic in
 * gradual segments) and its slope at x. */
static void spline(const pwlr__result *pr, size_t i, double x, double *cum, double *slope)
{
	size_t g = pwlr__segment(pr, x < 0 ? 0 : x > 1 ? 1 : x);
	const double *k = pr->knot + i * (pr->nseg + 1);
	double a = pr->bounds[g], b = pr->bounds[g + 1];
	*cum = pwlr__cum(pr, i, x);
	*slope = b > a ? (k[g + 1] - k[g]) / (b - a) : 0;
	if (pr->gradual[g] && pr->curv)
		*slope += pr->curv[i * pr->nseg + g] * (2 * x - a - b);
}

/* E[(u - s Z)+] for a standard normal Z, and its derivative in u. */
static double soft_corner(double u, double s, double *d)
{
	if (s <= 0) {
		*d = u > 0;
		return u > 0 ? u : 0;
	}
	double z = u / s, P = 0.5 * erfc(-z / M_SQRT2);
	*d = P;
	return s * (exp(-0.5 * z * z) / sqrt(2 * M_PI) + z * P);
}

static void trend_eval(const void *arg, double x, double *cum, double *slope)
{
	const phase_trend *t = arg;
	spline(t->pr, t->i, x, cum, slope);
	for (size_t j = 1; j < t->pr->nseg; j++) {
		if (t->sig[j] <= 0)
			continue;
		double u = x - t->pr->bounds[j], d1, d0;
		double c = soft_corner(u, t->sig[j], &d1) - soft_corner(u, 0, &d0);
		*cum += t->dslope[j] * c;
		*slope += t->dslope[j] * (d1 - d0);
	}
}

/* Each inner boundary's spread, fitted on the points' bin means. 0 or -ENOMEM. */
static int trend_init(phase_trend *t, const pwlr__result *pr, size_t i, const double *x, const double *y,
                      size_t n)
{
	memset(t, 0, sizeof *t);
	t->pr = pr;
	t->i = i;
	double *cnt = calloc(3 * TREND_BINS, sizeof *cnt), *sx = cnt + TREND_BINS, *sy = sx + TREND_BINS;
	if (!cnt)
		return -ENOMEM;
	for (size_t k = 0; k < n; k++) {
		double xk = x[k] < 0 ? 0 : x[k] > 1 ? 1 : x[k];
		size_t b = (size_t)(xk * TREND_BINS);
		b = b < TREND_BINS ? b : TREND_BINS - 1;
		cnt[b]++;
		sx[b] += xk;
		sy[b] += y[k];
	}
	for (size_t j = 1; j < pr->nseg; j++) {
		double c, sl, sr;
		spline(pr, i, 0.5 * (pr->bounds[j - 1] + pr->bounds[j]), &c, &sl);
		spline(pr, i, 0.5 * (pr->bounds[j] + pr->bounds[j + 1]), &c, &sr);
		t->dslope[j] = pr->gradual[j - 1] || pr->gradual[j] ? 0 : sr - sl;
	}
	for (size_t j = 1; j < pr->nseg; j++) {
		double bj = pr->bounds[j];
		double w = fmin(0.1, 0.5 * fmin(bj - pr->bounds[j - 1], pr->bounds[j + 1] - bj));
		double best = INFINITY, bs = 0;
		for (int q = 0; q <= TREND_SIGMAS && t->dslope[j] != 0; q++) {
			double s = q ? 1e-3 * pow(100.0, (q - 1) / (double)(TREND_SIGMAS - 1)) : 0, ss = 0;
			if (s > w / 2)
				break;
			t->sig[j] = s;
			for (size_t b = 0; b < TREND_BINS; b++) {
				if (!cnt[b] || fabs(sx[b] / cnt[b] - bj) > w)
					continue;
				double m, d;
				trend_eval(t, sx[b] / cnt[b], &m, &d);
				ss += cnt[b] * (sy[b] / cnt[b] - m) * (sy[b] / cnt[b] - m);
			}
			if (ss < best) {
				best = ss;
				bs = s;
			}
		}
		t->sig[j] = bs;
	}
	free(cnt);
	/* Zones where g may bend fast: the switch's spread and a cell or two of
	 * misplacement either side of each boundary. */
	for (size_t j = 1; j < pr->nseg; j++) {
		double h = ZONE_HALF + 2 * t->sig[j], ell = fmax(t->sig[j], ZONE_ELL);
		kriging__zone z = {fmax(0, pr->bounds[j] - h), fmin(1, pr->bounds[j] + h), ell};
		kriging__zone *last = t->nzone ? &t->zone[t->nzone - 1] : NULL;
		if (last && z.a <= last->b) {
			last->b = z.b;
			last->ell = fmin(last->ell, z.ell);
		} else {
			t->zone[t->nzone++] = z;
		}
	}
	return 0;
}

static int kriging_fit(const fit_input *in, fold_curve *out, double *rms, const fit_params *params)
{
	kriging__opts ko;
	kriging__opts_init(&ko);
	ko.seed = in->seed;
	ko.inst = in->inst;
	phase_trend t;
	int have_trend = in->phases && in->phases->knot && in->pi < in->phases->nseries;
	if (have_trend) {
		if (trend_init(&t, in->phases, in->pi, in->x, in->y, in->n))
			return -ENOMEM;
		ko.trend = trend_eval;
		ko.trend_arg = &t;
		ko.zones = t.zone;
		ko.nzones = t.nzone;
	}
	kriging__result kr;
	int rc = kriging__fit(in->x, in->y, in->n, &ko, out->x, out->n, &kr);
	if (rc == -ENOMEM)
		return rc;
	if (rc) {
		kriging__result_free(&kr);
		return 1;
	}
	for (size_t i = 0; i < out->n; i++) {
		out->cum[i] = kr.cum[i];
		out->value[i] = kr.rate[i] * in->rscale;
		out->lo[i] = kr.rate_lo[i] * in->rscale;
		out->hi[i] = kr.rate_hi[i] * in->rscale;
	}
	*rms = kr.rms;
	rc = 0;
	if (params &&
	    ((rc = fit_param(params, "kriging.kernel", "%s", "matern32")) ||
	     (rc = fit_param(params, "kriging.trend", "%s",
	                     have_trend ? "phase fit, corners rounded by each switch's spread" : "y = x")) ||
	     (rc = fit_param(params, "kriging.length_scale", "%.6g", kr.length_scale)) ||
	     (rc = fit_param(params, "kriging.nugget_ratio", "%.6g", kr.eta)) ||
	     (rc = kr.folds
	               ? fit_param(params, "kriging.selection",
	                           "leave-instances-out cross-validation, %u folds, held-out RMS error %.3g",
	                           kr.folds, kr.cv_rmse)
	               : fit_param(params, "kriging.selection", "%s", "marginal likelihood")) ||
	     (rc = fit_param(params, "kriging.bins", "%zu", kr.nbins)) ||
	     (rc = fit_param(params, "kriging.approximation", "%s", kr.approximation))))
		rc = -ENOMEM;
	kriging__result_free(&kr);
	return rc;
}

const fit_method fit_kriging = {"kriging", 1, kriging_fit};
