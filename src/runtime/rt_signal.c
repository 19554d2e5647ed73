/* rt_signal.c: the signal path: sample handler, crash handler, and how the
 * program's own signal handlers keep working next to ours. The sample
 * sources that raise the sample signal are rt_source_time.c (POSIX timers),
 * rt_source_perf.c and rt_source_papi.c (counter overflow).
 *
 * Signal-path invariants (everything reachable from rt_on_sample, on_fatal and
 * the PAPI overflow callback must keep them):
 *
 *  1. Async-signal-safe calls only: no malloc/free, no stdio, no locks, no
 *     PAPI_read, no dl* calls. Allowed: the trace encoder (pure memory),
 *     the chunk writer of invariant 7 (its compressor's memory is a static
 *     arena), read(2) on our perf fds, clock_gettime, timer_settime,
 *     sem_post, write/writev, unw_backtrace, atomics. libunwind's
 *     process-wide state is initialised once at start (rt__unwind_warm);
 *     a thread's first unw_backtrace, in its first sample, creates its
 *     trace cache (mmap, under a lock libunwind takes with all signals
 *     blocked) and walks the loader's list (dl_iterate_phdr: a recursive
 *     lock, so a thread interrupted inside it does not deadlock; dlopen is
 *     excluded by invariant 4); it never calls malloc.
 *  2. Memory is preallocated: the thread's state and its current chunk
 *     buffer; a full buffer is handed over with rt__buf_submit and replaced
 *     by rt__buf_claim (both lock-free). No free buffer: the sample is
 *     dropped and counted (buffer_full), never waited for.
 *  3. errno is saved on entry and restored on every exit path.
 *  4. Re-entrancy guard: t->busy > 0 means the thread was interrupted inside
 *     the runtime (an API call, a hook, a flush): the sample is dropped and
 *     counted (in_runtime). Inside the loader (t->in_dlopen) nothing is
 *     unwound: the loader's state is inconsistent while it maps objects,
 *     and inside dl_iterate_phdr (wrapped in rt_modules.c) the thread holds
 *     the loader lock that the unwinder takes after its own lock, so
 *     unwinding there could deadlock against another thread's sample. The
 *     sample keeps its leaf, the interrupted pc, with the frame
 *     TRACE_FRAME_NOT_UNWOUND_LOADER after it (counted: leaf_only), and no
 *     flush runs; without a pc it is dropped (in_dlopen).
 *  5. The handler raises t->busy itself while it records, and records
 *     nothing when the process is stopped (exit, exec, fork) or paused.
 *  6. Counter values come from one read(2) of the thread's perf group fd (no
 *     PAPI call), app counters from the thread's own array: nothing that
 *     another thread may be changing.
 *  7. Compression and file writes happen in whichever thread seals a chunk,
 *     in the sample handler too (one writer at a time, zstd or zlib on a
 *     static arena: rt_pool.c), except on the crash path, which writes raw
 *     chunks (trace_chunk_write_raw) and then re-raises the signal with the
 *     default action.
 *  8. A signal that is not ours (another sender of the sampling signal) goes
 *     to the program's handler as if we were not there.
 *  9. The program never sees our signal: every sampling signal bumps this
 *     thread's rt__tls_sig_ours, every run of a program handler bumps
 *     rt__tls_sig_app (the program's handlers are installed through our
 *     sigaction/signal wrappers, behind the on_program_signal trampoline,
 *     with the program's own mask and flags; the program reads back exactly
 *     what it installed). The blocking calls Linux never restarts (rt_wait.c)
 *     are restarted towards their absolute deadline when they fail with
 *     EINTR and only ours moved, so sleep/poll/select/epoll/sigtimedwait/
 *     pause/sem_timedwait... last as long and return what they would without
 *     fold, while a signal of the program's own still interrupts them. Not
 *     covered: handlers installed with the raw rt_sigaction system call
 *     (never counted: a call our signal also interrupted is then restarted),
 *     and calls made with syscall(2) or with a socket timeout
 *     (SO_RCVTIMEO/SO_SNDTIMEO), which still see EINTR.
 * 10. Our signals are never blocked, waited for or read by the program
 *     (rt_sigmask.c strips them from every mask and set it passes, a
 *     program handler's sa_mask included) and the program reads its masks
 *     back as it set them (rt__tls_vmask). A thread that blocks them
 *     anyway (raw system call) loses samples: counted at timer deletion
 *     (signal_blocked) and said once on stderr.
 * 11. Our handlers run on fold's own alternate stack (rt_altstack.c,
 *     SA_ONSTACK), never on the program's stack (a 4 KiB coroutine stack
 *     has no room for a sample); the program's sigaltstack settings are
 *     virtual and its SA_ONSTACK handlers are moved onto its own stack.
 * 12. The sample handler runs with every asynchronous signal blocked, so no
 *     program handler can interrupt it (and siglongjmp out with t->busy
 *     raised), and re-arms the one-shot timer before it records anything:
 *     nothing a sample does can end the thread's sampling. The synchronous
 *     faults stay unblocked so a fault in the handler reaches on_fatal.
 * 13. Fatal signals: a default we took over at start stays ours when the
 *     program sets SIG_DFL again (libgfortran's re-raise); a handler of the
 *     program's for a kernel-raised fault (SIGSEGV, SIGBUS, SIGFPE, SIGILL)
 *     or for SIGABRT runs after the trace is flushed (flush_before_handler,
 *     at most once per FOLD_MIN_FLUSH_INTERVAL), so whatever it does next
 *     (_exit, SA_RESETHAND re-fault) loses at most that; recording goes on,
 *     and the trace says the process died of a signal only when it does
 *     (crash_flush, from on_fatal): a handler may return or jump out (a
 *     test framework's caught abort, a GC write barrier). Asynchronous
 *     fatal signals (SIGTERM, SIGINT...) go to the program's handler
 *     first: it may survive them; its exit or SIG_DFL re-raise reaches our
 *     flush.
 * 14. A program handler never runs inside fold: an asynchronous signal for
 *     one that arrives while the thread is in the runtime (its guard up) or
 *     holds one of fold's locks (rt__lock) is kept pending (re-queued with
 *     its siginfo, blocked in the interrupted context's mask) and let in
 *     when the thread leaves (rt__deliver_deferred): a handler that
 *     siglongjmps out, forks or calls fold could otherwise leave a lock
 *     held or a record half written. Faults the kernel raises on an
 *     instruction (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS with
 *     si_code > 0) cannot wait and run at once.
 *
 * tests/integration/runtime/prog_nomalloc.c checks invariant 1 for malloc
 * with an interposed allocator.
 */
#include "fold_rt.h"
#include "rt_sys.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#include "trace_chunk.h"

typedef int (*sigaction_fn)(int, const struct sigaction *, struct sigaction *);
static sigaction_fn real_sigaction;

/* What the program asked for, for signals whose kernel disposition is ours. */
static struct sigaction app_action[NSIG];
static volatile sig_atomic_t ours[NSIG];    /* 1: our handler is installed */
static volatile sig_atomic_t wrapped[NSIG]; /* 1: on_program_signal is, for app_action */
static int sample_signo;

FOLD_TLS volatile unsigned rt__tls_sig_ours;
FOLD_TLS volatile unsigned rt__tls_sig_app;
FOLD_TLS volatile uint64_t rt__tls_deferred;
FOLD_TLS volatile unsigned rt__tls_defer;

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGFPE,  SIGILL,  SIGABRT, SIGTERM,
                                    SIGINT,  SIGHUP, SIGQUIT, SIGXCPU, SIGPIPE};

static int is_fatal(int sig)
{
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++)
		if (fatal_signals[i] == sig)
			return 1;
	return 0;
}

static int call_real_sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (!real_sigaction)
		real_sigaction = (sigaction_fn)rt__real("sigaction");
	if (!real_sigaction) {
		errno = ENOSYS;
		return -1;
	}
	return real_sigaction(sig, act, old);
}

/* ---------------------------------------------------------------- samples */

static inline uint64_t next_rand(rt_thread *t)
{
	uint64_t x = t->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	t->rng = x;
	return x * 0x2545f4914f6cdd1dull;
}

uint64_t rt__next_rand(rt_thread *t)
{
	return next_rand(t);
}

uint64_t rt__next_period(rt_thread *t)
{
	uint64_t p = rt__proc.cfg.period;
	double j = rt__proc.cfg.jitter;
	if (j <= 0)
		return p;
	double u = (double)(next_rand(t) >> 11) * (1.0 / 9007199254740992.0); /* [0,1) */
	double f = 1.0 + j * (2.0 * u - 1.0);
	return (uint64_t)((double)p * f);
}

/* The interrupted program counter, 0 when unknown. */
static uint64_t interrupted_pc(void *ucv)
{
	uint64_t pc = 0;
#if defined(__x86_64__)
	if (ucv)
		pc = (uint64_t)((ucontext_t *)ucv)->uc_mcontext.gregs[REG_RIP];
#else
	(void)ucv;
#endif
	return pc;
}

/* The leaf alone, then a frame that says why (TRACE_FRAME_NOT_UNWOUND_*),
 * so that the analysis does not take the leaf for a thread's root. */
static unsigned leaf_only(uint64_t pc, uint64_t why, uint64_t *frames, unsigned max)
{
	if (!pc || !max)
		return 0;
	frames[0] = pc;
	if (max < 2)
		return 1;
	frames[1] = why;
	return 2;
}

/* fold's trampolines (FOLD_TRAMPOLINE) and the signal return they come
 * from: a sample taken in them belongs to the code the signal interrupted
 * (both signals were pending at once: the sample's frame was built at the
 * program handler's first instruction), and their frames under a program
 * handler are not the program's. */
extern const char __start_fold_tramp[] __attribute__((visibility("hidden")));
extern const char __stop_fold_tramp[] __attribute__((visibility("hidden")));
static uint64_t sig_restorer; /* the signal frames' return address, 0: unknown */

static inline int in_trampoline(uint64_t pc)
{
	return pc >= (uint64_t)(uintptr_t)__start_fold_tramp && pc < (uint64_t)(uintptr_t)__stop_fold_tramp;
}

static unsigned unwind(void *ucv, uint64_t *frames, unsigned max)
{
	if (!max)
		return 0;
	void *raw[TRACE_MAX_DEPTH + 16];
	uint64_t pc = interrupted_pc(ucv);
	int n = rt__unwind_backtrace(raw, (int)(max + 16));
	if (n <= 0)
		return leaf_only(pc, TRACE_FRAME_NOT_UNWOUND_FAILED, frames, max);
	/* Drop our own frames and the signal trampoline: start at the
	 * interrupted pc. */
	int start = -1;
	for (int i = 0; i < n && i < 8; i++)
		if ((uint64_t)raw[i] == pc) {
			start = i;
			break;
		}
	if (start < 0)
		return leaf_only(pc, TRACE_FRAME_NOT_UNWOUND_FAILED, frames, max);
	unsigned d = 0;
	for (int i = start; i < n && d < max; i++) {
		uint64_t f = (uint64_t)raw[i];
		if (in_trampoline(f))
			continue;
		/* a leaf in a trampoline: the interrupted code is the leaf */
		if (!d && i > start && f == sig_restorer && in_trampoline((uint64_t)raw[i - 1]))
			continue;
		frames[d++] = f;
	}
	return d;
}

/* What the sample just recorded cost the program (trace_enc_sample_cost):
 * the handler's time from its entry (or from stamp_ns, when the entry is
 * unknown) to now, the lag of the sample's timestamp (taken at stamp_ns)
 * after the entry, and, for a wall-clock timer's signal, the delivery: the
 * entry less the timer's deadline, the kernel's stop of the program before
 * the handler (interrupt, VM exit, signal frame: about 33 us of a sample's
 * 48 us on a 2-core VM, where a program timing itself sees it stalled from
 * the deadline on, not running late). Left out (unknown) when it cannot be
 * one: an entry before the deadline (a signal raised before a re-arm), or
 * a period or more after a deadline that may be an earlier arm's (the
 * timer was last armed outside the handler). A period or more after a
 * deadline the handler armed is a wait off the CPU (a preempted or
 * descheduled thread runs its handler when it runs again), which fold
 * needs to know most of all. A full buffer loses the record, not the
 * sample: the cost is then unknown. */
static void record_cost(rt_thread *t, uint64_t stamp_ns)
{
	uint64_t from = t->sample_entry && t->sample_entry <= stamp_ns ? t->sample_entry : stamp_ns;
	uint64_t now = rt__ns(CLOCK_MONOTONIC);
	uint64_t due = t->sample_deadline, entry = t->sample_entry;
	uint64_t delivery = due && entry >= due && (entry - due < t->armed_for || !t->sample_deadline_unsure)
	                        ? entry - due
	                        : TRACE_UNKNOWN;
	trace_enc_sample_cost(&t->enc, now > from ? now - from : 0, stamp_ns - from, delivery);
}

/* A dropped sample's CPU time since the thread's previous sample, counted
 * by reason (stat samples.dropped_cpu_ns.REASON) and taken out of the next
 * recorded sample's: that sample would otherwise carry it to its own stack
 * (a run of samples dropped in the loader at MPI_Init put 10-20 ms on one
 * sample in an MPI library's function). read: read the counters first,
 * whose group's CPU time is the one samples delta against. Not where the
 * runtime may be reading them itself (in_runtime: the next sample keeps
 * that time, a few samples' worth). */
static void drop_cpu(rt_thread *t, int reason, int read)
{
	if (read && t->nhw) {
		uint64_t ctr[TRACE_MAX_COUNTERS];
		rt__read_counters(t, ctr);
	}
	uint64_t cpu = rt__sample_cpu_ns(t);
	if (cpu >= t->last_cpu_ns)
		t->dropped_cpu_ns[reason] += cpu - t->last_cpu_ns;
	t->last_cpu_ns = cpu;
}

void rt__sample(rt_thread *t, void *uc)
{
	/* inside fold, or inside an unwind of fold's (an MPI call's path, a
	 * handler's check for abort): never a second unwind on top of it */
	if (t->busy || rt__tls_unwinding) {
		t->dropped[FOLD_DROP_IN_RUNTIME]++;
		return;
	}
	/* Inside the dynamic loader: no unwinding (invariant 4), the leaf only,
	 * which is where the time went (a plugin's constructor, the loader's
	 * relocations: 30 ms in every Open MPI MPI_Init). */
	int in_loader = t->in_dlopen != 0;
	if (in_loader && !(interrupted_pc(uc) && rt__proc.cfg.stack_depth)) {
		t->dropped[FOLD_DROP_IN_DLOPEN]++;
		t->busy = 1;
		atomic_signal_fence(memory_order_seq_cst);
		drop_cpu(t, FOLD_DROP_IN_DLOPEN, 1);
		atomic_signal_fence(memory_order_seq_cst);
		t->busy = 0;
		return;
	}
	/* API events kept from another thread's fork (rt_api.c) are recorded
	 * at the thread's next API event, with their ticks: a sample before
	 * that would come first in the stream though it came after them */
	if (FOLD_UNLIKELY(t->ndeferred)) {
		t->dropped[FOLD_DROP_STOPPED]++;
		return;
	}
	t->busy = 1;
	atomic_signal_fence(memory_order_seq_cst);
	if (atomic_load_explicit(&rt__proc.stop, memory_order_relaxed)) {
		t->dropped[FOLD_DROP_STOPPED]++;
		goto out;
	}
	if (atomic_load_explicit(&rt__proc.paused, memory_order_relaxed)) {
		t->dropped[FOLD_DROP_PAUSED]++;
		drop_cpu(t, FOLD_DROP_PAUSED, 1);
		goto out;
	}
	if (!t->cur) {
		rt__thread_fresh_buffer(t);
		if (!t->cur) {
			t->dropped[FOLD_DROP_BUFFER_FULL]++;
			drop_cpu(t, FOLD_DROP_BUFFER_FULL, 1);
			goto out;
		}
	}
	/* The timestamp right before the counters, the unwinding after them:
	 * the values are then those of the moment the sample is placed at, to
	 * within the read itself. With the unwinding in between, every
	 * sample's CPU clock was about 4 us ahead of its position (8% of a
	 * 54 us instance); now it is one read(2) ahead (1.1 us on a VM; with
	 * the timestamp after the read, 0.4 us behind), since enter and exit
	 * read before their timestamp. The analysis measures what is left in
	 * instances that ran on the CPU throughout and takes it out
	 * (src/fold/run/perturb.c, align_cpu_clock). */
	uint64_t stamp_ns = rt__ns(CLOCK_MONOTONIC);
	uint64_t tick = rt__tick();
	rt__counter_set_refresh(t);
	uint64_t ctr[TRACE_MAX_COUNTERS];
	rt__read_counters(t, ctr);
	uint64_t frames[TRACE_MAX_DEPTH];
	unsigned depth = in_loader ? leaf_only(interrupted_pc(uc), TRACE_FRAME_NOT_UNWOUND_LOADER, frames,
	                                       rt__proc.cfg.stack_depth)
	                 : FOLD_UNLIKELY(rt__proc.cfg.unwind_off)
	                     ? leaf_only(interrupted_pc(uc), TRACE_FRAME_NOT_UNWOUND_FAILED, frames,
	                                 rt__proc.cfg.stack_depth)
	                     : unwind(uc, frames, rt__proc.cfg.stack_depth);
	if (depth == 2 && frames[1] <= TRACE_FRAME_NOT_UNWOUND_FAILED)
		t->leaf_only[frames[1] == TRACE_FRAME_NOT_UNWOUND_LOADER ? FOLD_LEAF_ONLY_LOADER
		                                                         : FOLD_LEAF_ONLY_UNWIND]++;
	if (!depth && rt__proc.cfg.stack_depth) {
		t->dropped[FOLD_DROP_UNWIND_FAILED]++;
		drop_cpu(t, FOLD_DROP_UNWIND_FAILED, 0);
		goto out;
	}
	/* CPU time: the counter group's enabled time, from the same read(2) or
	 * rdpmc page; CLOCK_THREAD_CPUTIME_ID (a syscall) only without counters. */
	uint64_t cpu = rt__sample_cpu_ns(t);
	uint64_t cpu_ns = cpu >= t->last_cpu_ns ? cpu - t->last_cpu_ns : 0;
	t->last_cpu_ns = cpu;
	int rc = trace_enc_sample(&t->enc, tick, frames, depth, cpu_ns, ctr);
	if (rc == -ENOSPC) {
		if (rt__thread_swap_buffer(t) == 0)
			rc = trace_enc_sample(&t->enc, tick, frames, depth, cpu_ns, ctr);
		if (rc) {
			t->dropped[FOLD_DROP_BUFFER_FULL]++;
			t->dropped_cpu_ns[FOLD_DROP_BUFFER_FULL] += cpu_ns;
			goto out;
		}
	}
	t->samples_taken++;
	/* A due flush writes trace data here: part of this sample's cost (not
	 * inside the loader, which holds its lock: the next sample flushes). */
	if (!in_loader)
		rt__flush_due(t, tick);
	record_cost(t, stamp_ns);
	t->handler_ticks += rt__tick() - tick;
out:
	atomic_signal_fence(memory_order_seq_cst);
	t->busy = 0;
}

static int is_function(const struct sigaction *a)
{
	if (a->sa_flags & SA_SIGINFO)
		return a->sa_sigaction != NULL;
	return a->sa_handler != SIG_DFL && a->sa_handler != SIG_IGN && a->sa_handler != NULL;
}

/* ---------------------------------------------------------------- deferral */

static void on_program_signal(int sig, siginfo_t *si, void *uc);

/* The kernel's disposition for a program handler: our trampoline with the
 * program's flags, and its mask without our signals. */
static void kernel_action(const struct sigaction *act, struct sigaction *k)
{
	*k = *act;
	k->sa_sigaction = on_program_signal;
	k->sa_flags |= SA_SIGINFO;
	sigset_t stripped;
	k->sa_mask = *rt__strip_mask(&act->sa_mask, &stripped);
}

static int in_fold(void)
{
	rt_thread *t = rt__tls_thread;
	return rt__tls_defer || (t && t->busy);
}

/* A fault the kernel raised on the instruction that runs next: it cannot
 * wait (the instruction would fault again) and is no danger here. */
static int synchronous(int sig, const siginfo_t *si)
{
	return si && si->si_code > 0 &&
	       (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL || sig == SIGTRAP ||
	        sig == SIGSYS);
}

/* Keeps a program signal that arrived inside fold pending until the thread
 * leaves fold (invariant 14): re-queued to this thread with its siginfo,
 * blocked in the context the handler returns to. The kernel reset an
 * SA_RESETHAND handler when it delivered this signal: it is installed again
 * for the delivery to come, which resets it. Returns 0 when it could not
 * be kept (the handler then runs now). */
static int defer_program_signal(int sig, siginfo_t *si, void *ucv)
{
	if (sig >= 64 || !si || !ucv || synchronous(sig, si))
		return 0;
	if (app_action[sig].sa_flags & SA_RESETHAND) {
		struct sigaction k;
		kernel_action(&app_action[sig], &k);
		if (call_real_sigaction(sig, &k, NULL))
			return 0;
	}
	rt_thread *t = rt__tls_thread;
	pid_t tid = t ? t->tid : (pid_t)syscall(SYS_gettid);
	if (syscall(SYS_rt_tgsigqueueinfo, rt__proc.pid, tid, sig, si))
		return 0;
	sigaddset(&((ucontext_t *)ucv)->uc_sigmask, sig);
	rt__tls_deferred |= 1ull << (sig - 1);
	return 1;
}

void rt__deliver_deferred(void)
{
	if (in_fold())
		return;
	uint64_t bits = rt__tls_deferred;
	if (!bits)
		return;
	rt__tls_deferred = 0;
	sigset_t set;
	sigemptyset(&set);
	for (int sig = 1; sig < 64; sig++)
		if (bits & (1ull << (sig - 1)))
			sigaddset(&set, sig);
	/* the kept signals are delivered as the call returns */
	rt__real_sigmask(SIG_UNBLOCK, &set, NULL);
}

void rt__deferred_after_fork(void)
{
	/* The child has none of the parent's pending signals: nothing to keep
	 * blocked for. */
	rt__deliver_deferred();
}

static void on_fatal(int sig, siginfo_t *si, void *uc);

/* Whether the kernel's default action for sig ends the process (all but
 * those it ignores or that stop it). */
static int default_terminates(int sig)
{
	switch (sig) {
	case SIGCHLD:
	case SIGURG:
	case SIGWINCH:
	case SIGCONT:
	case SIGSTOP:
	case SIGTSTP:
	case SIGTTIN:
	case SIGTTOU: return 0;
	default: return 1;
	}
}

FOLD_TRAMPOLINE static void chain_to_program(int sig, siginfo_t *si, void *uc)
{
	struct sigaction a = app_action[sig];
	if (!is_function(&a)) {
		/* Sent by a process (kill, sigqueue, tgkill) to a program that
		 * left the signal at SIG_DFL: the default action, as without fold
		 * (the process dies of it, after the final flush). SIG_IGN, a
		 * default that ignores or stops, and the kernel's own (a late
		 * tick, SIGIO for a full queue): nothing happened for the
		 * program, it counts as ours. */
		if (a.sa_handler == SIG_DFL && !(a.sa_flags & SA_SIGINFO) && si && si->si_code <= 0 &&
		    default_terminates(sig)) {
			on_fatal(sig, si, uc);
			return;
		}
		rt__tls_sig_ours++;
		return;
	}
	if (in_fold() && defer_program_signal(sig, si, uc))
		return;
	rt__tls_sig_app++;
	/* Our handler runs with every signal blocked; the program's runs with
	 * the mask the kernel would have given it. */
	sigset_t m, k;
	m = ((ucontext_t *)uc)->uc_sigmask;
	for (int i = 1; i < NSIG; i++)
		if (sigismember(&a.sa_mask, i) == 1)
			sigaddset(&m, i);
	if (!(a.sa_flags & SA_NODEFER))
		sigaddset(&m, sig);
	rt__real_sigmask(SIG_SETMASK, rt__strip_mask(&m, &k), NULL);
	rt__call_program_handler(&a, sig, si, uc);
}

/* The kernel's handler for every signal the program handles itself: counts
 * the run (invariant 9) and calls the program's handler as the kernel would. */
/* A fault the kernel raised (or an abort): the program's handler may end
 * the process in ways we never see (_exit, a re-raise with SA_RESETHAND),
 * so the trace is flushed first. Asynchronous signals (SIGTERM, SIGINT...)
 * are often handled and survived: their handlers run first, and an exit
 * or a re-raise with SIG_DFL reaches our flush later. */
static int flush_before(int sig, const siginfo_t *si)
{
	if (sig == SIGABRT)
		return 1;
	return (sig == SIGSEGV || sig == SIGBUS || sig == SIGFPE || sig == SIGILL) && si && si->si_code > 0;
}

static void flush_before_handler(int sig);
static void crash_flush(int sig);

/* libc's abort(), whose SIGABRT this thread is handling when one of the
 * first frames under the handler lies in it (rt__signals_init). */
static uintptr_t abort_lo, abort_hi;

static int in_abort(void)
{
	void *frames[16];
	if (!abort_hi)
		return 0;
	/* fold's own unwinding, as a sample's: the guard up, so that a sample
	 * landing in it is dropped, not unwound into libunwind's lock */
	rt_thread *t = rt__tls_thread;
	if (t)
		t->busy++;
	atomic_signal_fence(memory_order_seq_cst);
	int n = rt__unwind_backtrace(frames, 16);
	atomic_signal_fence(memory_order_seq_cst);
	if (t)
		t->busy--;
	for (int i = 0; i < n; i++)
		if ((uintptr_t)frames[i] > abort_lo && (uintptr_t)frames[i] <= abort_hi)
			return 1;
	return 0;
}
static volatile sig_atomic_t fatal_taken[NSIG]; /* default action taken over at start */
static int install(int sig, void (*fn)(int, siginfo_t *, void *), int flags, int full_mask);

FOLD_TRAMPOLINE static void on_program_signal(int sig, siginfo_t *si, void *uc)
{
	if (FOLD_UNLIKELY(in_fold()) && defer_program_signal(sig, si, uc))
		return;
	rt__tls_sig_app++;
	struct sigaction a = app_action[sig];
	if (flush_before(sig, si))
		flush_before_handler(sig);
	if (a.sa_flags & SA_RESETHAND) {
		/* The kernel has reset the disposition to SIG_DFL already: a
		 * default we took over at start stays ours, as when the program
		 * sets SIG_DFL itself (invariant 13), so a fault the handler lets
		 * repeat reaches the final flush. */
		wrapped[sig] = 0;
		app_action[sig].sa_handler = SIG_DFL;
		app_action[sig].sa_flags &= ~(SA_SIGINFO | SA_RESETHAND);
		if (fatal_taken[sig])
			install(sig, on_fatal, SA_ONSTACK, 0);
	}
	if (!is_function(&a))
		return; /* changed to SIG_DFL/SIG_IGN while this one was in flight */
	/* While it runs, the program believes blocked what its sa_mask says
	 * (the kernel's mask has our signals taken out). */
	uint64_t vmask = rt__tls_vmask;
	rt__tls_vmask = vmask | rt__mask_bits(&a.sa_mask);
	rt__call_program_handler(&a, sig, si, uc);
	rt__tls_vmask = vmask;
	/* A SIGABRT handler that returns into abort(): glibc's abort sets the
	 * default action behind our wrappers and raises again, and nothing of
	 * fold runs before the process dies of it. */
	if (sig == SIGABRT && in_abort())
		crash_flush(sig);
}

FOLD_TRAMPOLINE static void rt_on_sample(int sig, siginfo_t *si, void *uc)
{
	int saved_errno = errno;
	rt_thread *t = rt__tls_thread;
	rt__altstack_on_entry(uc);
	if (si && t &&
	    ((si->si_code == SI_TIMER && si->si_value.sival_ptr == (void *)t) ||
	     ((si->si_code == POLL_HUP || si->si_code == POLL_IN) && t->sample_fd >= 0 &&
	      si->si_fd == t->sample_fd))) {
		rt__tls_sig_ours++;
		if (FOLD_UNLIKELY(t->sandboxed)) { /* a late tick: nothing of ours runs now */
			errno = saved_errno;
			return;
		}
		if (FOLD_UNLIKELY(t->stop_probe)) { /* rt_source_time.c: no sample */
			t->probe_entry = rt__ns(CLOCK_MONOTONIC);
			t->stop_probe = 2;
			t->probe_exit = rt__ns(CLOCK_MONOTONIC);
			errno = saved_errno;
			return;
		}
		/* The handler's entry, for the sample's cost record, and the
		 * timer's deadline, before the re-arm replaces it. */
		t->sample_entry = rt__ns(CLOCK_MONOTONIC);
		t->sample_deadline = rt__proc.source->deadline ? rt__proc.source->deadline(t) : 0;
		t->sample_deadline_unsure = t->deadline_unsure;
		/* Re-armed first: nothing the sample does can cost the thread
		 * its sampling. */
		if (atomic_load_explicit(&rt__proc.phase, memory_order_relaxed) == FOLD_RUNNING)
			rt__proc.source->rearm(t);
		rt__sample(t, uc);
		t->sample_entry = t->sample_deadline = 0;
	} else if (si && si->si_code == SI_TIMER && !t && si->si_value.sival_ptr &&
	           app_action[sig].sa_handler == SIG_DFL) {
		/* A late tick of a thread that has just ended: ignore it. */
		rt__tls_sig_ours++;
	} else {
		chain_to_program(sig, si, uc);
	}
	errno = saved_errno;
}

static int off_configure(void)
{
	return 0;
}
static int off_thread_start(rt_thread *t)
{
	(void)t;
	return 0;
}
static void off_thread_stop(rt_thread *t)
{
	(void)t;
}
static const rt_sample_source source_off = {
    .name = "off",
    .configure = off_configure,
    .thread_start = off_thread_start,
    .thread_stop = off_thread_stop,
    .rearm = off_thread_stop,
};

const rt_sample_source *rt__source(void)
{
	return rt__proc.source;
}

void rt__sampling_thread_start(rt_thread *t)
{
	if (rt__proc.cfg.source == FOLD_SOURCE_OFF)
		return;
	/* No per-thread unwinder warm-up: a thread's first unw_backtrace
	 * creates its trace cache (256 KiB mmap'ed and initialised: ~0.6 ms
	 * of page faults here), which is paid by its first sample instead, so
	 * a thread that ends before its first sample pays nothing. */
	rt__proc.source->thread_start(t);
}

void rt__sampling_thread_stop(rt_thread *t)
{
	rt__proc.source->thread_stop(t);
}

/* ---------------------------------------------------------------- crash path */

static void put_str(char *buf, size_t cap, size_t *o, const char *s)
{
	while (*s && *o + 1 < cap)
		buf[(*o)++] = *s++;
	buf[*o] = 0;
}

/* Waits a moment (bounded: they may be stuck) for the threads other than
 * self inside the runtime to leave it, once stop is raised. */
static void wait_for_busy(const rt_thread *self)
{
	unsigned n = rt__thread_slots();
	for (int spin = 0; spin < 50; spin++) {
		int busy = 0;
		for (unsigned i = 0; i < n && !busy; i++) {
			rt_thread *t = rt__thread_slot(i);
			busy = t != self && atomic_load(&t->alive) && t->busy;
		}
		if (!busy)
			break;
		rt__sys_nanosleep(1000000);
	}
}

static void mark_signal(rt_thread *self, int sig, const char *how)
{
	if (!self || !self->cur)
		return;
	char text[64] = "signal ";
	size_t o = 7;
	rt__str_put_u64(text, sizeof text, &o, (uint64_t)sig);
	rt__str_put(text, sizeof text, &o, how);
	trace_enc_marker(&self->enc, rt__tick(), text);
}

/* Before a program handler of a fault or an abort, which may end the
 * process in ways fold never sees (_exit through a raw system call, a
 * re-fault with SA_RESETHAND): everything recorded so far goes to the
 * file, and recording goes on, since the handler may just as well return
 * or jump out and the program go on (a test framework's caught abort, a GC
 * write barrier). At most once per FOLD_MIN_FLUSH_INTERVAL (a program that
 * takes faults by the thousand keeps its speed): what a handler that ends
 * the process can lose is that much. Async-signal-safe: every thread's
 * buffer is sealed into the writer's queue, as the periodic flush does. */
static void flush_before_handler(int sig)
{
	static _Atomic uint64_t last_ns;
	uint64_t now = rt__ns(CLOCK_MONOTONIC), last = atomic_load(&last_ns);
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING || (last && now - last < FOLD_MIN_FLUSH_INTERVAL_NS) ||
	    !atomic_compare_exchange_strong(&last_ns, &last, now))
		return;
	rt_thread *self = rt__tls_thread;
	if (self)
		self->busy++;
	int was_stopped = atomic_exchange(&rt__proc.stop, 1);
	if (!was_stopped) { /* else a quiesce or a fork owns the threads */
		syscall(__NR_membarrier, 8 /* MEMBARRIER_CMD_PRIVATE_EXPEDITED */, 0, 0);
		wait_for_busy(self);
		mark_signal(self, sig, " (to the program's handler)");
		unsigned n = rt__thread_slots();
		for (unsigned i = 0; i < n; i++) {
			rt_thread *t = rt__thread_slot(i);
			if (!atomic_load(&t->alive) || !t->cur || (t != self && t->busy))
				continue;
			rt__thread_seal(t);
			rt__thread_fresh_buffer(t);
		}
		rt__proc_seal_try();
		rt__pool_drain(0);
		atomic_store(&rt__proc.stop, 0);
	}
	if (self)
		self->busy--;
}

/* Writes everything we hold, raw, from the handler of a signal the process
 * dies of; recording stops. */
static void crash_flush(int sig)
{
	if (atomic_exchange(&rt__proc.crashing, 1))
		return;
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING || atomic_load(&rt__proc.exit_sandboxed) ||
	    rt__vfork_child())
		return;
	rt_thread *self = rt__tls_thread;
	if (self)
		self->busy++;
	atomic_store(&rt__proc.stop, 1);
	syscall(__NR_membarrier, 8 /* MEMBARRIER_CMD_PRIVATE_EXPEDITED */, 0, 0);
	wait_for_busy(self);
	rt_io_state io;
	rt__io_begin(&io);
	rt__trace_fd_check();
	rt__flush_queue_raw();
	mark_signal(self, sig, "");
	unsigned n = rt__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (!atomic_load(&t->alive) || !t->cur)
			continue;
		size_t len = trace_enc_len(&t->enc);
		if (len)
			trace_chunk_write_raw(rt__proc.fd, t->stream, t->seq++, t->cur->data, len);
		t->cur = NULL;
	}
	/* The process stream: end clock and what we know of the statistics. */
	if (rt__proc.proc_buf) {
		trace_enc *enc = &rt__proc.proc_enc;
		uint64_t tick, mono, real;
		rt__clock_now(&tick, &mono, &real);
		trace_enc_clock(enc, tick, mono, real);
		uint64_t taken = atomic_load(&rt__proc.samples_taken);
		for (unsigned i = 0; i < n; i++) {
			rt_thread *t = rt__thread_slot(i);
			if (atomic_load(&t->alive))
				taken += t->samples_taken;
		}
		trace_enc_stat(enc, "samples.taken", taken);
		trace_enc_stat(enc, "threads", atomic_load(&rt__proc.threads_total));
		trace_enc_stat(enc, "exit.signal", (uint64_t)sig);
		size_t len = trace_enc_len(enc);
		if (len)
			trace_chunk_write_raw(rt__proc.fd, TRACE_PROCESS_STREAM, rt__proc.proc_seq++,
			                      rt__proc.proc_buf->data, len);
		rt__proc.proc_buf = NULL;
	}
	rt__io_end(&io);
	rt__pool_live_end();
	if (!rt__proc.cfg.quiet) {
		char line[1200];
		size_t o = 0;
		put_str(line, sizeof line, &o, "fold: signal ");
		rt__str_put_u64(line, sizeof line, &o, (uint64_t)sig);
		put_str(line, sizeof line, &o, ": trace flushed to ");
		put_str(line, sizeof line, &o, rt__proc.path);
		put_str(line, sizeof line, &o, "\n");
		rt__warn_raw(line);
	}
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	int saved_errno = errno;
	crash_flush(sig);
	/* Default action, as if we had never been there: a fault re-executes the
	 * faulting instruction (so the core shows the real state); a sent signal
	 * is re-sent and delivered when this handler returns. */
	struct sigaction dfl;
	memset(&dfl, 0, sizeof dfl);
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	call_real_sigaction(sig, &dfl, NULL);
	ours[sig] = 0;
	if (!si || si->si_code <= 0 || sig == SIGABRT || sig == SIGTERM || sig == SIGINT || sig == SIGHUP ||
	    sig == SIGQUIT || sig == SIGXCPU || sig == SIGPIPE)
		syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
	errno = saved_errno;
}

/* ---------------------------------------------------------------- install */

/* full_mask: every signal blocked while fn runs, so no program handler can
 * interrupt it (and siglongjmp out of it, leaving the guard raised). */
static int install(int sig, void (*fn)(int, siginfo_t *, void *), int flags, int full_mask)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = fn;
	sa.sa_flags = SA_SIGINFO | SA_RESTART | flags;
	if (full_mask) {
		/* Not the synchronous faults: one in our handler must reach the
		 * crash path, not kill the process outright. */
		sigfillset(&sa.sa_mask);
		sigdelset(&sa.sa_mask, SIGSEGV);
		sigdelset(&sa.sa_mask, SIGBUS);
		sigdelset(&sa.sa_mask, SIGFPE);
		sigdelset(&sa.sa_mask, SIGILL);
		sigdelset(&sa.sa_mask, SIGTRAP);
	} else
		sigemptyset(&sa.sa_mask);
	if (call_real_sigaction(sig, &sa, &old))
		return -errno;
	if (!wrapped[sig]) /* else the kernel's old one is our trampoline */
		app_action[sig] = old;
	wrapped[sig] = 0;
	ours[sig] = 1;
	return 0;
}

/* The bounds of libc's abort(), from its symbol's size. */
static void find_abort(void)
{
	Dl_info di;
	const ElfW(Sym) *sym = NULL;
	void *fn = rt__real("abort");
	if (fn && dladdr1(fn, &di, (void **)&sym, RTLD_DL_SYMENT) && sym && sym->st_size) {
		abort_lo = (uintptr_t)fn;
		abort_hi = abort_lo + sym->st_size;
	}
}

int rt__signals_init(void)
{
	rt__wait_init();
	find_abort();
	sample_signo = rt__proc.cfg.signo;
	rt__sigmask_init(rt__proc.cfg.source == FOLD_SOURCE_OFF ? 0 : sample_signo,
	                 rt__proc.cfg.source == FOLD_SOURCE_PAPI ? SIGRTMIN + 2 : 0);
	switch (rt__proc.cfg.source) {
	case FOLD_SOURCE_TIME:
	case FOLD_SOURCE_CPUTIME: rt__proc.source = &rt__source_time; break;
	case FOLD_SOURCE_PAPI: {
		uint32_t type;
		uint64_t config;
		rt__proc.source = rt__perf_encoding(rt__proc.cfg.sample_event, &type, &config, NULL) == 0
		                      ? &rt__source_perf
		                      : &rt__source_papi;
		break;
	}
	default: rt__proc.source = &source_off; break;
	}
	if (rt__proc.cfg.source == FOLD_SOURCE_PAPI)
		rt__proc_info("sample.backend", rt__proc.source == &rt__source_perf ? "perf_event" : "papi");
	if (rt__proc.source->configure()) {
		rt__warn("sampling with %s is not possible here: continuing without samples",
		         rt__proc.cfg.sample_spec);
		rt__proc.cfg.source = FOLD_SOURCE_OFF;
		rt__proc.source = &source_off;
		rt__proc_info("sample.source", "off");
	}
	if ((rt__proc.source == &rt__source_time || rt__proc.source == &rt__source_perf) &&
	    !ours[sample_signo]) {
		struct sigaction cur;
		call_real_sigaction(sample_signo, NULL, &cur);
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler != SIG_DFL)
			rt__warn(
			    "signal %d already has a handler; it still receives signals not sent by fold "
			    "(set FOLD_SIGNAL to use another signal)",
			    sample_signo);
		install(sample_signo, rt_on_sample, SA_ONSTACK, 1);
		/* glibc's sigaction reports the kernel's sa_restorer, the
		 * return address of every signal frame it builds */
		if (call_real_sigaction(sample_signo, NULL, &cur) == 0)
			sig_restorer = (uint64_t)(uintptr_t)cur.sa_restorer;
	}
	/* With fd-driven signals, a full RT signal queue makes the kernel fall
	 * back to SIGIO, whose default action kills: never let it. */
	if (rt__proc.source == &rt__source_perf && !ours[SIGIO]) {
		struct sigaction cur;
		if (call_real_sigaction(SIGIO, NULL, &cur) == 0 && !(cur.sa_flags & SA_SIGINFO) &&
		    cur.sa_handler == SIG_DFL)
			install(SIGIO, rt_on_sample, SA_ONSTACK, 1);
	}
	for (size_t i = 0; i < sizeof fatal_signals / sizeof fatal_signals[0]; i++) {
		int sig = fatal_signals[i];
		struct sigaction cur;
		if (ours[sig] || call_real_sigaction(sig, NULL, &cur))
			continue;
		/* Only take over defaults: an ignored SIGHUP (nohup) or SIGINT (a
		 * background job) stays ignored, the program's handlers stay. */
		if (!(cur.sa_flags & SA_SIGINFO) && cur.sa_handler == SIG_DFL &&
		    install(sig, on_fatal, SA_ONSTACK, 0) == 0)
			fatal_taken[sig] = 1;
	}
	return 0;
}

void rt__signals_before_exec(void)
{
	/* Nothing of ours may reach the new image: our handlers vanish at exec
	 * and an RT signal's default action would kill it. Delete this thread's
	 * timer and consume a tick that is already pending. */
	rt_thread *t = rt__tls_thread;
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, sample_signo);
	if (rt__proc.source == &rt__source_papi)
		sigaddset(&set, SIGRTMIN + 2); /* PAPI's overflow signal (perf_event) */
	rt__real_sigmask(SIG_BLOCK, &set, &old);
	if (t)
		rt__sampling_thread_stop(t);
	struct timespec zero = {0, 0};
	static int (*real_sigtimedwait)(const sigset_t *, siginfo_t *, const struct timespec *);
	if (!real_sigtimedwait)
		real_sigtimedwait =
		    (int (*)(const sigset_t *, siginfo_t *, const struct timespec *))rt__real("sigtimedwait");
	while (real_sigtimedwait && real_sigtimedwait(&set, NULL, &zero) > 0)
		;
	rt__real_sigmask(SIG_SETMASK, &old, NULL);
	/* The new image inherits the mask the program believes it has. */
	rt__sigmask_for_exec();
	/* Restore the program's own dispositions for the new image's sake (the
	 * kernel resets handlers to default at exec anyway; ignored stays ignored). */
}

void rt__signals_after_exec_failed(void)
{
	rt_thread *t = rt__tls_thread;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, sample_signo);
	rt__real_sigmask(SIG_UNBLOCK, &set, NULL);
	if (t)
		rt__sampling_thread_start(t);
}

/* ---------------------------------------------------------------- interposition */

#ifndef SA_RESTORER
#define SA_RESTORER 0x04000000 /* linux/signal.h; glibc does not export it */
#endif

/* What the program reads back for an action it set: the kernel's copy, as
 * glibc's sigaction fills it in (x86-64: SA_RESTORER and glibc's signal
 * return, which every action installed through glibc carries). */
static void set_app_action(int sig, const struct sigaction *act)
{
	app_action[sig] = *act;
#if defined(__x86_64__)
	if (!sig_restorer) {
		struct sigaction cur;
		if (call_real_sigaction(SIGSEGV, NULL, &cur) == 0 && (cur.sa_flags & SA_RESTORER))
			sig_restorer = (uint64_t)(uintptr_t)cur.sa_restorer;
	}
	if (sig_restorer) {
		app_action[sig].sa_flags |= SA_RESTORER;
		app_action[sig].sa_restorer = (void (*)(void))(uintptr_t)sig_restorer;
	}
#endif
}

/* The program's view of a signal's disposition is app_action[sig] whenever
 * the kernel's is ours or our trampoline; otherwise the kernel's. Like the
 * kernel's, a change races only with deliveries of that same signal. */
FOLD_EXPORT int sigaction(int sig, const struct sigaction *act, struct sigaction *old)
{
	if (FOLD_UNLIKELY(rt__in_vfork)) /* the child's own, not the parent's */
		return call_real_sigaction(sig, act, old);
	if (sig <= 0 || sig >= NSIG || sig == SIGKILL || sig == SIGSTOP)
		return call_real_sigaction(sig, act, old);
	int mine = ours[sig] || wrapped[sig];
	struct sigaction prev = app_action[sig];
	if (ours[sig] && (sig == sample_signo || sig == SIGIO) && !is_fatal(sig)) {
		/* Our sampling signal: the program's handler is chained to. */
		if (act)
			set_app_action(sig, act);
		if (old)
			*old = prev;
		return 0;
	}
	if (!act) {
		if (!mine)
			return call_real_sigaction(sig, NULL, old);
		if (old)
			*old = prev;
		return 0;
	}
	struct sigaction kold;
	if (is_function(act)) {
		/* Published before the kernel can call the trampoline for it. */
		set_app_action(sig, act);
		/* As the kernel keeps it: SIGKILL and SIGSTOP cannot be blocked. */
		sigdelset(&app_action[sig].sa_mask, SIGKILL);
		sigdelset(&app_action[sig].sa_mask, SIGSTOP);
		struct sigaction k;
		kernel_action(act, &k);
		if (call_real_sigaction(sig, &k, &kold)) {
			app_action[sig] = prev;
			return -1;
		}
		wrapped[sig] = 1;
		ours[sig] = 0;
	} else if ((ours[sig] || fatal_taken[sig]) && !(act->sa_flags & SA_SIGINFO) &&
	           act->sa_handler == SIG_DFL) {
		/* A fatal signal whose default we took over: SIG_DFL keeps our
		 * flush in front of the default action (also when the program
		 * restores it after a handler of its own: libgfortran's re-raise). */
		if (!ours[sig] && install(sig, on_fatal, SA_ONSTACK, 0))
			return -1;
		set_app_action(sig, act);
		kold = prev;
	} else {
		/* SIG_DFL/SIG_IGN go to the kernel as they are. */
		if (call_real_sigaction(sig, act, &kold))
			return -1;
		wrapped[sig] = 0;
		ours[sig] = 0;
		set_app_action(sig, act);
	}
	if (old)
		*old = mine ? prev : kold;
	return 0;
}

/* glibc's signal functions call its internal __sigaction, which we cannot
 * interpose: each is rebuilt on our sigaction with glibc's semantics. */
static sighandler_t install_simple(int sig, sighandler_t handler, int flags, int mask_self)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sa.sa_flags = flags;
	sigemptyset(&sa.sa_mask);
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	if (mask_self)
		sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}

/* BSD semantics (glibc's signal with _DEFAULT_SOURCE; bsd_signal and
 * ssignal are aliases of it in glibc, not declared by its headers). */
sighandler_t bsd_signal(int sig, sighandler_t handler);
sighandler_t ssignal(int sig, sighandler_t handler);
FOLD_EXPORT sighandler_t signal(int sig, sighandler_t handler)
{
	return install_simple(sig, handler, SA_RESTART, 1);
}
FOLD_EXPORT sighandler_t bsd_signal(int sig, sighandler_t handler)
{
	return install_simple(sig, handler, SA_RESTART, 1);
}
FOLD_EXPORT sighandler_t ssignal(int sig, sighandler_t handler)
{
	return install_simple(sig, handler, SA_RESTART, 1);
}

/* System V semantics: what signal() is in a strict ISO C build. */
FOLD_EXPORT sighandler_t sysv_signal(int sig, sighandler_t handler)
{
	return install_simple(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}
FOLD_EXPORT sighandler_t __sysv_signal(int sig, sighandler_t handler)
{
	return install_simple(sig, handler, SA_RESETHAND | SA_NODEFER, 0);
}

FOLD_EXPORT sighandler_t sigset(int sig, sighandler_t disp)
{
	sigset_t set, prevmask;
	struct sigaction old;
	if (sig <= 0 || sig >= NSIG) {
		errno = EINVAL;
		return SIG_ERR;
	}
	sigemptyset(&set);
	sigaddset(&set, sig);
	if (disp == SIG_HOLD) {
		if (sigaction(sig, NULL, &old) || sigprocmask(SIG_BLOCK, &set, &prevmask))
			return SIG_ERR;
	} else {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = disp;
		sigemptyset(&sa.sa_mask);
		if (sigaction(sig, &sa, &old) || sigprocmask(SIG_UNBLOCK, &set, &prevmask))
			return SIG_ERR;
	}
	return sigismember(&prevmask, sig) ? SIG_HOLD : old.sa_handler;
}

FOLD_EXPORT int siginterrupt(int sig, int interrupt)
{
	struct sigaction sa;
	if (sigaction(sig, NULL, &sa))
		return -1;
	if (interrupt)
		sa.sa_flags &= ~SA_RESTART;
	else
		sa.sa_flags |= SA_RESTART;
	return sigaction(sig, &sa, NULL);
}
