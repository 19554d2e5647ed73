/* aggregate.c: which regions the reports show one by one (aggregate.h). */
#include "aggregate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

const char *report_not_folded_key(const fold_region_result *r)
{
	if (r->reason_common)
		return r->reason_common;
	return r->reason ? r->reason : "not selected";
}

typedef struct reason_count {
	const char *key;
	size_t n, first; /* regions with it; its first in rank order */
} reason_count;

static int same_reason(const void *arg, size_t i)
{
	const reason_count *const *q = arg;
	return !strcmp(q[0][i].key, q[1]->key);
}

static int by_count(const void *x, const void *y)
{
	const reason_count *a = x, *b = y;
	if (a->n != b->n)
		return (a->n < b->n) - (a->n > b->n);
	return (a->first > b->first) - (a->first < b->first);
}

int report_aggregate_regions(const fold_analysis *a, report_aggregate *g)
{
	memset(g, 0, sizeof *g);
	size_t unfolded = 0;
	g->cut = a->nregions;
	for (size_t i = 0; i < a->nregions; i++)
		if (!a->regions[i].folded && ++unfolded == REPORT_UNFOLDED_SHOWN) {
			g->cut = i + 1;
			break;
		}
	reason_count *rc = calloc(a->nregions + 1, sizeof *rc);
	size_t nrc = 0;
	util_hmap by_key = {0};
	int err = rc ? 0 : -ENOMEM;
	for (size_t i = g->cut; i < a->nregions && !err; i++) {
		const fold_region_result *r = &a->regions[i];
		if (r->folded)
			continue;
		g->n++;
		g->instances += r->instances;
		g->samples += r->samples;
		g->total_ns += r->total_ns;
		reason_count probe = {report_not_folded_key(r), 0, 0};
		const reason_count *q[2] = {rc, &probe};
		uint64_t h = util_hash_str(probe.key);
		size_t *k = util_hmap_find(&by_key, h, same_reason, q);
		if (k) {
			rc[*k].n++;
		} else {
			rc[nrc] = (reason_count){probe.key, 1, nrc};
			err = util_hmap_insert(&by_key, h, nrc++);
		}
	}
	if (!err) {
		qsort(rc, nrc, sizeof *rc, by_count);
		for (size_t k = 0; k < nrc; k++)
			if (k < REPORT_AGGREGATE_REASONS) {
				g->reason[k] = rc[k].key;
				g->nreason[k] = rc[k].n;
			} else {
				g->other_reasons += rc[k].n;
			}
	}
	util_hmap_free(&by_key);
	free(rc);
	return err;
}
