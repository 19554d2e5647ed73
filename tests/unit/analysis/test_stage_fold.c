/* test_stage_fold.c: tests of stage_fold.c: the folded series (one CPU time series, no value leaking from a
 * neighbour). */
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

/* A function region (no counters read at enter/exit) that takes no page
 * faults, between neighbours that take 1e6 faults/s; about 4 samples per
 * instance. Boundary values must not be interpolated from the neighbours'
 * samples (their faults would leak in and make phases): the region's
 * page-fault rate is 0 in every phase, and its series say their boundary
 * values are estimated. */
static void test_unmeasured_boundaries_do_not_leak_neighbours(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.boundary_counters = 0;
	c.period_ns = 2.5e5;
	c.sample_jitter = 0.3;
	c.instances = 400;
	c.ncounters = 2;
	c.counters[1] = (synth_counter){"perf::PAGE-FAULTS", TRACE_COUNTER_SOFTWARE, {0, 0}, 1e6};
	assert_int_equal(synth_write(&c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	const fold_series *pf = series_of(r, "perf::PAGE-FAULTS");
	if (pf) {
		assert_true(pf->total_per_instance == 0);
		assert_true(pf->boundaries_estimated);
	}
	for (size_t p = 0; p < r->nphases; p++)
		for (size_t k = 0; k < r->phases[p].nrates; k++)
			if (!strcmp(r->phases[p].rate_names[k], "perf::PAGE-FAULTS"))
				assert_true(r->phases[p].rates[k] == 0);
	const fold_series *w = series_of(r, "app::work");
	assert_non_null(w);
	assert_true(w->boundaries_estimated);
	assert_true(w->instances_folded > 300);
	fold_analysis_free(a);
}

/* A counter the instances carry but that never moves in them has no series
 * and the user is told which: a CPU clock that stands still (corrected for
 * more than it counted) as a warning, another counter that counted nothing
 * (no context switch) in the fit's notes, never left to wonder where it
 * went. */
static void test_series_that_does_not_fold_is_said(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.ncounters = 3;
	c.counters[1] = (synth_counter){"perf::CONTEXT-SWITCHES", TRACE_COUNTER_SOFTWARE, {0, 0}, 0};
	c.counters[2] = (synth_counter){"perf::TASK-CLOCK", TRACE_COUNTER_SOFTWARE, {0, 0}, 0};
	assert_int_equal(synth_write(&c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	assert_null(series_of(r, "perf::CONTEXT-SWITCHES"));
	assert_null(series_of(r, "perf::TASK-CLOCK"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_SERIES_NOT_FOLDED);
	assert_non_null(d);
	assert_non_null(strstr(d->what, "perf::TASK-CLOCK"));
	assert_null(strstr(d->what, "CONTEXT-SWITCHES"));
	assert_true(diag_value(d, "instances") >= 150);
	assert_true(diag_value(d, "gained") == 0);
	const char *note = NULL;
	for (size_t i = 0; i < r->nfit_notes; i++)
		if (!strcmp(r->fit_notes[i].key, "series_empty"))
			note = r->fit_notes[i].value;
	assert_non_null(note);
	assert_non_null(strstr(note, "perf::CONTEXT-SWITCHES"));
	fold_analysis_free(a);
}

/* Physical bounds and one CPU-time series: a region with CPU utilisation
 * 1.0 then 0.5 and a TASK-CLOCK counter read at enter/exit. fold keeps one
 * CPU-time series (the measured TASK-CLOCK; cpu_time dropped, said in
 * fit_params), and no CPU rate, curve or band exceeds one CPU (the Kriging
 * curve overshoots at the step otherwise). */
static void test_cpu_rates_bounded_one_series(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.cpu[0] = 1.0;
	c.cpu[1] = 0.5;
	c.noise = 0.05;
	c.ncounters = 2;
	c.counters[1] = (synth_counter){"perf::TASK-CLOCK", TRACE_COUNTER_SOFTWARE, {1e9, 5e8}, 1e9};
	assert_int_equal(synth_write(&c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	assert_null(series_of(r, "cpu_time"));
	const fold_series *tc = series_of(r, "perf::TASK-CLOCK");
	assert_non_null(tc);
	int said = 0;
	for (size_t i = 0; i < r->nfit_notes; i++)
		said |= !strcmp(r->fit_notes[i].key, "cpu_series") &&
		        strstr(r->fit_notes[i].value, "perf::TASK-CLOCK") == r->fit_notes[i].value;
	assert_true(said);
	for (size_t k = 0; k < r->nseries; k++) {
		const fold_series *sr = &r->series[k];
		double max = !strcmp(sr->name, "perf::TASK-CLOCK")  ? 1e9
		             : !strcmp(sr->name, "cpu_utilisation") ? 1
		                                                    : 0;
		if (!max)
			continue;
		for (size_t i = 0; i < sr->fit.n; i++) {
			assert_true(sr->fit.value[i] <= max * (1 + 1e-12));
			if (sr->fit.hi)
				assert_true(sr->fit.hi[i] <= max * (1 + 1e-12));
		}
		for (size_t p = 0; p < r->nphases; p++)
			for (size_t q = 0; q < r->phases[p].nrates; q++)
				if (!strcmp(r->phases[p].rate_names[q], sr->name))
					assert_true(!(r->phases[p].rates[q] > max * (1 + 1e-12)));
	}
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_unmeasured_boundaries_do_not_leak_neighbours, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_series_that_does_not_fold_is_said, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_rates_bounded_one_series, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
