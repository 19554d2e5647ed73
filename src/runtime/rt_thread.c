/* rt_thread.c: per-thread measurement state and the pthread_create wrapper.
 *
 * Owns the table of rt_thread objects (never freed: recycled through a free
 * list, so a thread state pointer stays valid for a late signal), thread
 * start/end records, and how a thread's chunk buffer is sealed and replaced.
 *
 * Invariants:
 *  - A thread gets its state in its own context: in our pthread_create
 *    trampoline, or adopted on first use of the API for threads we did not
 *    create (a pthread key destructor then ends them).
 *  - pthread_exit never returns through the trampoline, so the end of a
 *    thread runs from a pthread_cleanup_push handler.
 *  - threads_lock is held by rt__quiesce until rt__unquiesce; a thread
 *    never waits for it while its busy guard is up, so quiesce cannot
 *    deadlock against a thread that is starting or ending.
 */
#include "fold_rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define MAX_SLOTS 65536u

FOLD_TLS rt_thread *rt__tls_thread;
static FOLD_TLS int tls_starting; /* re-entrancy during thread begin */

static rt_thread *slots[MAX_SLOTS];
static _Atomic unsigned nslots;
static rt_thread *free_list[MAX_SLOTS];
static unsigned nfree;
pthread_mutex_t rt__threads_lock = PTHREAD_MUTEX_INITIALIZER;
static _Atomic uint32_t next_stream = 1;
static pthread_key_t adopt_key;
static pthread_once_t adopt_once = PTHREAD_ONCE_INIT;

unsigned rt__thread_slots(void)
{
	return atomic_load(&nslots);
}
rt_thread *rt__thread_slot(unsigned i)
{
	return i < atomic_load(&nslots) ? slots[i] : NULL;
}
uint32_t rt__next_stream(void)
{
	return atomic_fetch_add(&next_stream, 1);
}

static rt_thread *alloc_state(void)
{
	rt_thread *t = NULL;
	rt__lock(&rt__threads_lock);
	if (nfree) {
		t = free_list[--nfree];
	} else if (atomic_load(&nslots) < MAX_SLOTS) {
		size_t sz = (sizeof(rt_thread) + 4095) & ~(size_t)4095;
		size_t stsz = (sizeof(trace_stack_table) + 4095) & ~(size_t)4095;
		uint8_t *mem =
		    mmap(NULL, sz + stsz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem != MAP_FAILED) {
			t = (rt_thread *)mem;
			t->stacks = (trace_stack_table *)(mem + sz);
			t->slot = atomic_load(&nslots);
			slots[t->slot] = t;
			atomic_store(&nslots, t->slot + 1);
		}
	}
	rt__unlock(&rt__threads_lock);
	return t;
}

static void recycle_state(rt_thread *t)
{
	rt__lock(&rt__threads_lock);
	atomic_store(&t->alive, 0);
	free_list[nfree++] = t;
	rt__unlock(&rt__threads_lock);
}

/* t's records go into b from now on: a chunk of t's stream, with the
 * sequence number it will be sealed with and the length of its whole
 * records kept current in b (the live file's reader takes them). */
static int begin_chunk(rt_thread *t, rt_buf *b)
{
	b->stream = t->stream;
	b->seq = t->seq;
	int rc = trace_enc_begin(&t->enc, b->data, FOLD_BUF_BYTES);
	trace_enc_publish(&t->enc, &b->len);
	return rc;
}

static int start_buffer(rt_thread *t)
{
	/* Threads starting together race for the reserve: grow and retry. */
	for (unsigned i = 0; i < 4 && !t->cur; i++) {
		rt__pool_reserve(4 + 8 * i);
		t->cur = rt__buf_claim();
	}
	if (!t->cur)
		return -ENOMEM;
	return begin_chunk(t, t->cur);
}

void rt__thread_seal(rt_thread *t)
{
	rt_buf *b = t->cur;
	if (!b)
		return;
	t->cur = NULL;
	b->len = (uint32_t)trace_enc_len(&t->enc);
	b->stream = t->stream;
	b->nsamples = (uint32_t)(t->samples_taken - t->sealed_samples);
	t->sealed_samples = t->samples_taken;
	t->flush_tick = 0;
	t->enc.base = t->enc.pos = t->enc.end = NULL;
	t->enc.published = NULL;
	if (!b->len) { /* keep the sequence gap-free */
		rt__buf_release(b);
		return;
	}
	b->seq = t->seq++;
	rt__buf_submit(b);
}

void rt__thread_note_pause(rt_thread *t, uint64_t ticks)
{
	if (!ticks || !t->cur)
		return;
	uint64_t ns = ticks;
	if (rt__clock_tsc && rt__proc.clock.tick_hz)
		ns = (uint64_t)((double)ticks * 1e9 / (double)rt__proc.clock.tick_hz);
	(void)trace_enc_pause(&t->enc, ns);
}

void rt__thread_fresh_buffer(rt_thread *t)
{
	if (t->cur)
		return;
	t->cur = rt__buf_claim();
	if (t->cur)
		begin_chunk(t, t->cur);
}

int rt__thread_swap_buffer(rt_thread *t)
{
	rt_buf *fresh = rt__buf_claim();
	if (!fresh)
		return -ENOSPC;
	rt__thread_seal(t);
	t->cur = fresh;
	return begin_chunk(t, fresh);
}

static void adopt_destructor(void *arg)
{
	rt_thread *t = arg;
	if (t && rt__tls_thread == t)
		rt__thread_end(t);
}

static void adopt_key_init(void)
{
	pthread_key_create(&adopt_key, adopt_destructor);
}

/* created: the thread comes from our pthread_create trampoline. */
static rt_thread *thread_begin(uint32_t parent_stream, const char *name, int created)
{
	if (tls_starting || atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return NULL;
	tls_starting = 1;
	rt_thread *t = alloc_state();
	if (!t)
		goto fail;
	trace_stack_table *st = t->stacks;
	unsigned slot = t->slot;
	uint64_t gen = t->generation + 1;
	void *altstack = t->altstack;
	memset(t, 0, sizeof *t);
	t->stacks = st;
	t->slot = slot;
	t->generation = gen;
	t->altstack = altstack;
	t->busy = 1; /* no samples until the state is complete */
	t->tid = (pid_t)syscall(SYS_gettid);
	t->stream = rt__next_stream();
	t->parent_stream = parent_stream;
	t->papi_eventset = -1;
	t->sample_fd = -1;
	for (unsigned i = 0; i < FOLD_MAX_HW_COUNTERS; i++)
		t->perf_fd[i] = -1;
	t->rng = rt__proc.cfg.seed ^ (0x9e3779b97f4a7c15ull * (t->stream + 1));
	/* The stack table is not cleared (20 KiB, page faults on a fresh
	 * state): its slots are zero (fresh mmap) or from an earlier thread,
	 * and trace_enc_begin moves its epoch on, so no old slot matches. */
	trace_enc_init(&t->enc, NULL);
	t->enc.stacks = st;
	if (start_buffer(t)) {
		/* Counted, and said once in the summary (over 4095 threads alive
		 * at once would otherwise print a line per thread). */
		atomic_fetch_add(&rt__proc.threads_unmeasured, 1);
		recycle_state(t);
		goto fail;
	}
	trace_enc_thread_start(&t->enc, (uint64_t)t->tid, parent_stream, rt__tick(), name ? name : "");
	rt__counters_thread_start(t);
	rt__counter_set_refresh(t);
	t->last_cpu_ns = rt__cpu_base(t);
	rt__unwind_thread_start();
	rt__altstack_start(t, created);
	atomic_store(&t->alive, 1);
	atomic_fetch_add(&rt__proc.threads_total, 1);
	rt__tls_thread = t;
	rt__sampling_thread_start(t);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
	tls_starting = 0;
	return t;
fail:
	tls_starting = 0;
	return NULL;
}

rt_thread *rt__thread_begin(uint32_t parent_stream, const char *name)
{
	return thread_begin(parent_stream, name, 0);
}

static void add_totals(rt_thread *t)
{
	atomic_fetch_add(&rt__proc.samples_taken, t->samples_taken);
	atomic_fetch_add(&rt__proc.handler_ticks, t->handler_ticks);
	t->handler_ticks = 0;
	for (int i = 0; i < FOLD_DROP_NREASONS; i++) {
		atomic_fetch_add(&rt__proc.dropped[i], t->dropped[i]);
		atomic_fetch_add(&rt__proc.dropped_cpu_ns[i], t->dropped_cpu_ns[i]);
	}
	for (int i = 0; i < FOLD_LEAF_ONLY_NREASONS; i++)
		atomic_fetch_add(&rt__proc.leaf_only[i], t->leaf_only[i]);
	atomic_fetch_add(&rt__proc.unbalanced, t->unbalanced);
	atomic_fetch_add(&rt__proc.region_events_lost, t->ndeferred_lost + t->ndeferred);
	t->ndeferred_lost = 0;
	t->ndeferred = 0;
	t->samples_taken = 0;
	t->sealed_samples = 0;
	memset(t->dropped, 0, sizeof t->dropped);
	memset(t->dropped_cpu_ns, 0, sizeof t->dropped_cpu_ns);
	memset(t->leaf_only, 0, sizeof t->leaf_only);
	t->unbalanced = 0;
}

void rt__thread_end(rt_thread *t)
{
	if (!t || rt__tls_thread != t)
		return;
	rt__lock(&rt__threads_lock);
	t->busy++;
	atomic_signal_fence(memory_order_seq_cst);
	rt__sampling_thread_stop(t);
	if (!atomic_load(&rt__proc.stop) && t->cur) {
		if (t->region_depth) {
			char text[96];
			snprintf(text, sizeof text,
			         "unbalanced: thread ended inside %u region(s), innermost %u",
			         t->region_depth, t->region_stack[(t->region_depth - 1) % FOLD_REGION_STACK]);
			rt__marker(t, text);
			t->unbalanced++;
		}
		uint64_t tick = rt__tick();
		if (trace_enc_thread_end(&t->enc, tick) == -ENOSPC && rt__thread_swap_buffer(t) == 0)
			trace_enc_thread_end(&t->enc, tick);
		rt__thread_seal(t);
	}
	if (t->cur) { /* stopped for good (after the final flush): drop it */
		rt__buf_release(t->cur);
		t->cur = NULL;
	}
	if (!t->sandboxed) { /* else their system calls may be denied; they end with the process */
		rt__counters_thread_stop(t);
		rt__altstack_stop(t);
	}
	add_totals(t);
	rt__tls_thread = NULL;
	atomic_store(&t->alive, 0);
	free_list[nfree++] = t;
	rt__unlock(&rt__threads_lock);
}

rt_thread *rt__thread(void)
{
	rt_thread *t = rt__tls_thread;
	if (__builtin_expect(t != NULL, 1))
		return t;
	if (tls_starting)
		return NULL;
	int phase = atomic_load(&rt__proc.phase);
	if (phase == FOLD_UNINIT) {
		rt__init();
		t = rt__tls_thread;
		if (t)
			return t;
		phase = atomic_load(&rt__proc.phase);
	}
	if (phase != FOLD_RUNNING || atomic_load(&rt__proc.stop))
		return NULL;
	/* A thread we did not create (started before us, or by clone). */
	t = rt__thread_begin(0, "adopted");
	if (t) {
		pthread_once(&adopt_once, adopt_key_init);
		pthread_setspecific(adopt_key, t);
	}
	return t;
}

void rt__threads_after_fork(rt_thread *self)
{
	pthread_mutex_init(&rt__threads_lock, NULL);
	nfree = 0;
	unsigned n = atomic_load(&nslots);
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = slots[i];
		if (t == self)
			continue;
		if (t->cur) { /* the parent writes those; here they are stale */
			rt__buf_release(t->cur);
			t->cur = NULL;
		}
		if (atomic_load(&t->alive)) { /* the child's copies of that thread's descriptors */
			rt__counters_thread_stop(t);
			rt__fd_after_fork_forget(t->sample_fd);
			t->sample_fd = -1;
		}
		atomic_store(&t->alive, 0);
		free_list[nfree++] = t;
	}
	atomic_store(&next_stream, 1);
}

/* ---------------------------------------------------------------- pthread_create */

struct start_arg {
	void *(*fn)(void *);
	void *arg;
	uint32_t parent;
	uint64_t vmask; /* the creator's view of fold's signals (rt_sigmask.c) */
};

static void trampoline_cleanup(void *arg)
{
	rt_thread *t = arg;
	int old;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &old);
	if (t)
		rt__thread_end(t);
	pthread_setcancelstate(old, NULL);
}

static void *trampoline(void *p)
{
	struct start_arg sa = *(struct start_arg *)p;
	free(p);
	rt__tls_vmask = sa.vmask; /* the kernel's mask is inherited, so is the view */
	/* A pthread_cancel that reaches the thread before its start routine
	 * acts at the routine's first cancellation point, not inside fold's
	 * set-up (which would leave its descriptors and state behind). */
	int cancel;
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	rt_thread *t = thread_begin(sa.parent, "", 1);
	pthread_setcancelstate(cancel, NULL);
	void *ret;
	pthread_cleanup_push(trampoline_cleanup, t);
	ret = sa.fn(sa.arg);
	pthread_cleanup_pop(1);
	return ret;
}

typedef int (*pthread_create_fn)(pthread_t *, const pthread_attr_t *, void *(*)(void *), void *);

FOLD_EXPORT int pthread_create(pthread_t *th, const pthread_attr_t *attr, void *(*fn)(void *), void *arg)
{
	static pthread_create_fn real;
	if (!real)
		real = (pthread_create_fn)rt__real("pthread_create");
	if (!real)
		return EAGAIN;
	if (atomic_load(&rt__proc.phase) == FOLD_UNINIT)
		rt__init();
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return real(th, attr, fn, arg);
	struct start_arg *sa = malloc(sizeof *sa);
	if (!sa)
		return real(th, attr, fn, arg);
	rt_thread *self = rt__tls_thread;
	sa->fn = fn;
	sa->arg = arg;
	sa->parent = self ? self->stream : 0;
	sa->vmask = rt__tls_vmask;
	int rc = real(th, attr, trampoline, sa);
	if (rc)
		free(sa);
	return rc;
}
