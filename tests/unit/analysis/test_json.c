/* JSON output: escaping of hostile strings, validity of a whole document. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "json.h"
#include "json_check.h"

static char *escape(const char *s, size_t len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);
	report_json_string(f, s, len);
	fclose(f);
	return buf;
}

static void test_escaping(void **state)
{
	(void)state;
	struct {
		const char *in;
		size_t len;
		const char *out;
	} cases[] = {
	    {"plain", 5, "\"plain\""},
	    {"q\"b\\s/", 6, "\"q\\\"b\\\\s/\""},
	    {"\n\t\r\b\f", 5, "\"\\n\\t\\r\\b\\f\""},
	    {"\x01\x1f\x7f", 3, "\"\\u0001\\u001f\\u007f\""},
	    {"a\0b", 3, "\"a\\u0000b\""},
	    {"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 14,
	     "\"caf\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\""},
	    {"bad\xff", 4, "\"bad\\ufffd\""},
	    {"\xc3", 1, "\"\\ufffd\""},                                  /* truncated sequence */
	    {"\xc0\xaf", 2, "\"\\ufffd\\ufffd\""},                       /* overlong '/' */
	    {"\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""},            /* UTF-16 surrogate */
	    {"\xf4\x90\x80\x80", 4, "\"\\ufffd\\ufffd\\ufffd\\ufffd\""}, /* > U+10FFFF */
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char *got = escape(cases[i].in, cases[i].len);
		assert_string_equal(got, cases[i].out);
		assert_true(json_check(got, strlen(got)));
		free(got);
	}
}

static void test_document_with_hostile_strings_is_valid(void **state)
{
	(void)state;
	fold_analysis *a = calloc(1, sizeof *a);
	a->procs = calloc(1, sizeof *a->procs);
	a->nprocs = 1;
	a->procs[0].trace_path = strdup("/tmp/\"evil\"\n.trc");
	a->procs[0].info = calloc(1, sizeof(fold_kv));
	a->procs[0].info[0].key = strdup("cmdline");
	a->procs[0].info[0].value = strdup("./app '\x01\xff</script>'");
	a->procs[0].ninfo = 1;
	a->procs[0].cmdline = a->procs[0].info[0].value;
	a->procs[0].rank = -1;
	a->regions = calloc(1, sizeof *a->regions);
	a->nregions = 1;
	a->regions[0].name = strdup("region \"q\"\t");
	a->regions[0].phases = calloc(1, sizeof(fold_phase_result));
	a->regions[0].nphases = 1;
	a->regions[0].phases[0].end = 1;
	a->regions[0].phases[0].nrates = 1;
	a->regions[0].phases[0].rate_names = calloc(1, sizeof(char *));
	a->regions[0].phases[0].rate_names[0] = strdup("ctr\\x");
	a->regions[0].phases[0].rates = calloc(1, sizeof(double));
	a->regions[0].phases[0].rates[0] = 0.0 / 0.0; /* NaN must become null */
	a->warnings = calloc(1, sizeof(fold_warning));
	a->warnings[0].subject = fold_diag_subject_none();
	a->warnings[0].what = strdup("\x1b[31mred\x1b[0m");
	a->nwarnings = 1;
	/* a thread with a hostile name, an idle helper, and an imbalance row */
	a->threads = calloc(2, sizeof *a->threads);
	a->nthreads = 2;
	a->threads[0].name = strdup("w\"x");
	a->threads[0].cpu_known = 1;
	a->threads[0].cpu_ns = 5e8;
	a->threads[1].index = 1;
	a->threads[1].klass = FOLD_THREAD_RUNTIME_IDLE;
	a->imbalance = calloc(1, sizeof *a->imbalance);
	a->nimbalance = 1;
	a->imbalance[0].region = strdup("computation (outside MPI)");
	a->imbalance[0].n = 2;
	a->imbalance[0].values_ns = calloc(2, sizeof(double));
	a->imbalance[0].who = calloc(2, sizeof(long));
	a->imbalance[0].values_ns[0] = 1e9;
	a->imbalance[0].values_ns[1] = 3e9;
	a->imbalance[0].who[1] = 1;
	a->imbalance[0].lb = 2.0 / 3;
	a->imbalance[0].slowest = 1;
	char path[64], err[256];
	snprintf(path, sizeof path, "/tmp/fold-test-json-%d.json", (int)getpid());
	assert_int_equal(report_json_write(a, path, err, sizeof err), 0);
	size_t len;
	char *text = json_slurp(path, &len);
	assert_non_null(text);
	assert_true(json_check(text, len));
	assert_non_null(strstr(text, "\"format\":\"fold-json\""));
	assert_non_null(strstr(text, "\"version\":2"));
	assert_non_null(strstr(text, "\"ctr\\\\x\":null"));
	assert_non_null(strstr(text, "\\u001b[31mred"));
	assert_non_null(strstr(text, "\"name\":\"w\\\"x\",\"class\":\"application\""));
	assert_non_null(strstr(text, "\"class\":\"idle_helper\""));
	assert_non_null(strstr(text, "\"cpu_ns\":null"));
	assert_non_null(strstr(text, "\"values_ns\":[1000000000,3000000000],\"who\":[0,1]"));
	assert_non_null(strstr(text, "\"slowest\":1"));
	free(text);
	unlink(path);
	/* An unwritable path gives a one-line error naming it. */
	assert_true(report_json_write(a, "/nonexistent-dir/x.json", err, sizeof err) < 0);
	assert_non_null(strstr(err, "/nonexistent-dir/x.json"));
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_escaping),
	    cmocka_unit_test(test_document_with_hostile_strings_is_valid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
