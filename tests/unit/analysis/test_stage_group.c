/* test_stage_group.c: tests of stage_group.c: grouping of the instances, outliers, the group folded, its CPU
 * share and the warnings about it. */
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

/* A 50 us region sampled every 1 ms: 5% of its instances carry a sample,
 * and each sample stretches its instance by 26 us (signal delivery and
 * handler). Carrying a sample must not make an instance an outlier or a
 * group of its own: every instance is used, every sample folded. Also the
 * "not folded" reason (too few samples at 2 000 instances) names the fix. */
static void test_sampled_instances_are_not_outliers(void **state)
{
	(void)state;
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open(&w, trace, 0, 1, 1 << 16), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	uint32_t ids[1] = {1};
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 1, TRACE_COUNTER_APP, "app::work");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "small");
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 1000, "main");
	TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 1);
	assert_int_equal(rc, 0);
	uint64_t t = 1000000, frames[1] = {0x401000}, v = 0;
	unsigned long nsmp = 0;
	enum { N = 2000 };
	for (unsigned i = 0; i < N; i++) {
		uint64_t d = 50000 + (uint64_t)((i * 7919u) % 1000); /* 50-51 us */
		int sampled = i % 20 == 7;
		uint64_t v64[1] = {v};
		TRACE_PUT(rc, w, 1, trace_enc_enter, t, 1, v64);
		if (sampled) {
			uint64_t ts = t + (uint64_t)((i * 104729u) % 40000) + 5000;
			v64[0] = v + (ts - t) / 2;
			TRACE_PUT(rc, w, 1, trace_enc_sample, ts, frames, 1, 0, v64);
			nsmp++;
			d += 26000;
		}
		v += 25000;
		v64[0] = v;
		TRACE_PUT(rc, w, 1, trace_enc_exit, t + d, 1, v64);
		t += d + 10000;
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, t);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);

	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	o.min_samples = 20;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "small");
	assert_int_equal(r->instances, N);
	assert_int_equal(r->ngroups, 1);
	assert_int_equal(r->instances_used, N);
	assert_int_equal(r->samples_folded, nsmp);
	fold_analysis_free(a);

	/* With fewer samples than needed, the reason says how to get more. */
	o.min_samples = 1000;
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	r = region(a, "small");
	assert_false(r->folded);
	assert_non_null(r->reason);
	assert_non_null(strstr(r->reason, "100 sample(s)"));
	assert_non_null(strstr(r->reason, "FOLD_SAMPLE="));
	/* ... and its record gives the numbers to scripts */
	assert_non_null(r->not_folded);
	assert_int_equal(r->not_folded->kind, FOLD_DIAG_TOO_FEW_SAMPLES);
	assert_string_equal(r->not_folded->what, r->reason);
	assert_int_equal(diag_value(r->not_folded, "samples"), 100);
	assert_int_equal(diag_value(r->not_folded, "needed"), 1000);
	assert_null(fold_diag_value_of(r->not_folded, "other_group"));
	fold_analysis_free(a);
}

/* A regular competitor preempts 70% of the instances for exactly 2 ms: the
 * stretched instances (3 ms) are a mode of their own with most of the time.
 * Their low CPU utilisation gives them away: the unstretched group is
 * folded, with a warning naming the other. */
static void test_stretched_group_not_folded_by_default(void **state)
{
	(void)state;
	synth_config c;
	stretched_by_a_competitor(&c);
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->ngroups, 2);
	assert_true(fabs(r->groups[r->selected_group].median_duration_ns / 1e6 - 1) < 0.05);
	check_two_phases(r);
	assert_true(warned_about(a, "stretched by preemption"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_GROUP_STRETCHED);
	assert_non_null(d);
	assert_int_equal(d->subject.type, FOLD_SUBJECT_GROUP);
	assert_string_equal(d->subject.region, "iteration");
	assert_int_equal(d->subject.group, 1 - (long)r->selected_group);
	assert_int_equal(diag_value(d, "folded_group"), r->selected_group);
	assert_true(diag_value(d, "cpu_share") < diag_value(d, "folded_cpu_share"));
	fold_analysis_free(a);
}

/* A VM stops the program where nothing in the guest sees it (the thread's
 * CPU clock runs on): 48% of the 1 ms instances are stretched by an
 * exponential 0.6 ms, a quarter into their work. The stretched ones are the
 * 1 ms mode's slow tail, too many to be outliers, and hold the most time;
 * their CPU share does not give them away. The mode is the typical
 * instance: it is folded, with a warning naming the tail (the test region
 * of fold_page_fault_phases, folded by its tail, put its switch at 0.55
 * against 0.50). */
static void test_slow_tail_with_the_time_not_folded(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.preempt = 0.48;
	c.preempt_mean_ns = 0.6e6;
	c.preempt_on_cpu = 1;
	c.preempt_at = 0.25;
	c.noise = 0.02;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->ngroups, 2);
	const fold_group *sel = &r->groups[r->selected_group], *other = &r->groups[1 - r->selected_group];
	print_message("folded: median %.3g ms, %.3g ms in all; other: median %.3g ms, %.3g ms in all\n",
	              sel->median_duration_ns / 1e6, sel->total_ns / 1e6, other->median_duration_ns / 1e6,
	              other->total_ns / 1e6);
	assert_true(other->total_ns > sel->total_ns); /* the tail holds the time */
	assert_true(fabs(sel->median_duration_ns / 1e6 - 1) < 0.02);
	check_two_phases(r);
	assert_true(warned_about(a, "slow tail"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_GROUP_SLOW_TAIL);
	assert_non_null(d);
	assert_int_equal(d->subject.type, FOLD_SUBJECT_GROUP);
	assert_int_equal(d->subject.group, 1 - (long)r->selected_group);
	assert_int_equal(diag_value(d, "tail_of"), r->selected_group);
	assert_true(fabs(diag_value(d, "tail_of_median") - sel->median_duration_ns) < 1);
	fold_analysis_free(a);
}

/* The same competitor, but the unstretched instances are too few to carry
 * the samples a fold needs: their higher CPU share must not
 * make fold pick them over the stretched group, which can be folded (a CI
 * run on a loaded machine left an MPI time step unfolded that way). */
static void test_unfoldable_group_never_chosen_for_cpu_share(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.preempt = 0.93;
	c.preempt_mean_ns = 2e6;
	c.preempt_fixed = 1;
	c.period_ns = 1e6;
	c.noise = 0.02;
	fold_analysis *a = fold_synth(&c, 100); /* the unstretched group has about 40 samples */
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->ngroups, 2);
	assert_true(r->folded);
	assert_true(fabs(r->groups[r->selected_group].median_duration_ns / 1e6 - 3) < 0.15);
	fold_analysis_free(a);
}

/* Every instance is paused once for 1.5 ms; 20 long ones (36 ms) hardly
 * feel it and run on the CPU twice as much as the 300 short ones, which
 * hold the time. The long ones are not the code's mode for that: the
 * short instances are folded (the old rule picked the 20). */
static void test_few_long_instances_not_picked_for_cpu_share(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 320;
	c.ngroups = 2;
	c.groups[0] = (synth_group){1.8e6, 300, 1};
	c.groups[1] = (synth_group){35e6, 20, 1};
	c.preempt = 1.0;
	c.preempt_mean_ns = 1.5e6;
	c.preempt_fixed = 1;
	c.period_ns = 2e5;
	c.noise = 0.02;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->ngroups >= 2);
	assert_true(r->folded);
	print_message("selected median %.3g ms\n", r->groups[r->selected_group].median_duration_ns / 1e6);
	assert_true(r->groups[r->selected_group].median_duration_ns < 10e6);
	fold_analysis_free(a);
}

/* A call of 300 ms holds more of the region's time than its 199 calls of
 * 1 ms, but one instance does not fold: the 1 ms group is folded, and fold
 * says why the group with the time is not, and how to fold it anyway. */
static void test_unfoldable_group_with_the_time_is_said(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 200;
	c.ngroups = 2;
	c.groups[0] = (synth_group){1e6, 198, 1};
	c.groups[1] = (synth_group){300e6, 2, 1}; /* one instance with this seed */
	c.period_ns = 1e5;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	assert_int_equal(r->ngroups, 2);
	const fold_group *g = &r->groups[r->selected_group];
	assert_true(g->median_duration_ns < 10e6);
	assert_true(g->cpu_share > 0 && g->cpu_share <= 1.0001);
	assert_true(warned_about(a, "holds the most time"));
	assert_true(warned_about(a, "a one-off, not a repetition"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_GROUP_TOO_FEW);
	assert_non_null(d);
	assert_string_equal(d->detail, "one_off");
	assert_int_equal(d->subject.group, 1 - (long)r->selected_group);
	assert_int_equal(diag_value(d, "folded_group"), r->selected_group);
	char want[32];
	snprintf(want, sizeof want, "--group %u", r->selected_group ? 0u : 1u);
	assert_true(warned_about(a, want));
	assert_int_equal(a->min_instances, 3);
	fold_analysis_free(a);
}

/* Under CPU-time sampling instances that run on a CPU 4% of their 1.8 ms
 * are sampled one time in twelve, the long ones more often: the sampled
 * instances' excess over the unsampled is their length, not a cost of the
 * samples (before: 244 us "per sample" taken out of their durations). */
static void test_no_sample_cost_from_long_instances_under_cputime(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 2000;
	c.groups[0].duration_ns = 1.8e6;
	c.duration_jitter = 0.3;
	c.cpu[0] = c.cpu[1] = 0.04;
	c.period_ns = 1e6;
	c.cputime_sampling = 1;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->samples > 100 && r->samples < 200); /* about one instance in twelve */
	for (size_t i = 0; i < r->nfit_params; i++)
		if (!strcmp(r->fit_params[i].name, "grouping.sample_cost_ns"))
			fail_msg("a sample cost of %g ns was estimated from long instances",
			         r->fit_params[i].value);
	fold_analysis_free(a);
}

/* Wall-clock sampling at 1 ms: 1900 calls of 5 us and 100 of 3 ms (an
 * OpenMP region whose calls a loaded machine stretched). The sampled calls
 * are nearly all long ones, carrying about 3 samples each: their excess
 * over the short calls is their length, not the samples' cost (before:
 * about 1 ms "per sample", which shrank the long calls' group total to a
 * sixth of the time their instances hold). */
static void test_no_sample_cost_from_another_population(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 2000;
	c.ngroups = 2;
	c.groups[0] = (synth_group){5e3, 1900, 1};
	c.groups[1] = (synth_group){3e6, 100, 1};
	c.period_ns = 1e6;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->samples > 200);
	for (size_t i = 0; i < r->nfit_params; i++)
		if (!strcmp(r->fit_params[i].name, "grouping.sample_cost_ns"))
			fail_msg("a sample cost of %g ns was estimated from the long calls",
			         r->fit_params[i].value);
	double groups = 0;
	for (size_t k = 0; k < r->ngroups; k++)
		groups += r->groups[k].total_ns;
	print_message("groups hold %.4g ms of the region's %.4g ms\n", groups / 1e6, r->total_ns / 1e6);
	assert_true(groups > 0.95 * r->total_ns);
	fold_analysis_free(a);
}

/* 10 ms sampling on 5 ms instances, 40% of them preempted once for 4 ms:
 * the stretched group holds more time. With about one sample in two
 * instances the samples cannot tell how much each instance ran on a CPU,
 * but the CPU clock the runtime reads at enter and exit can: the
 * undisturbed group is folded (before: the stretched one, CPU share
 * unknown). */
static void test_cpu_share_from_the_clock_read_at_enter_and_exit(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 300;
	c.groups[0].duration_ns = 5e6;
	c.cpu[0] = c.cpu[1] = 1.0;
	c.preempt = 0.4;
	c.preempt_mean_ns = 4e6;
	c.preempt_fixed = 1;
	c.period_ns = 1e7;
	c.cpu_clock_counter = 1;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	assert_true(r->ngroups >= 2);
	const fold_group *g = &r->groups[r->selected_group];
	print_message("folded group: median %.3g ms, CPU share %.3f\n", g->median_duration_ns / 1e6,
	              g->cpu_share);
	assert_true(g->median_duration_ns < 6e6);
	assert_true(g->cpu_share > 0.95 && g->cpu_share <= 1.0); /* one thread: at most all of the time */
	assert_true(warned_about(a, "has the most time but its instances spend"));
	fold_analysis_free(a);
}

/* "A tenth of the instances got clearly less CPU": only from shares the
 * runtime measured. Estimated from one or two samples of an instance whose
 * CPU rate changes (1.0, then 0.5) the share follows the phase the samples
 * fell in, and a region nothing preempted was said to be preempted; with
 * the CPU clock read at enter and exit, preempted instances are said. */
static void test_starved_instances_only_from_measured_shares(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 400;
	c.period_ns = 5e5;
	fold_analysis *a = fold_synth(&c, 0);
	assert_false(warned_about(a, "got less than"));
	fold_analysis_free(a);
	c.cpu_clock_counter = 1;
	c.cpu[0] = c.cpu[1] = 1.0;
	c.duration_jitter = 0.3; /* preempted instances stay inside the group */
	c.preempt = 0.3;
	c.preempt_mean_ns = 3e5;
	a = fold_synth(&c, 0);
	assert_true(warned_about(a, "got less than"));
	fold_analysis_free(a);
}

/* Instances that spend most of their time off the CPU are named. */
static void test_low_cpu_share_warned(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.cpu[0] = c.cpu[1] = 0.4;
	c.noise = 0.02;
	assert_int_equal(synth_write(&c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	assert_true(warned_about(a, "ran on a CPU for only 40%"));
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_LOW_CPU_SHARE);
	assert_non_null(d);
	assert_int_equal(d->subject.type, FOLD_SUBJECT_REGION);
	assert_true(fabs(diag_value(d, "cpu_share") - 0.4) < 0.02);
	fold_analysis_free(a);
}

/* --group naming a group the region does not have: the default group is
 * folded, and the warning says which was asked for, how many there are and
 * which is folded. */
static void test_missing_group_said_with_its_numbers(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	assert_int_equal(synth_write(&c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	o.group = 7;
	fold_analysis *a;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	const fold_region_result *r = region(a, "iteration");
	assert_true(r->folded);
	const fold_warning *d = warning_of_kind(a, FOLD_DIAG_GROUP_MISSING);
	assert_non_null(d);
	assert_non_null(strstr(d->what, "group 7 requested"));
	assert_int_equal(d->subject.type, FOLD_SUBJECT_REGION);
	assert_string_equal(d->subject.region, "iteration");
	assert_int_equal(diag_value(d, "requested"), 7);
	assert_int_equal(diag_value(d, "groups"), r->ngroups);
	assert_int_equal(diag_value(d, "folded_group"), r->selected_group);
	fold_analysis_free(a);
}

/* A group's min and max, when most of its instances carried no sample,
 * are those instances' measured durations. A sampled one's is its
 * measurement less the estimated cost of its samples, and the cost varies
 * from sample to sample (here a third of the samples have 0.85 of the
 * delivery, which nothing records): the group of these 3 us instances
 * read a minimum of 9 ns, as XSBench's 1.7 us lookups read 8.8 ns, below
 * every call the exact profile saw. The synthetic program makes no
 * instance shorter than 300 ns; the durations spread 45%, so that the
 * over-compensated instances stay inside the group. */
static void test_group_extremes_from_unsampled_instances(void **state)
{
	(void)state;
	synth_config c;
	synth_config_init(&c);
	c.instances = 20000;
	c.groups[0].duration_ns = 3e3;
	c.duration_jitter = 0.45;
	c.gap_ns = 3e3;
	c.period_ns = 1e5;
	c.sample_cost_ns = 26e3;
	c.sample_handler_ns = 8e3;
	c.sample_lag_ns = 2e3;
	c.sample_delivery_share = 0.33;
	c.sample_delivery_factor = 0.85;
	c.seed = 11;
	fold_analysis *a = fold_synth(&c, 0);
	const fold_region_result *r = region(a, "iteration");
	const fold_group *g = &r->groups[r->selected_group];
	print_message("group: %lu used, %lu samples, min %.0f ns, median %.0f ns, max %.0f ns\n", g->used,
	              g->samples, g->min_duration_ns, g->median_duration_ns, g->max_duration_ns);
	assert_true(g->samples > 500 && g->used > 19000);
	assert_true(g->min_duration_ns >= 300 * 0.99);
	assert_true(g->max_duration_ns < 3e3 * (1 + 6 * 0.45));
	fold_analysis_free(a);
}

/* When no group has the samples to fold, the region is not folded
 * whichever group is chosen: no group is said to be folded instead of
 * the stretched one. CloverLeaf's burst of 20 instances and one sample
 * read "group 3 ... spend 60% of it on the CPU against nan% in group 2
 * ..., which is folded"; nothing was. */
static void test_no_cpu_share_choice_when_nothing_folds(void **state)
{
	(void)state;
	synth_config c;
	stretched_by_a_competitor(&c);
	fold_analysis *a = fold_synth(&c, 1000000);
	const fold_region_result *r = region(a, "iteration");
	assert_int_equal(r->ngroups, 2);
	assert_false(r->folded);
	assert_false(warned_about(a, "stretched by preemption"));
	/* the reason names the group with the time */
	assert_true(fabs(r->groups[r->selected_group].median_duration_ns / 3e6 - 1) < 0.05);
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_sampled_instances_are_not_outliers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_stretched_group_not_folded_by_default, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_slow_tail_with_the_time_not_folded, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_cpu_share_choice_when_nothing_folds, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_group_extremes_from_unsampled_instances, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_unfoldable_group_never_chosen_for_cpu_share, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_few_long_instances_not_picked_for_cpu_share, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_low_cpu_share_warned, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_missing_group_said_with_its_numbers, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_starved_instances_only_from_measured_shares, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_cpu_share_from_the_clock_read_at_enter_and_exit, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_no_sample_cost_from_another_population, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_no_sample_cost_from_long_instances_under_cputime, setup,
	                                    teardown),
	    cmocka_unit_test_setup_teardown(test_unfoldable_group_with_the_time_is_said, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
