/* test_analyze.c: tests of the whole analysis: a synthetic run end to end
 * (groups, phases, JSON), the exact profile and its overhead compensation,
 * trace-writing pauses, bad input, the order of warnings, symbols and
 * stacks. The region pipeline's stages have their own test_stage_*.c. */
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

static void test_synthetic_groups_outliers_phases_json(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 300;
	c.ngroups = 2;
	c.groups[0] = (synth_group){1e6, 2, 1};
	c.groups[1] = (synth_group){3e6, 1, 1};
	c.outliers = 0.04;
	c.outlier_factor = 4;
	c.noise = 0.02;
	synth_truth truth;
	assert_int_equal(synth_write(&c, trace, &truth), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->instances, 300);
	assert_true(r->ngroups >= 2);
	/* the folded group is the 3 ms one (most total time), outliers excluded */
	const fold_group *g = &r->groups[r->selected_group];
	assert_true(fabs(g->median_duration_ns / 3e6 - 1) < 0.02);
	assert_true(r->instances_used <= g->used);
	for (size_t i = 0; i < r->ninst; i++)
		if (r->inst[i].used)
			assert_true(fabs(r->inst[i].duration_ns / 3e6 - 1) < 0.2);
	check_two_phases(r);
	assert_string_equal(r->fit_method, "kriging");
	/* the Kriging fit saw the instances and the phase table: its
	 * hyper-parameters come from cross-validation over instances */
	const char *sel = NULL, *trend = NULL;
	for (size_t i = 0; i < r->nfit_notes; i++)
		if (!strcmp(r->fit_notes[i].key, "kriging.selection"))
			sel = r->fit_notes[i].value;
	for (size_t i = 0; i < r->nfit_params; i++)
		if (!strcmp(r->fit_params[i].name, "kriging.trend") && r->fit_params[i].kind == FOLD_FIT_WORD)
			trend = r->fit_params[i].word;
	assert_non_null(sel);
	assert_non_null(trend);
	assert_ptr_equal(strstr(sel, "leave-instances-out cross-validation, 5 folds"), sel);
	assert_ptr_equal(strstr(trend, "phase table"), trend);
	/* series: app counter then CPU time, with a curve on the grid */
	assert_string_equal(r->series[0].name, "app::work");
	assert_int_equal(r->series[0].fit.n, 200);
	assert_true(fabs(r->series[0].fit.value[50] / 1e9 - 1) < 0.05);  /* x = 0.25 */
	assert_true(fabs(r->series[0].fit.value[150] / 3e8 - 1) < 0.05); /* x = 0.75 */
	/* exact profile: every instance is a call */
	assert_int_equal(a->nprofile, 1);
	assert_int_equal(a->profile[0].calls, 300);
	assert_true(fabs(a->profile[0].inclusive_ns - r->total_ns) < 1);

	assert_int_equal(report_json_write(a, json, err, sizeof err), 0);
	size_t len;
	char *text = json_slurp(json, &len);
	assert_non_null(text);
	assert_true(json_check(text, len));
	assert_non_null(strstr(text, "\"regions\":[{\"name\":\"iteration\""));
	assert_non_null(strstr(text, "\"instances_used\":"));
	assert_non_null(strstr(text, "\"phases\":[{\"start\":0,"));
	assert_non_null(strstr(text, "\"rates\":{\"app::work\":"));
	assert_non_null(strstr(text, "\"profile\":[{\"name\":\"iteration\",\"kind\":1,\"calls\":300"));
	free(text);
	fold_analysis_free(a);
}

/* Hand-written trace: main { A { B } A { B B } } R { R { R } } and an exit
 * without enter. One tick = 1 ns. inner_ns < 0: the hook calibration is the
 * legacy STAT calibration.hook_ns = 10; else the runtime's INFO keys
 * overhead.hook_ns = 10 and overhead.hook_inner_ns = inner_ns. */
static void write_profile_trace(double inner_ns)
{
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	if (inner_ns < 0) {
		TRACE_PUT(rc, w, 0, trace_enc_stat, "calibration.hook_ns", 10);
	} else {
		char v[32];
		snprintf(v, sizeof v, "%g", inner_ns);
		TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
		TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", v);
	}
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_API, 0, "A");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_API, 0, "B");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 4, TRACE_REGION_API, 0, "R");
	assert_int_equal(rc, 0);
	struct {
		int enter;
		uint32_t region;
		uint64_t tick;
	} ev[] = {
	    {1, 1, 1000}, {1, 2, 1100}, {1, 3, 1200}, {0, 3, 1260}, /* B: 60 ns */
	    {0, 2, 1400},                                           /* A: 300 */
	    {1, 2, 1500}, {1, 3, 1600}, {0, 3, 1700}, {1, 3, 1800},
	    {0, 3, 2000}, {0, 2, 2500}, {0, 4, 2550}, /* stray exit of R */
	    {1, 4, 3000}, {1, 4, 3100}, {1, 4, 3200}, {0, 4, 3300},
	    {0, 4, 3400}, {0, 4, 3500}, {0, 1, 4000},
	};
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
		if (ev[i].enter)
			TRACE_PUT(rc, w, 1, trace_enc_enter, ev[i].tick, ev[i].region, NULL);
		else
			TRACE_PUT(rc, w, 1, trace_enc_exit, ev[i].tick, ev[i].region, NULL);
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 4100);
	assert_int_equal(trace_writer_close(w), 0);
}

/* The profile entry of the function or region called name (the test fails
 * without one). */
static const fold_profile_entry *profile_named(const fold_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nprofile; i++)
		if (!strcmp(a->profile[i].name, name))
			return &a->profile[i];
	fail_msg("no profile entry %s", name);
	return NULL;
}

/* profile entries by name: main 1, A 2, B 3, R 4 */
static void profile_by_name(const fold_analysis *a, const fold_profile_entry *p[5])
{
	static const char *const names[] = {NULL, "main", "A", "B", "R"};
	for (int k = 1; k <= 4; k++)
		p[k] = profile_named(a, names[k]);
}

/* With the runtime's calibration (pair 10 ns, of which 4 ns lie between a
 * call's own timestamps): inclusive = D - 4 - 10 x descendants, exclusive =
 * D - children's D - 4 - 6 x children, so exclusive never exceeds inclusive,
 * recursion included. */
static void test_exact_profile_inner_compensation(void **state)
{
	(void)state;
	write_profile_trace(4);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_profile_entry *p[5] = {0};
	profile_by_name(a, p);
	/* B, leaves: 56 + 96 + 196 */
	assert_true(fabs(p[3]->inclusive_ns - 348) < 1e-6);
	assert_true(fabs(p[3]->exclusive_ns - 348) < 1e-6);
	assert_true(fabs(p[3]->min_ns - 56) < 1e-6);
	/* A: (300 - 4 - 10) + (1000 - 4 - 20); exclusive (300 - 60 - 4 - 6) + (1000 - 300 - 4 - 12) */
	assert_true(fabs(p[2]->inclusive_ns - (286 + 976)) < 1e-6);
	assert_true(fabs(p[2]->exclusive_ns - (230 + 684)) < 1e-6);
	/* exclusive = inclusive minus the children's inclusive, call by call */
	assert_true(fabs(p[2]->exclusive_ns - (p[2]->inclusive_ns - p[3]->inclusive_ns)) < 1e-6);
	/* R recursive: outermost 500 - 4 - 20; exclusive over all depths 96 + 190 + 190 */
	assert_true(fabs(p[4]->inclusive_ns - 476) < 1e-6);
	assert_true(fabs(p[4]->exclusive_ns - 476) < 1e-6);
	assert_true(p[4]->exclusive_ns <= p[4]->inclusive_ns + 1e-6);
	/* main: 3000 - 4 - 10 x 8 */
	assert_true(fabs(p[1]->inclusive_ns - 2916) < 1e-6);
	fold_analysis_free(a);
}

/* Calls shorter than the calibrated hook cost (pair 10 ns, 4 of it
 * between a call's own timestamps): 100 calls of B measured at 2 ns read
 * -2 ns each once compensated, one of 1000 ns reads 996. The totals are
 * the sums as they are (796 ns), so a caller's inclusive less its
 * exclusive time is its callees' inclusive time; clamping each call at 0
 * had given B 996 ns (and fib(27) an exclusive time above its inclusive
 * one). min_ns stays a duration (0, not -2). */
static void test_exact_profile_short_calls_sum_unbiased(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", "4");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_FUNCTION, 0x1000, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x3000, "B");
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_enter, 1000, 1, NULL);
	uint64_t t = 1100;
	for (int i = 0; i < 100; i++, t += 50) {
		TRACE_PUT(rc, w, 1, trace_enc_enter, t, 3, NULL);
		TRACE_PUT(rc, w, 1, trace_enc_exit, t + 2, 3, NULL);
	}
	TRACE_PUT(rc, w, 1, trace_enc_enter, t, 3, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_exit, t + 1000, 3, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_exit, t + 2000, 1, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, t + 2100);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_profile_entry *m = profile_named(a, "main"), *b = profile_named(a, "B");
	print_message("B %.1f ns over %lu calls (min %.1f); main %.1f incl, %.1f excl\n", b->inclusive_ns,
	              b->calls, b->min_ns, m->inclusive_ns, m->exclusive_ns);
	assert_true(fabs(b->inclusive_ns - 796) < 1e-6);
	assert_true(fabs((m->inclusive_ns - m->exclusive_ns) - b->inclusive_ns) < 1e-6);
	assert_true(b->min_ns == 0);
	fold_analysis_free(a);
}

/* Cold hooks: the runtime measured that events after a long gap cost more
 * after their timestamp than the warm calibration (exit 105 ns against 5,
 * enter 55 against 5, gap 1 us). Their surplus comes out of the calls that
 * contain it: a cold exit's out of the caller, a cold enter's out of its own
 * call; API regions (the other test) are not hooks and keep theirs. */
static void test_exact_profile_cold_hooks(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", "4");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_enter_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_exit_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_gap_ns", "1000");
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exit_ticks", 105 * 3);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exits", 3);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_enter_ticks", 55);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_enters", 1);
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_FUNCTION, 0x1000, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_FUNCTION, 0x2000, "A");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x3000, "B");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 4, TRACE_REGION_FUNCTION, 0x4000, "R");
	assert_int_equal(rc, 0);
	struct {
		int enter;
		uint32_t region;
		uint64_t tick;
	} ev[] = {
	    {1, 1, 1000},  {1, 2, 1010},  {0, 2, 5010}, /* A 4000, cold exit */
	    {1, 3, 5020},  {0, 3, 9020},                /* B 4000, cold exit */
	    {1, 4, 10020}, {0, 4, 10120},               /* R (C) 100, cold enter */
	    {0, 1, 10130},                              /* main, warm exit */
	};
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
		if (ev[i].enter)
			TRACE_PUT(rc, w, 1, trace_enc_enter, ev[i].tick, ev[i].region, NULL);
		else
			TRACE_PUT(rc, w, 1, trace_enc_exit, ev[i].tick, ev[i].region, NULL);
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 10200);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_profile_entry *p[5] = {0};
	profile_by_name(a, p);
	assert_true(fabs(p[2]->inclusive_ns - 3996) < 1e-6); /* 4000 - 4 */
	assert_true(fabs(p[3]->inclusive_ns - 3996) < 1e-6);
	assert_true(fabs(p[4]->inclusive_ns - 46) < 1e-6); /* 100 - 4 - 50 */
	/* main: 9130 - 4 - 10 x 3 - (100 + 100 + 50) */
	assert_true(fabs(p[1]->inclusive_ns - 8846) < 1e-6);
	/* main's own: 9130 - 8100 - 4 - 6 x 3 - the children's cold exits (200) */
	assert_true(fabs(p[1]->exclusive_ns - 808) < 1e-6);
	/* Own hooks, what a timer around each call holds besides it: the pair,
	 * plus the call's own cold surpluses (A, B: exit 100; R: enter 50). */
	assert_true(fabs(p[2]->hooks_ns - 110) < 1e-6);
	assert_true(fabs(p[3]->hooks_ns - 110) < 1e-6);
	assert_true(fabs(p[4]->hooks_ns - 60) < 1e-6);
	assert_true(fabs(p[1]->hooks_ns - 10) < 1e-6);
	assert_true(fabs(p[2]->per_thread[0].hooks_ns - 110) < 1e-6);
	assert_true(fabs(p[2]->hooks_first_ns) < 1e-6); /* no first-call record */
	fold_analysis_free(a);
}

/* Trace writing (pause records): main { A { B } }, where A's enter hook
 * wrote a chunk for 300 ns after its timestamp and B's exit hook one for
 * 500 ns. Each pause comes out of the calls that contain it, as a cold
 * surplus does (A's own out of A, B's exit's out of A as the caller's own
 * time), into the hooks of the call whose hook wrote, and out of the
 * instances' durations. Without the pause records the same trace gives A
 * 800 ns more. */
static void write_pause_trace(int with_pauses)
{
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", "4");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_FUNCTION, 0x1000, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_FUNCTION, 0x2000, "A");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x3000, "B");
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_enter, 1000, 1, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_enter, 1100, 2, NULL);
	if (with_pauses)
		TRACE_PUT(rc, w, 1, trace_enc_pause, 300);
	TRACE_PUT(rc, w, 1, trace_enc_enter, 1500, 3, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_exit, 1700, 3, NULL);
	if (with_pauses)
		TRACE_PUT(rc, w, 1, trace_enc_pause, 500);
	TRACE_PUT(rc, w, 1, trace_enc_exit, 2400, 2, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_exit, 3000, 1, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 3100);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);
}

static double region_duration(const fold_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nregions; i++)
		if (!strcmp(a->regions[i].name, name) && a->regions[i].ninst == 1)
			return a->regions[i].inst[0].duration_ns;
	fail_msg("region %s with one instance not found", name);
	return 0;
}

static void test_trace_writing_pauses(void **state)
{
	(void)state;
	for (int with = 0; with < 2; with++) {
		write_pause_trace(with);
		fold_options o;
		fold_options_init(&o);
		o.diag = quiet;
		fold_analysis *a;
		char err[256];
		const char *paths[] = {trace};
		assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
		const fold_profile_entry *p[4] = {NULL, profile_named(a, "main"), profile_named(a, "A"),
		                                  profile_named(a, "B")};
		double pa = with ? 300 : 0, pb = with ? 500 : 0;
		assert_true(fabs(p[3]->inclusive_ns - 196) < 1e-6);              /* 200 - 4 */
		assert_true(fabs(p[3]->hooks_ns - (10 + pb)) < 1e-6);            /* its exit wrote */
		assert_true(fabs(p[2]->inclusive_ns - (1286 - pa - pb)) < 1e-6); /* 1300 - 4 - 10 */
		assert_true(fabs(p[2]->exclusive_ns - (1090 - pa - pb)) < 1e-6); /* - 200 - 4 - 6 */
		assert_true(fabs(p[2]->hooks_ns - (10 + pa)) < 1e-6);
		assert_true(fabs(p[1]->inclusive_ns - (1976 - pa - pb)) < 1e-6); /* 2000 - 4 - 20 */
		assert_true(fabs(region_duration(a, "A") - (1300 - pa - pb)) < 1e-6);
		assert_true(fabs(region_duration(a, "B") - 200) < 1e-6);
		assert_true(fabs(region_duration(a, "main") - (2000 - pa - pb)) < 1e-6);
		/* what a timer around the calls holds: inclusive + own hooks +
		 * the nested hooks and writing (A: 1300 + the pair's 6 outside) */
		assert_true(fabs(p[2]->nested_overhead_ns - (10 + pb)) < 1e-6);
		assert_true(fabs(p[1]->nested_overhead_ns - (20 + pa + pb)) < 1e-6);
		assert_true(fabs(p[3]->nested_overhead_ns) < 1e-6);
		assert_true(fabs(p[2]->inclusive_ns + p[2]->hooks_ns + p[2]->nested_overhead_ns - 1306) <
		            1e-6);
		assert_int_equal(a->trace_writing_pauses, with ? 2 : 0);
		/* 800 of the thread's 2100 ns: the program was slowed, said so */
		int warned = 0;
		for (size_t i = 0; i < a->nwarnings; i++)
			warned |=
			    strstr(a->warnings[i].what, "writing the trace stopped thread 1 for") != NULL;
		assert_int_equal(warned, with);
		assert_true(fabs(a->trace_writing_ns - pa - pb) < 1e-6);
		fold_analysis_free(a);
	}
}

/* Cold hooks by gap (runtimes since the bins): bins [0, 1 us), [1, 4),
 * [4 us, inf). Exits: bin 1 25 ns, bin 2 105 ns after the timestamp (warm
 * 5); enters: bin 2 55 (warm 5); armed enters, before the timestamp: bin 0
 * 13 ns (warm 3), bin 2 unmeasured (takes bin 0's). Measuring costs 2 ns
 * after a timestamp and 1 ns before one. An enter is armed when the
 * previous function event was measured (bin >= 1). Gaps count from the
 * previous function event (overhead.cold_gap_from), the thread's first
 * from nothing: main's enter is measured (bin 1, no enters there: bin 2's
 * 52) and arms A's. */
static void test_exact_profile_cold_bins(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", "4");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_enter_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_exit_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_enter_before_ns", "3");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_measure_after_ns", "2");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_measure_before_ns", "1");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_bins_ns", "0,1000,4000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_gap_from", "function");
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exit_ticks.1", 25 * 2);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exits.1", 2);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exit_ticks.2", 105);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exits.2", 1);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_enter_ticks.2", 55);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_enters.2", 1);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_before_ticks.0", 13 * 2);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_befores.0", 2);
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_FUNCTION, 0x1000, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_FUNCTION, 0x2000, "A");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x3000, "B");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 4, TRACE_REGION_FUNCTION, 0x4000, "R");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 5, TRACE_REGION_MPI, 0, "MPI_Allreduce");
	assert_int_equal(rc, 0);
	struct {
		int enter;
		uint32_t region;
		uint64_t tick;
	} ev[] = {
	    {1, 1, 1000},
	    {1, 2, 1010},
	    {0, 2, 3010}, /* A: armed enter (11), exit in bin 1 (22) */
	    /* B: armed enter (11), exit in bin 2 (102): its gap counts from
	     * B's enter, not from the MPI call's records just before it */
	    {1, 3, 3020},
	    {1, 5, 7990},
	    {0, 5, 8000},
	    {0, 3, 8020},
	    {1, 4, 13020},
	    {0, 4, 13120}, /* R (C): enter in bin 2 (52), armed (11) */
	    {0, 1, 13130}, /* main, warm exit */
	};
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
		if (ev[i].enter)
			TRACE_PUT(rc, w, 1, trace_enc_enter, ev[i].tick, ev[i].region, NULL);
		else
			TRACE_PUT(rc, w, 1, trace_enc_exit, ev[i].tick, ev[i].region, NULL);
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 13200);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_profile_entry *p[5] = {0};
	profile_by_name(a, p);
	assert_true(fabs(p[2]->inclusive_ns - 1996) < 1e-6); /* 2000 - 4 */
	assert_true(fabs(p[3]->inclusive_ns - 4986) < 1e-6); /* 5000 - 4 - 10 (the MPI call) */
	assert_true(fabs(p[4]->inclusive_ns - 44) < 1e-6);   /* 100 - 4 - 52 */
	/* main: 12130 - 4 - 10 x 4 - its own enter (52) - (11 + 22 + 11 + 102 + 52 + 11) */
	assert_true(fabs(p[1]->inclusive_ns - 11825) < 1e-6);
	/* main's own: 12130 - 7100 - 4 - 6 x 3 - 52 - the children's exits and armed enters (157) */
	assert_true(fabs(p[1]->exclusive_ns - 4799) < 1e-6);
	assert_true(fabs(p[2]->hooks_ns - 43) < 1e-6);  /* 10 + 11 + 22 */
	assert_true(fabs(p[3]->hooks_ns - 123) < 1e-6); /* 10 + 11 + 102 */
	assert_true(fabs(p[4]->hooks_ns - 73) < 1e-6);  /* 10 + 52 + 11 */
	assert_true(fabs(p[1]->hooks_ns - 62) < 1e-6);  /* 10 + 52 */
	fold_analysis_free(a);
}

/* Events measured one by one (hook_cost records, format 1.5): A's exit
 * after its streaming loop took 805 ns after its timestamp, B's after its
 * MPI call 105; both lie in bin 2, whose mean (455) would give each the
 * other's cost. Each gets its own over the warm value (5), plus the
 * measuring (2): A 802, B 102; B's armed enter its own 13 before the
 * timestamp (warm 3, measuring 1: 11). R's record claims more than passed
 * until the thread's next event, which its hook precedes: damaged, R's exit
 * takes the bin's mean (452) and its armed enter, without a record, bin
 * 0's (0 + 1). */
static void test_exact_profile_cold_per_event(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", "4");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_enter_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_exit_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_enter_before_ns", "3");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_measure_after_ns", "2");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_measure_before_ns", "1");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_bins_ns", "0,1000,4000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_gap_from", "function");
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exit_ticks.2", 805 + 105);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_exits.2", 2);
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_FUNCTION, 0x1000, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_FUNCTION, 0x2000, "A");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x3000, "B");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 4, TRACE_REGION_FUNCTION, 0x4000, "R");
	assert_int_equal(rc, 0);
	struct {
		int enter;
		uint32_t region;
		uint64_t tick, after, before;
	} ev[] = {
	    {1, 1, 1000, 5, TRACE_UNKNOWN},   /* main: bin 1, measured (0 + 2) */
	    {1, 2, 1010, TRACE_UNKNOWN, 3},   /* A: armed (0 + 1) */
	    {0, 2, 6010, 805, TRACE_UNKNOWN}, /* bin 2 */
	    {1, 3, 7000, TRACE_UNKNOWN, 13},  /* bin 0, armed */
	    {0, 3, 12000, 105, TRACE_UNKNOWN},
	    {1, 4, 12200, TRACE_UNKNOWN, TRACE_UNKNOWN},
	    {0, 4, 17200, 99999, TRACE_UNKNOWN}, /* more than the 10 ns until main's exit */
	    {0, 1, 17210, TRACE_UNKNOWN, TRACE_UNKNOWN},
	};
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	for (size_t i = 0; i < sizeof ev / sizeof *ev; i++) {
		if (ev[i].enter)
			TRACE_PUT(rc, w, 1, trace_enc_enter, ev[i].tick, ev[i].region, NULL);
		else
			TRACE_PUT(rc, w, 1, trace_enc_exit, ev[i].tick, ev[i].region, NULL);
		if (ev[i].after != TRACE_UNKNOWN || ev[i].before != TRACE_UNKNOWN)
			TRACE_PUT(rc, w, 1, trace_enc_hook_cost, ev[i].after, ev[i].before);
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 16100);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_profile_entry *p[5] = {0};
	profile_by_name(a, p);
	assert_true(fabs(p[2]->inclusive_ns - 4996) < 1e-6);
	assert_true(fabs(p[2]->hooks_ns - 813) < 1e-6); /* 10 + 1 + 802 */
	assert_true(fabs(p[3]->hooks_ns - 123) < 1e-6); /* 10 + 11 + 102 */
	assert_true(fabs(p[4]->hooks_ns - 463) < 1e-6); /* 10 + 1 + 452 */
	assert_true(fabs(p[1]->hooks_ns - 12) < 1e-6);  /* 10 + 2 */
	/* main: 16210 - 4 - 10 x 3 - its own enter (2) - (803 + 113 + 453) */
	assert_true(fabs(p[1]->inclusive_ns - 14805) < 1e-6);
	fold_analysis_free(a);
}

/* First calls: the runtime measured its one-time work in A's first enter
 * hook, 3000 ns before the timestamp and 805 after it (warm: 5). The 800
 * after it come out of that call (and main), not the mean of the cold
 * enters, although the call also follows a long gap; the 3000 before it are
 * outside every time, but in A's own hooks. The second call of A is an
 * ordinary cold enter. */
static void test_exact_profile_first_call(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_ns", "10");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_inner_ns", "4");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_enter_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.hook_exit_after_ns", "5");
	TRACE_PUT(rc, w, 0, trace_enc_info, "overhead.cold_gap_ns", "1000");
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_enter_ticks", 55);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.cold_enters", 1);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.first_enter_before_ticks.2", 3000);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.first_enter_after_ticks.2", 805);
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_FUNCTION, 0x1000, "main");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_FUNCTION, 0x2000, "A");
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_enter, 1000, 1, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_enter, 5000, 2, NULL); /* first call, cold by its gap too */
	TRACE_PUT(rc, w, 1, trace_enc_exit, 6000, 2, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_enter, 9000, 2, NULL); /* cold enter */
	TRACE_PUT(rc, w, 1, trace_enc_exit, 9500, 2, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_exit, 9600, 1, NULL);
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 10000);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_profile_entry *p[3] = {NULL, profile_named(a, "main"), profile_named(a, "A")};
	/* A: (1000 - 4 - 800) + (500 - 4 - 50) */
	assert_true(fabs(p[2]->inclusive_ns - 642) < 1e-6);
	assert_true(fabs(p[2]->hooks_ns - (3000 + 10 + 800 + 10 + 50)) < 1e-6);
	assert_true(fabs(p[2]->hooks_first_ns - (3000 + 800)) < 1e-6);
	assert_true(fabs(p[1]->hooks_first_ns) < 1e-6);
	/* main: 8600 - 4 - 10 x 2 - 800 - 50 */
	assert_true(fabs(p[1]->inclusive_ns - 7726) < 1e-6);
	fold_analysis_free(a);
}

/* The legacy calibration key (a whole pair, no inner part). */
static void test_exact_profile(void **state)
{
	(void)state;
	write_profile_trace(-1);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	assert_true(a->hook_overhead_ns == 10);
	const fold_profile_entry *p[5] = {0};
	profile_by_name(a, p);
	assert_int_equal(p[1]->calls, 1);
	assert_int_equal(p[2]->calls, 2);
	assert_int_equal(p[3]->calls, 3);
	assert_int_equal(p[4]->calls, 3);
	/* B: 60 + 100 + 200 ns, leaves: no compensation; a 60 ns call is not rounded away */
	assert_true(fabs(p[3]->inclusive_ns - 360) < 1e-6);
	assert_true(fabs(p[3]->min_ns - 60) < 1e-6);
	assert_true(fabs(p[3]->max_ns - 200) < 1e-6);
	/* A: (300 - 10*1) + (1000 - 10*2) inclusive; exclusive subtracts children and their hooks */
	assert_true(fabs(p[2]->inclusive_ns - (290 + 980)) < 1e-6);
	assert_true(fabs(p[2]->exclusive_ns - ((300 - 60 - 10) + (1000 - 300 - 20))) < 1e-6);
	/* R recursive: inclusive counts the outermost call only (500 - 2 hooks) */
	assert_true(fabs(p[4]->inclusive_ns - 480) < 1e-6);
	assert_int_equal(p[4]->unbalanced, 1); /* the stray exit */
	/* main: 3000 ns, 8 descendant calls (2 A, 3 B, 3 R) */
	assert_true(fabs(p[1]->inclusive_ns - (3000 - 80)) < 1e-6);
	/* caller-callee pairs */
	int seen = 0;
	for (size_t i = 0; i < a->ncallpairs; i++) {
		const fold_callpair *cp = &a->callpairs[i];
		if (!strcmp(cp->caller, "A") && !strcmp(cp->callee, "B")) {
			assert_int_equal(cp->calls, 3);
			seen++;
		}
		if (!strcmp(cp->caller, "R") && !strcmp(cp->callee, "R")) {
			assert_int_equal(cp->calls, 2);
			seen++;
		}
		if (!strcmp(cp->caller, "main") && !strcmp(cp->callee, "A")) {
			assert_int_equal(cp->calls, 2);
			seen++;
		}
	}
	assert_int_equal(seen, 3);
	assert_int_equal(p[2]->nper_thread, 1);
	assert_int_equal(p[2]->per_thread[0].thread, 1);
	/* the stray exit is a warning a user sees */
	assert_true(warned_about(a, "region R: unbalanced"));
	fold_analysis_free(a);
}

static void test_bad_input_is_one_line_error(void **state)
{
	(void)state;
	FILE *f = fopen(trace, "w");
	fputs("not a trace\n", f);
	fclose(f);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a = NULL;
	char err[256] = "";
	const char *paths[] = {trace};
	assert_true(fold_analyze(paths, 1, &o, &a, err, sizeof err) < 0);
	assert_null(a);
	assert_non_null(strstr(err, trace));
	assert_null(strchr(err, '\n'));
	o.fit = "spline";
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), -EINVAL);
	assert_non_null(strstr(err, "--fit spline"));
}

/* Regions are folded by a pool of workers, which finish in any order; the
 * warnings they say must come out in region order, so that two runs of fold
 * on one trace write the same report (--threads 1 and --threads N alike). */
static void test_warnings_in_region_order_whichever_worker_finished_first(void **state)
{
	(void)state;
	fold_analysis a;
	memset(&a, 0, sizeof a);
	analyze_ctx c;
	memset(&c, 0, sizeof c);
	c.a = &a;
	pthread_mutex_init(&c.warn_lock, NULL);
	analyze__diag(&c, FOLD_DIAG_OUTLIERS_EXCLUDED, NULL, NULL, NULL, "before the pool");
	size_t from = a.nwarnings;
	/* the worker of queue place 2 is faster than the one of place 1 */
	analyze__warn_scope(2);
	analyze__diag(&c, FOLD_DIAG_OUTLIERS_EXCLUDED, NULL, NULL, NULL, "region b: first");
	analyze__warn_scope(1);
	analyze__diag(&c, FOLD_DIAG_OUTLIERS_EXCLUDED, NULL, NULL, NULL, "region a: first");
	analyze__warn_scope(2);
	analyze__diag(&c, FOLD_DIAG_OUTLIERS_EXCLUDED, NULL, NULL, NULL, "region b: second");
	analyze__warn_scope(1);
	analyze__diag(&c, FOLD_DIAG_OUTLIERS_EXCLUDED, NULL, NULL, NULL, "region a: second");
	analyze__warn_scope(0);
	analyze__warn_sort(&c, from);
	const char *want[] = {"before the pool", "region a: first", "region a: second", "region b: first",
	                      "region b: second"};
	assert_int_equal(a.nwarnings, 5);
	for (size_t i = 0; i < 5; i++)
		assert_string_equal(a.warnings[i].what, want[i]);
	for (size_t i = 0; i < a.nwarnings; i++)
		free(a.warnings[i].what);
	free(a.warnings);
	free(c.warn_order);
	pthread_mutex_destroy(&c.warn_lock);
}

/* Samples in a module without symbols: each address reads
 * "[libnosym.so.1+0x...]", and the hot views took them as one place,
 * "libnosym (no symbols)", while the phases' top lines listed it once per
 * address (CloverLeaf's 14 us OpenMP region: 15%, 15%, 12% libgomp) and
 * the timeline and the call tree had a frame per address. All of them now
 * read one name, the module's consecutive frames one frame. */
static void test_module_without_symbols_is_one_place(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.stack_module = "/nonexistent/libnosym.so.1";
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded && r->nphases >= 1);
	for (size_t p = 0; p < r->nphases; p++) {
		assert_int_equal(r->phases[p].ntop, 1);
		assert_string_equal(r->phases[p].top[0].function, "libnosym (no symbols)");
		assert_true(fabs(r->phases[p].top[0].share - 1) < 1e-9);
	}
	for (size_t l = 0; l < r->ntimeline; l++)
		for (size_t k = 0; k < r->timeline[l].nspans; k++)
			assert_string_equal(r->timeline[l].spans[k].function, "libnosym (no symbols)");
	assert_true(a->nhot_cpu >= 1);
	assert_string_equal(a->hot_cpu[0].function, "libnosym (no symbols)");
	fold_analysis_free(a);
}

/* A sample the runtime did not unwind past its leaf (inside the loader,
 * or where the unwinder stopped) ends in a frame that says so. Its leaf
 * is where the time went; its callers are unknown: the call tree puts it
 * under a root that says so, where it read as a root of its own (a thread
 * that started in the leaf), and the top lines name the leaf. */
static void test_stack_not_unwound_is_under_its_own_root(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.stack_not_unwound = TRACE_FRAME_NOT_UNWOUND_FAILED;
	fold_analysis *a = fold_synth(&c, 0);
	size_t roots = 0;
	for (size_t i = 0; i < a->ncct; i++)
		if (a->cct[i].parent == SIZE_MAX) {
			roots++;
			assert_string_equal(a->cct[i].function, FOLD_NOT_UNWOUND_FAILED);
			assert_true(a->cct[i].first_child != SIZE_MAX);
		}
	assert_int_equal(roots, 1);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded && r->nphases >= 1 && r->phases[0].ntop >= 1);
	for (size_t p = 0; p < r->nphases; p++)
		for (size_t k = 0; k < r->phases[p].ntop; k++)
			assert_string_not_equal(r->phases[p].top[k].function, FOLD_NOT_UNWOUND_FAILED);
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_synthetic_groups_outliers_phases_json, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_module_without_symbols_is_one_place, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stack_not_unwound_is_under_its_own_root, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile_inner_compensation, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_trace_writing_pauses, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile_short_calls_sum_unbiased, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile_cold_hooks, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile_cold_bins, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile_cold_per_event, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile_first_call, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_exact_profile, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_bad_input_is_one_line_error, setup, teardown),
	    cmocka_unit_test(test_warnings_in_region_order_whichever_worker_finished_first),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
