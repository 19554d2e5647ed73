/* trace_live.h: reading the live file a process left next to its trace
 * (TRACE.live: trace_format.h, trace_live.c). */
#ifndef FOLD_TRACE_LIVE_H
#define FOLD_TRACE_LIVE_H

#include <stddef.h>
#include <stdint.h>

typedef struct trace_live_chunk {
	uint32_t stream, seq;
	uint32_t len;        /* bytes of whole records */
	const uint8_t *data; /* raw records (not compressed), inside the mapping */
} trace_live_chunk;

typedef struct trace_live {
	uint8_t *map;
	size_t map_size;
	trace_live_chunk *chunks; /* sorted by (stream, seq), one per pair */
	size_t n;
	uint64_t pid;
} trace_live;

/* Loads trace_path's live file when there is one: 0; -ENOENT when there is
 * none; another negative errno, with a one-line msg, for a file that is
 * not a live file of fold's (it is then ignored). */
int trace_live_load(const char *trace_path, trace_live *out, char *msg, size_t msg_len);
void trace_live_free(trace_live *l);

#endif
