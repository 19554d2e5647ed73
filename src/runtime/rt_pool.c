/* rt_pool.c: chunk buffers and the background flusher.
 *
 * Owns the life of a chunk buffer: FREE -> CURRENT (a thread encodes into it)
 * -> QUEUED (sealed, waiting) -> WRITING (the flusher deflates and writes it)
 * -> FREE. Buffers are mmap'ed in batches and never unmapped, so 1000
 * short-lived threads recycle the same few buffers.
 *
 * Invariants:
 *  - fold__buf_claim, fold__buf_release and fold__buf_submit are
 *    async-signal-safe: a lock-free bitmap (a bit is taken with a CAS, so
 *    there is no ABA) and a push-only stack that the flusher empties whole
 *    with one exchange, then sem_post (async-signal-safe by POSIX).
 *  - Only the flusher deflates (zlib state is its own). The crash path writes
 *    raw chunks and takes a QUEUED buffer only by CAS QUEUED -> WRITING, so a
 *    chunk is never written twice.
 *  - Growth (mmap) happens outside signal handlers: at thread start and in
 *    the flusher, which keeps a reserve of free buffers.
 */
#include "fold_rt.h"

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace_chunk.h"

#define WORDS (FOLD_MAX_BUFS / 64)

static fold_buf *bufs[FOLD_MAX_BUFS];
static _Atomic uint64_t free_bits[WORDS];
static _Atomic unsigned nbufs;
static _Atomic int nfree;
pthread_mutex_t fold__grow_lock = PTHREAD_MUTEX_INITIALIZER; /* held across fork (rt_process.c) */
#define grow_lock fold__grow_lock

static _Atomic(fold_buf *) queue_head;
static sem_t queue_sem;
static _Atomic uint64_t submitted, written;

static pthread_t flusher;
static int flusher_running;
static _Atomic int flusher_exit;
static trace_chunk_writer zwriter;
static int zwriter_ok;

static int grow(unsigned n)
{
	unsigned have = atomic_load(&nbufs);
	if (have + n > FOLD_MAX_BUFS)
		n = FOLD_MAX_BUFS - have;
	if (!n)
		return -ENOMEM;
	size_t one = (sizeof(fold_buf) + 4095) & ~(size_t)4095;
	uint8_t *mem = mmap(NULL, one * n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		fold_buf *b = (fold_buf *)(mem + i * one);
		b->index = have + i;
		atomic_store(&b->state, FOLD_BUF_FREE);
		bufs[have + i] = b;
	}
	/* Publish the pointers before any bit makes them claimable. */
	atomic_store(&nbufs, have + n);
	for (unsigned i = 0; i < n; i++) {
		unsigned idx = have + i;
		atomic_fetch_or(&free_bits[idx / 64], 1ull << (idx % 64));
	}
	atomic_fetch_add(&nfree, (int)n);
	return 0;
}

int fold__pool_init(unsigned initial)
{
	atomic_store(&queue_head, NULL);
	if (sem_init(&queue_sem, 0, 0))
		return -errno;
	if (atomic_load(&nbufs) >= initial)
		return 0;
	return grow(initial - atomic_load(&nbufs));
}

void fold__pool_reserve(unsigned want)
{
	if ((unsigned)atomic_load(&nfree) >= want)
		return;
	pthread_mutex_lock(&grow_lock);
	int have = atomic_load(&nfree);
	if ((unsigned)have < want) {
		unsigned n = want - (unsigned)have;
		grow(n < 8 ? 8 : n);
	}
	pthread_mutex_unlock(&grow_lock);
}

unsigned fold__pool_count(void) { return atomic_load(&nbufs); }
fold_buf *fold__pool_get(unsigned index) { return index < atomic_load(&nbufs) ? bufs[index] : NULL; }

fold_buf *fold__buf_claim(void)
{
	unsigned words = (atomic_load(&nbufs) + 63) / 64;
	for (unsigned w = 0; w < words; w++) {
		uint64_t v = atomic_load(&free_bits[w]);
		while (v) {
			unsigned bit = (unsigned)__builtin_ctzll(v);
			if (atomic_compare_exchange_weak(&free_bits[w], &v, v & ~(1ull << bit))) {
				fold_buf *b = bufs[w * 64 + bit];
				atomic_fetch_sub(&nfree, 1);
				atomic_store(&b->state, FOLD_BUF_CURRENT);
				b->len = 0;
				return b;
			}
		}
	}
	return NULL;
}

void fold__buf_release(fold_buf *b)
{
	atomic_store(&b->state, FOLD_BUF_FREE);
	atomic_fetch_add(&nfree, 1);
	atomic_fetch_or(&free_bits[b->index / 64], 1ull << (b->index % 64));
}

void fold__buf_submit(fold_buf *b)
{
	atomic_store(&b->state, FOLD_BUF_QUEUED);
	atomic_fetch_add(&submitted, 1);
	fold_buf *old = atomic_load(&queue_head);
	do
		b->next = old;
	while (!atomic_compare_exchange_weak(&queue_head, &old, b));
	sem_post(&queue_sem);
}

/* Takes the whole queue, oldest first (the stack is newest first). */
static fold_buf *take_all(void)
{
	fold_buf *b = atomic_exchange(&queue_head, NULL), *rev = NULL;
	while (b) {
		fold_buf *n = b->next;
		b->next = rev;
		rev = b;
		b = n;
	}
	return rev;
}

/* Chunks smaller than this are written raw: deflating a few hundred bytes
 * (a short thread's start and end, a short process's header) saves little,
 * and the deflate state costs ~0.4 ms of page faults to set up here, which a
 * short-lived process then never pays. */
#define RAW_BELOW 4096u

static int ensure_zwriter(void);

static void write_one(fold_buf *b)
{
	int expect = FOLD_BUF_QUEUED;
	if (!atomic_compare_exchange_strong(&b->state, &expect, FOLD_BUF_WRITING))
		return; /* the crash path took it */
	int rc;
	if (b->len >= RAW_BELOW)
		ensure_zwriter(); /* by whoever writes: the flusher, or the caller once it stopped */
	if (zwriter_ok && b->len >= RAW_BELOW)
		rc = trace_chunk_write(&zwriter, fold__rt.fd, b->stream, b->seq, b->data, b->len);
	else
		rc = trace_chunk_write_raw(fold__rt.fd, b->stream, b->seq, b->data, b->len);
	if (rc) {
		if (atomic_fetch_add(&fold__rt.write_errors, 1) == 0)
			fold__warn("writing %s failed: %s; later chunks may be lost", fold__rt.path, strerror(-rc));
	} else {
		atomic_fetch_add(&fold__rt.chunks_written, 1);
		atomic_fetch_add(&fold__rt.bytes_raw, b->len);
	}
	fold__buf_release(b);
	atomic_fetch_add(&written, 1);
}

static void write_batch(fold_buf *b)
{
	while (b) {
		fold_buf *n = b->next;
		write_one(b);
		b = n;
	}
}

static void *flusher_main(void *arg)
{
	(void)arg;
	/* Every signal is blocked (fold__flusher_start). */
	/* The reserve the program's threads claim from, grown here rather than
	 * at start (fresh buffers cost page faults). */
	fold__pool_reserve(8);
	for (;;) {
		while (sem_wait(&queue_sem) && errno == EINTR)
			;
		write_batch(take_all());
		/* Keep a reserve so threads' handlers rarely find the pool empty. */
		fold__pool_reserve(8);
		if (atomic_load(&flusher_exit) && !atomic_load(&queue_head))
			break;
	}
	return NULL;
}

static int ensure_zwriter(void)
{
	if (zwriter_ok || fold__rt.cfg.zlib_level <= 0)
		return 0;
	if (trace_chunk_writer_init(&zwriter, fold__rt.cfg.zlib_level, FOLD_BUF_BYTES) == 0)
		zwriter_ok = 1;
	return 0;
}

int fold__flusher_start(void)
{
	if (flusher_running)
		return 0;
	atomic_store(&flusher_exit, 0);
	typedef int (*create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);
	create_fn real_create = (create_fn)fold__real("pthread_create");
	if (!real_create)
		return -ENOSYS;
	/* Created with every signal blocked, so it starts that way: blocking
	 * them from inside the thread leaves a window in which a signal of
	 * the program's (an ITIMER_REAL tick) runs the program's handler here,
	 * and a handler that siglongjmps then runs the program in this thread. */
	sigset_t all, old;
	sigfillset(&all);
	fold__real_sigmask(SIG_BLOCK, &all, &old);
	int rc = real_create(&flusher, NULL, flusher_main, NULL);
	fold__real_sigmask(SIG_SETMASK, &old, NULL);
	if (rc)
		return -rc;
	flusher_running = 1;
	return 0;
}

void fold__flusher_stop(void)
{
	if (!flusher_running)
		return;
	atomic_store(&flusher_exit, 1);
	sem_post(&queue_sem);
	pthread_join(flusher, NULL);
	flusher_running = 0;
}

void fold__flusher_drain(void)
{
	uint64_t target = atomic_load(&submitted);
	if (!flusher_running) {
		fold__flush_queue_sync();
		return;
	}
	sem_post(&queue_sem);
	while (atomic_load(&written) < target) {
		struct timespec ts = {0, 50000};
		nanosleep(&ts, NULL);
	}
}

void fold__flush_queue_sync(void)
{
	write_batch(take_all());
}

/* After fork in the child: the parent's queue and flusher do not exist here. */
void fold__pool_after_fork(void)
{
	atomic_store(&queue_head, NULL);
	sem_destroy(&queue_sem);
	sem_init(&queue_sem, 0, 0);
	flusher_running = 0;
	atomic_store(&submitted, 0);
	atomic_store(&written, 0);
	/* The zlib state may have been mid-deflate in the parent's flusher. */
	zwriter_ok = 0;
	memset(&zwriter, 0, sizeof zwriter);
	unsigned n = atomic_load(&nbufs);
	int nf = 0;
	for (unsigned i = 0; i < n; i++) {
		fold_buf *b = bufs[i];
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

void fold__flush_queue_raw(void)
{
	/* Chunks in the queue or popped by the flusher but not started yet, in
	 * (stream, seq) order so a reader sees each stream in sequence. */
	unsigned n = atomic_load(&nbufs);
	for (;;) {
		fold_buf *next = NULL;
		for (unsigned i = 0; i < n; i++) {
			fold_buf *b = bufs[i];
			if (atomic_load(&b->state) != FOLD_BUF_QUEUED)
				continue;
			if (!next || b->stream < next->stream || (b->stream == next->stream && b->seq < next->seq))
				next = b;
		}
		if (!next)
			break;
		int expect = FOLD_BUF_QUEUED;
		if (atomic_compare_exchange_strong(&next->state, &expect, FOLD_BUF_WRITING)) {
			trace_chunk_write_raw(fold__rt.fd, next->stream, next->seq, next->data, next->len);
			atomic_store(&next->state, FOLD_BUF_FREE); /* the process is dying: no reuse */
		}
	}
	/* Give a write the flusher has in progress a moment to complete. */
	for (int spin = 0; spin < 100 && flusher_running; spin++) {
		int busy = 0;
		for (unsigned i = 0; i < n && !busy; i++)
			busy = atomic_load(&bufs[i]->state) == FOLD_BUF_WRITING;
		if (!busy)
			break;
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
}
