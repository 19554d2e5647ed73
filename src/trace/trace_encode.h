/* trace_encode.h: record encoder for one stream's current chunk.
 *
 * Owns the byte-level encoding of records into a caller-provided buffer.
 * Async-signal-safe: no allocation, no locks, no libc calls except memcpy.
 * The runtime's sample handler calls trace_enc_sample() directly.
 *
 * Invariants:
 *  - Every trace_enc_* call either appends one whole record and returns 0, or
 *    leaves the buffer untouched and returns -ENOSPC (the caller then seals
 *    the chunk, calls trace_enc_begin() on a fresh buffer and retries).
 *  - trace_enc_begin() resets all chunk-local state (previous tick, previous
 *    counter values, stack table) and, if a counter set is active, re-emits
 *    it first, so each chunk decodes on its own.
 */
#ifndef FOLD_TRACE_ENCODE_H
#define FOLD_TRACE_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "trace_format.h"

/* Chunk-local stack deduplication table: open addressing over a power-of-two
 * number of slots, frames kept in a flat arena. Memory is the caller's. */
#define TRACE_STACK_SLOTS 1024u
#define TRACE_STACK_ARENA_FRAMES 16384u

typedef struct trace_stack_table {
	uint32_t epoch; /* slots whose epoch differs are empty */
	uint32_t next_ref;
	uint32_t arena_used;
	struct {
		uint32_t epoch;
		uint32_t hash;
		uint32_t ref;
		uint32_t depth;
		uint32_t arena_off;
	} slot[TRACE_STACK_SLOTS];
	uint64_t arena[TRACE_STACK_ARENA_FRAMES];
} trace_stack_table;

typedef struct trace_enc {
	uint8_t *base;
	uint8_t *pos;
	uint8_t *end;
	uint64_t last_tick;
	uint32_t nctr;
	uint32_t ctr_ids[TRACE_MAX_COUNTERS];
	uint64_t last_ctr[TRACE_MAX_COUNTERS];
	trace_stack_table *stacks; /* may be NULL: every sample then defines its stack */
	uint32_t *published;       /* trace_enc_publish; NULL: none */
} trace_enc;

void trace_enc_init(trace_enc *enc, trace_stack_table *stacks);
/* Start a new chunk in buf[0..cap). Re-emits the active counter set. */
int trace_enc_begin(trace_enc *enc, void *buf, size_t cap);
static inline size_t trace_enc_len(const trace_enc *enc) { return (size_t)(enc->pos - enc->base); }
/* Where the encoder stores the chunk's length after every whole record
 * (release order: the record's bytes come first), until the next
 * trace_enc_begin; NULL for nowhere. For memory a reader may find after
 * the writer is gone (libfold's live file: docs/trace-format.md). */
void trace_enc_publish(trace_enc *enc, uint32_t *len);

/* Process-stream records. */
int trace_enc_info(trace_enc *enc, const char *key, const char *value);
int trace_enc_clock(trace_enc *enc, uint64_t tick, uint64_t mono_ns, uint64_t real_ns);
int trace_enc_counter_def(trace_enc *enc, uint32_t id, unsigned kind, const char *name);
int trace_enc_counter_missing(trace_enc *enc, const char *name, const char *reason);
int trace_enc_region_def(trace_enc *enc, uint32_t id, unsigned kind, uint64_t address, const char *name);
typedef struct trace_segment {
	uint64_t vaddr;
	uint64_t memsz;
	uint8_t prot; /* PF_X=1, PF_W=2, PF_R=4 as in ELF */
} trace_segment;
int trace_enc_module_load(trace_enc *enc, uint32_t id, uint64_t tick, uint64_t load_bias,
                          const uint8_t *build_id, size_t build_id_len, const char *path,
                          const trace_segment *segs, unsigned nseg);
int trace_enc_module_unload(trace_enc *enc, uint32_t id, uint64_t tick);
int trace_enc_stat(trace_enc *enc, const char *key, uint64_t value);
int trace_enc_throttle(trace_enc *enc, uint32_t region, uint64_t tick, uint64_t calls, uint64_t mean_ns);

/* Thread-stream records. Counter arrays hold enc->nctr cumulative values. */
int trace_enc_thread_start(trace_enc *enc, uint64_t os_tid, uint32_t parent_stream, uint64_t tick,
                           const char *name);
int trace_enc_thread_end(trace_enc *enc, uint64_t tick);
/* Changes the active counter set (emitted now and at every later chunk start). */
int trace_enc_counter_set(trace_enc *enc, const uint32_t *ids, unsigned n);
int trace_enc_enter(trace_enc *enc, uint64_t tick, uint32_t region, const uint64_t *ctr);
int trace_enc_exit(trace_enc *enc, uint64_t tick, uint32_t region, const uint64_t *ctr);
int trace_enc_sample(trace_enc *enc, uint64_t tick, const uint64_t *frames, unsigned depth,
                     uint64_t cpu_ns, const uint64_t *ctr);
/* What the sample just encoded cost the program: cost_ns from the
 * handler's entry to its exit, lag_ns from the entry to the sample's
 * timestamp, delivery_ns from the timer's deadline to the entry
 * (TRACE_UNKNOWN: not measured, not written). An extended record (format
 * 1.1; delivery_ns since 1.2): older readers skip it, or its last field. */
int trace_enc_sample_cost(trace_enc *enc, uint64_t cost_ns, uint64_t lag_ns, uint64_t delivery_ns);
int trace_enc_marker(trace_enc *enc, uint64_t tick, const char *text);
/* A stop of the thread by the runtime itself right after the preceding
 * record (sealing a full chunk, the periodic flush: deflating and writing
 * trace data), pause_ns long. An extended record (format 1.3): older
 * readers skip it. */
int trace_enc_pause(trace_enc *enc, uint64_t pause_ns);
/* What the compiler hook of the preceding record (an enter or exit) took,
 * in clock ticks, measured by the runtime: after_ticks from its timestamp
 * to its end, before_ticks from its start to the timestamp (TRACE_UNKNOWN:
 * not measured, not written). An extended record (format 1.5): older
 * readers skip it. */
int trace_enc_hook_cost(trace_enc *enc, uint64_t after_ticks, uint64_t before_ticks);

/* Varint primitives, shared with the decoder. */
static inline uint64_t trace_zigzag(int64_t v) { return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63); }
static inline int64_t trace_unzigzag(uint64_t v) { return (int64_t)(v >> 1) ^ -(int64_t)(v & 1); }

#endif
