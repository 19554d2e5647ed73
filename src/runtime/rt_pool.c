/* rt_pool.c: chunk buffers and how they reach the file.
 *
 * Owns the life of a chunk buffer: FREE -> CURRENT (a thread encodes into it)
 * -> QUEUED (sealed) -> WRITING (compressed and written) -> FREE. Buffers are
 * mmap'ed in batches and never unmapped, so 1000 short-lived threads recycle
 * the same few buffers.
 *
 * There is no thread of fold's own (it would keep a process whose main
 * calls pthread_exit alive, and make every program multithreaded, so
 * unshare(CLONE_NEWUSER) would fail): whoever seals a chunk writes it, at
 * once, in its own context, which may be the sample handler. A thread
 * seals its buffer when it is full and, from rt__flush_due, when its
 * oldest unwritten record is older than FOLD_FLUSH_INTERVAL, so a SIGKILL
 * loses at most about one interval of a running thread's data.
 *
 * Invariants:
 *  - rt__buf_claim, rt__buf_release, rt__buf_submit and
 *    rt__pool_drain(0) are async-signal-safe: a lock-free bitmap (a bit is
 *    taken with a CAS, so there is no ABA), a push-only stack emptied whole
 *    with one exchange, and one writer at a time (a CAS flag, never waited
 *    for in a handler: the holder re-checks the stack after letting go, so
 *    no chunk is left behind). Writing compresses with a zstd (or zlib) state whose
 *    memory comes from a static arena (no malloc) and calls writev(2).
 *  - Only the writer compresses (one state). The crash path writes raw
 *    chunks and takes a QUEUED buffer only by CAS QUEUED -> WRITING, so a
 *    chunk is never written twice.
 *  - Writes raise no SIGPIPE/SIGXFSZ in the program (rt_io.c).
 *  - A chunk that cannot be written (ENOSPC, EIO, ...) is counted with the
 *    samples it held (rt__proc.chunks_lost, samples_lost); the first
 *    failure gets one line on stderr and the summary says what was lost.
 *  - Growth (mmap) happens outside signal handlers: at thread start and in
 *    rt__pool_reserve callers.
 *  - The buffers are the live file's slots (TRACE.live, trace_format.h)
 *    while that file can be had: shared with it, so what they hold is
 *    there for fold to recover when the process ends without the final
 *    flush (exit_group, SIGKILL, a strict seccomp). Its blocks are
 *    allocated when a group of slots is mapped (posix_fallocate): a full
 *    disk fails there, never as SIGBUS in the program; the pool then goes
 *    on in anonymous memory. A slot's state, stream, sequence number and
 *    length of whole records (published by the encoder) are kept current
 *    for a reader; a free slot has length 0. A fork child maps its groups
 *    afresh (its own live file, or anonymous memory), so it never writes
 *    into its parent's. The file is removed once what it holds is in the
 *    trace (rt__pool_live_end).
 */
#include "fold_rt.h"
#include "rt_sys.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace_chunk.h"

#define WORDS (FOLD_MAX_BUFS / 64)

static rt_buf *bufs[FOLD_MAX_BUFS];
static _Atomic uint64_t free_bits[WORDS];
static _Atomic unsigned nbufs;
static _Atomic int nfree;
pthread_mutex_t rt__grow_lock = PTHREAD_MUTEX_INITIALIZER; /* held across fork (rt_fork.c) */
#define grow_lock rt__grow_lock

static _Atomic(rt_buf *) queue_head;
static _Atomic int writer_busy;
static trace_chunk_writer zwriter;
static _Atomic int zwriter_ok;

/* The compressor's memory: a bump allocator over zero-filled static memory, so the
 * compressor's state can be set up inside a signal handler (page faults only,
 * and only in a process that writes a chunk worth compressing). */
/* zstd's context for 64 KB chunks: 0.3 MB at level 1, 1.8 MB at 19
 * (FOLD_COMPRESS's highest); zlib's state 0.3 MB. Untouched pages cost
 * nothing. */
#define ARENA_BYTES (2560u * 1024u)
/* Mapped at the first chunk worth compressing (mmap is async-signal-safe),
 * not in libfold's data: a process that never compresses does not carry it
 * (an mlockall under the default RLIMIT_MEMLOCK failed for libfold's 8 MiB).
 * MAP_FAILED: it could not be had; chunks are then written raw. */
static uint8_t *arena;
static size_t arena_used;

static void *arena_alloc(void *opaque, size_t n)
{
	(void)opaque;
	n = (n + 63) & ~(size_t)63;
	if (!arena || arena == MAP_FAILED || arena_used + n > ARENA_BYTES)
		return NULL;
	void *p = arena + arena_used;
	arena_used += n;
	return p;
}

/* ---------------------------------------------------------------- live file */

_Static_assert(offsetof(rt_buf, state) == offsetof(trace_live_slot, state) &&
                   offsetof(rt_buf, stream) == offsetof(trace_live_slot, stream) &&
                   offsetof(rt_buf, seq) == offsetof(trace_live_slot, seq) &&
                   offsetof(rt_buf, len) == offsetof(trace_live_slot, len),
               "rt_buf starts as a trace_live_slot");

static char live_path[sizeof rt__proc.path + sizeof TRACE_LIVE_SUFFIX];
static _Atomic int live_on;
/* The pool's mappings, for a fork child to map its own. */
static struct group {
	uint8_t *mem;
	unsigned first, n;
	int shared; /* 1: mapped from the live file */
	int remap;  /* 1: unshared in a fork child, to map the child's file */
} groups[FOLD_MAX_BUFS];
static unsigned ngroups;

static size_t slot_bytes(void)
{
	return (sizeof(rt_buf) + 4095) & ~(size_t)4095;
}

static void sys_close_fd(int fd)
{
	rt__sys_close(fd);
}

/* Maps slots [first, first + n) of the live file, at addr (MAP_FIXED) or
 * anywhere; MAP_FAILED when the file cannot have them. */
static void *live_map(void *addr, unsigned first, unsigned n)
{
	if (!atomic_load(&live_on))
		return MAP_FAILED;
	int fd = rt__sys_open(live_path, O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0);
	if (fd < 0)
		return MAP_FAILED;
	off_t off = (off_t)TRACE_LIVE_HEADER_BYTES + (off_t)first * (off_t)slot_bytes();
	size_t len = (size_t)n * slot_bytes();
	void *mem = MAP_FAILED;
	rt_io_state io;
	rt__io_begin(&io);
	if (posix_fallocate(fd, off, (off_t)len) == 0) {
		mem = mmap(addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | (addr ? MAP_FIXED : 0), fd, off);
		uint32_t nslots = first + n;
		if (mem != MAP_FAILED &&
		    rt__sys_pwrite(fd, &nslots, sizeof nslots, offsetof(trace_live_header, nslots)) != sizeof nslots)
			nslots = 0;
	}
	rt__io_end(&io);
	sys_close_fd(fd);
	if (mem == MAP_FAILED)
		atomic_store(&live_on, 0); /* the groups after this one are anonymous */
	return mem;
}

int rt__pool_live_start(const char *trace_path)
{
	atomic_store(&live_on, 0);
	if ((size_t)snprintf(live_path, sizeof live_path, "%s%s", trace_path, TRACE_LIVE_SUFFIX) >=
	    sizeof live_path)
		return -ENAMETOOLONG;
	/* The trace's name is new (O_EXCL): a live file of that name is a
	 * leftover of a trace that is gone. */
	int fd = rt__sys_open(live_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd == -EEXIST && unlink(live_path) == 0)
		fd = rt__sys_open(live_path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return fd;
	trace_live_header h;
	memset(&h, 0, sizeof h);
	memcpy(h.magic, TRACE_LIVE_MAGIC, sizeof h.magic);
	h.version = 1;
	h.slot_bytes = (uint32_t)slot_bytes();
	h.data_offset = (uint32_t)offsetof(rt_buf, data);
	h.data_cap = FOLD_BUF_BYTES;
	h.pid = (uint64_t)getpid();
	rt_io_state io;
	rt__io_begin(&io);
	int ok = posix_fallocate(fd, 0, TRACE_LIVE_HEADER_BYTES) == 0 && rt__sys_pwrite(fd, &h, sizeof h, 0) == sizeof h;
	rt__io_end(&io);
	sys_close_fd(fd);
	if (!ok) {
		unlink(live_path);
		return -ENOSPC;
	}
	atomic_store(&live_on, 1);
	return 0;
}

/* Async-signal-safe. */
void rt__pool_live_end(void)
{
	if (live_path[0])
		unlink(live_path);
	live_path[0] = 0;
	atomic_store(&live_on, 0);
}

void rt__pool_live_forget(void)
{
	live_path[0] = 0;
	atomic_store(&live_on, 0);
}

int rt__pool_live_rename(const char *trace_path)
{
	char to[sizeof live_path];
	if (!live_path[0] || (size_t)snprintf(to, sizeof to, "%s%s", trace_path, TRACE_LIVE_SUFFIX) >= sizeof to)
		return -ENAMETOOLONG;
	if (link(live_path, to))
		return -errno;
	unlink(live_path);
	memcpy(live_path, to, sizeof to);
	return 0;
}

static int grow(unsigned n)
{
	unsigned have = atomic_load(&nbufs);
	if (have + n > FOLD_MAX_BUFS)
		n = FOLD_MAX_BUFS - have;
	if (!n)
		return -ENOMEM;
	size_t one = slot_bytes();
	int shared = 1;
	uint8_t *mem = live_map(NULL, have, n);
	if (mem == MAP_FAILED) {
		shared = 0;
		mem = mmap(NULL, one * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	}
	if (mem == MAP_FAILED)
		return -ENOMEM;
	groups[ngroups++] = (struct group){mem, have, n, shared, 0};
	/* Nothing is written into the buffers here (fresh memory, and a fresh
	 * live file, read as FOLD_BUF_FREE): a page fault per buffer header
	 * cost a short process ~12 faults it never needed; a claim sets the
	 * index. */
	for (unsigned i = 0; i < n; i++)
		bufs[have + i] = (rt_buf *)(mem + i * one);
	/* Publish the pointers before any bit makes them claimable. */
	atomic_store(&nbufs, have + n);
	for (unsigned i = 0; i < n; i++) {
		unsigned idx = have + i;
		atomic_fetch_or(&free_bits[idx / 64], 1ull << (idx % 64));
	}
	atomic_fetch_add(&nfree, (int)n);
	return 0;
}

int rt__pool_init(unsigned initial)
{
	atomic_store(&queue_head, NULL);
	if (atomic_load(&nbufs) >= initial)
		return 0;
	return grow(initial - atomic_load(&nbufs));
}

void rt__pool_reserve(unsigned want)
{
	if ((unsigned)atomic_load(&nfree) >= want)
		return;
	rt__lock(&grow_lock);
	int have = atomic_load(&nfree);
	if ((unsigned)have < want) {
		unsigned n = want - (unsigned)have;
		grow(n < 8 ? 8 : n);
	}
	rt__unlock(&grow_lock);
}

unsigned rt__pool_count(void)
{
	return atomic_load(&nbufs);
}
rt_buf *rt__pool_get(unsigned index)
{
	return index < atomic_load(&nbufs) ? bufs[index] : NULL;
}

/* A buffer's pages are first written on its first claim, all at once: a
 * thread claims its first buffer when it starts, outside any measured time,
 * and its records would otherwise fault them in one by one inside the
 * hooks, after their timestamps (a fault per page; stalls of 100-200 us
 * seen on a VM), time no compensation sees. Pages stay (64 KB per buffer
 * a thread holds: buffers are recycled, never unmapped). */
static uint8_t touched[FOLD_MAX_BUFS]; /* not in the buffer: reading that faults too */

static void pretouch(rt_buf *b, unsigned index)
{
	if (touched[index])
		return;
	/* One system call maps them all (a buffer is page-aligned): 20-30 us
	 * for its 16 pages on a VM, where a fault per page costs 10-20 us
	 * each. Touching them is the fallback (before Linux 5.14). */
	if (madvise(b, sizeof *b, MADV_POPULATE_WRITE) != 0) {
		volatile uint8_t *d = b->data;
		for (size_t off = 0; off < sizeof b->data; off += 4096)
			d[off] = 0;
		d[sizeof b->data - 1] = 0;
	}
	touched[index] = 1;
}

rt_buf *rt__buf_claim(void)
{
	unsigned words = (atomic_load(&nbufs) + 63) / 64;
	for (unsigned w = 0; w < words; w++) {
		uint64_t v = atomic_load(&free_bits[w]);
		while (v) {
			unsigned bit = (unsigned)__builtin_ctzll(v);
			if (atomic_compare_exchange_weak(&free_bits[w], &v, v & ~(1ull << bit))) {
				rt_buf *b = bufs[w * 64 + bit];
				atomic_fetch_sub(&nfree, 1);
				pretouch(b, w * 64 + bit);
				b->index = w * 64 + bit;
				b->len = 0; /* before the state: a reader of the live file takes
				             * a slot being written up to its length */
				atomic_store(&b->state, FOLD_BUF_CURRENT);
				return b;
			}
		}
	}
	return NULL;
}

void rt__buf_release(rt_buf *b)
{
	atomic_store(&b->state, FOLD_BUF_FREE);
	__atomic_store_n(&b->len, 0, __ATOMIC_RELEASE);
	atomic_fetch_add(&nfree, 1);
	atomic_fetch_or(&free_bits[b->index / 64], 1ull << (b->index % 64));
}

void rt__buf_submit(rt_buf *b)
{
	atomic_store(&b->state, FOLD_BUF_QUEUED);
	rt_buf *old = atomic_load(&queue_head);
	do
		b->next = old;
	while (!atomic_compare_exchange_weak(&queue_head, &old, b));
	/* A sandboxed thread makes no system call: another writes it. */
	rt_thread *self = rt__tls_thread;
	if (!self || !self->sandboxed)
		rt__pool_drain(0);
}

/* Takes the whole queue, oldest first (the stack is newest first). */
static rt_buf *take_all(void)
{
	rt_buf *b = atomic_exchange(&queue_head, NULL), *rev = NULL;
	while (b) {
		rt_buf *n = b->next;
		b->next = rev;
		rev = b;
		b = n;
	}
	return rev;
}

/* Chunks smaller than this are written raw: deflating a few hundred bytes
 * (a short thread's start and end, a short process's header, the periodic
 * flush of a quiet thread) saves little, and the compressor's state costs ~0.4 ms
 * of page faults to set up, which a short-lived process then never pays. */
#define RAW_BELOW 4096u

static void ensure_zwriter(void)
{
	if (atomic_load(&zwriter_ok) || rt__proc.cfg.compress_level <= 0)
		return;
	if (!arena) /* only the writer gets here: one at a time */
		arena = mmap(NULL, ARENA_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED)
		return;
	if (trace_chunk_writer_init_alloc(&zwriter, (enum trace_codec)rt__proc.cfg.compress_codec,
	                                  rt__proc.cfg.compress_level, FOLD_BUF_BYTES, arena_alloc,
	                                  NULL) == 0)
		atomic_store(&zwriter_ok, 1);
}

static void write_one(rt_buf *b)
{
	int expect = FOLD_BUF_QUEUED;
	if (!atomic_compare_exchange_strong(&b->state, &expect, FOLD_BUF_WRITING))
		return; /* the crash path took it */
	int rc;
	if (b->len >= RAW_BELOW)
		ensure_zwriter();
	if (atomic_load(&zwriter_ok) && b->len >= RAW_BELOW)
		rc = trace_chunk_write(&zwriter, rt__proc.fd, b->stream, b->seq, b->data, b->len);
	else
		rc = trace_chunk_write_raw(rt__proc.fd, b->stream, b->seq, b->data, b->len);
	if (rc) {
		atomic_fetch_add(&rt__proc.samples_lost, b->nsamples);
		if (atomic_fetch_add(&rt__proc.chunks_lost, 1) == 0) {
			rt__proc.write_errno = -rc;
			/* Not vsnprintf (maybe in a handler): the message is built by hand. */
			char line[1200];
			size_t o = 0;
			rt__str_put(line, sizeof line, &o, "fold: writing ");
			rt__str_put(line, sizeof line, &o, rt__proc.path);
			rt__str_put(line, sizeof line, &o, " failed: ");
			rt__str_put(line, sizeof line, &o,
			            strerrordesc_np(-rc) ? strerrordesc_np(-rc) : "error");
			rt__str_put(line, sizeof line, &o, "; the data that cannot be written is counted\n");
			rt__warn_raw(line);
		}
	} else {
		atomic_fetch_add(&rt__proc.chunks_written, 1);
		atomic_fetch_add(&rt__proc.bytes_raw, b->len);
	}
	rt__buf_release(b);
}

/* The trace's descriptor is still the trace file: a raw system call of
 * the program's (close_range in assembly) can close it behind fold's
 * wrappers and the program open a file of its own at that number, which
 * fold must never write into. Then the trace file is opened again by its
 * name. Async-signal-safe. */
void rt__trace_fd_check(void)
{
	struct stat st;
	int fd = rt__proc.fd;
	if (fd >= 0 && fstat(fd, &st) == 0 && st.st_dev == rt__proc.fd_dev && st.st_ino == rt__proc.fd_ino)
		return;
	int n = rt__sys_open(rt__proc.path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOFOLLOW, 0);
	if (n >= 0 && (fstat(n, &st) || st.st_dev != rt__proc.fd_dev || st.st_ino != rt__proc.fd_ino)) {
		sys_close_fd(n); /* another file by that name now */
		n = -1;
	}
	if (fd >= 0 && rt__fd_is_ours(fd))
		rt__fd_forget(fd); /* the number is the program's now */
	rt__proc.fd = -1;
	if (n >= 0)
		rt__fd_move(n, &rt__proc.fd);
}

static void write_batch(rt_buf *b)
{
	rt_io_state io;
	rt__io_begin(&io);
	rt__trace_fd_check();
	while (b) {
		rt_buf *n = b->next;
		write_one(b);
		b = n;
	}
	rt__io_end(&io);
}

void rt__pool_drain(int wait)
{
	for (;;) {
		if (!atomic_load(&queue_head))
			return;
		int expect = 0;
		if (atomic_compare_exchange_strong(&writer_busy, &expect, 1)) {
			write_batch(take_all());
			atomic_store(&writer_busy, 0);
			continue; /* a chunk pushed while we wrote: its pusher saw us busy */
		}
		if (!wait)
			return; /* the writer picks it up before letting go */
		rt__sys_nanosleep(50000);
	}
}

/* First thing in a fork child: the groups shared with the parent's live
 * file become the child's own memory (zeroed: the child keeps none of the
 * parent's buffers), before the child writes a slot's state the parent's
 * writer is about to take (a chunk would be lost). */
void rt__pool_unshare(void)
{
	for (unsigned g = 0; g < ngroups; g++) {
		struct group *gr = &groups[g];
		if (!gr->shared)
			continue;
		size_t len = (size_t)gr->n * slot_bytes();
		mmap(gr->mem, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		gr->shared = 0;
		gr->remap = 1;
		for (unsigned i = 0; i < gr->n; i++) {
			bufs[gr->first + i]->index = gr->first + i;
			touched[gr->first + i] = 0;
		}
	}
}

/* After fork in the child: the parent's queue and writer do not exist here. */
void rt__pool_after_fork(void)
{
	atomic_store(&queue_head, NULL);
	atomic_store(&writer_busy, 0);
	/* The compressor may have been mid-chunk in another thread of the parent. */
	atomic_store(&zwriter_ok, 0);
	memset(&zwriter, 0, sizeof zwriter);
	arena_used = 0;
	unsigned n = atomic_load(&nbufs);
	int nf = 0;
	/* The groups shared with the parent's live file: the child's own, or
	 * anonymous memory (all free: the caller let go of every buffer). */
	for (unsigned g = 0; g < ngroups; g++) {
		struct group *gr = &groups[g];
		if (!gr->remap)
			continue;
		gr->remap = 0;
		if (live_map(gr->mem, gr->first, gr->n) == MAP_FAILED)
			continue; /* stays anonymous (rt__pool_unshare) */
		gr->shared = 1;
		for (unsigned i = 0; i < gr->n; i++) {
			bufs[gr->first + i]->index = gr->first + i;
			touched[gr->first + i] = 0;
		}
	}
	for (unsigned i = 0; i < n; i++) {
		rt_buf *b = bufs[i];
		if (atomic_load(&b->state) == FOLD_BUF_CURRENT)
			continue; /* the surviving thread's buffers stay; the caller frees the rest */
		atomic_store(&b->state, FOLD_BUF_FREE);
	}
	for (unsigned w = 0; w < WORDS; w++)
		atomic_store(&free_bits[w], 0);
	for (unsigned i = 0; i < n; i++)
		if (atomic_load(&bufs[i]->state) == FOLD_BUF_FREE) {
			atomic_fetch_or(&free_bits[i / 64], 1ull << (i % 64));
			nf++;
		}
	atomic_store(&nfree, nf);
}

void rt__flush_queue_raw(void)
{
	/* Chunks in the queue or popped by a writer but not started yet, in
	 * (stream, seq) order so a reader sees each stream in sequence. */
	unsigned n = atomic_load(&nbufs);
	for (;;) {
		rt_buf *next = NULL;
		for (unsigned i = 0; i < n; i++) {
			rt_buf *b = bufs[i];
			if (atomic_load(&b->state) != FOLD_BUF_QUEUED)
				continue;
			if (!next || b->stream < next->stream ||
			    (b->stream == next->stream && b->seq < next->seq))
				next = b;
		}
		if (!next)
			break;
		int expect = FOLD_BUF_QUEUED;
		if (atomic_compare_exchange_strong(&next->state, &expect, FOLD_BUF_WRITING)) {
			rt_io_state io;
			rt__io_begin(&io);
			trace_chunk_write_raw(rt__proc.fd, next->stream, next->seq, next->data, next->len);
			rt__io_end(&io);
			atomic_store(&next->state, FOLD_BUF_FREE); /* the process is dying: no reuse */
		}
	}
	/* Give a write another thread has in progress a moment to complete. */
	for (int spin = 0; spin < 100 && atomic_load(&writer_busy); spin++) {
		int busy = 0;
		for (unsigned i = 0; i < n && !busy; i++)
			busy = atomic_load(&bufs[i]->state) == FOLD_BUF_WRITING;
		if (!busy)
			break;
		rt__sys_nanosleep(1000000);
	}
}
