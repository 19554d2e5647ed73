/* export_folded.c: folded stacks ("root;caller;leaf count" per line) for
 * flamegraph.pl, speedscope and inferno. Inlined frames are frames of their
 * own; identical stacks are merged, so the counts sum to the samples
 * exported. Lines are sorted, which makes the output deterministic. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

typedef struct folded_line {
	char *stack;
	unsigned long count;
} folded_line;

typedef struct folded_state {
	export_ctx *c;
	export_map by_stack; /* (proc, stack id) -> index + 1 into lines (before merging by text) */
	folded_line *lines;
	size_t n, cap;
	unsigned long samples;
} folded_state;

static int on_sample(void *arg, const fold_export_sample *s)
{
	folded_state *f = arg;
	size_t proc = s->proc;
	int added;
	uint64_t *v = export_map_get(&f->by_stack, proc, s->stack, 0, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (util_grow((void **)&f->lines, &f->cap, f->n + 1, sizeof *f->lines))
			return -ENOMEM;
		util_buf b;
		util_buf_init(&b);
		int rc = export_stack_string(f->c, proc, s->stack, &b, ';');
		if (rc || b.oom) {
			util_buf_free(&b);
			return rc ? rc : -ENOMEM;
		}
		f->lines[f->n] = (folded_line){b.data, 0};
		*v = ++f->n;
	}
	f->lines[*v - 1].count++;
	f->samples++;
	return 0;
}

static int cmp_line(const void *a, const void *b)
{
	return strcmp(((const folded_line *)a)->stack, ((const folded_line *)b)->stack);
}

int export_folded(export_ctx *c, util_buf *out, export_stats *st, char *err, size_t errlen)
{
	folded_state f = {.c = c};
	int rc = fold_export_each_sample(c->x, on_sample, &f);
	if (rc) {
		snprintf(err, errlen, "folded export: %s", strerror(-rc));
		goto out;
	}
	/* Different raw stacks can symbolise to the same text: merge after sorting. */
	qsort(f.lines, f.n, sizeof *f.lines, cmp_line);
	size_t distinct = 0;
	for (size_t i = 0; i < f.n; i++) {
		unsigned long count = f.lines[i].count;
		while (i + 1 < f.n && !strcmp(f.lines[i].stack, f.lines[i + 1].stack))
			count += f.lines[++i].count;
		util_buf_printf(out, "%s %lu\n", f.lines[i].stack, count);
		distinct++;
	}
	st->samples = f.samples;
	st->stacks = distinct;
	if (out->oom) {
		rc = -ENOMEM;
		snprintf(err, errlen, "folded export: out of memory");
	}
out:
	for (size_t i = 0; i < f.n; i++)
		free(f.lines[i].stack);
	free(f.lines);
	export_map_free(&f.by_stack);
	return rc;
}
