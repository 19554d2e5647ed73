/* uncertainty.c: bootstrap intervals and the self-check (see uncertainty.h). */
#include "uncertainty.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* What the bootstrap and the checks resample: the series ps and their main
 * fit pr (fitted with po), the instances that carry points (present[nid]
 * flags; ids[nu] their list, NULL where not needed), and the scratch of a
 * draw: mult[nid] (how often each instance is taken) and offset[nid]. */
typedef struct uncertainty__resampling {
	const pwlr__series *ps;
	size_t nps;
	const pwlr__opts *po;
	const pwlr__result *pr;
	uint32_t nid;
	const uint8_t *present;
	const uint32_t *ids;
	uint32_t nu;
	uint32_t *mult, *offset;
} uncertainty__resampling;

static uint64_t splitmix(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

/* Bootstrap re-fits use a coarser candidate grid (the boundaries are then refined
 * on the points, pwlr.h step 7): the segmentation's cost grows with the
 * square of the cells, and 30-odd re-fits must not cost more than the
 * analysis itself. */
#define FOLD__REFIT_CELLS 100
/* A bootstrap replicate draws m of the n instances (m-out-of-n) so that it
 * holds about this many points; its deviations from the main fit are
 * scaled by sqrt(m / n) (the spread of an estimate falls as 1/sqrt(size)). */
#define FOLD__REFIT_POINTS 8000

/* Fits the series with instance i taken mult[i] times (as distinct
 * instances; coarse: on the bootstrap's grid). Returns 0, 1 (nothing to fit) or -ENOMEM. */
static int refit(const pwlr__series *ps, size_t nps, const pwlr__opts *po_main, const uint32_t *mult,
                 const uint32_t *offset, pwlr__result *out, int coarse)
{
	pwlr__opts ro = *po_main;
	if (coarse && ro.cells > FOLD__REFIT_CELLS)
		ro.cells = FOLD__REFIT_CELLS;
	const pwlr__opts *po = &ro;
	pwlr__series *s = calloc(nps, sizeof *s);
	int rc = -ENOMEM;
	if (!s)
		return -ENOMEM;
	for (size_t k = 0; k < nps; k++) {
		size_t n = 0;
		for (size_t i = 0; i < ps[k].n; i++)
			n += mult[ps[k].inst[i]];
		double *x = malloc((n + 1) * sizeof *x), *y = malloc((n + 1) * sizeof *y);
		uint32_t *id = malloc((n + 1) * sizeof *id);
		s[k] = (pwlr__series){x, y, 0, id, ps[k].rates_only};
		if (!x || !y || !id)
			goto out;
		size_t m = 0;
		for (size_t i = 0; i < ps[k].n; i++)
			for (uint32_t c = 0; c < mult[ps[k].inst[i]]; c++) {
				x[m] = ps[k].x[i];
				y[m] = ps[k].y[i];
				id[m++] = offset[ps[k].inst[i]] + c;
			}
		s[k].n = m;
	}
	rc = pwlr__fit(s, nps, po, out);
	if (rc == -EINVAL)
		rc = 1;
out:
	for (size_t k = 0; k < nps; k++) {
		free((void *)s[k].x);
		free((void *)s[k].y);
		free((void *)s[k].inst);
	}
	free(s);
	return rc;
}

static void offsets(const uint32_t *mult, uint32_t n, uint32_t *offset)
{
	uint32_t o = 0;
	for (uint32_t i = 0; i < n; i++) {
		offset[i] = o;
		o += mult[i];
	}
}

/* The boundary of f nearest to x (NAN when f has none). */
static double nearest(const pwlr__result *f, double x)
{
	double best = NAN;
	for (size_t j = 1; j < f->nseg; j++)
		if (isnan(best) || fabs(f->bounds[j] - x) < fabs(best - x))
			best = f->bounds[j];
	return best;
}

/* The boundary of replicate f that stands for pr's boundary j: the one of
 * f nearest to it among those whose own nearest boundary of pr is j; NAN
 * when the replicate found none there (every boundary of f near it is
 * nearer another of pr's). nearest() lets one boundary of f stand for
 * two of pr's: replicates that found only MPI_Allgather's boundary at 0.40
 * gave its boundaries at 0.135 and 0.27 the interval [0.39, 0.41] too,
 * which does not hold them, and they stayed as located. */
static double matched(const pwlr__result *f, const pwlr__result *pr, size_t j)
{
	double x = pr->bounds[j], best = NAN;
	for (size_t i = 1; i < f->nseg; i++) {
		double b = f->bounds[i];
		size_t q = 1;
		for (size_t t = 2; t < pr->nseg; t++)
			if (fabs(pr->bounds[t] - b) < fabs(pr->bounds[q] - b))
				q = t;
		if (q == j && (isnan(best) || fabs(b - x) < fabs(best - x)))
			best = b;
	}
	return best;
}

/* Mean relative slope of series k of f over phase p's interior of pr. */
static double interior_slope(const pwlr__result *f, size_t k, const pwlr__result *pr, size_t p)
{
	double a = pr->bounds[p], b = pr->bounds[p + 1], m = 0.15 * (b - a);
	if (!(b - a - 2 * m > 0))
		return NAN;
	return (pwlr__cum(f, k, b - m) - pwlr__cum(f, k, a + m)) / (b - a - 2 * m);
}

/* Halves hold at most this many points (every step-th instance of the
 * half, step = ceil(points / this)), so the self-check's and the duration
 * split's four re-fits stay cheap on big regions; the alignment's duration
 * split (uncertainty__duration_shift), which decides on warping, 4 times as many. */
#define FOLD__HALF_POINTS 8000

/* step for thinning a half of the instances of ps */
static uint32_t half_step(const pwlr__series *ps, size_t nps, size_t cap)
{
	size_t npts = 0;
	for (size_t k = 0; k < nps; k++)
		npts = ps[k].n > npts ? ps[k].n : npts;
	return npts / 2 > cap ? (uint32_t)((npts / 2 + cap - 1) / cap) : 1;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* 5th and 95th percentiles of the non-NAN v[0..n) (reorders v). */
static void interval(double *v, size_t n, double *lo, double *hi)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(v[i]))
			v[m++] = v[i];
	*lo = *hi = NAN;
	if (m < 5)
		return;
	qsort(v, m, sizeof *v, cmp_dbl);
	*lo = v[(size_t)floor(0.05 * (double)(m - 1))];
	*hi = v[(size_t)ceil(0.95 * (double)(m - 1))];
}

/* The self-check's floors (the fidelity targets: a disagreement below them
 * is never a failure) and, without bootstrap intervals, its fixed limits. */
#define FOLD__CHECK_BOUNDARY 0.01
#define FOLD__CHECK_RATE 0.03
#define FOLD__CHECK_BOUNDARY_FIXED 0.05
#define FOLD__CHECK_RATE_FIXED 0.10
#define FOLD__CHECK_GAPS 4.0

/* Fits two halves of the instances apart (coarse): h[half] when ok[half],
 * cnt[half] instances each. */
static void fit_halves(const uncertainty__resampling *rs, pwlr__result h[2], size_t cnt[2], int ok[2])
{
	const pwlr__series *ps = rs->ps;
	size_t nps = rs->nps;
	uint32_t nid = rs->nid;
	const uint8_t *present = rs->present;
	uint32_t *mult = rs->mult, *offset = rs->offset;
	/* The odd and the even instances by id; when the ids of the folded
	 * instances do not alternate (a miniMD burst on 2 ranks folded only odd
	 * ids: one half empty, no self-check), the odd and the even of them in
	 * their order. */
	uint32_t by_id[2] = {0, 0};
	for (uint32_t i = 0; i < nid; i++)
		by_id[i % 2] += present[i] != 0;
	uint32_t small = by_id[0] < by_id[1] ? by_id[0] : by_id[1];
	int by_order = small < 2 || 4 * small < by_id[0] + by_id[1];
	for (int half = 0; half < 2; half++) {
		uint32_t step = half_step(ps, nps, FOLD__HALF_POINTS), rank = 0, nth = 0;
		for (uint32_t i = 0; i < nid; i++) {
			mult[i] = !present[i] ? 0
			          : by_order  ? (nth++ % 2) == (uint32_t)half
			                      : (i % 2) == (uint32_t)half;
			if (mult[i] && rank++ % step)
				mult[i] = 0;
			cnt[half] += mult[i];
		}
		offsets(mult, nid, offset);
		ok[half] = cnt[half] >= 2 && refit(ps, nps, rs->po, mult, offset, &h[half], 1) == 0;
	}
}

static void self_check(const uncertainty__resampling *rs, uncertainty__result *u)
{
	const pwlr__series *ps = rs->ps;
	size_t nps = rs->nps;
	const pwlr__result *pr = rs->pr;
	uint32_t nid = rs->nid;
	const uint8_t *present = rs->present;
	pwlr__result h[2];
	int ok[2] = {0, 0};
	size_t cnt[2] = {0, 0};
	memset(h, 0, sizeof h);
	fit_halves(rs, h, cnt, ok);
	if (!(ok[0] && ok[1]))
		u->check_why_not = cnt[0] < 2 || cnt[1] < 2
		                       ? "fewer than 4 folded instances carry samples: no two halves to fold"
		                       : "a half of the instances could not be folded on its own";
	if (ok[0] && ok[1]) {
		u->checked = 1;
		u->ninst_a = cnt[0];
		u->ninst_b = cnt[1];
		u->nseg_a = h[0].nseg;
		u->nseg_b = h[1].nseg;
		/* A 90% bootstrap half-width hw is 1.645 standard errors of the
		 * whole fit; each half has cnt of the nu instances, so the halves'
		 * difference has sqrt(nu/cnt_a + nu/cnt_b) of those errors, allowed
		 * up to 2.576 of them (99%). */
		uint32_t nu = 0;
		for (uint32_t i = 0; i < nid; i++)
			nu += present[i] != 0;
		double widen =
		    2.576 / 1.645 * sqrt((double)nu / (double)cnt[0] + (double)nu / (double)cnt[1]);
		/* A change point sits between two folded points: independent halves
		 * place it some point gaps apart, which the bootstrap, resampling
		 * the same points, does not see (it is known to be too narrow for
		 * change points). A boundary may differ by FOLD__CHECK_GAPS of the
		 * sparser half's mean point spacing. */
		size_t npts = 0;
		for (size_t k = 0; k < nps; k++)
			if (!ps[k].rates_only && ps[k].n > npts)
				npts = ps[k].n;
		double half_pts =
		    (double)npts * (double)(cnt[0] < cnt[1] ? cnt[0] : cnt[1]) / (double)(nu ? nu : 1);
		double gap_floor = half_pts > 0 ? FOLD__CHECK_GAPS / half_pts : 1;
		double bd = 0, rd = 0, excess = 0, ballow = FOLD__CHECK_BOUNDARY, rallow = FOLD__CHECK_RATE;
		for (size_t j = 1; j < pr->nseg; j++) {
			double a = nearest(&h[0], pr->bounds[j]), b = nearest(&h[1], pr->bounds[j]);
			double d = isnan(a) || isnan(b) ? 1 : fabs(a - b);
			double hw = 0.5 * (u->bhi[j] - u->blo[j]);
			double allow = isnan(hw) ? FOLD__CHECK_BOUNDARY_FIXED
			                         : fmax(fmax(FOLD__CHECK_BOUNDARY, widen * hw), gap_floor);
			if (d >= bd) {
				bd = d;
				ballow = allow;
			}
			if (d / allow > excess) {
				excess = d / allow;
				u->check_worst = d;
				u->check_worst_allowed = allow;
				u->check_worst_rate = 0;
			}
		}
		double rexcess = 0;
		for (size_t p = 0; p < pr->nseg; p++)
			for (size_t k = 0; k < nps; k++) {
				if (ps[k].rates_only)
					continue;
				double a = interior_slope(&h[0], k, pr, p),
				       b = interior_slope(&h[1], k, pr, p);
				double mean = 0.5 * (a + b);
				if (isnan(a) || isnan(b) || !(mean > 1e-9))
					continue;
				double d = fabs(a - b) / mean;
				double hw =
				    u->rlo
				        ? 0.5 * (u->rhi[k * pr->nseg + p] - u->rlo[k * pr->nseg + p]) / mean
				        : NAN;
				double allow =
				    isnan(hw) ? FOLD__CHECK_RATE_FIXED : fmax(FOLD__CHECK_RATE, widen * hw);
				if (d >= rd) {
					rd = d;
					rallow = allow;
				}
				if (d / allow > rexcess) {
					rexcess = d / allow;
					if (rexcess > excess) {
						u->check_worst = d;
						u->check_worst_allowed = allow;
						u->check_worst_rate = 1;
					}
				}
			}
		u->check_boundary = bd;
		u->check_rate = rd;
		u->check_boundary_allowed = ballow;
		u->check_rate_allowed = rallow;
		u->check_excess = fmax(excess, rexcess);
	}
	for (int half = 0; half < 2; half++)
		if (ok[half])
			pwlr__result_free(&h[half]);
}

/* Fits the shorter and the longer half of the instances apart and finds
 * the boundary of pr whose counterparts move most between them. */
static void duration_split(const uncertainty__resampling *rs, const double *dur, uncertainty__result *u,
                           int coarse)
{
	const pwlr__series *ps = rs->ps;
	size_t nps = rs->nps;
	const pwlr__opts *po = rs->po;
	const pwlr__result *pr = rs->pr;
	uint32_t nid = rs->nid;
	const uint8_t *present = rs->present;
	uint32_t *mult = rs->mult, *offset = rs->offset;
	double *v = malloc((nid + 1) * sizeof *v);
	size_t m = 0;
	if (!v || pr->nseg < 2)
		goto out;
	for (uint32_t i = 0; i < nid; i++)
		if (present[i])
			v[m++] = dur[i];
	if (m < 8)
		goto out;
	qsort(v, m, sizeof *v, cmp_dbl);
	double med = v[m / 2];
	pwlr__result h[2];
	int ok[2] = {0, 0};
	for (int half = 0; half < 2; half++) {
		size_t cnt = 0;
		uint32_t step = half_step(ps, nps, coarse ? FOLD__HALF_POINTS : 4 * FOLD__HALF_POINTS),
		         rank = 0;
		for (uint32_t i = 0; i < nid; i++) {
			mult[i] = present[i] && (half ? dur[i] >= med : dur[i] < med);
			if (mult[i] && rank++ % step)
				mult[i] = 0;
			cnt += mult[i];
		}
		offsets(mult, nid, offset);
		ok[half] = cnt >= 4 && refit(ps, nps, po, mult, offset, &h[half], coarse) == 0;
	}
	if (ok[0] && ok[1]) {
		double worst = -1;
		for (size_t j = 1; j < pr->nseg; j++) {
			double a = nearest(&h[0], pr->bounds[j]), b = nearest(&h[1], pr->bounds[j]);
			if (isnan(a) || isnan(b) || fabs(a - b) <= worst)
				continue;
			worst = fabs(a - b);
			u->dur_boundary = j;
			u->dur_short = a;
			u->dur_long = b;
		}
		u->dur_checked = worst >= 0;
	}
	for (int half = 0; half < 2; half++)
		if (ok[half])
			pwlr__result_free(&h[half]);
out:
	free(v);
}

/* The bootstrap: replicates re-fits, each of m of the nu instances drawn
 * with replacement, and from them the 90% intervals of pr's boundaries and
 * rates in u. bv, rv: scratch for the replicates' boundaries and rates. */
static int bootstrap(const uncertainty__resampling *rs, unsigned replicates, uint64_t seed, double *bv,
                     double *rv, uncertainty__result *u)
{
	const pwlr__series *ps = rs->ps;
	size_t nps = rs->nps;
	const pwlr__opts *po = rs->po;
	const pwlr__result *pr = rs->pr;
	uint32_t nid = rs->nid, nu = rs->nu;
	const uint32_t *ids = rs->ids;
	uint32_t *mult = rs->mult, *offset = rs->offset;
	size_t K = pr->nseg;
	uint64_t st = seed * 0x2545f4914f6cdd1dull + 0x13;
	unsigned got = 0;
	size_t npts = 0;
	for (size_t k = 0; k < nps; k++)
		npts = ps[k].n > npts ? ps[k].n : npts;
	uint32_t m = nu;
	if (npts > FOLD__REFIT_POINTS) {
		double f = (double)FOLD__REFIT_POINTS / (double)npts;
		m = (uint32_t)ceil(f * nu);
		m = m < 30 ? (nu < 30 ? nu : 30) : m;
	}
	double scale = sqrt((double)m / (double)nu);
	unsigned found[FOLD_PWLR_MAX_SEGMENTS + 1] = {0}; /* replicates that found boundary j (matched) */
	for (unsigned b = 0; b < replicates; b++) {
		memset(mult, 0, (nid + 1) * sizeof *mult);
		for (uint32_t i = 0; i < m; i++)
			mult[ids[splitmix(&st) % nu]]++;
		offsets(mult, nid, offset);
		pwlr__result f;
		int r = refit(ps, nps, po, mult, offset, &f, 1);
		if (r < 0) {
			return r;
		}
		if (r > 0)
			continue;
		for (size_t j = 1; j < K; j++) {
			bv[(size_t)got * (K + 1) + j] =
			    pr->bounds[j] + scale * (nearest(&f, pr->bounds[j]) - pr->bounds[j]);
			found[j] += !isnan(matched(&f, pr, j));
		}
		for (size_t k = 0; k < nps; k++)
			for (size_t p = 0; p < K; p++) {
				double main = interior_slope(pr, k, pr, p);
				rv[((size_t)got * nps + k) * K + p] =
				    main + scale * (interior_slope(&f, k, pr, p) - main);
			}
		got++;
		pwlr__result_free(&f);
	}
	u->replicates = got;
	double *tmp = malloc((got + 1) * sizeof *tmp);
	if (!tmp)
		return -ENOMEM;
	for (size_t j = 1; j < K; j++) {
		for (unsigned b = 0; b < got; b++)
			tmp[b] = bv[(size_t)b * (K + 1) + j];
		interval(tmp, got, &u->blo[j], &u->bhi[j]);
		/* a boundary fewer than half the replicates found near it (their
		 * nearest stands for another): not located, it may be anywhere
		 * between its neighbours too; and an interval holds its boundary */
		if (got && 2 * found[j] < got && !isnan(u->blo[j])) {
			u->blo[j] = fmin(u->blo[j], pr->bounds[j - 1]);
			u->bhi[j] = fmax(u->bhi[j], pr->bounds[j + 1]);
		}
		if (!isnan(u->blo[j])) {
			u->blo[j] = fmin(u->blo[j], pr->bounds[j]);
			u->bhi[j] = fmax(u->bhi[j], pr->bounds[j]);
		}
	}
	for (size_t k = 0; k < nps; k++)
		for (size_t p = 0; p < K; p++) {
			for (unsigned b = 0; b < got; b++)
				tmp[b] = rv[((size_t)b * nps + k) * K + p];
			interval(tmp, got, &u->rlo[k * K + p], &u->rhi[k * K + p]);
		}
	free(tmp);
	return 0;
}

int uncertainty__estimate(const pwlr__series *ps, size_t nps, const pwlr__opts *po, const pwlr__result *pr,
                          unsigned replicates, uint64_t seed, const double *dur, uncertainty__result *u)
{
	memset(u, 0, sizeof *u);
	size_t K = pr->nseg;
	for (size_t j = 0; j <= K; j++)
		u->blo[j] = u->bhi[j] = pr->bounds[j];
	u->rlo = malloc((nps * K + 1) * sizeof *u->rlo);
	u->rhi = malloc((nps * K + 1) * sizeof *u->rhi);
	u->rmid = malloc((nps * K + 1) * sizeof *u->rmid);
	if (!u->rlo || !u->rhi || !u->rmid)
		return -ENOMEM;
	for (size_t i = 0; i < nps * K; i++)
		u->rlo[i] = u->rhi[i] = NAN;
	for (size_t k = 0; k < nps; k++)
		for (size_t p = 0; p < K; p++)
			u->rmid[k * K + p] = interior_slope(pr, k, pr, p);
	uint32_t nid = 0;
	for (size_t k = 0; k < nps; k++) {
		if (!ps[k].inst) {
			u->check_why_not = "its points carry no instance to resample";
			return 0; /* points without instances: nothing to resample */
		}
		for (size_t i = 0; i < ps[k].n; i++)
			if (ps[k].inst[i] + 1 > nid)
				nid = ps[k].inst[i] + 1;
	}
	uint8_t *present = calloc(nid + 1, 1);
	uint32_t *ids = malloc((nid + 1) * sizeof *ids), *mult = calloc(nid + 1, sizeof *mult);
	uint32_t *offset = malloc((nid + 1) * sizeof *offset);
	double *bv = malloc(((size_t)replicates * (K + 1) + 1) * sizeof *bv);
	double *rv = malloc(((size_t)replicates * nps * K + 1) * sizeof *rv);
	int rc = -ENOMEM;
	if (!present || !ids || !mult || !offset || !bv || !rv)
		goto out;
	uint32_t nu = 0;
	for (size_t k = 0; k < nps; k++)
		for (size_t i = 0; i < ps[k].n; i++)
			present[ps[k].inst[i]] = 1;
	for (uint32_t i = 0; i < nid; i++)
		if (present[i])
			ids[nu++] = i;
	rc = 0;
	if (nu < 4) {
		u->check_why_not = "fewer than 4 folded instances carry samples: no two halves to fold";
		goto out;
	}
	uncertainty__resampling rs = {ps, nps, po, pr, nid, present, ids, nu, mult, offset};
	if ((rc = bootstrap(&rs, replicates, seed, bv, rv, u)))
		goto out;
	self_check(&rs, u);
	if (dur)
		duration_split(&rs, dur, u, 1);
out:
	free(present);
	free(ids);
	free(mult);
	free(offset);
	free(bv);
	free(rv);
	return rc;
}

void uncertainty__result_free(uncertainty__result *u)
{
	free(u->rlo);
	free(u->rhi);
	free(u->rmid);
	u->rlo = u->rhi = u->rmid = NULL;
}

int uncertainty__duration_shift(const pwlr__series *ps, size_t nps, const pwlr__opts *po,
                                const pwlr__result *pr, const double *dur, size_t *j, double *at_short,
                                double *at_long)
{
	uint32_t nid = 0;
	for (size_t k = 0; k < nps; k++) {
		if (!ps[k].inst)
			return 0;
		for (size_t i = 0; i < ps[k].n; i++)
			if (ps[k].inst[i] + 1 > nid)
				nid = ps[k].inst[i] + 1;
	}
	uint8_t *present = calloc(nid + 1, 1);
	uint32_t *mult = calloc(nid + 1, sizeof *mult), *offset = malloc((nid + 1) * sizeof *offset);
	int rc = -ENOMEM;
	if (present && mult && offset) {
		for (size_t k = 0; k < nps; k++)
			for (size_t i = 0; i < ps[k].n; i++)
				present[ps[k].inst[i]] = 1;
		uncertainty__result u;
		memset(&u, 0, sizeof u);
		duration_split(
		    &(uncertainty__resampling){ps, nps, po, pr, nid, present, NULL, 0, mult, offset}, dur, &u,
		    0);
		rc = u.dur_checked;
		*j = u.dur_boundary;
		*at_short = u.dur_short;
		*at_long = u.dur_long;
	}
	free(present);
	free(mult);
	free(offset);
	return rc;
}
