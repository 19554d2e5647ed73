/* calltree.c: the bottom-up call tree of the analysis (a->bottom_up), built
 * from the top-down sampled call tree (a->cct) that attribution.c builds:
 * every node with self samples contributes its path to the root, reversed,
 * merged by function name. Writers only lay it out. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"

typedef struct bu_tree {
	fold_cct_node *n;
	size_t len, cap;
	size_t first_root;
} bu_tree;

static int same_name(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

/* The child of parent (SIZE_MAX: a root) for src's function, added at the
 * head of the sibling list when new; SIZE_MAX when memory runs out. */
static size_t bu_child(bu_tree *t, size_t parent, const fold_cct_node *src)
{
	size_t *head = parent == SIZE_MAX ? &t->first_root : &t->n[parent].first_child;
	for (size_t c = *head; c != SIZE_MAX; c = t->n[c].next_sibling)
		if (same_name(t->n[c].function, src->function))
			return c;
	if (util_grow((void **)&t->n, &t->cap, t->len + 1, sizeof *t->n))
		return SIZE_MAX;
	head = parent == SIZE_MAX ? &t->first_root : &t->n[parent].first_child;
	size_t id = t->len++;
	fold_cct_node *o = &t->n[id];
	*o = (fold_cct_node){NULL, NULL, src->line, 0, 0, parent, SIZE_MAX, *head};
	o->function = src->function ? strdup(src->function) : NULL;
	o->file = src->file ? strdup(src->file) : NULL;
	*head = id;
	if ((src->function && !o->function) || (src->file && !o->file))
		return SIZE_MAX;
	return id;
}

int fold_analysis_bottom_up(fold_analysis *a)
{
	bu_tree t = {NULL, 0, 0, SIZE_MAX};
	int rc = 0;
	for (size_t i = 0; i < a->ncct && !rc; i++) {
		const fold_cct_node *c = &a->cct[i];
		if (!c->self_samples)
			continue;
		size_t at = SIZE_MAX;
		unsigned depth = 0;
		for (size_t p = i; p != SIZE_MAX && p < a->ncct && depth < FOLD_BOTTOM_UP_DEPTH;
		     p = a->cct[p].parent, depth++) {
			at = bu_child(&t, at, &a->cct[p]);
			if (at == SIZE_MAX) {
				rc = -ENOMEM;
				break;
			}
			t.n[at].total_samples += c->self_samples;
			if (p == i)
				t.n[at].self_samples += c->self_samples;
		}
	}
	/* Owned by a from here on, also on failure (fold_analysis_free). */
	a->bottom_up = t.n;
	a->nbottom_up = t.len;
	a->bottom_up_root = t.first_root;
	return rc;
}
