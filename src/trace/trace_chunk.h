/* trace_chunk.h: the container layer: file header and chunk framing.
 *
 * Owns how encoded record bytes become bytes on disk: optional compression
 * (zstd, or zlib), the 32-byte chunk header with checksums, and one writev()
 * per chunk on an O_APPEND descriptor, so several threads may write chunks
 * to one file without a lock and no chunk is ever interleaved with another.
 *
 * Invariants:
 *  - trace_chunk_writer_init() is the only allocating call; after it,
 *    trace_chunk_write() allocates nothing (deflateReset, not deflateInit;
 *    a static zstd context sized at init).
 *    trace_chunk_writer_init_alloc() takes its memory from the caller's
 *    allocator instead of malloc (the runtime's static arena, so even the
 *    set-up may run in a signal handler).
 *  - trace_chunk_write_raw() is async-signal-safe (crash path): no zlib.
 */
#ifndef FOLD_TRACE_CHUNK_H
#define FOLD_TRACE_CHUNK_H

#include <stddef.h>
#include <stdint.h>
#include <zlib.h>
#include <zstd.h>

#include "trace_format.h"

/* How chunks are compressed. zstd is the default: at level 1 it writes a
 * 64 KB chunk of fold's records in about 0.25 ms on the test VM, where zlib
 * takes 1 ms, and makes them smaller (0.475 against 0.53 of the raw size);
 * the thread that seals a chunk stops for that long (docs/regions.md,
 * "Trace writing"). */
enum trace_codec { TRACE_CODEC_NONE = 0, TRACE_CODEC_ZLIB = 1, TRACE_CODEC_ZSTD = 2 };

typedef struct trace_chunk_header {
	uint32_t magic;
	uint32_t stream;
	uint32_t seq; /* per-stream sequence number, from 0: a gap means lost chunks */
	uint16_t flags;
	uint16_t reserved;
	uint32_t raw_len;
	uint32_t payload_len;
	uint32_t payload_crc; /* crc32 of the payload as stored */
	uint32_t header_crc;  /* crc32 of the 28 bytes before it */
} trace_chunk_header;

typedef void *(*trace_alloc_fn)(void *opaque, size_t n);
typedef struct trace_chunk_writer {
	enum trace_codec codec;
	z_stream zs;
	ZSTD_CCtx *zc; /* in its own workspace (zc_mem), which the writer owns unless alloc */
	void *zc_mem;
	trace_alloc_fn alloc; /* NULL: malloc/free */
	void *alloc_opaque;
	int level; /* 0 = store raw */
	uint8_t *out;
	size_t out_cap;
	size_t max_raw;
} trace_chunk_writer;

/* Writes the 16-byte file header. */
int trace_file_write_header(int fd);
/* Encodes/decodes the file header; decode returns -EPROTO (not a trace),
 * -EPROTONOSUPPORT (newer major version) or 0, filling major/minor. */
void trace_file_header_encode(uint8_t out[TRACE_FILE_HEADER_SIZE]);
int trace_file_header_decode(const uint8_t in[TRACE_FILE_HEADER_SIZE], unsigned *major, unsigned *minor);

/* level: the codec's (zlib 1-9, zstd 1-19); 0 or TRACE_CODEC_NONE: store. */
int trace_chunk_writer_init(trace_chunk_writer *w, enum trace_codec codec, int level, size_t max_raw);
/* Same with memory from alloc (never freed: destroy just forgets it). */
int trace_chunk_writer_init_alloc(trace_chunk_writer *w, enum trace_codec codec, int level, size_t max_raw,
                                  trace_alloc_fn alloc, void *opaque);
void trace_chunk_writer_destroy(trace_chunk_writer *w);
/* Compresses raw[0..len) (len <= max_raw) and appends one chunk to fd. */
int trace_chunk_write(trace_chunk_writer *w, int fd, uint32_t stream, uint32_t seq, const void *raw,
                      size_t len);
/* Appends one uncompressed chunk. Async-signal-safe. */
int trace_chunk_write_raw(int fd, uint32_t stream, uint32_t seq, const void *raw, size_t len);

void trace_chunk_header_encode(const trace_chunk_header *h, uint8_t out[TRACE_CHUNK_HEADER_SIZE]);
/* Returns 0 if magic and header crc are valid, -EBADMSG otherwise. */
int trace_chunk_header_decode(const uint8_t in[TRACE_CHUNK_HEADER_SIZE], trace_chunk_header *h);

/* crc32 that is async-signal-safe (zlib's crc32 is a pure function too, but
 * this keeps the crash path free of any library call). */
uint32_t trace_crc32(uint32_t crc, const void *buf, size_t len);

#endif
