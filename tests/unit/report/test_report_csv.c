/* CSV tables on the hostile fixture: every table is written with its header,
 * rows match the analysis (one per folded sample, curve point, phase...),
 * hostile strings are quoted per RFC 4180, formulas are defused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fixture.h"
#include "report.h"

static char dir[256];

static char *slurp(const char *name)
{
	char p[512];
	snprintf(p, sizeof p, "%s/%s", dir, name);
	FILE *f = fopen(p, "rb");
	if (!f)
		fail_msg("missing %s", p);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *d = malloc((size_t)n + 1);
	assert_non_null(d);
	assert_int_equal(fread(d, 1, (size_t)n, f), (size_t)n);
	d[n] = 0;
	fclose(f);
	return d;
}

/* Records in an RFC 4180 file (CRLF outside quotes), header included. */
static size_t records(const char *s)
{
	size_t n = 0;
	int quoted = 0;
	for (; *s; s++) {
		if (*s == '"')
			quoted = !quoted;
		else if (*s == '\n' && !quoted)
			n++;
	}
	return n;
}

static void test_tables_match_the_analysis(void **state)
{
	(void)state;
	snprintf(dir, sizeof dir, "/tmp/fold-test-csv-%d", (int)getpid());
	fold_analysis *a = report_fixture_new(300);
	char err[256] = "";
	if (report_csv_write(a, dir, err, sizeof err))
		fail_msg("report_csv_write: %s", err);

	size_t points = 0, curve = 0, phases = 0, top = 0, inst = 0;
	for (size_t i = 0; i < a->nregions; i++) {
		const fold_region_result *r = &a->regions[i];
		for (size_t s = 0; s < r->nseries; s++) {
			points += r->series[s].npoints;
			curve += r->series[s].fit.n;
		}
		phases += r->nphases;
		for (size_t k = 0; k < r->nphases; k++)
			top += r->phases[k].ntop;
		inst += r->ninst;
	}
	static const struct {
		const char *file, *header;
	} want[] = {
	    {"regions.csv", "region,rank_by_time,kind,"},
	    {"samples.csv", "region,series,x,cumulative_share\r\n"},
	    {"curves.csv", "region,series,unit,derived,x,"},
	    {"phases.csv", "region,phase,start,end,"},
	    {"phase_rates.csv", "region,phase,metric,rate\r\n"},
	    {"phase_sources.csv", "region,phase,rank,"},
	    {"instances.csv", "region,rank,thread,group,"},
	    {"profile.csv", "region,kind,calls,"},
	    {"callpairs.csv", "caller,callee,calls,"},
	    {"calltree.csv", "node,parent,function,"},
	    {"bottomup.csv", "node,parent,function,file,line,self_samples,total_samples\r\n"},
	};
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
		char *d = slurp(want[i].file);
		if (strncmp(d, want[i].header, strlen(want[i].header)))
			fail_msg("%s starts with %.60s", want[i].file, d);
		free(d);
	}
	char *d = slurp("samples.csv");
	assert_int_equal(records(d), points + 1);
	/* A name with a comma and quotes is one quoted field with doubled quotes. */
	assert_non_null(
	    strstr(d, "\"solve<std::vector<double, std::allocator<double> >&>\",\"bytes<sent>&\"\"q\"\"\","));
	free(d);
	d = slurp("curves.csv");
	assert_int_equal(records(d), curve + 1);
	free(d);
	d = slurp("phases.csv");
	assert_int_equal(records(d), phases + 1);
	free(d);
	d = slurp("phase_sources.csv");
	assert_int_equal(records(d), top + 1);
	assert_non_null(strstr(d, "\"/src/we\"\"ird/</script><script>alert(1)</script>.c\""));
	free(d);
	d = slurp("instances.csv");
	assert_int_equal(records(d), inst + 1);
	free(d);
	d = slurp("profile.csv");
	assert_int_equal(records(d), a->nprofile + 1);
	free(d);
	d = slurp("calltree.csv");
	assert_int_equal(records(d), a->ncct + 1);
	free(d);
	/* Bottom-up: the helper's self samples under two callers (620 + 150)
	 * make one root; its callers are its children. */
	d = slurp("bottomup.csv");
	assert_true(a->nbottom_up > 0);
	assert_int_equal(records(d), a->nbottom_up + 1);
	assert_non_null(strstr(d, "," FIXTURE_FUNC_HELPER ",/src/blas/axpy.h,17,770,770\r\n"));
	assert_non_null(strstr(d, ",main,/src/main.c,10,0,"));
	free(d);
	fold_analysis_free(a);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

static void test_not_a_directory_is_reported(void **state)
{
	(void)state;
	fold_analysis *a = report_fixture_new(10);
	char err[256] = "";
	assert_true(report_csv_write(a, "/dev/null", err, sizeof err) < 0);
	assert_non_null(strstr(err, "/dev/null"));
	fold_analysis_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tables_match_the_analysis),
	    cmocka_unit_test(test_not_a_directory_is_reported),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
