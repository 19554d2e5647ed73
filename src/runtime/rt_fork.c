/* rt_fork.c: the fork protocol.
 *
 * Before fork the forking thread takes every runtime lock (registered
 * module locks first, then the core locks in their order, fold_rt.h), stops
 * sampling and waits for sample handlers in flight; the parent releases them
 * afterwards. The child re-creates the locks and, when measuring, starts a
 * trace file of its own: fresh counters and totals, a new process stream
 * (rt__proc_start with the parent's pid), the module map and region
 * definitions re-emitted, and the forking thread continued as stream 1.
 *
 * Invariants:
 *  - A child never inherits a lock another thread of its parent held.
 *  - No sample handler is inside libunwind at the fork (wait_for_handlers).
 *  - What the parent recorded belongs to the parent's file only.
 */
#include "fold_rt.h"

#include <errno.h>
#include <sched.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "trace_chunk.h"

#define MAX_FORK_LOCKS 16
static pthread_mutex_t *fork_locks[MAX_FORK_LOCKS];
static _Atomic unsigned nfork_locks;
static pthread_mutex_t fork_locks_lock = PTHREAD_MUTEX_INITIALIZER;

int rt__fork_lock_register(pthread_mutex_t *lock)
{
	int rc = 0;
	pthread_mutex_lock(&fork_locks_lock);
	unsigned n = atomic_load(&nfork_locks);
	for (unsigned i = 0; i < n; i++)
		if (fork_locks[i] == lock)
			goto out;
	if (n == MAX_FORK_LOCKS) {
		rc = -ENOSPC;
		goto out;
	}
	fork_locks[n] = lock;
	atomic_store(&nfork_locks, n + 1);
out:
	pthread_mutex_unlock(&fork_locks_lock);
	return rc;
}

/* The core locks after threads_lock, in order. */
static pthread_mutex_t *const core_locks[] = {&rt__reg_lock, &rt__app_lock, &rt__mod_lock,
                                              &rt__proc.proc_lock, &rt__grow_lock};
#define NCORE (sizeof core_locks / sizeof core_locks[0])

/* rt__proc.stop as it was before a fork raised it. */
static int fork_saved_stop;

/* No other thread may be inside its sample handler at the fork: its
 * unwinder holds libunwind's lock for a moment (a thread's first sample
 * creates its cache under it), and the child would inherit that lock taken
 * and block in its own first sample. New samples are dropped (stop); those
 * in flight take microseconds and are waited for. A thread busy in an API
 * call that waits for a lock the forking thread holds is not waited for
 * beyond the bound (no handler of it can be in flight then). */
static void wait_for_handlers(const rt_thread *self)
{
	unsigned n = rt__thread_slots();
	int budget = 20000; /* sched_yield()s in all: a few ms at most */
	for (unsigned i = 0; i < n && budget > 0; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (t == self || !atomic_load(&t->alive))
			continue;
		while (t->busy && budget-- > 0)
			sched_yield();
	}
}

static void rt_atfork_prepare(void)
{
	/* The stop figure, settled and published for the child (and what it
	 * execs), unless the fork interrupted fold's own code (a program's
	 * handler), which may hold the process stream's lock. */
	if (!rt__tls_thread || !rt__tls_thread->busy)
		rt__stop_settle(RT_STOP_SPAWN);
	/* Registered (outer) locks first; our busy guard goes up only once we
	 * own threads_lock, so a quiesce in progress, which holds it and waits
	 * for busy threads, is never waiting for us. */
	rt__tls_defer++; /* fold's locks from here to the parent or child handler */
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(&fork_locks_lock);
	unsigned n = atomic_load(&nfork_locks);
	for (unsigned i = 0; i < n; i++)
		pthread_mutex_lock(fork_locks[i]);
	pthread_mutex_lock(&rt__threads_lock);
	rt_thread *self = rt__tls_thread;
	if (self)
		self->busy++;
	fork_saved_stop = atomic_exchange(&rt__proc.stop, 1);
	rt__membarrier_all();
	wait_for_handlers(self);
	for (unsigned i = 0; i < NCORE; i++)
		pthread_mutex_lock(core_locks[i]);
}

static void unlock_registered(void)
{
	unsigned n = atomic_load(&nfork_locks);
	while (n--)
		pthread_mutex_unlock(fork_locks[n]);
	pthread_mutex_unlock(&fork_locks_lock);
}

static void rt_atfork_parent(void)
{
	atomic_store(&rt__proc.stop, fork_saved_stop);
	for (unsigned i = NCORE; i--;)
		pthread_mutex_unlock(core_locks[i]);
	rt_thread *self = rt__tls_thread;
	if (self)
		self->busy--;
	pthread_mutex_unlock(&rt__threads_lock);
	unlock_registered();
	atomic_signal_fence(memory_order_seq_cst);
	rt__tls_defer--;
	if (rt__tls_deferred)
		rt__deliver_deferred();
}

static void rt_atfork_child(void)
{
	rt__pool_unshare();
	rt_thread *self = rt__tls_thread;
	atomic_store(&rt__proc.stop, fork_saved_stop);
	/* This thread took every lock: they are free again, whatever the
	 * parent's other threads (gone here) were doing. */
	for (unsigned i = 0; i < NCORE; i++)
		pthread_mutex_init(core_locks[i], NULL);
	unlock_registered();
	rt__tls_defer--;
	rt__deferred_after_fork();
	pid_t parent = rt__proc.pid;
	rt__proc.pid = getpid();
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING) {
		pthread_mutex_init(&rt__threads_lock, NULL);
		if (self)
			self->busy--;
		return;
	}
	/* Fresh state: the parent owns everything recorded so far, its live
	 * file included. */
	rt__fd_close(&rt__proc.fd);
	rt__pool_live_forget();
	if (rt__proc.proc_buf)
		rt__buf_release(rt__proc.proc_buf);
	rt__proc.proc_buf = NULL;
	rt__threads_after_fork(self);
	if (self && self->cur) {
		rt__buf_release(self->cur);
		self->cur = NULL;
	}
	int out = rt__output_start(); /* the child's trace and live file */
	rt__pool_after_fork();
	atomic_store(&rt__proc.threads_total, 0);
	atomic_store(&rt__proc.samples_taken, 0);
	atomic_store(&rt__proc.handler_ticks, 0);
	atomic_store(&rt__proc.unbalanced, 0);
	for (int r = 0; r < FOLD_DROP_NREASONS; r++) {
		atomic_store(&rt__proc.dropped[r], 0);
		atomic_store(&rt__proc.dropped_cpu_ns[r], 0);
	}
	for (int r = 0; r < FOLD_LEAF_ONLY_NREASONS; r++)
		atomic_store(&rt__proc.leaf_only[r], 0);
	atomic_store(&rt__proc.bytes_raw, 0);
	atomic_store(&rt__proc.chunks_written, 0);
	atomic_store(&rt__proc.chunks_lost, 0);
	atomic_store(&rt__proc.samples_lost, 0);
	atomic_store(&rt__proc.threads_unmeasured, 0);
	rt__proc.write_errno = 0;
	rt__clock_now(&rt__proc.clock.tick0, &rt__proc.clock.mono0, &rt__proc.clock.real0);
	if (out) {
		atomic_store(&rt__proc.phase, FOLD_FINISHED);
		if (self) {
			if (self->cur)
				rt__buf_release(self->cur);
			self->cur = NULL;
			rt__tls_thread = NULL;
		}
		return;
	}
	rt__proc_start(parent);
	rt__counters_init();
	rt__parent_view_forget();
	rt__stop_after_fork();
	rt__modules_reset_after_fork();
	rt__modules_scan();
	rt__regions_reemit();
	rt__proc_seal();
	if (self) {
		/* The forking thread continues as stream 1 of the new file. */
		if (self->cur)
			rt__buf_release(self->cur);
		self->cur = NULL;
		self->stream = rt__next_stream();
		self->parent_stream = 0;
		self->seq = 0;
		self->tid = (pid_t)syscall(SYS_gettid);
		self->samples_taken = 0;
		self->handler_ticks = 0;
		memset(self->dropped, 0, sizeof self->dropped);
		memset(self->dropped_cpu_ns, 0, sizeof self->dropped_cpu_ns);
		memset(self->leaf_only, 0, sizeof self->leaf_only);
		self->unbalanced = 0;
		self->napp_set = 0;
		trace_enc_init(&self->enc, self->stacks);
		rt__thread_fresh_buffer(self);
		trace_enc_thread_start(&self->enc, (uint64_t)self->tid, 0, rt__tick(), "main");
		atomic_store(&rt__proc.threads_total, 1);
		self->timer_ok = 0; /* POSIX timers are not inherited */
		self->papi_eventset = -1;
		if (self->sample_fd >= 0) /* the parent thread's event */
			rt__fd_close(&self->sample_fd);
		if (rt__proc.source == &rt__source_papi) {
			rt__papi_after_fork();
			if (rt__proc.source->configure()) {
				rt__proc.cfg.source = FOLD_SOURCE_OFF;
				rt__proc_info("sample.source", "off");
			}
		}
		rt__counters_thread_start(self);
		rt__counter_set_refresh(self);
		self->last_cpu_ns = rt__cpu_base(self);
		rt__sampling_thread_start(self);
	}
	pthread_mutex_init(&rt__threads_lock, NULL);
	if (self)
		self->busy--;
}

/* Installs the fork handlers once (from rt__init). */
void rt__fork_install(void)
{
	static int done;
	if (!done) {
		pthread_atfork(rt_atfork_prepare, rt_atfork_parent, rt_atfork_child);
		done = 1;
	}
}
