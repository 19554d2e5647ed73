/* fuzz_trace_struct.c: structure-aware fuzzing of the trace reader, ingest,
 * the analysis and the report writers.
 *
 * The byte fuzzer (fuzz_trace_reader.c) mostly breaks checksums, so its
 * inputs stop in the chunk decoder. This target's custom mutator decodes a
 * trace into its chunks and records, changes what they say (an id to 0, 1,
 * 2^31-1, 2^32-1, a count to its largest, a length past the end, a tick to
 * 2^64-1, a string to a path such as /dev/zero or a FIFO, a record copied
 * a thousand times, a chunk moved to stream 0xFFFFFFFF...), and encodes the
 * result again with valid compression and checksums, so every mutation
 * reaches ingest and the analysis. The input then goes through the reader,
 * fold_analyze (ingest, symbols, folding, fits) and the terminal, JSON and
 * HTML writers. A crash, a hang (-timeout) or a memory blow-up
 * (-rss_limit_mb, -malloc_limit_mb) is a defect.
 *
 * Without libFuzzer, replay_struct_main.c runs the seeds and a fixed
 * number of deterministic mutations of each, under ctest.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>

#include "analyze.h"
#include "fold_version.h"
#include "report.h"
#include "trace_chunk.h"
#include "trace_encode.h"
#include "trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#define MAX_RAW (1u << 20) /* largest chunk the mutator writes */
#define MAX_CHUNKS 4096
#define MAX_RECS 16384

/* ------------------------------------------------------------ randomness */

static uint64_t rng;
static uint64_t rnd(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}
static size_t below(size_t n)
{
	return n ? (size_t)(rnd() % n) : 0;
}

static const uint64_t special_u64[] = {0,
                                       1,
                                       2,
                                       255,
                                       65535,
                                       65536,
                                       0x7fffffffu,
                                       0x80000000u,
                                       0xfffffffeu,
                                       0xffffffffu,
                                       0x100000000ull,
                                       100000000,
                                       4000000000ull,
                                       0x7fffffffffffffffull,
                                       0xfffffffffffffffeull,
                                       0xffffffffffffffffull};
static uint64_t special(void)
{
	return special_u64[below(sizeof special_u64 / sizeof special_u64[0])];
}

static char fifo_path[64];
static const char *special_string(void)
{
	static char longs[5000];
	static const char *const strs[] = {"",
	                                   "/dev/zero",
	                                   "/dev/null",
	                                   "/dev/tty",
	                                   "/",
	                                   "/proc/self/status",
	                                   "/bin/true",
	                                   "/nonexistent/lib.so",
	                                   "[vdso]",
	                                   "linux-vdso.so.1",
	                                   "\x1b[2J\x1b]0;t\x07",
	                                   "\t=1+1",
	                                   "pid",
	                                   "mpi.rank",
	                                   "mpi.size",
	                                   "clock.tick_hz",
	                                   "clock.source",
	                                   "start.realtime_ns",
	                                   "sample.period",
	                                   "sample.source",
	                                   "threads",
	                                   "exit.signal",
	                                   "burst.caller.1",
	                                   "overhead.first_enter_before_ticks.1",
	                                   "overhead.first_enter_after_ticks.4294967295",
	                                   "overhead.hook_ns",
	                                   "overhead.cold_bins_ns",
	                                   "samples.dropped.in_runtime",
	                                   "samples.dropped_cpu_ns.buffer_full",
	                                   "-1",
	                                   "0",
	                                   "1e308",
	                                   "nan",
	                                   "inf",
	                                   "18446744073709551615",
	                                   "perf::TASK-CLOCK",
	                                   "burst after MPI_Allreduce",
	                                   "\xff\xfe\xc0\x80"};
	size_t n = sizeof strs / sizeof strs[0];
	size_t k = below(n + 2);
	if (k == n)
		return fifo_path;
	if (k == n + 1) {
		memset(longs, 'a', sizeof longs - 1);
		longs[below(sizeof longs)] = 0;
		return longs;
	}
	return strs[k];
}

/* ------------------------------------------------------- chunks, records */

typedef struct chunk {
	uint32_t stream, seq;
	enum trace_codec codec;
	uint8_t *raw;
	size_t len;
} chunk;

/* A record with its own copies of what it points to. */
typedef struct mrec {
	trace_record r;
	char *s1, *s2;
	uint8_t *bytes;
	trace_segment *segs;
	uint32_t ids[TRACE_MAX_COUNTERS];
	uint64_t vals[TRACE_MAX_COUNTERS];
	uint64_t frames[TRACE_MAX_DEPTH];
} mrec;

static chunk chunks[MAX_CHUNKS];
static size_t nchunks;
static mrec *recs;
static size_t nrecs;

static void chunks_free(void)
{
	for (size_t i = 0; i < nchunks; i++)
		free(chunks[i].raw);
	nchunks = 0;
}

static void recs_free(void)
{
	for (size_t i = 0; i < nrecs; i++) {
		free(recs[i].s1);
		free(recs[i].s2);
		free(recs[i].bytes);
		free(recs[i].segs);
	}
	nrecs = 0;
}

static int mem_fd = -1;

/* The intact chunks of a trace image, decompressed. 0, or -1 when it is
 * not a trace. */
static int parse(const uint8_t *data, size_t size)
{
	chunks_free();
	if (size < TRACE_FILE_HEADER_SIZE || ftruncate(mem_fd, 0) ||
	    pwrite(mem_fd, data, size, 0) != (ssize_t)size)
		return -1;
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", mem_fd);
	trace_reader *r;
	if (trace_reader_open(&r, path, NULL, NULL, NULL, 0))
		return -1;
	trace_raw_chunk c;
	while (nchunks < MAX_CHUNKS && trace_reader_next_chunk(r, &c) == 1) {
		chunk *k = &chunks[nchunks];
		k->stream = c.hdr.stream;
		k->seq = c.hdr.seq;
		k->codec = c.hdr.flags & TRACE_CHUNK_FLAG_ZSTD   ? TRACE_CODEC_ZSTD
		           : c.hdr.flags & TRACE_CHUNK_FLAG_ZLIB ? TRACE_CODEC_ZLIB
		                                                 : TRACE_CODEC_NONE;
		k->raw = malloc(c.raw_len + 1);
		if (!k->raw)
			break;
		memcpy(k->raw, c.raw, c.raw_len);
		k->len = c.raw_len;
		nchunks++;
	}
	trace_reader_close(r);
	return nchunks ? 0 : -1;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* The records of chunk k, copied into recs[]. */
static void decode_chunk(const chunk *k)
{
	recs_free();
	trace_decoder *d = trace_decoder_new();
	if (!d)
		return;
	trace_decoder_reset(d, k->stream, k->raw, k->len);
	trace_record r;
	while (nrecs < MAX_RECS && trace_decoder_next(d, &r, NULL) == 1) {
		mrec *m = &recs[nrecs];
		memset(m, 0, sizeof *m);
		m->r = r;
		switch (r.kind) {
		case TRACE_REC_INFO:
		case TRACE_REC_COUNTER_MISSING:
			m->s1 = dup_or_null(r.u.info.key);
			m->s2 = dup_or_null(r.u.info.value);
			break;
		case TRACE_REC_COUNTER_DEF: m->s1 = dup_or_null(r.u.counter_def.name); break;
		case TRACE_REC_REGION_DEF: m->s1 = dup_or_null(r.u.region_def.name); break;
		case TRACE_REC_STAT: m->s1 = dup_or_null(r.u.stat.key); break;
		case TRACE_REC_THREAD_START: m->s1 = dup_or_null(r.u.thread_start.name); break;
		case TRACE_REC_MARKER: m->s1 = dup_or_null(r.u.marker.text); break;
		case TRACE_REC_MODULE_LOAD:
			m->s1 = dup_or_null(r.u.module_load.path);
			m->bytes = malloc(r.u.module_load.build_id_len + 1);
			if (m->bytes)
				memcpy(m->bytes, r.u.module_load.build_id, r.u.module_load.build_id_len);
			m->segs = malloc((r.u.module_load.nseg + 1) * sizeof *m->segs);
			if (m->segs)
				memcpy(m->segs, r.u.module_load.segs, r.u.module_load.nseg * sizeof *m->segs);
			break;
		case TRACE_REC_COUNTER_SET:
			if (r.u.counter_set.n)
				memcpy(m->ids, r.u.counter_set.ids, r.u.counter_set.n * sizeof *m->ids);
			break;
		case TRACE_REC_ENTER:
		case TRACE_REC_EXIT:
			if (r.u.region.nctr)
				memcpy(m->vals, r.u.region.ctr, r.u.region.nctr * sizeof *m->vals);
			break;
		case TRACE_REC_SAMPLE:
			if (r.u.sample.depth && r.u.sample.frames)
				memcpy(m->frames, r.u.sample.frames, r.u.sample.depth * sizeof *m->frames);
			else
				m->r.u.sample.depth = 0;
			if (r.u.sample.nctr)
				memcpy(m->vals, r.u.sample.ctr, r.u.sample.nctr * sizeof *m->vals);
			break;
		default: break;
		}
		nrecs++;
	}
	trace_decoder_free(d);
}

/* --------------------------------------------------------------- encoding */

static int encode_one(trace_enc *e, const mrec *m)
{
	const trace_record *r = &m->r;
	switch (r->kind) {
	case TRACE_REC_INFO: return trace_enc_info(e, m->s1 ? m->s1 : "", m->s2 ? m->s2 : "");
	case TRACE_REC_CLOCK: return trace_enc_clock(e, r->tick, r->u.clock.mono_ns, r->u.clock.real_ns);
	case TRACE_REC_COUNTER_DEF:
		return trace_enc_counter_def(e, r->u.counter_def.id, r->u.counter_def.kind,
		                             m->s1 ? m->s1 : "");
	case TRACE_REC_COUNTER_MISSING:
		return trace_enc_counter_missing(e, m->s1 ? m->s1 : "", m->s2 ? m->s2 : "");
	case TRACE_REC_REGION_DEF:
		return trace_enc_region_def(e, r->u.region_def.id, r->u.region_def.kind,
		                            r->u.region_def.address, m->s1 ? m->s1 : "");
	case TRACE_REC_MODULE_LOAD:
		return trace_enc_module_load(e, r->u.module_load.id, r->tick, r->u.module_load.load_bias,
		                             m->bytes, m->bytes ? r->u.module_load.build_id_len : 0,
		                             m->s1 ? m->s1 : "", m->segs,
		                             m->segs ? r->u.module_load.nseg : 0);
	case TRACE_REC_MODULE_UNLOAD: return trace_enc_module_unload(e, r->u.module_unload.id, r->tick);
	case TRACE_REC_STAT: return trace_enc_stat(e, m->s1 ? m->s1 : "", r->u.stat.value);
	case TRACE_REC_THROTTLE:
		return trace_enc_throttle(e, r->u.throttle.region, r->tick, r->u.throttle.calls,
		                          r->u.throttle.mean_ns);
	case TRACE_REC_THREAD_START:
		return trace_enc_thread_start(e, r->u.thread_start.os_tid, r->u.thread_start.parent_stream,
		                              r->tick, m->s1 ? m->s1 : "");
	case TRACE_REC_THREAD_END: return trace_enc_thread_end(e, r->tick);
	case TRACE_REC_COUNTER_SET: return trace_enc_counter_set(e, m->ids, r->u.counter_set.n);
	case TRACE_REC_ENTER:
	case TRACE_REC_EXIT: {
		const uint64_t *v = r->u.region.nctr && r->u.region.nctr == e->nctr ? m->vals : NULL;
		return r->kind == TRACE_REC_ENTER ? trace_enc_enter(e, r->tick, r->u.region.region, v)
		                                  : trace_enc_exit(e, r->tick, r->u.region.region, v);
	}
	case TRACE_REC_SAMPLE: {
		const uint64_t *v = r->u.sample.nctr && r->u.sample.nctr == e->nctr ? m->vals : NULL;
		return trace_enc_sample(e, r->tick, m->frames, r->u.sample.depth, r->u.sample.cpu_ns, v);
	}
	case TRACE_REC_MARKER: return trace_enc_marker(e, r->tick, m->s1 ? m->s1 : "");
	case TRACE_REC_SAMPLE_COST:
		return trace_enc_sample_cost(e, r->u.sample_cost.cost_ns, r->u.sample_cost.lag_ns,
		                             r->u.sample_cost.delivery_ns);
	case TRACE_REC_PAUSE: return trace_enc_pause(e, r->u.pause.pause_ns);
	case TRACE_REC_HOOK_COST:
		return trace_enc_hook_cost(e, r->u.hook_cost.after_ticks, r->u.hook_cost.before_ticks);
	default: return 0; /* stack_def (a sample writes its own), unknown extended records */
	}
}

static void put_v(uint8_t **p, uint64_t v)
{
	while (v >= 0x80) {
		*(*p)++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*(*p)++ = (uint8_t)v;
}

/* A record whose counts or lengths lie (past the end, beyond the format's
 * limits), appended as raw bytes: what only the decoder should see. */
static size_t raw_lie(uint8_t *p0)
{
	uint8_t *p = p0;
	switch (below(6)) {
	case 0: /* module_load: a segment count past the end */
		*p++ = TRACE_REC_MODULE_LOAD;
		put_v(&p, 1), put_v(&p, 0), put_v(&p, 0), put_v(&p, 0), put_v(&p, 0);
		put_v(&p, special());
		break;
	case 1: /* a string longer than the chunk */
		*p++ = TRACE_REC_INFO;
		put_v(&p, special());
		break;
	case 2: /* a stack deeper than the format allows, or a huge ref */
		*p++ = TRACE_REC_STACK_DEF;
		put_v(&p, below(2) ? special() : 1), put_v(&p, below(2) ? 300 : special());
		break;
	case 3: /* a counter set beyond TRACE_MAX_COUNTERS */
		*p++ = TRACE_REC_COUNTER_SET;
		put_v(&p, below(2) ? 33 : special());
		break;
	case 4: /* an extended record longer than the chunk */
		*p++ = (uint8_t)(TRACE_REC_EXTENDED_FIRST + below(64));
		put_v(&p, special());
		break;
	default: /* a sample naming a stack never defined */
		*p++ = TRACE_REC_SAMPLE;
		put_v(&p, 0), put_v(&p, special()), put_v(&p, special()), put_v(&p, 0);
		break;
	}
	return (size_t)(p - p0);
}

/* Encodes recs[] back into chunk k's raw payload. */
static void encode_chunk(chunk *k, int lie)
{
	static uint8_t buf[MAX_RAW];
	trace_enc e;
	trace_enc_init(&e, NULL);
	trace_enc_begin(&e, buf, sizeof buf - 64);
	for (size_t i = 0; i < nrecs; i++)
		if (encode_one(&e, &recs[i]) == -ENOSPC)
			break;
	size_t len = trace_enc_len(&e);
	if (lie)
		len += raw_lie(buf + len);
	uint8_t *raw = malloc(len + 1);
	if (!raw)
		return;
	memcpy(raw, buf, len);
	free(k->raw);
	k->raw = raw;
	k->len = len;
}

/* Writes chunks[] as a trace file image into out (at most max bytes). */
static size_t serialize(uint8_t *out, size_t max)
{
	static trace_chunk_writer w[3];
	static int ready[3];
	if (ftruncate(mem_fd, 0) || lseek(mem_fd, 0, SEEK_SET) || trace_file_write_header(mem_fd))
		return 0;
	for (size_t i = 0; i < nchunks; i++) {
		chunk *k = &chunks[i];
		if (!ready[k->codec]) {
			if (trace_chunk_writer_init(&w[k->codec], k->codec,
			                            k->codec == TRACE_CODEC_NONE ? 0 : 1, MAX_RAW))
				continue;
			ready[k->codec] = 1;
		}
		if (k->len && k->len <= MAX_RAW)
			trace_chunk_write(&w[k->codec], mem_fd, k->stream, k->seq, k->raw, k->len);
	}
	off_t size = lseek(mem_fd, 0, SEEK_CUR);
	if (size <= 0 || (size_t)size > max)
		return 0;
	return pread(mem_fd, out, (size_t)size, 0) == size ? (size_t)size : 0;
}

/* -------------------------------------------------------------- mutations */

static void mutate_ids(mrec *m)
{
	trace_record *r = &m->r;
	uint32_t v = (uint32_t)special();
	switch (r->kind) {
	case TRACE_REC_REGION_DEF:
		if (below(2))
			r->u.region_def.id = v;
		else if (below(2))
			r->u.region_def.kind = (unsigned)below(256);
		else
			r->u.region_def.address = special();
		break;
	case TRACE_REC_ENTER:
	case TRACE_REC_EXIT: r->u.region.region = v; break;
	case TRACE_REC_COUNTER_DEF:
		below(2) ? (void)(r->u.counter_def.id = v)
		         : (void)(r->u.counter_def.kind = (unsigned)below(256));
		break;
	case TRACE_REC_MODULE_LOAD:
	case TRACE_REC_MODULE_UNLOAD: r->u.module_load.id = v; break;
	case TRACE_REC_THROTTLE: r->u.throttle.region = v; break;
	case TRACE_REC_THREAD_START:
		below(2) ? (void)(r->u.thread_start.parent_stream = v)
		         : (void)(r->u.thread_start.os_tid = special());
		break;
	case TRACE_REC_COUNTER_SET:
		if (r->u.counter_set.n)
			m->ids[below(r->u.counter_set.n)] = v;
		else
			r->u.counter_set.n = (unsigned)below(TRACE_MAX_COUNTERS + 1);
		break;
	default: break;
	}
}

static void mutate_numbers(mrec *m)
{
	trace_record *r = &m->r;
	uint64_t v = special();
	switch (r->kind) {
	case TRACE_REC_CLOCK: below(2) ? (void)(r->u.clock.mono_ns = v) : (void)(r->tick = v); break;
	case TRACE_REC_STAT: r->u.stat.value = v; break;
	case TRACE_REC_THROTTLE:
		below(2) ? (void)(r->u.throttle.calls = v) : (void)(r->u.throttle.mean_ns = v);
		break;
	case TRACE_REC_SAMPLE:
		if (below(3) == 0)
			r->u.sample.cpu_ns = v;
		else if (below(2) && r->u.sample.depth)
			m->frames[below(r->u.sample.depth)] = v;
		else
			r->u.sample.depth = (unsigned)below(TRACE_MAX_DEPTH + 1);
		break;
	case TRACE_REC_SAMPLE_COST: r->u.sample_cost.cost_ns = v; break;
	case TRACE_REC_PAUSE: r->u.pause.pause_ns = v; break;
	case TRACE_REC_HOOK_COST: r->u.hook_cost.after_ticks = v; break;
	case TRACE_REC_MODULE_LOAD:
		if (m->segs && r->u.module_load.nseg) {
			trace_segment *s = &m->segs[below(r->u.module_load.nseg)];
			below(2) ? (void)(s->vaddr = v) : (void)(s->memsz = v);
		} else {
			r->u.module_load.load_bias = v;
		}
		break;
	default:
		if (r->u.region.nctr && (r->kind == TRACE_REC_ENTER || r->kind == TRACE_REC_EXIT))
			m->vals[below(r->u.region.nctr)] = v;
		else
			r->tick = below(2) ? v : r->tick - 1;
	}
}

static void mutate_string(mrec *m)
{
	char **s = below(2) || !m->s2 ? &m->s1 : &m->s2;
	if (!*s && m->r.kind != TRACE_REC_INFO && m->r.kind != TRACE_REC_STAT &&
	    m->r.kind != TRACE_REC_MODULE_LOAD && m->r.kind != TRACE_REC_REGION_DEF)
		return;
	free(*s);
	*s = strdup(special_string());
}

/* One record-level change to chunk k; re-encoded. */
static void mutate_records(chunk *k)
{
	decode_chunk(k);
	int lie = 0;
	size_t i = below(nrecs);
	switch (nrecs ? below(8) : 7) {
	case 0:
	case 1: mutate_ids(&recs[i]); break;
	case 2: mutate_numbers(&recs[i]); break;
	case 3: mutate_string(&recs[i]); break;
	case 4: { /* a record many times over */
		size_t times = below(2) ? 1000 : 1 + below(16);
		mrec m = recs[i];
		recs[i].s1 = recs[i].s2 = NULL, recs[i].bytes = NULL, recs[i].segs = NULL;
		for (size_t t = 0; t < times && nrecs < MAX_RECS; t++) {
			mrec *c = &recs[nrecs++];
			*c = m;
			c->s1 = dup_or_null(m.s1), c->s2 = dup_or_null(m.s2);
			c->bytes = NULL, c->segs = NULL; /* copies of a module without segments */
			if (m.r.kind == TRACE_REC_MODULE_LOAD)
				c->r.u.module_load.nseg = 0, c->r.u.module_load.build_id_len = 0;
			if (m.r.kind == TRACE_REC_ENTER || m.r.kind == TRACE_REC_EXIT)
				c->r.u.region.region = (uint32_t)(t + 1); /* as many regions */
		}
		recs[i] = m;
		break;
	}
	case 5: { /* drop or move a record */
		mrec m = recs[i];
		size_t j = below(nrecs);
		if (below(2)) {
			free(m.s1), free(m.s2), free(m.bytes), free(m.segs);
			memmove(&recs[i], &recs[i + 1], (nrecs - i - 1) * sizeof *recs);
			nrecs--;
		} else {
			recs[i] = recs[j];
			recs[j] = m;
		}
		break;
	}
	case 6: /* a record's kind: an enter becomes an exit, a region def a marker... */
		if (recs[i].r.kind == TRACE_REC_ENTER || recs[i].r.kind == TRACE_REC_EXIT)
			recs[i].r.kind = recs[i].r.kind == TRACE_REC_ENTER ? TRACE_REC_EXIT : TRACE_REC_ENTER;
		break;
	default: lie = 1; break;
	}
	encode_chunk(k, lie);
	recs_free();
}

/* A new chunk on a (special) stream: a thread with events of special ids. */
static void add_chunk(void)
{
	if (nchunks >= MAX_CHUNKS)
		return;
	static uint8_t buf[65536];
	trace_enc e;
	trace_enc_init(&e, NULL);
	trace_enc_begin(&e, buf, sizeof buf);
	uint64_t t = below(2) ? 1000 : special();
	trace_enc_thread_start(&e, special(), (uint32_t)special(), t, special_string());
	uint32_t region = below(2) ? 1 : (uint32_t)special();
	for (unsigned i = 0; i < 50; i++) {
		uint64_t frames[2] = {0x401000 + i, 0x402000};
		trace_enc_enter(&e, t + i * 100, region, NULL);
		trace_enc_sample(&e, t + i * 100 + 50, frames, 2, 40, NULL);
		trace_enc_exit(&e, t + i * 100 + 90, below(8) ? region : (uint32_t)special(), NULL);
	}
	chunk *k = &chunks[nchunks++];
	k->stream = below(2) ? (uint32_t)special() : (uint32_t)below(8);
	k->seq = below(4) ? 0 : (uint32_t)special();
	k->codec = (enum trace_codec)below(3);
	k->len = trace_enc_len(&e);
	k->raw = malloc(k->len + 1);
	if (k->raw)
		memcpy(k->raw, buf, k->len);
	else
		nchunks--;
}

static void mutate_chunks(void)
{
	size_t i = below(nchunks);
	switch (below(7)) {
	case 0: chunks[i].stream = (uint32_t)special(); break;
	case 1: chunks[i].seq = below(2) ? (uint32_t)special() : chunks[i].seq + 1; break;
	case 2: chunks[i].codec = (enum trace_codec)below(3); break;
	case 3: /* a copy of a chunk (replayed, or another stream's) */
		if (nchunks < MAX_CHUNKS && (chunks[nchunks].raw = malloc(chunks[i].len + 1))) {
			memcpy(chunks[nchunks].raw, chunks[i].raw, chunks[i].len);
			chunks[nchunks].len = chunks[i].len;
			chunks[nchunks].stream = below(2) ? chunks[i].stream : (uint32_t)special();
			chunks[nchunks].seq = chunks[i].seq;
			chunks[nchunks].codec = chunks[i].codec;
			nchunks++;
		}
		break;
	case 4: { /* drop or swap chunks */
		size_t j = below(nchunks);
		chunk c = chunks[i];
		if (below(2) && nchunks > 1) {
			free(c.raw);
			memmove(&chunks[i], &chunks[i + 1], (nchunks - i - 1) * sizeof *chunks);
			nchunks--;
		} else {
			chunks[i] = chunks[j];
			chunks[j] = c;
		}
		break;
	}
	case 5: add_chunk(); break;
	default: break;
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)seed << 1 | 1);
	if (mem_fd < 0 || below(16) == 0 || parse(data, size) < 0)
		return LLVMFuzzerMutate(data, size, max_size);
	for (unsigned n = 1 + (unsigned)below(3); n > 0; n--) {
		if (below(3))
			mutate_records(&chunks[below(nchunks)]);
		else
			mutate_chunks();
	}
	size_t out = serialize(data, max_size);
	chunks_free();
	return out ? out : LLVMFuzzerMutate(data, size, max_size);
}

/* ----------------------------------------------------------------- target */

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void remove_fifo(void)
{
	if (strcmp(fifo_path, "/dev/zero"))
		unlink(fifo_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	mem_fd = memfd_create("fuzz-struct", MFD_CLOEXEC);
	recs = calloc(MAX_RECS, sizeof *recs);
	/* a FIFO for module and source paths: opening it must never block */
	snprintf(fifo_path, sizeof fifo_path, "/tmp/fold-fuzz-fifo.%ld", (long)getpid());
	unlink(fifo_path);
	if (mkfifo(fifo_path, 0600))
		snprintf(fifo_path, sizeof fifo_path, "/dev/zero");
	else
		atexit(remove_fifo);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (mem_fd < 0)
		LLVMFuzzerInitialize(NULL, NULL);
	int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		return 0;
	}
	char path[64];
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	const char *paths[1] = {path};
	fold_options opt;
	fold_options_init(&opt);
	opt.threads = 1;
	opt.diag = quiet;
	opt.share_dir = FOLD_SOURCE_SHARE_DIR;
	fold_analysis *a = NULL;
	char err[512];
	if (fold_analyze(paths, 1, &opt, &a, err, sizeof err) == 0) {
		FILE *devnull = fopen("/dev/null", "w");
		if (devnull) {
			report_terminal(a, devnull, 100, 0);
			report_profile_table(a, devnull, 80);
			fclose(devnull);
		}
		report_json_write(a, "/dev/null", err, sizeof err);
		report_html_write(a, "/dev/null", err, sizeof err);
		fold_analysis_free(a);
	}
	close(fd);
	return 0;
}
