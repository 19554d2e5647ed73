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
	fold__grouping_opts o;
	fold__grouping_opts_init(&o);
	fold__group_stat st[8];
	assert_int_equal(fold__group_durations(d, N, &o, g, why, &ng, st), 0);
	assert_int_equal(ng, 2);
	for (unsigned i = 0; i < 100; i++) {
		assert_int_equal(g[i], 0);
		assert_int_equal(why[i], 0);
	}
	for (unsigned i = 100; i < 150; i++) {
		assert_int_equal(g[i], 1);
		assert_int_equal(why[i], 0);
	}
	assert_int_equal(why[150], 2); /* isolated cluster */
	assert_int_equal(why[151], 2);
	assert_int_not_equal(why[152], 0); /* 20% off its group: excluded */
	assert_int_equal(st[0].used, 100);
	assert_int_equal(st[1].used, 50);
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
	fold__grouping_opts o;
	fold__grouping_opts_init(&o);
	assert_int_equal(fold__group_durations(d, N, &o, g, why, &ng, NULL), 0);
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
	fold__grouping_opts o;
	fold__grouping_opts_init(&o);
	assert_int_equal(fold__group_durations(d, 10, &o, g, why, &ng, NULL), 0);
	assert_int_equal(ng, 1);
	for (int i = 0; i < 10; i++)
		assert_int_equal(why[i], 0);
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
 * a long one-sided tail. Without a gap in the density that is one group;
 * its centre is the mode (even when most instances are stretched), and the
 * stretched instances are outliers, not groups of their own. */
static void test_preemption_tail_is_one_group_centred_on_the_mode(void **state)
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
		fold__grouping_opts o;
		fold__grouping_opts_init(&o);
		fold__group_stat st[8];
		assert_int_equal(fold__group_durations(d, N, &o, g, why, &ng, st), 0);
		assert_int_equal(ng, 1);
		assert_true(fabs(st[0].median / 5e6 - 1) < 0.01);
		assert_true(fabs(st[0].mean / 5e6 - 1) < 0.01);
		for (unsigned i = 0; i < N; i++) {
			if (!stretched[i] ||
			    d[i] < 5.1e6) /* unperturbed (or barely stretched) instances are used */
				assert_int_equal(why[i], 0);
			if (d[i] > 5.5e6) /* stretched by 10% or more: excluded */
				assert_int_not_equal(why[i], 0);
		}
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
	fold__grouping_opts o;
	fold__grouping_opts_init(&o);
	fold__group_stat st[8];
	assert_int_equal(fold__group_durations(d, N, &o, g, why, &ng, st), 0);
	assert_int_equal(ng, 2);
	assert_true(fabs(st[0].median / 5e6 - 1) < 0.01);
	assert_true(fabs(st[1].median / 8e6 - 1) < 0.01);
	for (unsigned i = 0; i < N; i++)
		if (i % 10 != 0)
			assert_int_equal(g[i], i % 3 == 2 ? 1u : 0u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_two_groups_and_outliers),
	    cmocka_unit_test(test_uniform_jitter_is_one_group),
	    cmocka_unit_test(test_identical_durations),
	    cmocka_unit_test(test_preemption_tail_is_one_group_centred_on_the_mode),
	    cmocka_unit_test(test_two_modes_with_a_gap_and_a_tail),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
