/* kriging.c: O(N) Matern-3/2 Gaussian-process fit by Kalman filter and RTS
 * smoother (see kriging.h). All matrices are 2 x 2. */
#include "kriging.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void kriging__opts_init(kriging__opts *o)
{
	o->bins = 1000;
	o->n_len = 20;
	o->n_eta = 10;
	o->seed = 1;
}

typedef struct m2 {
	double a, b, c, d; /* [[a, b], [c, d]] */
} m2;

typedef struct v2 {
	double p, q;
} v2;

static m2 mul(m2 x, m2 y)
{
	return (m2){x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c, x.c * y.b + x.d * y.d};
}
static m2 tr(m2 x) { return (m2){x.a, x.c, x.b, x.d}; }
static m2 add(m2 x, m2 y) { return (m2){x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d}; }
static m2 sub(m2 x, m2 y) { return (m2){x.a - y.a, x.b - y.b, x.c - y.c, x.d - y.d}; }
static v2 mv(m2 x, v2 v) { return (v2){x.a * v.p + x.b * v.q, x.c * v.p + x.d * v.q}; }
static m2 inv(m2 x)
{
	double det = x.a * x.d - x.b * x.c;
	if (fabs(det) < 1e-300)
		det = det < 0 ? -1e-300 : 1e-300;
	return (m2){x.d / det, -x.b / det, -x.c / det, x.a / det};
}

/* Transition over dx and its process noise, for P_inf = diag(1, lam^2). */
static void transition(double lam, double dx, m2 *A, m2 *Q)
{
	double e = exp(-lam * dx);
	*A = (m2){e * (1 + lam * dx), e * dx, -e * lam * lam * dx, e * (1 - lam * dx)};
	m2 P = {1, 0, 0, lam * lam};
	*Q = sub(P, mul(mul(*A, P), tr(*A)));
}

typedef struct obs {
	double x, r, w; /* position, residual y - x, points behind it */
} obs;

typedef struct xy {
	double x, y;
} xy;

static int cmp_xy(const void *p, const void *q)
{
	const xy *a = p, *b = q;
	return a->x < b->x ? -1 : a->x > b->x;
}

/* Log-likelihood with s2 profiled out; *s2 receives its estimate. */
static double loglik(const obs *o, size_t N, double ell, double eta, double *s2)
{
	double lam = sqrt(3.0) / ell;
	v2 m = {0, 0};
	m2 P = {1, 0, 0, lam * lam};
	double sum_logS = 0, sum_q = 0;
	for (size_t k = 0; k < N; k++) {
		if (k) {
			m2 A, Q;
			transition(lam, o[k].x - o[k - 1].x, &A, &Q);
			m = mv(A, m);
			P = add(mul(mul(A, P), tr(A)), Q);
		}
		double R = eta / o[k].w;
		double S = P.a + R;
		if (S < 1e-300)
			S = 1e-300;
		double v = o[k].r - m.p;
		double K0 = P.a / S, K1 = P.c / S;
		m.p += K0 * v;
		m.q += K1 * v;
		P = (m2){P.a - K0 * P.a, P.b - K0 * P.b, P.c - K1 * P.a, P.d - K1 * P.b};
		sum_logS += log(S);
		sum_q += v * v / S;
	}
	double n = (double)N;
	double sh = sum_q / n;
	if (sh < 1e-300)
		sh = 1e-300;
	*s2 = sh;
	return -0.5 * sum_logS - 0.5 * n * log(sh) - 0.5 * n;
}

void kriging__result_free(kriging__result *r)
{
	free(r->cum);
	free(r->rate);
	free(r->rate_lo);
	free(r->rate_hi);
	r->cum = r->rate = r->rate_lo = r->rate_hi = NULL;
}

/* Pool-adjacent-violators: least-squares monotone (non-decreasing) fit, in place. */
static void pava(double *y, size_t n, double *wbuf, size_t *lenbuf)
{
	size_t nb = 0;
	for (size_t i = 0; i < n; i++) {
		y[nb] = y[i];
		wbuf[nb] = 1;
		lenbuf[nb] = 1;
		nb++;
		while (nb > 1 && y[nb - 2] > y[nb - 1]) {
			double w = wbuf[nb - 2] + wbuf[nb - 1];
			y[nb - 2] = (y[nb - 2] * wbuf[nb - 2] + y[nb - 1] * wbuf[nb - 1]) / w;
			wbuf[nb - 2] = w;
			lenbuf[nb - 2] += lenbuf[nb - 1];
			nb--;
		}
	}
	size_t k = n;
	for (size_t b = nb; b-- > 0;)
		for (size_t j = 0; j < lenbuf[b]; j++)
			y[--k] = y[b];
}

int kriging__fit(const double *x, const double *y, size_t n, const kriging__opts *o, const double *grid,
                 size_t G, kriging__result *r)
{
	int rc = -ENOMEM;
	memset(r, 0, sizeof *r);
	obs *ob = NULL;
	xy *pts = NULL;
	v2 *mf = NULL, *mp = NULL;
	m2 *Pf = NULL, *Pp = NULL, *Am = NULL;
	double *gx = NULL, *gR = NULL;
	size_t *lenbuf = NULL;
	if (n < 5 || G < 2)
		return -EINVAL;
	size_t B = o->bins ? o->bins : 1000;
	ob = malloc((n < B ? n : B) * sizeof *ob + 2 * sizeof *ob);
	if (!ob)
		goto out;
	size_t N = 1; /* ob[0] = anchor at 0 */
	if (n > B) {
		double *cnt = calloc(B, sizeof *cnt), *sx = calloc(B, sizeof *sx), *sr = calloc(B, sizeof *sr);
		if (!cnt || !sx || !sr) {
			free(cnt);
			free(sx);
			free(sr);
			goto out;
		}
		for (size_t i = 0; i < n; i++) {
			double xi = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i];
			size_t b = (size_t)(xi * (double)B);
			if (b >= B)
				b = B - 1;
			cnt[b] += 1;
			sx[b] += xi;
			sr[b] += y[i] - xi;
		}
		for (size_t b = 0; b < B; b++)
			if (cnt[b] > 0)
				ob[N++] = (obs){sx[b] / cnt[b], sr[b] / cnt[b], cnt[b]};
		free(cnt);
		free(sx);
		free(sr);
		r->nbins = N - 1;
		snprintf(r->approximation, sizeof r->approximation,
		         "%zu points averaged in %zu bins of width %.4g; error <= |g''| w^2/8", n, N - 1, 1.0 / (double)B);
	} else {
		pts = malloc(n * sizeof *pts);
		if (!pts)
			goto out;
		for (size_t i = 0; i < n; i++) {
			pts[i].x = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i];
			pts[i].y = y[i];
		}
		qsort(pts, n, sizeof *pts, cmp_xy);
		for (size_t i = 0; i < n; i++)
			ob[N++] = (obs){pts[i].x, pts[i].y - pts[i].x, 1};
		snprintf(r->approximation, sizeof r->approximation, "exact (%zu points, no binning)", n);
	}
	/* Anchors (0,0) and (1,1): residual 0, as heavy as an average observation. */
	double wa = (double)n / (double)(N - 1);
	ob[0] = (obs){0, 0, wa};
	ob[N++] = (obs){1, 0, wa};
	/* Hyper-parameter grid: l in [max(2 median dx, 1e-3), 2], eta in [1e-6, 1e2]. */
	double *dxs = malloc(N * sizeof *dxs);
	if (!dxs)
		goto out;
	size_t nd = 0;
	for (size_t k = 1; k < N; k++)
		if (ob[k].x > ob[k - 1].x)
			dxs[nd++] = ob[k].x - ob[k - 1].x;
	double med = 1e-3;
	if (nd) {
		/* median by partial selection: a sort is cheap at <= bins values */
		for (size_t i = 1; i < nd; i++) {
			double v = dxs[i];
			size_t j = i;
			while (j > 0 && dxs[j - 1] > v) {
				dxs[j] = dxs[j - 1];
				j--;
			}
			dxs[j] = v;
		}
		med = dxs[nd / 2];
	}
	free(dxs);
	double lmin = 2 * med > 1e-3 ? 2 * med : 1e-3, lmax = 2.0;
	double emin = 1e-6, emax = 1e2;
	unsigned nl = o->n_len >= 2 ? o->n_len : 20, ne = o->n_eta >= 2 ? o->n_eta : 10;
	double best = -INFINITY, bl = 0.1, be = 0.01, bs2 = 1;
	double dl = log(lmax / lmin) / (nl - 1), de = log(emax / emin) / (ne - 1);
	for (unsigned i = 0; i < nl; i++)
		for (unsigned j = 0; j < ne; j++) {
			double l = lmin * exp(dl * i), e = emin * exp(de * j), s2;
			double ll = loglik(ob, N, l, e, &s2);
			if (ll > best) {
				best = ll;
				bl = l;
				be = e;
				bs2 = s2;
			}
		}
	double cl = bl, ce = be;
	for (int i = -2; i <= 2; i++)
		for (int j = -2; j <= 2; j++) {
			double l = cl * exp(dl * i / 3.0), e = ce * exp(de * j / 3.0), s2;
			if (l > lmax * 2)
				continue;
			double ll = loglik(ob, N, l, e, &s2);
			if (ll > best) {
				best = ll;
				bl = l;
				be = e;
				bs2 = s2;
			}
		}
	r->length_scale = bl;
	r->eta = be;
	r->s2 = bs2;
	r->loglik = best;

	/* Final pass: filter over observations and prediction points merged by x, then RTS. */
	size_t M = N + G;
	gx = malloc(M * sizeof *gx);
	gR = malloc(M * sizeof *gR);
	size_t *gi = malloc(G * sizeof *gi);
	double *ry = malloc(M * sizeof *ry);
	mf = malloc(M * sizeof *mf);
	mp = malloc(M * sizeof *mp);
	Pf = malloc(M * sizeof *Pf);
	Pp = malloc(M * sizeof *Pp);
	Am = malloc(M * sizeof *Am);
	if (!gi || !ry || !gx || !gR || !mf || !mp || !Pf || !Pp || !Am) {
		free(gi);
		free(ry);
		goto out;
	}
	size_t a = 0, b = 0, m = 0;
	while (a < N || b < G) {
		if (b >= G || (a < N && ob[a].x <= grid[b])) {
			gx[m] = ob[a].x;
			gR[m] = be / ob[a].w;
			ry[m] = ob[a].r;
			a++;
		} else {
			gx[m] = grid[b];
			gR[m] = INFINITY;
			ry[m] = 0;
			gi[b] = m;
			b++;
		}
		m++;
	}
	double lam = sqrt(3.0) / bl;
	v2 mm = {0, 0};
	m2 P = {1, 0, 0, lam * lam};
	for (size_t k = 0; k < M; k++) {
		if (k) {
			m2 A, Q;
			transition(lam, gx[k] - gx[k - 1], &A, &Q);
			mm = mv(A, mm);
			P = add(mul(mul(A, P), tr(A)), Q);
			Am[k] = A;
		} else {
			Am[k] = (m2){1, 0, 0, 1};
		}
		mp[k] = mm;
		Pp[k] = P;
		if (isfinite(gR[k])) {
			double S = P.a + gR[k];
			double v = ry[k] - mm.p;
			double K0 = P.a / S, K1 = P.c / S;
			mm.p += K0 * v;
			mm.q += K1 * v;
			P = (m2){P.a - K0 * P.a, P.b - K0 * P.b, P.c - K1 * P.a, P.d - K1 * P.b};
		}
		mf[k] = mm;
		Pf[k] = P;
	}
	/* RTS smoother, in place in mf/Pf. */
	for (size_t k = M - 1; k-- > 0;) {
		m2 Ppj = Pp[k + 1];
		Ppj.a += 1e-12;
		Ppj.d += 1e-12 * lam * lam;
		m2 Gk = mul(mul(Pf[k], tr(Am[k + 1])), inv(Ppj));
		v2 dm = {mf[k + 1].p - mp[k + 1].p, mf[k + 1].q - mp[k + 1].q};
		v2 corr = mv(Gk, dm);
		mf[k].p += corr.p;
		mf[k].q += corr.q;
		Pf[k] = add(Pf[k], mul(mul(Gk, sub(Pf[k + 1], Pp[k + 1])), tr(Gk)));
	}
	free(ry);
	r->n = G;
	r->cum = malloc(G * sizeof *r->cum);
	r->rate = malloc(G * sizeof *r->rate);
	r->rate_lo = malloc(G * sizeof *r->rate_lo);
	r->rate_hi = malloc(G * sizeof *r->rate_hi);
	double *wbuf = malloc(G * sizeof *wbuf);
	lenbuf = malloc(G * sizeof *lenbuf);
	if (!r->cum || !r->rate || !r->rate_lo || !r->rate_hi || !wbuf || !lenbuf) {
		free(gi);
		free(wbuf);
		goto out;
	}
	for (size_t j = 0; j < G; j++) {
		size_t k = gi[j];
		double sd = sqrt(fmax(0, bs2 * Pf[k].d));
		double rate = 1 + mf[k].q;
		r->cum[j] = grid[j] + mf[k].p;
		r->rate[j] = rate > 0 ? rate : 0;
		r->rate_lo[j] = rate - 1.96 * sd > 0 ? rate - 1.96 * sd : 0;
		r->rate_hi[j] = rate + 1.96 * sd > 0 ? rate + 1.96 * sd : 0;
	}
	free(gi);
	pava(r->cum, G, wbuf, lenbuf);
	free(wbuf);
	for (size_t j = 0; j < G; j++)
		r->cum[j] = r->cum[j] < 0 ? 0 : r->cum[j] > 1 ? 1 : r->cum[j];
	/* RMS of the points against the curve (linear interpolation on the grid). */
	double ss = 0;
	for (size_t i = 0; i < n; i++) {
		double xi = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i];
		size_t lo = 0, hi = G - 1;
		while (hi - lo > 1) {
			size_t mid = (lo + hi) / 2;
			if (grid[mid] <= xi)
				lo = mid;
			else
				hi = mid;
		}
		double t = grid[hi] > grid[lo] ? (xi - grid[lo]) / (grid[hi] - grid[lo]) : 0;
		t = t < 0 ? 0 : t > 1 ? 1 : t;
		double c = r->cum[lo] + t * (r->cum[hi] - r->cum[lo]);
		ss += (y[i] - c) * (y[i] - c);
	}
	r->rms = sqrt(ss / (double)n);
	rc = 0;
out:
	if (rc)
		kriging__result_free(r);
	free(ob);
	free(pts);
	free(gx);
	free(gR);
	free(mf);
	free(mp);
	free(Pf);
	free(Pp);
	free(Am);
	free(lenbuf);
	return rc;
}
