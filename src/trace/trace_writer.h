/* trace_writer.h: a simple, allocating trace file writer.
 *
 * Owns one trace file and one encoder buffer per stream, sealing a stream's
 * chunk when it fills. For tools, tests and the synthetic trace generator;
 * the runtime (libfold.so) uses trace_encode.h and trace_chunk.h directly,
 * because its sample path must not allocate.
 *
 * Use TRACE_PUT(rc, writer, stream, trace_enc_xxx, args...) to append a
 * record: it seals and retries once when the current chunk is full.
 */
#ifndef FOLD_TRACE_WRITER_H
#define FOLD_TRACE_WRITER_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

#include "trace_chunk.h"
#include "trace_encode.h"

typedef struct trace_writer trace_writer;

#define TRACE_WRITER_EXCL 0x1 /* fail with -EEXIST instead of truncating */

int trace_writer_open(trace_writer **out, const char *path, int flags, int zlib_level, size_t chunk_bytes);
/* The same with chunks compressed by codec at level (trace_chunk.h). */
int trace_writer_open_codec(trace_writer **out, const char *path, int flags, enum trace_codec codec,
                            int level, size_t chunk_bytes);
/* The encoder of a stream (created on first use). NULL on allocation failure. */
trace_enc *trace_writer_enc(trace_writer *w, uint32_t stream);
/* Writes the stream's current chunk (if not empty) and starts a new one. */
int trace_writer_seal(trace_writer *w, uint32_t stream);
/* Seals every stream, closes the file and frees w. */
int trace_writer_close(trace_writer *w);

#define TRACE_PUT(rc, w, stream, fn, ...)                                                                    \
	do {                                                                                                 \
		trace_enc *trace_put_enc_ = trace_writer_enc((w), (stream));                                 \
		if (!trace_put_enc_) {                                                                       \
			(rc) = -ENOMEM;                                                                      \
			break;                                                                               \
		}                                                                                            \
		(rc) = fn(trace_put_enc_, __VA_ARGS__);                                                      \
		if ((rc) == -ENOSPC) {                                                                       \
			(rc) = trace_writer_seal((w), (stream));                                             \
			if (!(rc))                                                                           \
				(rc) = fn(trace_put_enc_, __VA_ARGS__);                                      \
		}                                                                                            \
	} while (0)

#endif
