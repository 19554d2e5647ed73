/* grouping.c: duration grouping and outlier rules (see grouping.h).
 *
 * The clustering works on "cells": the sorted log-durations themselves when
 * there are at most 1024, otherwise 512 equal-width histogram bins (the
 * within-bin spread h^2/12 is added to each cluster's variance, so binning
 * never makes a cluster look tighter than it is). The cost of a cluster is
 * its Gaussian negative log-likelihood with the mixing weight,
 * n_k (ln sigma_k + ln(n / n_k)); BIC = 2 NLL + (3K - 1) ln n.
 */
#include "grouping.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Adjacent duration clusters closer than this many (sd_a + sd_b) are one group. */
#define FOLD__SEPARATION 2.5

void grouping__opts_init(grouping__opts *o)
{
	o->outlier_k = 3.0;
	o->max_groups = 6;
	o->min_group_share = 0.02;
	o->min_group = 3;
	o->log_floor = 0.01;
	o->outlier_max_share = 0.03;
	o->outlier_max_time = 0.05;
	o->outlier_max_group_share = 0.10;
	o->max_out_groups = 16;
}

typedef struct keyed {
	double v;
	size_t i;
} keyed;

/* Clusters of the n sorted values: cluster q is [first[q], first[q+1]) for
 * q < n; real[q] when it has enough members, then gid[q] its group. */
typedef struct grouping__clusters {
	size_t first[65];
	unsigned n;
	int real[64];
	unsigned gid[64];
} grouping__clusters;

/* The grouping passes' state after clustering: the n durations dur and the
 * options o; k[j] the sorted log keys and clu_of[j] the cluster of sorted
 * value j; per instance its group and why; the ng groups (at most maxg) with
 * each one's centre, scale and tail_of; vals scratch for n values. */
typedef struct grouping__state {
	const double *dur;
	size_t n;
	const grouping__opts *o;
	const keyed *k;
	const uint32_t *clu_of;
	uint32_t *group;
	uint8_t *why;
	unsigned ng, maxg;
	double centre[64], scale[64];
	int tail_of[64];
	double *vals;
} grouping__state;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	if (x->v < y->v)
		return -1;
	if (x->v > y->v)
		return 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

typedef struct cells {
	size_t m;
	double *c, *s, *ss; /* prefix sums of count, sum, sum of squares: [0..m] */
	double h2;          /* within-cell variance */
	double floor2;
	double n;
} cells;

static double seg_cost(const cells *C, size_t a, size_t b)
{
	double c = C->c[b] - C->c[a];
	if (c <= 0)
		return INFINITY;
	double s = C->s[b] - C->s[a], ss = C->ss[b] - C->ss[a];
	double var = ss / c - (s / c) * (s / c);
	if (var < 0)
		var = 0;
	var += C->h2;
	if (var < C->floor2)
		var = C->floor2;
	return c * (0.5 * log(var) + log(C->n / c));
}

static double median_sorted(const double *v, size_t n)
{
	if (!n)
		return 0;
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* Quartile of sorted v (linear interpolation). */
static double quantile_sorted(const double *v, size_t n, double q)
{
	if (!n)
		return 0;
	double p = q * (double)(n - 1);
	size_t i = (size_t)p;
	double f = p - (double)i;
	return i + 1 < n ? v[i] + f * (v[i + 1] - v[i]) : v[n - 1];
}

/* Half-sample mode (Bickel & Fruehwirth 2006) of sorted v: repeatedly keep
 * the shortest interval holding half of the values. */
static double half_sample_mode(const double *v, size_t n)
{
	size_t lo = 0, m = n;
	while (m > 3) {
		size_t h = (m + 1) / 2, bi = lo;
		double bw = INFINITY;
		for (size_t i = lo; i + h - 1 < lo + m; i++) {
			double w = v[i + h - 1] - v[i];
			if (w < bw) {
				bw = w;
				bi = i;
			}
		}
		lo = bi;
		m = h;
	}
	if (m == 3) {
		double a = v[lo + 1] - v[lo], b = v[lo + 2] - v[lo + 1];
		return a < b ? 0.5 * (v[lo] + v[lo + 1]) : a > b ? 0.5 * (v[lo + 1] + v[lo + 2]) : v[lo + 1];
	}
	return m == 2 ? 0.5 * (v[lo] + v[lo + 1]) : v[lo];
}

/* Centre and scale (MAD scaled to a standard deviation) of one group's
 * sorted durations v. Usually the median and MAD. When the distribution is
 * strongly right-skewed (quartile skewness > 0.5: a tight mode and a long
 * tail, as preemption makes: it only ever stretches an instance), the
 * median and MAD sit in the tail; then the centre is the half-sample mode
 * and the scale the MAD of the values below it, which the tail does not
 * reach, so the stretched instances become outliers. */
static void robust_centre(double *v, size_t n, double *centre, double *scale)
{
	double med = median_sorted(v, n);
	double q1 = quantile_sorted(v, n, 0.25), q3 = quantile_sorted(v, n, 0.75);
	double skew = q3 > q1 ? (q3 + q1 - 2 * med) / (q3 - q1) : 0;
	double *d = malloc((n ? n : 1) * sizeof *d);
	if (!d) {
		*centre = med;
		*scale = 0;
		return;
	}
	double c = med;
	size_t m = 0;
	if (skew > 0.5 && n >= 10) {
		c = half_sample_mode(v, n);
		for (size_t i = 0; i < n && v[i] <= c; i++)
			d[m++] = c - v[i];
		if (m < 5)
			m = 0;
	}
	if (!m) {
		c = med;
		for (size_t i = 0; i < n; i++)
			d[m++] = fabs(v[i] - c);
	}
	qsort(d, m, sizeof *d, cmp_double);
	*centre = c;
	*scale = 1.4826 * median_sorted(d, m);
	free(d);
}

/* How strongly a density dip separates clusters A = sorted [a0, a1) and
 * B = [b0, b1) (a1 <= b0) of log-durations k[]: with windows of 1/8 of
 * the distance between the medians, the peak counts pa, pb of the two
 * clusters and the lowest count between the peaks, cmin. Returns <= 0 when
 * the dip is evidenced (cmin + 2 sqrt(cmin + 1) < min(pa, pb) / 2, i.e.
 * clearly below half of the smaller peak even with counting noise),
 * otherwise how far from that it is (larger = less separated). */
static double density_dip(const keyed *k, size_t n, size_t a0, size_t a1, size_t b0, size_t b1)
{
	double ma = k[a0 + (a1 - a0) / 2].v, mb = k[b0 + (b1 - b0) / 2].v;
	double h = (mb - ma) / 8;
	if (!(h > 0))
		return 1e9;
	/* peak count of each cluster: windows centred on its values */
	double peak[2] = {0, 0}, at[2] = {ma, mb};
	size_t rng[2][2] = {{a0, a1}, {b0, b1}};
	for (int c = 0; c < 2; c++) {
		size_t lo = 0, hi = 0;
		for (size_t j = rng[c][0]; j < rng[c][1]; j++) {
			while (lo < n && k[lo].v < k[j].v - h / 2)
				lo++;
			if (hi < lo)
				hi = lo;
			while (hi < n && k[hi].v <= k[j].v + h / 2)
				hi++;
			if ((double)(hi - lo) > peak[c]) {
				peak[c] = (double)(hi - lo);
				at[c] = k[j].v;
			}
		}
	}
	double cmin = INFINITY;
	for (int g = 1; g < 32; g++) {
		double x = at[0] + (at[1] - at[0]) * g / 32.0;
		size_t lo = 0, hi = n;
		/* lower bound of x - h/2, upper bound of x + h/2 */
		size_t l = 0, r = n;
		while (l < r) {
			size_t m = l + (r - l) / 2;
			if (k[m].v < x - h / 2)
				l = m + 1;
			else
				r = m;
		}
		lo = l;
		l = lo;
		r = n;
		while (l < r) {
			size_t m = l + (r - l) / 2;
			if (k[m].v <= x + h / 2)
				l = m + 1;
			else
				r = m;
		}
		hi = l;
		if ((double)(hi - lo) < cmin)
			cmin = (double)(hi - lo);
	}
	if (!isfinite(cmin))
		return 1e9;
	double small = peak[0] < peak[1] ? peak[0] : peak[1];
	return cmin + 2 * sqrt(cmin + 1) - 0.5 * small;
}

/* The cluster boundaries of the cells in C: the best of up to K clusters by
 * BIC (dynamic programming over cell boundaries), then neighbours that are
 * not separated merged. cuts[0..*ncut] are cell indices, cluster q being
 * cells [cuts[q], cuts[q+1]). 0 or -ENOMEM. */
static int best_cuts(const cells *C, unsigned K, size_t n, size_t cuts[65], unsigned *ncut_out)
{
	size_t m = C->m;
	double *F;
	size_t *arg;
	/* F[q][b]: best cost of the first b cells in q+1 clusters; arg: last cut */
	F = malloc((size_t)K * (m + 1) * sizeof *F);
	arg = malloc((size_t)K * (m + 1) * sizeof *arg);
	if (!F || !arg) {
		free(F);
		free(arg);
		return -ENOMEM;
	}
	for (size_t b = 0; b <= m; b++) {
		F[b] = b ? seg_cost(C, 0, b) : INFINITY;
		arg[b] = 0;
	}
	for (unsigned q = 1; q < K; q++) {
		double *Fq = F + (size_t)q * (m + 1), *Fp = F + (size_t)(q - 1) * (m + 1);
		size_t *Aq = arg + (size_t)q * (m + 1);
		for (size_t b = 0; b <= m; b++) {
			Fq[b] = INFINITY;
			Aq[b] = 0;
			for (size_t a = q; a < b; a++) {
				if (!isfinite(Fp[a]))
					continue;
				double v = Fp[a] + seg_cost(C, a, b);
				if (v < Fq[b]) {
					Fq[b] = v;
					Aq[b] = a;
				}
			}
		}
	}
	unsigned best = 0;
	double best_bic = INFINITY;
	for (unsigned q = 0; q < K; q++) {
		double nll = F[(size_t)q * (m + 1) + m];
		if (!isfinite(nll))
			continue;
		double bic = 2 * nll + (3.0 * (q + 1) - 1) * log((double)n);
		if (bic < best_bic - 1e-9) {
			best_bic = bic;
			best = q;
		}
	}
	free(F);
	/* Recover the cuts (cell indices where each cluster starts). */
	size_t b = m;
	for (unsigned q = best + 1; q-- > 0;) {
		size_t a = q ? arg[(size_t)q * (m + 1) + b] : 0;
		cuts[q] = a;
		b = a;
	}
	cuts[best + 1] = m;
	free(arg);
	/* The likelihood cannot tell one flat (uniform-like) cluster from two
	 * halves of it, so BIC alone may split a jittered group. Keep a split
	 * only where the clusters are separated: merge neighbours whose means
	 * are closer than FOLD__SEPARATION x (sd_a + sd_b), closest first. */
	unsigned ncut = best + 1;
	for (;;) {
		double worst = INFINITY;
		unsigned at = 0;
		for (unsigned q = 0; q + 1 < ncut; q++) {
			double mean[2], sd[2];
			for (int h = 0; h < 2; h++) {
				size_t a0 = cuts[q + h], a1 = cuts[q + h + 1];
				double c = C->c[a1] - C->c[a0], sm = C->s[a1] - C->s[a0],
				       ss = C->ss[a1] - C->ss[a0];
				mean[h] = c > 0 ? sm / c : 0;
				double var = c > 0 ? ss / c - mean[h] * mean[h] : 0;
				var = (var > 0 ? var : 0) + C->h2;
				sd[h] = sqrt(var > C->floor2 ? var : C->floor2);
			}
			double ratio = (mean[1] - mean[0]) / (sd[0] + sd[1]);
			if (ratio < worst) {
				worst = ratio;
				at = q;
			}
		}
		if (ncut < 2 || worst >= FOLD__SEPARATION)
			break;
		for (unsigned q = at + 1; q < ncut; q++)
			cuts[q] = cuts[q + 1];
		ncut--;
	}
	*ncut_out = ncut;
	return 0;
}

/* Labels every value with its group: members of a real cluster get its
 * group id (why 0); isolated clusters join the nearest real cluster (by log
 * distance) as excluded members (why 2). clu_of is scratch for n values. */
static void assign_members(const keyed *k, size_t n, const grouping__clusters *cl, uint32_t *clu_of,
                           uint32_t *group, uint8_t *why)
{
	const size_t *first = cl->first;
	unsigned nclu = cl->n;
	const int *real = cl->real;
	const unsigned *gid = cl->gid;
	for (unsigned q = 0; q < nclu; q++)
		for (size_t j = first[q]; j < first[q + 1]; j++)
			clu_of[j] = q;
	double clu_mean[64];
	for (unsigned q = 0; q < nclu; q++) {
		double sm = 0;
		for (size_t j = first[q]; j < first[q + 1]; j++)
			sm += k[j].v;
		clu_mean[q] = first[q + 1] > first[q] ? sm / (double)(first[q + 1] - first[q]) : 0;
	}
	for (size_t j = 0; j < n; j++) {
		unsigned q = clu_of[j];
		size_t i = k[j].i;
		if (real[q]) {
			group[i] = gid[q];
			why[i] = 0;
			continue;
		}
		double bestd = INFINITY;
		unsigned bq = 0;
		for (unsigned r = 0; r < nclu; r++)
			if (real[r] && fabs(clu_mean[r] - k[j].v) < bestd) {
				bestd = fabs(clu_mean[r] - k[j].v);
				bq = r;
			}
		group[i] = gid[bq];
		why[i] = 2;
	}
}

/* Within each of the ng groups: marks outliers (why 1) beyond
 * centre +- outlier_k x scale of the members (see robust_centre), and
 * returns each group's centre and scale. vals is scratch for n values. */
static void mark_outliers(grouping__state *s)
{
	const double *dur = s->dur;
	size_t n = s->n;
	const grouping__opts *o = s->o;
	const uint32_t *group = s->group;
	uint8_t *why = s->why;
	unsigned ng = s->ng;
	double *centre = s->centre, *scale = s->scale, *vals = s->vals;
	for (unsigned g = 0; g < ng; g++) {
		size_t c = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g && why[i] == 0)
				vals[c++] = dur[i];
		qsort(vals, c, sizeof *vals, cmp_double);
		robust_centre(vals, c, &centre[g], &scale[g]);
		if (scale[g] < 0.01 * centre[g])
			scale[g] = 0.01 * centre[g];
		for (size_t i = 0; i < n; i++)
			if (group[i] == g && why[i] == 0 &&
			    fabs(dur[i] - centre[g]) > o->outlier_k * scale[g])
				why[i] = 1;
	}
}

/* Numbers the groups by increasing median duration of their members,
 * permuting centre and scale alike. vals is scratch for n values. */
static void renumber_groups(const double *dur, size_t n, uint32_t *group, unsigned ng, double *centre,
                            double *scale, int *tail_of, double *vals)
{
	double med[64];
	unsigned order[64], rank[64];
	for (unsigned g = 0; g < ng; g++) {
		size_t c = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g)
				vals[c++] = dur[i];
		qsort(vals, c, sizeof *vals, cmp_double);
		med[g] = median_sorted(vals, c);
		order[g] = g;
	}
	for (unsigned a = 1; a < ng; a++) /* insertion sort: stable, few groups */
		for (unsigned bb = a; bb > 0 && med[order[bb - 1]] > med[order[bb]]; bb--) {
			unsigned t = order[bb];
			order[bb] = order[bb - 1];
			order[bb - 1] = t;
		}
	for (unsigned r = 0; r < ng; r++)
		rank[order[r]] = r;
	double c2[64], s2[64];
	int t2[64];
	for (unsigned g = 0; g < ng; g++) {
		c2[rank[g]] = centre[g];
		s2[rank[g]] = scale[g];
		t2[rank[g]] = tail_of[g] >= 0 && (unsigned)tail_of[g] < ng ? (int)rank[tail_of[g]] : -1;
	}
	for (size_t i = 0; i < n; i++)
		group[i] = rank[group[i]];
	memcpy(centre, c2, ng * sizeof *centre);
	memcpy(scale, s2, ng * sizeof *scale);
	memcpy(tail_of, t2, ng * sizeof *tail_of);
}

/* The median of |v[i] - c| over v[n] (v is reordered); 0 for n = 0. The
 * MAD a user reads: not the outlier test's scale, which is 1.4826 times it
 * and at least 1% of the centre (a group of 966 and 972 ms read "MAD
 * 9.69 ms"). */
static double median_abs_deviation(double *v, size_t n, double c)
{
	for (size_t i = 0; i < n; i++)
		v[i] = fabs(v[i] - c);
	qsort(v, n, sizeof *v, cmp_double);
	return n ? median_sorted(v, n) : 0;
}

/* Fills stats[g] for g < maxg: counts, used durations, centre (a promoted
 * population, centre NAN, gets its members' centre) and the used
 * durations' MAD from that centre. */
static void fill_stats(const grouping__state *s, grouping__stat *stats)
{
	const double *dur = s->dur;
	size_t n = s->n;
	const uint32_t *group = s->group;
	const uint8_t *why = s->why;
	unsigned ng = s->ng, maxg = s->maxg;
	const double *centre = s->centre;
	const int *tail_of = s->tail_of;
	double *vals = s->vals;
	for (unsigned g = 0; g < ng; g++) {
		grouping__stat st = {0};
		st.tail_of = tail_of[g];
		st.min = INFINITY;
		st.max = -INFINITY;
		size_t c = 0;
		for (size_t i = 0; i < n; i++) {
			if (group[i] != g)
				continue;
			st.n++;
			if (why[i] == 0) {
				vals[c++] = dur[i];
				st.used++;
				st.total += dur[i];
				if (dur[i] < st.min)
					st.min = dur[i];
				if (dur[i] > st.max)
					st.max = dur[i];
			} else if (why[i] == 1) {
				st.outliers++;
			} else {
				st.isolated++;
			}
		}
		if (!isnan(centre[g])) {
			st.median = centre[g];
		} else { /* a promoted population: its members' centre */
			qsort(vals, c, sizeof *vals, cmp_double);
			double unused;
			robust_centre(vals, c, &st.median, &unused);
		}
		st.mad = median_abs_deviation(vals, c, st.median);
		if (!st.used)
			st.min = st.max = st.median;
		else
			st.mean = st.total / (double)st.used;
		if (stats && g < maxg)
			stats[g] = st;
	}
}

/* Which candidate set of its group an outlier of duration d belongs to
 * (centre c): 0 below c, 1 up to 10 c, then one per decade (up to 7). The
 * calls just above a wide spread and those preemption stretched by orders
 * of magnitude are not one population: as one set (6 us to 292 ms of a 2 us
 * function on a loaded XSBench) they became a group that held the time and
 * was folded. */
static unsigned outlier_band(double d, double c)
{
	if (!(d > c) || !(c > 0))
		return 0;
	double dec = floor(log10(d / c));
	return 1 + (unsigned)(dec < 0 ? 0 : dec > 6 ? 6 : dec);
}

/* Outliers are a small minority by construction: when the excluded
 * instances (outliers and isolated clusters) are more than
 * o->outlier_max_share of the instances or hold more than
 * o->outlier_max_time of the region's time, they are populations, not
 * outliers. The candidate sets are, per group, the outliers below its
 * centre, those above it by decade of their ratio to it (outlier_band),
 * and each isolated cluster; the sets holding the most
 * time become groups of their own (all members used) until what stays
 * excluded is within both caps, or *ng reaches maxg. A promoted group gets
 * centre NAN (its members' median is computed by the caller). k[j].i is the
 * instance at sorted position j and clu_of[j] its cluster. */
static void promote_populations(grouping__state *s)
{
	const double *dur = s->dur;
	size_t n = s->n;
	const grouping__opts *o = s->o;
	uint32_t *group = s->group;
	uint8_t *why = s->why;
	const uint32_t *clu_of = s->clu_of;
	const keyed *k = s->k;
	double *centre = s->centre, *scale = s->scale;
	int *tail_of = s->tail_of;
	unsigned *ng = &s->ng, maxg = s->maxg;
	enum { NSET = 9 * 64 };
	double tset[NSET] = {0}, total = 0, texcl = 0;
	size_t cset[NSET] = {0}, nexcl = 0;
	uint16_t *set = malloc((n ? n : 1) * sizeof *set);
	if (!set)
		return;
	for (size_t j = 0; j < n; j++) {
		size_t i = k[j].i;
		total += dur[i];
		if (!why[i])
			continue;
		unsigned sid = why[i] == 2 ? 8 * 64 + (clu_of[j] < 64 ? clu_of[j] : 63)
		                           : 8 * group[i] + outlier_band(dur[i], centre[group[i]]);
		set[i] = (uint16_t)sid;
		tset[sid] += dur[i];
		cset[sid]++;
		texcl += dur[i];
		nexcl++;
	}
	double cap_n = o->outlier_max_share * (double)n, cap_t = o->outlier_max_time * total;
	while ((double)nexcl > cap_n || texcl > cap_t) {
		unsigned best = NSET;
		for (unsigned sid = 0; sid < NSET; sid++)
			if (cset[sid] && (best == NSET || tset[sid] > tset[best]))
				best = sid;
		if (best == NSET || *ng >= maxg)
			break;
		unsigned g = (*ng)++;
		centre[g] = NAN;
		scale[g] = 0;
		tail_of[g] = best < 8 * 64 && best % 8 == 1 ? (int)(best / 8) : -1;
		for (size_t i = 0; i < n; i++)
			if (why[i] && set[i] == best) {
				group[i] = g;
				why[i] = 0;
			}
		nexcl -= cset[best];
		texcl -= tset[best];
		cset[best] = 0;
		tset[best] = 0;
	}
	/* Per group too: a group's excluded instances (outliers and the
	 * isolated clusters that joined it) are at most outlier_max_group_share
	 * of its members (2 of 19 excluded is no small minority of the 19,
	 * whatever the region's share); else its excluded set holding the most
	 * time becomes a group of its own, until they are. */
	unsigned ng0 = *ng < 64 ? *ng : 64, sgroup[NSET];
	size_t members[64] = {0}, excluded[64] = {0};
	for (unsigned sid = 0; sid < NSET; sid++)
		sgroup[sid] = UINT32_MAX;
	for (size_t i = 0; i < n; i++) {
		if (group[i] >= ng0)
			continue;
		members[group[i]]++;
		if (why[i]) {
			sgroup[set[i]] = group[i];
			excluded[group[i]]++;
		}
	}
	for (unsigned g = 0; g < ng0; g++)
		while ((double)excluded[g] > o->outlier_max_group_share * (double)members[g] && *ng < maxg) {
			unsigned best = NSET;
			for (unsigned sid = 0; sid < NSET; sid++)
				if (sgroup[sid] == g && cset[sid] && (best == NSET || tset[sid] > tset[best]))
					best = sid;
			if (best == NSET)
				break;
			unsigned ngr = (*ng)++;
			centre[ngr] = NAN;
			scale[ngr] = 0;
			tail_of[ngr] = best < 8 * 64 && best % 8 == 1 ? (int)g : -1;
			for (size_t i = 0; i < n; i++)
				if (why[i] && set[i] == best && group[i] == g) {
					group[i] = ngr;
					why[i] = 0;
					excluded[g]--;
				}
			cset[best] = 0;
			tset[best] = 0;
		}
	free(set);
}

/* From members labelled by cluster to the final groups: outliers marked,
 * populations promoted out of the excluded, groups renumbered by duration,
 * their stats filled. clu_of[j]: cluster of sorted value j. 0 or -ENOMEM. */
static int settle_groups(grouping__state *s, grouping__stat *stats)
{
	const grouping__opts *o = s->o;
	s->vals = malloc((s->n ? s->n : 1) * sizeof *s->vals);
	if (!s->vals)
		return -ENOMEM;
	for (unsigned g = 0; g < 64; g++)
		s->tail_of[g] = -1;
	mark_outliers(s);
	s->maxg = o->max_out_groups ? o->max_out_groups : o->max_groups;
	if (s->maxg > 64)
		s->maxg = 64;
	promote_populations(s);
	renumber_groups(s->dur, s->n, s->group, s->ng, s->centre, s->scale, s->tail_of, s->vals);
	fill_stats(s, stats);
	free(s->vals);
	s->vals = NULL;
	return 0;
}

/* The cells C of the n sorted keys k (see the head comment; C's arrays
 * allocated here) and *cell_of, the cell of each sorted value. 0 or -ENOMEM. */
static int fill_cells(const keyed *k, size_t n, const grouping__opts *o, cells *C, size_t **cell_of_out)
{
	double lo = k[0].v, hi = k[n - 1].v;
	int binned = n > 1024;
	C->m = binned ? 512 : n;
	C->n = (double)n;
	C->floor2 = o->log_floor * o->log_floor;
	double width = (hi - lo) / (double)C->m;
	C->h2 = binned ? width * width / 12.0 : 0.0;
	C->c = calloc(C->m + 1, sizeof(double));
	C->s = calloc(C->m + 1, sizeof(double));
	C->ss = calloc(C->m + 1, sizeof(double));
	if (!C->c || !C->s || !C->ss)
		return -ENOMEM;
	/* cell of each sorted value */
	size_t *cell_of = (size_t *)malloc(n * sizeof(size_t));
	if (!cell_of)
		return -ENOMEM;
	*cell_of_out = cell_of;
	for (size_t j = 0; j < n; j++) {
		size_t cidx = j;
		if (binned) {
			cidx = width > 0 ? (size_t)((k[j].v - lo) / width) : 0;
			if (cidx >= C->m)
				cidx = C->m - 1;
		}
		cell_of[j] = cidx;
		C->c[cidx + 1] += 1;
		C->s[cidx + 1] += k[j].v;
		C->ss[cidx + 1] += k[j].v * k[j].v;
	}
	for (size_t j = 0; j < C->m; j++) {
		C->c[j + 1] += C->c[j];
		C->s[j + 1] += C->s[j];
		C->ss[j + 1] += C->ss[j];
	}
	return 0;
}

/* Clusters as ranges of the n sorted values from the cell cuts
 * cuts[0..ncut] (cell_of: cell of each sorted value), each real when it has
 * at least o's least members. */
static void cluster_ranges(const size_t *cell_of, size_t n, const size_t *cuts, unsigned ncut,
                           const grouping__opts *o, grouping__clusters *cl)
{
	unsigned nclu = ncut;
	size_t *first = cl->first;
	{
		unsigned q = 0;
		first[0] = 0;
		for (size_t j = 0; j < n; j++)
			while (q + 1 < nclu && cell_of[j] >= cuts[q + 1])
				first[++q] = j;
		while (q + 1 < nclu) /* empty trailing clusters (cannot happen with finite costs) */
			first[++q] = n;
		first[nclu] = n;
	}
	cl->n = nclu;
	double need = o->min_group_share * (double)n;
	if (need < o->min_group)
		need = o->min_group;
	for (unsigned q = 0; q < nclu; q++)
		cl->real[q] = (double)(first[q + 1] - first[q]) >= need;
}

/* A split between two real clusters must be evidenced by a gap in the
 * density, not only by the mixture's likelihood: a unimodal duration
 * distribution with a long tail (preemption, interrupts) is modelled
 * by the mixture as several clusters along the tail. Merge real
 * neighbours (with the isolated clusters between them) until every
 * remaining pair has a dip, least separated pair first. */
static void merge_undipped(const keyed *k, size_t n, grouping__clusters *cl)
{
	size_t *first = cl->first;
	int *real = cl->real;
	unsigned nclu = cl->n;
	for (;;) {
		double worst = -INFINITY;
		unsigned wa = 0, wb = 0;
		for (unsigned a = 0; a < nclu; a++) {
			if (!real[a])
				continue;
			unsigned nb = a + 1;
			while (nb < nclu && !real[nb])
				nb++;
			if (nb >= nclu)
				break;
			double dip = density_dip(k, n, first[a], first[a + 1], first[nb], first[nb + 1]);
			if (dip > worst) {
				worst = dip;
				wa = a;
				wb = nb;
			}
		}
		if (worst <= 0) /* every pair separated (or no pair left) */
			break;
		/* merge clusters wa..wb into wa */
		unsigned drop = wb - wa;
		for (unsigned q = wa + 1; q + drop <= nclu; q++) {
			first[q] = first[q + drop];
			if (q + drop < nclu)
				real[q] = real[q + drop];
		}
		nclu -= drop;
		real[wa] = 1;
	}
	cl->n = nclu;
}

/* Numbers the real clusters' groups; when none is real, everything is one
 * group. Returns how many groups. */
static unsigned number_groups(grouping__clusters *cl, size_t n)
{
	unsigned ng = 0;
	for (unsigned q = 0; q < cl->n; q++)
		if (cl->real[q])
			cl->gid[q] = ng++;
	if (ng == 0) { /* everything is thin: one group */
		cl->first[1] = n;
		cl->n = 1;
		cl->real[0] = 1;
		cl->gid[0] = 0;
		ng = 1;
	}
	return ng;
}

int grouping__durations(const double *dur, size_t n, const grouping__opts *o, uint32_t *group, uint8_t *why,
                        size_t *ngroups, grouping__stat *stats)
{
	int rc = -ENOMEM;
	keyed *k = NULL;
	cells C = {0};
	double *tmp = NULL;
	size_t *cell_of = NULL;
	*ngroups = 0;
	if (n == 0)
		return 0;
	unsigned K = o->max_groups ? o->max_groups : 1;
	if (K > 64)
		K = 64;
	k = malloc(n * sizeof *k);
	tmp = malloc(n * sizeof *tmp);
	if (!k || !tmp)
		goto out;
	for (size_t i = 0; i < n; i++) {
		k[i].v = log(dur[i] > 1.0 ? dur[i] : 1.0);
		k[i].i = i;
	}
	qsort(k, n, sizeof *k, cmp_keyed);
	if (fill_cells(k, n, o, &C, &cell_of))
		goto out;
	size_t m = C.m;
	if (K > m)
		K = (unsigned)m;
	size_t cuts[65];
	unsigned ncut;
	if (best_cuts(&C, K, n, cuts, &ncut))
		goto out;
	grouping__clusters cl;
	cluster_ranges(cell_of, n, cuts, ncut, o, &cl);
	free(cell_of);
	cell_of = NULL;
	merge_undipped(k, n, &cl);
	unsigned ng = number_groups(&cl, n);
	/* tmp as uint32 storage: n doubles hold n uint32 */
	assign_members(k, n, &cl, (uint32_t *)tmp, group, why);
	grouping__state st = {.dur = dur,
	                      .n = n,
	                      .o = o,
	                      .k = k,
	                      .clu_of = (const uint32_t *)tmp,
	                      .group = group,
	                      .why = why,
	                      .ng = ng};
	rc = settle_groups(&st, stats);
	if (rc == 0)
		*ngroups = st.ng;
out:
	free(cell_of);
	free(k);
	free(tmp);
	free(C.c);
	free(C.s);
	free(C.ss);
	return rc;
}
