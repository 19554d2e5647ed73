/* run_facts: a process' run facts from its INFO records, parsed once
 * (src/fold/ingest/run_facts.c), and the sampling in words the reports
 * show (run_meta.c): each FOLD_SAMPLE form, and absent, malformed and out
 * of range values, which read as unknown and never as part of their text. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"
#include "run_facts.h"

/* INFO records as key, value pairs up to a NULL key; the last value wins. */
static const char *get(const void *arg, const char *key)
{
	const char *const *kv = arg, *v = NULL;
	for (; kv[0]; kv += 2)
		if (!strcmp(kv[0], key))
			v = kv[1];
	return v;
}

static fold_facts parse(const char *const *kv)
{
	fold_facts f;
	run_facts__parse(&f, get, kv);
	return f;
}

static void assert_text(const fold_sampling *s, const char *want)
{
	char *t = analyze__sampling_text(s);
	if (!want) {
		assert_null(t);
		return;
	}
	assert_non_null(t);
	assert_string_equal(t, want);
	free(t);
}

/* time@10ms as the runtime writes it. */
static void test_wall_timer(void **state)
{
	(void)state;
	const char *kv[] = {"sample.source",   "time",          "sample.event",
	                    "CLOCK_MONOTONIC", "sample.period", "10000000",
	                    "sample.jitter",   "0.1",           NULL};
	fold_facts f = parse(kv);
	assert_int_equal(f.sampling.mode, FOLD_SAMPLING_WALL_TIMER);
	assert_true(f.sampling.period == 1e7 && fold_sampling_period_ns(&f.sampling) == 1e7);
	assert_true(f.sampling.jitter == 0.1);
	assert_text(&f.sampling, "wall-clock timer every 10 ms, jitter 10%");
	/* a hand-made trace without sample.event: time is the wall clock */
	const char *bare[] = {"sample.source", "time", "sample.period", "250000", NULL};
	f = parse(bare);
	assert_int_equal(f.sampling.mode, FOLD_SAMPLING_WALL_TIMER);
	assert_text(&f.sampling, "wall-clock timer every 250 us");
}

/* cputime@1ms: the runtime writes source "time" with the CPU-time clock;
 * synthetic traces write source "cputime". Both are the same mode, with
 * the period in ns (before, only the analysis' cost model took "cputime"
 * for a timer; the report said "every 1000000 events"). */
static void test_cpu_timer(void **state)
{
	(void)state;
	const char *rt[] = {
	    "sample.source", "time", "sample.event", "CLOCK_THREAD_CPUTIME_ID", "sample.period",
	    "1000000",       NULL};
	const char *synth[] = {
	    "sample.source", "cputime", "sample.event", "CLOCK_THREAD_CPUTIME_ID", "sample.period",
	    "1000000",       NULL};
	for (int k = 0; k < 2; k++) {
		fold_facts f = parse(k ? synth : rt);
		assert_int_equal(f.sampling.mode, FOLD_SAMPLING_CPU_TIMER);
		assert_true(fold_sampling_period_ns(&f.sampling) == 1e6);
		assert_text(&f.sampling, "CPU-time timer every 1 ms");
	}
}

/* EVENT@COUNT: the period counts events, it is no time. */
static void test_overflow(void **state)
{
	(void)state;
	const char *kv[] = {"sample.source",
	                    "papi",
	                    "sample.event",
	                    "PAPI_TOT_CYC",
	                    "sample.period",
	                    "2000000",
	                    "sample.jitter",
	                    "0",
	                    NULL};
	fold_facts f = parse(kv);
	assert_int_equal(f.sampling.mode, FOLD_SAMPLING_OVERFLOW);
	assert_true(f.sampling.period == 2e6);
	assert_true(fold_sampling_period_ns(&f.sampling) == 0);
	assert_string_equal(f.sampling.event, "PAPI_TOT_CYC");
	assert_text(&f.sampling, "PAPI_TOT_CYC every 2000000 events");
}

static void test_off_and_unknown(void **state)
{
	(void)state;
	const char *off[] = {"sample.source", "off", "sample.period", "10000000", NULL};
	fold_facts f = parse(off);
	assert_int_equal(f.sampling.mode, FOLD_SAMPLING_OFF);
	assert_true(f.sampling.period == 0 && fold_sampling_period_ns(&f.sampling) == 0);
	assert_text(&f.sampling, "off");
	/* no source, or one fold does not know: no mode, no period */
	const char *none[] = {"sample.period", "10000000", NULL};
	const char *other[] = {"sample.source", "laser", "sample.period", "10000000", NULL};
	for (int k = 0; k < 2; k++) {
		f = parse(k ? other : none);
		assert_int_equal(f.sampling.mode, FOLD_SAMPLING_UNKNOWN);
		assert_true(fold_sampling_period_ns(&f.sampling) == 0);
		assert_text(&f.sampling, NULL);
	}
	/* nothing at all */
	const char *empty[] = {NULL};
	f = parse(empty);
	assert_int_equal(f.sampling.mode, FOLD_SAMPLING_UNKNOWN);
	assert_true(f.pid == -1 && f.rank == -1 && f.size == -1 && f.exec_generation == -1);
	assert_null(f.host);
	assert_true(f.tick_hz == 0 && !f.has_start);
	assert_true(f.stop_onset_ns == 0 && f.stop_return_ns == -1);
}

/* A value that is not wholly a number in range is unknown: not its prefix
 * ("10ms" was 10 ns), not 0 ("abc" was pid 0), not infinite. */
static void test_malformed(void **state)
{
	(void)state;
	static const char *const periods[] = {"10ms", "abc", "", "-5", "0", "1e400", "nan", "inf", " 1"};
	for (size_t k = 0; k < sizeof periods / sizeof *periods; k++) {
		const char *kv[] = {"sample.source", "time", "sample.period", periods[k], NULL};
		fold_facts f = parse(kv);
		assert_int_equal(f.sampling.mode, FOLD_SAMPLING_WALL_TIMER);
		assert_true(f.sampling.period == 0);
		assert_text(&f.sampling, "wall-clock timer");
	}
	static const char *const ids[] = {"12abc", "-3", "99999999999", "", "0x10", "+7"};
	for (size_t k = 0; k < sizeof ids / sizeof *ids; k++) {
		const char *kv[] = {"pid", ids[k], "mpi.rank", ids[k], "exec.generation", ids[k], NULL};
		fold_facts f = parse(kv);
		assert_true(f.pid == -1 && f.rank == -1 && f.exec_generation == -1);
	}
	const char *bad[] = {"sample.source",
	                     "papi",
	                     "sample.period",
	                     "1000",
	                     "sample.jitter",
	                     "2",
	                     "clock.tick_hz",
	                     "0",
	                     "start.realtime_ns",
	                     "17e17",
	                     "sample.stop_onset_ns",
	                     "12",
	                     NULL};
	fold_facts f = parse(bad);
	assert_true(f.sampling.jitter == 0);
	assert_null(f.sampling.event);
	assert_text(&f.sampling, "papi every 1000 events");
	assert_true(f.tick_hz == 0 && !f.has_start);
	/* an onset without its return is no probe */
	assert_true(f.stop_onset_ns == 0 && f.stop_return_ns == -1);
	/* a probe beyond 50 us either way cannot be one */
	const char *far[] = {"sample.stop_onset_ns", "-60000", "sample.return_ns", "300", NULL};
	f = parse(far);
	assert_true(f.stop_onset_ns == 0 && f.stop_return_ns == -1);
}

static void test_identity_and_clock(void **state)
{
	(void)state;
	const char *kv[] = {"pid",
	                    "4242",
	                    "ppid",
	                    "1",
	                    "host",
	                    "node7",
	                    "exe",
	                    "/bin/app",
	                    "mpi.rank",
	                    "3",
	                    "mpi.size",
	                    "8",
	                    "exec.generation",
	                    "1",
	                    "clock.source",
	                    "tsc",
	                    "clock.tick_hz",
	                    "2400000000",
	                    "start.realtime_ns",
	                    "1700000000123456789",
	                    "trace.compress",
	                    "zlib:6",
	                    "sample.stop_onset_ns",
	                    "-12.5",
	                    "sample.return_ns",
	                    "300",
	                    "pid",
	                    "4243", /* the last value wins */
	                    NULL};
	fold_facts f = parse(kv);
	assert_true(f.pid == 4243 && f.ppid == 1 && f.rank == 3 && f.size == 8 && f.exec_generation == 1);
	assert_string_equal(f.host, "node7");
	assert_string_equal(f.exe, "/bin/app");
	assert_string_equal(f.clock_source, "tsc");
	assert_true(f.tick_hz == 2.4e9);
	assert_true(f.has_start && f.start_realtime_ns == 1700000000123456789LL);
	assert_string_equal(f.compress, "zlib:6");
	assert_true(f.stop_onset_ns == -12.5 && f.stop_return_ns == 300);
}

/* The compiler hooks' calibration: decimal ns; absent or malformed is NaN
 * (the analysis then takes a STAT of the key, or no compensation). */
static void test_hook_costs(void **state)
{
	(void)state;
	const char *kv[] = {"overhead.hook_ns",
	                    "41.50",
	                    "overhead.hook_inner_ns",
	                    "12.25",
	                    "overhead.cold_bins_ns",
	                    "0,2000,4000",
	                    "overhead.cold_gap_from",
	                    "function",
	                    "overhead.hook_exit_after_ns",
	                    "7x",
	                    NULL};
	fold_facts f = parse(kv);
	assert_true(f.hooks.pair_ns == 41.5 && f.hooks.inner_ns == 12.25);
	assert_true(isnan(f.hooks.pair_ns_old) && isnan(f.hooks.enter_after_ns));
	assert_true(isnan(f.hooks.exit_after_ns)); /* malformed */
	assert_true(f.hooks.has_cold_bins && f.hooks.ncold_bins == 3 && f.hooks.cold_bin_lo_ns[2] == 4000);
	assert_true(f.hooks.gap_from_function);
	/* bins that do not increase, or are not numbers: none */
	static const char *const bad[] = {"0,2000,2000", "0,x", "", "0,2000,1e999"};
	for (size_t k = 0; k < sizeof bad / sizeof *bad; k++) {
		const char *b[] = {"overhead.cold_bins_ns", bad[k], NULL};
		f = parse(b);
		assert_true(f.hooks.has_cold_bins && f.hooks.ncold_bins == 0);
	}
	/* more bins than fold keeps: the first FOLD_FACTS_COLD_BINS */
	const char *many[] = {"overhead.cold_bins_ns", "0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19",
	                      NULL};
	f = parse(many);
	assert_int_equal(f.hooks.ncold_bins, FOLD_FACTS_COLD_BINS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_wall_timer), cmocka_unit_test(test_cpu_timer),
	    cmocka_unit_test(test_overflow),   cmocka_unit_test(test_off_and_unknown),
	    cmocka_unit_test(test_malformed),  cmocka_unit_test(test_identity_and_clock),
	    cmocka_unit_test(test_hook_costs),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
