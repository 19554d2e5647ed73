/* export_pprof.c: pprof's profile.proto, gzipped, for `pprof` and
 * `go tool pprof`.
 *
 * A small hand-written protobuf encoder (varints and length-delimited
 * fields are all profile.proto needs). Layout: sample_type
 * [samples/count, cpu/nanoseconds]; one Mapping per loaded module with its
 * build-id (hex); one Location per distinct (process, address) with its
 * Lines innermost inlined frame first and the containing function last, as
 * pprof expects; one Function per (name, file). Samples with the same
 * process, thread and stack are merged, and carry "pid", "thread" (stream)
 * and, in MPI runs, "rank" labels. String table entry 0 is "".
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "export.h"

/* --- protobuf primitives --- */
static void pb_varint(util_buf *b, uint64_t v)
{
	char tmp[10];
	size_t n = 0;
	do {
		tmp[n++] = (char)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	util_buf_put(b, tmp, n);
}

static void pb_key(util_buf *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

/* proto3 scalars: zero is the default and is not written. */
static void pb_uint(util_buf *b, unsigned field, uint64_t v)
{
	if (!v)
		return;
	pb_key(b, field, 0);
	pb_varint(b, v);
}

static void pb_int(util_buf *b, unsigned field, int64_t v)
{
	pb_uint(b, field, (uint64_t)v);
}

static void pb_bytes(util_buf *b, unsigned field, const char *d, size_t n)
{
	pb_key(b, field, 2);
	pb_varint(b, n);
	util_buf_put(b, d, n);
}

/* Appends sub as an embedded message and empties it for reuse. */
static void pb_msg(util_buf *b, unsigned field, util_buf *sub)
{
	pb_bytes(b, field, sub->data ? sub->data : "", sub->len);
	if (sub->oom)
		b->oom = 1;
	sub->len = 0;
}

/* --- the string table --- */
typedef struct strtab {
	export_map map; /* (hash, length) -> index; collisions checked by text */
	char **s;
	size_t n, cap;
} strtab;

/* Index of s (UTF-8-sanitised) in the table; -1 on ENOMEM. */
static int64_t str_index(strtab *t, const char *raw)
{
	util_buf clean;
	util_buf_init(&clean);
	export_put_utf8(&clean, raw ? raw : "");
	if (clean.oom)
		return -1;
	const char *s = clean.data ? clean.data : "";
	size_t len = clean.len;
	uint64_t h = util_hash_bytes(s, len);
	/* Open chain on the hash: probe (h, len), (h+1, len)... until the text matches or a new slot. */
	for (uint64_t probe = 0;; probe++) {
		int added;
		uint64_t *v = export_map_get(&t->map, h + probe, len, t->n, &added);
		if (!v) {
			util_buf_free(&clean);
			return -1;
		}
		if (added) {
			if (util_grow((void **)&t->s, &t->cap, t->n + 1, sizeof *t->s)) {
				util_buf_free(&clean);
				return -1;
			}
			t->s[t->n] = clean.data ? clean.data : strdup("");
			if (!t->s[t->n])
				return -1;
			return (int64_t)t->n++;
		}
		if (!strcmp(t->s[*v], s)) {
			util_buf_free(&clean);
			return (int64_t)*v;
		}
	}
}

typedef struct pprof_state {
	export_ctx *c;
	strtab st;
	export_map loc_ids; /* (proc << 1 | is_return, addr) -> location id */
	export_map fn_ids;  /* (name index, file index) -> function id */
	export_map agg;     /* (proc << 32 | stream, stack) -> sample index + 1 */
	util_buf locs;      /* encoded Location messages */
	util_buf fns;       /* encoded Function messages */
	uint64_t nloc, nfn;
	size_t *map_base;        /* per process: id of its first mapping - 1 */
	unsigned char *map_used; /* by mapping id: some location falls in it */
	struct agg_sample {
		uint32_t proc, stream, stack;
		unsigned long count;
		uint64_t cpu_ns;
	} * samples;
	size_t nsamples, cap;
	unsigned long total;
	int oom;
} pprof_state;

static uint64_t mapping_of(pprof_state *ps, size_t proc, uint64_t addr)
{
	long m = fold_export_module_of(ps->c->x, proc, addr);
	if (m < 0)
		return 0;
	ps->map_used[ps->map_base[proc] + (size_t)m + 1] = 1;
	return ps->map_base[proc] + (size_t)m + 1;
}

static uint64_t function_id(pprof_state *ps, const fold_export_frame *f)
{
	int64_t name = str_index(&ps->st, f->function);
	int64_t file = str_index(&ps->st, f->file ? f->file : "");
	if (name < 0 || file < 0)
		return 0;
	int added;
	uint64_t *v = export_map_get(&ps->fn_ids, (uint64_t)name, (uint64_t)file, ps->nfn + 1, &added);
	if (!v)
		return 0;
	if (added) {
		util_buf m;
		util_buf_init(&m);
		pb_uint(&m, 1, *v);
		pb_int(&m, 2, name);
		pb_int(&m, 3, name);
		pb_int(&m, 4, file);
		pb_msg(&ps->fns, 5, &m);
		util_buf_free(&m);
		ps->nfn++;
	}
	return *v;
}

static uint64_t location_id(pprof_state *ps, size_t proc, uint64_t addr, int is_return)
{
	int added;
	uint64_t *v = export_map_get(&ps->loc_ids, (uint64_t)proc << 1 | (uint64_t)is_return, addr,
	                             ps->nloc + 1, &added);
	if (!v)
		return 0;
	if (!added)
		return *v;
	uint64_t id = *v;
	ps->nloc++;
	const fold_export_frame *fr = NULL;
	unsigned nfr = 0;
	fold_export_frames(ps->c->x, proc, addr, is_return, &fr, &nfr);
	util_buf m, line;
	util_buf_init(&m);
	util_buf_init(&line);
	pb_uint(&m, 1, id);
	pb_uint(&m, 2, mapping_of(ps, proc, addr));
	pb_uint(&m, 3, addr);
	for (unsigned j = 0; j < nfr; j++) {
		pb_uint(&line, 1, function_id(ps, &fr[j]));
		pb_int(&line, 2, fr[j].line);
		pb_msg(&m, 4, &line);
	}
	pb_msg(&ps->locs, 4, &m);
	util_buf_free(&m);
	util_buf_free(&line);
	return id;
}

static int on_sample(void *arg, const fold_export_sample *s)
{
	pprof_state *ps = arg;
	size_t proc = s->proc;
	int added;
	uint64_t *v =
	    export_map_get(&ps->agg, (uint64_t)proc << 32 | s->stream, s->stack, ps->nsamples + 1, &added);
	if (!v)
		return -ENOMEM;
	if (added) {
		if (util_grow((void **)&ps->samples, &ps->cap, ps->nsamples + 1, sizeof *ps->samples))
			return -ENOMEM;
		ps->samples[ps->nsamples++] = (struct agg_sample){(uint32_t)proc, s->stream, s->stack, 0, 0};
	}
	ps->samples[*v - 1].count++;
	ps->samples[*v - 1].cpu_ns += s->cpu_ns;
	ps->total++;
	return 0;
}

static void hex(char *out, const uint8_t *d, size_t n)
{
	static const char digits[] = "0123456789abcdef";
	for (size_t i = 0; i < n; i++) {
		out[2 * i] = digits[d[i] >> 4];
		out[2 * i + 1] = digits[d[i] & 15];
	}
	out[2 * n] = 0;
}

static void value_type(pprof_state *ps, util_buf *b, unsigned field, const char *type, const char *unit)
{
	util_buf m;
	util_buf_init(&m);
	pb_int(&m, 1, str_index(&ps->st, type));
	pb_int(&m, 2, str_index(&ps->st, unit));
	pb_msg(b, field, &m);
	util_buf_free(&m);
}

static void label(pprof_state *ps, util_buf *b, const char *key, int64_t num)
{
	util_buf m;
	util_buf_init(&m);
	pb_int(&m, 1, str_index(&ps->st, key));
	pb_int(&m, 3, num);
	pb_msg(b, 3, &m);
	util_buf_free(&m);
}

static int encode_profile(pprof_state *ps, util_buf *prof)
{
	export_ctx *c = ps->c;
	str_index(&ps->st, ""); /* index 0 */
	value_type(ps, prof, 1, "samples", "count");
	value_type(ps, prof, 1, "cpu", "nanoseconds");
	/* Mapping ids: every module of every process, numbered in order. */
	size_t nprocs = fold_export_nprocs(c->x);
	ps->map_base = calloc(nprocs ? nprocs : 1, sizeof *ps->map_base);
	if (!ps->map_base)
		return -ENOMEM;
	size_t nmaps = 0;
	for (size_t p = 0; p < nprocs; p++) {
		ps->map_base[p] = nmaps;
		nmaps += fold_export_nmodules(c->x, p);
	}
	ps->map_used = calloc(nmaps + 1, 1);
	if (!ps->map_used)
		return -ENOMEM;
	/* Samples, leaf location first. */
	util_buf sm, ids;
	util_buf_init(&sm);
	util_buf_init(&ids);
	for (size_t i = 0; i < ps->nsamples; i++) {
		const struct agg_sample *a = &ps->samples[i];
		const uint64_t *fr;
		unsigned depth = fold_export_stack(c->x, a->proc, a->stack, &fr);
		for (unsigned d = 0; d < depth; d++)
			pb_varint(&ids, location_id(ps, a->proc, fr[d], d > 0));
		if (ids.len)
			pb_bytes(&sm, 1, ids.data, ids.len);
		ids.len = 0;
		pb_varint(&ids, a->count);
		pb_varint(&ids, a->cpu_ns);
		pb_bytes(&sm, 2, ids.data, ids.len);
		ids.len = 0;
		const fold_facts *f = fold_export_facts(c->x, a->proc);
		label(ps, &sm, "pid", f->pid >= 0 ? (int64_t)f->pid : (int64_t)a->proc);
		label(ps, &sm, "thread", a->stream);
		if (f->rank >= 0)
			label(ps, &sm, "rank", (int64_t)f->rank);
		pb_msg(prof, 2, &sm);
	}
	util_buf_free(&sm);
	util_buf_free(&ids);
	/* Mappings; the symbol flags only for modules samples fell in (asking
	 * about the others would index them, and say they lack DWARF, for nothing). */
	for (size_t p = 0; p < nprocs; p++) {
		for (size_t m = 0; m < fold_export_nmodules(c->x, p); m++) {
			fold_export_module mod;
			fold_export_module_get(c->x, p, m, &mod);
			uint64_t id = ps->map_base[p] + m + 1, lo = mod.lo, hi = mod.hi;
			char bid[2 * 64 + 1] = "";
			hex(bid, mod.build_id, mod.build_id_len < 64 ? mod.build_id_len : 64);
			int opened = 0, has_dwarf = 0;
			if (ps->map_used[id])
				fold_export_module_symbols(c->x, p, m, &opened, &has_dwarf);
			util_buf mm;
			util_buf_init(&mm);
			pb_uint(&mm, 1, id);
			pb_uint(&mm, 2, lo);
			pb_uint(&mm, 3, hi);
			pb_int(&mm, 5, str_index(&ps->st, mod.path));
			pb_int(&mm, 6, str_index(&ps->st, bid));
			pb_uint(&mm, 7, (uint64_t)opened);
			pb_uint(&mm, 8, (uint64_t)has_dwarf);
			pb_uint(&mm, 9, (uint64_t)has_dwarf);
			pb_uint(&mm, 10, (uint64_t)has_dwarf);
			pb_msg(prof, 3, &mm);
			util_buf_free(&mm);
		}
	}
	util_buf_put(prof, ps->locs.data ? ps->locs.data : "", ps->locs.len);
	util_buf_put(prof, ps->fns.data ? ps->fns.data : "", ps->fns.len);
	/* Time of the earliest process and the span of the run. */
	double end = 0;
	int64_t start_ns = 0;
	for (size_t p = 0; p < nprocs; p++) {
		double e = fold_export_end_ns(c->x, p);
		end = e > end ? e : end;
		const fold_facts *f = fold_export_facts(c->x, p);
		if (f->has_start && fold_export_origin_ns(c->x, p) == 0)
			start_ns = f->start_realtime_ns;
	}
	/* period_type/period: the run's sampling period as the analysis reports
	 * it, a timer's (wall or CPU time) in ns, an overflow's in occurrences
	 * of its event. */
	const fold_sampling *smp = fold_export_run_sampling(c->x);
	/* The string table goes after every other field has interned its strings. */
	int64_t comment = str_index(&ps->st, "generated by fold export");
	pb_int(prof, 9, start_ns);
	pb_int(prof, 10, (int64_t)end);
	if (smp && fold_sampling_period_ns(smp) > 0) {
		value_type(ps, prof, 11, "cpu", "nanoseconds");
		pb_int(prof, 12, (int64_t)llround(smp->period));
	} else if (smp && smp->period > 0 && smp->mode == FOLD_SAMPLING_OVERFLOW) {
		value_type(ps, prof, 11, smp->event ? smp->event : "events", "count");
		pb_int(prof, 12, (int64_t)llround(smp->period));
	}
	util_buf cm;
	util_buf_init(&cm);
	pb_varint(&cm, (uint64_t)comment);
	pb_bytes(prof, 13, cm.data, cm.len);
	util_buf_free(&cm);
	for (size_t i = 0; i < ps->st.n; i++)
		pb_bytes(prof, 6, ps->st.s[i], strlen(ps->st.s[i]));
	return prof->oom || ps->locs.oom || ps->fns.oom ? -ENOMEM : 0;
}

static int gzip_into(const util_buf *in, util_buf *out)
{
	z_stream z;
	memset(&z, 0, sizeof z);
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	z.next_in = (Bytef *)(in->data ? in->data : "");
	z.avail_in = (uInt)in->len;
	char chunk[65536];
	int zr;
	do {
		z.next_out = (Bytef *)chunk;
		z.avail_out = sizeof chunk;
		zr = deflate(&z, Z_FINISH);
		if (zr == Z_STREAM_ERROR)
			break;
		util_buf_put(out, chunk, sizeof chunk - z.avail_out);
	} while (zr != Z_STREAM_END);
	deflateEnd(&z);
	return zr == Z_STREAM_END && !out->oom ? 0 : -ENOMEM;
}

int export_pprof(export_ctx *c, util_buf *out, export_stats *st, char *err, size_t errlen)
{
	pprof_state ps;
	memset(&ps, 0, sizeof ps);
	ps.c = c;
	util_buf prof;
	util_buf_init(&prof);
	int rc = fold_export_each_sample(c->x, on_sample, &ps);
	if (!rc)
		rc = encode_profile(&ps, &prof);
	if (!rc)
		rc = gzip_into(&prof, out);
	if (rc)
		snprintf(err, errlen, "pprof export: %s", strerror(-rc));
	st->samples = ps.total;
	st->stacks = ps.nsamples;
	util_buf_free(&prof);
	util_buf_free(&ps.locs);
	util_buf_free(&ps.fns);
	for (size_t i = 0; i < ps.st.n; i++)
		free(ps.st.s[i]);
	free(ps.st.s);
	export_map_free(&ps.st.map);
	export_map_free(&ps.loc_ids);
	export_map_free(&ps.fn_ids);
	export_map_free(&ps.agg);
	free(ps.samples);
	free(ps.map_base);
	free(ps.map_used);
	return rc;
}
