/* warn_group.h: the diagnostics (analysis.h, fold_warning) grouped and
 * named for the terminal and the report (private to src/report). A group
 * is the records of one kind (fold_diag_same_kind), in the order they were
 * said; groups come in the order of their first record. Nothing here reads
 * a message to decide what it is about: the records say. */
#ifndef FOLD_WARN_GROUP_H
#define FOLD_WARN_GROUP_H

#include <stddef.h>

#include "analysis.h"
#include "util.h"

typedef struct report_warn_group {
	size_t first; /* into the order array */
	size_t n;     /* records in the group */
} report_warn_group;

/* The records of a grouped: order (a->nwarnings entries) gets their indexes
 * group by group, groups (up to a->nwarnings) where each group starts and
 * how many it holds. Returns the number of groups, or -ENOMEM. */
long report_warn_groups(const fold_analysis *a, size_t *order, report_warn_group *groups);
/* d's subject in words into out: nothing for the run, the trace of a
 * process ("TRACE thread N" for a thread), "region NAME" (", group N",
 * ", phase N", ", COUNTER" when about those), "function NAME"; region and
 * function names as the other views name them (report_short_name, at most
 * maxcols columns; 0: whole). */
void report_warn_subject(const fold_warning *d, unsigned maxcols, util_buf *out);
/* w's text into out, the region or function it is about named as the
 * other views name it (report_short_name, at most maxcols columns). */
void report_warn_text(const fold_warning *w, unsigned maxcols, util_buf *out);

/* The same without its subject when it begins with it ("SUBJECT: "):
 * what it says of the subject, for a list that names the subject once. */
void report_warn_rest(const fold_warning *d, unsigned maxcols, util_buf *out);

#endif
