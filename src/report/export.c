/* export.c: helpers shared by the exporters of `fold export` (see
 * export.h): stacks as text, UTF-8 clean-up, a hash map of id pairs. */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void export_put_utf8(util_buf *b, const char *s)
{
	while (s && *s) {
		uint32_t cp;
		size_t n = report_utf8_next(s, &cp);
		if (n == 1 && cp < 0x80)
			util_buf_putc(b, (char)cp);
		else
			report_buf_put_cp(b, cp);
		s += n;
	}
}

static void put_frame_name(util_buf *b, const char *s)
{
	/* ';' separates frames and a newline ends a line in the folded format. */
	while (s && *s) {
		uint32_t cp;
		size_t n = report_utf8_next(s, &cp);
		if (cp == ';')
			cp = ':';
		else if (cp < 0x20)
			cp = ' ';
		report_buf_put_cp(b, cp);
		s += n;
	}
}

int export_stack_string(export_ctx *c, size_t proc, uint32_t stack, util_buf *out, char sep)
{
	const uint64_t *fr;
	unsigned depth = fold_export_stack(c->x, proc, stack, &fr);
	int first = 1;
	for (unsigned i = depth; i-- > 0;) {
		const fold_export_frame *f;
		unsigned n;
		int rc = fold_export_frames(c->x, proc, fr[i], i > 0, &f, &n);
		if (rc)
			return rc;
		for (unsigned j = n; j-- > 0;) {
			if (!first)
				util_buf_putc(out, sep);
			first = 0;
			put_frame_name(out, f[j].function);
		}
	}
	if (first)
		util_buf_puts(out, "[no stack]");
	return 0;
}

const char *export_stack_leaf(export_ctx *c, size_t proc, uint32_t stack)
{
	const uint64_t *fr;
	if (!fold_export_stack(c->x, proc, stack, &fr))
		return "[no stack]";
	const fold_export_frame *f = NULL;
	unsigned n = 0;
	fold_export_frames(c->x, proc, fr[0], 0, &f, &n);
	return n ? f[0].function : "[unknown]";
}

typedef struct pair_probe {
	const export_map *m;
	uint64_t a, b;
} pair_probe;

static int same_pair(const void *arg, size_t i)
{
	const pair_probe *q = arg;
	return q->m->e[i].a == q->a && q->m->e[i].b == q->b;
}

uint64_t *export_map_get(export_map *m, uint64_t a, uint64_t b, uint64_t init, int *added)
{
	uint64_t h = util_hash_mix(a, b);
	pair_probe probe = {m, a, b};
	const size_t *i = util_hmap_find(&m->index, h, same_pair, &probe);
	if (added)
		*added = !i;
	if (i)
		return &m->e[*i].v;
	if (util_grow((void **)&m->e, &m->cap, m->n + 1, sizeof *m->e) ||
	    util_hmap_insert(&m->index, h, m->n))
		return NULL;
	m->e[m->n] = (struct export_map_entry){a, b, init};
	return &m->e[m->n++].v;
}

void export_map_free(export_map *m)
{
	free(m->e);
	util_hmap_free(&m->index);
	memset(m, 0, sizeof *m);
}
