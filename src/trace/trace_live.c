/* trace_live.c: the live file a process left next to its trace.
 *
 * libfold keeps its chunk buffers in TRACE.live while the process runs and
 * removes the file after the final flush (trace_format.h, rt_pool.c). A
 * file that is still there belongs to a process that ended without that
 * flush (exit_group, SIGKILL, the OOM killer, a strict seccomp): its slots
 * hold the chunks it had not written, whole records up to each slot's
 * published length.
 *
 * Invariants:
 *  - The file is untrusted input: only a regular file is opened (never a
 *    FIFO or a device), every field of its header is checked against the
 *    file's size before a slot is read, and a slot's length is bounded by
 *    what a slot holds. A file that fails a check is reported and ignored.
 *  - Chunks come sorted by (stream, sequence number); of two slots with
 *    the same pair, the longer is kept (a slot being written after a
 *    sealed copy of the same chunk cannot be, but a damaged file can).
 *  - The file is mapped read-only; nothing is copied.
 */
#define _GNU_SOURCE
#include "trace_live.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_format.h"

static int cmp_chunk(const void *a, const void *b)
{
	const trace_live_chunk *x = a, *y = b;
	if (x->stream != y->stream)
		return x->stream < y->stream ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return x->len > y->len ? -1 : x->len < y->len; /* the longer first */
}

static int bad(char *msg, size_t len, const char *path, const char *what)
{
	if (msg && len)
		snprintf(msg, len, "%s: not a live file of fold's (%s); ignored", path, what);
	return -EINVAL;
}

/* Checks the header against the file's size; 0 or -EINVAL with msg. */
static int check_header(const trace_live_header *h, size_t size, const char *path, char *msg, size_t len)
{
	if (memcmp(h->magic, TRACE_LIVE_MAGIC, sizeof h->magic))
		return bad(msg, len, path, "no FOLDLIV1 header");
	if (h->version != 1)
		return bad(msg, len, path, "a version this fold does not read");
	if (h->data_offset < sizeof(trace_live_slot) || h->data_cap == 0 || h->data_cap > TRACE_CHUNK_MAX_RAW ||
	    h->slot_bytes < (uint64_t)h->data_offset + h->data_cap || h->slot_bytes > (32u << 20))
		return bad(msg, len, path, "slot layout out of bounds");
	if (h->nslots > (size - TRACE_LIVE_HEADER_BYTES) / h->slot_bytes)
		return bad(msg, len, path, "more slots than the file holds");
	return 0;
}

int trace_live_load(const char *trace_path, trace_live *out, char *msg, size_t msg_len)
{
	memset(out, 0, sizeof *out);
	if (msg && msg_len)
		msg[0] = 0;
	char path[4096];
	if ((size_t)snprintf(path, sizeof path, "%s%s", trace_path, TRACE_LIVE_SUFFIX) >= sizeof path)
		return -ENAMETOOLONG;
	/* O_NONBLOCK: a FIFO planted at the name never blocks the open */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = 0;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode)) {
		rc = bad(msg, msg_len, path, "not a regular file");
		goto out;
	}
	if ((uint64_t)st.st_size < TRACE_LIVE_HEADER_BYTES) {
		rc = bad(msg, msg_len, path, "shorter than its header");
		goto out;
	}
	size_t size = (size_t)st.st_size;
	uint8_t *map = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		rc = -errno;
		goto out;
	}
	trace_live_header h;
	memcpy(&h, map, sizeof h);
	rc = check_header(&h, size, path, msg, msg_len);
	if (rc) {
		munmap(map, size);
		goto out;
	}
	trace_live_chunk *chunks = h.nslots ? calloc(h.nslots, sizeof *chunks) : NULL;
	if (h.nslots && !chunks) {
		munmap(map, size);
		rc = -ENOMEM;
		goto out;
	}
	size_t n = 0;
	for (uint32_t i = 0; i < h.nslots; i++) {
		const uint8_t *slot = map + TRACE_LIVE_HEADER_BYTES + (size_t)i * h.slot_bytes;
		trace_live_slot s;
		memcpy(&s, slot, sizeof s);
		if (s.state < TRACE_LIVE_CURRENT || s.state > TRACE_LIVE_WRITING || !s.len || s.len > h.data_cap)
			continue;
		chunks[n++] = (trace_live_chunk){s.stream, s.seq, s.len, slot + h.data_offset};
	}
	if (n)
		qsort(chunks, n, sizeof *chunks, cmp_chunk);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!k || chunks[i].stream != chunks[k - 1].stream || chunks[i].seq != chunks[k - 1].seq)
			chunks[k++] = chunks[i];
	out->map = map;
	out->map_size = size;
	out->chunks = chunks;
	out->n = k;
	out->pid = h.pid;
out:
	close(fd);
	return rc;
}

void trace_live_free(trace_live *l)
{
	if (l->map)
		munmap(l->map, l->map_size);
	free(l->chunks);
	memset(l, 0, sizeof *l);
}
