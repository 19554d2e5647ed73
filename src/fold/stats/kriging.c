/* kriging.c: O(N) Matern-3/2 Gaussian-process fit by Kalman filter and RTS
 * smoother (see kriging.h). All matrices are 2 x 2. */
#include "kriging.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

void kriging__opts_init(kriging__opts *o)
{
	o->bins = 1000;
	o->n_len = 20;
	o->n_eta = 10;
	o->seed = 1;
	o->folds = 5;
	o->inst = NULL;
	o->trend = NULL;
	o->trend_arg = NULL;
	o->zones = NULL;
	o->nzones = 0;
}

/* Bins of the cross-validation (when binning): the choice of (l, eta) is
 * coarse, and each of its fits costs O(bins). */
enum { CV_BINS = 250 };

typedef struct m2 {
	double a, b, c, d; /* [[a, b], [c, d]] */
} m2;

typedef struct v2 {
	double p, q;
} v2;

typedef struct obs {
	double x, r, w; /* position, residual y - trend, points behind it */
} obs;

typedef struct pt {
	double x, r, w; /* position (clamped to [0,1]), residual y - trend, weight */
	uint8_t fold;
} pt;

/* One smoothing problem: the observations ob (ascending x), the positions
 * px to predict at (ascending) and the hyper-parameters (l, eta). */
typedef struct kriging__problem {
	const obs *ob;
	size_t N;
	const double *px;
	size_t M;
	double ell, eta;
} kriging__problem;

/* Hyper-parameters (l, eta) and their score. */
typedef struct kriging__hyper {
	double l, eta, score;
} kriging__hyper;

/* The smoothed g at the grid: means pm[] and covariances pP[] at grid[G]. */
typedef struct kriging__posterior {
	const double *grid;
	size_t G;
	const v2 *pm;
	const m2 *pP;
} kriging__posterior;

static m2 mul(m2 x, m2 y)
{
	return (m2){x.a * y.a + x.b * y.c, x.a * y.b + x.b * y.d, x.c * y.a + x.d * y.c,
	            x.c * y.b + x.d * y.d};
}
static m2 tr(m2 x)
{
	return (m2){x.a, x.c, x.b, x.d};
}
static m2 add(m2 x, m2 y)
{
	return (m2){x.a + y.a, x.b + y.b, x.c + y.c, x.d + y.d};
}
static m2 sub(m2 x, m2 y)
{
	return (m2){x.a - y.a, x.b - y.b, x.c - y.c, x.d - y.d};
}
static v2 mv(m2 x, v2 v)
{
	return (v2){x.a * v.p + x.b * v.q, x.c * v.p + x.d * v.q};
}
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

static int cmp_pt(const void *p, const void *q)
{
	const pt *a = p, *b = q;
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

/* Workspace of the smoother: the filter's states over observations and
 * prediction points merged by x. */
typedef struct smoother {
	size_t cap;
	double *x, *R, *r;
	v2 *mf, *mp;
	m2 *Pf, *Pp, *A;
} smoother;

static void smoother_free(smoother *s)
{
	free(s->x);
	free(s->R);
	free(s->r);
	free(s->mf);
	free(s->mp);
	free(s->Pf);
	free(s->Pp);
	free(s->A);
	memset(s, 0, sizeof *s);
}

static int smoother_init(smoother *s, size_t cap)
{
	s->cap = cap;
	s->x = malloc(cap * sizeof *s->x);
	s->R = malloc(cap * sizeof *s->R);
	s->r = malloc(cap * sizeof *s->r);
	s->mf = malloc(cap * sizeof *s->mf);
	s->mp = malloc(cap * sizeof *s->mp);
	s->Pf = malloc(cap * sizeof *s->Pf);
	s->Pp = malloc(cap * sizeof *s->Pp);
	s->A = malloc(cap * sizeof *s->A);
	if (!s->x || !s->R || !s->r || !s->mf || !s->mp || !s->Pf || !s->Pp || !s->A) {
		smoother_free(s);
		return -ENOMEM;
	}
	return 0;
}

/* Posterior of g (in units of s2) at the M ascending positions q->px given
 * the N observations q->ob (ascending x): means in pm[], covariances in pP[] unless
 * NULL. Kalman filter over both merged by x, then the RTS smoother. */
static void smooth(smoother *s, const kriging__problem *q, v2 *pm, m2 *pP)
{
	const obs *ob = q->ob;
	const double *px = q->px;
	size_t N = q->N, M = q->M;
	double ell = q->ell, eta = q->eta;
	size_t a = 0, b = 0, m = 0;
	while (a < N || b < M) {
		if (b >= M || (a < N && ob[a].x <= px[b])) {
			s->x[m] = ob[a].x;
			s->R[m] = eta / ob[a].w;
			s->r[m] = ob[a].r;
			a++;
		} else {
			s->x[m] = px[b];
			s->R[m] = INFINITY;
			s->r[m] = 0;
			b++;
		}
		m++;
	}
	double lam = sqrt(3.0) / ell;
	v2 mm = {0, 0};
	m2 P = {1, 0, 0, lam * lam};
	for (size_t k = 0; k < m; k++) {
		if (k) {
			m2 A, Q;
			transition(lam, s->x[k] - s->x[k - 1], &A, &Q);
			mm = mv(A, mm);
			P = add(mul(mul(A, P), tr(A)), Q);
			s->A[k] = A;
		} else {
			s->A[k] = (m2){1, 0, 0, 1};
		}
		s->mp[k] = mm;
		s->Pp[k] = P;
		if (isfinite(s->R[k])) {
			double S = P.a + s->R[k];
			double v = s->r[k] - mm.p;
			double K0 = P.a / S, K1 = P.c / S;
			mm.p += K0 * v;
			mm.q += K1 * v;
			P = (m2){P.a - K0 * P.a, P.b - K0 * P.b, P.c - K1 * P.a, P.d - K1 * P.b};
		}
		s->mf[k] = mm;
		s->Pf[k] = P;
	}
	/* RTS smoother, in place in mf/Pf (covariances only when asked for) */
	for (size_t k = m - 1; k-- > 0;) {
		m2 Ppj = s->Pp[k + 1];
		Ppj.a += 1e-12;
		Ppj.d += 1e-12 * lam * lam;
		m2 Gk = mul(mul(s->Pf[k], tr(s->A[k + 1])), inv(Ppj));
		v2 dm = {s->mf[k + 1].p - s->mp[k + 1].p, s->mf[k + 1].q - s->mp[k + 1].q};
		v2 corr = mv(Gk, dm);
		s->mf[k].p += corr.p;
		s->mf[k].q += corr.q;
		if (pP)
			s->Pf[k] = add(s->Pf[k], mul(mul(Gk, sub(s->Pf[k + 1], s->Pp[k + 1])), tr(Gk)));
	}
	b = 0;
	for (size_t k = 0; k < m && b < M; k++)
		if (!isfinite(s->R[k])) {
			pm[b] = s->mf[k];
			if (pP)
				pP[b] = s->Pf[k];
			b++;
		}
}

/* Observations from the points p (ascending x unless binned): those with
 * (fold == k) == in, all when k < 0. Binned (B > 0): one per non-empty
 * equal-width bin at its points' mean x, acc[3B] scratch. Returns how many. */
static size_t collect(const pt *p, size_t n, int k, int in, size_t B, double *acc, obs *out)
{
	size_t N = 0;
	if (!B) {
		for (size_t i = 0; i < n; i++)
			if (k < 0 || (p[i].fold == k) == in)
				out[N++] = (obs){p[i].x, p[i].r, p[i].w};
		return N;
	}
	double *cnt = acc, *sx = acc + B, *sr = acc + 2 * B;
	memset(acc, 0, 3 * B * sizeof *acc);
	for (size_t i = 0; i < n; i++) {
		if (k >= 0 && (p[i].fold == k) != in)
			continue;
		size_t b = (size_t)(p[i].x * (double)B);
		if (b >= B)
			b = B - 1;
		cnt[b] += p[i].w;
		sx[b] += p[i].w * p[i].x;
		sr[b] += p[i].w * p[i].r;
	}
	for (size_t b = 0; b < B; b++)
		if (cnt[b] > 0)
			out[N++] = (obs){sx[b] / cnt[b], sr[b] / cnt[b], cnt[b]};
	return N;
}

/* Adds the anchors at x = 0 and 1, residual 0 (on the trend), around the
 * N observations at ob + 1 (of weight wsum in all). Returns N + 2. They
 * weigh ANCHOR_WEIGHT average observations: every instance's share is
 * exactly 0 at its entry and 1 at its exit, so the process is 0 there and
 * the rate's area over the instance is the trend's rise. As heavy as one
 * average observation, a smooth process passed them: the page faults of
 * CloverLeaf's time step (bursts in the middle of 8 long instances, a
 * nugget ratio of 198) rose by 1.18 of their events over the instance. */
static const double ANCHOR_WEIGHT = 1e6;

static size_t anchor(obs *ob, size_t N, double wsum)
{
	double wa = (N && wsum > 0 ? wsum / (double)N : 1) * ANCHOR_WEIGHT;
	ob[0] = (obs){0, 0, wa};
	ob[N + 1] = (obs){1, 0, wa};
	return N + 2;
}

/* Leave-instances-out cross-validation data: per fold, the training
 * observations (anchored) and the held-out ones. */
typedef struct cv {
	unsigned K;
	obs *train[256], *held[256];
	size_t ntrain[256], nheld[256];
	double fw[256]; /* held-out weight (points) per fold */
	double *px;     /* held-out positions of one fold */
	v2 *pm;         /* predictions there */
	double wsum;    /* held-out points in all */
	/* every (l, eta) tried: its error, and its error per fold in ferr */
	struct cand {
		double l, e, err;
	} * cand;
	double *ferr;
	size_t ncand, capcand;
} cv;

static void cv_free(cv *c)
{
	for (unsigned k = 0; k < c->K; k++) {
		free(c->train[k]);
		free(c->held[k]);
	}
	free(c->px);
	free(c->pm);
	free(c->cand);
	free(c->ferr);
	memset(c, 0, sizeof *c);
}

static int cv_init(cv *c, const pt *p, size_t n, unsigned K, size_t B, double *acc, size_t ncand)
{
	memset(c, 0, sizeof *c);
	c->K = K;
	size_t cap = (B ? B : n) + 2;
	c->px = malloc(cap * sizeof *c->px);
	c->pm = malloc(cap * sizeof *c->pm);
	c->capcand = ncand;
	c->cand = malloc(ncand * sizeof *c->cand);
	c->ferr = malloc(ncand * K * sizeof *c->ferr);
	if (!c->px || !c->pm || !c->cand || !c->ferr)
		return -ENOMEM;
	for (unsigned k = 0; k < K; k++) {
		c->train[k] = malloc(cap * sizeof *c->train[k]);
		c->held[k] = malloc(cap * sizeof *c->held[k]);
		if (!c->train[k] || !c->held[k])
			return -ENOMEM;
		size_t nt = collect(p, n, (int)k, 0, B, acc, c->train[k] + 1);
		double win = 0, wall = 0;
		for (size_t i = 0; i < n; i++) {
			win += p[i].fold == k ? p[i].w : 0;
			wall += p[i].w;
		}
		c->ntrain[k] = anchor(c->train[k], nt, wall - win);
		c->nheld[k] = collect(p, n, (int)k, 1, B, acc, c->held[k]);
		c->wsum += win;
		c->fw[k] = win;
	}
	return 0;
}

/* Mean squared error of the held-out points, each fold predicted by a fit
 * without it (bin means stand for their points: the spread inside a bin
 * does not depend on the fit). */
static double cv_error(cv *c, smoother *s, double ell, double eta)
{
	double ss = 0, *fe = c->ncand < c->capcand ? c->ferr + c->ncand * c->K : NULL;
	for (unsigned k = 0; k < c->K; k++) {
		const obs *h = c->held[k];
		size_t M = c->nheld[k];
		double sk = 0;
		for (size_t j = 0; j < M; j++)
			c->px[j] = h[j].x;
		if (M)
			smooth(s, &(kriging__problem){c->train[k], c->ntrain[k], c->px, M, ell, eta}, c->pm,
			       NULL);
		for (size_t j = 0; j < M; j++) {
			double e = h[j].r - c->pm[j].p;
			sk += h[j].w * e * e;
		}
		ss += sk;
		if (fe)
			fe[k] = c->fw[k] > 0 ? sk / c->fw[k] : 0;
	}
	double err = c->wsum > 0 ? ss / c->wsum : INFINITY;
	if (fe)
		c->cand[c->ncand++] = (struct cand){ell, eta, err};
	return err;
}

/* The smoothest (l, eta) tried whose CV error is within one standard
 * error (over the folds) of the least: the one-standard-error rule. Where
 * the CV error is flat, as it is where the phases explain the data, the
 * noise of the folds would otherwise pick a rough curve. Smoothness: the
 * smoother's bandwidth grows as eta^(1/4) l^(3/4). */
static void cv_choose(const cv *c, double *bl, double *be, double *err)
{
	size_t best = 0, K = c->K;
	if (!c->ncand)
		return;
	for (size_t m = 1; m < c->ncand; m++)
		if (c->cand[m].err < c->cand[best].err)
			best = m;
	double s1 = 0, s2 = 0;
	for (size_t k = 0; k < K; k++) {
		s1 += c->ferr[best * K + k];
		s2 += c->ferr[best * K + k] * c->ferr[best * K + k];
	}
	double se = sqrt(fmax(0, (s2 - s1 * s1 / (double)K) / (double)(K - 1)) / (double)K);
	size_t pick = best;
	double smooth_pick = -INFINITY;
	for (size_t m = 0; m < c->ncand; m++) {
		double sm = log(c->cand[m].e) + 3 * log(c->cand[m].l);
		if (c->cand[m].err <= c->cand[best].err + se && sm > smooth_pick) {
			smooth_pick = sm;
			pick = m;
		}
	}
	*bl = c->cand[pick].l;
	*be = c->cand[pick].e;
	*err = c->cand[pick].err;
}

/* The hyper-parameter grid: l in [max(2 median dx, 1e-3), 2], eta in [1e-6, 1e2]. */
typedef struct hgrid {
	double lmin, lmax, emin, emax, dl, de;
	unsigned nl, ne;
} hgrid;

static void hgrid_init(hgrid *h, const obs *ob, size_t N, const kriging__opts *o, double *dxs)
{
	size_t nd = 0;
	for (size_t k = 1; k < N; k++)
		if (ob[k].x > ob[k - 1].x)
			dxs[nd++] = ob[k].x - ob[k - 1].x;
	double med = 1e-3;
	if (nd) {
		/* insertion sort: cheap at <= bins values, already nearly sorted */
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
	h->lmin = 2 * med > 1e-3 ? 2 * med : 1e-3;
	h->lmax = 2.0;
	h->emin = 1e-6;
	h->emax = 1e2;
	h->nl = o->n_len >= 2 ? o->n_len : 20;
	h->ne = o->n_eta >= 2 ? o->n_eta : 10;
	h->dl = log(h->lmax / h->lmin) / (h->nl - 1);
	h->de = log(h->emax / h->emin) / (h->ne - 1);
}

/* Score of (l, eta): the log-likelihood, or minus the CV error when c. */
static double score(const obs *ob, size_t N, cv *c, smoother *s, double l, double e)
{
	double s2;
	return c ? -cv_error(c, s, l, e) : loglik(ob, N, l, e, &s2);
}

/* Grid search (every `step`-th point) then a 5 x 5 refinement around the best. */
static void search(const hgrid *h, const obs *ob, size_t N, cv *c, smoother *s, unsigned step,
                   kriging__hyper *best)
{
	best->score = -INFINITY;
	best->l = 0.1;
	best->eta = 0.01;
	for (unsigned i = 0; i < h->nl; i += step)
		for (unsigned j = 0; j < h->ne; j += step) {
			double l = h->lmin * exp(h->dl * i), e = h->emin * exp(h->de * j);
			double v = score(ob, N, c, s, l, e);
			if (v > best->score) {
				best->score = v;
				best->l = l;
				best->eta = e;
			}
		}
	double cl = best->l, ce = best->eta, f = step / 3.0;
	for (int i = -2; i <= 2; i++)
		for (int j = -2; j <= 2; j++) {
			double l = cl * exp(h->dl * i * f), e = ce * exp(h->de * j * f);
			if ((!i && !j) || l > h->lmax * 2)
				continue;
			double v = score(ob, N, c, s, l, e);
			if (v > best->score) {
				best->score = v;
				best->l = l;
				best->eta = e;
			}
		}
}

/* A point's weight: that of the zone holding x, else 1. */
static double zone_weight(const kriging__opts *o, double x)
{
	for (size_t k = 0; o->zones && k < o->nzones; k++)
		if (o->zones[k].a <= x && x < o->zones[k].b)
			return o->zones[k].weight;
	return 1;
}

static void trend_at(const kriging__opts *o, double x, double *cum, double *slope)
{
	if (o->trend) {
		o->trend(o->trend_arg, x, cum, slope);
	} else {
		*cum = x;
		*slope = 1;
	}
}

void kriging__result_free(kriging__result *r)
{
	free(r->cum);
	free(r->rate);
	free(r->rate_lo);
	free(r->rate_hi);
	free(r->slope);
	r->cum = r->rate = r->rate_lo = r->rate_hi = r->slope = NULL;
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

typedef struct ids {
	uint32_t *id; /* distinct instance ids, in order of appearance */
	size_t n, cap;
} ids;

static int same_id(const void *arg, size_t value)
{
	const ids *d = ((const void *const *)arg)[0];
	return d->id[value] == *(const uint32_t *)((const void *const *)arg)[1];
}

typedef struct ranked {
	uint32_t id, j; /* instance id, its index in ids */
} ranked;

static int cmp_ranked(const void *a, const void *b)
{
	uint32_t x = ((const ranked *)a)->id, y = ((const ranked *)b)->id;
	return x < y ? -1 : x > y;
}

/* Folds of the cross-validation: the distinct instances ranked by id, rank
 * r in fold r mod K, so every fold holds instances spread over the run.
 * K = `folds` with at least that many instances, as many folds as
 * instances (leave one out) with 3 or more, else no CV. Returns the folds
 * (0: none) or -ENOMEM. */
static int assign_folds(pt *p, const uint32_t *inst, size_t n, unsigned K, size_t *ninst)
{
	util_hmap seen = {0};
	ids d = {0};
	uint32_t *which = malloc(n * sizeof *which);
	ranked *order = NULL;
	int rc = -ENOMEM;
	if (!which)
		goto out;
	for (size_t i = 0; i < n; i++) {
		uint64_t h = util_hash_mix(inst[i], 0);
		const void *arg[2] = {&d, &inst[i]};
		size_t *v = util_hmap_find(&seen, h, same_id, arg);
		if (v) {
			which[i] = (uint32_t)*v;
			continue;
		}
		if (util_grow((void **)&d.id, &d.cap, d.n + 1, sizeof *d.id) ||
		    util_hmap_insert(&seen, h, d.n))
			goto out;
		which[i] = (uint32_t)d.n;
		d.id[d.n++] = inst[i];
	}
	unsigned k = d.n >= K ? K : d.n >= 3 ? (unsigned)d.n : 0;
	*ninst = d.n;
	rc = (int)k;
	if (!k)
		goto out;
	order = malloc(d.n * sizeof *order);
	if (!order) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t j = 0; j < d.n; j++)
		order[j] = (ranked){d.id[j], (uint32_t)j};
	qsort(order, d.n, sizeof *order, cmp_ranked);
	for (size_t r = 0; r < d.n; r++)
		d.id[order[r].j] = (uint32_t)(r % k); /* id -> its fold, in place */
	for (size_t i = 0; i < n; i++)
		p[i].fold = (uint8_t)d.id[which[i]];
out:
	util_hmap_free(&seen);
	free(d.id);
	free(which);
	free(order);
	return rc;
}

/* The curve at the grid from the smoothed g (pm, pP) and the trend:
 * cumulative (monotone, in [0,1]), rate and its 95% band, and the RMS of
 * the points against it. */
static int finish(kriging__result *r, const kriging__opts *o, const kriging__posterior *post, const double *x,
                  const double *y, size_t n)
{
	const double *grid = post->grid;
	size_t G = post->G;
	const v2 *pm = post->pm;
	const m2 *pP = post->pP;
	r->n = G;
	r->cum = malloc(G * sizeof *r->cum);
	r->rate = malloc(G * sizeof *r->rate);
	r->rate_lo = malloc(G * sizeof *r->rate_lo);
	r->rate_hi = malloc(G * sizeof *r->rate_hi);
	r->slope = malloc(G * sizeof *r->slope);
	double *wbuf = malloc(G * sizeof *wbuf);
	size_t *lenbuf = malloc(G * sizeof *lenbuf);
	if (!r->cum || !r->rate || !r->rate_lo || !r->rate_hi || !r->slope || !wbuf || !lenbuf) {
		free(wbuf);
		free(lenbuf);
		return -ENOMEM;
	}
	for (size_t j = 0; j < G; j++) {
		double m, slope;
		trend_at(o, grid[j], &m, &slope);
		double sd = sqrt(fmax(0, r->s2 * pP[j].d));
		double rate = slope + pm[j].q;
		r->cum[j] = m + pm[j].p;
		r->slope[j] = rate;
		r->rate[j] = rate > 0 ? rate : 0;
		r->rate_lo[j] = rate - 1.96 * sd > 0 ? rate - 1.96 * sd : 0;
		r->rate_hi[j] = rate + 1.96 * sd > 0 ? rate + 1.96 * sd : 0;
	}
	pava(r->cum, G, wbuf, lenbuf);
	free(wbuf);
	free(lenbuf);
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
	return 0;
}

int kriging__fit(const double *x, const double *y, size_t n, const kriging__opts *o, const double *grid,
                 size_t G, kriging__result *r)
{
	int rc = -ENOMEM;
	memset(r, 0, sizeof *r);
	r->cv_rmse = NAN;
	if (n < KRIGING__MIN_POINTS || G < 2)
		return -EINVAL;
	size_t B = o->bins ? o->bins : 1000;
	if (n <= B)
		B = 0; /* exact */
	size_t cap = (B ? B : n) + 2;
	unsigned K = o->folds >= 2 && o->folds <= 256 ? o->folds : 5;
	pt *p = malloc(n * sizeof *p);
	obs *ob = malloc(cap * sizeof *ob);
	double *acc = malloc((B ? 3 * B : 1) * sizeof *acc), *dxs = malloc(cap * sizeof *dxs);
	v2 *pm = malloc(G * sizeof *pm);
	m2 *pP = malloc(G * sizeof *pP);
	smoother s = {0};
	cv c = {0};
	if (!p || !ob || !acc || !dxs || !pm || !pP || smoother_init(&s, 2 * cap + G))
		goto out;
	double wsum = 0;
	for (size_t i = 0; i < n; i++) {
		double xi = x[i] < 0 ? 0 : x[i] > 1 ? 1 : x[i], m, slope;
		trend_at(o, xi, &m, &slope);
		p[i] = (pt){xi, y[i] - m, zone_weight(o, xi), 0};
		wsum += p[i].w;
	}
	int nfolds = 0;
	if (o->inst && (nfolds = assign_folds(p, o->inst, n, K, &r->ninst)) < 0) {
		rc = nfolds;
		goto out;
	}
	if (!B)
		qsort(p, n, sizeof *p, cmp_pt);
	size_t N = anchor(ob, collect(p, n, -1, 0, B, acc, ob + 1), wsum);
	if (B) {
		r->nbins = N - 2;
		snprintf(r->approximation, sizeof r->approximation,
		         "%zu points averaged in %zu bins of width %.4g; error <= |g''| w^2/8", n, N - 2,
		         1.0 / (double)B);
	} else {
		snprintf(r->approximation, sizeof r->approximation, "exact (%zu points, no binning)", n);
	}
	hgrid h;
	hgrid_init(&h, ob, N, o, dxs);
	kriging__hyper hp;
	if (nfolds) {
		if ((rc = cv_init(&c, p, n, (unsigned)nfolds, B && B > CV_BINS ? CV_BINS : B, acc,
		                  (size_t)h.nl * h.ne + 25)))
			goto out;
		search(&h, ob, N, &c, &s, 2, &hp);
		cv_choose(&c, &hp.l, &hp.eta, &hp.score);
		r->cv_rmse = sqrt(hp.score);
		r->folds = (unsigned)nfolds;
	} else {
		search(&h, ob, N, NULL, &s, 1, &hp);
		if (o->inst) {
			/* one or two instances carry the points: nothing tells their
			 * pattern from the population's, so the smoothest curve */
			hp.l = h.lmax;
			hp.eta = h.emax;
		}
	}
	r->length_scale = hp.l;
	r->eta = hp.eta;
	r->loglik = loglik(ob, N, hp.l, hp.eta, &r->s2);
	smooth(&s, &(kriging__problem){ob, N, grid, G, hp.l, hp.eta}, pm, pP);
	rc = finish(r, o, &(kriging__posterior){grid, G, pm, pP}, x, y, n);
out:
	if (rc)
		kriging__result_free(r);
	cv_free(&c);
	smoother_free(&s);
	free(p);
	free(ob);
	free(acc);
	free(dxs);
	free(pm);
	free(pP);
	return rc;
}
