/* pwlr.c: joint segmented least squares with BIC (see pwlr.h). */
#include "pwlr.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

void fold__pwlr_opts_init(fold__pwlr_opts *o)
{
	o->cells = 400;
	o->min_len = 0.02;
	o->max_segments = 12;
}

/* One series, sorted by x, with prefix sums. */
typedef struct sser {
	size_t n;
	double *x, *y;
	double *S[5]; /* prefix sums of x, y, xx, xy, yy: [0..n] */
	size_t *idx;  /* first point of each cell: [0..cells] */
	double w;     /* 1 / noise variance */
} sser;

typedef struct pt {
	double x, y;
} pt;

static int cmp_pt(const void *a, const void *b)
{
	const pt *p = a, *q = b;
	if (p->x < q->x)
		return -1;
	if (p->x > q->x)
		return 1;
	return p->y < q->y ? -1 : p->y > q->y;
}

/* SSE of the least-squares line through points [a, b). */
static double sse(const sser *s, size_t a, size_t b)
{
	double n = (double)(b - a);
	if (n < 3)
		return 0;
	double sx = s->S[0][b] - s->S[0][a], sy = s->S[1][b] - s->S[1][a];
	double sxx = s->S[2][b] - s->S[2][a], sxy = s->S[3][b] - s->S[3][a], syy = s->S[4][b] - s->S[4][a];
	double vxx = sxx - sx * sx / n, vxy = sxy - sx * sy / n, vyy = syy - sy * sy / n;
	double r = vxx > 1e-300 ? vyy - vxy * vxy / vxx : vyy;
	return r > 0 ? r : 0;
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

static void sser_free(sser *s)
{
	free(s->x);
	free(s->y);
	for (int k = 0; k < 5; k++)
		free(s->S[k]);
	free(s->idx);
}

static int sser_init(sser *s, const fold__pwlr_series *in, unsigned cells)
{
	memset(s, 0, sizeof *s);
	size_t n = in->n;
	pt *p = malloc((n ? n : 1) * sizeof *p);
	s->x = malloc((n ? n : 1) * sizeof *s->x);
	s->y = malloc((n ? n : 1) * sizeof *s->y);
	for (int k = 0; k < 5; k++)
		s->S[k] = malloc((n + 1) * sizeof(double));
	s->idx = malloc((cells + 1) * sizeof *s->idx);
	if (!p || !s->x || !s->y || !s->S[0] || !s->S[1] || !s->S[2] || !s->S[3] || !s->S[4] || !s->idx) {
		free(p);
		sser_free(s);
		return -ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(in->x[i]) || !isfinite(in->y[i]))
			continue;
		p[m].x = in->x[i] < 0 ? 0 : in->x[i] > 1 ? 1 : in->x[i];
		p[m].y = in->y[i];
		m++;
	}
	qsort(p, m, sizeof *p, cmp_pt);
	s->n = m;
	for (int k = 0; k < 5; k++)
		s->S[k][0] = 0;
	for (size_t i = 0; i < m; i++) {
		double x = p[i].x, y = p[i].y;
		s->x[i] = x;
		s->y[i] = y;
		s->S[0][i + 1] = s->S[0][i] + x;
		s->S[1][i + 1] = s->S[1][i] + y;
		s->S[2][i + 1] = s->S[2][i] + x * x;
		s->S[3][i + 1] = s->S[3][i] + x * y;
		s->S[4][i + 1] = s->S[4][i] + y * y;
	}
	free(p);
	for (unsigned j = 0; j <= cells; j++)
		s->idx[j] = j == cells ? m : lower_bound(s->x, m, (double)j / cells);
	return 0;
}

static double joint_cost(const sser *S, size_t ns, unsigned a, unsigned b)
{
	double c = 0;
	size_t pts = 0;
	for (size_t k = 0; k < ns; k++) {
		size_t ia = S[k].idx[a], ib = S[k].idx[b];
		pts += ib - ia;
		c += S[k].w * sse(&S[k], ia, ib);
	}
	return pts >= 3 ? c : INFINITY;
}

/* Cost of the segment [xa, xb) in x, exact on the raw points. */
static double joint_cost_x(const sser *S, size_t ns, double xa, double xb)
{
	double c = 0;
	for (size_t k = 0; k < ns; k++) {
		size_t ia = lower_bound(S[k].x, S[k].n, xa);
		size_t ib = xb >= 1.0 ? S[k].n : lower_bound(S[k].x, S[k].n, xb);
		c += S[k].w * sse(&S[k], ia, ib);
	}
	return c;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Continuous fit of one series: tent basis at bounds, knot[0] = 0, knot[K] = 1. */
static void continuous_fit(const sser *s, fold__pwlr_result *r, size_t si)
{
	size_t K = r->nseg;
	double *knot = r->knot + si * (K + 1), *slope = r->slope + si * K;
	knot[0] = 0;
	knot[K] = 1;
	if (K > 1 && s->n >= K) {
		size_t p = K - 1;
		gsl_matrix *A = gsl_matrix_calloc(p, p);
		gsl_vector *bv = gsl_vector_calloc(p), *sol = gsl_vector_alloc(p);
		if (A && bv && sol) {
			/* y - x*knot[K]*phi_K = sum_j c_j phi_j, phi_j tents; phi_K's coefficient is 1. */
			for (size_t i = 0; i < s->n; i++) {
				double x = s->x[i];
				size_t g = fold__pwlr_segment(r, x);
				double a = r->bounds[g], b = r->bounds[g + 1];
				double t = b > a ? (x - a) / (b - a) : 0;
				double wl = 1 - t, wr = t; /* weights on knots g and g+1 */
				double resid = s->y[i];
				if (g + 1 == K)
					resid -= wr * 1.0;
				/* unknowns are knots 1..K-1 -> index j-1 */
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
			if (gsl_linalg_cholesky_decomp1(A) == 0 && gsl_linalg_cholesky_solve(A, bv, sol) == 0) {
				for (size_t j = 0; j < p; j++)
					knot[j + 1] = gsl_vector_get(sol, j);
			} else {
				for (size_t j = 1; j < K; j++)
					knot[j] = r->bounds[j];
			}
		}
		gsl_matrix_free(A);
		gsl_vector_free(bv);
		gsl_vector_free(sol);
	}
	/* Monotone: a cumulative share never decreases. */
	for (size_t j = 1; j <= K; j++)
		if (knot[j] < knot[j - 1])
			knot[j] = knot[j - 1];
	for (size_t j = 0; j < K; j++) {
		double len = r->bounds[j + 1] - r->bounds[j];
		slope[j] = len > 0 ? (knot[j + 1] - knot[j]) / len : 0;
	}
	double ss = 0;
	for (size_t i = 0; i < s->n; i++) {
		double d = s->y[i] - fold__pwlr_cum(r, si, s->x[i]);
		ss += d * d;
	}
	r->rms[si] = s->n ? sqrt(ss / (double)s->n) : 0;
}

int fold__pwlr_fit(const fold__pwlr_series *in, size_t ns, const fold__pwlr_opts *o, fold__pwlr_result *r)
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
	double *F = NULL;
	unsigned *A = NULL;
	if (!S)
		return -ENOMEM;
	size_t ok = 0, N = 0;
	for (size_t k = 0; k < ns; k++) {
		if (sser_init(&S[k], &in[k], G))
			goto out;
		ok++;
		N += S[k].n;
	}
	if (N < 3) {
		rc = -EINVAL;
		goto out;
	}
	/* Noise of each series: residual variance of a fine equal-width fit (25 pieces). */
	for (size_t k = 0; k < ns; k++) {
		double ss = 0;
		unsigned pieces = 25;
		for (unsigned j = 0; j < pieces; j++)
			ss += sse(&S[k], S[k].idx[j * G / pieces], S[k].idx[(j + 1) * G / pieces]);
		double var = S[k].n > 3 * pieces ? ss / (double)(S[k].n - 2 * pieces) : 0;
		if (var < 1e-12)
			var = 1e-12;
		S[k].w = S[k].n >= 3 ? 1.0 / var : 0;
		if (k < 8)
			r->noise[k] = sqrt(var);
	}
	/* Segment neighbourhood DP: F[q][b] = best cost of cells [0,b) in q+1 segments. */
	size_t W = G + 1;
	F = malloc((size_t)Kmax * W * sizeof *F);
	A = malloc((size_t)Kmax * W * sizeof *A);
	if (!F || !A)
		goto out;
	for (unsigned b = 0; b <= G; b++) {
		F[b] = b >= L ? joint_cost(S, ns, 0, b) : INFINITY;
		A[b] = 0;
	}
	for (unsigned q = 1; q < Kmax; q++) {
		double *Fq = F + q * W, *Fp = F + (q - 1) * W;
		unsigned *Aq = A + q * W;
		for (unsigned b = 0; b <= G; b++) {
			Fq[b] = INFINITY;
			Aq[b] = 0;
			if (b < (q + 1) * L)
				continue;
			for (unsigned a = q * L; a + L <= b; a++) {
				if (!isfinite(Fp[a]))
					continue;
				double v = Fp[a] + joint_cost(S, ns, a, b);
				if (v < Fq[b]) {
					Fq[b] = v;
					Aq[b] = a;
				}
			}
		}
	}
	unsigned best = 0;
	double best_bic = INFINITY;
	for (unsigned q = 0; q < Kmax; q++) {
		double J = F[q * W + G];
		if (!isfinite(J))
			continue;
		if (J < 1e-300)
			J = 1e-300;
		double bic = (double)N * log(J / (double)N) + (double)(2 * ns + 1) * (q + 1) * log((double)N);
		if (bic < best_bic - 1e-9) {
			best_bic = bic;
			best = q;
		}
	}
	r->nseg = best + 1;
	r->bic = best_bic;
	unsigned cut[FOLD_PWLR_MAX_SEGMENTS + 1];
	unsigned b = G;
	cut[best + 1] = G;
	for (unsigned q = best + 1; q-- > 0;) {
		unsigned a = q ? A[q * W + b] : 0;
		cut[q] = a;
		b = a;
	}
	for (size_t j = 0; j <= r->nseg; j++)
		r->bounds[j] = (double)cut[j] / G;
	r->bounds[0] = 0;
	r->bounds[r->nseg] = 1;
	/* Refine each breakpoint on the raw points within +-1 cell (two sweeps). */
	double *cand = NULL;
	size_t cap = 0;
	for (int sweep = 0; sweep < 2 && r->nseg > 1; sweep++) {
		for (size_t j = 1; j < r->nseg; j++) {
			double lo = r->bounds[j] - 1.0 / G, hi = r->bounds[j] + 1.0 / G;
			double minlo = r->bounds[j - 1] + o->min_len * 0.999, maxhi = r->bounds[j + 1] - o->min_len * 0.999;
			if (lo < minlo)
				lo = minlo;
			if (hi > maxhi)
				hi = maxhi;
			if (hi <= lo)
				continue;
			size_t nc = 0;
			for (size_t k = 0; k < ns; k++) {
				size_t ia = lower_bound(S[k].x, S[k].n, lo), ib = lower_bound(S[k].x, S[k].n, hi);
				if (nc + (ib - ia) + 2 > cap) {
					size_t ncap = (nc + (ib - ia) + 2) * 2;
					double *nb = realloc(cand, ncap * sizeof *nb);
					if (!nb) {
						free(cand);
						goto out;
					}
					cand = nb;
					cap = ncap;
				}
				for (size_t i = ia; i < ib; i++)
					cand[nc++] = S[k].x[i];
			}
			if (nc < 2)
				continue;
			qsort(cand, nc, sizeof *cand, cmp_double);
			double bestc = joint_cost_x(S, ns, r->bounds[j - 1], r->bounds[j]) +
			               joint_cost_x(S, ns, r->bounds[j], r->bounds[j + 1]);
			double bestx = r->bounds[j];
			for (size_t i = 0; i + 1 < nc; i++) {
				if (cand[i + 1] <= cand[i])
					continue;
				double c = 0.5 * (cand[i] + cand[i + 1]);
				double v = joint_cost_x(S, ns, r->bounds[j - 1], c) + joint_cost_x(S, ns, c, r->bounds[j + 1]);
				if (v < bestc) {
					bestc = v;
					bestx = c;
				}
			}
			r->bounds[j] = bestx;
		}
	}
	free(cand);
	r->nseries = ns;
	r->knot = calloc(ns * (r->nseg + 1) + 1, sizeof *r->knot);
	r->slope = calloc(ns * r->nseg + 1, sizeof *r->slope);
	r->rms = calloc(ns + 1, sizeof *r->rms);
	if (!r->knot || !r->slope || !r->rms) {
		fold__pwlr_result_free(r);
		goto out;
	}
	for (size_t k = 0; k < ns; k++)
		continuous_fit(&S[k], r, k);
	rc = 0;
out:
	for (size_t k = 0; k < ok; k++)
		sser_free(&S[k]);
	free(S);
	free(F);
	free(A);
	return rc;
}

void fold__pwlr_result_free(fold__pwlr_result *r)
{
	free(r->knot);
	free(r->slope);
	free(r->rms);
	r->knot = r->slope = r->rms = NULL;
}

size_t fold__pwlr_segment(const fold__pwlr_result *r, double x)
{
	size_t g = 0;
	while (g + 1 < r->nseg && x >= r->bounds[g + 1])
		g++;
	return g;
}

double fold__pwlr_cum(const fold__pwlr_result *r, size_t i, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return r->knot[i * (r->nseg + 1) + r->nseg];
	size_t g = fold__pwlr_segment(r, x);
	const double *k = r->knot + i * (r->nseg + 1);
	double a = r->bounds[g], b = r->bounds[g + 1];
	double t = b > a ? (x - a) / (b - a) : 0;
	return k[g] + t * (k[g + 1] - k[g]);
}
