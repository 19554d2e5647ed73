/* test_synth_truth.c: the synthetic generator writes the truth the truth
 * bench judges by (tests/tools/synth.h, truth_eval.h): populations that
 * interleave by weight, a group that runs the phases in the opposite order,
 * smooth rate curves, and the truth's phases as fold should see them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "analyze_test.h"
#include "synth.h"
#include "trace_format.h"
#include "truth_eval.h"

/* Regular membership: two groups of weights 1 and 1 alternate; 0.7 and 0.3
 * hold 30% of the instances, never two of the minority in a row. */
static void test_groups_interleave_by_weight(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 100;
	c.ngroups = 2;
	c.groups[0] = (synth_group){1e6, 1, 1};
	c.groups[1] = (synth_group){1e6, 1, 2};
	c.groups_regular = 1;
	synth_instance in[100];
	assert_int_equal(synth_write_instances(&c, trace, NULL, in, 100), 0);
	for (int i = 0; i < 100; i++)
		assert_int_equal(in[i].group, (unsigned)(i % 2));
	c.groups[0].weight = 0.7;
	c.groups[1].weight = 0.3;
	assert_int_equal(synth_write_instances(&c, trace, NULL, in, 100), 0);
	unsigned minority = 0;
	for (int i = 0; i < 100; i++) {
		minority += in[i].group == 1;
		if (i > 0)
			assert_false(in[i].group == 1 && in[i - 1].group == 1);
		assert_true(in[i].duration_ns > 0);
		if (i > 0)
			assert_true(in[i].start_ns > in[i - 1].start_ns);
	}
	assert_int_equal(minority, 30);
}

/* A reversed group runs the phases backwards: 3e8/s over the first 63%,
 * then 1e9/s, and fold finds it so. */
static void test_reversed_group_runs_the_phases_backwards(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 1000;
	c.group_reversed[0] = 1;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->nphases, 2);
	assert_true(fabs(r->phases[1].start - 0.63) < 0.01);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / 3e8 - 1) < 0.02);
	assert_true(fabs(rate_of(&r->phases[1], "app::work") / 1e9 - 1) < 0.02);
	fold_analysis_free(a);
}

/* A smooth curve multiplies the rate: an instance holds the integral of
 * the sine (its events per instance), and a ramp's folded curve follows the
 * line from 0.5x to 1.5x of the rate. */
static void test_smooth_curves_are_what_they_say(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 1000;
	c.nphases = 1;
	c.bounds[1] = 1;
	c.counters[0].rate[0] = 5e8;
	c.cpu[0] = 1;
	c.duration_jitter = 0;
	c.shape = SYNTH_SHAPE_SINE;
	c.shape_amp = 0.4;
	c.shape_freq = 0.75;
	c.shape_phi = 0.3;
	/* the mean of 1 + a sin(2 pi f x + phi) over [0, 1] */
	double w = 2 * M_PI * c.shape_freq;
	double mean = 1 - c.shape_amp / w * (cos(w + c.shape_phi) - cos(c.shape_phi));
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(fabs(r->series[0].total_per_instance / (5e8 * 1e-3 * mean) - 1) < 0.002);
	fold_analysis_free(a);
	c.shape = SYNTH_SHAPE_RAMP;
	c.shape_amp = 0.5;
	a = fold_synth_fit(&c, 0, NULL);
	r = region(a, "iteration");
	const fold_curve *fit = &r->series[0].fit;
	assert_true(fit->n > 10);
	for (size_t i = 0; i < fit->n; i++)
		if (fit->x[i] > 0.1 && fit->x[i] < 0.9)
			assert_true(fabs(fit->value[i] / (5e8 * synth_shape_at(&c, fit->x[i])) - 1) < 0.03);
	fold_analysis_free(a);
}

/* The truth as fold should see it: equal neighbours are one phase; a
 * reversed population's phases run backwards; a phase without 3 expected
 * samples is not resolvable. */
static void test_truth_phases(void **state)
{
	(void)state;
	truth_scenario s;
	memset(&s, 0, sizeof s);
	synth_config_init(&s.cfg);
	s.cfg.nphases = 3;
	const double b[] = {0, 0.2, 0.5, 1}, rate[] = {1e9, 1e9, 2e8};
	memcpy(s.cfg.bounds, b, sizeof b);
	memcpy(s.cfg.counters[0].rate, rate, sizeof rate);
	s.cfg.cpu[0] = s.cfg.cpu[1] = s.cfg.cpu[2] = 1;
	truth_phases t;
	truth_phases_of(&s, 0, 1000, &t);
	assert_int_equal(t.n, 2);
	assert_true(fabs(t.bounds[1] - 0.5) < 1e-12);
	assert_true(t.resolvable[0] && t.resolvable[1]);
	s.cfg.group_reversed[0] = 1;
	truth_phases_of(&s, 0, 1000, &t);
	assert_int_equal(t.n, 2);
	assert_true(fabs(t.bounds[1] - 0.5) < 1e-12);
	assert_true(fabs(t.rate[0] - 2e8) < 1);
	s.cfg.cpu[2] = 0.5;
	s.cfg.bounds[2] = 0.99; /* 1% of 200 samples: 2 */
	truth_phases_of(&s, 0, 200, &t);
	assert_int_equal(t.n, 2);
	assert_false(t.resolvable[0]);
	assert_true(t.resolvable[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_groups_interleave_by_weight, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_reversed_group_runs_the_phases_backwards, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_smooth_curves_are_what_they_say, setup, teardown),
	    cmocka_unit_test(test_truth_phases),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
