/* warn_group.h: warnings grouped by kind for the terminal and the report
 * (private to src/report). Two warnings are of one kind when they say the
 * same of different subjects: equal after their subject (the text before
 * the first ": ", a trace or a region), numbers left out. */
#ifndef FOLD_WARN_GROUP_H
#define FOLD_WARN_GROUP_H

#include <stddef.h>

#include "analysis.h"
#include "util.h"

/* Length of w's subject (before its first ": "), 0 when none. */
size_t report_warn_subject(const char *w);
/* Whether x and y are warnings of one kind. */
int report_warn_alike(const char *x, const char *y);
/* w's text into out, the region or function it is about named as the
 * other views name it (report_short_name, at most maxcols columns). */
void report_warn_text(const fold_warning *w, unsigned maxcols, util_buf *out);

#endif
