/* rt_cyg.c: the compiler hooks (-finstrument-functions) and their throttling.
 *
 * Owns __cyg_profile_func_enter/exit: every instrumented function is a region
 * of kind TRACE_REGION_FUNCTION defined by its address (fold symbolises it).
 * Whether a function is recorded is decided once per address (rt_filter.c)
 * and kept in a lock-free cache, so a filtered call costs a hash probe.
 * Throttling (FOLD_THROTTLE, the TAU rule): a function called more than N
 * times on a thread whose mean inclusive duration there is below T is switched
 * off for the whole process; a THROTTLE record says which, when and why.
 * At start-up the cost of a recorded enter+exit pair is calibrated and written
 * as the info key overhead.hook_ns, which fold subtracts per nested call.
 *
 * Invariants:
 *  - Hot paths take no lock, make no system call and do not allocate; they
 *    touch only the cache, this thread's shadow stack and its encoder.
 *  - Every recorded ENTER gets exactly one EXIT from this file unless the
 *    program leaves the function without returning (longjmp: a MARKER says
 *    so), the thread ends inside it, or recording stops (pause, final flush).
 *    That holds through throttling: a function throttled while it is open
 *    still has its exit recorded. The shadow stack is what makes this work:
 *    a throttled function whose own frame is on top of the stack (direct
 *    recursion) pushes a silent frame, so the exit of the inner call cannot
 *    be taken for the exit of the recorded outer one. Frames left by longjmp
 *    are recognised by their stack address and dropped at the next enter,
 *    or at an exit that finds another frame on top (exit_slow).
 *  - Calls beyond the STACK_FRAMES open calls a thread's shadow stack holds
 *    are not recorded, and counted as lost (STAT regions.calls_too_deep).
 *    They are counted under one frame of their own, so that their exits are
 *    never taken for a recorded call's; a longjmp out of them, to any depth,
 *    is recognised by stack address as for recorded frames (deep_exit).
 *  - Cache entries are written only under decide_lock and published by a
 *    release store of their address; a state only moves RECORD -> THROTTLED.
 *  - Nothing here is instrumented (the runtime is built without
 *    -finstrument-functions), and hooks that fire while this thread is inside
 *    a decision (an instrumented malloc, say) are ignored.
 */
#include "rt_regions.h"
#include "util_hash.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* The hooks' hot path (both hooks, enter_hot, exit_top, with the recording
 * inlined: about 2 KiB) lies in a section of its own that starts a page,
 * so it is always one page of code: one iTLB entry to find again after a
 * kernel that streamed memory. Where the linker put it depended on the
 * size of everything before it; at one size the enter hook crossed a page
 * boundary, and DOT's calls in 40^3 miniFE waited 52-63 ns before the
 * hook's first clock instead of 24-27 (medians, alternating runs). */
#define HOOK_HOT __attribute__((section(".text.fold_hooks")))
/* The two exported hooks start a cache line each, so that the lines their
 * fast paths take do not change with the size of the code before them (16
 * bytes more in enter_hot moved the throttled path across a line: 2.4 ->
 * 2.5 ns per event in bench/regions-hooks.sh). */
#define HOOK_LINE __attribute__((aligned(64)))
__asm__(".section .text.fold_hooks,\"ax\",@progbits\n\t.balign 4096\n\t.previous");

/* ---------------------------------------------------------------- the address cache */

enum fn_state { FN_RECORD = 1, FN_OFF = 2, FN_THROTTLED = 3 };

typedef struct fn_entry {
	_Atomic uint64_t addr; /* 0: empty slot; stored last, with release order */
	_Atomic uint32_t state;
	uint32_t region;
	uint64_t throttled_calls, throttled_mean_ns; /* what the THROTTLE record said */
} fn_entry;

#define CACHE_BITS 16
#define CACHE_SLOTS (1u << CACHE_BITS)
#define CACHE_MAX_USED (CACHE_SLOTS / 4 * 3)

/* A fixed table on purpose, not util_hmap (src/util): it is probed on every
 * instrumented call, from any thread, without a lock or malloc. Mapped at
 * the first hook (cyg_tables), not in libfold's data: a program without
 * compiler hooks does not carry its 2 MiB (an mlockall under the default
 * RLIMIT_MEMLOCK failed for the 8 MiB libfold held). NULL before. */
static fn_entry *cache;
static unsigned cache_used;
static _Atomic int cache_full;
static pthread_mutex_t decide_lock = PTHREAD_MUTEX_INITIALIZER;

static inline uint32_t cache_hash(uint64_t fn)
{
	return (uint32_t)(util_hash_mix(fn, 0) >> (64 - CACHE_BITS));
}

static inline fn_entry *cache_find(uint64_t fn)
{
	if (FOLD_UNLIKELY(!cache))
		return NULL;
	for (uint32_t i = cache_hash(fn);; i = (i + 1) & (CACHE_SLOTS - 1)) {
		fn_entry *e = &cache[i];
		uint64_t a = atomic_load_explicit(&e->addr, memory_order_acquire);
		if (__builtin_expect(a == fn, 1))
			return e;
		if (!a)
			return NULL;
	}
}

/* ---------------------------------------------------------------- per-thread state */

typedef struct cyg_frame {
	uint64_t fn; /* DEEP_FN: the frame that stands for the calls deeper than STACK_FRAMES */
	fn_entry *e;
	uint64_t tick; /* 0: this call is not recorded */
	uint64_t sp;   /* the hook's CFA (its caller's stack pointer): deeper calls have lower ones */
} cyg_frame;

/* Per-thread call statistics for throttling, parallel to the cache (no
 * sharing between threads, so hot functions called from many threads do not
 * bounce a cache line). */
typedef struct cyg_stat {
	uint64_t calls;
	uint64_t ticks;
} cyg_stat;

/* Open calls a thread's shadow stack holds. Deeper calls are not recorded:
 * while there are any, one more frame (fn DEEP_FN, never an exit hook's
 * argument, so that the exit hook's fast path never matches it) stands for
 * all of them, with the CFA of the outermost one and their number in
 * cyg_tls.deep (deep_enter, deep_exit). */
#define STACK_FRAMES 65536u
#define DEEP_FN 0

/* A thread memory's totals: the cold hooks' (see COLD_BIN0_NS), per kind and
 * bin, and the calls it left out beyond STACK_FRAMES. */
#define COLD_BINS 9 /* [0, 2 us) [2, 4) [4, 8) ... [128, 256) [256 us, inf) */
enum { COLD_EXIT = 0, COLD_ENTER = 1, COLD_BEFORE = 2, COLD_KINDS = 3 };
typedef struct cold_acc {
	uint64_t ticks[COLD_KINDS][COLD_BINS], n[COLD_KINDS][COLD_BINS];
	uint64_t long_ticks, long_n;     /* not counted: longer than COLD_MAX_NS */
	uint64_t return_ticks, return_n; /* what cold returns moved into calls (cold_return) */
	uint64_t return_reads;           /* the reads of the callers' code behind them */
	uint64_t deep_calls;             /* recorded functions' calls beyond STACK_FRAMES, left out */
	struct cold_acc *all;            /* every thread memory's totals, for the final sum */
} cold_acc;

typedef struct cyg_tls {
	cyg_frame *stack; /* NULL until the first hook of the thread */
	uint32_t sp;
	uint32_t deep; /* open calls beyond STACK_FRAMES (under the DEEP_FN frame), not recorded */
	cyg_stat *stat;
	uint64_t stack_lo, stack_hi; /* this thread's stack, for longjmp detection */
	cold_acc *cold;              /* this thread memory's totals (cold hooks, deep calls) */
	int in_slow;                 /* inside a decision: nested hooks are ignored */
	int calibrating;
	int armed;                /* the next enter hooks read the clock first (see COLD_BIN0_NS) */
	uint64_t last_tick;       /* of this thread's last recorded function event */
	uintptr_t ret_lo, ret_hi; /* the readable code range of the last cold return, */
	unsigned ret_gen;         /* as of this generation of the ranges (cold_return) */
} cyg_tls;

static FOLD_TLS cyg_tls cyg;

/* Thread memory (stack + statistics) is recycled through a free list when
 * the thread ends (pthread key destructor), never unmapped. */
typedef struct cyg_mem {
	struct cyg_mem *next;
} cyg_mem;
static cyg_mem *mem_free;
/* every thread memory's cold totals: pushed under mem_lock, read without
 * it (at the end, which may be a crash path) */
static _Atomic(cold_acc *) cold_all;
static pthread_mutex_t mem_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_key_t mem_key;
static pthread_once_t mem_once = PTHREAD_ONCE_INIT;

/* the frames and the DEEP_FN frame, in whole pages (the statistics follow) */
#define STACK_BYTES ((((size_t)STACK_FRAMES + 1) * sizeof(cyg_frame) + 4095) & ~(size_t)4095)
#define STAT_BYTES ((size_t)CACHE_SLOTS * sizeof(cyg_stat))
#define COLD_BYTES (((sizeof(cold_acc) + 4095) / 4096) * 4096)

static void mem_release(void *p)
{
	cyg_mem *m = p;
	if (!m)
		return;
	if (cyg.stack == (cyg_frame *)(void *)m) {
		cyg.stack = NULL;
		cyg.stat = NULL;
		cyg.cold = NULL;
		cyg.sp = 0;
		cyg.deep = 0;
	}
	rt__lock(&mem_lock);
	m->next = mem_free;
	mem_free = m;
	rt__unlock(&mem_lock);
}

static void mem_key_init(void)
{
	pthread_key_create(&mem_key, mem_release);
}

static int thread_mem_attach(cyg_tls *c)
{
	rt__lock(&mem_lock);
	cyg_mem *m = mem_free;
	if (m)
		mem_free = m->next;
	rt__unlock(&mem_lock);
	if (m) {
		/* Statistics belong to the thread that made them: zero pages again. */
		madvise((uint8_t *)m + STACK_BYTES, STAT_BYTES, MADV_DONTNEED);
	} else {
		void *p = mmap(NULL, STACK_BYTES + STAT_BYTES + COLD_BYTES, PROT_READ | PROT_WRITE,
		               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		m = p;
		/* The cold totals stay with the memory (they are the process's):
		 * listed for the final sum, and their page touched now, not after
		 * a timestamp. */
		cold_acc *a = (cold_acc *)(void *)((uint8_t *)p + STACK_BYTES + STAT_BYTES);
		rt__lock(&mem_lock);
		a->all = atomic_load_explicit(&cold_all, memory_order_relaxed);
		atomic_store_explicit(&cold_all, a, memory_order_release);
		rt__unlock(&mem_lock);
	}
	c->cold = (cold_acc *)(void *)((uint8_t *)m + STACK_BYTES + STAT_BYTES);
	c->armed = 0;
	c->last_tick = 0;
	c->stack = (cyg_frame *)(void *)m;
	c->stat = (cyg_stat *)(void *)((uint8_t *)m + STACK_BYTES);
	c->sp = 0;
	c->deep = 0;
	c->stack_lo = c->stack_hi = 0;
	pthread_attr_t attr;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		void *base;
		size_t size;
		if (pthread_attr_getstack(&attr, &base, &size) == 0) {
			c->stack_lo = (uint64_t)base;
			c->stack_hi = (uint64_t)base + size;
		}
		pthread_attr_destroy(&attr);
	}
	pthread_once(&mem_once, mem_key_init);
	pthread_setspecific(mem_key, m);
	return 0;
}

/* ---------------------------------------------------------------- configuration */

static uint64_t throttle_calls = 100000;
static uint64_t throttle_ns = 10000;
static uint64_t throttle_ticks; /* throttle_ns in ticks; 0 with throttling off */
static double hook_pair_ns;     /* calibrated: see calibrate() */
static double hook_inner_ns;

/* Cold hooks. A hook that runs after a stretch of the program's own work
 * finds the runtime's data out of the caches and TLBs and costs more than the
 * calibrated (warm) cost: tens of ns more after a few us of a loop that
 * streams memory, 100-400 ns after milliseconds, on the test VM. So it is
 * measured online, by the gap since the thread's previous recorded function
 * event (what warms the hooks' code and data; a sample or an MPI call's
 * records do not), in log2 bins from COLD_BIN0_NS up (bin 0: shorter gaps):
 *  - after the timestamp: an event at least COLD_BIN0_NS after the previous
 *    one reads the clock once more at the end of its hook;
 *  - before the timestamp (the enter's probe of the address cache, the call
 *    into the runtime): such an event also arms the thread, and the next
 *    enter hooks then read the clock on entry, until a recorded enter (the
 *    one measured) or ARM_HOOKS filtered ones (a program's timer function
 *    often comes between). Enters that follow a measured event are the
 *    class so measured.
 * So up to 1 + ARM_HOOKS extra clock reads per event at least COLD_BIN0_NS
 * after the previous one. The totals sit in the thread's memory (no atomics,
 * no shared line: their update is the unmeasured tail of a measured hook,
 * so it is kept to a few stores) and are summed at the end (STAT
 * overhead.cold_*.B per bin B, the bins' bounds in INFO
 * overhead.cold_bins_ns); the warm values of the same measurements, and what
 * measuring costs beyond them, come from calibrate(). The analysis takes
 * each event's bin mean over the warm value out of the times around it
 * (instances.h). */
#define COLD_BIN0_NS 2000ull
#define ARM_HOOKS 3 /* enter hooks an arm lasts for: a filtered call or two (a timer) may come first */
#define COLD_MAX_NS 25000ull
static uint64_t cold_gap_ticks = UINT64_MAX; /* bin 1's lower bound; UINT64_MAX: not measuring */
static uint64_t cold_lo_ticks[COLD_BINS];    /* each bin's lower bound */
static uint64_t cold_max_ticks;              /* longer is not the hook's cache misses */
static cold_acc calib_cold;
static double hook_after_ns[COLD_KINDS]; /* warm, from calibrate() */
/* The measuring's own cost outside what it measures (the clock reads
 * themselves, the totals' update, the returns), per measured event after a
 * timestamp and per armed enter, from calibrate(). */
static double measure_after_ns, measure_before_ns;
static _Atomic int cyg_ready; /* 0 before init, 1 running */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

/* fork() takes registered locks in registration order, before the core's:
 * init_lock is held while decide_lock and the filter's lock are taken, and
 * decide_lock while the filter's lock is; mem_lock nests in none of them.
 * The priorities order these constructors across files (rt_filter.c 102). */
__attribute__((constructor(101))) static void cyg_register_fork_locks(void)
{
	rt__fork_lock_register(&init_lock);
	rt__fork_lock_register(&decide_lock);
	rt__fork_lock_register(&mem_lock);
}

static void parse_throttle(void)
{
	const char *v = getenv("FOLD_THROTTLE");
	if (!v || !*v)
		return;
	if (!strcmp(v, "off") || !strcmp(v, "0")) {
		throttle_calls = UINT64_MAX;
		return;
	}
	char buf[64];
	snprintf(buf, sizeof buf, "%s", v);
	char *comma = strchr(buf, ',');
	char *end;
	unsigned long long calls = strtoull(buf, &end, 10);
	uint64_t ns = throttle_ns;
	if (end == buf || (comma ? end != comma : *end) || buf[0] == '-' || !calls ||
	    (comma && rt__parse_duration(comma + 1, &ns))) {
		rt__warn(
		    "FOLD_THROTTLE=%s: expected CALLS,DURATION (e.g. 100000,10us) or off; using %llu,%lluns",
		    v, (unsigned long long)throttle_calls, (unsigned long long)throttle_ns);
		return;
	}
	throttle_calls = calls;
	throttle_ns = ns;
}

/* ---------------------------------------------------------------- recording */

static void __attribute__((noinline)) put_slow(rt_thread *t, int enter, uint64_t tick, uint32_t region)
{
	if (!t->cur) {
		rt__thread_fresh_buffer(t);
		if (!t->cur)
			return;
	}
	int rc = enter ? trace_enc_enter(&t->enc, tick, region, NULL)
	               : trace_enc_exit(&t->enc, tick, region, NULL);
	if (rc == -ENOSPC) {
		/* After the timestamp: sealing writes the chunk here (about 0.34
		 * ms per 64 KB with zstd), which is a pause, not the call's time. */
		uint64_t t0 = rt__tick();
		rt__pool_reserve(4);
		if (rt__thread_swap_buffer(t) == 0 &&
		    (enter ? trace_enc_enter(&t->enc, tick, region, NULL)
		           : trace_enc_exit(&t->enc, tick, region, NULL)) == 0)
			rt__thread_note_pause(t, rt__tick() - t0);
	}
}

static void throttle_check(cyg_tls *c, fn_entry *e, const cyg_stat *s, uint64_t tick);

/* The clock after everything before it has completed: a plain TSC read
 * runs ahead of the hook's outstanding cache misses, which are what a cold
 * hook's measurement is after. */
static inline uint64_t tick_fenced(void)
{
#if defined(__x86_64__) || defined(__i386__)
	if (__builtin_expect(rt__clock_tsc, 1)) {
		__builtin_ia32_lfence();
		return __builtin_ia32_rdtsc();
	}
#endif
	return rt__tick();
}

static inline unsigned cold_bin(uint64_t gap)
{
	unsigned b = 0;
	while (b + 1 < COLD_BINS && gap >= cold_lo_ticks[b + 1])
		b++;
	return b;
}

/* The way into the enter hook (see warm_way_in). */
static _Atomic uintptr_t way_in_stub, way_in_slot;
FOLD_EXPORT void __cyg_profile_func_enter(void *fn, void *site);
static void warm_way_in(void);

/* The end of a cold hook (see COLD_BIN0_NS): its time after the timestamp
 * (kind COLD_EXIT or COLD_ENTER), gap after the previous function event.
 * The bin's lines are touched before the clock: after a kernel that
 * streamed memory they are out of the caches and the TLB, and a miss after
 * the clock read is the hook's time that nothing measures (0.3-0.5 us per
 * call of miniFE's 96^3 WAXPY). The long path's totals, for measurements
 * that are not counted, are not touched first. Returns the time measured;
 * one not counted only for an exit (TRACE_UNKNOWN for an enter), see
 * put_hook_cost. */
static uint64_t __attribute__((noinline, cold)) cold_after(cyg_tls *c, int kind, uint64_t tick, uint64_t gap)
{
	unsigned b = cold_bin(gap);
	uint64_t *ticks = &c->cold->ticks[kind][b], *n = &c->cold->n[kind][b];
	(void)*(volatile uint64_t *)ticks;
	(void)*(volatile uint64_t *)n;
	uint64_t d = tick_fenced() - tick;
	c->armed = ARM_HOOKS;
	/* A signal handler or a buffer swap inside the hook is not the hook's
	 * cache misses: more than COLD_MAX_NS is not counted. */
	if (d > cold_max_ticks && !c->calibrating) {
		c->cold->long_ticks += d;
		c->cold->long_n++;
		return kind == COLD_EXIT ? d : TRACE_UNKNOWN;
	}
	/* added now, not stored from the values read above: an instrumented
	 * signal handler's hooks in between keep their update */
	*ticks += d;
	*n += 1;
	return d;
}

/* After a cold exit, the next thing a program does is often to call the
 * next instrumented function (a solver's kernels one after another). The way
 * into that call's enter hook, before the hook's first clock read, is
 * measured by nothing: the program's PLT stub for the hook, its GOT slot,
 * the hook's first code lines and the clock flag, which the kernel before
 * evicted (0.2-0.3 us on the test VM after a 96^3 miniFE kernel, outside
 * every time fold reports, inside a program's timer around the call). Their
 * lines are prefetched by the cold exit before it: the enter then finds
 * them (0.18 -> 0.08 us, medians). The exit issues them right after its
 * timestamp, before it reads the caller's code (cold_return), so that they
 * fill while that read waits, and their issue lies inside the part of the
 * hook it measures (cold_after). Issued after its last clock read, they
 * were unmeasured hook time, and the next call could find them still in
 * flight (40^3 miniFE: WAXPY's calls 0.01-0.02% closer to the program's
 * timers, DOT's unchanged). Only fold's own path is touched, never the program's
 * code or data; a prefetch of a wrong address does nothing. */
static void warm_way_in(void)
{
	const char *hook = (const char *)(void *)__cyg_profile_func_enter;
	__builtin_prefetch(hook);
	__builtin_prefetch(hook + 64);
	__builtin_prefetch(hook + 128);
	__builtin_prefetch((const void *)&rt__clock_tsc);
	uintptr_t stub = atomic_load_explicit(&way_in_stub, memory_order_relaxed);
	uintptr_t slot = atomic_load_explicit(&way_in_slot, memory_order_relaxed);
	if (stub)
		__builtin_prefetch((const void *)stub);
	if (slot)
		__builtin_prefetch((const void *)slot);
}

/* An armed enter (see COLD_BIN0_NS): its time before the timestamp, from
 * pre, the clock read on entry. Returns it, also one not counted (see
 * put_hook_cost); TRACE_UNKNOWN if the clock went back. */
static uint64_t __attribute__((noinline, cold))
cold_before(cyg_tls *c, uint64_t pre, uint64_t tick, uint64_t gap)
{
	uint64_t d = tick - pre;
	if ((d > cold_max_ticks || pre > tick) && !c->calibrating) {
		c->cold->long_ticks += pre > tick ? 0 : d;
		c->cold->long_n++;
		return pre > tick ? TRACE_UNKNOWN : d;
	}
	unsigned b = cold_bin(gap);
	c->cold->ticks[COLD_BEFORE][b] += d;
	c->cold->n[COLD_BEFORE][b]++;
	return d;
}

/* The program's return from a cold call. -finstrument-functions reads the
 * exit's clock inside the function, before its return; after a call that
 * streamed memory, the return then finds the caller's code evicted (its
 * line and page translation): 0.1 us on the test VM after a 64^3 or 96^3
 * miniFE kernel, in any timer the program keeps around the call, with or
 * without fold, and outside every time fold measured (the caller's time).
 * The exit hook of a cold call (see COLD_BIN0_NS) therefore reads a byte of
 * the caller's code at the return address, between two fenced clock reads,
 * and moves the exit's timestamp later by what that read took beyond a warm
 * one: the call then holds its own return, and the return itself finds the
 * line. A read that took no more than an L2 hit (RETURN_FLOOR_NS beyond
 * warm) moves nothing: a caller whose code is still in the instruction
 * cache (its line in L2) returns at no cost, and its data read would only
 * add noise. Read only inside an object's readable code (rt__code_readable),
 * never in code made at run time or mapped execute-only; the range is kept
 * per thread, so the lookup runs when a return leaves it. The reads' own
 * cost (the lookup, two fences, a warm read) lies after the timestamp, in
 * the hook's measured part after it. Returns the exit's timestamp. */
#define RETURN_FLOOR_NS 10
/* A read longer than this was interrupted (a sample's signal, a preemption;
 * a miss of the line and of its page walk takes well under 1 us): it moves
 * nothing, else a handler's time inside the read would be the call's. */
#define RETURN_MAX_NS 2000
static uint64_t return_warm_ticks, return_floor_ticks, return_max_ticks; /* from calibrate() */

/* How long reading the byte at p takes: the first clock read completes
 * before the read starts, the second waits for it. */
static uint64_t __attribute__((noinline)) code_read_ticks(const volatile char *p)
{
	uint64_t t0 = tick_fenced();
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_lfence();
#endif
	(void)*p;
	return tick_fenced() - t0;
}

static uint64_t __attribute__((noinline, cold)) cold_return(cyg_tls *c, uint64_t tick, const char *site)
{
	uintptr_t a = (uintptr_t)site;
	if (a < c->ret_lo || a >= c->ret_hi || c->ret_gen != rt__code_ranges_gen()) {
		uintptr_t lo, hi;
		unsigned gen;
		if (!rt__code_readable(a, &lo, &hi, &gen))
			return tick;
		/* a signal handler's hook on this thread sees the old range or
		 * none, never half of each */
		c->ret_hi = 0;
		atomic_signal_fence(memory_order_seq_cst);
		c->ret_lo = lo;
		c->ret_gen = gen;
		atomic_signal_fence(memory_order_seq_cst);
		c->ret_hi = hi;
	}
	uint64_t d = code_read_ticks(site);
	c->cold->return_reads++;
	if (d <= return_floor_ticks || d > return_max_ticks)
		return tick;
	d -= return_warm_ticks;
	c->cold->return_ticks += d;
	c->cold->return_n++;
	return tick + d;
}

/* A measured hook's own times (trace record hook_cost), right after its
 * event's record, which ends at mark: fold compensates the event by them
 * rather than by its bin's mean, which mixes functions whose hooks find
 * different caches (a streaming leaf's exit after its loop with a reduction's
 * after its MPI call: 0.8 against 0.3 us on the test VM). It also keeps
 * what the bins leave out (a sample or a preemption inside the hook, more
 * than COLD_MAX_NS) where that lies outside the call's own timestamps (an
 * exit's part after its timestamp, an armed enter's before it): still
 * inside the call as the program sees it, which has not returned, so fold
 * counts it among the call's own hooks rather than in its caller's time.
 * Inside the call's timestamps (an enter's part after it) such time stays
 * in the call's duration, where it would be without the hook: no record.
 * Not written when something came in between (a signal handler's hooks, a
 * sample), after a buffer swap (the slow path: a pause record) or when the
 * buffer is full: fold then takes the bin's mean. After the measurement,
 * so its cost is in the calibrated cost of measuring. */
static void __attribute__((noinline, cold))
put_hook_cost(rt_thread *t, const uint8_t *mark, uint64_t after, uint64_t before)
{
	if (after == TRACE_UNKNOWN && before == TRACE_UNKNOWN)
		return;
	if (!rt__enter_runtime(t))
		return;
	if (mark && t->enc.pos == mark)
		(void)trace_enc_hook_cost(&t->enc, after, before);
	rt__leave_runtime(t);
}

/* ENTER/EXIT without counters (trace_format.h: kind, z dtick, v region),
 * encoded inline: the same bytes trace_enc_enter/exit write, without the
 * call and the generic counter handling, which is a third of a hook's cost.
 * Returns -ENOSPC near the end of the buffer; put_slow then does it the
 * general way. */
#define FAST_RECORD_MAX (1 + 10 + 5)
static inline __attribute__((always_inline)) int put_fast(trace_enc *enc, uint8_t kind, uint64_t tick,
                                                          uint32_t region)
{
	uint8_t *p = enc->pos;
	if (FOLD_UNLIKELY(!p || enc->end - p < FAST_RECORD_MAX))
		return -ENOSPC;
	*p++ = kind;
	uint64_t z = trace_zigzag((int64_t)(tick - enc->last_tick));
	while (z >= 0x80) {
		*p++ = (uint8_t)(z | 0x80);
		z >>= 7;
	}
	*p++ = (uint8_t)z;
	uint32_t r = region;
	while (r >= 0x80) {
		*p++ = (uint8_t)(r | 0x80);
		r >>= 7;
	}
	*p++ = (uint8_t)r;
	enc->pos = p;
	enc->last_tick = tick;
	return 0;
}

/* A frame deeper than the current call on the thread's own stack belongs to
 * a function the program left by longjmp. The hooks compare their CFA, the
 * stack pointer of the function that called them, which is the same in a
 * call's enter and exit hooks. Equal depth proves nothing: a function inlined
 * into its caller (even into itself, by recursive inlining) makes its hook
 * calls from the caller's frame. So a frame left from the same depth stays
 * until an enclosing instrumented function exits (exit_slow); that leaves at
 * most one stale frame per longjmp. */
static inline int frame_dead(const cyg_frame *f, uint64_t cur)
{
	return f->sp < cur;
}

static inline int on_stack(const cyg_tls *c, uint64_t a)
{
	return a >= c->stack_lo && a < c->stack_hi;
}

/* The calls beyond STACK_FRAMES are all over: their frame goes. */
static void deep_end(cyg_tls *c)
{
	c->sp = STACK_FRAMES;
	c->deep = 0;
}

/* Drops the dead frames on top (their ENTERs stay unclosed in the trace,
 * with a marker; the calls beyond STACK_FRAMES have none). Frames on another
 * stack (a signal handler's sigaltstack, a coroutine) are not compared. */
static void __attribute__((noinline)) drop_dead_frames(cyg_tls *c, uint64_t cur)
{
	if (!on_stack(c, cur) || c->calibrating)
		return;
	uint32_t dropped = 0;
	while (c->sp && frame_dead(&c->stack[c->sp - 1], cur) && c->stack[c->sp - 1].sp >= c->stack_lo) {
		if (c->deep) {
			deep_end(c);
			continue;
		}
		c->sp--;
		dropped++;
	}
	rt_thread *t = rt__tls_thread;
	if (dropped && t && rt__enter_runtime(t)) {
		char text[96];
		snprintf(text, sizeof text,
		         "unbalanced: %u instrumented function(s) left without exit (longjmp)", dropped);
		rt__marker(t, text);
		rt__leave_runtime(t);
	}
}

/* A call while the shadow stack is full (sp == STACK_FRAMES) or already
 * deeper: not recorded but counted, so that the exits of these calls find
 * their count and not the recorded frames (deep_exit); a recorded function's
 * (lost: 1) is counted as a loss too (STAT regions.calls_too_deep). The
 * first one pushes the DEEP_FN frame with its CFA. */
static void __attribute__((noinline, cold)) deep_enter(cyg_tls *c, uint64_t cur, int lost)
{
	if (!c->deep) {
		c->stack[STACK_FRAMES] = (cyg_frame){DEEP_FN, NULL, 0, cur};
		c->sp = STACK_FRAMES + 1;
	}
	c->deep++;
	if (lost && c->cold)
		c->cold->deep_calls++;
}

/* An exit (CFA cur) while calls beyond STACK_FRAMES are open: the innermost
 * of them returns, unless cur lies above the outermost one's on the thread's
 * stack. Then the program left them all by longjmp (from any depth, to any
 * depth), the exit is an enclosing call's, and their frame goes. Returns 1
 * when the exit was a deep call's. A longjmp between two of them leaves the
 * count high until an enclosing call returns or enters (drop_dead_frames). */
static int deep_exit(cyg_tls *c, uint64_t cur)
{
	uint64_t outer = c->stack[STACK_FRAMES].sp;
	if (on_stack(c, cur) && on_stack(c, outer) && outer < cur) {
		deep_end(c);
		return 0;
	}
	if (--c->deep == 0)
		c->sp = STACK_FRAMES;
	return 1;
}

/* cur: the CFA of the exported hook (the same for every call from one
 * frame, whichever path records it). */
static inline __attribute__((always_inline)) void
enter_record(cyg_tls *c, rt_thread *t, fn_entry *e, uint64_t fn, uint64_t cur, int slow, uint64_t pre)
{
	/* The clock first: what the hook does after it is inside the call's
	 * time, which the compensation takes out (the calibrated inner part,
	 * and on a cold hook the measured rest); before it, outside the call,
	 * measured on an armed enter (pre: the clock on entry, else 0). */
	uint64_t tick = rt__tick();
	if (FOLD_UNLIKELY(c->sp && frame_dead(&c->stack[c->sp - 1], cur)))
		drop_dead_frames(c, cur);
	if (FOLD_UNLIKELY(c->sp >= STACK_FRAMES)) {
		deep_enter(c, cur, 1);
		return;
	}
	cyg_frame *f = &c->stack[c->sp++];
	f->fn = fn;
	f->e = e;
	f->tick = 0;
	f->sp = cur;
	if (FOLD_UNLIKELY(!t) || !rt__enter_runtime(t))
		return;
	f->tick = tick;
	uint64_t gap = tick - c->last_tick;
	c->last_tick = tick;
	/* the end of the event's record; NULL on the slow path, whose buffer
	 * swap is a pause record of its own, not the hook's measured time */
	const uint8_t *mark = NULL;
	if (__builtin_expect(!put_fast(&t->enc, TRACE_REC_ENTER, tick, e->region), 1))
		mark = t->enc.pos;
	else
		put_slow(t, 1, tick, e->region);
	rt__leave_runtime(t);
	uint64_t before = TRACE_UNKNOWN, after = TRACE_UNKNOWN;
	if (FOLD_UNLIKELY(pre)) {
		c->armed = 0;
		before = cold_before(c, pre, tick, gap);
	}
	if (FOLD_UNLIKELY(gap >= cold_gap_ticks) && !slow)
		after = cold_after(c, COLD_ENTER, tick, gap);
	if (FOLD_UNLIKELY(pre) || FOLD_UNLIKELY(gap >= cold_gap_ticks))
		put_hook_cost(t, mark, after, before);
}

static inline __attribute__((always_inline)) void exit_record(cyg_tls *c, rt_thread *t, const cyg_frame *f,
                                                              const char *site)
{
	/* The clock first (see enter_record): the rest of the hook is after the
	 * call, measured when cold. */
	uint64_t tick = rt__tick();
	if (FOLD_UNLIKELY(!t) || !rt__enter_runtime(t))
		return;
	fn_entry *e = f->e;
	uint64_t gap = tick - c->last_tick;
	if (FOLD_UNLIKELY(gap >= cold_gap_ticks) && site) {
		warm_way_in(); /* first: they fill while the read below waits */
		tick = cold_return(c, tick, site);
	}
	c->last_tick = tick;
	/* the end of the event's record; NULL on the slow path, whose buffer
	 * swap is a pause record of its own, not the hook's measured time */
	const uint8_t *mark = NULL;
	if (__builtin_expect(!put_fast(&t->enc, TRACE_REC_EXIT, tick, e->region), 1))
		mark = t->enc.pos;
	else
		put_slow(t, 0, tick, e->region);
	rt__leave_runtime(t);
	cyg_stat *s = &c->stat[e - cache];
	uint64_t n = ++s->calls;
	s->ticks += tick - f->tick;
	if (FOLD_UNLIKELY(n >= throttle_calls) && (n == throttle_calls || (n & 0xffff) == 0))
		throttle_check(c, e, s, tick);
	if (FOLD_UNLIKELY(gap >= cold_gap_ticks))
		put_hook_cost(t, mark, cold_after(c, COLD_EXIT, tick, gap), TRACE_UNKNOWN);
}

/* ---------------------------------------------------------------- decisions */

static void cyg_init(void);

/* The entry for fn, deciding and inserting it if new; NULL when the cache is
 * full (the function is then not recorded). */
static fn_entry *decide(uint64_t fn)
{
	fn_entry *e;
	rt__lock(&decide_lock);
	e = cache_find(fn);
	if (e || atomic_load(&cache_full))
		goto out;
	if (cache_used >= CACHE_MAX_USED) {
		atomic_store(&cache_full, 1);
		rt__warn("more than %u instrumented functions: the ones called from now on are not recorded",
		         CACHE_MAX_USED);
		goto out;
	}
	enum rt_filter_verdict v = rt__filter_decide(fn);
	uint32_t region = v == FOLD_FILTER_RECORD ? rt__region_define(TRACE_REGION_FUNCTION, fn, "") : 0;
	uint32_t i = cache_hash(fn);
	while (atomic_load_explicit(&cache[i].addr, memory_order_relaxed))
		i = (i + 1) & (CACHE_SLOTS - 1);
	e = &cache[i];
	e->region = region;
	atomic_store_explicit(&e->state, region ? FN_RECORD : FN_OFF, memory_order_relaxed);
	atomic_store_explicit(&e->addr, fn, memory_order_release);
	cache_used++;
out:
	rt__unlock(&decide_lock);
	return e;
}

/* parallel to the cache: the slow path's time before and after the
 * timestamps of recorded calls */
static _Atomic uint64_t *first_before, *first_after; /* [CACHE_SLOTS], by cyg_tables */

/* The tables of the compiler hooks, mapped once (zero pages until used):
 * 0, or -ENOMEM (the hooks then record nothing). Under init_lock. */
static int cyg_tables(void)
{
	if (cache)
		return 0;
	size_t nc = CACHE_SLOTS * sizeof *cache, nf = CACHE_SLOTS * sizeof(uint64_t);
	uint8_t *m = mmap(NULL, nc + 2 * nf, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED)
		return -ENOMEM;
	first_before = (_Atomic uint64_t *)(void *)(m + nc);
	first_after = (_Atomic uint64_t *)(void *)(m + nc + nf);
	atomic_store_explicit((_Atomic(fn_entry *) *)&cache, (fn_entry *)(void *)m, memory_order_release);
	return 0;
}

/* The way a module calls the enter hook, from the hook's return address
 * (x86-64): `call rel32` to its PLT stub, whose `jmp *slot(%rip)` (after an
 * optional endbr64 and bnd prefix) reads the GOT slot; or `call
 * *slot(%rip)` without a PLT (-fno-plt). Read at a function's first call:
 * the bytes of the call the CPU just executed, and of the stub it jumped
 * through, both in the module's executable (and, on x86-64 Linux,
 * readable) text. The last module to make a first call wins; warm_way_in
 * only prefetches what is found here. */
static void learn_way_in(const uint8_t *ret)
{
#if defined(__x86_64__)
	int32_t rel;
	memcpy(&rel, ret - 4, 4);
	if (ret[-5] != 0xe8) {
		if (ret[-5] == 0x15 && ret[-6] == 0xff) {
			atomic_store_explicit(&way_in_stub, 0, memory_order_relaxed);
			atomic_store_explicit(&way_in_slot, (uintptr_t)(ret + rel), memory_order_relaxed);
		}
		return;
	}
	const uint8_t *stub = ret + rel, *jmp = stub;
	if (jmp[0] == 0xf3 && jmp[1] == 0x0f && jmp[2] == 0x1e && jmp[3] == 0xfa)
		jmp += 4; /* endbr64 */
	if (jmp[0] == 0xf2)
		jmp++; /* bnd */
	if (jmp[0] != 0xff || jmp[1] != 0x25)
		return;
	memcpy(&rel, jmp + 2, 4);
	atomic_store_explicit(&way_in_stub, (uintptr_t)stub, memory_order_relaxed);
	atomic_store_explicit(&way_in_slot, (uintptr_t)(jmp + 6 + rel), memory_order_relaxed);
#else
	(void)ret;
#endif
}

/* A throttled function's enter at or beyond STACK_FRAMES (throttled_enter). */
static void __attribute__((noinline, cold)) throttled_deep(cyg_tls *c, uint64_t fn, uint64_t cur)
{
	if (c->sp > STACK_FRAMES || c->stack[STACK_FRAMES - 1].fn == fn)
		deep_enter(c, cur, 0);
}

/* A throttled function's enter: a silent frame when its own frame is on top
 * (direct recursion), so that this call's exit is not taken for the exit of
 * the recorded outer one; where that frame would lie beyond STACK_FRAMES, or
 * while deeper calls are open, it is counted with them (deep_enter), whose
 * exits are counted whatever their function's state. One compare on the
 * way that most throttled calls take, as before there were deep calls. */
static inline __attribute__((always_inline)) void throttled_enter(cyg_tls *c, uint64_t fn, fn_entry *e,
                                                                  uint64_t cur)
{
	uint32_t sp = c->sp;
	if (__builtin_expect(sp - 1 < STACK_FRAMES - 1, 1)) { /* 0 < sp < STACK_FRAMES */
		if (c->stack[sp - 1].fn == fn)
			c->stack[c->sp++] = (cyg_frame){fn, e, 0, cur};
	} else if (FOLD_UNLIKELY(sp)) {
		throttled_deep(c, fn, cur);
	}
}

/* The slow path runs once per function (the decision) and once per thread
 * (its memory). Before the call's timestamp it is outside the call's time,
 * but inside a timer the program keeps around the call; after it (the
 * function's first record, first touches of the thread's buffers) inside the
 * call. Both are measured and written per function at the end (STAT
 * overhead.first_enter_before_ticks.ID, overhead.first_enter_after_ticks.ID),
 * so that fold takes the second out of the call and can say what such a
 * timer holds (the profile's hooks_ns). A first call's cold hook is measured
 * here, not among the cold hooks (a first touch is not a cache miss). */
static void __attribute__((noinline)) enter_slow(uint64_t fn, uint64_t cur)
{
	cyg_tls *c = &cyg;
	if (c->in_slow)
		return;
	int tsc = rt__clock_tsc;
	uint64_t t0 = rt__tick();
	c->in_slow = 1;
	rt_thread *t = rt__thread();
	if (!atomic_load_explicit(&cyg_ready, memory_order_acquire))
		cyg_init();
	if (!c->stack && thread_mem_attach(c)) {
		c->in_slow = 0;
		return;
	}
	fn_entry *e = cache_find(fn);
	if (!e)
		e = decide(fn);
	c->in_slow = 0;
	if (!e)
		return;
	uint32_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
	if (st == FN_RECORD) {
		/* The first touches of the function's statistics (page faults)
		 * here, before the timestamp, rather than in its first exit hook
		 * or after the timestamp, where they are not measured. */
		volatile uint64_t *calls = &c->stat[e - cache].calls;
		*calls = *calls;
		atomic_fetch_add_explicit(&first_before[e - cache], 0, memory_order_relaxed);
		atomic_fetch_add_explicit(&first_after[e - cache], 0, memory_order_relaxed);
		uint32_t sp = c->sp;
		enter_record(c, t, e, fn, cur, 1, 0);
		uint64_t t1 = rt__tick();
		const cyg_frame *f = c->sp > sp ? &c->stack[c->sp - 1] : NULL;
		if (f && f->tick > t0 && t1 >= f->tick && tsc == rt__clock_tsc && !c->calibrating) {
			atomic_fetch_add_explicit(&first_before[e - cache], f->tick - t0,
			                          memory_order_relaxed);
			atomic_fetch_add_explicit(&first_after[e - cache], t1 - f->tick,
			                          memory_order_relaxed);
		}
	} else if (st == FN_THROTTLED && c->stack) {
		throttled_enter(c, fn, e, cur);
	}
}

static void exit_top(cyg_tls *c, uint32_t sp, const char *site);

/* cur: the exit hook's CFA, as the enter hook's (enter_record). */
static void __attribute__((noinline)) exit_slow(uint64_t fn, uint64_t cur)
{
	cyg_tls *c = &cyg;
	if (c->in_slow)
		return;
	fn_entry *e = cache_find(fn);
	if (!e)
		return;
	uint32_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
	if (st == FN_OFF)
		return;
	if (c->deep && deep_exit(c, cur))
		return;
	/* Frames deeper than this exit's were left by longjmp. */
	if (c->sp && frame_dead(&c->stack[c->sp - 1], cur))
		drop_dead_frames(c, cur);
	uint32_t sp = c->sp;
	if (sp && c->stack[sp - 1].fn == fn) {
		exit_top(c, sp, NULL);
		return;
	}
	if (st != FN_RECORD || !sp)
		return;
	/* Not on top: the program left inner functions without returning
	 * (longjmp, an exception through uninstrumented frames). */
	uint32_t k = c->sp - 1;
	while (k > 0 && c->stack[k - 1].fn != fn)
		k--;
	if (k == 0)
		return; /* entered before this thread was measured */
	uint32_t skipped = c->sp - k;
	c->sp = k;
	rt_thread *t = rt__tls_thread;
	const cyg_frame f = c->stack[--c->sp];
	if (t && rt__enter_runtime(t)) {
		char text[96];
		snprintf(text, sizeof text,
		         "unbalanced: %u instrumented function(s) left without exit (longjmp)", skipped);
		rt__marker(t, text);
		rt__leave_runtime(t);
	}
	if (f.tick)
		exit_record(c, t, &f, NULL);
}

/* ---------------------------------------------------------------- the hooks */

/* The exported hooks stay small (few registers, no stack frame beyond the
 * frame pointer) so that the filtered and throttled paths, which most calls
 * of a throttled program take, cost a probe and a compare; recording goes
 * through the noinline functions below. */
static void HOOK_HOT __attribute__((noinline)) enter_hot(uint64_t fn, fn_entry *e, uint64_t cur, uint64_t pre)
{
	cyg_tls *c = &cyg;
	if (FOLD_UNLIKELY(!e || !c->stack)) {
		enter_slow(fn, cur);
		return;
	}
	enter_record(c, rt__tls_thread, e, fn, cur, 0, pre);
}

static void HOOK_HOT __attribute__((noinline)) exit_top(cyg_tls *c, uint32_t sp, const char *site)
{
	c->sp = sp - 1;
	const cyg_frame *f = &c->stack[sp - 1];
	if (f->tick)
		exit_record(c, rt__tls_thread, f, site);
}

FOLD_EXPORT HOOK_HOT HOOK_LINE void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)site;
	/* armed (see COLD_BIN0_NS): the clock first, so that the part of the
	 * hook before its timestamp is measured; a recorded enter disarms, a
	 * filtered one counts down */
	uint64_t pre = 0;
	if (FOLD_UNLIKELY(cyg.armed)) {
		pre = rt__tick();
		cyg.armed--;
	}
	uint64_t a = (uint64_t)fn;
	fn_entry *e = cache_find(a);
	if (__builtin_expect(e != NULL, 1)) {
		uint32_t st = atomic_load_explicit(&e->state, memory_order_relaxed);
		if (st == FN_OFF)
			return;
		if (st == FN_THROTTLED) {
			throttled_enter(&cyg, a, e, (uint64_t)__builtin_dwarf_cfa());
			return;
		}
	}
	if (FOLD_UNLIKELY(!e))
		learn_way_in(__builtin_return_address(0));
	enter_hot(a, e, (uint64_t)__builtin_dwarf_cfa(), pre);
}

FOLD_EXPORT HOOK_HOT HOOK_LINE void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)site;
	cyg_tls *c = &cyg;
	uint32_t sp = c->sp;
	if (__builtin_expect(sp && c->stack[sp - 1].fn == (uint64_t)fn, 1)) {
		exit_top(c, sp, site);
		return;
	}
	/* Not our frame: most often a filtered or throttled function, or a call
	 * beyond STACK_FRAMES (deep_exit). */
	fn_entry *e = cache_find((uint64_t)fn);
	if (e && atomic_load_explicit(&e->state, memory_order_relaxed) != FN_RECORD && !c->deep)
		return;
	exit_slow((uint64_t)fn, (uint64_t)__builtin_dwarf_cfa());
}

/* ---------------------------------------------------------------- throttling */

void rt__proc_throttle(uint32_t region, uint64_t tick, uint64_t calls, uint64_t mean_ns)
{
	rt_thread *self = rt__tls_thread;
	if (self)
		self->busy++;
	for (int attempt = 0; attempt < 2; attempt++) {
		rt__lock(&rt__proc.proc_lock);
		int rc = rt__proc.proc_buf
		             ? trace_enc_throttle(&rt__proc.proc_enc, region, tick, calls, mean_ns)
		             : 0;
		rt__unlock(&rt__proc.proc_lock);
		if (rc != -ENOSPC)
			break;
		rt__proc_seal(); /* seals the full chunk and starts a new one */
	}
	if (self)
		self->busy--;
}

static uint64_t ticks_to_ns(uint64_t ticks)
{
	uint64_t hz = rt__proc.clock.tick_hz ? rt__proc.clock.tick_hz : 1000000000ull;
	return (uint64_t)((double)ticks * 1e9 / (double)hz + 0.5);
}

static void __attribute__((noinline))
throttle_check(cyg_tls *c, fn_entry *e, const cyg_stat *s, uint64_t tick)
{
	if (c->calibrating || s->ticks / s->calls >= throttle_ticks)
		return;
	uint32_t expect = FN_RECORD;
	if (!atomic_compare_exchange_strong(&e->state, &expect, FN_THROTTLED))
		return;
	e->throttled_calls = s->calls;
	e->throttled_mean_ns = ticks_to_ns(s->ticks / s->calls);
	rt__proc_throttle(e->region, tick, e->throttled_calls, e->throttled_mean_ns);
}

/* ---------------------------------------------------------------- calibration */

/* The hooks' own cost, measured on a private thread state and encoder so
 * nothing reaches the trace: pairs of calls through a function pointer (as
 * an instrumented program calls through the PLT), the best of several rounds. */
static rt_thread calib_thread;
static cyg_tls calib_tls;
static uint8_t calib_buf[64 * 1024];

static int calib_no_arm; /* calibrating the cost of the measurements after the timestamps alone */

static void __attribute__((noinline)) calib_enter(void *fn)
{
	uint64_t pre = 0;
	if (calib_tls.armed && !calib_no_arm) {
		pre = rt__tick();
		calib_tls.armed--;
	}
	uint64_t a = (uint64_t)fn;
	fn_entry *e = cache_find(a);
	if (!e)
		return;
	enter_record(&calib_tls, &calib_thread, e, a, (uint64_t)__builtin_dwarf_cfa(), 0, pre);
}

static void __attribute__((noinline)) calib_exit(void *fn)
{
	cyg_tls *c = &calib_tls;
	uint32_t sp = c->sp;
	if (!sp || c->stack[sp - 1].fn != (uint64_t)fn)
		return;
	c->sp = sp - 1;
	const cyg_frame *f = &c->stack[sp - 1];
	if (f->tick)
		exit_record(c, &calib_thread, f, NULL);
}

static void __attribute__((noinline)) calib_dummy(void)
{
	__asm__ volatile("");
}

/* Sets hook_pair_ns (a whole recorded enter+exit pair, as the enclosing
 * calls see it) and hook_inner_ns (the part of it between the two
 * timestamps, which the call's own measured duration contains). */
/* A warm read of code (cold_return): the median of 101, of a line just
 * read; the floor and the ceiling of a cold return from it. */
static void calibrate_return(uint64_t hz)
{
	uint64_t d[101];
	const volatile char *p = (const volatile char *)(void *)code_read_ticks;
	(void)*p;
	for (int i = 0; i < 101; i++)
		d[i] = code_read_ticks(p);
	for (int i = 1; i < 101; i++)
		for (int j = i; j > 0 && d[j - 1] > d[j]; j--) {
			uint64_t x = d[j];
			d[j] = d[j - 1];
			d[j - 1] = x;
		}
	return_warm_ticks = d[50];
	return_floor_ticks = return_warm_ticks + (uint64_t)((double)RETURN_FLOOR_NS * (double)hz / 1e9);
	return_max_ticks = (uint64_t)((double)RETURN_MAX_NS * (double)hz / 1e9);
}

static void calibrate(void)
{
	enum { ROUNDS = 7, PAIRS = 1000 };
	static cyg_frame frames[4];
	/* calibrating: no longjmp detection on this private stack; its
	 * statistics, indexed as the cache, for the time it takes */
	size_t stat_bytes = (size_t)CACHE_SLOTS * sizeof(cyg_stat);
	cyg_stat *stats = mmap(NULL, stat_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (stats == MAP_FAILED)
		return;
	/* A private cache entry for calib_dummy: the real hooks never see that
	 * address (it is not instrumented) and it is never defined as a region. */
	uint64_t fn = (uint64_t)(void *)calib_dummy;
	rt__lock(&decide_lock);
	fn_entry *e = cache_find(fn);
	if (!e) {
		uint32_t i = cache_hash(fn);
		while (atomic_load(&cache[i].addr))
			i = (i + 1) & (CACHE_SLOTS - 1);
		e = &cache[i];
		e->region = 1;
		atomic_store(&e->state, FN_OFF);
		atomic_store_explicit(&e->addr, fn, memory_order_release);
		cache_used++;
	}
	rt__unlock(&decide_lock);
	calib_tls = (cyg_tls){.stack = frames, .stat = stats, .cold = &calib_cold, .calibrating = 1};
	cyg_stat *st = &stats[e - cache];
	void (*volatile enter)(void *) = calib_enter;
	void (*volatile exitf)(void *) = calib_exit;
	uint64_t best = UINT64_MAX, best_inner = UINT64_MAX;
	for (int r = 0; r < ROUNDS; r++) {
		trace_enc_init(&calib_thread.enc, NULL);
		trace_enc_begin(&calib_thread.enc, calib_buf, sizeof calib_buf);
		*st = (cyg_stat){0, 0};
		uint64_t t0 = rt__tick();
		for (int i = 0; i < PAIRS; i++) {
			enter((void *)fn);
			exitf((void *)fn);
		}
		uint64_t t1 = rt__tick();
		if (t1 - t0 < best)
			best = t1 - t0;
		if (st->calls == PAIRS && st->ticks < best_inner)
			best_inner = st->ticks;
	}
	/* The warm parts after and before the timestamps, measured as cold
	 * hooks measure them (every event taken as cold, so every enter is
	 * armed), the best round's mean over all bins (no bounds yet). */
	double best_after[COLD_KINDS] = {-1, -1, -1};
	cold_gap_ticks = 0;
	for (int r = 0; r < ROUNDS; r++) {
		trace_enc_init(&calib_thread.enc, NULL);
		trace_enc_begin(&calib_thread.enc, calib_buf, sizeof calib_buf);
		memset(&calib_cold, 0, sizeof calib_cold);
		calib_tls.armed = 0;
		for (int i = 0; i < PAIRS / 4; i++) {
			enter((void *)fn);
			exitf((void *)fn);
		}
		for (int k = 0; k < COLD_KINDS; k++) {
			uint64_t ticks = 0, n = 0;
			for (int bin = 0; bin < COLD_BINS; bin++) {
				ticks += calib_cold.ticks[k][bin];
				n += calib_cold.n[k][bin];
			}
			double m = n ? (double)ticks / (double)n : -1;
			if (n && (best_after[k] < 0 || m < best_after[k]))
				best_after[k] = m;
		}
	}
	/* What measuring costs beyond what it measures: pairs with every
	 * event measured, with and without the armed enters, against the
	 * plain pairs (best), split evenly between an enter and an exit; a
	 * quarter of the pairs (start-up time). */
	uint64_t best_m[2] = {UINT64_MAX, UINT64_MAX};
	for (int r = 0; r < 2 * ROUNDS; r++) {
		trace_enc_init(&calib_thread.enc, NULL);
		trace_enc_begin(&calib_thread.enc, calib_buf, sizeof calib_buf);
		calib_no_arm = r & 1;
		calib_tls.armed = 0;
		uint64_t t0 = rt__tick();
		for (int i = 0; i < PAIRS / 4; i++) {
			enter((void *)fn);
			exitf((void *)fn);
		}
		uint64_t t1 = rt__tick();
		if (t1 - t0 < best_m[r & 1])
			best_m[r & 1] = t1 - t0;
	}
	calib_no_arm = 0;
	cold_gap_ticks = UINT64_MAX;
	uint64_t hz = rt__proc.clock.tick_hz ? rt__proc.clock.tick_hz : 1000000000ull;
	calibrate_return(hz);
	for (int k = 0; k < COLD_KINDS; k++)
		hook_after_ns[k] = best_after[k] < 0 ? 0 : best_after[k] * 1e9 / (double)hz;
	double per_pair = 1e9 / (double)hz / PAIRS;
	double m_all = ((double)best_m[0] * 4 - (double)best) * per_pair,
	       m_after = ((double)best_m[1] * 4 - (double)best) * per_pair;
	measure_after_ns = m_after / 2;
	measure_before_ns = m_all - m_after;
	if (measure_after_ns < 0)
		measure_after_ns = 0;
	if (measure_before_ns < 0)
		measure_before_ns = 0;
	hook_pair_ns = (double)best * 1e9 / (double)hz / PAIRS;
	hook_inner_ns = best_inner == UINT64_MAX ? 0 : (double)best_inner * 1e9 / (double)hz / PAIRS;
	calib_tls.stat = NULL;
	munmap(stats, stat_bytes);
}

/* ---------------------------------------------------------------- init, fork */

static void emit_process_info(void)
{
	char v[32];
	snprintf(v, sizeof v, "%.2f", hook_pair_ns);
	rt__proc_info("overhead.hook_ns", v);
	snprintf(v, sizeof v, "%.2f", hook_inner_ns);
	rt__proc_info("overhead.hook_inner_ns", v);
	snprintf(v, sizeof v, "%.2f", hook_after_ns[COLD_ENTER]);
	rt__proc_info("overhead.hook_enter_after_ns", v);
	snprintf(v, sizeof v, "%.2f", hook_after_ns[COLD_EXIT]);
	rt__proc_info("overhead.hook_exit_after_ns", v);
	snprintf(v, sizeof v, "%.2f", hook_after_ns[COLD_BEFORE]);
	rt__proc_info("overhead.hook_enter_before_ns", v);
	snprintf(v, sizeof v, "%.2f", measure_after_ns);
	rt__proc_info("overhead.cold_measure_after_ns", v);
	snprintf(v, sizeof v, "%.2f", measure_before_ns);
	rt__proc_info("overhead.cold_measure_before_ns", v);
	char bins[COLD_BINS * 12] = "0";
	for (int b = 1; b < COLD_BINS; b++)
		snprintf(bins + strlen(bins), sizeof bins - strlen(bins), ",%llu",
		         (unsigned long long)(COLD_BIN0_NS << (b - 1)));
	rt__proc_info("overhead.cold_bins_ns", bins);
	uint64_t hz = rt__proc.clock.tick_hz ? rt__proc.clock.tick_hz : 1000000000ull;
	snprintf(v, sizeof v, "%.2f", (double)return_warm_ticks * 1e9 / (double)hz);
	rt__proc_info("overhead.return_read_warm_ns", v);
	rt__proc_info("overhead.cold_gap_from", "function");
	if (throttle_calls == UINT64_MAX) {
		rt__proc_info("throttle", "off");
	} else {
		snprintf(v, sizeof v, "%llu,%lluns", (unsigned long long)throttle_calls,
		         (unsigned long long)throttle_ns);
		rt__proc_info("throttle", v);
	}
}

static void cyg_atfork_child(void)
{
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return;
	for (cold_acc *a = atomic_load(&cold_all); a; a = a->all)
		memset(a, 0, offsetof(cold_acc, all));
	for (uint32_t i = 0; first_before && i < CACHE_SLOTS; i++) {
		atomic_store_explicit(&first_before[i], 0, memory_order_relaxed);
		atomic_store_explicit(&first_after[i], 0, memory_order_relaxed);
	}
	/* The parent's file has the enters of the functions open now. */
	for (uint32_t i = 0; i < cyg.sp; i++)
		cyg.stack[i].tick = 0;
	emit_process_info();
	for (uint32_t i = 0; i < CACHE_SLOTS; i++)
		if (atomic_load_explicit(&cache[i].addr, memory_order_relaxed) &&
		    atomic_load_explicit(&cache[i].state, memory_order_relaxed) == FN_THROTTLED)
			rt__proc_throttle(cache[i].region, rt__tick(), cache[i].throttled_calls,
			                  cache[i].throttled_mean_ns);
}

static void cyg_init(void)
{
	static int configured;
	rt__lock(&init_lock);
	if (!configured && cyg_tables() == 0) {
		rt__filter_init();
		rt__filter_preload();
		parse_throttle();
		pthread_atfork(NULL, NULL, cyg_atfork_child);
		configured = 1;
	}
	/* Calibration needs the running clock; a hook during the runtime's own
	 * start-up (an instrumented malloc) comes back here later. */
	int phase = atomic_load(&rt__proc.phase);
	if (!atomic_load(&cyg_ready) && (phase == FOLD_RUNNING || phase == FOLD_FINISHED)) {
		uint64_t hz = rt__proc.clock.tick_hz ? rt__proc.clock.tick_hz : 1000000000ull;
		throttle_ticks =
		    throttle_calls == UINT64_MAX ? 0 : (uint64_t)((double)throttle_ns * (double)hz / 1e9);
		if (phase == FOLD_RUNNING) {
			/* A function's first enter hook probes the table before anything
			 * is measured: the table's pages are mapped now (read: the zero
			 * page), not then (a page fault, ~1 us, in the caller's time). */
			for (uint32_t i = 0; i < CACHE_SLOTS; i += 4096 / sizeof *cache)
				(void)atomic_load_explicit(&cache[i].addr, memory_order_relaxed);
			calibrate();
			emit_process_info();
			for (int b = 1; b < COLD_BINS; b++)
				cold_lo_ticks[b] =
				    (uint64_t)((double)(COLD_BIN0_NS << (b - 1)) * (double)hz / 1e9);
			cold_max_ticks = (uint64_t)((double)COLD_MAX_NS * (double)hz / 1e9);
			cold_gap_ticks = cold_lo_ticks[1];
		}
		atomic_store_explicit(&cyg_ready, 1, memory_order_release);
	}
	rt__unlock(&init_lock);
}

/* The cold hooks' totals (see COLD_BIN0_NS) and the calls left out beyond
 * STACK_FRAMES, over every thread memory, at the end of the process (a
 * thread still running may add a last event). */
void rt__cyg_write_stats(void)
{
	static const char *const keys[COLD_KINDS][2] = {
	    {"overhead.cold_exit_ticks", "overhead.cold_exits"},
	    {"overhead.cold_enter_ticks", "overhead.cold_enters"},
	    {"overhead.cold_before_ticks", "overhead.cold_befores"}};
	uint64_t ticks[COLD_KINDS][COLD_BINS] = {{0}}, n[COLD_KINDS][COLD_BINS] = {{0}};
	uint64_t long_ticks = 0, long_n = 0, return_ticks = 0, return_n = 0, return_reads = 0;
	uint64_t deep_calls = 0;
	for (const cold_acc *a = atomic_load_explicit(&cold_all, memory_order_acquire); a; a = a->all) {
		deep_calls += a->deep_calls;
		return_ticks += a->return_ticks;
		return_n += a->return_n;
		return_reads += a->return_reads;
		for (int k = 0; k < COLD_KINDS; k++)
			for (int b = 0; b < COLD_BINS; b++) {
				ticks[k][b] += a->ticks[k][b];
				n[k][b] += a->n[k][b];
			}
		long_ticks += a->long_ticks;
		long_n += a->long_n;
	}
	/* a loss: calls of recorded functions with more than STACK_FRAMES
	 * instrumented calls open on their thread, not recorded */
	if (deep_calls) {
		rt__proc_stat("regions.calls_too_deep", deep_calls);
		rt__proc_stat("regions.depth_limit", STACK_FRAMES);
	}
	/* not compensated, written so that a comparison with the program's own
	 * timers can tell stalls inside hooks (preemption) from fold's error */
	if (long_n) {
		rt__proc_stat("overhead.cold_long_ticks", long_ticks);
		rt__proc_stat("overhead.cold_longs", long_n);
	}
	/* what cold returns moved into their calls (cold_return), and how many
	 * returns were read, for the reader */
	if (return_reads) {
		rt__proc_stat("overhead.return_reads", return_reads);
		rt__proc_stat("overhead.cold_return_ticks", return_ticks);
		rt__proc_stat("overhead.cold_returns", return_n);
	}
	for (int k = 0; k < COLD_KINDS; k++)
		for (int b = 0; b < COLD_BINS; b++) {
			if (!n[k][b])
				continue;
			char key[64];
			snprintf(key, sizeof key, "%s.%d", keys[k][0], b);
			rt__proc_stat(key, ticks[k][b]);
			snprintf(key, sizeof key, "%s.%d", keys[k][1], b);
			rt__proc_stat(key, n[k][b]);
		}
	/* The slots of decided functions only: the tables are 3 MiB of memory
	 * a program without compiler hooks never touches, and reading all of
	 * first_before and first_after at every exit faulted in 256 zero pages
	 * (~3 ms on a VM). The cache's pages are mapped by cyg_init, a slot's
	 * first_* by its function's first call. */
	rt__lock(&decide_lock);
	unsigned used = cache_used;
	rt__unlock(&decide_lock);
	for (uint32_t i = 0; used && cache && i < CACHE_SLOTS; i++) {
		if (!atomic_load_explicit(&cache[i].addr, memory_order_relaxed) || !cache[i].region)
			continue;
		uint64_t b = atomic_load_explicit(&first_before[i], memory_order_relaxed);
		uint64_t a = atomic_load_explicit(&first_after[i], memory_order_relaxed);
		if (!b)
			continue;
		char key[64];
		snprintf(key, sizeof key, "overhead.first_enter_before_ticks.%u", cache[i].region);
		rt__proc_stat(key, b);
		snprintf(key, sizeof key, "overhead.first_enter_after_ticks.%u", cache[i].region);
		rt__proc_stat(key, a);
	}
}
