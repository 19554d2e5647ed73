/* Escapers of report_text.c: each output format's dangerous characters, and
 * invalid UTF-8 turned into U+FFFD so every output stays valid UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "report_text.h"

typedef void (*escaper)(util_buf *, const char *);

static void check(escaper esc, const char *in, const char *want)
{
	util_buf b;
	util_buf_init(&b);
	esc(&b, in);
	assert_false(b.oom);
	assert_string_equal(b.data ? b.data : "", want);
	util_buf_free(&b);
}

static void test_html_escapes_markup_and_quotes(void **state)
{
	(void)state;
	check(report_esc_html, "a<b>&\"c\"'d'", "a&lt;b&gt;&amp;&quot;c&quot;&#39;d&#39;");
	check(report_esc_html, "</script><img src=x onerror=alert(1)>",
	      "&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;");
	check(report_esc_html, "tab\tnl\nesc\x1b[0m", "tab\tnl\nesc[0m");
	check(report_esc_html,
	      "bad\xff\xfe"
	      "end\xc3",
	      "bad\xef\xbf\xbd\xef\xbf\xbd"
	      "end\xef\xbf\xbd");
	check(report_esc_html, "caf\xc3\xa9", "caf\xc3\xa9");
	check(report_esc_html, "\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd");                 /* overlong '/' */
	check(report_esc_html, "\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
}

static void test_json_is_safe_inside_script(void **state)
{
	(void)state;
	check(report_esc_json, "</script>", "\"\\u003c/script\\u003e\"");
	check(report_esc_json, "<!--&", "\"\\u003c!--\\u0026\"");
	check(report_esc_json, "a/b", "\"a/b\"");
	check(report_esc_json, "q\"b\\", "\"q\\\"b\\\\\"");
	check(report_esc_json, "\n\x01", "\"\\n\\u0001\"");
	check(report_esc_json, "x\xe2\x80\xa8y\xe2\x80\xa9", "\"x\\u2028y\\u2029\"");
	check(report_esc_json, "\xff", "\"\xef\xbf\xbd\"");
	util_buf b;
	util_buf_init(&b);
	report_esc_json(&b, NULL);
	assert_string_equal(b.data, "null");
	util_buf_free(&b);
}

static void esc_json_doc(util_buf *b, const char *s)
{
	report_esc_json_n(b, s, strlen(s), 0);
}

/* The same escaper for the JSON document: markup stays, \b \f are short,
 * an invalid byte is the escape \ufffd, and a length bounds the input. */
static void test_json_document_flavour(void **state)
{
	(void)state;
	check(esc_json_doc, "<a>&\b\f", "\"<a>&\\b\\f\"");
	check(esc_json_doc, "\xff\x7f\x01", "\"\\ufffd\\u007f\\u0001\"");
	check(esc_json_doc, "\xc3\xa9\xe2\x80\xa8", "\"\xc3\xa9\xe2\x80\xa8\"");
	util_buf b;
	util_buf_init(&b);
	report_esc_json_n(&b, "ab\0cd", 5, 0);
	assert_string_equal(b.data, "\"ab\\u0000cd\"");
	util_buf_free(&b);
}

static void test_csv_quotes_and_defuses_formulas(void **state)
{
	(void)state;
	check(report_esc_csv, "plain", "plain");
	check(report_esc_csv, "a,b", "\"a,b\"");
	check(report_esc_csv, "say \"hi\"", "\"say \"\"hi\"\"\"");
	check(report_esc_csv, "line\nbreak", "\"line\nbreak\"");
	check(report_esc_csv, "=cmd|' /C calc'!A0", "\"'=cmd|' /C calc'!A0\"");
}

/* OWASP's CSV injection rules: a cell a spreadsheet would evaluate starts
 * with = + - @, a TAB or a CR; such a cell is quoted and prefixed with '.
 * Control characters other than TAB, CR and LF (ESC sequences that would
 * drive a terminal showing the file, NUL, DEL, C1 controls) never reach
 * the file: each becomes '?'. */
static void test_csv_defuses_tab_cr_and_controls(void **state)
{
	(void)state;
	check(report_esc_csv, "\t=1+1", "\"'\t=1+1\"");
	check(report_esc_csv, "\r=1+1", "\"'\r=1+1\"");
	check(report_esc_csv, "+SUM(A1)", "\"'+SUM(A1)\"");
	check(report_esc_csv, "-2+3", "\"'-2+3\"");
	check(report_esc_csv, "@cmd", "\"'@cmd\"");
	check(report_esc_csv, "red\x1b[31mtext\x1b]0;title\x07", "red?[31mtext?]0;title?");
	check(report_esc_csv, "del\x7f c1\xc2\x9b", "del? c1?");
	check(report_esc_csv, "in\tside", "in\tside");
}

static void test_terminal_text_is_sanitised_and_cut(void **state)
{
	(void)state;
	util_buf b;
	util_buf_init(&b);
	assert_int_equal(report_esc_term(&b, "\x1b[31mred", 20), 8);
	assert_string_equal(b.data, "?[31mred");
	util_buf_free(&b);
	util_buf_init(&b);
	assert_int_equal(report_esc_term(&b, "abcdefghij", 5), 5);
	assert_string_equal(b.data, "abcd\xe2\x80\xa6");
	util_buf_free(&b);
	assert_int_equal(report_term_width("caf\xc3\xa9"), 4);
}

static void test_number_formats(void **state)
{
	(void)state;
	char s[32];
	report_fmt_ns(s, sizeof s, 1.234e6);
	assert_string_equal(s, "1.23 ms");
	report_fmt_ns(s, sizeof s, 850);
	assert_string_equal(s, "850 ns");
	report_fmt_ns(s, sizeof s, 2.5e9);
	assert_string_equal(s, "2.50 s");
	report_fmt_si(s, sizeof s, 1.5e9);
	assert_string_equal(s, "1.50 G");
	report_fmt_si(s, sizeof s, 512e3);
	assert_string_equal(s, "512 k");
	report_fmt_num(s, sizeof s, 0.0 / 0.0);
	assert_string_equal(s, "0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_html_escapes_markup_and_quotes),
	    cmocka_unit_test(test_json_is_safe_inside_script),
	    cmocka_unit_test(test_json_document_flavour),
	    cmocka_unit_test(test_csv_quotes_and_defuses_formulas),
	    cmocka_unit_test(test_csv_defuses_tab_cr_and_controls),
	    cmocka_unit_test(test_terminal_text_is_sanitised_and_cut),
	    cmocka_unit_test(test_number_formats),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
