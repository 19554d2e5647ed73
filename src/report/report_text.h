/* report_text.h: atomic file output, escaping and number formatting shared
 * by the report writers (internal to src/report); the text buffer they
 * append to is util_buf (util.h), whose sticky oom flag lets a writer
 * report -ENOMEM once at the end instead of checking every append.
 *
 * Escapers decode UTF-8 strictly: each invalid byte becomes U+FFFD, so any
 * output is valid UTF-8 whatever the input.
 */
#ifndef FOLD_REPORT_TEXT_H
#define FOLD_REPORT_TEXT_H

#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>

#include "util.h"

/* Every output file is written through these (out_file.c): a regular
 * file through an exclusive, unpredictable temporary in its own directory
 * (O_CREAT|O_EXCL|O_NOFOLLOW) renamed over it, the target of a symlink
 * rather than the link, an existing FIFO or character device in place; a
 * directory, socket or block device is refused. */
typedef struct report_out {
	FILE *f;    /* write here */
	char *tmp;  /* the temporary file; NULL when written in place */
	char *dest; /* what is written: path, or its symlink's target */
} report_out;
/* Opens path for writing; 0, or a negative errno with a one-line message. */
int report_out_open(report_out *o, const char *path, char *err, size_t errlen);
/* Closes o; ok: renames the temporary into place (a write error says so
 * and leaves the destination as it was); !ok: throws the temporary away.
 * 0 or a negative errno with a one-line message. */
int report_out_close(report_out *o, int ok, const char *path, char *err, size_t errlen);
/* Writes b to path (report_out_open/close). */
int report_out_buf(const util_buf *b, const char *path, char *err, size_t errlen);
/* The names of the files --csv writes into its directory. */
const char *const *report_csv_table_names(size_t *n);

/* Decodes one code point at s (s[0] != 0); returns bytes consumed (>= 1) and
 * sets *cp, U+FFFD for an invalid, overlong, surrogate or truncated sequence. */
size_t report_utf8_next(const char *s, uint32_t *cp);
/* The same for a sequence of at most avail bytes (s need not end in NUL):
 * the one UTF-8 validator of the writers (no overlong forms, surrogates or
 * code points above U+10FFFF; anything else is one byte of U+FFFD). */
size_t report_utf8_decode(const char *s, size_t avail, uint32_t *cp);
void report_buf_put_cp(util_buf *b, uint32_t cp);

/* HTML text and attribute values (quoted with "): & < > " ' escaped, control
 * characters other than tab/newline dropped. NULL writes nothing. */
void report_esc_html(util_buf *b, const char *s);
/* The one JSON string escaper: s[0..len) as a literal including its quotes.
 * Valid UTF-8 is copied; " \\ and \\n \\r \\t get short escapes, other
 * controls \\u00XX. in_script = 1 makes it safe inside an HTML <script>:
 * < > & U+2028 U+2029 as \\u escapes, an invalid byte as the character
 * U+FFFD. in_script = 0 (the JSON document) writes \\b \\f short and an
 * invalid byte as \\ufffd. */
void report_esc_json_n(util_buf *b, const char *s, size_t len, int in_script);
/* report_esc_json_n(b, s, strlen(s), 1); NULL writes null. */
void report_esc_json(util_buf *b, const char *s);
/* A C0 or C1 control character or DEL: what a terminal may act on. */
static inline int report_is_control(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}
/* A CSV field per RFC 4180: quoted when it holds , " CR or LF, or starts
 * with a character a spreadsheet would evaluate (OWASP: = + - @ TAB CR),
 * which is then prefixed with '. Other control characters (ESC, NUL, DEL,
 * C1) become '?'. NULL writes an empty field. */
void report_esc_csv(util_buf *b, const char *s);
/* Terminal text: control characters (ESC included) become '?', invalid
 * UTF-8 U+FFFD; at most maxcols code points, ending in "…" when cut.
 * Returns the number of columns written. */
unsigned report_esc_term(util_buf *b, const char *s, unsigned maxcols);
/* Columns (code points) s would take on a terminal. */
unsigned report_term_width(const char *s);

/* "1.23 ms", "850 ns", "2.4 s": 3 significant digits. */
void report_fmt_ns(char *out, size_t n, double ns);
/* The unit report_fmt_ns picks for ns (s, ms, us or ns) and ns in it. */
void report_ns_scale(double ns, double *v, const char **unit);
/* "1.23 G", "512 k", "0.75": SI prefix, 3 significant digits. */
void report_fmt_si(char *out, size_t n, double v);
/* Shortest round-trip-safe enough number for data (%.6g), never nan/inf
 * (written as 0) so JSON and SVG stay valid. */
void report_fmt_num(char *out, size_t n, double v);

#endif
