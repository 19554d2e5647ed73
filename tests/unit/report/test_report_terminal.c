/* The terminal summary on the hostile fixture: fits the width, no colour
 * (and no control character from a name) unless asked, shows regions,
 * phases with rates and top lines, and warnings. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fixture.h"
#include "report.h"
#include "report_text.h"

/* The terminal summary of a at width columns, as text (len: its length). */
static char *rendered(const fold_analysis *a, unsigned width, int color, size_t *len)
{
	char *data = NULL;
	FILE *f = open_memstream(&data, len);
	assert_non_null(f);
	assert_int_equal(report_terminal(a, f, width, color), 0);
	fclose(f);
	return data;
}

static char *summary(unsigned width, int color, size_t *len)
{
	fold_analysis *a = report_fixture_new(200);
	char *data = rendered(a, width, color, len);
	fold_analysis_free(a);
	return data;
}

static void assert_lines_fit(char *text, unsigned width)
{
	for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
		unsigned w = report_term_width(line);
		if (w > width)
			fail_msg("line of %u columns (> %u): %s", w, width, line);
	}
}

static void test_fits_width_without_color(void **state)
{
	(void)state;
	static const unsigned widths[] = {100, 80, 60};
	for (size_t i = 0; i < 3; i++) {
		size_t len;
		char *text = summary(widths[i], 0, &len);
		assert_null(memchr(text, 0x1b, len));
		assert_lines_fit(text, widths[i]);
		free(text);
	}
}

static void test_shows_regions_phases_and_warnings(void **state)
{
	(void)state;
	size_t len;
	char *text = summary(100, 0, &len);
	static const char *const want[] = {
	    "fold summary", "2 processes (MPI ranks)", "node<002>&co", "time@10ms jitter 10%",
	    "unavailable: PAPI_L2_DCM", "Regions by time", "solve<std::vector<double", "compute_flux",
	    "MPI_Allreduce", "too few sampl", "3 phases", "P1", "P3", "perf::TASK-CLOCK",
	    "0.49 CPUs", /* TASK-CLOCK (ns/s) as the CPUs in use, not 490 M/s */
	    "IPC", "kernel_stencil<float", "script>.c:130", "Warnings", "throttled", "?[31mred",
	    "checksum mismatch",
	    /* where the CPUs worked: CPU time, share, samples; names shortened, clone kept */
	    "Where the CPUs worked: 4.30 s of CPU time on 3 threads", "3.30 s",
	    "parallel region 3 in Integrate::run(", "libgomp (no symbols)",
	    /* threads: classes, busy share, idle helpers summarised in one line */
	    "OpenMP worker", "2 idle helper threads", "(mostly",
	    /* imbalance: the slowest rank named, LB = mean/max */
	    "Imbalance over ranks", "computation (outside MPI)", "0.67", "rank 1",
	    "rank 0 #1", /* the slowest thread of the OpenMP region, named as in Threads */
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!strstr(text, want[i]))
			fail_msg("summary lacks %s:\n%s", want[i], text);
	/* idle helpers are not among the functions where the CPUs worked */
	const char *cpu = strstr(text, "Where the CPUs worked"), *thr = strstr(text, "Threads (");
	assert_non_null(cpu);
	assert_non_null(thr);
	const char *w = strstr(cpu, "epoll_wait");
	if (w && w < thr)
		fail_msg("an idle helper's wait is listed where the CPUs worked:\n%s", text);
	/* no line is cut with an ellipsis in the warnings: they wrap */
	const char *warn = strstr(text, "Warnings");
	assert_non_null(warn);
	/* a warning about a region names it as the tables do, not by its
	 * demangled signature (the only ellipses in the warnings) */
	static const char shortn[] = "miniFE::waxpby<\xe2\x80\xa6>(\xe2\x80\xa6)";
	char *named = strstr(warn, shortn);
	assert_non_null(named);
	assert_non_null(strstr(named, "): 2 instance(s)"));
	assert_null(strstr(warn, "ScalarType"));
	memset(named, '-', sizeof shortn - 1);
	assert_null(strstr(warn, "\xe2\x80\xa6"));
	free(text);
}

/* Warnings of one kind are said once, counted, with the other subjects
 * named from their records: samples dropped for another reason in another
 * process are the same kind (a text comparison kept them apart) and say
 * their own numbers, and an outlier warning about a second region names
 * only that region. */
static void test_warnings_grouped_by_kind_name_their_subjects(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	fold_warning *w = realloc(a->warnings, (a->nwarnings + 2) * sizeof *w);
	assert_non_null(w);
	a->warnings = w;
	fold_warning *d = &w[a->nwarnings++];
	*d = (fold_warning){.kind = FOLD_DIAG_SAMPLES_DROPPED, .subject = fold_diag_subject_none()};
	d->subject.type = FOLD_SUBJECT_PROCESS;
	d->subject.process = 1;
	d->subject.trace = strdup("rank1.trace");
	d->what = strdup("rank1.trace: 4 samples dropped (buffer_full)");
	/* its own count, which the first record (no values) does not share */
	d->values[0] = (fold_diag_value){"samples", "count", 4};
	d->nvalues = 1;
	d = &w[a->nwarnings++];
	*d = (fold_warning){.kind = FOLD_DIAG_OUTLIERS_EXCLUDED, .subject = fold_diag_subject_none()};
	d->subject.type = FOLD_SUBJECT_REGION;
	d->subject.region = strdup("halo_exchange");
	d->what =
	    strdup("region halo_exchange: 9 instance(s) of the folded group excluded as duration outliers");
	size_t len;
	char *text = rendered(a, 120, 0, &len);
	const char *warn = strstr(text, "Warnings (7)");
	assert_non_null(warn);
	if (!strstr(warn, "! 2x 15 samples dropped") || !strstr(warn, "also: rank1.trace (samples 4)\n") ||
	    !strstr(warn, "also: region halo_exchange\n") || strstr(warn, "buffer_full"))
		fail_msg("warnings not grouped by kind with their subjects:\n%s", warn);
	free(text);
	fold_analysis_free(a);
}

/* 16 ranks: the threads table stops at 12 rows and says how busy the
 * ranks were in one line, naming the least and the most busy. */
static void test_many_ranks_summarised(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(50);
	for (size_t i = 0; i < a->nthreads; i++) {
		free(a->threads[i].name);
		for (size_t k = 0; k < a->threads[i].ntop; k++) {
			free(a->threads[i].top[k].function);
			free(a->threads[i].top[k].module);
			free(a->threads[i].top[k].file);
		}
		free(a->threads[i].top);
	}
	free(a->threads);
	a->nthreads = 16;
	a->threads = calloc(16, sizeof *a->threads);
	assert_non_null(a->threads);
	for (unsigned r = 0; r < 16; r++) {
		fold_thread_summary *t = &a->threads[r];
		t->proc = r;
		t->rank = r;
		t->stream = 1;
		t->samples = 100;
		t->cpu_known = 1;
		t->wall_ns = 1e9;
		t->cpu_ns = r == 5 ? 0.25e9 : r == 9 ? 1e9 : 0.5e9;
	}
	size_t len;
	char *data = rendered(a, 80, 0, &len);
	if (!strstr(data, "... 4 more application and OpenMP threads") ||
	    !strstr(data, "least 25% (rank 5)") || !strstr(data, "most 100% (rank 9)"))
		fail_msg("no busy summary of the ranks:\n%s", data);
	free(data);
	fold_analysis_free(a);
}

static void test_color_only_when_asked(void **state)
{
	(void)state;
	size_t len;
	char *text = summary(100, 1, &len);
	assert_non_null(strstr(text, "\x1b[1m"));
	/* Colour codes take no columns: strip them and the width still holds. */
	char *w = text, *r = text;
	while (*r) {
		if (*r == 0x1b) {
			while (*r && *r != 'm')
				r++;
			if (*r)
				r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = 0;
	assert_lines_fit(text, 100);
	free(text);
}

/* Regions that miss the same count of instances or samples are listed
 * once, each with its count (CloverLeaf's terminal gave 17 lines, one per
 * distinct count); a reason of the region's own keeps its line. */
static void test_shared_not_folded_reason_once(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(200);
	static const char *const common =
	    "fewer than 20 samples inside the usable instances; sample more often";
	for (size_t i = 1; i < 3; i++) {
		fold_region_result *r = &a->regions[i];
		r->folded = 0;
		free(r->reason);
		r->reason = strdup(i == 1 ? "7 sample(s) in group 0" : "3 sample(s) in group 1");
		r->reason_common = strdup(common);
		r->reason_count = i == 1 ? 7 : 3;
	}
	size_t len;
	char *text = rendered(a, 200, 0, &len);
	const char *line = strstr(text, "not folded (fewer than 20 samples");
	assert_non_null(line);
	assert_null(strstr(line + 1, "not folded (fewer than 20 samples"));
	assert_non_null(strstr(line, "count in brackets): 2\xc2\xa0(7), 3\xc2\xa0(3)"));
	assert_null(strstr(text, "sample(s) in group"));
	free(text);
	fold_analysis_free(a);
}

/* A region where nothing but wall time could be folded (no counter read
 * at its boundaries, fewer than two samples per instance): its phase says
 * so, not "wall_time 1.00 s/s", a rate of 1 by definition. */
static void test_wall_time_only_said(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(200);
	report_fixture_wall_time_only(&a->regions[0].phases[0]);
	size_t len;
	char *text = rendered(a, 100, 0, &len);
	assert_non_null(strstr(text, "no counter inside"));
	assert_null(strstr(text, "wall_time"));
	free(text);
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fits_width_without_color),
	    cmocka_unit_test(test_shows_regions_phases_and_warnings),
	    cmocka_unit_test(test_warnings_grouped_by_kind_name_their_subjects),
	    cmocka_unit_test(test_color_only_when_asked),
	    cmocka_unit_test(test_many_ranks_summarised),
	    cmocka_unit_test(test_shared_not_folded_reason_once),
	    cmocka_unit_test(test_wall_time_only_said),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
