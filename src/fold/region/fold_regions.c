/* fold_regions.c: the analysis' regions (a->regions): one result per region
 * with instances, the selected ones folded by a pool of worker threads
 * (analyze__region per region, one region at a time per worker), ranked by
 * total time.
 *
 * Invariants: a worker writes only the fold_region_result of the region it
 * took from the queue; the first error stops the queue and is returned; the
 * workers' warnings end up in queue order, whichever worker was faster. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze_ctx.h"

/* The work queue: regions[i] is folded from global region todo[i]. */
typedef struct region_queue {
	analyze_ctx *c;
	size_t *todo;
	size_t ntodo, next;
	pthread_mutex_t lock;
	int rc;
} region_queue;

static int region_basics(analyze_ctx *c, size_t g, fold_region_result *r)
{
	const instances__region_acc *A = &c->acc[g];
	r->name = util_strdup(c->reg[g].name);
	r->kind = c->reg[g].kind;
	r->instances = A->ninst;
	r->inst = calloc(A->ninst + 1, sizeof *r->inst);
	if (!r->name || !r->inst)
		return -ENOMEM;
	r->ninst = A->ninst;
	double total = 0;
	unsigned long samples = 0, outermost = 0;
	for (size_t i = 0; i < A->ninst; i++) {
		const instances__instance *in = &A->inst[i];
		fold_instance_info *o = &r->inst[i];
		o->start_ns = in->start_ns;
		o->duration_ns = in->dur_ns;
		o->thread = c->tr[in->proc]->threads[in->thread].stream;
		o->rank = c->a->procs[in->proc].rank;
		o->used = 1;
		if (!in->nested_same) {
			total += in->dur_ns;
			samples += in->se - in->sb;
			outermost++;
		}
	}
	r->total_ns = total;
	r->mean_duration_ns = outermost ? total / (double)outermost : 0;
	r->samples = samples;
	return 0;
}

static int cmp_instance_start(const void *x, const void *y)
{
	const instances__instance *a = x, *b = y;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	return a->t1 > b->t1 ? -1 : a->t1 < b->t1;
}

static void *fold_worker(void *arg)
{
	region_queue *q = arg;
	analyze_ctx *c = q->c;
	for (;;) {
		pthread_mutex_lock(&q->lock);
		size_t i = q->next++;
		int stop = q->rc != 0;
		pthread_mutex_unlock(&q->lock);
		if (stop || i >= q->ntodo)
			return NULL;
		fold_region_result *r = &c->a->regions[i];
		analyze__warn_scope(i + 1);
		int rc = analyze__region(c, q->todo[i], r);
		analyze__warn_scope(0);
		if (rc) {
			pthread_mutex_lock(&q->lock);
			if (!q->rc)
				q->rc = rc;
			pthread_mutex_unlock(&q->lock);
		}
		analyze__progress(c, 0.5 + 0.45 * (double)(i + 1) / (double)q->ntodo, r->name);
	}
}

/* Runs the queue on nw threads, this one included (at most 64). */
static int run_pool(region_queue *q, unsigned nw)
{
	pthread_t tids[64];
	if (nw > q->ntodo)
		nw = (unsigned)(q->ntodo ? q->ntodo : 1);
	if (nw > sizeof tids / sizeof tids[0])
		nw = sizeof tids / sizeof tids[0];
	pthread_mutex_init(&q->lock, NULL);
	unsigned started = 0;
	for (unsigned k = 1; k < nw; k++)
		if (pthread_create(&tids[started], NULL, fold_worker, q) == 0)
			started++;
	fold_worker(q);
	for (unsigned k = 0; k < started; k++)
		pthread_join(tids[k], NULL);
	pthread_mutex_destroy(&q->lock);
	return q->rc;
}

static int cmp_region(const void *x, const void *y)
{
	const fold_region_result *a = x, *b = y;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

unsigned analyze__worker_count(const fold_options *opt)
{
	if (opt->threads)
		return opt->threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)(n > 64 ? 64 : n) : 1;
}

int analyze__fold_regions(analyze_ctx *c)
{
	fold_analysis *a = c->a;
	region_queue q = {.c = c};
	int rc = -ENOMEM;
	q.todo = calloc(c->nreg + 1, sizeof *q.todo);
	a->regions = calloc(c->nreg + 1, sizeof *a->regions);
	if (!q.todo || !a->regions)
		goto out;
	for (size_t g = 0; g < c->nreg; g++) {
		if (!c->acc[g].ninst)
			continue;
		qsort(c->acc[g].inst, c->acc[g].ninst, sizeof *c->acc[g].inst, cmp_instance_start);
		if (region_basics(c, g, &a->regions[a->nregions]))
			goto out;
		q.todo[a->nregions++] = g;
	}
	/* Regions not selected by the user are listed but not folded. */
	size_t w = 0;
	for (size_t i = 0; i < a->nregions; i++) {
		fold_region_result *r = &a->regions[i];
		if (!analyze__region_selected(c, r->name)) {
			if (analyze__not_folded(r, FOLD_DIAG_NOT_SELECTED, NULL, "not selected (--region)"))
				goto out;
			continue;
		}
		/* Keep the work list aligned with the regions array: swap into place. */
		if (w != i) {
			fold_region_result tmp = a->regions[w];
			a->regions[w] = a->regions[i];
			a->regions[i] = tmp;
			size_t tg = q.todo[w];
			q.todo[w] = q.todo[i];
			q.todo[i] = tg;
		}
		w++;
	}
	q.ntodo = w;
	if (c->opt->region && !w) {
		fold_diag_subject s = analyze__subject_region(c->opt->region);
		analyze__diag(c, FOLD_DIAG_REGION_NO_INSTANCE, &s, NULL, NULL,
		              "region \"%s\" has no complete instance to fold", c->opt->region);
	}
	size_t said_before = a->nwarnings;
	rc = run_pool(&q, analyze__worker_count(c->opt));
	analyze__warn_sort(c, said_before);
	if (!rc)
		qsort(a->regions, a->nregions, sizeof *a->regions, cmp_region);
out:
	free(q.todo);
	return rc;
}
