/* test_stage_rates.c: tests of stage_rates.c: rates from sample pairs and from the instances' own values. */
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

/* Series whose values at enter/exit are estimated (no boundary counters,
 * as in function regions; CPU time always): the fitted shape, scaled by the
 * instance's mean rate, smeared phase 0's rate towards the mean (app::work
 * 6.1e8/s for 1e9, cpu_time 0.73 for 1.0). Their phase rates now come from
 * consecutive samples of one instance inside the phase, and a phase with
 * too few such pairs has no rate rather than the instance's mean. The
 * boundaries need about 10 samples per instance (FOLDING__EXTRAPOLATE_MIN):
 * at 3.3 they were placed at 0.318 for 0.37 (without noise: 4 phases, two
 * of them at 0/s), so there the region gets one phase at its mean rates
 * and a warning that says why. */
static void test_estimated_series_rates_from_sample_pairs(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.period_ns = 1e5;
	c.boundary_counters = 0;
	c.noise = 0.05;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->nphases, 2);
	assert_true(fabs(r->phases[0].end - 0.37) < 0.01);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / 1e9 - 1) < 0.03);
	assert_true(fabs(rate_of(&r->phases[1], "app::work") / 3e8 - 1) < 0.03);
	assert_true(fabs(rate_of(&r->phases[0], "cpu_time") - 1.0) < 0.03);
	assert_true(fabs(rate_of(&r->phases[1], "cpu_time") - 0.5) < 0.03);
	/* the curve agrees with the table */
	const fold_series *se = series_of(r, "app::work");
	assert_non_null(se);
	for (size_t i = 0; i < se->fit.n; i++)
		if (se->fit.x[i] > 0.05 && se->fit.x[i] < 0.25)
			assert_true(fabs(se->fit.value[i] / rate_of(&r->phases[0], "app::work") - 1) < 1e-9);
	fold_analysis_free(a);

	/* 3.3 samples per instance: one phase at the mean rates, said */
	c.period_ns = 3e5;
	a = fold_synth(&c, 0);
	r = region(a, "iteration");
	assert_int_equal(r->nphases, 1);
	assert_true(warned_about(a, "one phase shown"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_ONE_PHASE);
	assert_non_null(d);
	assert_true(fabs(diag_value(d, "samples_per_instance") - 3.3) < 0.3);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / (0.37 * 1e9 + 0.63 * 3e8) - 1) < 0.05);
	fold_analysis_free(a);

	/* one sample per instance: no pair inside a phase, no cpu_time rate */
	synth_config_init(&c);
	c.instances = 100;
	c.period_ns = 1e6;
	c.noise = 0.05;
	c.seed = 1;
	a = fold_synth(&c, 0);
	r = region(a, "iteration");
	for (size_t p = 0; p < r->nphases; p++)
		assert_true(isnan(rate_of(&r->phases[p], "cpu_time")));
	fold_analysis_free(a);
}

/* A series measured at enter/exit in all but a few instances (a counter
 * set switched between them) keeps its fitted rates: only a series whose
 * boundary values are mostly estimated takes them from sample pairs, which
 * at one sample per instance leave no rate at all (a loaded CI run showed a
 * page-fault series with no rate in either phase that way). */
static void test_mostly_measured_series_keeps_its_rates(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.period_ns = 1e6;
	c.boundary_missing = 0.02;
	c.seed = 5;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->nphases, 2);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / 1e9 - 1) < 0.05);
	assert_true(fabs(rate_of(&r->phases[1], "app::work") / 3e8 - 1) < 0.05);
	fold_analysis_free(a);
}

/* A region preempted near the end of its work (MPI_Waitall under load): the
 * folded points of the phase after the preemption's start mix instances
 * whose counters are flat there with the few that still run, and the fit's
 * slope over it sat at 0 ("TASK-CLOCK 0/s [0, 0]" over a phase where the
 * thread ran 4% of the time). The phase's rate comes from each instance's
 * own values at its bounds instead, and its interval holds what the points
 * allow. */
static void test_rate_at_bound_from_the_instances(void **state)
{
	(void)state;
	for (unsigned seed = 0; seed < 3; seed++) {
		synth_config c;
		synth_config_init(&c);
		c.instances = 400;
		c.nphases = 1;
		c.bounds[1] = 1;
		c.cpu[0] = 1.0;
		c.counters[0].rate[0] = 1e9;
		double active = 3.6e6, at = 0.957;
		c.groups[0] = (synth_group){active, 1, 1};
		c.preempt = 1.0;
		c.preempt_fixed = 1;
		c.preempt_mean_ns = 4e6;
		c.preempt_at = at;
		c.noise = 0.05;
		c.period_ns = 1e6;
		c.sample_jitter = 0.5;
		c.sample_cost_ns = 12e3;
		c.sample_handler_ns = 6e3;
		c.sample_lag_ns = 1e3;
		c.sample_after_ns = 1e3;
		c.sample_delivery_recorded = 1;
		c.sample_deferred = 1;
		c.cpu_clock_counter = 1;
		c.seed = 88 + seed;
		fold_analysis *a = fold_synth(&c, 0);
		const fold_region_result *r = region(a, "iteration");
		assert_true(r->folded);
		const fold_phase_result *last = &r->phases[r->nphases - 1];
		size_t k = rate_index(last, "perf::TASK-CLOCK");
		assert_true(k < last->nrates && k < last->nrate_ci);
		/* what the program ran in the last phase, per instance of the
		 * folded (compensated) duration: all its work after the phase's
		 * start */
		double d = r->folded_mean_duration_ns, start = last->start;
		double before = fmin(start * d, at * active);
		double truth = (active - before) / ((1 - start) * d) * 1e9;
		double rate = last->rates[k], lo = last->rate_lo[k], hi = last->rate_hi[k];
		int redone = 0;
		redone |= fit_param_of(r, "rates.at_bound_from_instances") != NULL;
		print_message(
		    "seed %u: last phase [%.3f, 1] TASK-CLOCK %.4g/s [%.4g, %.4g], truth %.4g/s%s\n", seed,
		    start, rate, lo, hi, truth, redone ? " (from the instances)" : "");
		assert_true(start > 0.4 && start < at * active / d + 0.02);
		assert_true(rate > 0);
		assert_true(lo <= rate && rate <= hi);
		assert_true(lo <= truth && truth <= hi);
		assert_true(hi < 0.3e9);
		/* the gap around the phase's start runs at the phase before's
		 * rate up to it, not half of it (linear: 8.1e7 against 4.1e7) */
		assert_true(fabs(rate / truth - 1) < 0.15);
		fold_analysis_free(a);
	}
}

/* A starved region (every instance preempted once, 5 ms on 4 ms of work:
 * about half its time on a CPU): the instances' points disagree wherever
 * the scheduler paused them, and the fit's slopes over the phases' interiors
 * weighed the instances that ran there. app::work read 1.19e9 and 3.8e8/s,
 * which sum over the phases to 5.7e8/s where the instances did 3.55e8/s,
 * and the first above the code's own 1e9 when it runs. Its phase rates now
 * come from the instances' own values over each phase, all of them: the
 * table accounts for what the instances did. */
static void test_starved_rates_from_the_instances(void **state)
{
	(void)state;
	for (unsigned seed = 1; seed <= 3; seed++) {
		synth_config c;
		synth_config_init(&c);
		c.instances = 300;
		c.bounds[1] = 0.6;
		c.cpu[1] = 1.0;
		c.groups[0] = (synth_group){4e6, 1, 1};
		c.period_ns = 1e6;
		c.preempt = 1.0;
		c.preempt_mean_ns = 5e6;
		c.cputime_sampling = 1;
		c.seed = seed;
		fold_analysis *a = fold_synth(&c, 0);
		const fold_region_result *r = region(a, "iteration");
		assert_true(r->folded);
		assert_true(r->groups[r->selected_group].cpu_share < 0.6);
		const fold_series *s = series_of(r, "app::work");
		assert_non_null(s);
		double sum = 0;
		int redone = 0;
		redone |= fit_param_of(r, "rates.from_instances") != NULL;
		for (size_t p = 0; p < r->nphases; p++) {
			const fold_phase_result *ph = &r->phases[p];
			size_t k = rate_index(ph, "app::work");
			assert_true(k < ph->nrates && k < ph->nrate_ci);
			print_message("seed %u: [%.3f, %.3f] app::work %.4g/s [%.4g, %.4g]\n", seed,
			              ph->start, ph->end, ph->rates[k], ph->rate_lo[k], ph->rate_hi[k]);
			assert_true(ph->rate_lo[k] <= ph->rates[k] && ph->rates[k] <= ph->rate_hi[k]);
			assert_true(ph->rates[k] <= 1.02e9);
			sum += ph->rates[k] * (ph->end - ph->start);
		}
		print_message("seed %u: phases sum to %.4g/s, the instances did %.4g/s%s\n", seed, sum,
		              s->mean_rate, redone ? " (rates from the instances)" : "");
		assert_true(redone);
		assert_true(fabs(sum / s->mean_rate - 1) < 0.03);
		fold_analysis_free(a);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_rate_at_bound_from_the_instances, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_starved_rates_from_the_instances, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_estimated_series_rates_from_sample_pairs, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_mostly_measured_series_keeps_its_rates, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
