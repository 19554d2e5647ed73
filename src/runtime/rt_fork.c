/* rt_fork.c: the fork protocol.
 *
 * Before fork the forking thread takes every runtime lock (registered
 * module locks first, then the core locks in their order, fold_rt.h), stops
 * sampling and waits for sample handlers in flight; the parent releases them
 * afterwards. The child re-creates the locks and, when measuring, starts a
 * trace file of its own: fresh counters and totals, a new process stream
 * (fold__proc_start with the parent's pid), the module map and region
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

int fold__fork_lock_register(pthread_mutex_t *lock)
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
static pthread_mutex_t *const core_locks[] = {&fold__reg_lock, &fold__app_lock, &fold__mod_lock, &fold__rt.proc_lock,
                                              &fold__grow_lock};
#define NCORE (sizeof core_locks / sizeof core_locks[0])

/* fold__rt.stop as it was before a fork raised it. */
static int fork_saved_stop;

/* No other thread may be inside its sample handler at the fork: its
 * unwinder holds libunwind's lock for a moment (a thread's first sample
 * creates its cache under it), and the child would inherit that lock taken
 * and block in its own first sample. New samples are dropped (stop); those
 * in flight take microseconds and are waited for. A thread busy in an API
 * call that waits for a lock the forking thread holds is not waited for
 * beyond the bound (no handler of it can be in flight then). */
static void wait_for_handlers(const fold_thread *self)
{
	unsigned n = fold__thread_slots();
	int budget = 20000; /* sched_yield()s in all: a few ms at most */
	for (unsigned i = 0; i < n && budget > 0; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (t == self || !atomic_load(&t->alive))
			continue;
		while (t->busy && budget-- > 0)
			sched_yield();
	}
}

static void fold_atfork_prepare(void)
{
	/* Registered (outer) locks first; our busy guard goes up only once we
	 * own threads_lock, so a quiesce in progress, which holds it and waits
	 * for busy threads, is never waiting for us. */
	pthread_mutex_lock(&fork_locks_lock);
	unsigned n = atomic_load(&nfork_locks);
	for (unsigned i = 0; i < n; i++)
		pthread_mutex_lock(fork_locks[i]);
	pthread_mutex_lock(&fold__threads_lock);
	fold_thread *self = fold__tls_thread;
	if (self)
		self->busy++;
	fork_saved_stop = atomic_exchange(&fold__rt.stop, 1);
	fold__membarrier_all();
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

static void fold_atfork_parent(void)
{
	atomic_store(&fold__rt.stop, fork_saved_stop);
	for (unsigned i = NCORE; i--;)
		pthread_mutex_unlock(core_locks[i]);
	fold_thread *self = fold__tls_thread;
	if (self)
		self->busy--;
	pthread_mutex_unlock(&fold__threads_lock);
	unlock_registered();
}

static void fold_atfork_child(void)
{
	fold_thread *self = fold__tls_thread;
	atomic_store(&fold__rt.stop, fork_saved_stop);
	/* This thread took every lock: they are free again, whatever the
	 * parent's other threads (gone here) were doing. */
	for (unsigned i = 0; i < NCORE; i++)
		pthread_mutex_init(core_locks[i], NULL);
	unlock_registered();
	pid_t parent = fold__rt.pid;
	fold__rt.pid = getpid();
	if (atomic_load(&fold__rt.phase) != FOLD_RUNNING) {
		pthread_mutex_init(&fold__threads_lock, NULL);
		if (self)
			self->busy--;
		return;
	}
	/* Fresh state: the parent owns everything recorded so far. */
	fold__fd_close(&fold__rt.fd);
	if (fold__rt.proc_buf)
		fold__buf_release(fold__rt.proc_buf);
	fold__rt.proc_buf = NULL;
	fold__threads_after_fork(self);
	fold__pool_after_fork();
	atomic_store(&fold__rt.threads_total, 0);
	atomic_store(&fold__rt.samples_taken, 0);
	atomic_store(&fold__rt.handler_ticks, 0);
	atomic_store(&fold__rt.unbalanced, 0);
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		atomic_store(&fold__rt.dropped[r], 0);
	atomic_store(&fold__rt.bytes_raw, 0);
	atomic_store(&fold__rt.chunks_written, 0);
	atomic_store(&fold__rt.chunks_lost, 0);
	atomic_store(&fold__rt.samples_lost, 0);
	atomic_store(&fold__rt.threads_unmeasured, 0);
	fold__rt.write_errno = 0;
	fold__clock_now(&fold__rt.clock.tick0, &fold__rt.clock.mono0, &fold__rt.clock.real0);
	if (fold__output_start()) {
		atomic_store(&fold__rt.phase, FOLD_FINISHED);
		if (self) {
			if (self->cur)
				fold__buf_release(self->cur);
			self->cur = NULL;
			fold__tls_thread = NULL;
		}
		return;
	}
	fold__proc_start(parent);
	fold__counters_init();
	fold__modules_reset_after_fork();
	fold__modules_scan();
	fold__regions_reemit();
	fold__proc_seal();
	if (self) {
		/* The forking thread continues as stream 1 of the new file. */
		if (self->cur)
			fold__buf_release(self->cur);
		self->cur = NULL;
		self->stream = fold__next_stream();
		self->parent_stream = 0;
		self->seq = 0;
		self->tid = (pid_t)syscall(SYS_gettid);
		self->samples_taken = 0;
		self->handler_ticks = 0;
		memset(self->dropped, 0, sizeof self->dropped);
		self->unbalanced = 0;
		self->napp_set = 0;
		trace_enc_init(&self->enc, self->stacks);
		fold__thread_fresh_buffer(self);
		trace_enc_thread_start(&self->enc, (uint64_t)self->tid, 0, fold__tick(), "main");
		atomic_store(&fold__rt.threads_total, 1);
		self->timer_ok = 0; /* POSIX timers are not inherited */
		self->papi_eventset = -1;
		if (self->sample_fd >= 0) /* the parent thread's event */
			fold__fd_close(&self->sample_fd);
		if (fold__rt.source == &fold__source_papi) {
			fold__papi_after_fork();
			if (fold__rt.source->configure()) {
				fold__rt.cfg.source = FOLD_SOURCE_OFF;
				fold__proc_info("sample.source", "off");
			}
		}
		fold__counters_thread_start(self);
		fold__counter_set_refresh(self);
		self->last_cpu_ns = fold__cpu_base(self);
		fold__sampling_thread_start(self);
	}
	pthread_mutex_init(&fold__threads_lock, NULL);
	if (self)
		self->busy--;
}

/* Installs the fork handlers once (from fold__init). */
void fold__fork_install(void)
{
	static int done;
	if (!done) {
		pthread_atfork(fold_atfork_prepare, fold_atfork_parent, fold_atfork_child);
		done = 1;
	}
}
