/* Duration grouping and outlier rules: groups found without being told how
 * many, outliers excluded with the right reason. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "grouping.h"

static double jitter(unsigned i, double rel)
{
	/* deterministic pseudo-noise in [-rel, rel] */
	uint64_t z = (i + 1) * 0x9e3779b97f4a7c15ull;
	z ^= z >> 29;
	z *= 0xbf58476d1ce4e5b9ull;
	z ^= z >> 32;
	return rel * (2.0 * (double)(z % 100000) / 100000.0 - 1.0);
}

static void test_two_groups_and_outliers(void **state)
{
	(void)state;
	enum { N = 153 };
	double d[N];
	for (unsigned i = 0; i < 100; i++)
		d[i] = 1e6 * (1 + jitter(i, 0.03));
	for (unsigned i = 100; i < 150; i++)
		d[i] = 3e6 * (1 + jitter(i, 0.03));
	d[150] = 2e7;
	d[151] = 2.1e7;
	d[152] = 1.2e6; /* 20% above group 0: an outlier by MAD */
	uint32_t g[N];
	uint8_t why[N];
	size_t ng;
	grouping__opts o;
	grouping__opts_init(&o);
	grouping__stat st[16];
	assert_int_equal(grouping__durations(d, N, &o, g, why, &ng, st), 0);
	/* The two 20 ms instances are too few to be a cluster, but they hold
	 * 14% of the region's time: a population of their own, not outliers. */
	assert_int_equal(ng, 3);
	for (unsigned i = 0; i < 100; i++) {
		assert_int_equal(g[i], 0);
		assert_int_equal(why[i], 0);
	}
	for (unsigned i = 100; i < 150; i++) {
		assert_int_equal(g[i], 1);
		assert_int_equal(why[i], 0);
	}
	assert_int_equal(g[150], 2);
	assert_int_equal(g[151], 2);
	assert_int_equal(why[150], 0);
	assert_int_equal(why[151], 0);
	assert_int_not_equal(why[152], 0); /* 20% off its group, 0.4% of the time: an outlier */
	assert_int_equal(st[0].used, 100);
	assert_int_equal(st[1].used, 50);
	assert_int_equal(st[2].used, 2);
	assert_true(fabs(st[2].median - 2.05e7) < 1e6);
	/* the MAD a user reads: half the distance of two instances, not the
	 * outlier test's scaled and floored spread */
	assert_true(fabs(st[2].mad - 5e5) < 1e3);
	assert_true(fabs(st[0].median - 1e6) < 2e4);
	assert_true(fabs(st[1].median - 3e6) < 6e4);
}

static void test_uniform_jitter_is_one_group(void **state)
{
	(void)state;
	enum { N = 2000 }; /* above the exact limit: exercises the binned path */
	double d[N];
	for (unsigned i = 0; i < N; i++)
		d[i] = 5e5 * (1 + jitter(i, 0.10));
	uint32_t g[N];
	uint8_t why[N];
	size_t ng;
	grouping__opts o;
	grouping__opts_init(&o);
	assert_int_equal(grouping__durations(d, N, &o, g, why, &ng, NULL), 0);
	assert_int_equal(ng, 1);
	size_t out = 0;
	for (unsigned i = 0; i < N; i++)
		out += why[i] != 0;
	assert_int_equal(out, 0);
}

static void test_identical_durations(void **state)
{
	(void)state;
	double d[10];
	for (int i = 0; i < 10; i++)
		d[i] = 1000;
	uint32_t g[10];
	uint8_t why[10];
	size_t ng;
	grouping__opts o;
	grouping__opts_init(&o);
	grouping__stat st[16];
	assert_int_equal(grouping__durations(d, 10, &o, g, why, &ng, st), 0);
	assert_int_equal(ng, 1);
	for (int i = 0; i < 10; i++)
		assert_int_equal(why[i], 0);
	assert_true(st[0].mad == 0); /* no spread, whatever floor the outlier test uses */
}

/* Exponential variate from the deterministic pseudo-noise. */
static double expo(unsigned i, double mean)
{
	double u = 0.5 * (1 + jitter(i * 7919u + 13u, 1.0)); /* in [0, 1] */
	if (u < 1e-9)
		u = 1e-9;
	return -mean * log(u);
}

/* Preemption stretches instances and never shortens them: a tight mode and
 * a long one-sided tail. Without a gap in the density the mixture does not
 * split it; the centre is the mode (even when most instances are stretched).
 * The stretched instances are too many to be outliers (35% or 60% of the
 * instances, most of the time): they are a population of their own, the
 * group above the mode, and the mode's group keeps the unperturbed ones. */
static void test_preemption_tail_is_a_group_above_the_mode(void **state)
{
	(void)state;
	enum { N = 400 };
	for (unsigned variant = 0; variant < 2; variant++) {
		double share = variant ? 0.6 : 0.35, mean = variant ? 5e6 : 3e6;
		double d[N];
		int stretched[N];
		for (unsigned i = 0; i < N; i++) {
			d[i] = 5e6 * (1 + jitter(i, 0.002));
			stretched[i] = 0.5 * (1 + jitter(i + 5000, 1.0)) < share;
			if (stretched[i])
				d[i] += expo(i, mean);
		}
		uint32_t g[N];
		uint8_t why[N];
		size_t ng;
		grouping__opts o;
		grouping__opts_init(&o);
		grouping__stat st[16];
		assert_int_equal(grouping__durations(d, N, &o, g, why, &ng, st), 0);
		assert_int_equal(ng, 2);
		assert_true(fabs(st[0].median / 5e6 - 1) < 0.01);
		assert_true(fabs(st[0].mean / 5e6 - 1) < 0.01);
		assert_true(st[1].median > 6e6);
		/* the group above is the mode's slow tail, and says so */
		assert_int_equal(st[1].tail_of, 0);
		assert_int_equal(st[0].tail_of, -1);
		size_t excluded = 0;
		for (unsigned i = 0; i < N; i++) {
			excluded += why[i] != 0;
			if (!stretched[i] ||
			    d[i] < 5.1e6) { /* unperturbed (or barely stretched) instances are used */
				assert_int_equal(g[i], 0);
				assert_int_equal(why[i], 0);
			}
			if (d[i] > 5.5e6) /* stretched by 10% or more: the other group */
				assert_int_equal(g[i], 1);
		}
		assert_true(excluded <= 0.03 * N);
	}
}

/* Two real modes separated by a gap stay two groups, tail or not. */
static void test_two_modes_with_a_gap_and_a_tail(void **state)
{
	(void)state;
	enum { N = 400 };
	double d[N];
	for (unsigned i = 0; i < N; i++) {
		d[i] = (i % 3 == 2 ? 8e6 : 5e6) * (1 + jitter(i, 0.005));
		if (i % 10 == 0)
			d[i] += expo(i, 2e6);
	}
	uint32_t g[N];
	uint8_t why[N];
	size_t ng;
	grouping__opts o;
	grouping__opts_init(&o);
	grouping__stat st[16];
	assert_int_equal(grouping__durations(d, N, &o, g, why, &ng, st), 0);
	/* The two modes, and their stretched tails (10% of the instances) as
	 * populations of their own rather than outliers. */
	assert_true(ng >= 2 && ng <= 4);
	uint32_t g5 = g[0 + 1], g8 = g[2];
	assert_int_not_equal(g5, g8);
	assert_true(fabs(st[g5].median / 5e6 - 1) < 0.01);
	assert_true(fabs(st[g8].median / 8e6 - 1) < 0.01);
	/* two modes are not one's tail */
	assert_int_equal(st[g5].tail_of, -1);
	assert_int_equal(st[g8].tail_of, -1);
	for (unsigned i = 0; i < N; i++)
		if (i % 10 != 0) {
			assert_int_equal(g[i], i % 3 == 2 ? g8 : g5);
			assert_int_equal(why[i], 0);
		}
}

/* Outliers are a small minority by construction: whatever the durations,
 * at most 3% of the instances and 5% of the time are excluded. */
static void check_outlier_caps(const double *d, size_t n, size_t *ng, uint32_t *g, uint8_t *why,
                               grouping__stat *st)
{
	grouping__opts o;
	grouping__opts_init(&o);
	assert_int_equal(grouping__durations(d, n, &o, g, why, ng, st), 0);
	double total = 0, texcl = 0;
	size_t nexcl = 0;
	for (size_t i = 0; i < n; i++) {
		total += d[i];
		if (why[i]) {
			texcl += d[i];
			nexcl++;
		}
	}
	assert_true((double)nexcl <= 0.03 * (double)n);
	assert_true(texcl <= 0.05 * total);
}

/* A per-iteration region with a clearly bimodal histogram (2 ms and 4 ms,
 * with spread and a preemption tail) is two groups, not one group with half
 * of its instances outliers. */
static void test_bimodal_2ms_4ms_is_two_groups(void **state)
{
	(void)state;
	enum { N = 600 };
	double d[N];
	for (unsigned i = 0; i < N; i++) {
		d[i] = (i % 2 ? 4e6 : 2e6) * (1 + jitter(i, 0.08));
		if (i % 25 == 0)
			d[i] += expo(i, 1e6);
	}
	uint32_t g[N];
	uint8_t why[N];
	size_t ng;
	grouping__stat st[16];
	check_outlier_caps(d, N, &ng, g, why, st);
	assert_true(ng >= 2);
	assert_true(fabs(st[g[2]].median / 2e6 - 1) < 0.05);
	assert_true(fabs(st[g[1]].median / 4e6 - 1) < 0.05);
	assert_int_not_equal(g[2], g[1]);
	size_t in2 = 0, in4 = 0;
	for (unsigned i = 0; i < N; i++) {
		in2 += g[i] == g[2] && why[i] == 0;
		in4 += g[i] == g[1] && why[i] == 0;
	}
	assert_true(in2 >= 0.9 * N / 2);
	assert_true(in4 >= 0.9 * N / 2);
}

/* A kernel region: thousands of 2.4 us calls and 64 calls of 30-132 ms that
 * hold almost all of the time. The large calls are a group (the one that
 * holds the time), never outliers. */
static void test_few_large_instances_holding_the_time_are_a_group(void **state)
{
	(void)state;
	enum { N = 5064 };
	static double d[N];
	for (unsigned i = 0; i < N - 64; i++)
		d[i] = 2.4e3 * (1 + jitter(i, 0.05));
	for (unsigned i = N - 64; i < N; i++)
		d[i] = 3e7 + 1e8 * (0.5 * (1 + jitter(i, 1.0)));
	static uint32_t g[N];
	static uint8_t why[N];
	size_t ng;
	grouping__stat st[16];
	check_outlier_caps(d, N, &ng, g, why, st);
	assert_true(ng >= 2);
	for (unsigned i = N - 64; i < N; i++) {
		assert_int_equal(why[i], 0);
		assert_int_not_equal(g[i], g[0]);
	}
}

/* 2 of a group's 19 instances 30% longer: within the region's caps (1% of
 * its instances, under 5% of its time) but no small minority of the group
 * (issue 13: outliers are a small minority by construction): they become a
 * group of their own, and no group excludes more than a tenth of its
 * members. */
static void test_outliers_a_minority_of_their_own_group(void **state)
{
	(void)state;
	enum { N = 199 };
	double d[N];
	for (unsigned i = 0; i < 180; i++)
		d[i] = 1e6 * (1 + jitter(i, 0.03));
	for (unsigned i = 180; i < 197; i++)
		d[i] = 5e6 * (1 + jitter(i, 0.03));
	d[197] = 6.5e6;
	d[198] = 6.6e6;
	uint32_t g[N];
	uint8_t why[N];
	size_t ng;
	grouping__opts o;
	grouping__opts_init(&o);
	grouping__stat st[16];
	assert_int_equal(grouping__durations(d, N, &o, g, why, &ng, st), 0);
	for (size_t k = 0; k < ng; k++) {
		unsigned long members = st[k].used + st[k].outliers;
		assert_true((double)st[k].outliers <= 0.10 * (double)members);
	}
	assert_int_equal(why[197], 0);
	assert_int_equal(why[198], 0);
	assert_int_equal(g[197], g[198]);
	assert_int_not_equal(g[197], g[180]);
}

/* A 2 us function called 100 000 times with a wide spread (0.4-5 us), and
 * 300 of its calls stretched by preemption to 10 us-300 ms, which hold most
 * of the time. The calls just above the spread and the stretched ones are
 * not one population: no used group may mix them
 * (before: the outliers above the main group, 6 us to 292 ms, were promoted
 * as one group, which held the time and was folded; on XSBench under load). */
static void test_promoted_outliers_are_not_one_mixed_group(void **state)
{
	(void)state;
	enum { N = 100300 };
	double *d = malloc(N * sizeof *d);
	uint32_t *g = malloc(N * sizeof *g);
	uint8_t *why = malloc(N * sizeof *why);
	assert_non_null(d);
	assert_non_null(g);
	assert_non_null(why);
	for (unsigned i = 0; i < 100000; i++)
		d[i] = 2e3 * exp(0.5 * (jitter(i, 1.0) + jitter(i + 777777, 1.0) + jitter(i + 99999, 1.0)));
	for (unsigned i = 100000; i < N; i++)
		d[i] = 1e4 * pow(3e4, 0.5 * (1 + jitter(i, 1.0))); /* 10 us .. 300 ms, log-uniform */
	size_t ng;
	grouping__opts o;
	grouping__opts_init(&o);
	o.max_out_groups = 16;
	grouping__stat st[16];
	assert_int_equal(grouping__durations(d, N, &o, g, why, &ng, st), 0);
	for (size_t k = 0; k < ng; k++) {
		print_message("group %zu: %lu used, %lu outliers, median %.3g us, min %.3g us, max %.3g us\n",
		              k, st[k].used, st[k].outliers, st[k].median / 1e3, st[k].min / 1e3,
		              st[k].max / 1e3);
		double lo = INFINITY, hi = 0;
		for (size_t i = 0; i < N; i++)
			if (g[i] == k && why[i] == 0) {
				lo = fmin(lo, d[i]);
				hi = fmax(hi, d[i]);
			}
		/* the function's own calls (under 10 us) and stretched ones
		 * (over 100 us) are never one used group */
		assert_false(lo < 1e4 && hi > 1e5);
	}
	free(d);
	free(g);
	free(why);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_groups_and_outliers),
	    cmocka_unit_test(test_uniform_jitter_is_one_group),
	    cmocka_unit_test(test_identical_durations),
	    cmocka_unit_test(test_bimodal_2ms_4ms_is_two_groups),
	    cmocka_unit_test(test_few_large_instances_holding_the_time_are_a_group),
	    cmocka_unit_test(test_preemption_tail_is_a_group_above_the_mode),
	    cmocka_unit_test(test_two_modes_with_a_gap_and_a_tail),
	    cmocka_unit_test(test_outliers_a_minority_of_their_own_group),
	    cmocka_unit_test(test_promoted_outliers_are_not_one_mixed_group),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
