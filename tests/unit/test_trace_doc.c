/* docs/trace-format.md must describe the format the code implements: every
 * record kind in the document's table has the number and name the code uses,
 * every kind the code knows is documented, and the documented magic, header
 * sizes and version match trace_format.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"

static const char *doc_path;

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	assert_int_equal(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

static void test_record_table_matches_code(void **state)
{
	(void)state;
	char *doc = slurp(doc_path);
	char *table = strstr(doc, "| kind | name | stream | fields |");
	assert_non_null(table);
	int documented[128] = {0};
	int rows = 0;
	for (char *line = strchr(table, '\n') + 1; line && *line == '|'; line = strchr(line, '\n'), line = line ? line + 1 : NULL) {
		unsigned kind;
		char name[64];
		if (sscanf(line, "| %u | %63[a-z_] |", &kind, name) != 2)
			continue; /* the |---| separator */
		assert_true(kind < 128);
		if (strcmp(trace_record_kind_name(kind), name))
			fail_msg("docs say kind %u is '%s', the code calls it '%s'", kind, name, trace_record_kind_name(kind));
		documented[kind] = 1;
		rows++;
	}
	assert_true(rows >= 19);
	for (unsigned k = 1; k <= TRACE_REC_FIXED_LAST; k++)
		if (strcmp(trace_record_kind_name(k), "unknown") && !documented[k])
			fail_msg("record kind %u (%s) is not documented", k, trace_record_kind_name(k));
	free(doc);
}

static void test_constants_match_code(void **state)
{
	(void)state;
	char *doc = slurp(doc_path);
	char buf[128];
	snprintf(buf, sizeof buf, "ASCII `%s`", TRACE_FILE_MAGIC);
	assert_non_null(strstr(doc, buf));
	snprintf(buf, sizeof buf, "version %d.%d", TRACE_VERSION_MAJOR, TRACE_VERSION_MINOR);
	assert_non_null(strstr(doc, buf));
	snprintf(buf, sizeof buf, "File header (%d bytes)", TRACE_FILE_HEADER_SIZE);
	assert_non_null(strstr(doc, buf));
	snprintf(buf, sizeof buf, "Chunk header (%d bytes)", TRACE_CHUNK_HEADER_SIZE);
	assert_non_null(strstr(doc, buf));
	snprintf(buf, sizeof buf, "`0x%08x`", TRACE_CHUNK_MAGIC);
	assert_non_null(strstr(doc, buf));
	snprintf(buf, sizeof buf, "at most %u MiB", TRACE_CHUNK_MAX_RAW >> 20);
	assert_non_null(strstr(doc, buf));
	free(doc);
}

int main(int argc, char **argv)
{
	doc_path = argc > 1 ? argv[1] : "docs/trace-format.md";
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_record_table_matches_code),
	    cmocka_unit_test(test_constants_match_code),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
