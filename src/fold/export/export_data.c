/* export_data.c: the exporters' contract (export_data.h): loading,
 * symbolising, placing processes on one timeline and filtering, on top of
 * ingest.c and symbols.c. */
#include "export_data.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "ingest.h"
#include "programs.h"
#include "region_suggest.h"
#include "symbols.h"

/* fold_export_frame is the symboliser's frame, handed out as is. */
_Static_assert(sizeof(fold_export_frame) == sizeof(symtab_frame), "frame layout");
_Static_assert(offsetof(fold_export_frame, file) == offsetof(symtab_frame, file), "frame layout");
_Static_assert(offsetof(fold_export_frame, line) == offsetof(symtab_frame, line), "frame layout");

struct fold_export {
	fold_export_filter filter;
	ingest__trace **tr;
	size_t ntr;
	double *offset_ns; /* per process: its origin on the common timeline */
	symtab *sym;
	/* per process: its regions (ingest's dense indices) with resolved
	 * names and filter match */
	struct export_regions {
		const char **names;
		unsigned char *match;
		size_t n;
	} * regions;
	int region_found; /* the filter's region name matched some region */
};

static int load_regions(fold_export *c, size_t p)
{
	const ingest__trace *t = c->tr[p];
	struct export_regions *r = &c->regions[p];
	r->n = t->nreg;
	r->names = calloc(t->nreg ? t->nreg : 1, sizeof *r->names);
	r->match = calloc(t->nreg ? t->nreg : 1, 1);
	if (!r->names || !r->match)
		return -ENOMEM;
	for (size_t k = 0; k < t->nreg; k++) {
		const ingest__region_def *d = &t->reg[k];
		const char *name = d->name;
		if ((!name || !*name) && d->address) {
			const char *sym = NULL;
			symbols__function_name(c->sym, (unsigned)p, d->address, &sym);
			name = sym;
		}
		r->names[k] = name && *name ? name : d->defined ? "[unnamed region]" : "[undefined region]";
		if (c->filter.region && !strcmp(r->names[k], c->filter.region)) {
			r->match[k] = 1;
			c->region_found = 1;
		}
	}
	return 0;
}

/* The distinct region names of every process (the ranks of one run share
 * their names), for the suggestions of an unknown --region; linear. */
typedef struct flat_names {
	const char **names;
	size_t n;
} flat_names;

static int same_flat_name(const void *arg, size_t i)
{
	const flat_names *f = arg;
	return !strcmp(f->names[i], f->names[f->n]);
}

static const char *flat_region_name(const void *arg, size_t i)
{
	return ((const flat_names *)arg)->names[i];
}

static int unknown_region(const fold_export *c, const char *const *paths, size_t n, char *err, size_t errlen)
{
	size_t total = 0;
	for (size_t p = 0; p < c->ntr; p++)
		total += c->regions[p].n;
	flat_names f = {calloc(total + 1, sizeof *f.names), 0};
	util_hmap seen = {0};
	int rc = f.names ? 0 : -ENOMEM;
	for (size_t p = 0; p < c->ntr && !rc; p++)
		for (size_t k = 0; k < c->regions[p].n && !rc; k++) {
			f.names[f.n] = c->regions[p].names[k]; /* the probe: one past the list */
			uint64_t h = util_hash_str(f.names[f.n]);
			if (!util_hmap_find(&seen, h, same_flat_name, &f))
				rc = util_hmap_insert(&seen, h, f.n++);
		}
	if (!rc)
		rc = region_suggest__unknown(err, errlen, c->filter.region, flat_region_name, &f, f.n, paths, n);
	else
		snprintf(err, errlen, "%s: out of memory", n ? paths[0] : "export");
	util_hmap_free(&seen);
	free(f.names);
	return rc;
}

/* Events name their region by its index in the trace's regions (ingest). */
const char *fold_export_region_name(const fold_export *c, size_t proc, uint32_t region)
{
	return region < c->regions[proc].n ? c->regions[proc].names[region] : "[undefined region]";
}

int fold_export_region_selected(const fold_export *c, size_t proc, uint32_t region)
{
	return region < c->regions[proc].n && c->regions[proc].match[region];
}

static double time_ns(const fold_export *c, size_t proc, uint64_t tick)
{
	return c->offset_ns[proc] + ingest__tick_ns(c->tr[proc], tick);
}

int fold_export_in_window(const fold_export *c, double t_ns)
{
	if (t_ns < c->filter.from_s * 1e9)
		return 0;
	return c->filter.to_s < 0 || t_ns <= c->filter.to_s * 1e9;
}

/* Aligns processes on the wall clock when every one recorded its start. */
static void align_processes(fold_export *c)
{
	double min_start = 0;
	int aligned = 1;
	for (size_t p = 0; p < c->ntr; p++) {
		if (!c->tr[p]->facts.has_start) {
			aligned = 0;
			break;
		}
		c->offset_ns[p] = (double)c->tr[p]->facts.start_realtime_ns;
		if (p == 0 || c->offset_ns[p] < min_start)
			min_start = c->offset_ns[p];
	}
	for (size_t p = 0; p < c->ntr; p++)
		c->offset_ns[p] = aligned ? c->offset_ns[p] - min_start : 0;
}

static int add_modules(fold_export *c, size_t p, char *err, size_t errlen)
{
	const ingest__trace *t = c->tr[p];
	for (size_t m = 0; m < t->nmod; m++) {
		const ingest__module *mod = &t->mod[m];
		int rc = symbols__add_module(c->sym, (unsigned)p,
		                             &(symbols__module){mod->id, mod->path, mod->build_id,
		                                                mod->build_id_len, mod->load_bias, mod->segs,
		                                                mod->nseg});
		if (rc) {
			snprintf(err, errlen, "%s: cannot register module %s: %s", t->path, mod->path,
			         strerror(-rc));
			return rc;
		}
	}
	return 0;
}

int fold_export_open(fold_export **out, const char *const *paths, size_t n, const fold_export_filter *filter,
                     trace_diag_fn diag, void *diag_arg, char *err, size_t errlen)
{
	*out = NULL;
	fold_export *c = calloc(1, sizeof *c);
	if (!c) {
		snprintf(err, errlen, "%s: out of memory", n ? paths[0] : "export");
		return -ENOMEM;
	}
	c->filter = *filter;
	int rc = ingest__trace_load_many(paths, n, 0, &c->tr, diag, diag_arg, err, errlen);
	if (rc) {
		free(c);
		return rc;
	}
	c->ntr = n;
	if ((rc = programs__check(c->tr, n, filter->allow_mixed, err, errlen)))
		goto fail;
	c->offset_ns = calloc(n, sizeof *c->offset_ns);
	c->regions = calloc(n, sizeof *c->regions);
	if (!c->offset_ns || !c->regions) {
		rc = -ENOMEM;
		goto fail_nomem;
	}
	rc = symbols__new(&c->sym, diag, diag_arg);
	if (rc)
		goto fail_nomem;
	align_processes(c);
	for (size_t p = 0; p < n; p++) {
		if ((rc = add_modules(c, p, err, errlen)))
			goto fail;
		if ((rc = load_regions(c, p)))
			goto fail_nomem;
	}
	if (filter->region && !c->region_found) {
		rc = unknown_region(c, paths, n, err, errlen);
		goto fail;
	}
	*out = c;
	return 0;
fail_nomem:
	snprintf(err, errlen, "%s: out of memory", n ? paths[0] : "export");
fail:
	fold_export_close(c);
	return rc;
}

void fold_export_close(fold_export *c)
{
	if (!c)
		return;
	for (size_t p = 0; c->regions && p < c->ntr; p++) {
		free(c->regions[p].names);
		free(c->regions[p].match);
	}
	free(c->regions);
	for (size_t p = 0; c->tr && p < c->ntr; p++)
		ingest__trace_free(c->tr[p]);
	free(c->tr);
	free(c->offset_ns);
	if (c->sym)
		symbols__free(c->sym);
	free(c);
}

size_t fold_export_nprocs(const fold_export *c)
{
	return c->ntr;
}

const fold_facts *fold_export_facts(const fold_export *c, size_t proc)
{
	return &c->tr[proc]->facts;
}

const fold_sampling *fold_export_run_sampling(const fold_export *c)
{
	for (size_t p = 0; p < c->ntr; p++)
		if (c->tr[p]->facts.sampling.mode != FOLD_SAMPLING_UNKNOWN)
			return &c->tr[p]->facts.sampling;
	return NULL;
}

double fold_export_origin_ns(const fold_export *c, size_t proc)
{
	return c->offset_ns[proc];
}

double fold_export_end_ns(const fold_export *c, size_t proc)
{
	return time_ns(c, proc, c->tr[proc]->max_tick);
}

size_t fold_export_nmodules(const fold_export *c, size_t proc)
{
	return c->tr[proc]->nmod;
}

void fold_export_module_get(const fold_export *c, size_t proc, size_t m, fold_export_module *out)
{
	const ingest__module *mod = &c->tr[proc]->mod[m];
	uint64_t lo = UINT64_MAX, hi = 0;
	for (unsigned s = 0; s < mod->nseg; s++) {
		uint64_t a = mod->load_bias + mod->segs[s].vaddr;
		lo = a < lo ? a : lo;
		hi = a + mod->segs[s].memsz > hi ? a + mod->segs[s].memsz : hi;
	}
	if (lo == UINT64_MAX)
		lo = hi = mod->load_bias;
	*out = (fold_export_module){mod->id, mod->path, lo, hi, mod->build_id, mod->build_id_len};
}

long fold_export_module_of(const fold_export *c, size_t proc, uint64_t addr)
{
	const ingest__trace *t = c->tr[proc];
	for (size_t m = 0; m < t->nmod; m++)
		for (unsigned s = 0; s < t->mod[m].nseg; s++) {
			uint64_t lo = t->mod[m].load_bias + t->mod[m].segs[s].vaddr;
			if (addr >= lo && addr < lo + t->mod[m].segs[s].memsz)
				return (long)m;
		}
	return -1;
}

void fold_export_module_symbols(fold_export *c, size_t proc, size_t m, int *opened, int *has_dwarf)
{
	symtab_module_info info = {0};
	symbols__module_info_get(c->sym, (unsigned)proc, c->tr[proc]->mod[m].id, &info);
	*opened = info.opened;
	*has_dwarf = info.has_dwarf;
}

size_t fold_export_nthreads(const fold_export *c, size_t proc)
{
	return c->tr[proc]->nthreads;
}

void fold_export_thread_get(const fold_export *c, size_t proc, size_t t, fold_export_thread *out)
{
	const ingest__thread *th = &c->tr[proc]->threads[t];
	uint64_t end = th->end_tick > th->last_tick ? th->end_tick : th->last_tick;
	*out = (fold_export_thread){th->stream,         th->os_tid,
	                            th->name,           time_ns(c, proc, end),
	                            th->nsmp + th->nev, ingest__thread_number(c->tr[proc], t)};
}

static fold_export_sample sample_of(const fold_export *c, size_t p, const ingest__thread *th, size_t s)
{
	const ingest__sample *smp = &th->smp[s];
	return (fold_export_sample){p, th->stream, smp->stack, smp->cpu_ns, time_ns(c, p, smp->tick)};
}

/* Depth of the region filter after event e (recursion counts). */
static long filter_step(const fold_export *c, size_t p, const ingest__event *e, long depth)
{
	if (!fold_export_region_selected(c, p, e->region))
		return depth;
	if (e->kind == INGEST__EV_ENTER)
		return depth + 1;
	return depth > 0 ? depth - 1 : 0;
}

int fold_export_each_sample(fold_export *c, fold_export_sample_fn fn, void *arg)
{
	for (size_t p = 0; p < c->ntr; p++) {
		const ingest__trace *t = c->tr[p];
		for (size_t ti = 0; ti < t->nthreads; ti++) {
			const ingest__thread *th = &t->threads[ti];
			long depth = 0;
			size_t k = 0;
			for (size_t s = 0; s < th->nsmp; s++) {
				/* Events recorded before sample s carry nsamples <= s. */
				while (k < th->nev && th->ev[k].nsamples <= s)
					depth = filter_step(c, p, &th->ev[k++], depth);
				if (c->filter.region && depth <= 0)
					continue;
				fold_export_sample smp = sample_of(c, p, th, s);
				if (!fold_export_in_window(c, smp.t_ns))
					continue;
				int rc = fn(arg, &smp);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

int fold_export_thread_each(fold_export *c, size_t p, size_t t, fold_export_item_fn fn, void *arg)
{
	const ingest__thread *th = &c->tr[p]->threads[t];
	size_t k = 0, n = 0;
	/* Events and samples in stream order: event k precedes sample n when ev[k].nsamples <= n. */
	while (k < th->nev || n < th->nsmp) {
		fold_export_item it;
		memset(&it, 0, sizeof it);
		if (k < th->nev && (n >= th->nsmp || th->ev[k].nsamples <= n)) {
			const ingest__event *e = &th->ev[k++];
			it.kind = e->kind == INGEST__EV_ENTER ? FOLD_EXPORT_ENTER : FOLD_EXPORT_EXIT;
			it.t_ns = time_ns(c, p, e->tick);
			it.region = e->region;
		} else {
			it.kind = FOLD_EXPORT_SAMPLE;
			it.sample = sample_of(c, p, th, n++);
			it.t_ns = it.sample.t_ns;
		}
		int rc = fn(arg, &it);
		if (rc)
			return rc;
	}
	return 0;
}

unsigned fold_export_stack(const fold_export *c, size_t proc, uint32_t stack, const uint64_t **addrs)
{
	const ingest__trace *t = c->tr[proc];
	if (!stack || stack > t->nstacks) {
		*addrs = NULL;
		return 0;
	}
	*addrs = t->frames + t->stk_off[stack];
	return t->stk_depth[stack];
}

int fold_export_frames(fold_export *c, size_t proc, uint64_t addr, int is_return,
                       const fold_export_frame **frames, unsigned *n)
{
	static const fold_export_frame not_unwound[2] = {{FOLD_NOT_UNWOUND_LOADER, NULL, 0},
	                                                 {FOLD_NOT_UNWOUND_FAILED, NULL, 0}};
	if (addr >= TRACE_FRAME_NOT_UNWOUND_LOADER && addr <= TRACE_FRAME_NOT_UNWOUND_FAILED) {
		*frames = &not_unwound[addr - TRACE_FRAME_NOT_UNWOUND_LOADER];
		*n = 1;
		return 0;
	}
	const symtab_result *r = NULL;
	int rc = symbols__lookup(c->sym, (unsigned)proc, addr, is_return, &r);
	if (!r) {
		*frames = NULL;
		*n = 0;
		return rc ? rc : -ENOMEM;
	}
	*frames = (const fold_export_frame *)r->frames;
	*n = r->nframes;
	return 0;
}
