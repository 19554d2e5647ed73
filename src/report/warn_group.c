/* warn_group.c: the diagnostics grouped by kind and their subjects named
 * (see warn_group.h). */
#include "warn_group.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "names.h"

long report_warn_groups(const fold_analysis *a, size_t *order, report_warn_group *groups)
{
	size_t n = a->nwarnings, ng = 0, placed = 0;
	if (!n)
		return 0;
	/* per record: its group; groups numbered in the order first said */
	size_t *of = malloc(n * sizeof *of), *head = malloc(n * sizeof *head);
	size_t by_kind[FOLD_DIAG_NKINDS];
	if (!of || !head) {
		free(of);
		free(head);
		return -ENOMEM;
	}
	for (size_t k = 0; k < FOLD_DIAG_NKINDS; k++)
		by_kind[k] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		const fold_warning *d = &a->warnings[i];
		size_t g = SIZE_MAX;
		if (d->kind != FOLD_DIAG_UNCLASSIFIED && d->kind < FOLD_DIAG_NKINDS)
			g = by_kind[d->kind];
		else /* unclassified: by the call that said it (few groups) */
			for (size_t k = 0; k < ng && g == SIZE_MAX; k++)
				if (fold_diag_same_kind(&a->warnings[head[k]], d))
					g = k;
		if (g == SIZE_MAX) {
			g = ng;
			head[ng] = i;
			groups[ng++] = (report_warn_group){0, 0};
			if (d->kind != FOLD_DIAG_UNCLASSIFIED && d->kind < FOLD_DIAG_NKINDS)
				by_kind[d->kind] = g;
		}
		of[i] = g;
		groups[g].n++;
	}
	for (size_t g = 0; g < ng; g++) {
		groups[g].first = placed;
		placed += groups[g].n;
		groups[g].n = 0;
	}
	for (size_t i = 0; i < n; i++) {
		report_warn_group *G = &groups[of[i]];
		order[G->first + G->n++] = i;
	}
	free(of);
	free(head);
	return (long)ng;
}

static void put_name(const char *name, unsigned maxcols, util_buf *out)
{
	char shortn[1024];
	if (!maxcols) {
		util_buf_puts(out, name);
		return;
	}
	report_short_name(name, maxcols, shortn, sizeof shortn);
	util_buf_puts(out, shortn);
}

void report_warn_subject(const fold_warning *d, unsigned maxcols, util_buf *out)
{
	const fold_diag_subject *s = &d->subject;
	switch (s->type) {
	case FOLD_SUBJECT_PROCESS:
	case FOLD_SUBJECT_THREAD:
		util_buf_puts(out, s->trace ? s->trace : "process");
		if (s->type == FOLD_SUBJECT_THREAD)
			util_buf_printf(out, " thread %ld", s->thread);
		return;
	case FOLD_SUBJECT_FUNCTION:
		util_buf_puts(out, "function ");
		put_name(s->function ? s->function : "?", maxcols, out);
		return;
	case FOLD_SUBJECT_REGION:
	case FOLD_SUBJECT_GROUP:
	case FOLD_SUBJECT_PHASE:
	case FOLD_SUBJECT_COUNTER:
		util_buf_puts(out, "region ");
		put_name(s->region ? s->region : "?", maxcols, out);
		if (s->type == FOLD_SUBJECT_GROUP)
			util_buf_printf(out, ", group %ld", s->group);
		else if (s->type == FOLD_SUBJECT_PHASE)
			util_buf_printf(out, ", phase %ld", s->phase);
		else if (s->type == FOLD_SUBJECT_COUNTER)
			util_buf_printf(out, ", %s", s->counter ? s->counter : "?");
		return;
	default: /* the run: no words */ return;
	}
}

void report_warn_text(const fold_warning *w, unsigned maxcols, util_buf *out)
{
	size_t len = strlen(w->what);
	if (!w->name_len || w->name_at + w->name_len > len) {
		util_buf_puts(out, w->what);
		return;
	}
	char name[4096], shortn[1024];
	size_t n = w->name_len < sizeof name - 1 ? w->name_len : sizeof name - 1;
	memcpy(name, w->what + w->name_at, n);
	name[n] = 0;
	report_short_name(name, maxcols, shortn, sizeof shortn);
	util_buf_printf(out, "%.*s%s%s", (int)w->name_at, w->what, shortn,
	                w->what + w->name_at + w->name_len);
}

void report_warn_rest(const fold_warning *d, unsigned maxcols, util_buf *out)
{
	util_buf text, subj;
	util_buf_init(&text);
	util_buf_init(&subj);
	report_warn_text(d, maxcols, &text);
	report_warn_subject(d, maxcols, &subj);
	if (text.oom || subj.oom || !text.data)
		util_buf_puts(out, d->what);
	else if (subj.len && !strncmp(text.data, subj.data, subj.len) &&
	         !strncmp(text.data + subj.len, ": ", 2))
		util_buf_puts(out, text.data + subj.len + 2);
	else
		util_buf_puts(out, text.data);
	util_buf_free(&text);
	util_buf_free(&subj);
}
