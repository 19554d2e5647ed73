/* Diagnostics as records (diag.c, the sink in analyze.c): what a record
 * holds when a module files it, that the sink orders the worker pool's
 * records by queue place whichever thread said them first, and that every
 * kind has an identifier of its own that docs/diagnostics.md documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"

typedef struct fixture {
	analyze_ctx c;
	fold_options opt;
	ingest__trace t;
	ingest__trace *tr[1];
} fixture;

static fixture *new_fixture(void)
{
	fixture *f = calloc(1, sizeof *f);
	assert_non_null(f);
	fold_options_init(&f->opt);
	f->c.opt = &f->opt;
	f->c.a = calloc(1, sizeof *f->c.a);
	assert_non_null(f->c.a);
	pthread_mutex_init(&f->c.warn_lock, NULL);
	f->t.path = "rank3.trace";
	f->tr[0] = &f->t;
	f->c.tr = f->tr;
	f->c.ntr = 1;
	return f;
}

static void free_fixture(fixture *f)
{
	fold_analysis_free(f->c.a);
	free(f->c.warn_order);
	pthread_mutex_destroy(&f->c.warn_lock);
	free(f);
}

/* A record holds its kind, the kind's severity, its subject (copied: the
 * caller's buffers may go), its numbers with units, its detail and its
 * message, the subject's name marked in it. */
static void test_record_holds_kind_subject_and_numbers(void **state)
{
	(void)state;
	fixture *f = new_fixture();
	char region[] = "solve";
	fold_diag_subject s = analyze__subject_region(region);
	s.type = FOLD_SUBJECT_PHASE;
	s.phase = 2;
	analyze__diag(&f->c, FOLD_DIAG_PHASE_NO_RATES, &s,
	              ANALYZE_VALUES({"samples", "count", 3}, {"start", "share", 0.25}), "why",
	              "region %s: phase %d holds only %d sample(s)", region, 2, 3);
	fold_diag_subject p = analyze__subject_thread(&f->c, 0, 7);
	analyze__diag(&f->c, FOLD_DIAG_WRITER_PAUSES, &p, NULL, NULL, "%s: paused", f->t.path);
	region[0] = 'X'; /* the record keeps its own copy */
	fold_analysis *a = f->c.a;
	assert_int_equal(a->nwarnings, 2);
	const fold_warning *d = &a->warnings[0];
	assert_string_equal(fold_diag_kind_id(d->kind), "phase_no_rates");
	assert_int_equal(d->severity, fold_diag_kind_severity(FOLD_DIAG_PHASE_NO_RATES));
	assert_int_equal(d->subject.type, FOLD_SUBJECT_PHASE);
	assert_string_equal(d->subject.region, "solve");
	assert_int_equal(d->subject.phase, 2);
	assert_int_equal(d->subject.process, -1);
	assert_int_equal(d->nvalues, 2);
	assert_string_equal(d->values[1].name, "start");
	assert_string_equal(d->values[1].unit, "share");
	assert_true(fold_diag_value_of(d, "samples")->value == 3);
	assert_null(fold_diag_value_of(d, "rate"));
	assert_string_equal(d->detail, "why");
	assert_string_equal(d->what, "region solve: phase 2 holds only 3 sample(s)");
	assert_int_equal(d->name_at, strlen("region "));
	assert_int_equal(d->name_len, strlen("solve"));
	d = &a->warnings[1];
	assert_int_equal(d->subject.type, FOLD_SUBJECT_THREAD);
	assert_int_equal(d->subject.process, 0);
	assert_int_equal(d->subject.thread, 7);
	assert_string_equal(d->subject.trace, "rank3.trace");
	assert_int_equal(d->nvalues, 0);
	assert_null(d->detail);
	free_fixture(f);
}

/* More numbers than a record holds: the first FOLD_DIAG_MAX_VALUES kept. */
static void test_values_beyond_the_limit_are_left_out(void **state)
{
	(void)state;
	fixture *f = new_fixture();
	fold_diag_value v[FOLD_DIAG_MAX_VALUES + 3];
	for (size_t i = 0; i < FOLD_DIAG_MAX_VALUES + 2; i++)
		v[i] = (fold_diag_value){"n", "count", (double)i};
	v[FOLD_DIAG_MAX_VALUES + 2] = (fold_diag_value){NULL, NULL, 0};
	analyze__diag(&f->c, FOLD_DIAG_CUT, NULL, v, NULL, "cut");
	assert_int_equal(f->c.a->warnings[0].nvalues, FOLD_DIAG_MAX_VALUES);
	assert_int_equal(f->c.a->warnings[0].subject.type, FOLD_SUBJECT_RUN);
	free_fixture(f);
}

/* A kind fold does not know files an unclassified record, of one kind
 * with the others said by the same call. */
static void test_unknown_kind_files_unclassified_records(void **state)
{
	(void)state;
	fixture *f = new_fixture();
	for (int i = 0; i < 2; i++) {
		fold_diag_subject s = analyze__subject_region(i ? "b" : "a");
		analyze__diag(&f->c, FOLD_DIAG_NKINDS + 3, &s, NULL, NULL, "region %s: %d outlier(s)",
		              i ? "b" : "a", i + 1);
	}
	analyze__diag(&f->c, FOLD_DIAG_NKINDS, NULL, NULL, NULL, "region %s has no complete instance", "c");
	const fold_warning *w = f->c.a->warnings;
	assert_int_equal(f->c.a->nwarnings, 3);
	assert_int_equal(w[0].kind, FOLD_DIAG_UNCLASSIFIED);
	assert_string_equal(fold_diag_kind_id(w[0].kind), "unclassified");
	assert_int_equal(w[1].subject.type, FOLD_SUBJECT_REGION);
	assert_string_equal(w[1].subject.region, "b");
	assert_int_equal(w[2].subject.type, FOLD_SUBJECT_RUN);
	assert_true(fold_diag_same_kind(&w[0], &w[1]));
	assert_false(fold_diag_same_kind(&w[0], &w[2]));
	assert_false(fold_diag_same_subject(&w[0].subject, &w[1].subject));
	/* a hand-made unclassified record, its call unknown, is a kind of its own */
	fold_warning x = w[0], y = w[0];
	x.format = y.format = NULL;
	assert_false(fold_diag_same_kind(&x, &y));
	free_fixture(f);
}

/* Why a region was not folded: its reason text and the record agree, and a
 * later reason replaces an earlier one. */
static void test_not_folded_sets_reason_and_record(void **state)
{
	(void)state;
	fold_region_result r;
	memset(&r, 0, sizeof r);
	r.name = "step";
	assert_int_equal(analyze__not_folded(&r, FOLD_DIAG_TOO_FEW_SAMPLES,
	                                     ANALYZE_VALUES({"samples", "count", 4}), "%d sample(s)", 4),
	                 0);
	assert_int_equal(analyze__not_folded(&r, FOLD_DIAG_THROTTLED, NULL, "throttled after %d calls", 9),
	                 0);
	assert_string_equal(r.reason, "throttled after 9 calls");
	assert_non_null(r.not_folded);
	assert_string_equal(fold_diag_kind_id(r.not_folded->kind), "throttled");
	assert_string_equal(r.not_folded->what, r.reason);
	assert_string_equal(r.not_folded->subject.region, "step");
	assert_int_equal(r.not_folded->nvalues, 0);
	free(r.reason);
	fold_diag_free(r.not_folded);
	free(r.not_folded);
}

typedef struct worker_arg {
	fixture *f;
	size_t place;
} worker_arg;

static void *say(void *p)
{
	worker_arg *w = p;
	analyze__warn_scope(w->place);
	for (int i = 0; i < 50; i++) {
		fold_diag_subject s = analyze__subject_region(w->place == 1 ? "first" : "second");
		analyze__diag(&w->f->c, FOLD_DIAG_OUTLIERS_EXCLUDED, &s,
		              ANALYZE_VALUES({"instances", "count", (double)i}), NULL, "region %s: %d",
		              s.region, i);
	}
	analyze__warn_scope(0);
	return NULL;
}

/* The pool's records come out in queue order, each region's in the order
 * said, whichever worker said its records first. */
static void test_pool_records_in_queue_order(void **state)
{
	(void)state;
	fixture *f = new_fixture();
	analyze__diag(&f->c, FOLD_DIAG_CUT, NULL, NULL, NULL, "before the pool");
	size_t from = f->c.a->nwarnings;
	worker_arg second = {f, 2}, first = {f, 1};
	pthread_t t2, t1;
	assert_int_equal(pthread_create(&t2, NULL, say, &second), 0);
	assert_int_equal(pthread_join(t2, NULL), 0); /* the second region said all first */
	assert_int_equal(pthread_create(&t1, NULL, say, &first), 0);
	assert_int_equal(pthread_join(t1, NULL), 0);
	analyze__warn_sort(&f->c, from);
	fold_analysis *a = f->c.a;
	assert_int_equal(a->nwarnings, 101);
	assert_string_equal(a->warnings[0].what, "before the pool");
	for (size_t i = 0; i < 100; i++) {
		const fold_warning *d = &a->warnings[1 + i];
		assert_string_equal(d->subject.region, i < 50 ? "first" : "second");
		assert_true(fold_diag_value_of(d, "instances")->value == (double)(i % 50));
	}
	free_fixture(f);
}

/* Every kind has an identifier of its own, and docs/diagnostics.md has a
 * section for it ("### `id`"). */
static void test_every_kind_has_a_documented_identifier(void **state)
{
	(void)state;
	FILE *doc = fopen(FOLD_SOURCE_DIR "/docs/diagnostics.md", "r");
	assert_non_null(doc);
	static char text[1 << 18];
	size_t n = fread(text, 1, sizeof text - 1, doc);
	text[n] = 0;
	fclose(doc);
	for (unsigned k = 0; k < FOLD_DIAG_NKINDS; k++) {
		const char *id = fold_diag_kind_id(k);
		for (unsigned j = 0; j < k; j++)
			if (!strcmp(id, fold_diag_kind_id(j)))
				fail_msg("kinds %u and %u share the identifier %s", j, k, id);
		char heading[128];
		snprintf(heading, sizeof heading, "### `%s`", id);
		if (!strstr(text, heading))
			fail_msg("docs/diagnostics.md does not document the kind %s", id);
	}
	assert_string_equal(fold_diag_kind_id(FOLD_DIAG_NKINDS), "unclassified");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record_holds_kind_subject_and_numbers),
	    cmocka_unit_test(test_values_beyond_the_limit_are_left_out),
	    cmocka_unit_test(test_unknown_kind_files_unclassified_records),
	    cmocka_unit_test(test_not_folded_sets_reason_and_record),
	    cmocka_unit_test(test_pool_records_in_queue_order),
	    cmocka_unit_test(test_every_kind_has_a_documented_identifier),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
