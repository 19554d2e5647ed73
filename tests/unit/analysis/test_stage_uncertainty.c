/* test_stage_uncertainty.c: tests of stage_uncertainty.c: intervals and the self-check. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_ctx.h"
#include "analyze_test.h"
#include "contradicted_points.h"
#include "json.h"
#include "json_check.h"
#include "synth.h"
#include "trace_format.h"
#include "trace_writer.h"

/* Every phase rate lies inside its own interval. The bootstrap varies the
 * fit's interior slope, while the table may estimate a phase's rate
 * otherwise (events over time for a counter of a few events per
 * instance): 3 of 8 rates of this region sat outside their intervals. */
static void test_rates_inside_their_intervals(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.period_ns = 2e5;
	c.counters[0] = (synth_counter){"app::rare", TRACE_COUNTER_APP, {300, 40}, 0};
	c.cpu_clock_counter = 1; /* TASK-CLOCK, read at enter/exit, places the phases */
	fold_analysis *a = fold_synth_fit(&c, 0, NULL);
	const fold_region_result *r = region(a, "iteration");
	size_t checked = 0;
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		for (size_t k = 0; k < ph->nrates && k < ph->nrate_ci; k++) {
			double v = ph->rates[k], lo = ph->rate_lo[k], hi = ph->rate_hi[k];
			if (isnan(v) || isnan(lo) || isnan(hi))
				continue;
			checked++;
			if (v < lo - 1e-9 * fabs(v) || v > hi + 1e-9 * fabs(v))
				fail_msg("phase %zu, %s: rate %g outside its interval [%g, %g]", p + 1,
				         ph->rate_names[k], v, lo, hi);
		}
	}
	assert_true(checked >= 4);
	fold_analysis_free(a);
}

/* Every phase boundary and rate has a bootstrap interval, deterministic for
 * a seed, and the region has a self-check: two halves of the instances
 * folded apart agree on a clean two-phase region. */
static void test_intervals_and_self_check(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.noise = 0.02;
	c.seed = 5;
	assert_int_equal(synth_write(&c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	o.fit = "pwlr";
	o.diag = quiet;
	fold_analysis *a, *b;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	assert_int_equal(fold_analyze(paths, 1, &o, &b, err, sizeof err), 0);
	const fold_region_result *r = region(a, "iteration"), *r2 = region(b, "iteration");
	check_two_phases(r);
	assert_true(r->bootstrap_replicates >= 20);
	const fold_phase_result *p1 = &r->phases[1];
	assert_true(p1->start_lo <= p1->start && p1->start <= p1->start_hi);
	assert_true(p1->start_hi - p1->start_lo < 0.02);
	assert_true(p1->start_lo - 0.005 <= 0.37 && 0.37 <= p1->start_hi + 0.005);
	for (size_t p = 0; p < 2; p++) {
		const fold_phase_result *ph = &r->phases[p];
		assert_true(ph->nrate_ci >= 1);
		assert_string_equal(ph->rate_names[0], "app::work");
		double truth = p ? 3e8 : 1e9;
		assert_true(ph->rate_lo[0] < ph->rate_hi[0]);
		assert_true(ph->rate_lo[0] <= truth * 1.01 && truth * 0.99 <= ph->rate_hi[0]);
		assert_true(ph->rate_hi[0] - ph->rate_lo[0] < 0.05 * truth);
		/* deterministic */
		assert_true(ph->rate_lo[0] == r2->phases[p].rate_lo[0]);
		assert_true(ph->start_hi == r2->phases[p].start_hi);
	}
	const fold_self_check *sc = &r->self_check;
	assert_true(sc->done);
	assert_int_equal(sc->instances_a + sc->instances_b, r->instances_used);
	assert_int_equal(sc->phases_a, 2);
	assert_int_equal(sc->phases_b, 2);
	assert_true(sc->boundary < 0.01);
	assert_true(sc->rate > 0 && sc->rate < 0.03);
	assert_false(warned_about(a, "moves with the instance's duration"));
	assert_false(warned_about(a, "CPU share"));
	assert_false(warned_about(a, "ran on a CPU"));
	fold_analysis_free(a);
	fold_analysis_free(b);
}

/* The self-check's verdict scales with the evidence. Thin: 100 instances
 * at one sample each, whose halves disagree by more than the old fixed 5%
 * of the instance, are within their sampling noise: reproducible, no
 * warning. Strong: odd instances switch phase 4% of the instance later
 * than even ones (same durations), 20 samples per instance: below the old
 * fixed 5%, far beyond their noise: not reproducible, and said. */
static void test_self_check_scales_with_evidence(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 100;
	c.period_ns = 1e6;
	c.noise = 0.05;
	c.seed = 2;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	const fold_self_check *sc = &r->self_check;
	assert_true(sc->done);
	assert_true(sc->boundary > 0.05);                 /* failed under the fixed rule */
	assert_true(sc->boundary_allowed > sc->boundary); /* noise of 50 instances a half */
	assert_true(sc->rate_allowed >= 0.03);
	assert_true(sc->reproducible);
	assert_false(warned_about(a, "self-check failed"));
	fold_analysis_free(a);

	synth_config_init(&c);
	c.instances = 1000;
	c.odd_shift = 0.04;
	c.seed = 3;
	a = fold_synth(&c, 0);
	r = region(a, "iteration");
	sc = &r->self_check;
	assert_true(sc->done);
	assert_true(sc->boundary > 0.02 && sc->boundary < 0.05);
	assert_true(sc->boundary_allowed < sc->boundary);
	assert_false(sc->reproducible);
	assert_true(warned_about(a, "not reproducible"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_SELF_CHECK_FAILED);
	assert_non_null(d);
	assert_true(fabs(diag_value(d, "boundary") - sc->boundary) < 1e-12);
	assert_true(diag_value(d, "worst") > diag_value(d, "allowed"));
	fold_analysis_free(a);
}

/* One phase: the bootstrap over instances varies each instance's shape,
 * whose slope over the whole instance is 1 in every replicate, so the rate
 * had an interval of zero width ("page faults 508/s [508, 508]" resting
 * mostly on 2 of 197 instances). The scale's own spread over the instances
 * is in the interval now, which holds the truth. */
static void test_one_phase_rate_has_an_interval(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 3; seed++) {
		synth_config c;
		synth_config_init(&c);
		c.instances = 200;
		c.nphases = 1;
		c.bounds[1] = 1;
		c.cpu[0] = 1;
		c.counters[0].rate[0] = 1e9;
		c.noise = 0.3;
		c.seed = seed;
		fold_analysis *a = fold_synth(&c, 0);
		const fold_region_result *r = region(a, "iteration");
		assert_true(r->folded);
		assert_int_equal(r->nphases, 1);
		const fold_phase_result *ph = &r->phases[0];
		size_t k = rate_index(ph, "app::work");
		assert_true(k < ph->nrates && k < ph->nrate_ci);
		double v = ph->rates[k], lo = ph->rate_lo[k], hi = ph->rate_hi[k];
		print_message("seed %u: app::work %.4g/s [%.4g, %.4g], truth 1e9\n", seed, v, lo, hi);
		assert_true(lo <= v && v <= hi);
		assert_true(hi - lo > 0.01 * v);
		assert_true(lo <= 1e9 && 1e9 <= hi);
		fold_analysis_free(a);
	}
}

/* A busy region (one CPU throughout) sampled less than once per instance:
 * its CPU clock's rate in each phase comes from the instances' own values
 * at enter and exit, and the interval's lower end from what one CPU in the
 * other phase leaves of each shared gap, less a 10% slack (the demo's
 * first phase read 1.00 CPUs [0.12, 1.00]; the phase here read [0.15, 1]). */
static void test_busy_cpu_clock_interval_is_tight(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 300;
	c.groups[0].duration_ns = 5e6;
	c.cpu[0] = c.cpu[1] = 1.0;
	c.cpu_clock_counter = 1;
	c.period_ns = 10e6;
	c.noise = 0.02;
	c.seed = 5;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		size_t k = rate_index(ph, "perf::TASK-CLOCK");
		assert_true(k < ph->nrates && k < ph->nrate_ci);
		print_message("phase %zu [%.3f, %.3f]: TASK-CLOCK %.4g [%.4g, %.4g]\n", p + 1, ph->start,
		              ph->end, ph->rates[k], ph->rate_lo[k], ph->rate_hi[k]);
		assert_true(fabs(ph->rates[k] / 1e9 - 1) < 0.02);
		assert_true(ph->rate_lo[k] > 0.75e9);
	}
	fold_analysis_free(a);
}

/* stage_uncertainty alone, on a work record built by hand: one counter
 * whose 100 instances rise at twice the mean rate up to 0.4 and at a third
 * of it after (the fit by stage_phases, the phase table written here as
 * stage_table would). Every phase gets an interval holding its rate, the
 * boundary's interval holds 0.4, and the two halves of the instances agree:
 * the self-check passes and nothing is warned of. */
static void test_uncertainty_stage_on_a_hand_built_record(void **state)
{
	(void)state;
	hand_record h;
	hand_record_init(&h, 7);
	fold_series series = {.name = "ctr"};
	h.r.series = &series;
	h.r.nseries = 1;
	assert_int_equal(stage_phases(&h.c, &h.w), 0);
	const pwlr__result *pr = &h.w.pr;
	assert_true(pr->nseg >= 2);
	/* the phase table, as stage_table writes it */
	fold_phase_result *ph = calloc(pr->nseg, sizeof *ph);
	double *rates = calloc(pr->nseg, sizeof *rates);
	assert_true(ph && rates);
	for (size_t p = 0; p < pr->nseg; p++) {
		ph[p].start = pr->bounds[p];
		ph[p].end = p + 1 < pr->nseg ? pr->bounds[p + 1] : 1;
		rates[p] = pr->slope[p] * h.w.sw->rscale;
		ph[p].rates = &rates[p];
		ph[p].nrates = 1;
	}
	h.r.phases = ph;
	h.r.nphases = pr->nseg;
	assert_int_equal(stage_uncertainty(&h.c, &h.w), 0);
	assert_true(h.r.bootstrap_replicates > 0);
	int boundary_held = 0;
	for (size_t p = 0; p < h.r.nphases; p++) {
		assert_int_equal(ph[p].nrate_ci, 1);
		assert_true(ph[p].rate_lo[0] <= rates[p] && rates[p] <= ph[p].rate_hi[0]);
		assert_true(ph[p].rate_hi[0] - ph[p].rate_lo[0] < 0.2 * rates[p]);
		if (p > 0 && ph[p].start_lo <= 0.4 + 0.015 && 0.4 - 0.015 <= ph[p].start_hi)
			boundary_held = 1;
	}
	assert_true(boundary_held);
	assert_true(h.r.self_check.done);
	assert_true(h.r.self_check.reproducible);
	assert_int_equal(h.a.nwarnings, 0);
	for (size_t p = 0; p < h.r.nphases; p++) {
		free(ph[p].rate_lo);
		free(ph[p].rate_hi);
	}
	free(ph);
	free(rates);
	hand_record_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uncertainty_stage_on_a_hand_built_record),
	    cmocka_unit_test_setup_teardown(test_busy_cpu_clock_interval_is_tight, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_one_phase_rate_has_an_interval, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_intervals_and_self_check, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_rates_inside_their_intervals, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_self_check_scales_with_evidence, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
