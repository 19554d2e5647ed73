/* fold_rt.h: the internal interface of libfold.so.
 *
 * Owns the types every runtime module shares: the per-process state (rt), the
 * per-thread state (rt_thread), chunk buffers and the interfaces between the
 * modules. Other measurement front ends (compiler hooks, PMPI wrappers,
 * OpenMP) build on three calls and nothing else:
 *
 *   rt_thread *t = rt__thread();          this thread's state, or NULL
 *   if (rt__enter_runtime(t)) {             guard + "measurement is on"
 *           rt__region_event(t, FOLD_EV_ENTER, region, with_counters);
 *           rt__leave_runtime(t);
 *   }
 *   rt__read_counters(t, values);           hw/sw + app counters, signal-safe
 *
 * plus rt__region_define() to get a region id and rt__rank_known() once
 * the MPI rank is known. rt__thread() initialises the process lazily (hooks
 * can run before our constructor) and returns NULL when measurement is not
 * possible (before init finished on this thread, after the final flush).
 *
 * Invariants:
 *  - A rt_thread is used by its own thread and that thread's signal handler
 *    only, except under quiesce (rt__quiesce), where another thread may seal
 *    its buffer after waiting for t->busy == 0 with the stop flag set.
 *  - t->busy > 0 whenever the thread executes runtime code that touches its
 *    encoder; the sample handler drops samples that land there.
 *  - rt_thread objects and chunk buffers are never freed, only recycled, so
 *    a pointer seen by a signal handler stays dereferenceable.
 */
#ifndef FOLD_RT_H
#define FOLD_RT_H

#include <pthread.h>
#include <semaphore.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include "rt_perfnames.h"
#include "trace_encode.h"

#define FOLD_EXPORT __attribute__((visibility("default")))
#define FOLD_TLS __thread __attribute__((tls_model("initial-exec")))
#define FOLD_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define FOLD_LIKELY(x) __builtin_expect(!!(x), 1)
/* The code between a signal and the program's handler for it (rt_signal.c,
 * rt_altstack.c): kept in a section of its own so that samples leave its
 * frames out, as if the kernel had called the program's handler itself. */
#define FOLD_TRAMPOLINE __attribute__((section("fold_tramp"), noinline))

/* ---------------------------------------------------------------- config */

enum rt_source_kind { FOLD_SOURCE_OFF = 0, FOLD_SOURCE_TIME, FOLD_SOURCE_CPUTIME, FOLD_SOURCE_PAPI };

#define FOLD_MAX_HW_COUNTERS 8
#define FOLD_MAX_APP_COUNTERS (TRACE_MAX_COUNTERS - FOLD_MAX_HW_COUNTERS)
#define FOLD_NAME_MAX 128
/* Counter ids in the trace: hw/sw counters 1..8, app counters 64.. (the id
 * fold_counter() returns). */
#define FOLD_APP_COUNTER_BASE 64u

typedef struct rt_config {
	enum rt_source_kind source;
	char sample_spec[FOLD_NAME_MAX];  /* as given (or the default) */
	char sample_event[FOLD_NAME_MAX]; /* PAPI event for FOLD_SOURCE_PAPI */
	uint64_t period;                  /* ns for time sources, events for papi */
	double jitter;                    /* fraction of the period */
	uint64_t seed;
	int signo; /* sampling signal */
	unsigned stack_depth;
	char counters[512];   /* requested counter list; "" = default */
	int counters_default; /* 1 if FOLD_COUNTERS was not set */
	char output[512];     /* output pattern */
	int quiet;
	int signal_set;    /* 1: FOLD_SIGNAL chose the sampling signal */
	int signal_traced; /* 1: SIGPROF, as the process started traced */
	int unwind_off;    /* 1: samples keep their leaf only (under valgrind) */
	int compress_codec;         /* FOLD_COMPRESS (enum trace_codec) */
	int compress_level;         /* its level; 0: chunks stored */
	int clock_tsc;              /* FOLD_CLOCK: 1 tsc (when invariant), 0 monotonic */
	uint64_t flush_interval_ns; /* FOLD_FLUSH_INTERVAL */
	unsigned exec_generation;
} rt_config;

/* Parses every FOLD_* variable; bad values get one "fold:" line and the
 * default. Never fails. */
void rt__config_load(rt_config *cfg);
/* One line for every FOLD_* variable of the environment that fold does not
 * know, with the nearest setting; no allocation (constructor time). */
void rt__config_check_unknown(void);
/* Parses "time@10ms" etc. into cfg; returns 0 or -EINVAL (msg filled). */
int rt__parse_sample(const char *spec, rt_config *cfg, char *msg, size_t msg_len);
/* Parses a duration with unit (ns, us, ms, s); returns 0 or -EINVAL. */
int rt__parse_duration(const char *s, uint64_t *ns);
/* Parses a signal name ("SIGPROF", "SIGRTMIN+4", "38"); returns signo or -EINVAL. */
int rt__parse_signal(const char *s);

#define FOLD_DEFAULT_SAMPLE "time@10ms"
#define FOLD_MIN_PERIOD_NS 100000ull  /* 100 us: below this the VM livelocks */
#define FOLD_MIN_PAPI_PERIOD 10000ull /* events */
#define FOLD_DEFAULT_STACK_DEPTH 64u
#define FOLD_DEFAULT_FLUSH_INTERVAL_NS 1000000000ull
#define FOLD_MIN_FLUSH_INTERVAL_NS 10000000ull /* 10 ms */

/* ---------------------------------------------------------------- logging */

/* One "fold: ..." line on stderr (not async-signal-safe: uses vsnprintf). */
void rt__warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Async-signal-safe: writes the literal string to stderr, while descriptor
 * 2 is the one the process started with (rt_io.c). */
void rt__warn_raw(const char *msg);
/* rt_io.c: fold's own writes raise no SIGPIPE or SIGXFSZ in the program:
 * between rt__io_begin and rt__io_end both are blocked, and one a write
 * raised is taken back. Async-signal-safe. */
typedef struct rt_io_state {
	sigset_t old, pending;
} rt_io_state;
void rt__io_begin(rt_io_state *s);
void rt__io_end(rt_io_state *s);
/* Notes which file descriptor 2 is (at start, before any diagnostic). */
void rt__io_stderr_init(void);
/* Async-signal-safe string building: appends s (or v) at *o, NUL-terminated. */
void rt__str_put(char *buf, size_t cap, size_t *o, const char *s);
void rt__str_put_u64(char *buf, size_t cap, size_t *o, uint64_t v);

/* ---------------------------------------------------------------- clock */

typedef struct rt_clock {
	int tsc;          /* 1 = ticks are rdtsc, 0 = CLOCK_MONOTONIC ns */
	uint64_t tick_hz; /* estimate from the start-up calibration */
	uint64_t tick0, mono0, real0;
} rt_clock;

/* want_tsc = 0 forces CLOCK_MONOTONIC (FOLD_CLOCK=monotonic). The TSC's
 * rate is estimated by rt__clock_calibrate, called a little later (it
 * measures the time in between). */
void rt__clock_init(rt_clock *c, int want_tsc);
void rt__clock_calibrate(rt_clock *c);
void rt__clock_now(uint64_t *tick, uint64_t *mono_ns, uint64_t *real_ns);
extern int rt__clock_tsc;

/* Timestamp in ticks of clock.source. Async-signal-safe, ~10 ns. */
static inline uint64_t rt__tick(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(rt__clock_tsc, 1))
		return __builtin_ia32_rdtsc();
#endif
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t rt__ns(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- buffers */

#define FOLD_BUF_BYTES (64u * 1024u)
#define FOLD_MAX_BUFS 4096u

enum rt_buf_state { FOLD_BUF_FREE = 0, FOLD_BUF_CURRENT, FOLD_BUF_QUEUED, FOLD_BUF_WRITING };

typedef struct rt_buf {
	_Atomic int state;
	uint32_t index; /* in the pool */
	uint32_t stream;
	uint32_t seq;
	uint32_t len;
	uint32_t nsamples;   /* samples encoded in it (counted as lost if it cannot be written) */
	struct rt_buf *next; /* write queue link */
	uint8_t data[FOLD_BUF_BYTES];
} rt_buf;

/* Pool of chunk buffers: claim/release/submit are async-signal-safe
 * (lock-free bitmap and a push-only queue, written by whoever submits). */
int rt__pool_init(unsigned initial);
rt_buf *rt__buf_claim(void);
void rt__buf_release(rt_buf *b);
/* Keeps at least `want` buffers free (mmap). Not signal-safe. */
void rt__pool_reserve(unsigned want);
/* Queues a sealed buffer and writes the queue unless another thread is
 * writing it already (async-signal-safe). */
void rt__buf_submit(rt_buf *b);
/* Writes every queued chunk; wait = 0 returns at once if another thread is
 * writing (it takes ours too), else waits for the queue to empty. wait = 0
 * is async-signal-safe. */
void rt__pool_drain(int wait);
unsigned rt__pool_count(void);
rt_buf *rt__pool_get(unsigned index);

/* In a fork child: forgets the parent's queue and writer; buffers that are
 * not some thread's CURRENT one become free. */
void rt__pool_after_fork(void);
/* First thing in a fork child: the pool's memory stops being shared with
 * the parent's live file (rt_pool.c). */
void rt__pool_unshare(void);
/* Makes sure rt__proc.fd is still the trace file, opening it again by its
 * name if a raw system call closed it (-1 if it cannot). Async-signal-safe. */
void rt__trace_fd_check(void);
/* Crash path: writes queued buffers raw. Async-signal-safe. */
void rt__flush_queue_raw(void);
/* The live file next to the trace (rt_pool.c): created for a new trace
 * file (groups mapped from then on share it), renamed with the trace,
 * removed once everything is in the trace (async-signal-safe), forgotten
 * in a fork child (its parent's). */
int rt__pool_live_start(const char *trace_path);
int rt__pool_live_rename(const char *trace_path);
void rt__pool_live_end(void);
void rt__pool_live_forget(void);

/* ---------------------------------------------------------------- threads */

enum rt_drop_reason {
	FOLD_DROP_IN_RUNTIME = 0,
	FOLD_DROP_IN_DLOPEN,
	FOLD_DROP_BUFFER_FULL,
	FOLD_DROP_UNWIND_FAILED,
	FOLD_DROP_PAUSED,
	FOLD_DROP_STOPPED, /* exit / exec / fork in progress */
	FOLD_DROP_BLOCKED, /* the thread kept our signal blocked (raw system call) */
	FOLD_DROP_NREASONS
};
extern const char *const rt__drop_names[FOLD_DROP_NREASONS];

/* Why a sample has its leaf only (stat samples.leaf_only.NAME). */
enum { FOLD_LEAF_ONLY_LOADER = 0, FOLD_LEAF_ONLY_UNWIND, FOLD_LEAF_ONLY_NREASONS };
extern const char *const rt__leaf_only_names[FOLD_LEAF_ONLY_NREASONS];

#define FOLD_REGION_STACK 64
#define FOLD_DEFERRED 16

typedef struct rt_thread {
	/* Guard: > 0 while runtime code of this thread uses the encoder. */
	volatile sig_atomic_t busy;
	volatile sig_atomic_t in_dlopen;
	_Atomic int alive;
	pid_t tid;
	uint32_t stream;
	uint32_t parent_stream;
	uint32_t seq;
	rt_buf *cur;
	trace_enc enc;
	trace_stack_table *stacks;

	/* sampling */
	int timer_ok;
	timer_t timer;
	/* time source, threads other than main: a CPU-time timer outside any
	 * region (idle threads are never woken), the wall one inside */
	int timer_cpu_ok;
	timer_t timer_cpu;
	volatile sig_atomic_t wall; /* 1: the wall-clock timer is the armed one */
	uint64_t left_cpu;          /* what the CPU-time timer had left when disarmed */
	unsigned open_regions;      /* API and OpenMP regions open on the thread */
	uint64_t rng;
	uint64_t last_cpu_ns;
	int papi_eventset; /* -1 if none */
	int sample_fd;     /* perf overflow source, -1 if none */

	/* counters: hw/sw from a perf group fd, app counters added by fold_count.
	 * A read of the group also gives its enabled time: the thread's CPU
	 * time since the group was opened. */
	int perf_fd[FOLD_MAX_HW_COUNTERS]; /* [0] is the group leader, -1 if none */
	unsigned nhw;
	int rdpmc; /* 1: read in user space (rdpmc) while every member is on the PMU */
	struct perf_event_mmap_page *perf_page[FOLD_MAX_HW_COUNTERS];
	unsigned napp_set; /* app counters in the emitted counter set */
	uint64_t hw_last[FOLD_MAX_HW_COUNTERS];
	uint64_t cpu_last; /* thread CPU time at the last counter read, if cpu_known */
	int cpu_known;
	uint64_t app[FOLD_MAX_APP_COUNTERS];

	/* open API regions, for unbalanced-use detection */
	unsigned region_depth;
	uint32_t region_stack[FOLD_REGION_STACK];
	/* API region events of a moment the runtime was stopped for another
	 * thread's fork (rt_api.c), recorded with their own ticks at the
	 * thread's next API event, and records no buffer could take then;
	 * ndeferred_lost: beyond FOLD_DEFERRED */
	struct {
		uint64_t tick;
		uint32_t region;
		uint16_t enter;
		uint16_t call; /* 1: the whole API call (made while stopped); 0: its record only */
	} deferred[FOLD_DEFERRED];
	unsigned ndeferred;
	uint64_t ndeferred_lost;

	/* statistics, summed into the process totals at thread end */
	uint64_t samples_taken;
	uint64_t handler_ticks; /* time spent recording samples (bench figure) */
	uint64_t dropped[FOLD_DROP_NREASONS];
	/* the CPU time the dropped samples measured (rt_signal.c, drop_cpu) */
	uint64_t dropped_cpu_ns[FOLD_DROP_NREASONS];
	uint64_t unbalanced;

	/* fold's alternate signal stack (rt_altstack.c), kept with the state */
	void *altstack;
	int altstack_on;
	/* the one-shot sampling timer: when it was last armed and for how long,
	 * on its clock, to count the samples a thread blocking our signal loses */
	uint64_t armed_at, armed_for;
	/* the sample being taken: CLOCK_MONOTONIC ns of the handler's entry
	 * (0: unknown, e.g. a PAPI overflow callback), for its cost record */
	uint64_t sample_entry;
	/* and the CLOCK_MONOTONIC deadline of the timer that raised it (0: not
	 * a wall-clock timer's), read before the re-arm overwrites armed_at */
	uint64_t sample_deadline;
	/* 1: the timer was last armed outside the handler (switching clocks at
	 * a region's entry), so a pending signal may be an earlier arm's and
	 * the deadline above bounds nothing; and its value for the sample
	 * being taken, read before the re-arm clears it */
	uint8_t deadline_unsure, sample_deadline_unsure;
	/* the stop probe (rt_source_time.c, measure_stop): 1 while it runs,
	 * 2 once its signal was handled, and the handler's entry and exit */
	volatile int stop_probe;
	volatile uint64_t probe_entry, probe_exit;
	unsigned slot; /* index in the state table */
	uint64_t generation;

	/* periodic flush (rt_flush.c) */
	uint64_t flush_tick;     /* when the current buffer got its first record since the last seal */
	uint64_t sealed_samples; /* samples_taken at the last seal */

	/* samples recorded with their leaf only (rt_signal.c): inside the
	 * dynamic loader, where unwinding could deadlock, and where the
	 * unwinder failed. Last: the fields before it keep the places the
	 * hooks' cache lines were tuned with. */
	uint64_t leaf_only[FOLD_LEAF_ONLY_NREASONS];
	/* 1: the program sandboxed the thread with seccomp in a way that may
	 * deny fold's system calls (rt_seccomp.c): no samples, no writes,
	 * no system call of fold's on it */
	volatile sig_atomic_t sandboxed;
	/* 1: the counter group's descriptor is not the group's any more (read
	 * back as something else: closed behind fold's back); never read again */
	uint8_t ctr_gone;
} rt_thread;

extern FOLD_TLS rt_thread *rt__tls_thread;

/* This thread's state, creating it (and the process state) on first use.
 * Returns NULL when the runtime is not measuring. Not signal-safe. */
rt_thread *rt__thread(void);
/* Per-thread setup/teardown (called from the pthread trampoline). */
rt_thread *rt__thread_begin(uint32_t parent_stream, const char *name);
void rt__thread_end(rt_thread *t);
unsigned rt__thread_slots(void);
rt_thread *rt__thread_slot(unsigned i);
/* Resets the table after fork: only `self` survives. */
void rt__threads_after_fork(rt_thread *self);
uint32_t rt__next_stream(void);

/* Enter/leave a runtime section on thread t. rt__enter_runtime returns 0
 * (and leaves nothing to undo) when recording is stopped or paused. */
static inline int rt__enter_runtime(rt_thread *t);
static inline void rt__leave_runtime(rt_thread *t);

/* The program's asynchronous signals that arrived while this thread was
 * inside fold (its guard up, or one of fold's locks held), kept pending
 * and blocked until it leaves (rt_signal.c, invariant 14): bit sig-1.
 * rt__tls_defer counts fold's locks the thread holds (rt__lock). */
extern FOLD_TLS volatile uint64_t rt__tls_deferred;
extern FOLD_TLS volatile unsigned rt__tls_defer;
/* Lets the kept signals in, once the thread is out of fold. */
void rt__deliver_deferred(void);
/* Forgets them (a fork child, which has no pending signals). */
void rt__deferred_after_fork(void);

/* Seals t's current buffer into the write queue (rt_pool.c) and claims a fresh one
 * (async-signal-safe). Returns 0 or -ENOSPC when no buffer is free. */
int rt__thread_swap_buffer(rt_thread *t);
/* Seals t's current buffer without claiming a new one. */
void rt__thread_seal(rt_thread *t);
/* Records that the runtime stopped thread t for `ticks` right after its
 * latest record, writing trace data (a trace_enc_pause record, which the
 * analysis takes out of the times around it). For region events, whose
 * timestamp comes before a swap or a due flush; a sample's writing is in
 * its sample_cost. No-op for 0. */
void rt__thread_note_pause(rt_thread *t, uint64_t ticks);
/* Periodic flush (rt_flush.c): called with t's guard held after t recorded
 * something at `tick` (a sample, a region event). Seals t's buffer when its
 * data is older than FOLD_FLUSH_INTERVAL and the process stream when it has
 * unwritten definitions that old. Async-signal-safe. Returns the ticks the
 * flush took (0: none was due), a pause for a region event's caller. */
uint64_t rt__flush_due(rt_thread *t, uint64_t tick);
/* Converts FOLD_FLUSH_INTERVAL to ticks (after the clock is calibrated). */
void rt__flush_init(void);
/* The process stream has records not yet sealed (set by its writers);
 * rt__proc_clean when it is sealed. */
void rt__proc_dirty(void);
void rt__proc_clean(void);
/* Seals the process stream if nobody holds it; signal-safe (trylock). */
void rt__proc_seal_try(void);
/* Gives t a fresh current buffer if it has none (t not running, or t itself). */
void rt__thread_fresh_buffer(rt_thread *t);

/* ---------------------------------------------------------------- events */

enum rt_event { FOLD_EV_ENTER = 0, FOLD_EV_EXIT = 1 };

/* Records an enter/exit of `region` on t now; with_counters adds the counter
 * values. Caller holds the runtime guard (rt__enter_runtime). */
int rt__region_event(rt_thread *t, enum rt_event ev, uint32_t region, int with_counters);
/* The same at a tick taken earlier, without counter values. Both return 0,
 * or -ENOSPC when no buffer could take the record. */
int rt__region_event_at(rt_thread *t, enum rt_event ev, uint32_t region, uint64_t tick);
/* Records a marker text on t (guard held). */
void rt__marker(rt_thread *t, const char *text);
/* Defines a region in the process stream; returns its id (>= 1), 0 on error.
 * API regions are deduplicated by name, function regions by address. */
uint32_t rt__region_define(unsigned kind, uint64_t address, const char *name);
/* Called once the MPI rank/size are known (e.g. from MPI_Init). */
void rt__rank_known(int rank, int size);

/* ---------------------------------------------------------------- counters */

/* Decides the counter set (PAPI add+start), writes COUNTER_DEF/MISSING. */
void rt__counters_init(void);
/* Whether name is no event fold or PAPI knows (a typo): then 1, with
 * "unknown event (did you mean A, B?)" in why; 0 for a known event (which
 * may still not be countable here). Loads PAPI on first use; not
 * signal-safe. */
int rt__event_unknown(const char *name, char *why, size_t len);
/* Whether this process says the run's start-up notices (unknown variables,
 * counters left out): once per run, not again in a later exec generation
 * nor in a process whose parent runs under fold (same environment). */
int rt__notice_wanted(void);
/* Opens this thread's counters; returns 0 even if none could be opened.
 * The thread that decided (rt__counters_init) takes the group the
 * decision opened; rt__counters_probe_done closes it if that thread did
 * not (its start failed). */
void rt__counters_thread_start(rt_thread *t);
void rt__counters_probe_done(void);
void rt__counters_thread_stop(rt_thread *t);
/* Threads that got no counters because the descriptor budget was used up. */
uint64_t rt__counters_threads_over_budget(void);
/* Fills values[] with the thread's counter set (hw/sw then app counters) and
 * returns how many. Async-signal-safe: one read(2) on a perf group fd. */
unsigned rt__read_counters(rt_thread *t, uint64_t *values);
/* Re-emits the COUNTER_SET if app counters were registered since (guard held). */
void rt__counter_set_refresh(rt_thread *t);
/* In a fork child: forgets PAPI's state so it is initialised afresh. */
void rt__papi_after_fork(void);
unsigned rt__hw_counter_count(void);

uint32_t rt__app_counter_define(const char *name);
unsigned rt__app_counter_count(void);
/* The CPU-time base a thread's first sample deltas against: the group's
 * CPU time counts from the group's opening (or from what a read at the
 * thread's start said: a group opened earlier, rt__counters_thread_start). */
static inline uint64_t rt__cpu_base(const rt_thread *t)
{
	return t->nhw ? (t->cpu_known ? t->cpu_last : 0) : rt__ns(CLOCK_THREAD_CPUTIME_ID);
}
/* The thread's CPU time now, for a sample: from the counter read that just
 * happened when it carried it, else CLOCK_THREAD_CPUTIME_ID (a syscall). */
static inline uint64_t rt__sample_cpu_ns(const rt_thread *t)
{
	return t->cpu_known || t->sandboxed ? t->cpu_last : rt__ns(CLOCK_THREAD_CPUTIME_ID);
}

/* ---------------------------------------------------------------- sampling */

typedef struct rt_sample_source {
	const char *name;
	int (*configure)(void);            /* once per process */
	int (*thread_start)(rt_thread *t); /* in the thread, after unwinder warm-up */
	void (*thread_stop)(rt_thread *t);
	void (*rearm)(rt_thread *t); /* from the handler: async-signal-safe */
	/* from the handler, before rearm: the CLOCK_MONOTONIC ns at which the
	 * signal being handled was due, 0 when unknown (NULL: never known) */
	uint64_t (*deadline)(const rt_thread *t);
} rt_sample_source;

extern const rt_sample_source rt__source_time;
extern const rt_sample_source rt__source_papi;
extern const rt_sample_source rt__source_perf;
const rt_sample_source *rt__source(void);

/* The next sampling period of t (ns or events), jittered by the seeded
 * per-thread generator. Async-signal-safe. */
uint64_t rt__next_period(rt_thread *t);
/* The next number of t's xorshift generator (signal-safe, t's own). */
uint64_t rt__next_rand(rt_thread *t);
/* Installs the sample/crash handlers; starts sampling on a thread. */
int rt__signals_init(void);
void rt__sampling_thread_start(rt_thread *t);
void rt__sampling_thread_stop(rt_thread *t);
/* The thread entered its first region (inside = 1) or left its last one:
 * the time source moves it to the wall-clock timer or back (guard held). */
void rt__sampling_region(rt_thread *t, int inside);
/* Records one sample on t from a signal handler context (uc may be NULL). */
void rt__sample(rt_thread *t, void *uc);
/* Loads libunwind privately and initialises its process-wide state (at
 * start, outside handlers); rt_unwind.c. */
void rt__unwind_warm(void);
/* Allocates this thread's block of libunwind's TLS (not in a handler). */
void rt__unwind_thread_start(void);
/* unw_backtrace of the private libunwind; 0 frames without it. Signal-safe. */
int rt__unwind_backtrace(void **frames, int max);
/* > 0 while libunwind runs on this thread (rt_fd.c moves its descriptors). */
extern FOLD_TLS volatile int rt__tls_unwinding;
/* Per-thread counts of handler runs, for the blocking-call wrappers
 * (rt_wait.c): bumped by our sampling handler for every sampling signal, and
 * by the trampoline in front of every handler of the program's own. */
extern FOLD_TLS volatile unsigned rt__tls_sig_ours;
extern FOLD_TLS volatile unsigned rt__tls_sig_app;
/* rt_sigmask.c: fold's signals are taken out of every mask the program
 * passes; rt__tls_vmask keeps the program's view of them. */
extern FOLD_TLS uint64_t rt__tls_vmask;
void rt__sigmask_init(int sample_signo, int extra_signo);
const sigset_t *rt__strip_mask(const sigset_t *in, sigset_t *out);
uint64_t rt__mask_bits(const sigset_t *set);
int rt__is_fold_signal(int sig);
void rt__sigmask_for_exec(void);
/* pthread_sigmask without our wrapper, for fold's own use. */
int rt__real_sigmask(int how, const sigset_t *set, sigset_t *old);
/* rt_altstack.c: fold's alternate signal stack per thread. */
void rt__altstack_start(rt_thread *t, int fresh_thread);
void rt__altstack_stop(rt_thread *t);
/* Calls the program's handler as the kernel would have (on the program's
 * alternate stack for SA_ONSTACK). */
void rt__call_program_handler(const struct sigaction *a, int sig, siginfo_t *si, void *uc);
/* At a fold handler's entry: gives the kernel fold's whole alternate stack
 * back at sigreturn when a program handler jumped out of a shorter one. */
void rt__altstack_on_entry(void *uc);
/* 1 in the child of the program's vfork (rt_exec.c), which shares our
 * memory: fold's state is the parent's, hands off. */
extern volatile int rt__in_vfork;
/* Threads a seccomp sandbox made fold quiet on (rt_seccomp.c). */
uint64_t rt__seccomp_threads_quiet(void);
/* Before the program turns seccomp on (op: SECCOMP_SET_MODE_*). */
void rt__before_seccomp(unsigned long op, unsigned long flags, const void *arg);
/* The stop figure (rt_source_time.c): settled at a safe point, outside any
 * signal handler, once the process took a wall-clock sample: from the
 * parent's published figure or by the probe on the calling thread; its
 * INFO written; at RT_STOP_SPAWN published for the children (a mapping
 * named RT_STOP_MAP_PREFIX "ONSET:RETURN:PROBES"); at RT_STOP_EXIT and
 * RT_STOP_EXEC, when there is none, the reason (INFO sample.stop_from). */
enum rt_stop_point { RT_STOP_SPAWN, RT_STOP_EXEC, RT_STOP_EXIT };
#define RT_STOP_MAP_PREFIX "fold-stop:"
void rt__stop_settle(enum rt_stop_point at);
/* In a fork child: the figure into the child's new trace file. */
void rt__stop_after_fork(void);
/* What the parent process shows of fold in /proc/PPID/maps, read once per
 * process image (may_read = 0: NULL unless read already; then it is safe
 * in a signal handler). rt_counters.c. */
typedef struct rt_parent_view {
	int under_fold; /* it maps our libfold.so */
	int has_stop;   /* it published a stop figure */
	int64_t stop_onset;
	uint64_t stop_return;
	unsigned stop_probes;
} rt_parent_view;
const rt_parent_view *rt__parent_view(int may_read);
/* In a fork child: the parent is another process now. */
void rt__parent_view_forget(void);
/* Resolves the real blocking calls (before any sampling signal can arrive). */
void rt__wait_init(void);
/* The same for the socket calls and read/write (rt_socket.c). */
void rt__socket_init(void);
/* Blocks and drains the sampling signal in this thread (before exec). */
void rt__signals_before_exec(void);
void rt__signals_after_exec_failed(void);

/* ---------------------------------------------------------------- modules */

void rt__modules_scan(void); /* emits MODULE_LOAD/UNLOAD for changes */
void rt__modules_reset_after_fork(void);
/* Whether a is in a loaded object's readable code (a PT_LOAD segment with
 * PF_R and PF_X, as of the last scan): 1 with [*lo, *hi) that segment, 0
 * when not or not known now (a scan in progress). Lock-free and
 * async-signal-safe; *gen (optional) gets the table's generation, which
 * rt__code_ranges_gen() then tells unchanged. */
int rt__code_readable(uintptr_t a, uintptr_t *lo, uintptr_t *hi, unsigned *gen);
unsigned rt__code_ranges_gen(void);

/* ---------------------------------------------------------------- process */

enum rt_phase { FOLD_UNINIT = 0, FOLD_INITIALIZING, FOLD_RUNNING, FOLD_FINISHED };

typedef struct rt_process {
	_Atomic int phase;
	_Atomic int stop;   /* quiesced: no thread may record */
	_Atomic int paused; /* fold_pause() */
	_Atomic int crashing;
	_Atomic int exit_sandboxed; /* a seccomp filter denies the final flush's calls (rt_seccomp.c) */
	pid_t init_tid;
	rt_config cfg;
	rt_clock clock;
	int fd;
	dev_t fd_dev; /* the trace file's identity, to know fd is still it */
	ino_t fd_ino;
	char path[1024];
	int rank, size; /* -1 when unknown */
	int path_has_rank;
	pid_t pid;
	/* process stream 0, guarded by proc_lock */
	pthread_mutex_t proc_lock;
	trace_enc proc_enc;
	rt_buf *proc_buf;
	uint32_t proc_seq;
	/* totals from ended threads */
	_Atomic uint64_t threads_total;
	_Atomic uint64_t samples_taken;
	_Atomic uint64_t handler_ticks;
	_Atomic uint64_t dropped[FOLD_DROP_NREASONS];
	_Atomic uint64_t dropped_cpu_ns[FOLD_DROP_NREASONS];
	_Atomic uint64_t unbalanced;
	_Atomic uint64_t region_events_lost; /* API region events no buffer took (rt_api.c) */
	_Atomic uint64_t bytes_raw, bytes_written, chunks_written;
	/* chunks that could not be written, and the samples they held */
	_Atomic uint64_t chunks_lost, samples_lost;
	int write_errno; /* of the first failed write */
	/* threads that got no state (buffer table full) */
	_Atomic uint64_t threads_unmeasured;
	_Atomic uint64_t threads_unsampled; /* threads beyond the timer budget */
	/* sampling */
	const rt_sample_source *source;
	int counters_mode;                                   /* 0 none, 1 software, 2 hardware */
	_Atomic uint64_t leaf_only[FOLD_LEAF_ONLY_NREASONS]; /* totals from ended threads */
} rt_process;

extern rt_process rt__proc;

/* Initialises the process (idempotent, thread-safe). Returns 1 if running. */
int rt__init(void);
/* Final flush: stops recording everywhere, writes everything, closes. */
/* rt_cyg.c: the compiler hooks' end-of-process statistics. */
void rt__cyg_write_stats(void);
void rt__finish(const char *why);
/* Quiesce: stop every thread from recording and wait until none is inside
 * the runtime; unquiesce resumes. Not signal-safe. */
void rt__quiesce(void);
void rt__unquiesce(void);
/* Checkpoint before exec/system: everything written; returns after flush. */
void rt__checkpoint(int for_exec);
void rt__checkpoint_done(int for_exec);

/* Process-stream writers (take proc_lock). */
void rt__proc_info(const char *key, const char *value);
void rt__proc_info_u64(const char *key, uint64_t value);
/* rt__proc_info from a signal handler: a trylock (the interrupted code of
 * this thread, its guard down, does not hold proc_lock), no pool growth;
 * 0, or -EBUSY / -ENOSPC when it could not be written now. */
int rt__proc_info_try(const char *key, const char *value);
void rt__proc_stat(const char *key, uint64_t value);
void rt__proc_clock(void);
void rt__proc_counter_def(uint32_t id, unsigned kind, const char *name);
void rt__proc_counter_missing(const char *name, const char *reason);
void rt__proc_module_load(uint32_t id, uint64_t tick, uint64_t bias, const uint8_t *bid, size_t bid_len,
                          const char *path, const trace_segment *segs, unsigned nseg);
void rt__proc_module_unload(uint32_t id, uint64_t tick);
/* Seals the process stream's buffer into the queue (proc_lock taken). */
void rt__proc_seal(void);
/* Starts the process stream of a new trace file: first buffer, INFO records
 * (fork_parent: the parent's pid in a fork child, else 0), CLOCK. */
void rt__proc_start(pid_t fork_parent);
/* Writes every region definition again into a new process stream. */
void rt__regions_reemit(void);
/* Opens the trace file rt__proc.cfg.output names and writes its header;
 * 0 or a negative errno after one line on stderr. */
int rt__output_start(void);
/* A full memory barrier on every thread of the process (membarrier). */
void rt__membarrier_all(void);
/* Installs the pthread_atfork handlers of rt_fork.c, once. */
void rt__fork_install(void);

/* fork: every runtime lock is taken before fork and released (re-created in
 * the child) after it, so a child never inherits a lock some other thread of
 * its parent held. The core locks, in their one order: threads_lock, then
 * reg_lock, app_lock, mod_lock, proc_lock, grow_lock. A module with locks of
 * its own registers each (a default-type mutex) once: registered locks are
 * taken first, in registration order, so a registered lock must never be
 * taken while a core lock is held. At most 16. Returns 0 or -ENOSPC. */
int rt__fork_lock_register(pthread_mutex_t *lock);
extern pthread_mutex_t rt__threads_lock, rt__reg_lock, rt__app_lock, rt__mod_lock, rt__grow_lock;

/* Output file naming (rt_output.c). The working directory at start makes
 * relative patterns absolute; rt__output_pattern gives the absolute
 * pattern for FOLD_OUTPUT (output, "" for the default) and whether the
 * default name applies (then it gains %r once the rank is known). */
void rt__output_remember_cwd(void);
/* The working directory remembered at start ("" if unknown), and the
 * executable's path (/proc/self/exe, read once per image; "" if unknown). */
const char *rt__start_cwd(void);
const char *rt__exe_path(void);
int rt__output_pattern(const char *output, int with_rank, char *out, size_t len, int *is_default);
int rt__output_open(const char *pattern, char *path, size_t path_len, int *has_rank);
int rt__output_expand(const char *pattern, unsigned generation, char *out, size_t out_len, int *has_gen,
                      int *has_rank);

/* fold's descriptors (rt_fd.c). rt__fd_move moves fd into fold's range
 * near RLIMIT_NOFILE (close-on-exec), registers it and stores the new
 * number in *slot (which the registry updates if the program ever claims
 * that number); returns it. rt__fd_close unregisters and closes *slot. */
int rt__fd_move(int fd, int *slot);
void rt__fd_close(int *slot);
int rt__fd_is_ours(int fd); /* async-signal-safe */
/* How many counter descriptors fold may hold at once. */
/* fold's descriptor budget (1/8 of RLIMIT_NOFILE, at least 1): take n
 * before opening them (0: none left), give back on closing one that was
 * not closed through rt__fd_close (which gives it back). */
/* A descriptor of fold's that was closed behind its wrappers: forgotten,
 * not closed (its number may be the program's now). */
void rt__fd_forget(int fd);
int rt__fd_take(unsigned n);
void rt__fd_give(unsigned n);
unsigned rt__fd_budget(void);
/* In a fork child: closes a descriptor of ours whose thread is gone. */
void rt__fd_after_fork_forget(int fd);

/* Real libc functions behind our interpositions. */
void *rt__real(const char *name);

/* ---------------------------------------------------------------- guard */

/* The same, also for a child of a clone that shares memory without vfork:
 * the pid differs (not asked once a sandbox denies getpid: rt_seccomp.c). */
static inline int rt__vfork_child(void)
{
	return rt__in_vfork || (!atomic_load(&rt__proc.exit_sandboxed) && getpid() != rt__proc.pid);
}

static inline int rt__enter_runtime(rt_thread *t)
{
	t->busy++;
	atomic_signal_fence(memory_order_seq_cst);
	if (FOLD_UNLIKELY(atomic_load_explicit(&rt__proc.stop, memory_order_relaxed) ||
	                  atomic_load_explicit(&rt__proc.paused, memory_order_relaxed))) {
		atomic_signal_fence(memory_order_seq_cst);
		t->busy--;
		return 0;
	}
	return 1;
}

static inline void rt__leave_runtime(rt_thread *t)
{
	atomic_signal_fence(memory_order_seq_cst);
	t->busy--;
	if (FOLD_UNLIKELY(rt__tls_deferred))
		rt__deliver_deferred();
}

/* fold's own locks: the thread defers the program's asynchronous signal
 * handlers while it holds one (rt_signal.c, invariant 14). */
static inline void rt__lock(pthread_mutex_t *m)
{
	rt__tls_defer++;
	atomic_signal_fence(memory_order_seq_cst);
	pthread_mutex_lock(m);
}

static inline int rt__trylock(pthread_mutex_t *m)
{
	rt__tls_defer++;
	atomic_signal_fence(memory_order_seq_cst);
	int rc = pthread_mutex_trylock(m);
	if (rc) {
		atomic_signal_fence(memory_order_seq_cst);
		rt__tls_defer--;
	}
	return rc;
}

static inline void rt__unlock(pthread_mutex_t *m)
{
	pthread_mutex_unlock(m);
	atomic_signal_fence(memory_order_seq_cst);
	rt__tls_defer--;
	if (FOLD_UNLIKELY(rt__tls_deferred))
		rt__deliver_deferred();
}

#endif
