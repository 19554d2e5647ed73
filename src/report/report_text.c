/* report_text.c: escapers and number formatting for the report writers.
 * See report_text.h for the invariants. */
#include "report_text.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

size_t report_utf8_next(const char *str, uint32_t *cp)
{
	return report_utf8_decode(str, SIZE_MAX, cp);
}

size_t report_utf8_decode(const char *str, size_t avail, uint32_t *cp)
{
	const unsigned char *s = (const unsigned char *)str;
	unsigned c = s[0];
	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	size_t n;
	uint32_t v, min;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2, v = c & 0x1f, min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3, v = c & 0x0f, min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4, v = c & 0x07, min = 0x10000;
	} else {
		*cp = 0xfffd;
		return 1;
	}
	for (size_t i = 1; i < n; i++) {
		if (i >= avail || (s[i] & 0xc0) != 0x80) { /* also catches a terminating NUL */
			*cp = 0xfffd;
			return 1;
		}
		v = (v << 6) | (s[i] & 0x3f);
	}
	if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
		*cp = 0xfffd;
		return 1;
	}
	*cp = v;
	return n;
}

void report_buf_put_cp(util_buf *b, uint32_t cp)
{
	char o[4];
	if (cp < 0x80) {
		o[0] = (char)cp;
		util_buf_put(b, o, 1);
	} else if (cp < 0x800) {
		o[0] = (char)(0xc0 | (cp >> 6));
		o[1] = (char)(0x80 | (cp & 0x3f));
		util_buf_put(b, o, 2);
	} else if (cp < 0x10000) {
		o[0] = (char)(0xe0 | (cp >> 12));
		o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[2] = (char)(0x80 | (cp & 0x3f));
		util_buf_put(b, o, 3);
	} else {
		o[0] = (char)(0xf0 | (cp >> 18));
		o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
		o[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
		o[3] = (char)(0x80 | (cp & 0x3f));
		util_buf_put(b, o, 4);
	}
}

void report_esc_html(util_buf *b, const char *s)
{
	if (!s)
		return;
	while (*s) {
		uint32_t cp;
		size_t n = report_utf8_next(s, &cp);
		switch (cp) {
		case '&': util_buf_puts(b, "&amp;"); break;
		case '<': util_buf_puts(b, "&lt;"); break;
		case '>': util_buf_puts(b, "&gt;"); break;
		case '"': util_buf_puts(b, "&quot;"); break;
		case '\'': util_buf_puts(b, "&#39;"); break;
		default:
			/* HTML forbids most C0/C1 controls; they carry no meaning in a name. */
			if ((cp < 0x20 && cp != '\t' && cp != '\n') || (cp >= 0x7f && cp < 0xa0))
				break;
			if (n == 1 && cp < 0x80)
				util_buf_putc(b, (char)cp);
			else
				report_buf_put_cp(b, cp);
		}
		s += n;
	}
}

void report_esc_json_n(util_buf *b, const char *s, size_t len, int in_script)
{
	static const char hex[] = "0123456789abcdef";
	util_buf_putc(b, '"');
	for (size_t i = 0; i < len;) {
		uint32_t cp;
		size_t n = report_utf8_decode(s + i, len - i, &cp);
		switch (cp) {
		case '"': util_buf_puts(b, "\\\""); break;
		case '\\': util_buf_puts(b, "\\\\"); break;
		case '\n': util_buf_puts(b, "\\n"); break;
		case '\r': util_buf_puts(b, "\\r"); break;
		case '\t': util_buf_puts(b, "\\t"); break;
		default:
			if (in_script &&
			    (cp == '<' || cp == '>' || cp == '&' || cp == 0x2028 || cp == 0x2029)) {
				/* Markup characters as escapes, so neither "</script" nor
				 * "<!--" can appear inside a script element whatever the
				 * string holds. */
				util_buf_printf(b, "\\u%04x", (unsigned)cp);
			} else if (!in_script && (cp == '\b' || cp == '\f')) {
				util_buf_puts(b, cp == '\b' ? "\\b" : "\\f");
			} else if (cp < 0x20 || cp == 0x7f) {
				char u[7] = {'\\', 'u', '0', '0', hex[cp >> 4], hex[cp & 15], 0};
				util_buf_puts(b, u);
			} else if (n == 1 && cp >= 0x80) {
				/* An invalid byte, decoded as U+FFFD. */
				if (in_script)
					report_buf_put_cp(b, cp);
				else
					util_buf_puts(b, "\\ufffd");
			} else {
				util_buf_put(b, s + i, n); /* valid UTF-8 is copied */
			}
		}
		i += n;
	}
	util_buf_putc(b, '"');
}

void report_esc_json(util_buf *b, const char *s)
{
	if (!s)
		util_buf_puts(b, "null");
	else
		report_esc_json_n(b, s, strlen(s), 1);
}

/* OWASP's rule for CSV injection: a cell that starts with one of these is
 * a formula to a spreadsheet (TAB and CR too: some strip them first). */
static int csv_formula_start(char c)
{
	return c == '=' || c == '+' || c == '-' || c == '@' || c == '\t' || c == '\r';
}

void report_esc_csv(util_buf *b, const char *s)
{
	if (!s)
		return;
	int formula = csv_formula_start(s[0]);
	int quote = formula || strpbrk(s, ",\"\r\n") != NULL;
	if (quote)
		util_buf_putc(b, '"');
	if (formula)
		util_buf_putc(b, '\'');
	while (*s) {
		uint32_t cp;
		size_t n = report_utf8_next(s, &cp);
		if (cp == '"')
			util_buf_puts(b, "\"\"");
		else if (report_is_control(cp) && cp != '\t' && cp != '\r' && cp != '\n')
			util_buf_putc(b, '?'); /* ESC, NUL, DEL, C1: never into the file */
		else
			report_buf_put_cp(b, cp);
		s += n;
	}
	if (quote)
		util_buf_putc(b, '"');
}

unsigned report_esc_term(util_buf *b, const char *s, unsigned maxcols)
{
	if (!s || maxcols == 0)
		return 0;
	unsigned w = report_term_width(s);
	unsigned keep = w <= maxcols ? w : maxcols - 1;
	unsigned cols = 0;
	while (*s && cols < keep) {
		uint32_t cp;
		size_t n = report_utf8_next(s, &cp);
		if (report_is_control(cp))
			cp = '?';
		report_buf_put_cp(b, cp);
		cols++;
		s += n;
	}
	if (keep < w) {
		util_buf_puts(b, "\xe2\x80\xa6");
		cols++;
	}
	return cols;
}

unsigned report_term_width(const char *s)
{
	unsigned w = 0;
	while (s && *s) {
		uint32_t cp;
		s += report_utf8_next(s, &cp);
		w++;
	}
	return w;
}

void report_ns_scale(double ns, double *v, const char **unit)
{
	static const struct {
		double scale;
		const char *unit;
	} units[] = {{1e9, "s"}, {1e6, "ms"}, {1e3, "us"}, {1, "ns"}};
	double a = fabs(ns);
	size_t i = 0;
	while (i + 1 < sizeof units / sizeof units[0] && a < units[i].scale)
		i++;
	*v = ns / units[i].scale;
	*unit = units[i].unit;
}

void report_fmt_ns(char *out, size_t n, double ns)
{
	if (!isfinite(ns)) {
		snprintf(out, n, "-");
		return;
	}
	if (fabs(ns) >= 1e9 * 1000) {
		snprintf(out, n, "%.0f s", ns / 1e9);
		return;
	}
	double v;
	const char *unit;
	report_ns_scale(ns, &v, &unit);
	double av = fabs(v);
	snprintf(out, n, av >= 100 || v == 0 ? "%.0f %s" : av >= 10 ? "%.1f %s" : "%.2f %s", v, unit);
}

void report_fmt_si(char *out, size_t n, double v)
{
	static const char *prefix[] = {"", " k", " M", " G", " T", " P"};
	if (!isfinite(v)) {
		snprintf(out, n, "-");
		return;
	}
	double a = fabs(v);
	size_t p = 0;
	while (a >= 1000 && p + 1 < sizeof prefix / sizeof prefix[0]) {
		a /= 1000;
		v /= 1000;
		p++;
	}
	if (a == 0)
		snprintf(out, n, "0");
	else if (a >= 100)
		snprintf(out, n, "%.0f%s", v, prefix[p]);
	else if (a >= 10)
		snprintf(out, n, "%.1f%s", v, prefix[p]);
	else if (a >= 0.01 || p > 0)
		snprintf(out, n, "%.2f%s", v, prefix[p]);
	else
		snprintf(out, n, "%.2g", v);
}

void report_fmt_num(char *out, size_t n, double v)
{
	if (!isfinite(v))
		v = 0;
	snprintf(out, n, "%.6g", v);
}
