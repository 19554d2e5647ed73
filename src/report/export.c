/* export.c: loading, symbolising and filtering shared by the exporters of
 * `fold export` (see export.h). */
#include "export.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int cmp_u32_pair(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
	return (x > y) - (x < y);
}

static int load_regions(export_ctx *c, size_t p)
{
	const ingest__trace *t = c->tr[p];
	struct export_regions *r = &c->regions[p];
	r->n = t->nreg;
	r->ids = calloc(t->nreg ? t->nreg : 1, sizeof *r->ids);
	r->names = calloc(t->nreg ? t->nreg : 1, sizeof *r->names);
	r->match = calloc(t->nreg ? t->nreg : 1, 1);
	uint32_t *pairs = calloc(t->nreg ? 2 * t->nreg : 2, sizeof *pairs);
	if (!r->ids || !r->names || !r->match || !pairs) {
		free(pairs);
		return -ENOMEM;
	}
	for (size_t i = 0; i < t->nreg; i++) {
		pairs[2 * i] = t->reg[i].id;
		pairs[2 * i + 1] = (uint32_t)i;
	}
	qsort(pairs, t->nreg, 2 * sizeof *pairs, cmp_u32_pair);
	for (size_t k = 0; k < t->nreg; k++) {
		const ingest__region_def *d = &t->reg[pairs[2 * k + 1]];
		r->ids[k] = d->id;
		const char *name = d->name;
		if ((!name || !*name) && d->address) {
			const char *sym = NULL;
			symtab_function_name(c->sym, (unsigned)p, d->address, &sym);
			name = sym;
		}
		r->names[k] = name && *name ? name : "[unnamed region]";
		if (c->opt->region && !strcmp(r->names[k], c->opt->region)) {
			r->match[k] = 1;
			c->region_found = 1;
		}
	}
	free(pairs);
	return 0;
}

long export_region_index(const export_ctx *c, size_t proc, uint32_t id)
{
	const struct export_regions *r = &c->regions[proc];
	size_t lo = 0, hi = r->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (r->ids[mid] < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < r->n && r->ids[lo] == id ? (long)lo : -1;
}

const char *export_region_name(const export_ctx *c, size_t proc, uint32_t id)
{
	long i = export_region_index(c, proc, id);
	return i < 0 ? "[undefined region]" : c->regions[proc].names[i];
}

double export_time_ns(const export_ctx *c, size_t proc, uint64_t tick)
{
	return c->offset_ns[proc] + ingest__tick_ns(c->tr[proc], tick);
}

int export_in_window(const export_ctx *c, double t_ns)
{
	if (t_ns < c->opt->from_s * 1e9)
		return 0;
	return c->opt->to_s < 0 || t_ns <= c->opt->to_s * 1e9;
}

int export_ctx_open(export_ctx *c, const char *const *paths, size_t n, const export_options *opt,
                    trace_diag_fn diag, void *diag_arg, char *err, size_t errlen)
{
	memset(c, 0, sizeof *c);
	c->opt = opt;
	int rc = ingest__trace_load_many(paths, n, 0, &c->tr, diag, diag_arg, err, errlen);
	if (rc)
		return rc;
	c->ntr = n;
	c->offset_ns = calloc(n, sizeof *c->offset_ns);
	c->regions = calloc(n, sizeof *c->regions);
	if (!c->offset_ns || !c->regions) {
		rc = -ENOMEM;
		goto fail_nomem;
	}
	rc = symtab_new(&c->sym, diag, diag_arg);
	if (rc)
		goto fail_nomem;
	/* Align processes on the wall clock when every one recorded its start. */
	double min_start = 0;
	int aligned = 1;
	for (size_t p = 0; p < n; p++) {
		const char *s = ingest__trace_info(c->tr[p], "start.realtime_ns");
		if (!s) {
			aligned = 0;
			break;
		}
		c->offset_ns[p] = strtod(s, NULL);
		if (p == 0 || c->offset_ns[p] < min_start)
			min_start = c->offset_ns[p];
	}
	for (size_t p = 0; p < n; p++)
		c->offset_ns[p] = aligned ? c->offset_ns[p] - min_start : 0;
	for (size_t p = 0; p < n; p++) {
		const ingest__trace *t = c->tr[p];
		for (size_t m = 0; m < t->nmod; m++) {
			const ingest__module *mod = &t->mod[m];
			rc = symtab_add_module(c->sym, (unsigned)p, mod->id, mod->path, mod->build_id,
			                       mod->build_id_len, mod->load_bias, mod->segs, mod->nseg);
			if (rc) {
				snprintf(err, errlen, "%s: cannot register module %s: %s", t->path, mod->path,
				         strerror(-rc));
				goto fail;
			}
		}
		rc = load_regions(c, p);
		if (rc)
			goto fail_nomem;
	}
	if (opt->region && !c->region_found) {
		snprintf(err, errlen, "--region %s: no region of that name in the trace%s", opt->region,
		         n > 1 ? "s" : "");
		rc = -ENOENT;
		goto fail;
	}
	return 0;
fail_nomem:
	snprintf(err, errlen, "%s: out of memory", n ? paths[0] : "export");
fail:
	export_ctx_close(c);
	return rc;
}

void export_ctx_close(export_ctx *c)
{
	for (size_t p = 0; c->regions && p < c->ntr; p++) {
		free(c->regions[p].ids);
		free(c->regions[p].names);
		free(c->regions[p].match);
	}
	free(c->regions);
	for (size_t p = 0; c->tr && p < c->ntr; p++)
		ingest__trace_free(c->tr[p]);
	free(c->tr);
	free(c->offset_ns);
	if (c->sym)
		symtab_free(c->sym);
	memset(c, 0, sizeof *c);
}

/* Depth of the --region filter after event e (recursion counts). */
static long filter_step(const export_ctx *c, size_t p, const ingest__event *e, long depth)
{
	long i = export_region_index(c, p, e->region);
	if (i < 0 || !c->regions[p].match[i])
		return depth;
	if (e->kind == INGEST__EV_ENTER)
		return depth + 1;
	return depth > 0 ? depth - 1 : 0;
}

int export_each_sample(export_ctx *c, export_sample_fn fn, void *arg)
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
				if (c->opt->region && depth <= 0)
					continue;
				double t_ns = export_time_ns(c, p, th->smp[s].tick);
				if (!export_in_window(c, t_ns))
					continue;
				int rc = fn(arg, p, th, &th->smp[s], t_ns);
				if (rc)
					return rc;
			}
		}
	}
	return 0;
}

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
	const ingest__trace *t = c->tr[proc];
	if (!stack || stack > t->nstacks) {
		report_buf_puts(out, "[no stack]");
		return 0;
	}
	const uint64_t *fr = t->frames + t->stk_off[stack];
	unsigned depth = t->stk_depth[stack];
	int first = 1;
	for (unsigned i = depth; i-- > 0;) {
		const symtab_result *r = NULL;
		int rc = symtab_lookup(c->sym, (unsigned)proc, fr[i], i > 0, &r);
		if (!r)
			return rc ? rc : -ENOMEM;
		for (unsigned j = r->nframes; j-- > 0;) {
			if (!first)
				report_buf_putc(out, sep);
			first = 0;
			put_frame_name(out, r->frames[j].function);
		}
	}
	if (first)
		report_buf_puts(out, "[no stack]");
	return 0;
}

const char *export_stack_leaf(export_ctx *c, size_t proc, uint32_t stack)
{
	const ingest__trace *t = c->tr[proc];
	if (!stack || stack > t->nstacks || !t->stk_depth[stack])
		return "[no stack]";
	const symtab_result *r = NULL;
	symtab_lookup(c->sym, (unsigned)proc, t->frames[t->stk_off[stack]], 0, &r);
	return r && r->nframes ? r->frames[0].function : "[unknown]";
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
