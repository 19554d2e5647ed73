/* term.c: the terminal line writer (see term.h). */
#include "term.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void term_sgr(term *t, const char *code)
{
	if (t->color)
		util_buf_printf(t->b, "\x1b[%sm", code);
}

unsigned term_room(const term *t)
{
	return t->col < t->width ? t->width - t->col : 0;
}

void term_put(term *t, const char *s)
{
	t->col += report_esc_term(t->b, s, term_room(t));
}

void term_putf(term *t, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	term_put(t, tmp);
}

void term_cell(term *t, const char *s, unsigned w, int right)
{
	unsigned room = term_room(t);
	if (w > room)
		w = room;
	unsigned len = report_term_width(s ? s : "-");
	if (len > w)
		len = w;
	if (right)
		for (unsigned i = len; i < w; i++)
			util_buf_putc(t->b, ' ');
	report_esc_term(t->b, s ? s : "-", w);
	if (!right)
		for (unsigned i = len; i < w; i++)
			util_buf_putc(t->b, ' ');
	t->col += w;
}

void term_pad_to(term *t, unsigned col)
{
	while (t->col < col && t->col < t->width) {
		util_buf_putc(t->b, ' ');
		t->col++;
	}
}

void term_newline(term *t)
{
	util_buf_putc(t->b, '\n');
	t->col = 0;
}

void term_heading(term *t, const char *s)
{
	term_newline(t);
	term_sgr(t, "1");
	term_put(t, s);
	term_sgr(t, "0");
	term_newline(t);
}

/* Columns of the next word of s (up to a space), and its length in bytes. */
static unsigned word(const char *s, size_t *bytes)
{
	unsigned cols = 0;
	size_t i = 0;
	while (s[i] && s[i] != ' ') {
		uint32_t cp;
		i += report_utf8_next(s + i, &cp);
		cols++;
	}
	*bytes = i;
	return cols;
}

void term_wrapped(term *t, const char *s, unsigned indent)
{
	if (!s)
		return;
	if (indent + 10 > t->width)
		indent = 0;
	char buf[1024];
	int first = 1;
	while (*s) {
		while (*s == ' ')
			s++;
		if (!*s)
			break;
		size_t n;
		unsigned w = word(s, &n);
		if (!first && t->col + 1 + w > t->width) {
			term_newline(t);
			term_pad_to(t, indent);
		} else if (!first) {
			term_put(t, " ");
		}
		/* A word longer than a line is written in line-sized pieces. */
		while (w > term_room(t) && term_room(t) > 0) {
			unsigned take = term_room(t);
			size_t i = 0;
			for (unsigned c = 0; c < take; c++) {
				uint32_t cp;
				i += report_utf8_next(s + i, &cp);
			}
			size_t m = i < sizeof buf ? i : sizeof buf - 1;
			memcpy(buf, s, m);
			buf[m] = 0;
			t->col += report_esc_term(t->b, buf, take);
			s += i;
			n -= i;
			w -= take;
			term_newline(t);
			term_pad_to(t, indent);
		}
		size_t m = n < sizeof buf ? n : sizeof buf - 1;
		memcpy(buf, s, m);
		buf[m] = 0;
		term_put(t, buf);
		s += n;
		first = 0;
	}
}
