/* test_stage_table.c: tests of stage_table.c: the phase table: rates, samples per phase, no data where the
 * samples do not support a rate. */
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

/* An API region whose app counter is read at enter/exit, whose samples all
 * fall after the first quarter of each instance: the leading phase holds no
 * sample but at its inner edge. Its app-counter rate is measured (enter to
 * first sample); its CPU time is not (the samples' CPU time is only known
 * from the first sample on): no data (NaN), not an extrapolated rate. */
static void test_sample_free_end_phase_has_no_estimated_rate(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 1 << 16), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	uint32_t ids[1] = {1};
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 1, TRACE_COUNTER_APP, "app::work");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "R");
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 1);
	assert_int_equal(rc, 0);
	uint64_t t = 1000000, frames[1] = {0x401000};
	double v = 0;
	for (int i = 0; i < 200; i++) {
		/* 1 ms: app counter 1e10/s in [0, 0.2], 1e9/s after; samples every
		 * 40 us from x = 0.25 */
		uint64_t v64[1] = {(uint64_t)llround(v)};
		TRACE_PUT(rc, w, 1, trace_enc_enter, t, 1, v64);
		uint64_t off = 250000 + (uint64_t)((i * 7919) % 40) * 1000;
		uint64_t prev = t;
		for (uint64_t ts = t + off; ts < t + 990000; ts += 40000) {
			double rel = (double)(ts - t) * 1e-9;
			double val = v + (rel < 2e-4 ? 1e10 * rel : 2e6 + 1e9 * (rel - 2e-4));
			v64[0] = (uint64_t)llround(val);
			TRACE_PUT(rc, w, 1, trace_enc_sample, ts, frames, 1, ts - prev, v64);
			prev = ts;
		}
		v += 2e6 + 8e5;
		v64[0] = (uint64_t)llround(v);
		TRACE_PUT(rc, w, 1, trace_enc_exit, t + 1000000, 1, v64);
		t += 1100000;
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, t);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	o.fit = "pwlr";
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "R");
	assert_true(r->folded);
	assert_true(r->nphases >= 2);
	/* the leading phase ends where the samples begin: at most a few of them,
	 * all at its inner edge */
	const fold_phase_result *p0 = &r->phases[0];
	assert_true(p0->end > 0.2 && p0->end < 0.3);
	assert_true(p0->samples < 0.01 * r->samples_folded);
	assert_true(rate_of(p0, "app::work") > 3e9);
	assert_true(isnan(rate_of(p0, "cpu_time")));
	fold_analysis_free(a);
}

/* A recursive region: 60 outer instances of R (3 ms) each call R once in
 * the middle (1 ms). An app counter counts 1e9/s in the outer's own time and
 * 3e8/s inside the nested call; a sample every 50 us. Each sample belongs to
 * the innermost instance of R: the nested calls fold as their own group, and
 * the outer ones fold only the samples outside their nested call. */
static void test_recursive_region_innermost_instance(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 1 << 16), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	uint32_t ids[1] = {1};
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 1, TRACE_COUNTER_APP, "app::work");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "R");
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 1);
	assert_int_equal(rc, 0);
	double v = 0; /* counter value */
	uint64_t t = 1000000, frames[1] = {0x401000};
	unsigned long samples_outer_own = 0, samples_inner = 0;
	for (int i = 0; i < 60; i++) {
		uint64_t v64[1];
		/* outer: 1 ms own, 1 ms nested, 1 ms own; a sample every 50 us */
		uint64_t t0 = t;
		v64[0] = (uint64_t)llround(v);
		TRACE_PUT(rc, w, 1, trace_enc_enter, t0, 1, v64);
		uint64_t off =
		    1000 + (uint64_t)(i * 7919 % 48) * 1000; /* sampling phase varies per instance */
		for (int k = 0; k < 60; k++) {
			uint64_t ts = t0 + off + 50000 * (uint64_t)k;
			if (ts >= t0 + 1000000 && ts - 50000 < t0 + 1000000) {
				v64[0] = (uint64_t)llround(v + 1e6);
				TRACE_PUT(rc, w, 1, trace_enc_enter, t0 + 1000000, 1, v64);
			}
			if (ts >= t0 + 2000000 && ts - 50000 < t0 + 2000000) {
				v64[0] = (uint64_t)llround(v + 1e6 + 3e5);
				TRACE_PUT(rc, w, 1, trace_enc_exit, t0 + 2000000, 1, v64);
			}
			int inner = ts >= t0 + 1000000 && ts < t0 + 2000000;
			/* value at ts: piecewise rates */
			double rel = (double)(ts - t0) * 1e-9;
			double val = v + (rel < 1e-3   ? 1e9 * rel
			                  : rel < 2e-3 ? 1e6 + 3e8 * (rel - 1e-3)
			                               : 1e6 + 3e5 + 1e9 * (rel - 2e-3));
			v64[0] = (uint64_t)llround(val);
			TRACE_PUT(rc, w, 1, trace_enc_sample, ts, frames, 1, 0, v64);
			if (inner)
				samples_inner++;
			else
				samples_outer_own++;
		}
		v += 1e6 + 3e5 + 1e6;
		v64[0] = (uint64_t)llround(v);
		TRACE_PUT(rc, w, 1, trace_enc_exit, t0 + 3000000, 1, v64);
		t = t0 + 3100000;
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, t);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);

	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	o.fit = "pwlr";
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "R");
	assert_int_equal(r->instances, 120);
	assert_int_equal(r->ngroups, 2);
	/* the outer calls (most time) fold, with only their own samples */
	assert_true(fabs(r->groups[r->selected_group].median_duration_ns / 3e6 - 1) < 0.01);
	assert_true(r->folded);
	assert_int_equal(r->samples_folded, samples_outer_own);
	/* its own parts at 1e9/s; the nested call is a phase (no sample of its
	 * own: a hole) across which the outer's counter rises at 3e8/s */
	assert_int_equal(r->nphases, 3);
	assert_true(fabs(r->phases[0].end - 1.0 / 3) < 0.01);
	assert_true(fabs(r->phases[1].end - 2.0 / 3) < 0.01);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / 1e9 - 1) < 0.02);
	assert_true(fabs(rate_of(&r->phases[1], "app::work") / 3e8 - 1) < 0.05);
	assert_true(fabs(rate_of(&r->phases[2], "app::work") / 1e9 - 1) < 0.02);
	/* the hole holds no sample: it is measured by the counter read at
	 * enter and exit, across it in the instances sampled on either side,
	 * and by nothing else */
	assert_int_equal(r->phases[1].samples, 0);
	print_message("hole: %lu instances sampled on either side\n", r->phases[1].pairs_across);
	assert_true(r->phases[1].pairs_across >= 10);
	for (size_t k = 0; k < r->phases[1].nrates; k++) {
		print_message("hole: %s %.4g\n", r->phases[1].rate_names[k], r->phases[1].rates[k]);
		if (strcmp(r->phases[1].rate_names[k], "app::work"))
			assert_true(isnan(r->phases[1].rates[k]));
	}
	fold_analysis_free(a);
	/* the nested calls are a group of their own that folds: 3e8/s */
	o.group = 0;
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	r = region(a, "R");
	assert_true(fabs(r->groups[r->selected_group].median_duration_ns / 1e6 - 1) < 0.01);
	assert_true(r->folded);
	assert_int_equal(r->samples_folded, samples_inner);
	assert_int_equal(r->nphases, 1);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / 3e8 - 1) < 0.02);
	fold_analysis_free(a);
}

/* A burst of 4% of the instance at 25x the rate, 2.5 ms sampling of 500
 * instances of 1 ms: about 8 samples fall into it. The counter read at
 * enter and exit measures it across the instances sampled on either side;
 * nothing else does: CPU time (estimated at the boundaries) and wall time
 * show no rate there rather than a slope between its neighbours' edges. */
static void test_thin_phase_rates_only_from_counters_across_it(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 500;
	c.nphases = 3;
	c.bounds[1] = 0.47;
	c.bounds[2] = 0.51;
	c.bounds[3] = 1.0;
	c.cpu[0] = c.cpu[1] = c.cpu[2] = 1.0;
	c.ncounters = 1;
	c.counters[0] = (synth_counter){"app::work", TRACE_COUNTER_APP, {2e8, 5e9, 2e8}, 0};
	c.groups[0].duration_ns = 1e6;
	c.period_ns = 2.5e6;
	c.noise = 0.01;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	size_t thin = 0;
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		print_message("phase %zu [%.3f, %.3f]: %lu samples, %lu across, work %.3g/s\n", p, ph->start,
		              ph->end, ph->samples, ph->pairs_across, rate_of(ph, "app::work"));
		if (ph->samples >= 10)
			continue;
		thin++;
		for (size_t k = 0; k < ph->nrates; k++)
			if (strcmp(ph->rate_names[k], "app::work"))
				assert_true(isnan(ph->rates[k]));
		if (ph->pairs_across >= 10)
			assert_true(fabs(rate_of(ph, "app::work") / 5e9 - 1) < 0.15);
		else
			assert_true(isnan(rate_of(ph, "app::work")));
	}
	assert_true(thin > 0);
	fold_analysis_free(a);
}

/* A ramp (2e8 -> 6e8/s over the first half) followed by a steady phase at
 * 1e8/s: the gradual phase's end rate is its own line's at its end, not the
 * next phase's ("4e8/s, gradual 2e8 -> 1e8" was a mean outside its own
 * ramp; a loaded miniMD burst read "0.46 CPUs (gradual: 0.48 -> 0.92)"). */
static void test_gradual_phase_ends_on_its_own_line(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 1000;
	c.nphases = 9;
	for (int p = 0; p <= 8; p++)
		c.bounds[p] = p / 16.0;
	c.bounds[9] = 1;
	for (int p = 0; p < 8; p++) {
		c.counters[0].rate[p] = 2e8 + 4e8 * (p + 0.5) / 8;
		c.cpu[p] = 1;
	}
	c.counters[0].rate[8] = 1e8;
	c.cpu[8] = 1;
	/* a counter of a few events per instance, whose curve is its phase
	 * rates' steps: a ramp where the phase is gradual */
	c.ncounters = 2;
	c.counters[1] = (synth_counter){"app::rare", TRACE_COUNTER_APP, {0}, 0};
	for (int p = 0; p < 8; p++)
		c.counters[1].rate[p] = 4000 - 3000 * (p + 0.5) / 8;
	c.counters[1].rate[8] = 1000;
	c.noise = 0.02;
	c.seed = 5;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	assert_true(r->nphases >= 2);
	const fold_phase_result *ramp = &r->phases[0];
	size_t k = rate_index(ramp, "app::work");
	assert_true(ramp->gradual && k < ramp->nrange);
	print_message("[%.3f, %.3f] app::work %.4g/s, gradual %.4g -> %.4g; next [%.3f, %.3f] %.4g/s\n",
	              ramp->start, ramp->end, ramp->rates[k], ramp->rate_from[k], ramp->rate_to[k],
	              r->phases[1].start, r->phases[1].end, rate_of(&r->phases[1], "app::work"));
	assert_true(fabs(ramp->end - 0.5) < 0.01);
	assert_true(fabs(ramp->rate_from[k] / 2e8 - 1) < 0.05);
	assert_true(fabs(ramp->rate_to[k] / 6e8 - 1) < 0.05);
	assert_true(ramp->rates[k] >= fmin(ramp->rate_from[k], ramp->rate_to[k]) &&
	            ramp->rates[k] <= fmax(ramp->rate_from[k], ramp->rate_to[k]));
	/* the steps curve of the rare counter follows the table's ramp, its
	 * band around it (it was the fit's mean and envelope there) */
	const fold_series *rare = series_of(r, "app::rare");
	assert_non_null(rare);
	size_t q = (size_t)(rare - r->series);
	assert_true(q < ramp->nrange);
	int steps = 0;
	for (size_t i = 0; i < r->nfit_notes; i++)
		steps |=
		    !strcmp(r->fit_notes[i].key, "curve.steps") && strstr(r->fit_notes[i].value, "app::rare");
	assert_true(steps);
	double from = ramp->rate_from[q], to = ramp->rate_to[q];
	print_message("app::rare: %.4g/s, gradual %.4g -> %.4g\n", ramp->rates[q], from, to);
	size_t seen = 0;
	for (size_t i = 0; i < rare->fit.n; i++) {
		double x = rare->fit.x[i];
		if (x >= ramp->end)
			continue;
		double want = from + (to - from) * (x - ramp->start) / (ramp->end - ramp->start);
		assert_true(fabs(rare->fit.value[i] - want) <= 1e-6 * fabs(want) + 1e-9);
		if (rare->fit.lo && isfinite(rare->fit.lo[i]))
			assert_true(rare->fit.lo[i] <= rare->fit.value[i] &&
			            rare->fit.value[i] <= rare->fit.hi[i]);
		seen++;
	}
	assert_true(seen > 10);
	/* its phases hold what its instances counted, no more (the ramp's
	 * rate from the fitted line's chord summed to 13% above) */
	double sum = 0;
	for (size_t p = 0; p < r->nphases; p++)
		sum += rate_of(&r->phases[p], "app::rare") * (r->phases[p].end - r->phases[p].start);
	print_message("app::rare: phases sum to %.4g/s, its instances %.4g/s\n", sum, rare->mean_rate);
	assert_true(fabs(sum / rare->mean_rate - 1) < 0.02);
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_recursive_region_innermost_instance, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_sample_free_end_phase_has_no_estimated_rate, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_gradual_phase_ends_on_its_own_line, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_thin_phase_rates_only_from_counters_across_it, setup,
	                                    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
