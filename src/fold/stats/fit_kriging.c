/* fit_kriging.c: the Kriging fit as a fit_method (kriging.c does the work):
 * a smooth rate curve with a 95% band around the phase fit. Its
 * hyper-parameters are recorded as kriging.* parameters.
 *
 * Trend: the phase table. Phase p is the line a_p + s_p x (plus
 * c_p (x - x_p)(x - x_p+1) in a gradual phase), s_p its rate in the table
 * (pwlr slope[], curv[]) and a_p the least-squares intercept of the binned
 * points its rate was measured on (pwlr rate_at[]), else the line through
 * the phase's fitted cumulative (pwlr knots) at its middle.
 * Folding rounds a switch: it sits at a slightly different x in each
 * instance, so the folded curve passes from one line to the next over the
 * spread of those positions. The trend does the same: with the switch at
 * b + N(0, sig^2), f = f_p + Phi((x - b) / sig) (f_p+1 - f_p); each
 * boundary's sig is the least-squares choice on the binned points within
 * w = min(0.1, half the shorter neighbouring phase) of it, on a log grid
 * from the curve's grid step (at least 0.0025, so that a switch's rate
 * shows on the grid) to 40 times that, at most w / 2. Around each boundary (0.01 + 3 sig either side) the
 * points count for 1% (kriging__zone): the trend's switch is trusted there,
 * so a boundary misplaced by a cell does not make the process bend. The
 * Gaussian process then models what the phases do not explain; without a
 * phase fit of the series (wall time) the trend is y = x. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "kriging.h"

enum { TREND_BINS = 1000, TREND_SIGMAS = 16 };
static const double ZONE_HALF = 0.01, ZONE_WEIGHT = 0.01, SIG_MIN = 0.0025;

typedef struct phase_trend {
	const pwlr__result *pr;
	size_t i;                                   /* the series in pr */
	double a[FOLD_PWLR_MAX_SEGMENTS];           /* intercept of each phase's line */
	double sig[FOLD_PWLR_MAX_SEGMENTS + 1];     /* spread of boundary j's switch */
	double sig_min;                             /* its floor: the grid's step, at least SIG_MIN */
	kriging__zone zone[FOLD_PWLR_MAX_SEGMENTS]; /* around the boundaries, merged */
	size_t nzone;
} phase_trend;

/* Phase p's curve and slope at x, without its intercept. */
static void phase_line(const phase_trend *t, size_t p, double x, double *v, double *d)
{
	const pwlr__result *pr = t->pr;
	double s = pr->slope[t->i * pr->nseg + p], c = pr->curv ? pr->curv[t->i * pr->nseg + p] : 0;
	double a = pr->bounds[p], b = pr->bounds[p + 1];
	if (!pr->gradual[p])
		c = 0;
	*v = s * x + c * (x - a) * (x - b);
	*d = s + c * (2 * x - a - b);
}

static void trend_eval(const void *arg, double x, double *cum, double *slope)
{
	const phase_trend *t = arg;
	double v, d;
	phase_line(t, 0, x, &v, &d);
	*cum = t->a[0] + v;
	*slope = d;
	for (size_t j = 1; j < t->pr->nseg; j++) {
		double z = (x - t->pr->bounds[j]) / t->sig[j];
		if (z < -8)
			break; /* the boundaries ascend: the later ones are further */
		double P = 1, ph = 0;
		if (z < 8) {
			P = 0.5 * erfc(-z / M_SQRT2);
			ph = exp(-0.5 * z * z) / sqrt(2 * M_PI);
		}
		double v0, d0, v1, d1;
		phase_line(t, j - 1, x, &v0, &d0);
		phase_line(t, j, x, &v1, &d1);
		double gap = t->a[j] + v1 - t->a[j - 1] - v0, ds = d1 - d0;
		*cum += P * gap + ds * t->sig[j] * ph;
		*slope += P * ds + ph * gap / t->sig[j] - ds * z * ph;
	}
}

/* Least-squares intercept of each phase's line on the bin means of the
 * stretch whose points gave the phase its rate (pwlr rate_at: the interior
 * away from the smear of its switches); when the rate is no line's slope
 * there (the phase's rise, events over time, a gradual phase, a rate of
 * the unaligned fit), through the spline's value at the phase's middle:
 * for a rise, the line from the phase's start value to its end value. The
 * bins of its middle instead put the line of CloverLeaf's clover_min
 * burst (busy at the start of its waiting phase, idle after) 0.1 above
 * the exit, and the process that bridged it to the anchor there carried
 * 2.25 times the phase's CPU time. The line then runs through
 * the points its slope came from: through the phase's middle alone, where
 * the smear of widely spread switches reaches, the line of miniFE's
 * MPI_Send (durations spread by 72%) passed 0.19 above the points before
 * its exit, and the process that bridged the gap bent the whole phase
 * 28% below the table's rate. */
static void fit_intercepts(phase_trend *t, const double *cnt, const double *sx, const double *sy)
{
	const pwlr__result *pr = t->pr;
	for (size_t p = 0; p < pr->nseg; p++) {
		double mid = 0.5 * (pr->bounds[p] + pr->bounds[p + 1]), v, d, sw = 0, sr = 0;
		const double *at = pr->rate_at ? pr->rate_at + 2 * (t->i * pr->nseg + p) : NULL;
		for (size_t k = 0; at && at[0] < at[1] && k < TREND_BINS; k++) {
			if (!cnt[k])
				continue;
			double xk = sx[k] / cnt[k];
			if (xk < at[0] || xk > at[1])
				continue;
			phase_line(t, p, xk, &v, &d);
			sw += cnt[k];
			sr += sy[k] - cnt[k] * v;
		}
		phase_line(t, p, mid, &v, &d);
		t->a[p] = sw > 0 ? sr / sw : pwlr__cum(pr, t->i, mid) - v;
	}
}

/* Each boundary's spread, least squares on the bin means near it. */
static void fit_spreads(phase_trend *t, const double *cnt, const double *sx, const double *sy)
{
	const pwlr__result *pr = t->pr;
	for (size_t j = 1; j < pr->nseg; j++)
		t->sig[j] = t->sig_min;
	for (size_t j = 1; j < pr->nseg; j++) {
		double bj = pr->bounds[j];
		double w = fmin(0.1, 0.5 * fmin(bj - pr->bounds[j - 1], pr->bounds[j + 1] - bj));
		double best = INFINITY, bs = t->sig_min;
		for (int q = 0; q < TREND_SIGMAS; q++) {
			double s = t->sig_min * pow(40.0, q / (double)(TREND_SIGMAS - 1)), ss = 0;
			if (q && s > w / 2)
				break;
			t->sig[j] = s;
			for (size_t k = 0; k < TREND_BINS; k++) {
				if (!cnt[k] || fabs(sx[k] / cnt[k] - bj) > w)
					continue;
				double m, d;
				trend_eval(t, sx[k] / cnt[k], &m, &d);
				ss += cnt[k] * (sy[k] / cnt[k] - m) * (sy[k] / cnt[k] - m);
			}
			if (ss < best) {
				best = ss;
				bs = s;
			}
		}
		t->sig[j] = bs;
	}
}

/* The trend of series i of the phase fit from the points. 0, 1 when the
 * phase fit gives no usable trend (a non-finite rate), or -ENOMEM. */
static int trend_init(phase_trend *t, const pwlr__result *pr, size_t i, const double *x, const double *y,
                      size_t n, size_t G)
{
	memset(t, 0, sizeof *t);
	t->pr = pr;
	t->i = i;
	t->sig_min = G > 1 ? fmax(SIG_MIN, 1.0 / (double)(G - 1)) : SIG_MIN;
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
	fit_intercepts(t, cnt, sx, sy);
	for (size_t p = 0; p < pr->nseg; p++)
		if (!isfinite(t->a[p]) || !isfinite(pr->slope[i * pr->nseg + p])) {
			free(cnt);
			return 1;
		}
	fit_spreads(t, cnt, sx, sy);
	free(cnt);
	for (size_t j = 1; j < pr->nseg; j++) {
		double h = ZONE_HALF + 3 * t->sig[j];
		kriging__zone z = {fmax(0, pr->bounds[j] - h), fmin(1, pr->bounds[j] + h), ZONE_WEIGHT};
		kriging__zone *last = t->nzone ? &t->zone[t->nzone - 1] : NULL;
		if (last && z.a <= last->b)
			last->b = z.b;
		else
			t->zone[t->nzone++] = z;
	}
	return 0;
}

/* The part of the trend's slope at x that steps its cumulative between two
 * phase lines that do not meet (each line's intercept is fitted on its own
 * phase's points): a spike, or a dip below 0, of no phase's rate. */
static double gap_slope(const phase_trend *t, double x)
{
	double g = 0;
	for (size_t j = 1; j < t->pr->nseg; j++) {
		double z = (x - t->pr->bounds[j]) / t->sig[j];
		if (z < -8)
			break;
		if (z >= 8)
			continue;
		double v0, d0, v1, d1;
		phase_line(t, j - 1, x, &v0, &d0);
		phase_line(t, j, x, &v1, &d1);
		g += exp(-0.5 * z * z) / sqrt(2 * M_PI) * (t->a[j] + v1 - t->a[j - 1] - v0) / t->sig[j];
	}
	return g;
}

/* A fitted cumulative that falls inside a phase by more than this share of
 * what it rises there does not describe one curve: see withhold_shape. */
static const double WITHHOLD_FALL = 0.05;

/* The folded points of a phase that contradict each other (the cumulative
 * share of one instance runs ahead at a moment where another's lags, so
 * that their fitted mean falls by a large part of its rise) have no common
 * shape to show: the phase's mean rate over [i0, i1), within [0, max],
 * with the envelope of the band, and a straight cumulative (the region
 * pipeline then puts the phase table's rate and its interval over the
 * instances in their place: withheld_steps). A loaded CloverLeaf burst (15 instances
 * at 18% of a CPU, each paused at other moments) had read TASK-CLOCK 0/s
 * over the middle 73% of a phase whose rate was 1.8e8/s; on a quiet
 * machine no phase of the validation suite's 25 runs falls at all. */
static void withhold_shape(const phase_trend *t, const double *slope, fold_curve *out, double rscale,
                           double max, size_t i0, size_t i1)
{
	double mean = 0, lo = INFINITY, hi = 0;
	for (size_t i = i0; i < i1; i++) {
		mean += (slope[i] - gap_slope(t, out->x[i])) * rscale;
		lo = fmin(lo, out->lo[i]);
		hi = fmax(hi, out->hi[i]);
	}
	mean = fmin(fmax(mean / (double)(i1 - i0), 0), max);
	/* the cumulative too: a straight line between the phase's ends */
	double c0 = out->cum[i0], c1 = out->cum[i1 - 1], x0 = out->x[i0], w = out->x[i1 - 1] - x0;
	for (size_t i = i0; i < i1; i++) {
		out->value[i] = mean;
		out->lo[i] = fmin(lo, mean);
		out->hi[i] = fmax(hi, mean);
		if (w > 0)
			out->cum[i] = c0 + (c1 - c0) * (out->x[i] - x0) / w;
	}
}

/* The rate is the slope of the fitted curve, clipped at 0 (a cumulative
 * count cannot fall) and at the series' physical bound. Clipping alone adds
 * area where the curve bends below 0 (a wait, or the trend's step down
 * between two phase lines that do not meet) and removes it above the bound,
 * so the clipped curve's mean over a phase was not the phase's rate
 * (miniMD's Neighbor::build: cpu_time 0.556 s/s over a phase of 0.467). In
 * a phase where the slope leaves [0, max], the trend's steps between phase
 * lines (gap_slope: no phase's rate, and not in the table) are taken out
 * and the clipped curve keeps the area of what remains, within [0, max]:
 * values at the bound stay there, the others carry the area in proportion
 * (water-filling), and the band moves with its value. Phases that do not
 * clip keep the fit's curve as it is. */
static void conserve_area(const phase_trend *t, const double *slope, fold_curve *out, double rscale,
                          double max, unsigned long *withheld)
{
	const pwlr__result *pr = t->pr;
	for (size_t p = 0; p < pr->nseg; p++) {
		size_t i0 = out->n, i1 = 0;
		int clipped = 0;
		double fall = 0, rise = 0;
		for (size_t i = 0; i < out->n; i++)
			if (pwlr__segment(pr, out->x[i]) == p) {
				i0 = i < i0 ? i : i0;
				i1 = i + 1;
				clipped |= slope[i] < 0 || slope[i] * rscale > max;
				double sl = slope[i] - gap_slope(t, out->x[i]);
				fall += sl < 0 ? -sl : 0;
				rise += sl > 0 ? sl : 0;
			}
		if (i0 >= i1)
			continue;
		if (rise > 0 && fall > WITHHOLD_FALL * rise) {
			withhold_shape(t, slope, out, rscale, max, i0, i1);
			if (withheld && p < 8 * sizeof *withheld)
				*withheld |= 1ul << p;
			continue;
		}
		if (!clipped)
			continue;
		double target = 0, have = 0;
		for (size_t i = i0; i < i1; i++) {
			double sl = (slope[i] - gap_slope(t, out->x[i])) * rscale;
			double v = fmin(fmax(sl, 0), max), d = v - out->value[i];
			out->value[i] = v;
			out->lo[i] = fmin(max, fmax(0, out->lo[i] + d));
			out->hi[i] = fmin(max, fmax(0, out->hi[i] + d));
			target += sl;
			have += v;
		}
		double m = (double)(i1 - i0);
		target = fmin(fmax(target / m, 0), max);
		if (!isfinite(target) || fabs(have / m - target) <= 1e-9 * fmax(target, 1e-300))
			continue;
		for (int pass = 0; pass < 16; pass++) {
			double fixed = 0, free = 0;
			size_t nfree = 0;
			for (size_t i = i0; i < i1; i++) {
				if (out->value[i] >= max)
					fixed += max;
				else {
					free += out->value[i];
					nfree++;
				}
			}
			double need = target * m - fixed;
			if (!nfree || need < 0)
				break;
			int again = 0;
			for (size_t i = i0; i < i1; i++) {
				double v = out->value[i];
				if (v >= max)
					continue;
				double nv = free > 0 ? v * need / free : need / (double)nfree;
				double f = v > 0 ? nv / v : 1, d = v > 0 ? 0 : nv - v;
				out->lo[i] = fmin(max, fmax(0, out->lo[i] * f + d));
				out->hi[i] = fmin(max, fmax(0, out->hi[i] * f + d));
				out->value[i] = fmin(nv, max);
				again |= nv > max;
			}
			if (!again)
				break;
		}
	}
}

static int kriging_fit(const fit_input *in, fold_curve *out, double *rms, const fit_params *params)
{
	kriging__opts ko;
	kriging__opts_init(&ko);
	ko.seed = in->seed;
	ko.inst = in->inst;
	phase_trend t;
	int rc = 0;
	int have_trend = in->phases && in->phases->knot && in->pi < in->phases->nseries;
	if (have_trend && (rc = trend_init(&t, in->phases, in->pi, in->x, in->y, in->n, out->n)) < 0)
		return rc;
	have_trend = have_trend && rc == 0;
	if (have_trend) {
		ko.trend = trend_eval;
		ko.trend_arg = &t;
		ko.zones = t.zone;
		ko.nzones = t.nzone;
	}
	kriging__result kr;
	rc = kriging__fit(in->x, in->y, in->n, &ko, out->x, out->n, &kr);
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
	double max = in->max > 0 ? in->max : INFINITY;
	if (have_trend)
		conserve_area(&t, kr.slope, out, in->rscale, max, in->shape_withheld);
	char sel[160];
	if (kr.folds)
		snprintf(sel, sizeof sel,
		         "leave-instances-out cross-validation, %u folds, held-out RMS error %.3g", kr.folds,
		         kr.cv_rmse);
	else if (kr.ninst)
		snprintf(
		    sel, sizeof sel,
		    "%zu instance(s) carry the points, too few for cross-validation: the smoothest curve",
		    kr.ninst);
	else
		snprintf(sel, sizeof sel, "marginal likelihood");
	rc = 0;
	if (params && ((rc = fit__word(params, "kriging.kernel", "matern32")) ||
	               (rc = fit__word(params, "kriging.trend", have_trend ? "phase table" : "y = x")) ||
	               (rc = fit__number(params, "kriging.length_scale", kr.length_scale, "instance")) ||
	               (rc = fit__number(params, "kriging.nugget_ratio", kr.eta, "")) ||
	               (rc = fit__note(params, "kriging.selection", "%s", sel)) ||
	               (rc = fit__integer(params, "kriging.bins", kr.nbins, "bins")) ||
	               (rc = fit__note(params, "kriging.approximation", "%s", kr.approximation))))
		rc = -ENOMEM;
	kriging__result_free(&kr);
	return rc;
}

const fit_method fit__kriging = {"kriging", 1, kriging_fit};
