/* Fits on curves with known answers: piecewise-linear breakpoints and slopes,
 * Kriging of a smooth curve and its derivative, determinism. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>

#include "kriging.h"
#include "pwlr.h"

/* Cumulative share of a piecewise-constant rate with breaks b[] and rates r[]. */
static double cum(const double *b, const double *r, int k, double x)
{
	double total = 0, at = 0;
	for (int i = 0; i < k; i++) {
		double len = b[i + 1] - b[i];
		total += r[i] * len;
		if (x > b[i])
			at += r[i] * ((x < b[i + 1] ? x : b[i + 1]) - b[i]);
	}
	return at / total;
}

static void make(double *x, double *y, size_t n, const double *b, const double *r, int k, double noise, unsigned seed)
{
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, seed);
	for (size_t i = 0; i < n; i++) {
		x[i] = gsl_rng_uniform(g);
		y[i] = cum(b, r, k, x[i]) + gsl_ran_gaussian(g, noise);
	}
	gsl_rng_free(g);
}

static void test_break_at_037_found_within_1_percent(void **state)
{
	(void)state;
	enum { N = 1000 };
	double x[N], y[N];
	const double b[] = {0, 0.37, 1}, r[] = {1e9, 3e8};
	make(x, y, N, b, r, 2, 0.005, 7);
	fold__pwlr_series s = {x, y, N, NULL, 0};
	fold__pwlr_opts o;
	fold__pwlr_opts_init(&o);
	fold__pwlr_result res;
	assert_int_equal(fold__pwlr_fit(&s, 1, &o, &res), 0);
	assert_int_equal(res.nseg, 2);
	assert_true(fabs(res.bounds[1] - 0.37) < 0.01);
	/* slopes are relative rates: rate / mean rate */
	double mean = 1e9 * 0.37 + 3e8 * 0.63;
	assert_true(fabs(res.slope[0] * mean / 1e9 - 1) < 0.02);
	assert_true(fabs(res.slope[1] * mean / 3e8 - 1) < 0.02);
	fold__pwlr_result_free(&res);
}

static void test_three_phases_and_joint_series(void **state)
{
	(void)state;
	enum { N = 3000 };
	static double x1[N], y1[N], x2[N], y2[N];
	const double b[] = {0, 0.2, 0.65, 1}, r1[] = {5, 1, 3}, r2[] = {1, 1, 4};
	make(x1, y1, N, b, r1, 3, 0.004, 11);
	make(x2, y2, N, b, r2, 3, 0.004, 12);
	fold__pwlr_series s[2] = {{x1, y1, N, NULL, 0}, {x2, y2, N, NULL, 0}};
	fold__pwlr_opts o;
	fold__pwlr_opts_init(&o);
	fold__pwlr_result res;
	assert_int_equal(fold__pwlr_fit(s, 2, &o, &res), 0);
	assert_int_equal(res.nseg, 3);
	assert_true(fabs(res.bounds[1] - 0.2) < 0.01);
	assert_true(fabs(res.bounds[2] - 0.65) < 0.01);
	/* the fitted cumulative is monotone and pinned at 0 and 1 */
	double prev = -1;
	for (int i = 0; i <= 100; i++) {
		double c = fold__pwlr_cum(&res, 1, i / 100.0);
		assert_true(c >= prev - 1e-12);
		prev = c;
	}
	assert_true(fabs(fold__pwlr_cum(&res, 0, 1.0) - 1) < 1e-12);
	fold__pwlr_result_free(&res);
}

static void test_straight_line_is_one_phase(void **state)
{
	(void)state;
	enum { N = 2000 };
	double x[N], y[N];
	const double b[] = {0, 1}, r[] = {1};
	make(x, y, N, b, r, 1, 0.01, 3);
	fold__pwlr_series s = {x, y, N, NULL, 0};
	fold__pwlr_opts o;
	fold__pwlr_opts_init(&o);
	fold__pwlr_result res;
	assert_int_equal(fold__pwlr_fit(&s, 1, &o, &res), 0);
	assert_int_equal(res.nseg, 1);
	fold__pwlr_result_free(&res);
}

static void test_kriging_smooth_curve_and_rate(void **state)
{
	(void)state;
	enum { N = 5000, G = 101 };
	static double x[N], y[N], grid[G];
	gsl_rng *g = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(g, 5);
	for (size_t i = 0; i < N; i++) {
		x[i] = gsl_rng_uniform(g);
		y[i] = x[i] + 0.05 * sin(2 * M_PI * x[i]) + gsl_ran_gaussian(g, 0.01);
	}
	gsl_rng_free(g);
	for (int i = 0; i < G; i++)
		grid[i] = i / (double)(G - 1);
	fold__kriging_opts o;
	fold__kriging_opts_init(&o);
	fold__kriging_result r, r2;
	assert_int_equal(fold__kriging_fit(x, y, N, &o, grid, G, &r), 0);
	double maxe = 0, maxr = 0;
	for (int i = 5; i < G - 5; i++) {
		double c = grid[i] + 0.05 * sin(2 * M_PI * grid[i]);
		double rate = 1 + 0.1 * M_PI * cos(2 * M_PI * grid[i]);
		maxe = fmax(maxe, fabs(r.cum[i] - c));
		maxr = fmax(maxr, fabs(r.rate[i] - rate));
		assert_true(r.rate_lo[i] <= r.rate[i] && r.rate[i] <= r.rate_hi[i]);
		if (i)
			assert_true(r.cum[i] >= r.cum[i - 1]);
	}
	assert_true(maxe < 0.003);
	assert_true(maxr < 0.05); /* rate amplitude is 0.31 */
	assert_true(r.nbins > 0); /* 5000 points > 1000 bins: binned, and it says so */
	/* deterministic */
	assert_int_equal(fold__kriging_fit(x, y, N, &o, grid, G, &r2), 0);
	for (int i = 0; i < G; i++)
		assert_true(r.rate[i] == r2.rate[i]);
	fold__kriging_result_free(&r);
	fold__kriging_result_free(&r2);
}

static void test_kriging_refuses_too_few_points(void **state)
{
	(void)state;
	double x[3] = {0.1, 0.5, 0.9}, y[3] = {0.1, 0.5, 0.9}, grid[2] = {0, 1};
	fold__kriging_opts o;
	fold__kriging_opts_init(&o);
	fold__kriging_result r;
	assert_int_equal(fold__kriging_fit(x, y, 3, &o, grid, 2, &r), -EINVAL);
	fold__kriging_result_free(&r);
}

int main(void)
{
	gsl_set_error_handler_off();
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_break_at_037_found_within_1_percent),
	    cmocka_unit_test(test_three_phases_and_joint_series),
	    cmocka_unit_test(test_straight_line_is_one_phase),
	    cmocka_unit_test(test_kriging_smooth_curve_and_rate),
	    cmocka_unit_test(test_kriging_refuses_too_few_points),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
