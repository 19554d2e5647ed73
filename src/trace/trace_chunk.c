/* trace_chunk.c: file header and chunk framing (see trace_chunk.h). */
/* ZSTD_initStaticCCtx and its sizing, exported by libzstd.so but
 * declared only for static linking */
#define ZSTD_STATIC_LINKING_ONLY
#include "trace_chunk.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

static inline void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Table-free bitwise CRC-32 (IEEE, reflected), identical to zlib's crc32(). A
 * nibble table keeps it fast enough for the crash path, which is rare. */
static const uint32_t crc_nibble[16] = {
    0x00000000, 0x1db71064, 0x3b6e20c8, 0x26d930ac, 0x76dc4190, 0x6b6b51f4, 0x4db26158, 0x5005713c,
    0xedb88320, 0xf00f9344, 0xd6d6a3e8, 0xcb61b38c, 0x9b64c2b0, 0x86d3d2d4, 0xa00ae278, 0xbdbdf21c,
};

uint32_t trace_crc32(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	crc = ~crc;
	while (len--) {
		crc ^= *p++;
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
		crc = (crc >> 4) ^ crc_nibble[crc & 15];
	}
	return ~crc;
}

void trace_file_header_encode(uint8_t out[TRACE_FILE_HEADER_SIZE])
{
	memcpy(out, TRACE_FILE_MAGIC, 8);
	out[8] = TRACE_VERSION_MAJOR & 0xff;
	out[9] = TRACE_VERSION_MAJOR >> 8;
	out[10] = TRACE_VERSION_MINOR & 0xff;
	out[11] = TRACE_VERSION_MINOR >> 8;
	put32(out + 12, TRACE_FILE_FLAG_NONE);
}

int trace_file_header_decode(const uint8_t in[TRACE_FILE_HEADER_SIZE], unsigned *major, unsigned *minor)
{
	if (memcmp(in, TRACE_FILE_MAGIC, 7) != 0)
		return -EPROTO;
	*major = (unsigned)in[8] | (unsigned)in[9] << 8;
	*minor = (unsigned)in[10] | (unsigned)in[11] << 8;
	if (*major > TRACE_VERSION_MAJOR)
		return -EPROTONOSUPPORT;
	if (*major == 0)
		return -EPROTO;
	return 0;
}

/* libfold.so's copy (TRACE_NOCANCEL) writes through syscall(2), which is
 * no cancellation point: a pthread_cancel of the program's thread never
 * acts inside fold's write (src/runtime/rt_sys.h). */
#ifdef TRACE_NOCANCEL
#include <sys/syscall.h>
#define trace_writev(fd, iov, n) syscall(SYS_writev, (fd), (iov), (n))
#else
#define trace_writev writev
#endif

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = trace_writev(fd, iov, n);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

int trace_file_write_header(int fd)
{
	uint8_t hdr[TRACE_FILE_HEADER_SIZE];
	trace_file_header_encode(hdr);
	struct iovec iov = {hdr, sizeof hdr};
	return write_all(fd, &iov, 1);
}

void trace_chunk_header_encode(const trace_chunk_header *h, uint8_t out[TRACE_CHUNK_HEADER_SIZE])
{
	put32(out, h->magic);
	put32(out + 4, h->stream);
	put32(out + 8, h->seq);
	out[12] = (uint8_t)h->flags;
	out[13] = (uint8_t)(h->flags >> 8);
	out[14] = (uint8_t)h->reserved;
	out[15] = (uint8_t)(h->reserved >> 8);
	put32(out + 16, h->raw_len);
	put32(out + 20, h->payload_len);
	put32(out + 24, h->payload_crc);
	put32(out + 28, trace_crc32(0, out, 28));
}

int trace_chunk_header_decode(const uint8_t in[TRACE_CHUNK_HEADER_SIZE], trace_chunk_header *h)
{
	h->magic = get32(in);
	h->stream = get32(in + 4);
	h->seq = get32(in + 8);
	h->flags = (uint16_t)(in[12] | in[13] << 8);
	h->reserved = (uint16_t)(in[14] | in[15] << 8);
	h->raw_len = get32(in + 16);
	h->payload_len = get32(in + 20);
	h->payload_crc = get32(in + 24);
	h->header_crc = get32(in + 28);
	if (h->magic != TRACE_CHUNK_MAGIC || h->header_crc != trace_crc32(0, in, 28))
		return -EBADMSG;
	return 0;
}

static voidpf z_alloc(voidpf opaque, uInt items, uInt size)
{
	trace_chunk_writer *w = opaque;
	return w->alloc(w->alloc_opaque, (size_t)items * size);
}

static void z_free(voidpf opaque, voidpf p)
{
	(void)opaque;
	(void)p;
}

/* A zstd context in a workspace of its own, sized for chunks of max_raw
 * at level: nothing is allocated when it compresses. */
static int zstd_init(trace_chunk_writer *w)
{
	ZSTD_compressionParameters cp = ZSTD_getCParams(w->level, (unsigned long long)w->max_raw, 0);
	size_t need = ZSTD_estimateCCtxSize_usingCParams(cp);
	w->out_cap = ZSTD_compressBound(w->max_raw);
	w->zc_mem = w->alloc ? w->alloc(w->alloc_opaque, need) : malloc(need);
	w->out = w->alloc ? w->alloc(w->alloc_opaque, w->out_cap) : malloc(w->out_cap);
	if (w->zc_mem && w->out)
		w->zc = ZSTD_initStaticCCtx(w->zc_mem, need);
	if (w->zc && !ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_compressionLevel, w->level)) &&
	    !ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_windowLog, (int)cp.windowLog)) &&
	    !ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_checksumFlag, 0)) &&
	    !ZSTD_isError(ZSTD_CCtx_setParameter(w->zc, ZSTD_c_contentSizeFlag, 0)))
		return 0;
	if (!w->alloc) {
		free(w->zc_mem);
		free(w->out);
	}
	w->zc = NULL;
	w->zc_mem = NULL;
	w->out = NULL;
	return -ENOMEM;
}

int trace_chunk_writer_init_alloc(trace_chunk_writer *w, enum trace_codec codec, int level, size_t max_raw,
                                  trace_alloc_fn alloc, void *opaque)
{
	memset(w, 0, sizeof *w);
	w->codec = level > 0 ? codec : TRACE_CODEC_NONE;
	w->level = w->codec == TRACE_CODEC_NONE ? 0 : level;
	w->max_raw = max_raw;
	w->alloc = alloc;
	w->alloc_opaque = opaque;
	if (w->codec == TRACE_CODEC_NONE)
		return 0;
	if (w->codec == TRACE_CODEC_ZSTD)
		return zstd_init(w);
	if (alloc) {
		w->zs.zalloc = z_alloc;
		w->zs.zfree = z_free;
		w->zs.opaque = w;
	}
	if (deflateInit2(&w->zs, level, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	w->out_cap = deflateBound(&w->zs, (uLong)max_raw);
	w->out = alloc ? alloc(opaque, w->out_cap) : malloc(w->out_cap);
	if (!w->out) {
		deflateEnd(&w->zs);
		return -ENOMEM;
	}
	return 0;
}

int trace_chunk_writer_init(trace_chunk_writer *w, enum trace_codec codec, int level, size_t max_raw)
{
	return trace_chunk_writer_init_alloc(w, codec, level, max_raw, NULL, NULL);
}

void trace_chunk_writer_destroy(trace_chunk_writer *w)
{
	if (w->out) {
		if (w->codec == TRACE_CODEC_ZLIB)
			deflateEnd(&w->zs);
		if (!w->alloc) {
			free(w->out);
			free(w->zc_mem);
		}
	}
	memset(w, 0, sizeof *w);
}

/* zlib's crc32 is table-driven and several times faster than ours; ours
 * (signal_safe) is for the crash path, which must not call into libraries. */
static int emit(int fd, uint32_t stream, uint32_t seq, uint16_t flags, uint32_t raw_len,
                const void *payload, size_t payload_len, int signal_safe)
{
	trace_chunk_header h = {
	    .magic = TRACE_CHUNK_MAGIC,
	    .stream = stream,
	    .seq = seq,
	    .flags = flags,
	    .raw_len = raw_len,
	    .payload_len = (uint32_t)payload_len,
	    .payload_crc = signal_safe ? trace_crc32(0, payload, payload_len)
	                               : (uint32_t)crc32(0, payload, (uInt)payload_len),
	};
	uint8_t hdr[TRACE_CHUNK_HEADER_SIZE];
	trace_chunk_header_encode(&h, hdr);
	struct iovec iov[2] = {{hdr, sizeof hdr}, {(void *)payload, payload_len}};
	return write_all(fd, iov, payload_len ? 2 : 1);
}

int trace_chunk_write_raw(int fd, uint32_t stream, uint32_t seq, const void *raw, size_t len)
{
	if (len > TRACE_CHUNK_MAX_RAW)
		return -E2BIG;
	return emit(fd, stream, seq, 0, (uint32_t)len, raw, len, 1);
}

static int write_stored(int fd, uint32_t stream, uint32_t seq, const void *raw, size_t len)
{
	return emit(fd, stream, seq, 0, (uint32_t)len, raw, len, 0);
}

int trace_chunk_write(trace_chunk_writer *w, int fd, uint32_t stream, uint32_t seq, const void *raw,
                      size_t len)
{
	if (len > w->max_raw || len > TRACE_CHUNK_MAX_RAW)
		return -E2BIG;
	if (w->codec == TRACE_CODEC_NONE || len == 0)
		return write_stored(fd, stream, seq, raw, len);
	if (w->codec == TRACE_CODEC_ZSTD) {
		size_t clen = ZSTD_compress2(w->zc, w->out, w->out_cap, raw, len);
		if (ZSTD_isError(clen) || clen >= len) /* failed, or incompressible: store it */
			return write_stored(fd, stream, seq, raw, len);
		return emit(fd, stream, seq, TRACE_CHUNK_FLAG_ZSTD, (uint32_t)len, w->out, clen, 0);
	}
	if (deflateReset(&w->zs) != Z_OK)
		return -EIO;
	w->zs.next_in = (Bytef *)raw;
	w->zs.avail_in = (uInt)len;
	w->zs.next_out = w->out;
	w->zs.avail_out = (uInt)w->out_cap;
	if (deflate(&w->zs, Z_FINISH) != Z_STREAM_END)
		return write_stored(fd, stream, seq, raw, len);
	size_t clen = w->out_cap - w->zs.avail_out;
	if (clen >= len) /* incompressible: store it */
		return write_stored(fd, stream, seq, raw, len);
	return emit(fd, stream, seq, TRACE_CHUNK_FLAG_ZLIB, (uint32_t)len, w->out, clen, 0);
}
