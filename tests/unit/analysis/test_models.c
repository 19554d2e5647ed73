/* Model files: parsing, evaluation, missing counters, errors with line numbers,
 * and every shipped model file parses. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fold_version.h"
#include "models.h"

static const char *ipc = "# test\n"
                         "model ipc\n"
                         "title Instructions per cycle\n"
                         "counter ins = PAPI_TOT_INS | perf::INSTRUCTIONS\n"
                         "counter cyc = PAPI_TOT_CYC\n"
                         "metric IPC ratio = ins / cyc\n"
                         "metric odd x = -ins / 2 + 3 * (cyc - 1) - max(ins, cyc) + min(1, 2)\n";

static void test_parse_and_evaluate(void **state)
{
	(void)state;
	models__set *m = models__new();
	char err[256];
	assert_int_equal(models__parse(m, ipc, "t.model", err, sizeof err), 0);
	assert_int_equal(models__count(m), 1);
	const char *names[] = {"perf::INSTRUCTIONS", "PAPI_TOT_CYC"};
	double rates[] = {3e9, 2e9}, v;
	assert_int_equal(models__eval(m, 0, 0, names, rates, 2, &v), 0);
	assert_true(fabs(v - 1.5) < 1e-12);
	assert_string_equal(models__metric_name(m, 0, 0), "IPC");
	assert_int_equal(models__eval(m, 0, 1, names, rates, 2, &v), 0);
	assert_true(fabs(v - (-1.5e9 + 3 * (2e9 - 1) - 3e9 + 1)) < 1);
	models__free(m);
}

static void test_missing_counter(void **state)
{
	(void)state;
	models__set *m = models__new();
	char err[256];
	assert_int_equal(models__parse(m, ipc, "t.model", err, sizeof err), 0);
	const char *names[] = {"PAPI_TOT_INS"};
	double rates[] = {1}, v;
	assert_int_equal(models__eval(m, 0, 0, names, rates, 1, &v), -ENOENT);
	/* classification names the missing alias and its alternatives */
	fold_analysis a;
	memset(&a, 0, sizeof a);
	fold_counter_info ci = {(char *)"PAPI_TOT_INS", 1};
	a.counters = &ci;
	a.ncounters = 1;
	assert_int_equal(models__classify(m, &a), 0);
	assert_int_equal(a.nmodels_skipped, 1);
	assert_string_equal(a.models_skipped[0].key, "ipc");
	assert_non_null(strstr(a.models_skipped[0].value, "cyc (PAPI_TOT_CYC)"));
	free(a.models_skipped[0].key);
	free(a.models_skipped[0].value);
	free(a.models_skipped);
	free(a.models_used);
	models__free(m);
}

static void test_errors_name_the_line(void **state)
{
	(void)state;
	models__set *m = models__new();
	char err[256];
	assert_int_equal(
	    models__parse(m, "model x\ncounter a = A\nmetric m r = a +\n", "bad.model", err, sizeof err),
	    -EINVAL);
	assert_non_null(strstr(err, "bad.model:3:"));
	assert_int_equal(models__parse(m, "model x\nmetric m r = b\n", "bad.model", err, sizeof err),
	                 -EINVAL);
	assert_non_null(strstr(err, "unknown counter alias \"b\""));
	assert_int_equal(models__parse(m, "modl x\n", "bad.model", err, sizeof err), -EINVAL);
	assert_int_equal(models__count(m), 0);
	models__free(m);
}

static void diag_fail(void *arg, const char *msg)
{
	(void)arg;
	fail_msg("shipped model rejected: %s", msg);
}

static void test_shipped_models_parse(void **state)
{
	(void)state;
	models__set *m = NULL;
	assert_int_equal(models__load(FOLD_SOURCE_SHARE_DIR, &m, diag_fail, NULL), 0);
	assert_true(models__count(m) >= 10);
	models__free(m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_parse_and_evaluate),
	    cmocka_unit_test(test_missing_counter),
	    cmocka_unit_test(test_errors_name_the_line),
	    cmocka_unit_test(test_shipped_models_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
