/* term.h: a terminal line writer shared by the terminal summary's sections
 * (terminal.c, terminal_views.c); private to src/report.
 *
 * Invariants: no line is wider than width columns; untrusted text goes
 * through report_esc_term (control characters never reach the terminal);
 * ANSI colour only when color is set.
 */
#ifndef FOLD_TERM_H
#define FOLD_TERM_H

#include "report_text.h"

typedef struct term {
	util_buf *b;
	unsigned width;
	int color;
	unsigned col; /* columns written on the current line */
} term;

void term_sgr(term *t, const char *code);
/* Text the caller knows to be short and clean (labels, numbers); cut at the width. */
void term_put(term *t, const char *s);
void term_putf(term *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Untrusted text in a cell of exactly w columns (cut with "…" or padded). */
void term_cell(term *t, const char *s, unsigned w, int right);
void term_pad_to(term *t, unsigned col);
void term_newline(term *t);
void term_heading(term *t, const char *s);
/* Text of any length, wrapped at spaces onto lines indented by indent
 * columns: nothing is cut. */
void term_wrapped(term *t, const char *s, unsigned indent);
/* Columns left on the current line. */
unsigned term_room(const term *t);

#endif
