/* test_stage_curves.c: tests of stage_curves.c: the series curves and their steps. */
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
#include "region_work.h"
#include "synth.h"
#include "trace_format.h"
#include "trace_writer.h"

/* A counter with an event in a handful of instances has a few folded
 * points: too few for a Kriging curve, which is expected and no failure to
 * warn about (the README demo's page faults said "Kriging fit failed"). */
static void test_sparse_counter_no_kriging_failure(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.period_ns = 5e5;
	c.ncounters = 2;
	c.counters[1] = (synth_counter){"app::rare", TRACE_COUNTER_APP, {15, 0}, 0};
	fold_analysis *a = fold_synth_fit(&c, 0, NULL);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	assert_false(warned_about(a, "Kriging fit failed"));
	const char *few = fit_param_of(r, "kriging.too_few_points");
	assert_non_null(few);
	assert_non_null(strstr(few, "app::rare"));
	fold_analysis_free(a);
}

/* A counter of a few events per instance (0.55 page faults per 1.6 ms
 * instance, read at enter/exit) beside one that places the phases. Its
 * phase rates are its events in each phase over the phase's time: they add
 * up to its mean rate (they read 1.8 times it: the median instance's count
 * of 1 event scaled them) and find the quiet phase (the points near each
 * phase's ends, a handful of 0s and 1s, read 160/s as 0 to 700/s). Its curve
 * is the steps of those rates: the same count, not a shape of 0s and 1s. */
static void test_sparse_counter_counts_its_events(void **state)
{
	(void)state;
	static const double truth[3] = {430, 160, 360};
	for (uint64_t seed = 1; seed <= 3; seed++) {
		synth_config c;
		synth_config_init(&c);
		c.seed = seed;
		c.instances = 200;
		c.groups[0].duration_ns = 1.6e6;
		c.period_ns = 1e5;
		c.noise = 0.05;
		c.nphases = 3;
		c.bounds[1] = 0.38;
		c.bounds[2] = 0.615;
		c.bounds[3] = 1;
		c.cpu[2] = 1;
		c.ncounters = 2;
		c.counters[0] = (synth_counter){"app::work", TRACE_COUNTER_APP, {1e9, 3e8, 1e9}, 0};
		c.counters[1] = (synth_counter){"app::faults", TRACE_COUNTER_APP, {430, 160, 360}, 0};
		fold_analysis *a = fold_synth(&c, 0);
		const fold_region_result *r = region(a, "iteration");
		assert_int_equal(r->nphases, 3);
		const fold_series *se = series_of(r, "app::faults");
		assert_non_null(se);
		double total = 0;
		for (size_t p = 0; p < 3; p++) {
			double v = rate_of(&r->phases[p], "app::faults");
			total += v * (r->phases[p].end - r->phases[p].start);
			if (fabs(v / truth[p] - 1) > 0.3)
				fail_msg("seed %u phase %zu: %.0f/s, truth %.0f/s", (unsigned)seed, p, v,
				         truth[p]);
		}
		assert_true(fabs(total / se->mean_rate - 1) < 0.02);
		for (size_t i = 0; i < se->fit.n; i++) {
			double x = se->fit.x[i];
			for (size_t p = 0; p < 3; p++)
				if (x > r->phases[p].start + 0.01 && x < r->phases[p].end - 0.01)
					assert_true(
					    fabs(se->fit.value[i] / rate_of(&r->phases[p], "app::faults") -
					         1) < 1e-9);
		}
		int said = 0;
		for (size_t i = 0; i < r->nfit_notes; i++)
			said |= !strcmp(r->fit_notes[i].key, "curve.steps") &&
			        strstr(r->fit_notes[i].value, "app::faults") != NULL;
		assert_true(said);
		fold_analysis_free(a);
	}
}

/* A withheld shape (docs/folding.md): 24 instances of a region, each with
 * one sample at the folded points of a loaded CloverLeaf burst, whose
 * instances were paused at different moments (test_fits.c has the same
 * points). The fit withholds the shape of the one phase; the curve is then
 * the table's rate, 1e9/s (each instance does 1e6 in 1 ms), and its band
 * the rate's interval over the instances: before, the band was the
 * envelope of the withheld fit's, [0, 9.4e9], and the line 1.024e9. */
static void test_withheld_band_is_the_phase_interval(void **state)
{
	(void)state;
	const double(*pts)[2] = contradicted_points;
	enum { N = sizeof contradicted_points / sizeof *contradicted_points };
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 1 << 16), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	uint32_t ids[1] = {1};
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 1, TRACE_COUNTER_APP, "app::work");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "burst");
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 1);
	assert_int_equal(rc, 0);
	uint64_t t = 1000000, frames[1] = {0x401000}, v = 0;
	const uint64_t d = 1000000, work = 1000000;
	for (unsigned i = 0; i < N; i++) {
		uint64_t v64[1] = {v};
		TRACE_PUT(rc, w, 1, trace_enc_enter, t, 1, v64);
		v64[0] = v + (uint64_t)(pts[i][1] * work);
		TRACE_PUT(rc, w, 1, trace_enc_sample, t + (uint64_t)(pts[i][0] * d), frames, 1, 0, v64);
		v += work;
		v64[0] = v;
		TRACE_PUT(rc, w, 1, trace_enc_exit, t + d, 1, v64);
		t += d + 100000;
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, t);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "burst");
	assert_true(r->folded);
	assert_int_equal(r->nphases, 1);
	int said = 0;
	said |= fit_param_of(r, "curve.shape_withheld.app::work") != NULL;
	assert_true(said);
	const fold_series *s = series_of(r, "app::work");
	assert_non_null(s);
	assert_non_null(s->fit.lo);
	const fold_phase_result *ph = &r->phases[0];
	size_t k = (size_t)(s - r->series);
	assert_true(k < ph->nrate_ci && ph->rate_hi[k] > ph->rate_lo[k]);
	assert_true(fabs(ph->rates[k] - 1e9) < 1e3);
	for (size_t i = 0; i < s->fit.n; i++) {
		assert_true(fabs(s->fit.value[i] - ph->rates[k]) < 1e-6 * ph->rates[k]);
		assert_true(s->fit.lo[i] == ph->rate_lo[k] && s->fit.hi[i] == ph->rate_hi[k]);
	}
	fold_analysis_free(a);
}

/* stage_steps alone, on a work record built by hand: a sparse counter (3
 * events per instance, read at enter and exit) whose two phases hold 100/s
 * and 300/s gets the steps of those rates as its curve, its cumulative their
 * integral, whatever the fit drew, and a curve.steps note naming it. */
static void test_steps_stage_on_a_hand_built_record(void **state)
{
	(void)state;
	double x[] = {0, 0.2, 0.39, 0.5, 1}, value[5] = {7, 7, 7, 7, 7}, cum[5] = {0};
	double rate0 = 100, rate1 = 300;
	char *names[] = {"app::rare"};
	fold_group group = {.cpu_share = 0.5};
	fold_series series = {.name = "app::rare", .fit = {5, x, cum, value, NULL, NULL}};
	fold_phase_result ph[2] = {
	    {.start = 0, .end = 0.4, .rate_names = names, .rates = &rate0, .nrates = 1},
	    {.start = 0.4, .end = 1, .rate_names = names, .rates = &rate1, .nrates = 1}};
	fold_region_result r = {.name = "r",
	                        .groups = &group,
	                        .ngroups = 1,
	                        .series = &series,
	                        .nseries = 1,
	                        .phases = ph,
	                        .nphases = 2};
	series_work sw = {.skind = FOLD__SER_COUNTER, .f = {.ninst = 100, .nexact = 100, .sum_total = 300}};
	region_work w = {.r = &r, .sw = &sw, .nsw = 1, .pr = {.nseg = 2, .bounds = {0, 0.4, 1}}};
	assert_int_equal(stage_steps(NULL, &w), 0);
	double want[] = {100, 100, 100, 300, 300}, total = 0.4 * 100 + 0.6 * 300;
	double want_cum[] = {0, 20 / total, 39 / total, 70 / total, 1};
	for (size_t i = 0; i < 5; i++) {
		assert_true(fabs(value[i] - want[i]) < 1e-9);
		assert_true(fabs(cum[i] - want_cum[i]) < 1e-9);
	}
	const char *note = fit_param_of(&r, "curve.steps");
	assert_non_null(note);
	assert_ptr_equal(strstr(note, "app::rare"), note);
	for (size_t i = 0; i < r.nfit_notes; i++) {
		free(r.fit_notes[i].key);
		free(r.fit_notes[i].value);
	}
	free(r.fit_notes);
}

/* stage_curves alone, on a work record built by hand (hand_record: rates
 * 2e9/s up to 0.4, 3.3e8/s after) and fitted by stage_phases: with the
 * piecewise-linear fit the region gets one series whose curve holds those
 * rates on either side of the switch and whose cumulative share rises from
 * 0 to 1, the fit's parameters are recorded, and nothing is warned of. */
static void test_curves_stage_on_a_hand_built_record(void **state)
{
	(void)state;
	hand_record h;
	hand_record_init(&h, 11);
	h.opt.fit = "pwlr";
	assert_int_equal(stage_phases(&h.c, &h.w), 0);
	assert_int_equal(stage_curves(&h.c, &h.w), 0);
	fold_region_result *r = &h.r;
	assert_int_equal(r->nseries, 1);
	const fold_series *s = &r->series[0];
	assert_string_equal(s->name, "ctr");
	assert_true(s->fit.n >= 2);
	assert_true(fabs(s->fit.cum[0]) < 0.02 && fabs(s->fit.cum[s->fit.n - 1] - 1) < 0.02);
	for (size_t i = 0; i < s->fit.n; i++) {
		double x = s->fit.x[i], want = x < 0.38 ? 2e9 : x > 0.42 ? 1e9 / 3 : NAN;
		if (isfinite(want))
			assert_true(fabs(s->fit.value[i] / want - 1) < 0.1);
	}
	assert_true(r->nfit_params > 0);
	assert_int_equal(h.a.nwarnings, 0);
	/* the result is the analysis' to free */
	fold_analysis *owner = calloc(1, sizeof *owner);
	assert_non_null(owner);
	owner->regions = calloc(1, sizeof *owner->regions);
	assert_non_null(owner->regions);
	owner->regions[0] = *r;
	owner->regions[0].name = strdup(r->name);
	owner->regions[0].groups = calloc(1, sizeof *owner->regions[0].groups);
	owner->nregions = 1;
	memset(r, 0, sizeof *r);
	fold_analysis_free(owner);
	hand_record_free(&h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_steps_stage_on_a_hand_built_record),
	    cmocka_unit_test(test_curves_stage_on_a_hand_built_record),
	    cmocka_unit_test_setup_teardown(test_sparse_counter_no_kriging_failure, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_withheld_band_is_the_phase_interval, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sparse_counter_counts_its_events, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
