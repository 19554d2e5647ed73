/* trace_reader.h: streaming reader for fold trace files.
 *
 * Owns reading a trace file chunk by chunk and decoding records. Memory is
 * bounded by the largest chunk (TRACE_CHUNK_MAX_RAW), not by the file size.
 *
 * Invariants:
 *  - Damage never stops the reader: a chunk with a bad header, checksum,
 *    length or undecodable payload is reported through the diagnostic
 *    callback (one line, naming the file and the byte offset), skipped, and
 *    the reader resynchronises on the next chunk magic. Records decoded from a
 *    chunk before a parse error inside it are kept.
 *  - Everything lost is counted in trace_read_stats, so the caller can say how
 *    much of the file was salvaged.
 *  - After the file's last chunk come the chunks of its live file, when the
 *    process left one (it ended without fold's final flush: exit_group,
 *    SIGKILL), each stream's beyond those the file holds, in order; they
 *    are counted (chunks_recovered) and said once (trace_live.h).
 *  - Pointers inside a trace_record stay valid until the next call on the
 *    reader (or decoder) that produced it.
 */
#ifndef FOLD_TRACE_READER_H
#define FOLD_TRACE_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "trace_chunk.h"
#include "trace_encode.h"
#include "trace_format.h"

typedef struct trace_record {
	uint32_t stream;
	uint32_t kind; /* enum trace_record_kind, or an unknown extended kind */
	uint64_t tick; /* absolute, for timed records (enter/exit/sample/marker/thread/clock/module) */
	union {
		struct { const char *key, *value; } info;
		struct { uint64_t mono_ns, real_ns; } clock;
		struct { uint32_t id; unsigned kind; const char *name; } counter_def;
		struct { const char *name, *reason; } counter_missing;
		struct { uint32_t id; unsigned kind; uint64_t address; const char *name; } region_def;
		struct {
			uint32_t id;
			uint64_t load_bias;
			const uint8_t *build_id;
			size_t build_id_len;
			const char *path;
			unsigned nseg;
			const trace_segment *segs;
		} module_load;
		struct { uint32_t id; } module_unload;
		struct { const char *key; uint64_t value; } stat;
		struct { uint32_t region; uint64_t calls, mean_ns; } throttle;
		struct { uint64_t os_tid; uint32_t parent_stream; const char *name; } thread_start;
		struct { unsigned n; const uint32_t *ids; } counter_set;
		struct {
			uint32_t region;
			unsigned nctr; /* 0 when the event carries no counters */
			const uint32_t *ctr_ids;
			const uint64_t *ctr;
		} region;
		struct {
			uint32_t stack_ref; /* chunk-local; 0 = no stack */
			unsigned depth;
			const uint64_t *frames; /* innermost first */
			uint64_t cpu_ns;
			unsigned nctr;
			const uint32_t *ctr_ids;
			const uint64_t *ctr;
		} sample;
		struct { uint32_t stack_ref; unsigned depth; const uint64_t *frames; } stack_def;
		struct { const char *text; } marker;
		/* of the stream's preceding sample; delivery_ns TRACE_UNKNOWN when
		 * the record has none (format 1.1, or not a wall-clock timer) */
		struct { uint64_t cost_ns, lag_ns, delivery_ns; } sample_cost;
		struct { uint64_t pause_ns; } pause; /* of the stream, after its preceding record */
		/* the hook of the stream's preceding record (enter or exit);
		 * TRACE_UNKNOWN: not measured */
		struct {
			uint64_t after_ticks, before_ticks;
		} hook_cost;
		struct { const uint8_t *body; size_t len; } extended;
	} u;
} trace_record;

typedef struct trace_read_stats {
	uint64_t file_bytes;
	uint64_t chunks_ok;
	uint64_t chunks_damaged;   /* bad header, checksum, length or payload */
	uint64_t chunks_missing;   /* sequence gaps within a stream */
	uint64_t bytes_skipped;    /* bytes not part of an intact chunk */
	uint64_t records;
	uint64_t records_unknown;  /* extended kinds this reader does not know */
	uint64_t records_damaged;  /* chunks whose record stream ended in a parse error */
	uint64_t samples_without_stack_def; /* sample referenced an undefined stack */
	int truncated;             /* the file ended inside a chunk */
	/* chunks taken from the live file the process left behind (it ended
	 * without fold's final flush: trace_live.h), after the file's own */
	uint64_t chunks_recovered;
	uint64_t bytes_recovered;
} trace_read_stats;

typedef void (*trace_diag_fn)(void *arg, const char *message);

/* --- chunk decoder: records of one decompressed chunk --- */
typedef struct trace_decoder trace_decoder;
trace_decoder *trace_decoder_new(void);
void trace_decoder_free(trace_decoder *d);
/* Starts decoding a raw chunk payload (not copied: keep it alive). */
void trace_decoder_reset(trace_decoder *d, uint32_t stream, const uint8_t *raw, size_t len);
/* 1 = record decoded, 0 = end of chunk, -EBADMSG = malformed (rest of the chunk is lost). */
int trace_decoder_next(trace_decoder *d, trace_record *rec, trace_read_stats *stats);

/* --- file reader --- */
typedef struct trace_reader trace_reader;

typedef struct trace_raw_chunk {
	trace_chunk_header hdr;
	uint64_t offset;     /* of the chunk header in the file */
	const uint8_t *raw;  /* decompressed payload */
	size_t raw_len;
} trace_raw_chunk;

/* Opens path. On failure returns a negative errno and, when msg is given,
 * writes a one-line explanation (not a trace file, newer version, ...). */
int trace_reader_open(trace_reader **out, const char *path, trace_diag_fn diag, void *diag_arg,
                      char *msg, size_t msg_len);
void trace_reader_close(trace_reader *r);
unsigned trace_reader_version_major(const trace_reader *r);
unsigned trace_reader_version_minor(const trace_reader *r);
const char *trace_reader_path(const trace_reader *r);
/* Next intact chunk, decompressed: 1, or 0 at the end of the file. */
int trace_reader_next_chunk(trace_reader *r, trace_raw_chunk *chunk);
/* Next record across chunks in file order: 1, or 0 at the end of the file. */
int trace_reader_next(trace_reader *r, trace_record *rec);
/* Rewinds to the first chunk; statistics restart. */
int trace_reader_rewind(trace_reader *r);
const trace_read_stats *trace_reader_stats(const trace_reader *r);
/* Adds the record counts of a caller's own trace_decoder (records,
 * records_unknown, records_damaged, samples_without_stack_def) to the
 * reader's statistics, for callers that decode the chunks of
 * trace_reader_next_chunk() themselves (e.g. on another thread), so
 * trace_reader_loss_summary() still counts damaged records. */
void trace_reader_add_decoded(trace_reader *r, const trace_read_stats *decoded);
/* Writes the one-line salvage summary ("read N of M bytes ...") if anything
 * was lost; returns 1 if something was lost, 0 if the file was intact. */
int trace_reader_loss_summary(const trace_reader *r, char *buf, size_t len);

/* Default diagnostic: "fold: <message>" on stderr. */
void trace_diag_stderr(void *arg, const char *message);

#endif
