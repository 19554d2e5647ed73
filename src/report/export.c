/* export.c: helpers shared by the exporters of `fold export` (see
 * export.h): stacks as text, UTF-8 clean-up, a hash map of id pairs. */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void export_put_utf8(report_buf *b, const char *s)
{
	while (s && *s) {
		uint32_t cp;
		size_t n = report_utf8_next(s, &cp);
		if (n == 1 && cp < 0x80)
			report_buf_putc(b, (char)cp);
		else
			report_buf_put_cp(b, cp);
		s += n;
	}
}

static void put_frame_name(report_buf *b, const char *s)
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

int export_stack_string(export_ctx *c, size_t proc, uint32_t stack, report_buf *out, char sep)
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
				report_buf_putc(out, sep);
			first = 0;
			put_frame_name(out, f[j].function);
		}
	}
	if (first)
		report_buf_puts(out, "[no stack]");
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

static uint64_t mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

uint64_t *export_map_get(export_map *m, uint64_t a, uint64_t b, uint64_t init, int *added)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		struct export_map_slot *s = calloc(cap, sizeof *s);
		if (!s)
			return NULL;
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->slot[i].used)
				continue;
			size_t j = mix(m->slot[i].a, m->slot[i].b) & (cap - 1);
			while (s[j].used)
				j = (j + 1) & (cap - 1);
			s[j] = m->slot[i];
		}
		free(m->slot);
		m->slot = s;
		m->cap = cap;
	}
	size_t j = mix(a, b) & (m->cap - 1);
	while (m->slot[j].used) {
		if (m->slot[j].a == a && m->slot[j].b == b) {
			if (added)
				*added = 0;
			return &m->slot[j].v;
		}
		j = (j + 1) & (m->cap - 1);
	}
	m->slot[j] = (struct export_map_slot){a, b, init, 1};
	m->n++;
	if (added)
		*added = 1;
	return &m->slot[j].v;
}

void export_map_free(export_map *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
}
