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

void fold__grouping_opts_init(fold__grouping_opts *o)
{
	o->outlier_k = 3.0;
	o->max_groups = 6;
	o->min_group_share = 0.02;
	o->min_group = 3;
	o->log_floor = 0.01;
}

typedef struct keyed {
	double v;
	size_t i;
} keyed;

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

int fold__group_durations(const double *dur, size_t n, const fold__grouping_opts *o, uint32_t *group, uint8_t *why,
                          size_t *ngroups, fold__group_stat *stats)
{
	int rc = -ENOMEM;
	keyed *k = NULL;
	cells C = {0};
	double *F = NULL, *tmp = NULL;
	size_t *arg = NULL;
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
	double lo = k[0].v, hi = k[n - 1].v;
	int binned = n > 1024;
	C.m = binned ? 512 : n;
	C.n = (double)n;
	C.floor2 = o->log_floor * o->log_floor;
	double width = (hi - lo) / (double)C.m;
	C.h2 = binned ? width * width / 12.0 : 0.0;
	C.c = calloc(C.m + 1, sizeof(double));
	C.s = calloc(C.m + 1, sizeof(double));
	C.ss = calloc(C.m + 1, sizeof(double));
	if (!C.c || !C.s || !C.ss)
		goto out;
	/* cell of each sorted value */
	size_t *cell_of = (size_t *)malloc(n * sizeof(size_t));
	if (!cell_of)
		goto out;
	for (size_t j = 0; j < n; j++) {
		size_t cidx = j;
		if (binned) {
			cidx = width > 0 ? (size_t)((k[j].v - lo) / width) : 0;
			if (cidx >= C.m)
				cidx = C.m - 1;
		}
		cell_of[j] = cidx;
		C.c[cidx + 1] += 1;
		C.s[cidx + 1] += k[j].v;
		C.ss[cidx + 1] += k[j].v * k[j].v;
	}
	for (size_t j = 0; j < C.m; j++) {
		C.c[j + 1] += C.c[j];
		C.s[j + 1] += C.s[j];
		C.ss[j + 1] += C.ss[j];
	}
	size_t m = C.m;
	if (K > m)
		K = (unsigned)m;
	/* F[q][b]: best cost of the first b cells in q+1 clusters; arg: last cut */
	F = malloc((size_t)K * (m + 1) * sizeof *F);
	arg = malloc((size_t)K * (m + 1) * sizeof *arg);
	if (!F || !arg) {
		free(cell_of);
		goto out;
	}
	for (size_t b = 0; b <= m; b++) {
		F[b] = b ? seg_cost(&C, 0, b) : INFINITY;
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
				double v = Fp[a] + seg_cost(&C, a, b);
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
	/* Recover the cuts (cell indices where each cluster starts). */
	size_t cuts[65];
	size_t b = m;
	for (unsigned q = best + 1; q-- > 0;) {
		size_t a = q ? arg[(size_t)q * (m + 1) + b] : 0;
		cuts[q] = a;
		b = a;
	}
	cuts[best + 1] = m;
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
				double c = C.c[a1] - C.c[a0], sm = C.s[a1] - C.s[a0], ss = C.ss[a1] - C.ss[a0];
				mean[h] = c > 0 ? sm / c : 0;
				double var = c > 0 ? ss / c - mean[h] * mean[h] : 0;
				var = (var > 0 ? var : 0) + C.h2;
				sd[h] = sqrt(var > C.floor2 ? var : C.floor2);
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
	best = ncut - 1;
	/* Assign clusters to sorted values, then decide which are real groups. */
	unsigned nclu = best + 1;
	size_t clu_n[64] = {0};
	uint32_t *clu_of = (uint32_t *)tmp; /* reuse as uint32 storage: n doubles >= n uint32 */
	for (size_t j = 0; j < n; j++) {
		unsigned q = 0;
		while (q + 1 < nclu && cell_of[j] >= cuts[q + 1])
			q++;
		clu_of[j] = q;
		clu_n[q]++;
	}
	free(cell_of);
	double need = o->min_group_share * (double)n;
	if (need < o->min_group)
		need = o->min_group;
	int real[64];
	unsigned gid[64];
	unsigned ng = 0;
	for (unsigned q = 0; q < nclu; q++) {
		real[q] = (double)clu_n[q] >= need;
		if (real[q])
			gid[q] = ng++;
	}
	if (ng == 0) { /* everything is thin: one group */
		for (unsigned q = 0; q < nclu; q++) {
			real[q] = 1;
			gid[q] = 0;
		}
		ng = 1;
	}
	/* Isolated clusters join the nearest real cluster (by log distance) as excluded members. */
	double clu_mean[64];
	for (unsigned q = 0; q < nclu; q++) {
		double s = 0;
		size_t c = 0;
		for (size_t j = 0; j < n; j++)
			if (clu_of[j] == q) {
				s += k[j].v;
				c++;
			}
		clu_mean[q] = c ? s / (double)c : 0;
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
	/* Within each group: median +- k*MAD on durations. */
	double *vals = malloc(n * sizeof *vals);
	if (!vals)
		goto out;
	for (unsigned g = 0; g < ng; g++) {
		size_t c = 0;
		for (size_t i = 0; i < n; i++)
			if (group[i] == g && why[i] == 0)
				vals[c++] = dur[i];
		qsort(vals, c, sizeof *vals, cmp_double);
		double med = median_sorted(vals, c);
		for (size_t i = 0; i < c; i++)
			vals[i] = fabs(vals[i] - med);
		qsort(vals, c, sizeof *vals, cmp_double);
		double mad = 1.4826 * median_sorted(vals, c);
		if (mad < 0.01 * med)
			mad = 0.01 * med;
		fold__group_stat st = {0};
		st.median = med;
		st.mad = mad;
		st.min = INFINITY;
		st.max = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			if (group[i] != g)
				continue;
			st.n++;
			if (why[i] == 0 && fabs(dur[i] - med) > o->outlier_k * mad)
				why[i] = 1;
			if (why[i] == 0) {
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
		if (!st.used)
			st.min = st.max = med;
		if (stats && g < o->max_groups)
			stats[g] = st;
	}
	free(vals);
	*ngroups = ng;
	rc = 0;
out:
	free(k);
	free(tmp);
	free(C.c);
	free(C.s);
	free(C.ss);
	free(F);
	free(arg);
	return rc;
}
