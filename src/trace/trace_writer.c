/* trace_writer.c: allocating trace file writer (see trace_writer.h). */
#define _GNU_SOURCE
#include "trace_writer.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_chunk.h"
#include "util.h"

typedef struct writer_stream {
	trace_enc enc;
	trace_stack_table *stacks;
	uint8_t *buf;
	uint32_t seq;
	int used;
} writer_stream;

struct trace_writer {
	int fd;
	size_t chunk_bytes;
	trace_chunk_writer cw;
	writer_stream *streams;
	size_t nstreams;
};

int trace_writer_open(trace_writer **out, const char *path, int flags, int zlib_level, size_t chunk_bytes)
{
	return trace_writer_open_codec(out, path, flags, TRACE_CODEC_ZLIB, zlib_level, chunk_bytes);
}

int trace_writer_open_codec(trace_writer **out, const char *path, int flags, enum trace_codec codec,
                            int level, size_t chunk_bytes)
{
	int rc;
	trace_writer *w = calloc(1, sizeof *w);
	if (!w)
		return -ENOMEM;
	w->chunk_bytes = chunk_bytes ? chunk_bytes : 65536;
	int oflags = O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC | ((flags & TRACE_WRITER_EXCL) ? O_EXCL : O_TRUNC);
	w->fd = open(path, oflags, 0644);
	if (w->fd < 0) {
		rc = -errno;
		goto fail_free;
	}
	rc = trace_chunk_writer_init(&w->cw, codec, level, w->chunk_bytes);
	if (rc)
		goto fail_close;
	rc = trace_file_write_header(w->fd);
	if (rc)
		goto fail_cw;
	*out = w;
	return 0;
fail_cw:
	trace_chunk_writer_destroy(&w->cw);
fail_close:
	close(w->fd);
fail_free:
	free(w);
	return rc;
}

trace_enc *trace_writer_enc(trace_writer *w, uint32_t stream)
{
	if (stream >= w->nstreams) {
		size_t old = w->nstreams;
		if (util_grow((void **)&w->streams, &w->nstreams, (size_t)stream + 1, sizeof *w->streams))
			return NULL;
		memset(w->streams + old, 0, (w->nstreams - old) * sizeof *w->streams);
	}
	writer_stream *s = &w->streams[stream];
	if (!s->used) {
		s->stacks = malloc(sizeof *s->stacks);
		s->buf = malloc(w->chunk_bytes);
		if (!s->stacks || !s->buf) {
			free(s->stacks);
			free(s->buf);
			s->stacks = NULL;
			s->buf = NULL;
			return NULL;
		}
		trace_enc_init(&s->enc, s->stacks);
		trace_enc_begin(&s->enc, s->buf, w->chunk_bytes);
		s->used = 1;
	}
	return &s->enc;
}

int trace_writer_seal(trace_writer *w, uint32_t stream)
{
	if (stream >= w->nstreams || !w->streams[stream].used)
		return 0;
	writer_stream *s = &w->streams[stream];
	size_t len = trace_enc_len(&s->enc);
	int rc = 0;
	if (len) {
		rc = trace_chunk_write(&w->cw, w->fd, stream, s->seq++, s->buf, len);
	}
	int brc = trace_enc_begin(&s->enc, s->buf, w->chunk_bytes);
	return rc ? rc : brc;
}

int trace_writer_close(trace_writer *w)
{
	int rc = 0;
	if (!w)
		return 0;
	for (size_t i = 0; i < w->nstreams; i++) {
		writer_stream *s = &w->streams[i];
		if (!s->used)
			continue;
		/* A chunk holding only the re-emitted counter set carries nothing. */
		if (trace_enc_len(&s->enc)) {
			int r = trace_chunk_write(&w->cw, w->fd, (uint32_t)i, s->seq++, s->buf, trace_enc_len(&s->enc));
			if (r && !rc)
				rc = r;
		}
		free(s->buf);
		free(s->stacks);
	}
	free(w->streams);
	trace_chunk_writer_destroy(&w->cw);
	if (close(w->fd) && !rc)
		rc = -errno;
	free(w);
	return rc;
}
