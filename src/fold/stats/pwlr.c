/* pwlr.c: robust joint segmented least squares with BIC (see pwlr.h).
 *
 * Working data per series: points sorted by x, the raw y and a working
 * (winsorised) y with prefix sums of x, y, xx, xy, yy, and the first point
 * of every candidate cell. All segment costs come from those prefix sums.
 */
#include "pwlr.h"
#include "util.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The first pass only winsorises gross outliers (the reference curve rounds
 * the corners of the true one, and those corners must survive). */
#define FOLD__FIRST_PASS_CLIP_FACTOR 3.0
/* Smallest noise sigma (cumulative-share units): exact data must not get
 * infinite weight. */
#define FOLD__SIGMA_FLOOR 1e-6
/* A segment longer than this share of the instance is a phase, never the
 * smear of a switch, however much the durations vary. */
#define FOLD__MAX_TRANSITION 0.1
/* Fewest instances for a design-effect estimate. */
#define FOLD__DEFF_MIN_INSTANCES 10

void pwlr__opts_init(pwlr__opts *o)
{
	o->cells = 400;
	o->min_len = 0.02;
	o->max_segments = 12;
	o->clip = 3.0;
	o->min_change = 0.1;
	o->z = 4.0;
	o->smear = 0.0;
}

/* One series, sorted by x, with prefix sums of the working y. */
typedef struct sser {
	size_t n;
	double *x, *y, *yr; /* sorted x, working y, raw y */
	uint32_t *inst;     /* instance per point, NULL when unknown */
	uint32_t ninst;     /* 1 + largest instance id */
	double *S[5];       /* prefix sums of x, y, xx, xy, yy: [0..n] */
	size_t *idx;        /* first point of each cell: [0..cells] */
	double sigma, deff, w;
	int detect;
} sser;

typedef struct pt {
	double x, y;
	uint32_t inst;
} pt;

/* Where a boundary may move: [lo, hi], keeping min_len to its neighbours. */
typedef struct pwlr__window {
	double lo, hi, min_len;
} pwlr__window;

/* A chord over [a, b] from ka (at a) to kb (at b). */
typedef struct pwlr__chord {
	double a, b, ka, kb;
} pwlr__chord;

static int cmp_pt(const void *a, const void *b)
{
	const pt *p = a, *q = b;
	if (p->x < q->x)
		return -1;
	if (p->x > q->x)
		return 1;
	if (p->y != q->y)
		return p->y < q->y ? -1 : 1;
	return p->inst < q->inst ? -1 : p->inst > q->inst;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Least-squares line through points [a, b) of the working y. */
typedef struct line {
	double n, slope, icpt, sse, vxx, xbar;
} line;

static line fit_line(const sser *s, size_t a, size_t b)
{
	line l = {(double)(b - a), 0, 0, 0, 0, 0};
	if (b <= a)
		return l;
	double n = l.n;
	double sx = s->S[0][b] - s->S[0][a], sy = s->S[1][b] - s->S[1][a];
	double sxx = s->S[2][b] - s->S[2][a], sxy = s->S[3][b] - s->S[3][a], syy = s->S[4][b] - s->S[4][a];
	double vxx = sxx - sx * sx / n, vxy = sxy - sx * sy / n, vyy = syy - sy * sy / n;
	l.vxx = vxx;
	if (vxx > 1e-300 * n) {
		l.slope = vxy / vxx;
		l.sse = vyy - vxy * vxy / vxx;
	} else {
		l.sse = vyy;
	}
	if (l.sse < 0)
		l.sse = 0;
	l.icpt = (sy - l.slope * sx) / n;
	l.xbar = sx / n;
	return l;
}

/* SSE of the least-squares line through points [a, b). */
static double sse(const sser *s, size_t a, size_t b)
{
	if (b < a + 3)
		return 0;
	return fit_line(s, a, b).sse;
}

static size_t lower_bound(const double *x, size_t n, double v)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x[mid] < v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The series' cumulative share at x0, from a line through the points
 * around it (the narrowest window, from 1% of the instance, with at least 8
 * points); 0 and 1 at the ends, where every instance is pinned. */
static double local_cum(const sser *s, double x0)
{
	if (x0 <= 0)
		return 0;
	if (x0 >= 1)
		return 1;
	size_t a = 0, b = 0;
	for (double w = 0.005; w < 0.2; w *= 2) {
		a = lower_bound(s->x, s->n, x0 - w);
		b = lower_bound(s->x, s->n, x0 + w);
		if (b >= a + 8)
			break;
	}
	if (b < a + 2)
		return NAN;
	/* on the raw values: the working ones are winsorised to a fit */
	double n = (double)(b - a), sx = 0, sy = 0, sxx = 0, sxy = 0;
	for (size_t i = a; i < b; i++) {
		sx += s->x[i];
		sy += s->yr[i];
		sxx += s->x[i] * s->x[i];
		sxy += s->x[i] * s->yr[i];
	}
	double vxx = sxx - sx * sx / n, slope = vxx > 1e-300 ? (sxy - sx * sy / n) / vxx : 0;
	return (sy - slope * sx) / n + slope * x0;
}

/* The mean over instances of each instance's own cumulative share at every
 * bound (c[0..nseg]), each interpolated between that instance's points
 * around it, with (0, 0) and (1, 1) at its ends: a phase's events over the
 * folded instances, not an estimate from the points near its two ends,
 * which for a counter of a few events per instance are a handful of 0s and
 * 1s (a 160/s phase read 1086/s). Returns 0, 1 when the points' instances
 * are unknown, or -ENOMEM. */
static int instance_cums(const sser *s, const pwlr__result *r, double *c)
{
	if (!s->inst || !s->ninst)
		return 1;
	double *px = calloc(2 * (size_t)s->ninst, sizeof *px), *py = px ? px + s->ninst : NULL;
	size_t *next = calloc(s->ninst, sizeof *next);
	if (!px || !next) {
		free(px);
		free(next);
		return -ENOMEM;
	}
	size_t K = r->nseg, m = 0;
	for (size_t j = 0; j <= K; j++)
		c[j] = 0;
	for (size_t i = 0; i < s->n; i++) {
		uint32_t q = s->inst[i];
		if (q >= s->ninst)
			continue;
		if (!next[q]) {
			m++;
			next[q] = 1; /* bound index + 1 */
		}
		for (; next[q] <= K + 1 && r->bounds[next[q] - 1] < s->x[i]; next[q]++) {
			double b = r->bounds[next[q] - 1], dx = s->x[i] - px[q];
			c[next[q] - 1] += dx > 0 ? py[q] + (s->yr[i] - py[q]) * (b - px[q]) / dx : py[q];
		}
		px[q] = s->x[i];
		py[q] = s->yr[i];
	}
	for (uint32_t q = 0; q < s->ninst; q++)
		for (; next[q] && next[q] <= K + 1; next[q]++) {
			double b = r->bounds[next[q] - 1], dx = 1 - px[q];
			c[next[q] - 1] += dx > 0 ? py[q] + (1 - py[q]) * (b - px[q]) / dx : 1;
		}
	for (size_t j = 0; j <= K; j++)
		c[j] = m ? c[j] / (double)m : NAN;
	free(px);
	free(next);
	return m ? 0 : 1;
}

static size_t upper_index(const sser *s, double v)
{
	return v >= 1.0 ? s->n : lower_bound(s->x, s->n, v);
}

static void sser_free(sser *s)
{
	free(s->x);
	free(s->y);
	free(s->yr);
	free(s->inst);
	for (int k = 0; k < 5; k++)
		free(s->S[k]);
	free(s->idx);
}

static int sser_init(sser *s, const pwlr__series *in, unsigned cells)
{
	memset(s, 0, sizeof *s);
	size_t n = in->n, m = 0;
	pt *p = malloc((n ? n : 1) * sizeof *p);
	s->x = malloc((n ? n : 1) * sizeof *s->x);
	s->y = malloc((n ? n : 1) * sizeof *s->y);
	s->yr = malloc((n ? n : 1) * sizeof *s->yr);
	if (in->inst)
		s->inst = malloc((n ? n : 1) * sizeof *s->inst);
	for (int k = 0; k < 5; k++)
		s->S[k] = malloc((n + 1) * sizeof(double));
	s->idx = malloc((cells + 1) * sizeof *s->idx);
	if (!p || !s->x || !s->y || !s->yr || (in->inst && !s->inst) || !s->S[0] || !s->S[1] || !s->S[2] ||
	    !s->S[3] || !s->S[4] || !s->idx) {
		free(p);
		sser_free(s);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(in->x[i]) || !isfinite(in->y[i]))
			continue;
		p[m].x = in->x[i] < 0 ? 0 : in->x[i] > 1 ? 1 : in->x[i];
		p[m].y = in->y[i];
		p[m].inst = in->inst ? in->inst[i] : 0;
		m++;
	}
	qsort(p, m, sizeof *p, cmp_pt);
	s->n = m;
	for (size_t i = 0; i < m; i++) {
		s->x[i] = p[i].x;
		s->y[i] = s->yr[i] = p[i].y;
		if (s->inst) {
			s->inst[i] = p[i].inst;
			if (p[i].inst + 1 > s->ninst)
				s->ninst = p[i].inst + 1;
		}
	}
	free(p);
	for (unsigned j = 0; j <= cells; j++)
		s->idx[j] = j == cells ? m : lower_bound(s->x, m, (double)j / cells);
	s->detect = !in->rates_only && m >= 3;
	s->sigma = 1;
	s->deff = 1;
	return 0;
}

static void prefix_sums(sser *s)
{
	for (int k = 0; k < 5; k++)
		s->S[k][0] = 0;
	for (size_t i = 0; i < s->n; i++) {
		double x = s->x[i], y = s->y[i];
		s->S[0][i + 1] = s->S[0][i] + x;
		s->S[1][i + 1] = s->S[1][i] + y;
		s->S[2][i + 1] = s->S[2][i] + x * x;
		s->S[3][i + 1] = s->S[3][i] + x * y;
		s->S[4][i + 1] = s->S[4][i] + y * y;
	}
}

/* k-th smallest of v[0..n) (Wirth's selection; reorders v). */
static double select_kth(double *v, size_t n, size_t kk)
{
	long l = 0, m = (long)n - 1, k = (long)kk;
	while (l < m) {
		double x = v[k];
		long i = l, j = m;
		do {
			while (v[i] < x)
				i++;
			while (x < v[j])
				j--;
			if (i <= j) {
				double t = v[i];
				v[i] = v[j];
				v[j] = t;
				i++;
				j--;
			}
		} while (i <= j);
		if (j < k)
			l = i;
		if (k < i)
			m = j;
	}
	return v[k];
}

/* Reference curve of the first pass: the running median of y over the w
 * nearest points in x order (w = n / 100, 5..51). A cumulative share is
 * monotone in x, so the median of a window of exact values is the value at
 * the window's middle: corners stay sharp (a fit through cell medians would
 * round them, and winsorising around a rounded corner keeps it rounded),
 * while outliers below half the window never move it. */
static int median_reference(const sser *s, double *ref)
{
	size_t n = s->n;
	size_t w = n / 100;
	if (w < 5)
		w = 5;
	if (w > 51)
		w = 51;
	w |= 1;
	if (n < w + 2) { /* too few points to tell an outlier: no winsorising */
		memcpy(ref, s->yr, n * sizeof *ref);
		return 0;
	}
	double buf[51];
	size_t h = w / 2, ilo = h, ihi = n - 1 - h;
	/* Medians at every stride-th point, linear in between: the corner moves
	 * by at most stride points out of n >= 100 w, and it is w / 8 times
	 * cheaper. */
	size_t stride = w / 8 ? w / 8 : 1, prev = ilo;
	for (size_t i = ilo;; i += stride) {
		if (i > ihi)
			i = ihi;
		memcpy(buf, s->yr + i - h, w * sizeof *buf);
		ref[i] = select_kth(buf, w, h);
		for (size_t j = prev + 1; j < i; j++) {
			double dx = s->x[i] - s->x[prev];
			double t =
			    dx > 0 ? (s->x[j] - s->x[prev]) / dx : (double)(j - prev) / (double)(i - prev);
			ref[j] = ref[prev] + t * (ref[i] - ref[prev]);
		}
		prev = i;
		if (i == ihi)
			break;
	}
	/* The ends: straight to the anchors (0,0) and (1,1) of a cumulative share. */
	for (size_t i = 0; i < ilo; i++)
		ref[i] = s->x[ilo] > 0 ? ref[ilo] * s->x[i] / s->x[ilo] : ref[ilo];
	for (size_t i = ihi + 1; i < n; i++)
		ref[i] = s->x[ihi] < 1 ? ref[ihi] + (1 - ref[ihi]) * (s->x[i] - s->x[ihi]) / (1 - s->x[ihi])
		                       : ref[ihi];
	return 0;
}

/* Robust sigma of the raw residuals from ref, winsorised working y, design
 * effect, prefix sums. tmp holds n doubles, isum ninst doubles. */
static void winsorise(sser *s, const double *ref, double clip, double *tmp, double *isum,
                      int from_differences)
{
	size_t n = s->n;
	size_t m = 0;
	if (from_differences && n > 12) {
		/* The running median follows near-exact data point by point, so its
		 * residuals say nothing about the noise; differences of neighbours in
		 * x order (in folded data: different instances) minus the local
		 * trend do: sigma = 1.4826 MAD / sqrt(2). */
		size_t h = 5;
		for (size_t i = 0; i + 1 < n; i++) {
			size_t a = i >= h ? i - h : 0, b = i + h < n ? i + h : n - 1;
			double dx = s->x[b] - s->x[a];
			double slope = dx > 0 ? (ref[b] - ref[a]) / dx : 0;
			tmp[m++] =
			    fabs((s->yr[i + 1] - s->yr[i]) - slope * (s->x[i + 1] - s->x[i])) / M_SQRT2;
		}
	} else {
		for (size_t i = 0; i < n; i++)
			tmp[m++] = fabs(s->yr[i] - ref[i]);
	}
	double mad = m ? select_kth(tmp, m, m / 2) : 0;
	double sigma = 1.4826 * mad;
	if (sigma < FOLD__SIGMA_FLOOR)
		sigma = FOLD__SIGMA_FLOOR;
	s->sigma = sigma;
	double lim = clip * sigma, ss = 0;
	if (s->inst)
		memset(isum, 0, s->ninst * sizeof *isum);
	for (size_t i = 0; i < n; i++) {
		double r = s->yr[i] - ref[i];
		r = r > lim ? lim : r < -lim ? -lim : r;
		s->y[i] = ref[i] + r;
		ss += r * r;
		if (s->inst)
			isum[s->inst[i]] += r;
	}
	/* Design effect: the larger of two estimates of how much correlated
	 * noise inflates the evidence of independent-looking points.
	 * - Between instances: variance of per-instance residual sums over the
	 *   sum of variances (an instance preempted or stretched moves all of its
	 *   points). With few instances it cannot tell correlation within an
	 *   instance from the curve itself, so it needs FOLD__DEFF_MIN_INSTANCES
	 *   instances with points.
	 * - Along x: the AR(1) variance inflation (1 + rho) / (1 - rho) of the
	 *   lag-1 autocorrelation of the residuals in x order (one instance's
	 *   counter noise is a random walk around its line). */
	s->deff = 1;
	if (s->inst && ss > 0) {
		double si = 0;
		uint32_t with = 0;
		for (uint32_t k = 0; k < s->ninst; k++) {
			si += isum[k] * isum[k];
			with += isum[k] != 0;
		}
		if (with >= FOLD__DEFF_MIN_INSTANCES && si > ss)
			s->deff = si / ss;
	}
	if (ss > 0 && n > 8) {
		double lag = 0;
		for (size_t i = 0; i + 1 < n; i++)
			lag += (s->y[i] - ref[i]) * (s->y[i + 1] - ref[i + 1]);
		double rho = lag / ss;
		if (rho > 0.95)
			rho = 0.95;
		if (rho > 0 && (1 + rho) / (1 - rho) > s->deff)
			s->deff = (1 + rho) / (1 - rho);
	}
	s->w = s->detect ? 1.0 / (sigma * sigma * s->deff) : 0;
	prefix_sums(s);
}

/* Cost of the segment [xa, xb) in x, exact on the points. */
static double joint_cost_x(const sser *S, size_t ns, double xa, double xb)
{
	double c = 0;
	for (size_t k = 0; k < ns; k++) {
		if (!S[k].detect)
			continue;
		size_t ia = lower_bound(S[k].x, S[k].n, xa);
		size_t ib = upper_index(&S[k], xb);
		c += S[k].w * sse(&S[k], ia, ib);
	}
	return c;
}

/* Continuous fit of one series: tent basis at bounds, knot[0] = 0, knot[K] = 1. */
static void continuous_fit(const sser *s, pwlr__result *r, size_t si)
{
	size_t K = r->nseg;
	double *knot = r->knot + si * (K + 1);
	knot[0] = 0;
	knot[K] = 1;
	for (size_t j = 1; j < K; j++)
		knot[j] = r->bounds[j];
	if (K > 1 && s->n >= K) {
		size_t p = K - 1;
		gsl_matrix *A = gsl_matrix_calloc(p, p);
		gsl_vector *bv = gsl_vector_calloc(p), *sol = gsl_vector_alloc(p);
		if (A && bv && sol) {
			/* y - x*knot[K]*phi_K = sum_j c_j phi_j, phi_j tents; phi_K's coefficient is 1. */
			for (size_t i = 0; i < s->n; i++) {
				double x = s->x[i];
				size_t g = pwlr__segment(r, x);
				double a = r->bounds[g], b = r->bounds[g + 1];
				double t = b > a ? (x - a) / (b - a) : 0;
				double wl = 1 - t, wr = t; /* weights on knots g and g+1 */
				double resid = s->y[i];
				if (g + 1 == K)
					resid -= wr * 1.0;
				if (g >= 1) {
					size_t j = g - 1;
					*gsl_matrix_ptr(A, j, j) += wl * wl;
					*gsl_vector_ptr(bv, j) += wl * resid;
				}
				if (g + 1 <= K - 1) {
					size_t j = g;
					*gsl_matrix_ptr(A, j, j) += wr * wr;
					*gsl_vector_ptr(bv, j) += wr * resid;
				}
				if (g >= 1 && g + 1 <= K - 1) {
					*gsl_matrix_ptr(A, g - 1, g) += wl * wr;
					*gsl_matrix_ptr(A, g, g - 1) += wl * wr;
				}
			}
			for (size_t j = 0; j < p; j++) /* tiny ridge keeps empty segments solvable */
				*gsl_matrix_ptr(A, j, j) += 1e-9;
			if (gsl_linalg_cholesky_decomp1(A) == 0 && gsl_linalg_cholesky_solve(A, bv, sol) == 0)
				for (size_t j = 0; j < p; j++)
					knot[j + 1] = gsl_vector_get(sol, j);
		}
		gsl_matrix_free(A);
		gsl_vector_free(bv);
		gsl_vector_free(sol);
	}
	/* Monotone: a cumulative share never decreases. */
	for (size_t j = 1; j <= K; j++)
		if (knot[j] < knot[j - 1])
			knot[j] = knot[j - 1];
}

/* Slope of series s over [xa, xb) with its standard error (design-effect
 * corrected). Returns 0 when the segment cannot give one. */
static int seg_slope(const sser *s, double xa, double xb, double *slope, double *se, line *out)
{
	size_t a = lower_bound(s->x, s->n, xa), b = upper_index(s, xb);
	if (b < a + 3) {
		/* Too few points inside (a hole): the chord between the points on
		 * either side is the mean slope across it. */
		if (out || a == 0 || b >= s->n || !(s->x[b] > s->x[a - 1]))
			return 0;
		double dx = s->x[b] - s->x[a - 1];
		*slope = (s->y[b] - s->y[a - 1]) / dx;
		*se = M_SQRT2 * s->sigma * sqrt(s->deff) / dx;
		return 1;
	}
	line l = fit_line(s, a, b);
	if (!(l.vxx > 0))
		return 0;
	*slope = l.slope;
	*se = sqrt(l.sse / (l.n - 2) * s->deff / l.vxx);
	if (out)
		*out = l;
	return 1;
}

/* Is the boundary between [xa, xm) and [xm, xb) a real change of rate? */
static int meaningful(const sser *S, size_t ns, double xa, double xm, double xb, const pwlr__opts *o)
{
	for (size_t k = 0; k < ns; k++) {
		if (!S[k].detect)
			continue;
		double s1, e1, s2, e2;
		if (!seg_slope(&S[k], xa, xm, &s1, &e1, NULL) || !seg_slope(&S[k], xm, xb, &s2, &e2, NULL))
			continue;
		double d = fabs(s2 - s1), big = fmax(fabs(s1), fabs(s2));
		if (d >= o->min_change * big && d >= o->z * sqrt(e1 * e1 + e2 * e2))
			return 1;
		/* Lines that do not meet at the boundary: a step in the cumulative
		 * curve, i.e. a segment too short (or without samples, a hole) to
		 * see, with its own rate. Significant, and at least min_change of
		 * what the larger slope adds over a minimum-length segment. */
		size_t a1 = lower_bound(S[k].x, S[k].n, xa), m1 = lower_bound(S[k].x, S[k].n, xm);
		size_t b2 = upper_index(&S[k], xb);
		if (m1 < a1 + 3 || b2 < m1 + 3)
			continue;
		line l1 = fit_line(&S[k], a1, m1), l2 = fit_line(&S[k], m1, b2);
		if (!(l1.vxx > 0) || !(l2.vxx > 0))
			continue;
		double gap = fabs((l2.icpt + l2.slope * xm) - (l1.icpt + l1.slope * xm));
		double v1 =
		    l1.sse / (l1.n - 2) * S[k].deff * (1 / l1.n + (xm - l1.xbar) * (xm - l1.xbar) / l1.vxx);
		double v2 =
		    l2.sse / (l2.n - 2) * S[k].deff * (1 / l2.n + (xm - l2.xbar) * (xm - l2.xbar) / l2.vxx);
		if (gap >= o->min_change * big * o->min_len && gap >= o->z * sqrt(v1 + v2) &&
		    gap >= o->z * M_SQRT2 * S[k].sigma)
			return 1;
	}
	return 0;
}

/* Fewest points a phase needs (of the series that place boundaries): a
 * rate measured on fewer is more than 30% uncertain, and such a phase is
 * most often a wiggle of the fold's noise (10 ms sampling of a two-phase
 * program gave phases of 3 to 7 samples between the real ones). */
#define PWLR__MIN_SEGMENT_POINTS 10

/* Does [xa, xb) hold enough points of some series that places boundaries
 * (or of any series, when none does)? */
static int enough_points(const sser *S, size_t ns, double xa, double xb)
{
	int any_detect = 0;
	for (size_t k = 0; k < ns; k++)
		any_detect |= S[k].detect;
	size_t most = 0;
	for (size_t k = 0; k < ns; k++) {
		if (any_detect && !S[k].detect)
			continue;
		size_t a = lower_bound(S[k].x, S[k].n, xa), b = lower_bound(S[k].x, S[k].n, xb);
		if (b > a && b - a > most)
			most = b - a;
	}
	return most >= PWLR__MIN_SEGMENT_POINTS;
}

typedef struct dp {
	unsigned G, W, Kmax, L;
	double *C; /* cost of cells [a, b): C[a * W + b] */
	double *F;
	unsigned *A;
} dp;

static void dp_free(dp *d)
{
	free(d->C);
	free(d->F);
	free(d->A);
}

/* Segment neighbourhood over the cost table. */
static void dp_run(dp *d, const sser *S, size_t ns)
{
	unsigned G = d->G, W = d->W, L = d->L;
	for (unsigned a = 0; a < G; a++)
		for (unsigned b = a + L; b <= G; b++) {
			double c = 0;
			size_t pts = 0;
			for (size_t k = 0; k < ns; k++) {
				if (!S[k].detect)
					continue;
				size_t ia = S[k].idx[a], ib = S[k].idx[b];
				pts += ib - ia;
				c += S[k].w * sse(&S[k], ia, ib);
			}
			/* A segment without points is allowed (a hole: samples of a
			 * recursive region's nested instances belong to those). */
			(void)pts;
			d->C[(size_t)a * W + b] = c;
		}
	for (unsigned b = 0; b <= G; b++) {
		d->F[b] = b >= L ? d->C[b] : INFINITY;
		d->A[b] = 0;
	}
	for (unsigned q = 1; q < d->Kmax; q++) {
		double *Fq = d->F + (size_t)q * W, *Fp = d->F + (size_t)(q - 1) * W;
		unsigned *Aq = d->A + (size_t)q * W;
		for (unsigned b = 0; b <= G; b++) {
			Fq[b] = INFINITY;
			Aq[b] = 0;
			if (b < (q + 1) * L)
				continue;
			for (unsigned a = q * L; a + L <= b; a++) {
				if (!isfinite(Fp[a]))
					continue;
				double v = Fp[a] + d->C[(size_t)a * W + b];
				if (v < Fq[b]) {
					Fq[b] = v;
					Aq[b] = a;
				}
			}
		}
	}
}

static void dp_bounds(const dp *d, unsigned q, double *bounds)
{
	unsigned b = d->G;
	bounds[q + 1] = 1;
	for (unsigned j = q + 1; j-- > 0;) {
		unsigned a = j ? d->A[(size_t)j * d->W + b] : 0;
		bounds[j] = (double)a / d->G;
		b = a;
	}
	bounds[0] = 0;
	bounds[q + 1] = 1;
}

/* Refines boundary j of r on the points within the window w. cand: scratch. */
static int refine(const sser *S, size_t ns, pwlr__result *r, size_t j, const pwlr__window *w, double **cand,
                  size_t *cap)
{
	double lo = w->lo, hi = w->hi, min_len = w->min_len;
	double minlo = r->bounds[j - 1] + min_len * 0.999, maxhi = r->bounds[j + 1] - min_len * 0.999;
	if (lo < minlo)
		lo = minlo;
	if (hi > maxhi)
		hi = maxhi;
	if (hi <= lo)
		return 0;
	size_t nc = 0;
	for (size_t k = 0; k < ns; k++) {
		if (!S[k].detect)
			continue;
		size_t ia = lower_bound(S[k].x, S[k].n, lo), ib = lower_bound(S[k].x, S[k].n, hi);
		if (util_grow((void **)cand, cap, nc + (ib - ia) + 2, sizeof **cand))
			return -ENOMEM;
		for (size_t i = ia; i < ib; i++)
			(*cand)[nc++] = S[k].x[i];
	}
	if (nc < 2)
		return 0;
	double *c = *cand;
	qsort(c, nc, sizeof *c, cmp_double);
	double bestc = INFINITY, bestx = r->bounds[j];
	if (r->bounds[j] >= lo && r->bounds[j] <= hi)
		bestc = joint_cost_x(S, ns, r->bounds[j - 1], r->bounds[j]) +
		        joint_cost_x(S, ns, r->bounds[j], r->bounds[j + 1]);
	for (size_t i = 0; i + 1 < nc; i++) {
		if (c[i + 1] <= c[i])
			continue;
		double m = 0.5 * (c[i] + c[i + 1]);
		double v =
		    joint_cost_x(S, ns, r->bounds[j - 1], m) + joint_cost_x(S, ns, m, r->bounds[j + 1]);
		if (v < bestc) {
			bestc = v;
			bestx = m;
		}
	}
	r->bounds[j] = bestx;
	return 0;
}

/* Absorbs one transition segment if there is one; returns its index or 0. */
static size_t absorb_transition(const sser *S, size_t ns, pwlr__result *r, double max_len, double *lo,
                                double *hi)
{
	for (size_t j = 1; j + 1 < r->nseg; j++) {
		double a = r->bounds[j], b = r->bounds[j + 1];
		if (b - a > max_len)
			continue;
		int any = 0, between = 1;
		double best = -1, xs = 0.5 * (a + b);
		for (size_t k = 0; k < ns && between; k++) {
			if (!S[k].detect)
				continue;
			double s0, e0, s1, e1, s2, e2;
			line l0, l2;
			if (!seg_slope(&S[k], r->bounds[j - 1], a, &s0, &e0, &l0) ||
			    !seg_slope(&S[k], a, b, &s1, &e1, NULL) ||
			    !seg_slope(&S[k], b, r->bounds[j + 2], &s2, &e2, &l2))
				continue;
			any = 1;
			double mn = fmin(s0, s2) - 2 * e1, mx = fmax(s0, s2) + 2 * e1;
			if (s1 < mn || s1 > mx) {
				between = 0;
				break;
			}
			/* Where the neighbour lines meet, for the series that changes most. */
			double zc = fabs(s2 - s0) / sqrt(e0 * e0 + e2 * e2 + 1e-300);
			if (zc > best && fabs(l0.slope - l2.slope) > 1e-12) {
				double xm = (l2.icpt - l0.icpt) / (l0.slope - l2.slope);
				best = zc;
				xs = xm < a ? a : xm > b ? b : xm;
			}
		}
		if (!any || !between)
			continue;
		/* Remove segment j: bounds[j] and bounds[j+1] become one at xs. */
		r->bounds[j] = xs;
		for (size_t q = j + 1; q < r->nseg; q++)
			r->bounds[q] = r->bounds[q + 1];
		r->nseg--;
		*lo = a;
		*hi = b;
		return j;
	}
	return 0;
}

/* Curvature c of series s over [a, b] around the chord ch from ka to kb:
 * y = chord + c (x - a)(x - b), least squares on the raw points. Returns
 * the SSE of that quadratic and (in *pl) of the current fit r there. */
static double quad_fit(const sser *s, const pwlr__result *r, size_t k, const pwlr__chord *ch, double *c,
                       double *pl, size_t *npts)
{
	double a = ch->a, b = ch->b, ka = ch->ka, kb = ch->kb;
	size_t ia = lower_bound(s->x, s->n, a), ib = upper_index(s, b);
	double sqq = 0, srq = 0;
	for (size_t i = ia; i < ib; i++) {
		double x = s->x[i], q = (x - a) * (x - b);
		double res = s->yr[i] - (ka + (kb - ka) * (x - a) / (b - a));
		sqq += q * q;
		srq += res * q;
	}
	*c = sqq > 0 ? srq / sqq : 0;
	double sq = 0, sp = 0;
	for (size_t i = ia; i < ib; i++) {
		double x = s->x[i], q = (x - a) * (x - b);
		double e = s->yr[i] - (ka + (kb - ka) * (x - a) / (b - a)) - *c * q;
		double f = s->yr[i] - pwlr__cum(r, k, x);
		sq += e * e;
		sp += f * f;
	}
	*pl = sp;
	*npts = ib > ia ? ib - ia : 0;
	return sq;
}

/* Do segments [j, e] (inclusive, e >= j + 2) form one gradual change? Every
 * detecting series' slopes move monotonically the same way, and a single
 * quadratic is as good as the staircase by BIC. */
static int is_gradual(const sser *S, size_t ns, const pwlr__result *r, size_t j, size_t e)
{
	int any = 0;
	for (size_t k = 0; k < ns; k++) {
		if (!S[k].detect)
			continue;
		const double *sl = r->slope + k * r->nseg;
		int dir = 0;
		for (size_t q = j; q < e; q++) {
			int d = sl[q + 1] > sl[q] ? 1 : sl[q + 1] < sl[q] ? -1 : 0;
			if (!d || (dir && d != dir))
				return 0;
			dir = d;
		}
		const double *kn = r->knot + k * (r->nseg + 1);
		double a = r->bounds[j], b = r->bounds[e + 1], c, pl;
		size_t n;
		double q = quad_fit(&S[k], r, k, &(pwlr__chord){a, b, kn[j], kn[e + 1]}, &c, &pl, &n);
		if (n < 10 * (e - j + 1))
			return 0;
		double var = S[k].sigma * S[k].sigma * (S[k].deff > 1 ? S[k].deff : 1);
		double neff = (double)n / (S[k].deff > 1 ? S[k].deff : 1);
		/* The staircase has 2 (e - j) more parameters (inner knots' places
		 * and values) and the quadratic one (c). */
		double penalty = (2.0 * (double)(e - j) - 1) * log(neff > 3 ? neff : 3);
		if (!(var > 0) || (q - pl) / var > penalty)
			return 0;
		any = 1;
	}
	return any;
}

/* Step 10: merges runs of segments that are one gradual change. */
static int merge_gradual(const sser *S, size_t ns, pwlr__result *r)
{
	size_t K = r->nseg;
	size_t grp_end[FOLD_PWLR_MAX_SEGMENTS];
	unsigned char grad[FOLD_PWLR_MAX_SEGMENTS];
	size_t ng = 0, merged = 0;
	for (size_t j = 0; j < K;) {
		size_t e = j;
		for (size_t t = K - 1; t >= j + 2 && t < K; t--)
			if (is_gradual(S, ns, r, j, t)) {
				e = t;
				break;
			}
		grad[ng] = e > j;
		grp_end[ng++] = e;
		merged += e - j;
		j = e + 1;
	}
	if (!merged)
		return 0;
	double *knot = calloc(ns * (FOLD_PWLR_MAX_SEGMENTS + 1) + 1, sizeof *knot);
	double *slope = calloc(ns * FOLD_PWLR_MAX_SEGMENTS + 1, sizeof *slope);
	double *curv = calloc(ns * FOLD_PWLR_MAX_SEGMENTS + 1, sizeof *curv);
	double *at = calloc(2 * ns * FOLD_PWLR_MAX_SEGMENTS + 1, sizeof *at);
	if (!knot || !slope || !curv || !at) {
		free(knot);
		free(slope);
		free(curv);
		free(at);
		return -ENOMEM;
	}
	double bounds[FOLD_PWLR_MAX_SEGMENTS + 1];
	bounds[0] = 0;
	for (size_t g = 0, j = 0; g < ng; j = grp_end[g] + 1, g++) {
		size_t e = grp_end[g];
		bounds[g + 1] = r->bounds[e + 1];
		for (size_t k = 0; k < ns; k++) {
			const double *kn = r->knot + k * (K + 1);
			knot[k * (ng + 1) + g] = kn[j];
			knot[k * (ng + 1) + g + 1] = kn[e + 1];
			double *to = at + 2 * (k * ng + g);
			if (!grad[g]) {
				slope[k * ng + g] = r->slope[k * K + j];
				to[0] = r->rate_at[2 * (k * K + j)];
				to[1] = r->rate_at[2 * (k * K + j) + 1];
				continue;
			}
			to[0] = to[1] = NAN; /* the chord, and a curvature */
			double a = r->bounds[j], b = r->bounds[e + 1], len = b - a, c, pl;
			size_t n;
			double chord = (kn[e + 1] - kn[j]) / len;
			if (!S[k].detect) {
				/* a series that places no boundary: its segments' rates
				 * are each instance's rise over them (instance_cums), the
				 * group's their mean, not the fitted line's chord (a rare
				 * counter's ramp read 3058/s where its instances held
				 * 2500, and its phases summed to 13% above its total) */
				double rise = 0;
				for (size_t t = j; t <= e; t++)
					rise += r->slope[k * K + t] * (r->bounds[t + 1] - r->bounds[t]);
				chord = rise / len;
			}
			quad_fit(&S[k], r, k, &(pwlr__chord){a, b, kn[j], kn[e + 1]}, &c, &pl, &n);
			/* Rates at both ends stay >= 0: |c| len <= chord. */
			if (fabs(c) * len > chord)
				c = c > 0 ? chord / len : -chord / len;
			slope[k * ng + g] = chord > 0 ? chord : 0;
			curv[k * ng + g] = n ? c : 0;
		}
	}
	free(r->knot);
	free(r->slope);
	free(r->curv);
	free(r->rate_at);
	r->knot = knot;
	r->slope = slope;
	r->curv = curv;
	r->rate_at = at;
	memcpy(r->bounds, bounds, (ng + 1) * sizeof *bounds);
	memset(r->gradual, 0, sizeof r->gradual);
	memcpy(r->gradual, grad, ng);
	r->nseg = ng;
	r->gradual_merged = merged;
	return 0;
}

/* Points of the detecting series in [a, b). */
static size_t points_in(const sser *S, size_t ns, double a, double b)
{
	size_t c = 0;
	for (size_t k = 0; k < ns; k++)
		if (S[k].detect)
			c += upper_index(&S[k], b) - lower_bound(S[k].x, S[k].n, a);
	return c;
}

static void insert_bound(pwlr__result *r, size_t j, double x)
{
	for (size_t q = r->nseg + 1; q > j; q--)
		r->bounds[q] = r->bounds[q - 1];
	r->bounds[j] = x;
	r->nseg++;
}

static void remove_bound(pwlr__result *r, size_t j)
{
	for (size_t q = j; q < r->nseg; q++)
		r->bounds[q] = r->bounds[q + 1];
	r->nseg--;
}

/* Holes: a stretch of at least min_len without any point (the samples of a
 * recursive region's nested instances belong to those) is a phase of its
 * own: the cumulative curve rises across it at the nested call's rate, which
 * the lines of its neighbours do not show. A hole must also be longer than
 * random sampling leaves empty: with n uniform points, a gap of g somewhere
 * has probability about n exp(-n g), so g >= ln(1000 n) / n. Split segments
 * at their holes, then merge neighbours that hold (almost) no points. */
static void split_holes(const sser *S, size_t ns, pwlr__result *r, double min_len)
{
	size_t nmax = 0;
	for (size_t k = 0; k < ns; k++)
		if (S[k].detect && S[k].n > nmax)
			nmax = S[k].n;
	double hole = nmax ? log(1000.0 * (double)nmax) / (double)nmax : 1;
	if (hole < min_len)
		hole = min_len;
	for (size_t j = 0; j < r->nseg && r->nseg < FOLD_PWLR_MAX_SEGMENTS; j++) {
		double a = r->bounds[j], b = r->bounds[j + 1], first = b, last = a;
		for (size_t k = 0; k < ns; k++) {
			if (!S[k].detect)
				continue;
			size_t ia = lower_bound(S[k].x, S[k].n, a), ib = upper_index(&S[k], b);
			if (ib > ia) {
				first = fmin(first, S[k].x[ia]);
				last = fmax(last, S[k].x[ib - 1]);
			}
		}
		if (first >= b) /* no point at all: already a hole */
			continue;
		if (first - a >= hole && b - first >= min_len) {
			insert_bound(r, j + 1, first);
			continue; /* [a, first) is the hole; look at [first, b) next */
		}
		double after = nextafter(last, 2.0);
		if (b - after >= hole && after - a >= min_len && r->nseg < FOLD_PWLR_MAX_SEGMENTS) {
			insert_bound(r, j + 1, after);
			j++;
		}
	}
	for (size_t j = 1; j < r->nseg;) {
		if (points_in(S, ns, r->bounds[j - 1], r->bounds[j]) < 3 &&
		    points_in(S, ns, r->bounds[j], r->bounds[j + 1]) < 3)
			remove_bound(r, j);
		else
			j++;
	}
}

/* Steps: a boundary where the lines of its two neighbours do not meet is a
 * segment too short to see on its own (meaningful() keeps it for that), but
 * the phases around it, each with its interior slope, do not show the
 * events of the step: a 4% burst at 25x the rate between two phases at one
 * rate read as two phases at that rate, half of the events nowhere. When
 * the points lying between the two lines (a tenth of the gap from each)
 * are at least 3, they are the burst: it becomes a phase of its own over
 * their span widened to the whole rise (they cover 0.8 of it at a steady
 * rate), if that is shorter than max_len. */
static void split_steps(const sser *S, size_t ns, pwlr__result *r, double max_len)
{
	for (size_t j = 1; j < r->nseg && r->nseg + 1 < FOLD_PWLR_MAX_SEGMENTS; j++) {
		double xa = r->bounds[j - 1], xm = r->bounds[j], xb = r->bounds[j + 1];
		double lo = INFINITY, hi = -INFINITY;
		size_t best = 0;
		for (size_t k = 0; k < ns; k++) {
			const sser *q = &S[k];
			if (!q->detect)
				continue;
			size_t a1 = lower_bound(q->x, q->n, xa), m1 = lower_bound(q->x, q->n, xm);
			size_t b2 = upper_index(q, xb);
			if (m1 < a1 + 3 || b2 < m1 + 3)
				continue;
			line l1 = fit_line(q, a1, m1), l2 = fit_line(q, m1, b2);
			double gap = (l2.icpt + l2.slope * xm) - (l1.icpt + l1.slope * xm);
			double noise = 3 * (q->sigma > 0 ? q->sigma : 0);
			if (!(fabs(gap) > 4 * noise) || !(fabs(gap) > 0))
				continue;
			size_t m = 0;
			double plo = INFINITY, phi = -INFINITY;
			for (size_t i = a1; i < b2; i++) {
				double u = (q->y[i] - (l1.icpt + l1.slope * q->x[i])) / gap;
				double v = ((l2.icpt + l2.slope * q->x[i]) - q->y[i]) / gap;
				if (u > 0.1 && v > 0.1) {
					m++;
					plo = fmin(plo, q->x[i]);
					phi = fmax(phi, q->x[i]);
				}
			}
			if (m >= 3 && m > best) {
				/* at a steady rate inside the step, the points from a
				 * tenth of its rise to nine tenths span 0.8 of it */
				best = m;
				double mid = 0.5 * (plo + phi), half = 0.5 * (phi - plo) / 0.8;
				lo = mid - half;
				hi = mid + half;
			}
		}
		if (!best || !(hi - lo <= max_len) || !(lo > xa) || !(hi < xb))
			continue;
		r->bounds[j] = lo;
		insert_bound(r, j + 1, hi);
		j++;
	}
}

/* Do the points [ia, ib) of s spread over at least half of the stretch
 * (of length len) whose rate their line's slope is to give? A cloud at
 * one end measures that end: the 8 points of CloverLeaf's clover_min burst
 * in the last 0.8% of the instance, just before its exit, gave a waiting
 * phase of 0.59 the exit's full CPU speed; the spline's slope over the
 * phase (its rise) is that phase's rate. */
static int covers(const sser *s, size_t ia, size_t ib, double len)
{
	return ib > ia && s->x[ib - 1] - s->x[ia] >= 0.5 * len;
}

int pwlr__fit(const pwlr__series *in, size_t ns, const pwlr__opts *o, pwlr__result *r)
{
	int rc = -ENOMEM;
	memset(r, 0, sizeof *r);
	unsigned G = o->cells >= 8 ? o->cells : 8;
	unsigned Kmax = o->max_segments ? o->max_segments : 1;
	if (Kmax > FOLD_PWLR_MAX_SEGMENTS)
		Kmax = FOLD_PWLR_MAX_SEGMENTS;
	unsigned L = (unsigned)ceil(o->min_len * G - 1e-9);
	if (L < 1)
		L = 1;
	if ((unsigned long)Kmax * L > G)
		Kmax = G / L;
	sser *S = calloc(ns ? ns : 1, sizeof *S);
	dp d = {G, G + 1, Kmax, L, NULL, NULL, NULL};
	double *ref = NULL, *tmp = NULL, *isum = NULL, *cand = NULL;
	size_t cap = 0;
	if (!S)
		return -ENOMEM;
	size_t ok = 0, N = 0, maxn = 0, ndetect = 0;
	uint32_t maxinst = 1;
	for (size_t k = 0; k < ns; k++) {
		if (sser_init(&S[k], &in[k], G))
			goto out;
		ok++;
		N += S[k].n;
		if (S[k].n > maxn)
			maxn = S[k].n;
		if (S[k].ninst > maxinst)
			maxinst = S[k].ninst;
		ndetect += S[k].detect != 0;
	}
	if (N < 3) {
		rc = -EINVAL;
		goto out;
	}
	if (!ndetect) /* nothing qualified: every series with points places breakpoints */
		for (size_t k = 0; k < ns; k++)
			if ((S[k].detect = S[k].n >= 3))
				ndetect++;
	ref = malloc((maxn + 1) * sizeof *ref);
	tmp = malloc((maxn + 1) * sizeof *tmp);
	isum = malloc((size_t)maxinst * sizeof *isum);
	d.C = malloc((size_t)d.W * d.W * sizeof *d.C);
	d.F = malloc((size_t)Kmax * d.W * sizeof *d.F);
	d.A = malloc((size_t)Kmax * d.W * sizeof *d.A);
	r->knot = calloc(ns * (FOLD_PWLR_MAX_SEGMENTS + 1) + 1, sizeof *r->knot);
	r->slope = calloc(ns * FOLD_PWLR_MAX_SEGMENTS + 1, sizeof *r->slope);
	r->rate_at = calloc(2 * ns * FOLD_PWLR_MAX_SEGMENTS + 1, sizeof *r->rate_at);
	r->rms = calloc(ns + 1, sizeof *r->rms);
	r->curv = calloc(ns * FOLD_PWLR_MAX_SEGMENTS + 1, sizeof *r->curv);
	r->sigma = calloc(ns + 1, sizeof *r->sigma);
	r->deff = calloc(ns + 1, sizeof *r->deff);
	if (!ref || !tmp || !isum || !d.C || !d.F || !d.A || !r->knot || !r->slope || !r->rms || !r->curv ||
	    !r->sigma || !r->deff || !r->rate_at)
		goto out;
	r->nseries = ns;
	r->nseg = 1;
	r->bounds[0] = 0;
	r->bounds[1] = 1;
	for (int pass = 0; pass < 2; pass++) {
		/* Winsorise around the reference (pass 0) or the previous fit. */
		double clip = pass == 0 ? o->clip * FOLD__FIRST_PASS_CLIP_FACTOR : o->clip;
		double Neff = 0;
		size_t S_det = 0;
		for (size_t k = 0; k < ns; k++) {
			if (pass == 0) {
				if (median_reference(&S[k], ref))
					goto out;
			} else {
				/* The previous pass's segments, each with its own least-squares
				 * line (the cost the programme minimises; unlike the pinned
				 * spline it follows an offset at the instance's edges). */
				for (size_t j = 0; j < r->nseg; j++) {
					size_t a = lower_bound(S[k].x, S[k].n, r->bounds[j]);
					size_t b = upper_index(&S[k], r->bounds[j + 1]);
					line l = fit_line(&S[k], a, b);
					for (size_t i = a; i < b; i++)
						ref[i] =
						    b >= a + 2 ? l.icpt + l.slope * S[k].x[i] : S[k].yr[i];
				}
			}
			winsorise(&S[k], ref, clip, tmp, isum, pass == 0);
			if (S[k].detect) {
				Neff += (double)S[k].n / S[k].deff;
				S_det++;
			}
		}
		if (Neff < 3)
			Neff = 3;

		dp_run(&d, S, ns);
		unsigned best = 0;
		double best_bic = INFINITY;
		for (unsigned q = 0; q < Kmax; q++) {
			double J = d.F[(size_t)q * d.W + G];
			if (!isfinite(J))
				continue;
			if (J < 1e-300)
				J = 1e-300;
			double bic = Neff * log(J / Neff) + (double)(2 * S_det + 1) * (q + 1) * log(Neff);
			if (bic < best_bic - 1e-9) {
				best_bic = bic;
				best = q;
			}
		}
		r->bic = best_bic;
		r->bic_segments = best + 1;
		/* Fewer segments until every boundary is a real change of rate. */
		for (unsigned q = best + 1; q-- > 0;) {
			dp_bounds(&d, q, r->bounds);
			r->nseg = q + 1;
			int all = 1;
			for (size_t j = 1; j < r->nseg && all; j++)
				all = meaningful(S, ns, r->bounds[j - 1], r->bounds[j], r->bounds[j + 1], o);
			for (size_t j = 0; j < r->nseg && all && r->nseg > 1; j++)
				all = enough_points(S, ns, r->bounds[j], r->bounds[j + 1]);

			if (all)
				break;
		}
		double wlo[FOLD_PWLR_MAX_SEGMENTS + 1], whi[FOLD_PWLR_MAX_SEGMENTS + 1];
		for (size_t j = 0; j <= r->nseg; j++) {
			wlo[j] = r->bounds[j] - 1.0 / G;
			whi[j] = r->bounds[j] + 1.0 / G;
		}
		if (pass == 1) {
			double max_len = fmin(fmax(1.5 * o->min_len, 4 * o->smear), FOLD__MAX_TRANSITION);
			double lo, hi;
			size_t j;
			while ((j = absorb_transition(S, ns, r, max_len, &lo, &hi)) != 0) {
				r->transitions++;
				for (size_t q = j + 1; q <= r->nseg; q++) {
					wlo[q] = wlo[q + 1];
					whi[q] = whi[q + 1];
				}
				wlo[j] = lo - 1.0 / G;
				whi[j] = hi + 1.0 / G;
			}
		}
		/* Refine each breakpoint on the points (two sweeps). */
		for (int sweep = 0; sweep < 2 && r->nseg > 1; sweep++)
			for (size_t j = 1; j < r->nseg; j++)
				if (refine(S, ns, r, j, &(pwlr__window){wlo[j], whi[j], o->min_len}, &cand,
				           &cap))
					goto out;
		split_holes(S, ns, r, o->min_len);
		split_steps(S, ns, r, FOLD__MAX_TRANSITION);
		for (size_t k = 0; k < ns; k++)
			continuous_fit(&S[k], r, k);
	}
	/* Phase rates: a series that places boundaries, slope over each phase's
	 * interior, away from the smear of inner boundaries; one that does not
	 * (a sparse counter: its events may sit near a phase's edges), its mean
	 * over the whole phase, which its curve averages to as well. */
	double margin = fmax(1.0 / G, 2 * o->smear);
	for (size_t k = 0; k < ns; k++) {
		const double *knot = r->knot + k * (r->nseg + 1);
		double ic[FOLD_PWLR_MAX_SEGMENTS + 1];
		int have_ic = 0;
		if (!S[k].detect) {
			int q = instance_cums(&S[k], r, ic);
			if (q < 0)
				goto out;
			have_ic = q == 0;
		}
		for (size_t j = 0; j < r->nseg; j++) {
			double a = r->bounds[j], b = r->bounds[j + 1], len = b - a;
			double ma = j > 0 ? margin : 0, mb = j + 1 < r->nseg ? margin : 0;
			if (ma + mb > 0.5 * len) {
				double f = 0.5 * len / (ma + mb);
				ma *= f;
				mb *= f;
			}
			double s = len > 0 ? (knot[j + 1] - knot[j]) / len : 0, sl, se;
			double *at = r->rate_at + 2 * (k * r->nseg + j);
			size_t ia = lower_bound(S[k].x, S[k].n, a + ma), ib = upper_index(&S[k], b - mb);
			at[0] = at[1] = NAN;
			if (r->nseg == 1) {
				/* one phase is the whole instance: its mean rate is the
				 * share's rise from 0 at entry to 1 at exit, which a line
				 * through scattered points (a wait whose position
				 * varies) does not see */
			} else if (S[k].detect && ib >= ia + 5 && covers(&S[k], ia, ib, b - mb - (a + ma)) &&
			           seg_slope(&S[k], a + ma, b - mb, &sl, &se, NULL)) {
				s = sl;
				at[0] = a + ma;
				at[1] = b - mb;
			} else if (!S[k].detect && len > 0) {
				/* the mean over the phase: each instance's rise over it */
				double ca = have_ic ? ic[j] : local_cum(&S[k], a);
				double cb = have_ic ? ic[j + 1] : local_cum(&S[k], b);
				if (isfinite(ca) && isfinite(cb))
					s = (cb - ca) / len;
			}
			r->slope[k * r->nseg + j] = s > 0 ? s : 0;
		}
	}
	if (r->nseg >= 3 && merge_gradual(S, ns, r))
		goto out;
	for (size_t k = 0; k < ns; k++) {
		double ss = 0;
		for (size_t i = 0; i < S[k].n; i++) {
			double e = S[k].yr[i] - pwlr__cum(r, k, S[k].x[i]);
			ss += e * e;
		}
		r->rms[k] = S[k].n ? sqrt(ss / (double)S[k].n) : 0;
		r->sigma[k] = S[k].sigma;
		r->deff[k] = S[k].deff;
		if (k < 8)
			r->noise[k] = S[k].sigma;
	}
	rc = 0;
out:
	if (rc)
		pwlr__result_free(r);
	for (size_t k = 0; k < ok; k++)
		sser_free(&S[k]);
	free(S);
	dp_free(&d);
	free(ref);
	free(tmp);
	free(isum);
	free(cand);
	return rc;
}

void pwlr__result_free(pwlr__result *r)
{
	free(r->knot);
	free(r->slope);
	free(r->rms);
	free(r->sigma);
	free(r->deff);
	free(r->curv);
	free(r->rate_at);
	r->knot = r->slope = r->rms = r->sigma = r->deff = r->curv = r->rate_at = NULL;
}

/* How far (relative) an unaligned phase rate may differ from the aligned
 * phase's rise over its length and still be taken for it. */
static const double ADOPT_TOL = 0.25;

void pwlr__adopt_rates(pwlr__result *r, const pwlr__result *from, double smear)
{
	for (size_t k = 0; k < r->nseries && k < from->nseries; k++)
		for (size_t p = 0; p < r->nseg; p++) {
			size_t q = pwlr__segment(from, 0.5 * (r->bounds[p] + r->bounds[p + 1]));
			const double *s = from->slope + k * from->nseg, *kn = r->knot + k * (r->nseg + 1);
			if (r->gradual[p] || from->gradual[q] ||
			    (q > 0 && q + 1 < from->nseg && (s[q] - s[q - 1]) * (s[q + 1] - s[q]) > 0))
				continue;
			double len = r->bounds[p + 1] - r->bounds[p];
			double rise = len > 0 ? (kn[p + 1] - kn[p]) / len : 0, big = fmax(s[q], rise);
			if (big > 0 && fabs(s[q] - rise) > fmax(ADOPT_TOL, 2 * smear) * big)
				continue;
			r->slope[k * r->nseg + p] = s[q];
			/* measured on other (unaligned) points */
			r->rate_at[2 * (k * r->nseg + p)] = r->rate_at[2 * (k * r->nseg + p) + 1] = NAN;
		}
}

size_t pwlr__segment(const pwlr__result *r, double x)
{
	size_t g = 0;
	while (g + 1 < r->nseg && x >= r->bounds[g + 1])
		g++;
	return g;
}

double pwlr__cum(const pwlr__result *r, size_t i, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return r->knot[i * (r->nseg + 1) + r->nseg];
	size_t g = pwlr__segment(r, x);
	const double *k = r->knot + i * (r->nseg + 1);
	double a = r->bounds[g], b = r->bounds[g + 1];
	double t = b > a ? (x - a) / (b - a) : 0;
	double v = k[g] + t * (k[g + 1] - k[g]);
	if (r->gradual[g] && r->curv)
		v += r->curv[i * r->nseg + g] * (x - a) * (x - b);
	return v;
}

double pwlr__segment_rate(const pwlr__result *r, size_t i, size_t g, double x)
{
	if (g >= r->nseg)
		g = r->nseg - 1;
	double a = r->bounds[g], b = r->bounds[g + 1];
	x = x < a ? a : x > b ? b : x;
	double v = r->slope[i * r->nseg + g];
	if (r->gradual[g] && r->curv)
		v += r->curv[i * r->nseg + g] * (2 * x - a - b);
	return v > 0 ? v : 0;
}

double pwlr__rate(const pwlr__result *r, size_t i, double x)
{
	size_t g = pwlr__segment(r, x < 0 ? 0 : x > 1 ? 1 : x);
	double v = r->slope[i * r->nseg + g];
	if (r->gradual[g] && r->curv)
		v += r->curv[i * r->nseg + g] * (2 * x - r->bounds[g] - r->bounds[g + 1]);
	return v > 0 ? v : 0;
}
