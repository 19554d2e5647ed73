/* trace_reader.c: streaming reader and chunk decoder (see trace_reader.h).
 *
 * The decoder bounds-checks every read: a malformed chunk yields -EBADMSG,
 * never an out-of-bounds access (the fuzz target checks this). The reader
 * keeps one compressed and one decompressed chunk buffer, grown on demand up
 * to TRACE_CHUNK_MAX_RAW.
 */
#define _GNU_SOURCE
#include "trace_reader.h"
#include "trace_live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "util.h"

/* ------------------------------------------------------------------------ */
/* chunk decoder                                                            */

struct trace_decoder {
	const uint8_t *p, *end;
	uint32_t stream;
	uint64_t last_tick;
	unsigned nctr;
	uint32_t ctr_ids[TRACE_MAX_COUNTERS];
	uint64_t ctr[TRACE_MAX_COUNTERS];
	uint64_t frames[TRACE_MAX_DEPTH];
	/* chunk-local stack table: ref -> (offset, depth) into arena */
	uint32_t *stack_off, *stack_depth;
	size_t stack_cap;
	uint32_t stack_defs; /* stack_def records so far in this chunk */
	uint64_t *arena;
	size_t arena_len, arena_cap;
	/* per-record strings, NUL-terminated */
	char *str;
	size_t str_len, str_cap;
	trace_segment *segs;
	size_t segs_cap;
	int failed;
};

trace_decoder *trace_decoder_new(void)
{
	return calloc(1, sizeof(trace_decoder));
}

void trace_decoder_free(trace_decoder *d)
{
	if (!d)
		return;
	free(d->stack_off);
	free(d->stack_depth);
	free(d->arena);
	free(d->str);
	free(d->segs);
	free(d);
}

void trace_decoder_reset(trace_decoder *d, uint32_t stream, const uint8_t *raw, size_t len)
{
	d->p = raw;
	d->end = raw + len;
	d->stream = stream;
	d->last_tick = 0;
	d->nctr = 0;
	memset(d->ctr, 0, sizeof d->ctr);
	for (size_t i = 0; i < d->stack_cap; i++)
		d->stack_depth[i] = UINT32_MAX;
	d->arena_len = 0;
	d->stack_defs = 0;
	d->failed = 0;
}

static int get_u8(trace_decoder *d, uint8_t *v)
{
	if (d->p >= d->end)
		return -EBADMSG;
	*v = *d->p++;
	return 0;
}

static int get_v(trace_decoder *d, uint64_t *v)
{
	uint64_t r = 0;
	for (unsigned shift = 0; shift < 64; shift += 7) {
		if (d->p >= d->end)
			return -EBADMSG;
		uint8_t b = *d->p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
	}
	return -EBADMSG;
}

static int get_v32(trace_decoder *d, uint32_t *v)
{
	uint64_t x;
	if (get_v(d, &x) || x > UINT32_MAX)
		return -EBADMSG;
	*v = (uint32_t)x;
	return 0;
}

static int get_z(trace_decoder *d, int64_t *v)
{
	uint64_t x;
	if (get_v(d, &x))
		return -EBADMSG;
	*v = trace_unzigzag(x);
	return 0;
}

/* Reads a length-prefixed byte string; copies it NUL-terminated into the
 * record's string area and returns its offset there via *off. */
static int get_bytes(trace_decoder *d, size_t *off, size_t *len_out)
{
	uint64_t n;
	if (get_v(d, &n) || n > (uint64_t)(d->end - d->p))
		return -EBADMSG;
	if (util_grow((void **)&d->str, &d->str_cap, d->str_len + n + 1, 1))
		return -ENOMEM;
	memcpy(d->str + d->str_len, d->p, n);
	d->str[d->str_len + n] = 0;
	*off = d->str_len;
	if (len_out)
		*len_out = n;
	d->str_len += n + 1;
	d->p += n;
	return 0;
}

static int get_tick(trace_decoder *d, uint64_t *tick)
{
	int64_t dt;
	if (get_z(d, &dt))
		return -EBADMSG;
	d->last_tick += (uint64_t)dt;
	*tick = d->last_tick;
	return 0;
}

static int get_counters(trace_decoder *d, unsigned *n_out)
{
	uint64_t n;
	if (get_v(d, &n) || (n != 0 && n != d->nctr))
		return -EBADMSG;
	for (unsigned i = 0; i < n; i++) {
		int64_t dv;
		if (get_z(d, &dv))
			return -EBADMSG;
		d->ctr[i] += (uint64_t)dv;
	}
	*n_out = (unsigned)n;
	return 0;
}

static int decode_stack_def(trace_decoder *d, uint32_t *ref_out, unsigned *depth_out)
{
	uint32_t ref, depth;
	if (get_v32(d, &ref) || get_v32(d, &depth) || ref == 0 || depth > TRACE_MAX_DEPTH)
		return -EBADMSG;
	/* Refs are dense from 1 per chunk (docs/trace-format.md): a ref is at
	 * most one past the definitions before it, so the table never grows
	 * beyond the records the chunk holds. */
	if (ref > d->stack_defs + 1)
		return -EBADMSG;
	if (util_grow((void **)&d->arena, &d->arena_cap, d->arena_len + depth, sizeof *d->arena))
		return -ENOMEM;
	uint64_t prev = 0;
	for (uint32_t i = 0; i < depth; i++) {
		int64_t df;
		if (get_z(d, &df))
			return -EBADMSG;
		prev += (uint64_t)df;
		d->arena[d->arena_len + i] = prev;
	}
	if (ref >= d->stack_cap) {
		size_t old = d->stack_cap, cap_off = d->stack_cap, cap_depth = d->stack_cap;
		if (util_grow((void **)&d->stack_off, &cap_off, ref + 1, sizeof *d->stack_off) ||
		    util_grow((void **)&d->stack_depth, &cap_depth, ref + 1, sizeof *d->stack_depth))
			return -ENOMEM;
		d->stack_cap = cap_off < cap_depth ? cap_off : cap_depth;
		for (size_t i = old; i < d->stack_cap; i++)
			d->stack_depth[i] = UINT32_MAX;
	}
	d->stack_off[ref] = (uint32_t)d->arena_len;
	d->stack_depth[ref] = depth;
	d->arena_len += depth;
	d->stack_defs++;
	*ref_out = ref;
	*depth_out = depth;
	return 0;
}

static int decode_one(trace_decoder *d, trace_record *rec, trace_read_stats *stats)
{
	uint8_t kind;
	size_t a, b, blen;
	uint64_t v;
	if (get_u8(d, &kind))
		return -EBADMSG;
	memset(rec, 0, sizeof *rec);
	rec->stream = d->stream;
	rec->kind = kind;
	d->str_len = 0;
	switch (kind) {
	case TRACE_REC_INFO:
		if (get_bytes(d, &a, NULL) || get_bytes(d, &b, NULL))
			return -EBADMSG;
		rec->u.info.key = d->str + a;
		rec->u.info.value = d->str + b;
		return 0;
	case TRACE_REC_CLOCK:
		if (get_v(d, &rec->tick) || get_v(d, &rec->u.clock.mono_ns) ||
		    get_v(d, &rec->u.clock.real_ns))
			return -EBADMSG;
		return 0;
	case TRACE_REC_COUNTER_DEF: {
		uint8_t k;
		if (get_v32(d, &rec->u.counter_def.id) || get_u8(d, &k) || get_bytes(d, &a, NULL))
			return -EBADMSG;
		rec->u.counter_def.kind = k;
		rec->u.counter_def.name = d->str + a;
		return 0;
	}
	case TRACE_REC_COUNTER_MISSING:
		if (get_bytes(d, &a, NULL) || get_bytes(d, &b, NULL))
			return -EBADMSG;
		rec->u.counter_missing.name = d->str + a;
		rec->u.counter_missing.reason = d->str + b;
		return 0;
	case TRACE_REC_REGION_DEF: {
		uint8_t k;
		if (get_v32(d, &rec->u.region_def.id) || get_u8(d, &k) ||
		    get_v(d, &rec->u.region_def.address) || get_bytes(d, &a, NULL))
			return -EBADMSG;
		rec->u.region_def.kind = k;
		rec->u.region_def.name = d->str + a;
		return 0;
	}
	case TRACE_REC_MODULE_LOAD: {
		uint64_t nseg;
		if (get_v32(d, &rec->u.module_load.id) || get_v(d, &rec->tick) ||
		    get_v(d, &rec->u.module_load.load_bias) || get_bytes(d, &a, &blen) ||
		    get_bytes(d, &b, NULL) || get_v(d, &nseg) ||
		    nseg > (uint64_t)(d->end - d->p) / 3) /* a segment takes at least 3 bytes */
			return -EBADMSG;
		if (util_grow((void **)&d->segs, &d->segs_cap, nseg ? nseg : 1, sizeof *d->segs))
			return -ENOMEM;
		for (uint64_t i = 0; i < nseg; i++)
			if (get_v(d, &d->segs[i].vaddr) || get_v(d, &d->segs[i].memsz) ||
			    get_u8(d, &d->segs[i].prot))
				return -EBADMSG;
		rec->u.module_load.build_id = (const uint8_t *)d->str + a;
		rec->u.module_load.build_id_len = blen;
		rec->u.module_load.path = d->str + b;
		rec->u.module_load.nseg = (unsigned)nseg;
		rec->u.module_load.segs = d->segs;
		return 0;
	}
	case TRACE_REC_MODULE_UNLOAD:
		if (get_v32(d, &rec->u.module_unload.id) || get_v(d, &rec->tick))
			return -EBADMSG;
		return 0;
	case TRACE_REC_STAT:
		if (get_bytes(d, &a, NULL) || get_v(d, &rec->u.stat.value))
			return -EBADMSG;
		rec->u.stat.key = d->str + a;
		return 0;
	case TRACE_REC_THROTTLE:
		if (get_v32(d, &rec->u.throttle.region) || get_v(d, &rec->tick) ||
		    get_v(d, &rec->u.throttle.calls) || get_v(d, &rec->u.throttle.mean_ns))
			return -EBADMSG;
		return 0;
	case TRACE_REC_THREAD_START:
		if (get_v(d, &rec->u.thread_start.os_tid) || get_v32(d, &rec->u.thread_start.parent_stream) ||
		    get_v(d, &rec->tick) || get_bytes(d, &a, NULL))
			return -EBADMSG;
		rec->u.thread_start.name = d->str + a;
		d->last_tick = rec->tick;
		return 0;
	case TRACE_REC_THREAD_END: return get_tick(d, &rec->tick);
	case TRACE_REC_COUNTER_SET: {
		if (get_v(d, &v) || v > TRACE_MAX_COUNTERS)
			return -EBADMSG;
		for (unsigned i = 0; i < v; i++)
			if (get_v32(d, &d->ctr_ids[i]))
				return -EBADMSG;
		d->nctr = (unsigned)v;
		memset(d->ctr, 0, sizeof d->ctr);
		rec->u.counter_set.n = d->nctr;
		rec->u.counter_set.ids = d->ctr_ids;
		return 0;
	}
	case TRACE_REC_ENTER:
	case TRACE_REC_EXIT:
	case TRACE_REC_ENTER_CTR:
	case TRACE_REC_EXIT_CTR: {
		if (get_tick(d, &rec->tick) || get_v32(d, &rec->u.region.region))
			return -EBADMSG;
		if (kind == TRACE_REC_ENTER_CTR || kind == TRACE_REC_EXIT_CTR) {
			if (get_counters(d, &rec->u.region.nctr))
				return -EBADMSG;
			rec->kind = kind == TRACE_REC_ENTER_CTR ? TRACE_REC_ENTER : TRACE_REC_EXIT;
		}
		rec->u.region.ctr_ids = d->ctr_ids;
		rec->u.region.ctr = d->ctr;
		return 0;
	}
	case TRACE_REC_STACK_DEF: {
		uint32_t ref;
		unsigned depth;
		if (decode_stack_def(d, &ref, &depth))
			return -EBADMSG;
		rec->u.stack_def.stack_ref = ref;
		rec->u.stack_def.depth = depth;
		/* depth 0 may leave the arena unallocated: no pointer arithmetic on NULL */
		rec->u.stack_def.frames = depth ? d->arena + d->stack_off[ref] : NULL;
		return 0;
	}
	case TRACE_REC_SAMPLE: {
		uint32_t ref;
		if (get_tick(d, &rec->tick) || get_v32(d, &ref) || get_v(d, &rec->u.sample.cpu_ns) ||
		    get_counters(d, &rec->u.sample.nctr))
			return -EBADMSG;
		rec->u.sample.cpu_ns *= 1000; /* stored in microseconds */
		rec->u.sample.stack_ref = ref;
		if (ref) {
			if (ref < d->stack_cap && d->stack_depth[ref] != UINT32_MAX) {
				rec->u.sample.depth = d->stack_depth[ref];
				rec->u.sample.frames =
				    rec->u.sample.depth ? d->arena + d->stack_off[ref] : NULL;
			} else if (stats) {
				stats->samples_without_stack_def++;
			}
		}
		rec->u.sample.ctr_ids = d->ctr_ids;
		rec->u.sample.ctr = d->ctr;
		return 0;
	}
	case TRACE_REC_MARKER:
		if (get_tick(d, &rec->tick) || get_bytes(d, &a, NULL))
			return -EBADMSG;
		rec->u.marker.text = d->str + a;
		return 0;
	case TRACE_REC_SAMPLE_COST: {
		const uint8_t *end;
		if (get_v(d, &v) || v > (uint64_t)(d->end - d->p))
			return -EBADMSG;
		end = d->p + v;
		/* Fields a later minor version may append are skipped. */
		if (get_v(d, &rec->u.sample_cost.cost_ns) || get_v(d, &rec->u.sample_cost.lag_ns) ||
		    d->p > end)
			return -EBADMSG;
		rec->u.sample_cost.delivery_ns = TRACE_UNKNOWN;
		if (d->p < end && (get_v(d, &rec->u.sample_cost.delivery_ns) || d->p > end))
			return -EBADMSG;
		d->p = end;
		return 0;
	}
	case TRACE_REC_PAUSE: {
		const uint8_t *end;
		if (get_v(d, &v) || v > (uint64_t)(d->end - d->p))
			return -EBADMSG;
		end = d->p + v;
		if (get_v(d, &rec->u.pause.pause_ns) || d->p > end)
			return -EBADMSG;
		d->p = end; /* fields a later minor version may append */
		return 0;
	}
	case TRACE_REC_HOOK_COST: {
		const uint8_t *end;
		uint64_t what;
		if (get_v(d, &v) || v > (uint64_t)(d->end - d->p))
			return -EBADMSG;
		end = d->p + v;
		rec->u.hook_cost.after_ticks = rec->u.hook_cost.before_ticks = TRACE_UNKNOWN;
		if (get_v(d, &what) || (what & 1 && get_v(d, &rec->u.hook_cost.after_ticks)) ||
		    (what & 2 && get_v(d, &rec->u.hook_cost.before_ticks)) || d->p > end)
			return -EBADMSG;
		/* a measured value is a tick count, never the "unknown" marker */
		if (rec->u.hook_cost.after_ticks == TRACE_UNKNOWN && what & 1)
			return -EBADMSG;
		if (rec->u.hook_cost.before_ticks == TRACE_UNKNOWN && what & 2)
			return -EBADMSG;
		d->p = end; /* fields a later minor version may append */
		return 0;
	}
	default:
		if (kind >= TRACE_REC_EXTENDED_FIRST && kind <= TRACE_REC_EXTENDED_LAST) {
			if (get_v(d, &v) || v > (uint64_t)(d->end - d->p))
				return -EBADMSG;
			rec->u.extended.body = d->p;
			rec->u.extended.len = v;
			d->p += v;
			if (stats)
				stats->records_unknown++;
			return 0;
		}
		return -EBADMSG;
	}
}

int trace_decoder_next(trace_decoder *d, trace_record *rec, trace_read_stats *stats)
{
	if (d->failed || d->p >= d->end)
		return 0;
	int rc = decode_one(d, rec, stats);
	if (rc) {
		d->failed = 1;
		if (stats)
			stats->records_damaged++;
		return rc == -ENOMEM ? -ENOMEM : -EBADMSG;
	}
	if (stats)
		stats->records++;
	return 1;
}

/* ------------------------------------------------------------------------ */
/* file reader                                                              */

struct trace_reader {
	char *path;
	int fd;
	uint64_t pos; /* file offset of the next unread byte */
	unsigned major, minor;
	trace_diag_fn diag;
	void *diag_arg;
	trace_read_stats stats;
	uint8_t *cbuf, *rbuf;
	size_t cbuf_cap, rbuf_cap;
	z_stream zs;
	int zs_ready;
	ZSTD_DCtx *zd; /* created at the first zstd chunk */
	/* expected next sequence number per stream: an open-addressing table
	 * keyed by stream id (ids are any 32-bit value: never an index) */
	struct seq_slot {
		uint32_t stream, next;
		int used;
	} * seq;
	size_t seq_cap, seq_n;
	/* buffered reading */
	uint8_t *io;
	size_t io_cap, io_len, io_off; /* io holds file bytes [pos - io_off, pos - io_off + io_len) */
	uint64_t io_base;
	trace_decoder *dec;
	int in_chunk;
	uint64_t chunk_offset;
	/* the live file: 0 not looked for yet, 1 read (live_next: the next of
	 * its chunks), 2 none or done */
	int live_state;
	trace_live live;
	size_t live_next;
};

void trace_diag_stderr(void *arg, const char *message)
{
	(void)arg;
	fputs("fold: ", stderr);
	util_fput_term(stderr, message); /* paths and names from the trace */
	fputc('\n', stderr);
}

static void diag(trace_reader *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diag(trace_reader *r, const char *fmt, ...)
{
	char msg[512];
	int n = snprintf(msg, sizeof msg, "%s: ", r->path);
	va_list ap;
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof msg)
		vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
	va_end(ap);
	if (r->diag)
		r->diag(r->diag_arg, msg);
}

/* Reads exactly len bytes at absolute offset off; returns bytes read. */
static size_t read_at(trace_reader *r, uint64_t off, void *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = pread(r->fd, (char *)buf + got, len - got, (off_t)(off + got));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	return got;
}

int trace_reader_open(trace_reader **out, const char *path, trace_diag_fn diag_fn, void *diag_arg, char *msg,
                      size_t msg_len)
{
	int rc;
	uint8_t hdr[TRACE_FILE_HEADER_SIZE];
	struct stat st;
	trace_reader *r = calloc(1, sizeof *r);
	if (!r)
		return -ENOMEM;
	r->fd = -1;
	r->diag = diag_fn;
	r->diag_arg = diag_arg;
	r->path = strdup(path);
	r->dec = trace_decoder_new();
	if (!r->path || !r->dec) {
		rc = -ENOMEM;
		goto fail;
	}
	/* O_NONBLOCK: a FIFO or a device opens without waiting, and is refused
	 * below; a regular file reads as usual. */
	r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (r->fd < 0) {
		rc = -errno;
		if (msg)
			snprintf(msg, msg_len, "%s: cannot open: %s", path, strerror(errno));
		goto fail;
	}
	if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		rc = -EINVAL;
		if (msg)
			snprintf(msg, msg_len, "%s is not a regular file: expected a fold trace file", path);
		goto fail;
	}
	r->stats.file_bytes = (uint64_t)st.st_size;
	if (r->stats.file_bytes == 0) {
		rc = -ENODATA;
		if (msg)
			snprintf(
			    msg, msg_len,
			    "%s is empty (0 bytes): expected a fold trace; the run that wrote it recorded "
			    "nothing (a full disk, or a run killed at its start?)",
			    path);
		goto fail;
	}
	if (read_at(r, 0, hdr, sizeof hdr) != sizeof hdr) {
		rc = -EPROTO;
		if (msg)
			snprintf(msg, msg_len, "%s: not a fold trace (shorter than the %d-byte file header)",
			         path, TRACE_FILE_HEADER_SIZE);
		goto fail;
	}
	rc = trace_file_header_decode(hdr, &r->major, &r->minor);
	if (rc == -EPROTONOSUPPORT) {
		if (msg)
			snprintf(msg, msg_len,
			         "%s: written by a newer fold (trace format %u.%u); this fold reads formats "
			         "up to %d.x",
			         path, r->major, r->minor, TRACE_VERSION_MAJOR);
		goto fail;
	}
	if (rc && !memcmp(hdr, TRACE_LIVE_MAGIC, 8)) {
		if (msg)
			snprintf(msg, msg_len,
			         "%s is the live file of a trace, not a trace: give the trace (its name without "
			         "\"%s\"), which fold reads together with it",
			         path, TRACE_LIVE_SUFFIX);
		goto fail;
	}
	if (rc) {
		if (msg)
			snprintf(msg, msg_len, "%s: not a fold trace (expected the magic \"%s\" at offset 0)",
			         path, TRACE_FILE_MAGIC);
		goto fail;
	}
	if (inflateInit2(&r->zs, -15) != Z_OK) {
		rc = -ENOMEM;
		goto fail;
	}
	r->zs_ready = 1;
	r->pos = TRACE_FILE_HEADER_SIZE;
	*out = r;
	return 0;
fail:
	trace_reader_close(r);
	return rc;
}

void trace_reader_close(trace_reader *r)
{
	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	if (r->zs_ready)
		inflateEnd(&r->zs);
	ZSTD_freeDCtx(r->zd);
	trace_decoder_free(r->dec);
	free(r->path);
	free(r->cbuf);
	free(r->rbuf);
	free(r->seq);
	free(r->io);
	trace_live_free(&r->live);
	free(r);
}

unsigned trace_reader_version_major(const trace_reader *r)
{
	return r->major;
}
unsigned trace_reader_version_minor(const trace_reader *r)
{
	return r->minor;
}
const char *trace_reader_path(const trace_reader *r)
{
	return r->path;
}
const trace_read_stats *trace_reader_stats(const trace_reader *r)
{
	return &r->stats;
}

void trace_reader_add_decoded(trace_reader *r, const trace_read_stats *decoded)
{
	r->stats.records += decoded->records;
	r->stats.records_unknown += decoded->records_unknown;
	r->stats.records_damaged += decoded->records_damaged;
	r->stats.samples_without_stack_def += decoded->samples_without_stack_def;
}

int trace_reader_rewind(trace_reader *r)
{
	r->pos = TRACE_FILE_HEADER_SIZE;
	uint64_t fb = r->stats.file_bytes;
	memset(&r->stats, 0, sizeof r->stats);
	r->stats.file_bytes = fb;
	free(r->seq);
	r->seq = NULL;
	r->seq_cap = r->seq_n = 0;
	r->in_chunk = 0;
	r->live_next = 0;
	if (r->live_state == 2 && r->live.n)
		r->live_state = 1;
	return 0;
}

/* Finds the next chunk magic at or after off whose header checks out.
 * Returns its offset, or the file size when there is none. */
static uint64_t resync(trace_reader *r, uint64_t off)
{
	uint8_t buf[65536 + TRACE_CHUNK_HEADER_SIZE];
	while (off < r->stats.file_bytes) {
		size_t n = read_at(r, off, buf, sizeof buf);
		if (n < TRACE_CHUNK_HEADER_SIZE)
			break;
		for (size_t i = 0; i + TRACE_CHUNK_HEADER_SIZE <= n; i++) {
			if (buf[i] != 'F' || buf[i + 1] != 'C' || buf[i + 2] != 'H' || buf[i + 3] != 'K')
				continue;
			trace_chunk_header h;
			if (trace_chunk_header_decode(buf + i, &h) == 0)
				return off + i;
		}
		off += n - TRACE_CHUNK_HEADER_SIZE + 1;
	}
	return r->stats.file_bytes;
}

static size_t seq_home(uint32_t stream, size_t cap)
{
	return (size_t)util_hash_mix(stream, 0) & (cap - 1);
}

/* The slot of stream, added (expecting sequence 0) when new; NULL when
 * memory runs out. At most half full. */
static struct seq_slot *seq_slot(trace_reader *r, uint32_t stream)
{
	if (2 * (r->seq_n + 1) > r->seq_cap) {
		size_t cap = r->seq_cap ? 2 * r->seq_cap : 64;
		struct seq_slot *ns = calloc(cap, sizeof *ns);
		if (!ns)
			return NULL;
		for (size_t i = 0; i < r->seq_cap; i++) {
			if (!r->seq[i].used)
				continue;
			size_t j = seq_home(r->seq[i].stream, cap);
			while (ns[j].used)
				j = (j + 1) & (cap - 1);
			ns[j] = r->seq[i];
		}
		free(r->seq);
		r->seq = ns;
		r->seq_cap = cap;
	}
	size_t j = seq_home(stream, r->seq_cap);
	while (r->seq[j].used && r->seq[j].stream != stream)
		j = (j + 1) & (r->seq_cap - 1);
	if (!r->seq[j].used) {
		r->seq[j] = (struct seq_slot){stream, 0, 1};
		r->seq_n++;
	}
	return &r->seq[j];
}

static void track_seq(trace_reader *r, const trace_chunk_header *h)
{
	struct seq_slot *sl = seq_slot(r, h->stream);
	if (!sl)
		return; /* without memory, gaps go uncounted; the records still read */
	uint32_t expect = sl->next;
	if (h->seq > expect) {
		r->stats.chunks_missing += h->seq - expect;
		diag(r, "stream %u: %u chunk(s) missing before offset %llu (sequence %u, expected %u)",
		     h->stream, h->seq - expect, (unsigned long long)r->pos, h->seq, expect);
	}
	if (h->seq >= expect)
		sl->next = h->seq + 1;
}

/* After the file's chunks: the live file's, of each stream those beyond the
 * file's (trace_live.h). 1 with *chunk, or 0 at the end. */
static int live_next_chunk(trace_reader *r, trace_raw_chunk *chunk)
{
	if (r->live_state == 0) {
		char msg[512];
		int rc = trace_live_load(r->path, &r->live, msg, sizeof msg);
		if (rc && rc != -ENOENT && msg[0])
			diag(r, "%s", msg);
		r->live_state = rc ? 2 : 1;
	}
	while (r->live_state == 1 && r->live_next < r->live.n) {
		const trace_live_chunk *c = &r->live.chunks[r->live_next++];
		struct seq_slot *sl = seq_slot(r, c->stream);
		if (sl && c->seq < sl->next)
			continue; /* the file has it */
		if (util_grow((void **)&r->rbuf, &r->rbuf_cap, c->len, 1))
			return -ENOMEM;
		memcpy(r->rbuf, c->data, c->len);
		memset(&chunk->hdr, 0, sizeof chunk->hdr);
		chunk->hdr.stream = c->stream;
		chunk->hdr.seq = c->seq;
		chunk->hdr.raw_len = chunk->hdr.payload_len = c->len;
		track_seq(r, &chunk->hdr);
		chunk->offset = r->stats.file_bytes;
		chunk->raw = r->rbuf;
		chunk->raw_len = c->len;
		r->stats.chunks_recovered++;
		r->stats.bytes_recovered += c->len;
		return 1;
	}
	if (r->live_state == 1) {
		r->live_state = 2;
		if (r->stats.chunks_recovered)
			diag(r,
			     "the process (pid %llu) ended without fold's final flush (killed, or an exit "
			     "through the exit_group system call): %llu chunk(s), %llu bytes, recovered from "
			     "%s%s",
			     (unsigned long long)r->live.pid, (unsigned long long)r->stats.chunks_recovered,
			     (unsigned long long)r->stats.bytes_recovered, r->path, TRACE_LIVE_SUFFIX);
	}
	return 0;
}

int trace_reader_next_chunk(trace_reader *r, trace_raw_chunk *chunk)
{
	for (;;) {
		uint64_t off = r->pos;
		if (off >= r->stats.file_bytes)
			return live_next_chunk(r, chunk);
		uint8_t hb[TRACE_CHUNK_HEADER_SIZE];
		size_t got = read_at(r, off, hb, sizeof hb);
		trace_chunk_header h;
		const char *why = NULL;
		if (got < sizeof hb) {
			r->stats.truncated = 1;
			r->stats.bytes_skipped += r->stats.file_bytes - off;
			diag(r,
			     "truncated: the file ends inside a chunk header at offset %llu (%zu trailing "
			     "bytes lost)",
			     (unsigned long long)off, got);
			r->pos = r->stats.file_bytes;
			return live_next_chunk(r, chunk);
		}
		if (trace_chunk_header_decode(hb, &h)) {
			why = "bad chunk header";
		} else if (h.payload_len > r->stats.file_bytes - off - TRACE_CHUNK_HEADER_SIZE) {
			r->stats.truncated = 1;
			r->stats.chunks_damaged++;
			r->stats.bytes_skipped += r->stats.file_bytes - off;
			diag(r,
			     "truncated: the file ends inside the chunk at offset %llu (stream %u, %u of %u "
			     "payload bytes "
			     "present); that chunk is lost",
			     (unsigned long long)off, h.stream,
			     (unsigned)(r->stats.file_bytes - off - sizeof hb), h.payload_len);
			r->pos = r->stats.file_bytes;
			return live_next_chunk(r, chunk);
		} else if (h.raw_len > TRACE_CHUNK_MAX_RAW || h.payload_len > TRACE_CHUNK_MAX_RAW ||
		           (!(h.flags & (TRACE_CHUNK_FLAG_ZLIB | TRACE_CHUNK_FLAG_ZSTD)) &&
		            h.payload_len != h.raw_len) ||
		           (h.flags & TRACE_CHUNK_FLAG_ZLIB && h.flags & TRACE_CHUNK_FLAG_ZSTD)) {
			why = "impossible chunk length";
		}
		if (!why) {
			if (util_grow((void **)&r->cbuf, &r->cbuf_cap, h.payload_len ? h.payload_len : 1,
			              1) ||
			    util_grow((void **)&r->rbuf, &r->rbuf_cap, h.raw_len ? h.raw_len : 1, 1))
				return -ENOMEM;
			if (read_at(r, off + sizeof hb, r->cbuf, h.payload_len) != h.payload_len)
				why = "short read";
			else if ((uint32_t)crc32(0, r->cbuf, (uInt)h.payload_len) != h.payload_crc)
				why = "payload checksum mismatch";
		}
		if (!why && (h.flags & TRACE_CHUNK_FLAG_ZLIB)) {
			inflateReset(&r->zs);
			r->zs.next_in = r->cbuf;
			r->zs.avail_in = h.payload_len;
			r->zs.next_out = r->rbuf;
			r->zs.avail_out = h.raw_len;
			int zrc = inflate(&r->zs, Z_FINISH);
			if (zrc != Z_STREAM_END || r->zs.avail_out != 0)
				why = "payload does not decompress to its stated size";
		} else if (!why && (h.flags & TRACE_CHUNK_FLAG_ZSTD)) {
			if (!r->zd && !(r->zd = ZSTD_createDCtx()))
				return -ENOMEM;
			size_t out = ZSTD_decompressDCtx(r->zd, r->rbuf, h.raw_len, r->cbuf, h.payload_len);
			if (ZSTD_isError(out) || out != h.raw_len)
				why = "payload does not decompress to its stated size";
		} else if (!why) {
			memcpy(r->rbuf, r->cbuf, h.payload_len);
		}
		if (why) {
			uint64_t next = resync(r, off + 1);
			r->stats.chunks_damaged++;
			r->stats.bytes_skipped += next - off;
			diag(r, "damaged chunk at offset %llu (%s); skipped %llu bytes to offset %llu",
			     (unsigned long long)off, why, (unsigned long long)(next - off),
			     (unsigned long long)next);
			r->pos = next;
			continue;
		}
		r->pos = off + sizeof hb + h.payload_len;
		r->stats.chunks_ok++;
		track_seq(r, &h);
		chunk->hdr = h;
		chunk->offset = off;
		chunk->raw = r->rbuf;
		chunk->raw_len = h.raw_len;
		return 1;
	}
}

int trace_reader_next(trace_reader *r, trace_record *rec)
{
	for (;;) {
		if (r->in_chunk) {
			int rc = trace_decoder_next(r->dec, rec, &r->stats);
			if (rc == 1)
				return 1;
			r->in_chunk = 0;
			if (rc == -ENOMEM)
				return rc;
			if (rc < 0)
				diag(r,
				     "chunk at offset %llu: malformed record; the rest of that chunk is lost",
				     (unsigned long long)r->chunk_offset);
		}
		trace_raw_chunk c;
		int rc = trace_reader_next_chunk(r, &c);
		if (rc <= 0)
			return rc;
		trace_decoder_reset(r->dec, c.hdr.stream, c.raw, c.raw_len);
		r->chunk_offset = c.offset;
		r->in_chunk = 1;
	}
}

int trace_reader_loss_summary(const trace_reader *r, char *buf, size_t len)
{
	const trace_read_stats *s = &r->stats;
	if (!s->chunks_damaged && !s->chunks_missing && !s->bytes_skipped && !s->records_damaged &&
	    !s->truncated) {
		if (len)
			buf[0] = 0;
		return 0;
	}
	uint64_t good = s->file_bytes > s->bytes_skipped ? s->file_bytes - s->bytes_skipped : 0;
	snprintf(buf, len,
	         "%s: salvaged %llu of %llu bytes (%.1f%%): %llu damaged chunk(s), %llu missing chunk(s), "
	         "%llu chunk(s) cut short by a bad record%s",
	         r->path, (unsigned long long)good, (unsigned long long)s->file_bytes,
	         s->file_bytes ? 100.0 * (double)good / (double)s->file_bytes : 0.0,
	         (unsigned long long)s->chunks_damaged, (unsigned long long)s->chunks_missing,
	         (unsigned long long)s->records_damaged, s->truncated ? ", file truncated" : "");
	return 1;
}
