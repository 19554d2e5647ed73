/* Warnings grouped by kind and named by subject (warn_group.c), on
 * hand-built records: a group is the records of one kind whatever their
 * texts say, groups in the order first said; subjects come from the record,
 * never from the message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "warn_group.h"

static fold_warning rec(unsigned kind, unsigned type, const char *name, const char *what)
{
	fold_warning d;
	memset(&d, 0, sizeof d);
	d.kind = kind;
	d.subject = fold_diag_subject_none();
	d.subject.type = type;
	if (type == FOLD_SUBJECT_PROCESS) {
		d.subject.process = 0;
		d.subject.trace = (char *)name;
	} else if (type == FOLD_SUBJECT_FUNCTION) {
		d.subject.function = (char *)name;
	} else if (type != FOLD_SUBJECT_RUN) {
		d.subject.region = (char *)name;
	}
	d.what = (char *)what;
	return d;
}

/* Of one kind whatever the text (a drop reason in words, a count), apart
 * when the kinds differ though the texts are alike once digits are out. */
static void test_groups_by_kind_not_by_text(void **state)
{
	(void)state;
	fold_warning w[] = {
	    rec(FOLD_DIAG_SAMPLES_DROPPED, FOLD_SUBJECT_PROCESS, "a.trace",
	        "a.trace: 2 samples dropped (buffer_full)"),
	    rec(FOLD_DIAG_CUT, FOLD_SUBJECT_PROCESS, "a.trace", "a.trace: cut"),
	    rec(FOLD_DIAG_SAMPLES_DROPPED, FOLD_SUBJECT_PROCESS, "b.trace",
	        "b.trace: 7 samples dropped (in_runtime)"),
	    rec(FOLD_DIAG_CHUNKS_LOST, FOLD_SUBJECT_PROCESS, "b.trace",
	        "b.trace: 2 samples dropped (buffer_full)"),
	    rec(FOLD_DIAG_CUT, FOLD_SUBJECT_PROCESS, "c.trace", "c.trace: cut"),
	};
	fold_analysis a = {.warnings = w, .nwarnings = 5};
	size_t order[5];
	report_warn_group g[5];
	assert_int_equal(report_warn_groups(&a, order, g), 3);
	/* samples_dropped {0, 2}, cut {1, 4}, chunks_lost {3} */
	assert_int_equal(g[0].n, 2);
	assert_int_equal(order[g[0].first], 0);
	assert_int_equal(order[g[0].first + 1], 2);
	assert_int_equal(g[1].n, 2);
	assert_int_equal(order[g[1].first], 1);
	assert_int_equal(order[g[1].first + 1], 4);
	assert_int_equal(g[2].n, 1);
	assert_int_equal(order[g[2].first], 3);
}

/* Unclassified records are of one kind when one call said them (the same
 * format), never because their texts look alike. */
static void test_unclassified_grouped_by_the_call(void **state)
{
	(void)state;
	static const char f1[] = "region %s: %lu outlier(s)", f2[] = "region %s: %lu outlier(s) ";
	fold_warning w[] = {
	    rec(0, FOLD_SUBJECT_REGION, "x", "region x: 1 outlier(s)"),
	    rec(0, FOLD_SUBJECT_REGION, "y", "region y: 2 outlier(s)"),
	    rec(0, FOLD_SUBJECT_REGION, "z", "region z: 3 outlier(s)"),
	    rec(0, FOLD_SUBJECT_REGION, "x", "region x: 3 outlier(s)"),
	};
	w[0].format = w[1].format = f1;
	w[2].format = f2;
	/* w[3]: its call unknown */
	fold_analysis a = {.warnings = w, .nwarnings = 4};
	size_t order[4];
	report_warn_group g[4];
	assert_int_equal(report_warn_groups(&a, order, g), 3);
	assert_int_equal(g[0].n, 2);
	assert_int_equal(g[1].n, 1);
	assert_int_equal(g[2].n, 1);
}

static char *subject_of(const fold_warning *d, unsigned cols)
{
	util_buf b;
	util_buf_init(&b);
	report_warn_subject(d, cols, &b);
	char *s = strdup(b.data ? b.data : "");
	util_buf_free(&b);
	return s;
}

/* Subjects in words, from the record: a message that says something else
 * first does not change them. */
static void test_subject_words_come_from_the_record(void **state)
{
	(void)state;
	fold_warning d =
	    rec(FOLD_DIAG_PHASE_NO_RATES, FOLD_SUBJECT_PHASE, "solve", "nothing like it: phase 9");
	d.subject.phase = 2;
	char *s = subject_of(&d, 0);
	assert_string_equal(s, "region solve, phase 2");
	free(s);
	d = rec(FOLD_DIAG_WRITER_PAUSES, FOLD_SUBJECT_THREAD, NULL, "w");
	d.subject.trace = "r1.trace";
	d.subject.thread = 4;
	s = subject_of(&d, 0);
	assert_string_equal(s, "r1.trace thread 4");
	free(s);
	d = rec(FOLD_DIAG_KRIGING_FAILED, FOLD_SUBJECT_COUNTER, "solve", "k");
	d.subject.counter = "PAPI_TOT_INS";
	s = subject_of(&d, 0);
	assert_string_equal(s, "region solve, PAPI_TOT_INS");
	free(s);
	d = rec(FOLD_DIAG_COUNTERS_DROPPED, FOLD_SUBJECT_RUN, NULL, "the traces carry: 3");
	s = subject_of(&d, 0);
	assert_string_equal(s, "");
	free(s);
	/* a long function name shortened as the tables shorten it */
	d = rec(FOLD_DIAG_FUNCTION_THROTTLED, FOLD_SUBJECT_FUNCTION,
	        "void ns::very_long_function_name<std::vector<double>>(std::vector<double> const&, int)",
	        "t");
	s = subject_of(&d, 30);
	assert_non_null(strstr(s, "function "));
	assert_null(strstr(s, "const&"));
	free(s);
}

/* What a record says of its subject: the message without the subject it
 * begins with, else the whole message. */
static void test_rest_of_a_message(void **state)
{
	(void)state;
	fold_warning d =
	    rec(FOLD_DIAG_OUTLIERS_EXCLUDED, FOLD_SUBJECT_REGION, "step", "region step: 2 outliers");
	util_buf b;
	util_buf_init(&b);
	report_warn_rest(&d, 40, &b);
	assert_string_equal(b.data, "2 outliers");
	d.what = "step had 2 outliers";
	b.len = 0;
	report_warn_rest(&d, 40, &b);
	assert_string_equal(b.data, "step had 2 outliers");
	util_buf_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_groups_by_kind_not_by_text),
	    cmocka_unit_test(test_unclassified_grouped_by_the_call),
	    cmocka_unit_test(test_subject_words_come_from_the_record),
	    cmocka_unit_test(test_rest_of_a_message),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
