/* ingest.c: loads trace files into ingest__trace (see ingest.h).
 *
 * One pass over the file with the streaming reader. Process-stream records
 * fill the metadata; thread-stream records are appended to their thread's
 * arrays. Call stacks are interned per process through a hash of their
 * frames; the chunk-local stack references of the format are mapped to
 * process-wide ids as their STACK_DEF records arrive. Several files load in
 * parallel, one worker thread per file; with fewer files than cores, each
 * file also inflates its chunks on a reading thread while the loading
 * thread decodes them in file order (read_pipelined).
 */
#define _GNU_SOURCE
#include "ingest.h"
#include "run_facts.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define GROW(arr, n, cap, need) util_grow((void **)&(arr), &(cap), (need), sizeof *(arr))

/* The large per-thread arrays (samples, counter values, CPU prefix sums) are
 * anonymous mappings, grown with mremap (no copy) and populated in bulk with
 * MADV_POPULATE_WRITE: written once front to back, their first-touch page
 * faults (one per 4 KiB, about 12 us each in a VM) were most of the ingest
 * time. Without MADV_POPULATE_WRITE (Linux < 5.14) pages fault in as usual.
 * Freed with big_free(), never free(). */
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif

static size_t page_round(size_t bytes)
{
	const size_t pg = 4096;
	return (bytes + pg - 1) & ~(pg - 1);
}

static int big_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = util_grow_cap(*cap, need, 1024, elem);
	if (!n)
		return -ENOMEM;
	size_t ob = page_round(*cap * elem), nb = page_round(n * elem);
	void *p = *buf ? mremap(*buf, ob, nb, MREMAP_MAYMOVE)
	               : mmap(NULL, nb, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return -ENOMEM;
	(void)madvise((char *)p + ob, nb - ob, MADV_POPULATE_WRITE);
	*buf = p;
	*cap = nb / elem;
	return 0;
}

static void big_free(void *p, size_t cap, size_t elem)
{
	if (p)
		munmap(p, page_round(cap * elem));
}

static char *dup_str(const char *s)
{
	return strdup(s ? s : "");
}

typedef struct key_probe {
	const ingest__trace *t;
	const char *key;
	uint32_t id;
	const uint32_t *ids;
	unsigned n;
} key_probe;

static int same_info_key(const void *arg, size_t i)
{
	const key_probe *q = arg;
	return !strcmp(q->t->info[i].key, q->key);
}

static int same_stat_key(const void *arg, size_t i)
{
	const key_probe *q = arg;
	return !strcmp(q->t->stats[i].key, q->key);
}

static int same_reg_id(const void *arg, size_t i)
{
	const key_probe *q = arg;
	return q->t->reg[i].id == q->id;
}

static int same_ctr_id(const void *arg, size_t i)
{
	const key_probe *q = arg;
	return q->t->ctr[i].id == q->id;
}

static int same_mod_id(const void *arg, size_t i)
{
	const key_probe *q = arg;
	return q->t->mod[i].id == q->id;
}

static int same_stream(const void *arg, size_t i)
{
	const key_probe *q = arg;
	return q->t->threads[i].stream == q->id;
}

static int same_cset(const void *arg, size_t i)
{
	const key_probe *q = arg;
	const ingest__cset *c = &q->t->csets[i];
	return c->n == q->n && (!q->n || !memcmp(c->ids, q->ids, q->n * sizeof *q->ids));
}

static uint64_t hash_id(uint32_t id)
{
	return util_hash_mix(id, 0x5f0d);
}

static uint64_t hash_ids(const uint32_t *ids, unsigned n)
{
	return util_hash_bytes(ids, n * sizeof *ids) ^ n;
}

const char *ingest__trace_info(const ingest__trace *t, const char *key)
{
	key_probe q = {.t = t, .key = key};
	const size_t *i = util_hmap_find(&t->info_by_key, util_hash_str(key), same_info_key, &q);
	return i ? t->info[*i].value : NULL;
}

static const char *info_of(const void *t, const char *key)
{
	return ingest__trace_info(t, key);
}

unsigned ingest__thread_number(const ingest__trace *t, size_t i)
{
	long pid = t->facts.pid;
	size_t main_at = 0;
	for (size_t k = 0; k < t->nthreads; k++)
		if (pid > 0 && t->threads[k].os_tid == (uint64_t)pid) {
			main_at = k;
			break;
		}
	return i == main_at ? 0 : i < main_at ? (unsigned)i + 1 : (unsigned)i;
}

int ingest__trace_stat(const ingest__trace *t, const char *key, uint64_t *value)
{
	key_probe q = {.t = t, .key = key};
	const size_t *i = util_hmap_find(&t->stat_by_key, util_hash_str(key), same_stat_key, &q);
	if (i)
		*value = t->stats[*i].value;
	return i != NULL;
}

const ingest__region_def *ingest__trace_region(const ingest__trace *t, uint32_t id)
{
	key_probe q = {.t = t, .id = id};
	const size_t *i = util_hmap_find(&t->reg_by_id, hash_id(id), same_reg_id, &q);
	return i ? &t->reg[*i] : NULL;
}

const ingest__counter_def *ingest__trace_counter(const ingest__trace *t, uint32_t id)
{
	key_probe q = {.t = t, .id = id};
	const size_t *i = util_hmap_find(&t->ctr_by_id, hash_id(id), same_ctr_id, &q);
	return i ? &t->ctr[*i] : NULL;
}

int ingest__is_cpu_clock(const char *name)
{
	return name && (strcasestr(name, "TASK-CLOCK") || strcasestr(name, "CPU-CLOCK"));
}

int ingest__cpu_clock_slot(const ingest__trace *t, uint16_t cset)
{
	if (!cset || cset >= t->ncsets)
		return -1;
	const ingest__cset *cs = &t->csets[cset];
	for (unsigned j = 0; j < cs->n; j++) {
		const ingest__counter_def *d = ingest__trace_counter(t, cs->ids[j]);
		if (d && ingest__is_cpu_clock(d->name))
			return (int)j;
	}
	return -1;
}

int ingest__cpu_clock_at(const ingest__trace *t, const ingest__thread *th, const ingest__event *ev,
                         double *ns)
{
	int j = ingest__cpu_clock_slot(t, ev->cset);
	if (j < 0 || (size_t)ev->voff + (size_t)j >= th->nvals)
		return -ENOENT;
	*ns = (double)th->vals[ev->voff + (unsigned)j];
	return 0;
}

void ingest__trace_free(ingest__trace *t)
{
	if (!t)
		return;
	free(t->path);
	for (size_t i = 0; i < t->ninfo; i++) {
		free(t->info[i].key);
		free(t->info[i].value);
	}
	free(t->info);
	for (size_t i = 0; i < t->nstats; i++)
		free(t->stats[i].key);
	free(t->stats);
	for (size_t i = 0; i < t->nsalvage; i++)
		free(t->salvage[i]);
	free(t->salvage);
	for (size_t i = 0; i < t->nctr; i++)
		free(t->ctr[i].name);
	free(t->ctr);
	for (size_t i = 0; i < t->nmissing; i++) {
		free(t->missing[i].key);
		free(t->missing[i].value);
	}
	free(t->missing);
	for (size_t i = 0; i < t->nreg; i++)
		free(t->reg[i].name);
	free(t->reg);
	for (size_t i = 0; i < t->nmod; i++) {
		free(t->mod[i].build_id);
		free(t->mod[i].path);
		free(t->mod[i].segs);
	}
	free(t->mod);
	free(t->thr);
	free(t->csets);
	for (size_t i = 0; i < t->nthreads; i++) {
		free(t->threads[i].name);
		free(t->threads[i].ev);
		big_free(t->threads[i].smp, t->threads[i].cap_smp, sizeof *t->threads[i].smp);
		big_free(t->threads[i].vals, t->threads[i].cap_vals, sizeof *t->threads[i].vals);
		big_free(t->threads[i].cpu_cum, t->threads[i].nsmp, sizeof *t->threads[i].cpu_cum);
		free(t->threads[i].cost_ns);
		free(t->threads[i].lag_ns);
		free(t->threads[i].delivery_ns);
		free(t->threads[i].waited_ns);
		free(t->threads[i].pause);
		free(t->threads[i].hook_cost);
	}
	free(t->threads);
	free(t->frames);
	free(t->stk_off);
	free(t->stk_depth);
	util_hmap_free(&t->stk_by_frames);
	util_hmap *maps[] = {&t->info_by_key, &t->stat_by_key,  &t->reg_by_id,       &t->ctr_by_id,
	                     &t->mod_by_id,   &t->csets_by_ids, &t->thread_by_stream};
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++)
		util_hmap_free(maps[i]);
	free(t);
}

/* --- loading state --- */

typedef struct loader {
	ingest__trace *t;
	size_t cap_info, cap_stats, cap_salvage, cap_ctr, cap_missing, cap_reg, cap_mod, cap_thr, cap_csets,
	    cap_threads;
	uint16_t *cur_cset; /* per thread index */
	size_t cap_cur;
	uint32_t *ref_map; /* chunk-local stack ref -> stack id */
	size_t cap_ref;
} loader;

static int add_salvage(loader *L, const char *msg)
{
	ingest__trace *t = L->t;
	if (GROW(t->salvage, t->nsalvage, L->cap_salvage, t->nsalvage + 1))
		return -ENOMEM;
	t->salvage[t->nsalvage] = dup_str(msg);
	if (!t->salvage[t->nsalvage])
		return -ENOMEM;
	t->nsalvage++;
	return 0;
}

typedef struct diag_ctx {
	loader *L;
	trace_diag_fn user;
	void *user_arg;
	pthread_mutex_t lock; /* the reading thread and the decoding thread both report */
} diag_ctx;

/* The reader's diagnostics are both kept (the report lists what was lost)
 * and passed on to the caller's diagnostic function. */
static void diag_tee(void *arg, const char *message)
{
	diag_ctx *d = arg;
	pthread_mutex_lock(&d->lock);
	add_salvage(d->L, message);
	if (d->user)
		d->user(d->user_arg, message);
	pthread_mutex_unlock(&d->lock);
}

static ingest__thread *thread_of(loader *L, uint32_t stream)
{
	ingest__trace *t = L->t;
	key_probe q = {.t = t, .id = stream};
	const size_t *found = util_hmap_find(&t->thread_by_stream, hash_id(stream), same_stream, &q);
	if (found)
		return &t->threads[*found];
	if (GROW(t->threads, t->nthreads, L->cap_threads, t->nthreads + 1))
		return NULL;
	size_t old = L->cap_cur;
	if (GROW(L->cur_cset, L->cap_cur, L->cap_cur, t->nthreads + 1))
		return NULL;
	for (size_t i = old; i < L->cap_cur; i++)
		L->cur_cset[i] = 0;
	if (util_hmap_insert(&t->thread_by_stream, hash_id(stream), t->nthreads))
		return NULL;
	ingest__thread *th = &t->threads[t->nthreads];
	memset(th, 0, sizeof *th);
	th->stream = stream;
	t->nthreads++;
	return th;
}

static int intern_cset(loader *L, unsigned n, const uint32_t *ids, uint16_t *out)
{
	ingest__trace *t = L->t;
	if (n > 32)
		n = 32;
	key_probe q = {.t = t, .ids = ids, .n = n};
	uint64_t h = hash_ids(ids, n);
	const size_t *found = util_hmap_find(&t->csets_by_ids, h, same_cset, &q);
	if (found) {
		*out = (uint16_t)*found;
		return 0;
	}
	if (t->ncsets >= 65535)
		return -E2BIG;
	if (GROW(t->csets, t->ncsets, L->cap_csets, t->ncsets + 1) ||
	    util_hmap_insert(&t->csets_by_ids, h, t->ncsets))
		return -ENOMEM;
	ingest__cset *c = &t->csets[t->ncsets];
	memset(c, 0, sizeof *c);
	c->n = n;
	if (c->n) /* an empty set may come with ids == NULL */
		memcpy(c->ids, ids, c->n * sizeof *ids);
	*out = (uint16_t)t->ncsets++;
	return 0;
}

/* The index in t->reg of trace region id, added (not defined yet) when new:
 * every region id of the file, from a definition or an event, gets one
 * dense index. */
static int region_slot(loader *L, uint32_t id, uint32_t *out)
{
	ingest__trace *t = L->t;
	key_probe q = {.t = t, .id = id};
	const size_t *found = util_hmap_find(&t->reg_by_id, hash_id(id), same_reg_id, &q);
	if (found) {
		*out = (uint32_t)*found;
		return 0;
	}
	if (t->nreg >= UINT32_MAX || GROW(t->reg, t->nreg, L->cap_reg, t->nreg + 1) ||
	    util_hmap_insert(&t->reg_by_id, hash_id(id), t->nreg))
		return -ENOMEM;
	t->reg[t->nreg] = (ingest__region_def){.id = id};
	*out = (uint32_t)t->nreg++;
	return 0;
}

/* Remembers index i as the latest record of key in map (later records of a
 * key override earlier ones). */
static int latest_key(util_hmap *m, const char *key, util_hmap_eq eq, const ingest__trace *t, size_t i)
{
	key_probe q = {.t = t, .key = key};
	uint64_t h = util_hash_str(key);
	size_t *found = util_hmap_find(m, h, eq, &q);
	if (found) {
		*found = i;
		return 0;
	}
	return util_hmap_insert(m, h, i);
}

/* The same for an id. */
static int latest_id(util_hmap *m, uint32_t id, util_hmap_eq eq, const ingest__trace *t, size_t i)
{
	key_probe q = {.t = t, .id = id};
	size_t *found = util_hmap_find(m, hash_id(id), eq, &q);
	if (found) {
		*found = i;
		return 0;
	}
	return util_hmap_insert(m, hash_id(id), i);
}

typedef struct stack_probe {
	const ingest__trace *t;
	const uint64_t *frames;
	unsigned depth;
} stack_probe;

static int same_stack(const void *arg, size_t id)
{
	const stack_probe *q = arg;
	const ingest__trace *t = q->t;
	return t->stk_depth[id] == q->depth &&
	       !memcmp(t->frames + t->stk_off[id], q->frames, q->depth * sizeof *q->frames);
}

static int intern_stack(loader *L, const uint64_t *frames, unsigned depth, uint32_t *id_out)
{
	ingest__trace *t = L->t;
	uint64_t h = util_hash_frames(frames, depth);
	stack_probe probe = {t, frames, depth};
	const size_t *found = util_hmap_find(&t->stk_by_frames, h, same_stack, &probe);
	if (found) {
		*id_out = (uint32_t)*found;
		return 0;
	}
	size_t cap_off = t->cap_stacks, cap_depth = t->cap_stacks;
	uint32_t id = (uint32_t)t->nstacks + 1;
	if (util_grow((void **)&t->stk_off, &cap_off, id + 1, sizeof *t->stk_off) ||
	    util_grow((void **)&t->stk_depth, &cap_depth, id + 1, sizeof *t->stk_depth) ||
	    GROW(t->frames, t->nframes, t->cap_frames, t->nframes + depth))
		return -ENOMEM;
	t->cap_stacks = cap_off < cap_depth ? cap_off : cap_depth;
	memcpy(t->frames + t->nframes, frames, depth * sizeof *frames);
	t->stk_off[id] = (uint32_t)t->nframes;
	t->stk_depth[id] = depth;
	t->nframes += depth;
	t->nstacks++;
	if (util_hmap_insert(&t->stk_by_frames, h, id))
		return -ENOMEM;
	*id_out = id;
	return 0;
}

static int put_vals(ingest__thread *th, const uint64_t *v, unsigned n, uint32_t *off)
{
	if (th->nvals + n > UINT32_MAX)
		return -E2BIG; /* > 4 G counter values in one thread */
	if (big_grow((void **)&th->vals, &th->cap_vals, th->nvals + n, sizeof *th->vals))
		return -ENOMEM;
	memcpy(th->vals + th->nvals, v, n * sizeof *v);
	*off = (uint32_t)th->nvals;
	th->nvals += n;
	return 0;
}

static void see_tick(ingest__trace *t, uint64_t tick)
{
	if (tick < t->min_tick)
		t->min_tick = tick;
	if (tick > t->max_tick)
		t->max_tick = tick;
}

static int put_cost(ingest__thread *th, uint64_t cost, uint64_t lag, uint64_t delivery);

/* INFO and STAT records: the latest of each key is what lookups find. */
static int put_key(loader *L, const trace_record *r)
{
	ingest__trace *t = L->t;
	if (r->kind == TRACE_REC_INFO) {
		if (GROW(t->info, t->ninfo, L->cap_info, t->ninfo + 1))
			return -ENOMEM;
		t->info[t->ninfo].key = dup_str(r->u.info.key);
		t->info[t->ninfo].value = dup_str(r->u.info.value);
		if (!t->info[t->ninfo].key || !t->info[t->ninfo].value ||
		    latest_key(&t->info_by_key, r->u.info.key, same_info_key, t, t->ninfo)) {
			free(t->info[t->ninfo].key);
			free(t->info[t->ninfo].value);
			return -ENOMEM;
		}
		t->ninfo++;
		return 0;
	}
	if (GROW(t->stats, t->nstats, L->cap_stats, t->nstats + 1))
		return -ENOMEM;
	t->stats[t->nstats].key = dup_str(r->u.stat.key);
	t->stats[t->nstats].value = r->u.stat.value;
	if (!t->stats[t->nstats].key ||
	    latest_key(&t->stat_by_key, r->u.stat.key, same_stat_key, t, t->nstats)) {
		free(t->stats[t->nstats].key);
		return -ENOMEM;
	}
	t->nstats++;
	return 0;
}

/* A later definition of the same counter id replaces the earlier one. */
static int put_counter_def(loader *L, const trace_record *r)
{
	ingest__trace *t = L->t;
	ingest__counter_def *d = (ingest__counter_def *)ingest__trace_counter(t, r->u.counter_def.id);
	char *name = dup_str(r->u.counter_def.name);
	if (!name)
		return -ENOMEM;
	if (!d) {
		if (GROW(t->ctr, t->nctr, L->cap_ctr, t->nctr + 1) ||
		    util_hmap_insert(&t->ctr_by_id, hash_id(r->u.counter_def.id), t->nctr)) {
			free(name);
			return -ENOMEM;
		}
		d = &t->ctr[t->nctr++];
		d->name = NULL;
	}
	free(d->name);
	d->id = r->u.counter_def.id;
	d->kind = r->u.counter_def.kind;
	d->name = name;
	return 0;
}

/* A module load; its id finds its last load (module_unload). */
static int put_module(loader *L, const trace_record *r)
{
	ingest__trace *t = L->t;
	if (GROW(t->mod, t->nmod, L->cap_mod, t->nmod + 1))
		return -ENOMEM;
	ingest__module *m = &t->mod[t->nmod];
	memset(m, 0, sizeof *m);
	m->id = r->u.module_load.id;
	m->load_bias = r->u.module_load.load_bias;
	m->path = dup_str(r->u.module_load.path);
	m->build_id_len = r->u.module_load.build_id_len;
	m->build_id = malloc(m->build_id_len + 1);
	m->nseg = r->u.module_load.nseg;
	m->segs = calloc(m->nseg + 1, sizeof *m->segs);
	if (!m->path || !m->build_id || !m->segs) {
		free(m->path);
		free(m->build_id);
		free(m->segs);
		return -ENOMEM;
	}
	memcpy(m->build_id, r->u.module_load.build_id, m->build_id_len);
	memcpy(m->segs, r->u.module_load.segs, m->nseg * sizeof *m->segs);
	if (latest_id(&t->mod_by_id, m->id, same_mod_id, t, t->nmod)) {
		free(m->path);
		free(m->build_id);
		free(m->segs);
		return -ENOMEM;
	}
	t->nmod++;
	return 0;
}

static int on_record(loader *L, const trace_record *r)
{
	ingest__trace *t = L->t;
	ingest__thread *th;
	switch (r->kind) {
	case TRACE_REC_INFO:
	case TRACE_REC_STAT: return put_key(L, r);
	case TRACE_REC_CLOCK:
		if (t->nclock == 0) {
			t->clk_tick0 = r->tick;
			t->clk_mono0 = r->u.clock.mono_ns;
			t->clk_real0 = r->u.clock.real_ns;
		}
		t->clk_tick1 = r->tick;
		t->clk_mono1 = r->u.clock.mono_ns;
		t->clk_real1 = r->u.clock.real_ns;
		t->nclock++;
		return 0;
	case TRACE_REC_COUNTER_DEF: return put_counter_def(L, r);
	case TRACE_REC_COUNTER_MISSING:
		if (GROW(t->missing, t->nmissing, L->cap_missing, t->nmissing + 1))
			return -ENOMEM;
		t->missing[t->nmissing].key = dup_str(r->u.counter_missing.name);
		t->missing[t->nmissing].value = dup_str(r->u.counter_missing.reason);
		t->nmissing++;
		return 0;
	case TRACE_REC_REGION_DEF: {
		/* A later definition of the same id replaces the earlier one. */
		uint32_t k;
		char *name = dup_str(r->u.region_def.name);
		if (!name || region_slot(L, r->u.region_def.id, &k)) {
			free(name);
			return -ENOMEM;
		}
		ingest__region_def *d = &t->reg[k];
		free(d->name);
		d->kind = r->u.region_def.kind;
		d->address = r->u.region_def.address;
		d->name = name;
		d->defined = 1;
		return 0;
	}
	case TRACE_REC_MODULE_LOAD: return put_module(L, r);
	case TRACE_REC_MODULE_UNLOAD: {
		/* of the module's last load under that id */
		key_probe q = {.t = t, .id = r->u.module_unload.id};
		const size_t *m = util_hmap_find(&t->mod_by_id, hash_id(q.id), same_mod_id, &q);
		if (m)
			t->mod[*m].unloaded = 1;
		return 0;
	}
	case TRACE_REC_THROTTLE: {
		uint32_t k;
		if (GROW(t->thr, t->nthr, L->cap_thr, t->nthr + 1) ||
		    region_slot(L, r->u.throttle.region, &k))
			return -ENOMEM;
		t->thr[t->nthr].region = k;
		t->thr[t->nthr].tick = r->tick;
		t->thr[t->nthr].calls = r->u.throttle.calls;
		t->thr[t->nthr].mean_ns = r->u.throttle.mean_ns;
		t->nthr++;
		return 0;
	}
	case TRACE_REC_THREAD_START:
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		th->os_tid = r->u.thread_start.os_tid;
		free(th->name);
		th->name = dup_str(r->u.thread_start.name);
		th->start_tick = r->tick;
		see_tick(t, r->tick);
		return 0;
	case TRACE_REC_THREAD_END:
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		th->end_tick = r->tick;
		th->ended = 1;
		see_tick(t, r->tick);
		return 0;
	case TRACE_REC_COUNTER_SET: {
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		uint16_t c;
		int rc = intern_cset(L, r->u.counter_set.n, r->u.counter_set.ids, &c);
		if (rc)
			return rc;
		L->cur_cset[th - t->threads] = c;
		return 0;
	}
	case TRACE_REC_STACK_DEF: {
		uint32_t ref = r->u.stack_def.stack_ref, id;
		int rc = intern_stack(L, r->u.stack_def.frames, r->u.stack_def.depth, &id);
		if (rc)
			return rc;
		if (util_grow((void **)&L->ref_map, &L->cap_ref, (size_t)ref + 1, sizeof *L->ref_map))
			return -ENOMEM;
		L->ref_map[ref] = id;
		return 0;
	}
	case TRACE_REC_ENTER:
	case TRACE_REC_EXIT: {
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		if (GROW(th->ev, th->nev, th->cap_ev, th->nev + 1))
			return -ENOMEM;
		ingest__event *e = &th->ev[th->nev];
		if (region_slot(L, r->u.region.region, &e->region))
			return -ENOMEM;
		e->tick = r->tick;
		e->nsamples = (uint32_t)th->nsmp;
		e->kind = r->kind == TRACE_REC_ENTER ? INGEST__EV_ENTER : INGEST__EV_EXIT;
		e->cset = 0;
		e->voff = 0;
		if (r->u.region.nctr) {
			e->cset = L->cur_cset[th - t->threads];
			int rc = put_vals(th, r->u.region.ctr, r->u.region.nctr, &e->voff);
			if (rc)
				return rc;
		}
		th->nev++;
		th->last_tick = r->tick;
		see_tick(t, r->tick);
		return 0;
	}
	case TRACE_REC_SAMPLE: {
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		if (th->nsmp == th->cap_smp &&
		    big_grow((void **)&th->smp, &th->cap_smp, th->nsmp + 1, sizeof *th->smp))
			return -ENOMEM;
		ingest__sample *s = &th->smp[th->nsmp];
		s->tick = r->tick;
		s->cpu_ns = r->u.sample.cpu_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)r->u.sample.cpu_ns;
		s->stack = 0;
		if (r->u.sample.stack_ref && r->u.sample.frames && r->u.sample.depth &&
		    r->u.sample.stack_ref < L->cap_ref)
			s->stack = L->ref_map[r->u.sample.stack_ref];
		s->cset = 0;
		s->voff = 0;
		if (r->u.sample.nctr) {
			s->cset = L->cur_cset[th - t->threads];
			int rc = put_vals(th, r->u.sample.ctr, r->u.sample.nctr, &s->voff);
			if (rc)
				return rc;
		}
		th->nsmp++;
		th->last_tick = r->tick;
		see_tick(t, r->tick);
		return 0;
	}
	case TRACE_REC_SAMPLE_COST:
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		return th->nsmp ? put_cost(th, r->u.sample_cost.cost_ns, r->u.sample_cost.lag_ns,
		                           r->u.sample_cost.delivery_ns)
		                : 0;
	case TRACE_REC_PAUSE:
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		if (!th->nev && !th->nsmp)
			return 0; /* after nothing of the thread: outside its times */
		if (util_grow((void **)&th->pause, &th->cap_pause, th->npause + 1, sizeof *th->pause))
			return -ENOMEM;
		th->pause[th->npause++] = (ingest__pause){th->last_tick, (uint32_t)th->nev,
		                                          (uint32_t)th->nsmp, (double)r->u.pause.pause_ns};
		return 0;
	case TRACE_REC_HOOK_COST: {
		if (!(th = thread_of(L, r->stream)))
			return -ENOMEM;
		/* of the thread's latest event, if no sample of the thread came
		 * after it (the runtime writes it right after the event's record,
		 * never after a buffer swap's pause) */
		if (!th->nev || th->ev[th->nev - 1].nsamples != th->nsmp ||
		    (th->nhook_cost && th->hook_cost[th->nhook_cost - 1].ev == th->nev - 1))
			return 0;
		if (util_grow((void **)&th->hook_cost, &th->cap_hook_cost, th->nhook_cost + 1,
		              sizeof *th->hook_cost))
			return -ENOMEM;
		uint64_t a = r->u.hook_cost.after_ticks, b = r->u.hook_cost.before_ticks;
		th->hook_cost[th->nhook_cost++] =
		    (ingest__hook_cost){(uint32_t)(th->nev - 1), a == TRACE_UNKNOWN ? NAN : (double)a,
		                        b == TRACE_UNKNOWN ? NAN : (double)b};
		return 0;
	}
	default: return 0;
	}
}

/* Records the cost of the thread's latest sample. */
static int put_cost(ingest__thread *th, uint64_t cost, uint64_t lag, uint64_t delivery)
{
	if (th->cap_cost < th->nsmp) {
		/* the three grow together; new slots read "not recorded". */
		size_t cap_c = th->cap_cost, cap_l = th->cap_cost, cap_d = th->cap_cost;
		if (util_grow((void **)&th->cost_ns, &cap_c, th->nsmp, sizeof *th->cost_ns) < 0 ||
		    util_grow((void **)&th->lag_ns, &cap_l, cap_c, sizeof *th->lag_ns) < 0 ||
		    util_grow((void **)&th->delivery_ns, &cap_d, cap_c, sizeof *th->delivery_ns) < 0)
			return -ENOMEM;
		for (size_t k = th->cap_cost; k < cap_c; k++)
			th->cost_ns[k] = th->lag_ns[k] = th->delivery_ns[k] = UINT32_MAX;
		th->cap_cost = cap_c;
	}
	th->cost_ns[th->nsmp - 1] = cost >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)cost;
	th->lag_ns[th->nsmp - 1] = lag >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)lag;
	if (delivery != TRACE_UNKNOWN) {
		th->delivery_ns[th->nsmp - 1] = delivery >= UINT32_MAX ? UINT32_MAX - 1 : (uint32_t)delivery;
		th->ndelivery++;
	}
	th->ncost++;
	return 0;
}

static void finish_clock(ingest__trace *t)
{
	double tick_hz = t->facts.tick_hz;
	if (t->nclock >= 2 && t->clk_tick1 > t->clk_tick0 && t->clk_mono1 > t->clk_mono0)
		t->ns_per_tick =
		    (double)(t->clk_mono1 - t->clk_mono0) / (double)(t->clk_tick1 - t->clk_tick0);
	else if (tick_hz > 0)
		t->ns_per_tick = 1e9 / tick_hz;
	else
		t->ns_per_tick = 1.0; /* monotonic nanoseconds */
	if (t->nclock)
		t->origin_tick = t->clk_tick0 < t->min_tick ? t->clk_tick0 : t->min_tick;
	else
		t->origin_tick = t->min_tick == UINT64_MAX ? 0 : t->min_tick;
	if (t->min_tick == UINT64_MAX)
		t->min_tick = t->max_tick = t->origin_tick;
}

/* A pause cannot have lasted longer than passed until the thread's next
 * record (or its end): a damaged or hand-made trace's longer one is cut to
 * that, so that taking it out never moves a record before the one it
 * follows. */
static void finish_pauses(ingest__trace *t)
{
	if (!(t->ns_per_tick > 0))
		return;
	for (size_t i = 0; i < t->nthreads; i++) {
		ingest__thread *th = &t->threads[i];
		for (size_t q = 0; q < th->npause; q++) {
			ingest__pause *p = &th->pause[q];
			uint64_t next = th->ended && th->end_tick >= p->tick ? th->end_tick : UINT64_MAX;
			if (p->nev < th->nev && th->ev[p->nev].tick < next)
				next = th->ev[p->nev].tick;
			if (p->nsmp < th->nsmp && th->smp[p->nsmp].tick < next)
				next = th->smp[p->nsmp].tick;
			if (next == UINT64_MAX)
				continue;
			double room = next > p->tick ? (double)(next - p->tick) * t->ns_per_tick : 0;
			if (p->ns > room)
				p->ns = room;
			if (!(p->ns >= 0))
				p->ns = 0;
		}
	}
}

/* Prefix sums of per-sample CPU time, so any instance boundary can be
 * interpolated in O(1). */
static int finish_cpu(ingest__trace *t)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		ingest__thread *th = &t->threads[i];
		int any = 0;
		for (size_t k = 0; k < th->nsmp && !any; k++)
			any = th->smp[k].cpu_ns != 0;
		if (!any)
			continue;
		void *p = mmap(NULL, page_round(th->nsmp * sizeof *th->cpu_cum), PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		th->cpu_cum = p; /* freed by big_free(cpu_cum, nsmp) */
		double c = 0;
		for (size_t k = 0; k < th->nsmp; k++) {
			c += th->smp[k].cpu_ns;
			th->cpu_cum[k] = c;
		}
	}
	return 0;
}

/* --- reading: serial, or inflate and decode on two threads --- */

static int read_serial(loader *L, trace_reader *r)
{
	trace_record rec;
	int rc;
	while ((rc = trace_reader_next(r, &rec)) == 1) {
		rc = on_record(L, &rec);
		if (rc)
			break;
	}
	return rc;
}

/* Two-stage pipeline for one file: a reading thread inflates and checks
 * chunks (trace_reader_next_chunk) into a small ring of copies while this
 * thread decodes them in file order and stores the records, exactly as
 * read_serial() would (same order, same diagnostics). Inflating is about
 * half of the work, so a file loads in about half the wall time on two
 * cores. */
#define FOLD__RING 8

typedef struct chunk_copy {
	uint32_t stream;
	uint64_t offset;
	uint8_t *raw;
	size_t len, cap;
} chunk_copy;

typedef struct chunk_ring {
	trace_reader *r;
	chunk_copy slot[FOLD__RING];
	size_t produced, consumed;
	int done, rc, stop;
	pthread_mutex_t m;
	pthread_cond_t cv;
} chunk_ring;

static void *read_chunks(void *arg)
{
	chunk_ring *q = arg;
	for (;;) {
		trace_raw_chunk c;
		int rc = trace_reader_next_chunk(q->r, &c);
		pthread_mutex_lock(&q->m);
		while (rc > 0 && q->produced - q->consumed == FOLD__RING && !q->stop)
			pthread_cond_wait(&q->cv, &q->m);
		if (rc <= 0 || q->stop) {
			q->done = 1;
			q->rc = rc < 0 ? rc : 0;
			pthread_cond_broadcast(&q->cv);
			pthread_mutex_unlock(&q->m);
			return NULL;
		}
		chunk_copy *s = &q->slot[q->produced % FOLD__RING];
		pthread_mutex_unlock(&q->m);
		/* The slot is this thread's until produced advances. */
		if (util_grow((void **)&s->raw, &s->cap, c.raw_len, 1)) {
			pthread_mutex_lock(&q->m);
			q->done = 1;
			q->rc = -ENOMEM;
			pthread_cond_broadcast(&q->cv);
			pthread_mutex_unlock(&q->m);
			return NULL;
		}
		memcpy(s->raw, c.raw, c.raw_len);
		s->len = c.raw_len;
		s->stream = c.hdr.stream;
		s->offset = c.offset;
		pthread_mutex_lock(&q->m);
		q->produced++;
		pthread_cond_broadcast(&q->cv);
		pthread_mutex_unlock(&q->m);
	}
}

static int read_pipelined(loader *L, trace_reader *r, diag_ctx *dc, const char *path)
{
	chunk_ring q;
	memset(&q, 0, sizeof q);
	q.r = r;
	trace_decoder *dec = trace_decoder_new();
	if (!dec)
		return -ENOMEM;
	pthread_mutex_init(&q.m, NULL);
	pthread_cond_init(&q.cv, NULL);
	pthread_t tid;
	if (pthread_create(&tid, NULL, read_chunks, &q)) {
		pthread_mutex_destroy(&q.m);
		pthread_cond_destroy(&q.cv);
		trace_decoder_free(dec);
		return read_serial(L, r);
	}
	trace_read_stats ds;
	memset(&ds, 0, sizeof ds);
	int rc = 0;
	for (;;) {
		pthread_mutex_lock(&q.m);
		while (q.produced == q.consumed && !q.done)
			pthread_cond_wait(&q.cv, &q.m);
		if (q.produced == q.consumed) {
			rc = q.rc;
			pthread_mutex_unlock(&q.m);
			break;
		}
		chunk_copy *s = &q.slot[q.consumed % FOLD__RING];
		pthread_mutex_unlock(&q.m);
		trace_decoder_reset(dec, s->stream, s->raw, s->len);
		trace_record rec;
		int d;
		while ((d = trace_decoder_next(dec, &rec, &ds)) == 1)
			if ((rc = on_record(L, &rec)) != 0)
				break;
		if (rc)
			break;
		if (d == -ENOMEM) {
			rc = -ENOMEM;
			break;
		}
		if (d < 0) {
			char msg[512];
			snprintf(msg, sizeof msg,
			         "%s: chunk at offset %llu: malformed record; the rest of that chunk is lost",
			         path, (unsigned long long)s->offset);
			diag_tee(dc, msg);
		}
		pthread_mutex_lock(&q.m);
		q.consumed++;
		pthread_cond_broadcast(&q.cv);
		pthread_mutex_unlock(&q.m);
	}
	pthread_mutex_lock(&q.m);
	q.stop = 1;
	pthread_cond_broadcast(&q.cv);
	pthread_mutex_unlock(&q.m);
	pthread_join(tid, NULL);
	trace_reader_add_decoded(r, &ds);
	for (int i = 0; i < FOLD__RING; i++)
		free(q.slot[i].raw);
	pthread_mutex_destroy(&q.m);
	pthread_cond_destroy(&q.cv);
	trace_decoder_free(dec);
	return rc;
}

static int load_one(const char *path, ingest__trace **out, trace_diag_fn diag, void *diag_arg, char *err,
                    size_t errlen, int pipelined);

int ingest__trace_load(const char *path, ingest__trace **out, trace_diag_fn diag, void *diag_arg, char *err,
                       size_t errlen)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	return load_one(path, out, diag, diag_arg, err, errlen, cores > 1);
}

static int load_one(const char *path, ingest__trace **out, trace_diag_fn diag, void *diag_arg, char *err,
                    size_t errlen, int pipelined)
{
	int rc;
	loader L;
	memset(&L, 0, sizeof L);
	diag_ctx dc = {&L, diag, diag_arg, PTHREAD_MUTEX_INITIALIZER};
	trace_reader *r = NULL;
	ingest__trace *t = calloc(1, sizeof *t);
	if (!t)
		return -ENOMEM;
	L.t = t;
	t->min_tick = UINT64_MAX;
	t->path = dup_str(path);
	uint16_t empty;
	if (!t->path || intern_cset(&L, 0, NULL, &empty)) {
		rc = -ENOMEM;
		goto fail;
	}
	rc = trace_reader_open(&r, path, diag_tee, &dc, err, errlen);
	if (rc)
		goto fail;
	rc = pipelined ? read_pipelined(&L, r, &dc, path) : read_serial(&L, r);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s while loading", path, strerror(-rc));
		goto fail;
	}
	t->rstats = *trace_reader_stats(r);
	char summary[512];
	if (trace_reader_loss_summary(r, summary, sizeof summary) && add_salvage(&L, summary)) {
		rc = -ENOMEM;
		goto fail;
	}
	run_facts__parse(&t->facts, info_of, t);
	finish_clock(t);
	finish_pauses(t);
	rc = finish_cpu(t);
	if (rc)
		goto fail;
	trace_reader_close(r);
	free(L.cur_cset);
	free(L.ref_map);
	*out = t;
	return 0;
fail:
	trace_reader_close(r);
	free(L.cur_cset);
	free(L.ref_map);
	ingest__trace_free(t);
	return rc;
}

/* --- parallel loading --- */

typedef struct load_job {
	const char *const *paths;
	size_t n;
	ingest__trace **traces;
	int *rcs;
	char (*errs)[512];
	size_t next;
	pthread_mutex_t lock;
	trace_diag_fn diag;
	void *diag_arg;
	pthread_mutex_t diag_lock;
	int pipelined; /* fewer files than cores: each load also uses a reading thread */
} load_job;

static void diag_locked(void *arg, const char *message)
{
	load_job *j = arg;
	pthread_mutex_lock(&j->diag_lock);
	if (j->diag)
		j->diag(j->diag_arg, message);
	pthread_mutex_unlock(&j->diag_lock);
}

static void *load_worker(void *arg)
{
	load_job *j = arg;
	for (;;) {
		pthread_mutex_lock(&j->lock);
		size_t i = j->next++;
		pthread_mutex_unlock(&j->lock);
		if (i >= j->n)
			return NULL;
		j->rcs[i] = load_one(j->paths[i], &j->traces[i], diag_locked, j, j->errs[i],
		                     sizeof j->errs[i], j->pipelined);
	}
}

int ingest__trace_load_many(const char *const *paths, size_t n, unsigned nthreads, ingest__trace ***out,
                            trace_diag_fn diag, void *diag_arg, char *err, size_t errlen)
{
	int rc = -ENOMEM;
	load_job j;
	memset(&j, 0, sizeof j);
	j.paths = paths;
	j.n = n;
	j.diag = diag;
	j.diag_arg = diag_arg;
	j.traces = calloc(n ? n : 1, sizeof *j.traces);
	j.rcs = calloc(n ? n : 1, sizeof *j.rcs);
	j.errs = calloc(n ? n : 1, sizeof *j.errs);
	if (!j.traces || !j.rcs || !j.errs)
		goto out;
	pthread_mutex_init(&j.lock, NULL);
	pthread_mutex_init(&j.diag_lock, NULL);
	if (nthreads < 1)
		nthreads = 1;
	if (nthreads > n)
		nthreads = (unsigned)n;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	j.pipelined = cores > 1 && (long)n < cores;
	pthread_t tids[64];
	unsigned started = 0;
	for (unsigned k = 1; k < nthreads && k < 64; k++)
		if (pthread_create(&tids[started], NULL, load_worker, &j) == 0)
			started++;
	load_worker(&j);
	for (unsigned k = 0; k < started; k++)
		pthread_join(tids[k], NULL);
	pthread_mutex_destroy(&j.lock);
	pthread_mutex_destroy(&j.diag_lock);
	rc = 0;
	for (size_t i = 0; i < n; i++)
		if (j.rcs[i]) {
			rc = j.rcs[i];
			snprintf(err, errlen, "%s", j.errs[i]);
			break;
		}
	if (rc) {
		for (size_t i = 0; i < n; i++)
			ingest__trace_free(j.traces[i]);
		free(j.traces);
		j.traces = NULL;
	}
	*out = j.traces;
	j.traces = NULL;
out:
	free(j.traces);
	free(j.rcs);
	free(j.errs);
	return rc;
}
