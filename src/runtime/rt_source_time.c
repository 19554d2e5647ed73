/* rt_source_time.c: the time@ and cputime@ sample sources.
 *
 * time@: one-shot POSIX timers per thread, re-armed from the handler. With
 * FOLD_SAMPLE_OUTSIDE=cpu (the default) a thread other than main has two:
 * the wall-clock one (t->wall = 1) while it is inside an API/OpenMP region
 * and until its next tick after it left the last one, the CPU-time one
 * otherwise, so a blocked thread outside regions is never woken (256 idle
 * threads cost a core with wall time everywhere). Invariants: exactly one of
 * the two is armed while sampling runs; only the thread itself switches
 * (rt__sampling_region with its guard up, or its handler), and t->wall is
 * written before the timers, so a tick that lands in between re-arms the
 * timer the flag names. The timer's signal is rt__proc.cfg.signo; its
 * handler and the rules it keeps are in rt_signal.c.
 *
 * Once per process, before the first wall-clock timer is armed for
 * sampling, the stop probe measures how a timer's signal stops the
 * program around its deadline (measure_stop): INFO sample.stop_onset_ns
 * and sample.return_ns, which the analysis uses to place samples and take
 * their cost out (src/fold/perturb.c).
 */
#include "fold_rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static clockid_t time_clock;
/* 1: threads other than main are sampled on CPU time outside regions
 * (FOLD_SAMPLE_OUTSIDE=cpu, the default with time@). */
static int outside_cpu;

static int time_configure(void)
{
	time_clock = rt__proc.cfg.source == FOLD_SOURCE_CPUTIME ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	outside_cpu = 0;
	if (rt__proc.cfg.source == FOLD_SOURCE_TIME) {
		const char *v = getenv("FOLD_SAMPLE_OUTSIDE");
		outside_cpu = 1;
		if (v && *v && !strcmp(v, "wall"))
			outside_cpu = 0;
		else if (v && *v && strcmp(v, "cpu"))
			rt__warn("FOLD_SAMPLE_OUTSIDE=\"%s\" is not valid: expected cpu or wall; using cpu",
			         v);
		rt__proc_info("sample.outside", outside_cpu ? "cpu" : "wall");
	}
	return 0;
}

/* The clock t's timer runs on, read from any thread of the process. */
static clockid_t thread_clock(const rt_thread *t)
{
	if (time_clock != CLOCK_THREAD_CPUTIME_ID && (t->wall || !t->timer_cpu_ok))
		return time_clock;
	return (clockid_t)((~(unsigned)t->tid << 3) | 6); /* MAKE_THREAD_CPUCLOCK(tid, SCHED) */
}

/* 1: t's armed timer is the wall-clock one, on CLOCK_MONOTONIC. */
static int on_wall_clock(const rt_thread *t)
{
	return time_clock == CLOCK_MONOTONIC && (t->wall || !t->timer_cpu_ok);
}

/* The wall-clock timer is armed at an absolute deadline, armed_at + p, so
 * that the deadline is known exactly: a relative one starts when the
 * kernel reads its clock, a syscall entry after armed_at. */
static void time_arm(rt_thread *t, uint64_t p)
{
	t->armed_at = rt__ns(thread_clock(t));
	t->armed_for = p;
	int wall = on_wall_clock(t);
	uint64_t v = wall ? t->armed_at + p : p;
	struct itimerspec its = {{0, 0}, {(time_t)(v / 1000000000ull), (long)(v % 1000000000ull)}};
	timer_settime(t->wall || !t->timer_cpu_ok ? t->timer : t->timer_cpu, wall ? TIMER_ABSTIME : 0, &its,
	              NULL);
}

/* The deadline of the signal being handled, for the sample's delivery
 * latency (handler entry minus deadline: the kernel's stop of the program
 * before the handler). Wall-clock timers only: a CPU-time timer is checked
 * at the scheduler's ticks, so its deadline says nothing of the stop. */
static uint64_t time_deadline(const rt_thread *t)
{
	if (!t->timer_ok || !t->armed_for || !on_wall_clock(t))
		return 0;
	return t->armed_at + t->armed_for;
}

/* A random phase of a period, for a clock that starts counting afresh: a
 * region entered from idle is sampled at the right rate from its start. */
static uint64_t phase_of_period(rt_thread *t)
{
	uint64_t p = rt__next_period(t);
	return 1 + (uint64_t)((double)p * (double)(rt__next_rand(t) >> 11) * (1.0 / 9007199254740992.0));
}

/* From the handler, before the sample. The switch back to CPU time is lazy:
 * leaving the last region costs nothing; the wall-clock timer's next tick
 * outside any region (sampled: it is a genuine wall-time sample) moves the
 * thread to its CPU-time timer. */
static void time_rearm(rt_thread *t)
{
	if (!t->timer_ok)
		return;
	if (t->wall && t->timer_cpu_ok && !t->open_regions) {
		t->wall = 0;
		uint64_t left = t->left_cpu;
		t->left_cpu = 0;
		time_arm(t, left ? left : phase_of_period(t));
		return;
	}
	time_arm(t, rt__next_period(t));
	t->deadline_unsure = 0; /* armed here: the next signal is this arm's */
}

/* Entering the first region: wall time from now on (two timer_settime calls,
 * only when the thread had moved to CPU time). The CPU-time clock keeps
 * what was left of its period for the next time outside. */
void rt__sampling_region(rt_thread *t, int inside)
{
	if (!inside || t->wall || !t->timer_cpu_ok || !t->timer_ok || rt__proc.source != &rt__source_time)
		return;
	/* The flag first: a tick arriving meanwhile re-arms the wall timer. A
	 * signal of the CPU-time timer may still be pending: until the handler
	 * re-arms, the wall deadline does not bound its delivery. */
	t->deadline_unsure = 1;
	t->wall = 1;
	atomic_signal_fence(memory_order_seq_cst);
	struct itimerspec off = {{0, 0}, {0, 0}}, old;
	if (timer_settime(t->timer_cpu, 0, &off, &old))
		memset(&old, 0, sizeof old);
	t->left_cpu = (uint64_t)old.it_value.tv_sec * 1000000000ull + (uint64_t)old.it_value.tv_nsec;
	time_arm(t, phase_of_period(t));
}

/* Samples t lost because its timer fired and the signal was never taken:
 * the thread keeps it blocked (a raw rt_sigprocmask, or a mask glibc set
 * behind our wrappers). Called when the timer is deleted. */
static uint64_t time_missed(rt_thread *t)
{
	struct itimerspec cur;
	if (timer_gettime(t->wall || !t->timer_cpu_ok ? t->timer : t->timer_cpu, &cur) ||
	    cur.it_value.tv_sec || cur.it_value.tv_nsec || !t->armed_for)
		return 0;
	uint64_t now = rt__ns(thread_clock(t));
	uint64_t fired = t->armed_at + t->armed_for;
	if (now <= fired)
		return 0;
	/* One late signal may be in flight; beyond two periods it is blocked. */
	uint64_t missed = (now - fired) / t->armed_for;
	return missed >= 2 ? missed : 0;
}

/* The stop probe. A sample's record says when its handler began and when
 * the timer was due, not when the program stopped, nor when it ran again
 * after the handler. So the thread spins reading CLOCK_MONOTONIC across
 * STOP_PROBES timer signals STOP_AHEAD_NS ahead, each handled at once
 * (rt_signal.c: no sample); the last read before the handler's entry is
 * the stop's onset, the first after its exit the resume. On a KVM guest
 * the onset comes about 0.9 us before the deadline (the host wakes early
 * to inject the interrupt on time) and the return takes about 0.4 us. The
 * medians go to INFO; a probe that times out (the signal blocked) ends it
 * without a figure. About 1.5 ms per process. */
#define STOP_PROBES 16
#define STOP_AHEAD_NS 50000ull
#define STOP_TIMEOUT_NS 5000000ull

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return a < b ? -1 : a > b;
}

/* One probe: the onset before (negative) or after the deadline and the
 * return after the handler's exit, ns; -1 when the signal did not come. */
static int stop_probe_once(rt_thread *t, int64_t *onset, int64_t *ret)
{
	t->stop_probe = 1;
	uint64_t d = rt__ns(CLOCK_MONOTONIC) + STOP_AHEAD_NS;
	struct itimerspec its = {{0, 0}, {(time_t)(d / 1000000000ull), (long)(d % 1000000000ull)}};
	if (timer_settime(t->timer, TIMER_ABSTIME, &its, NULL))
		return -1;
	uint64_t prev = rt__ns(CLOCK_MONOTONIC), now = prev;
	while (t->stop_probe != 2 && now < d + STOP_TIMEOUT_NS) {
		prev = now;
		now = rt__ns(CLOCK_MONOTONIC);
	}
	if (t->stop_probe != 2) {
		struct itimerspec off = {{0, 0}, {0, 0}};
		timer_settime(t->timer, 0, &off, NULL);
		return -1;
	}
	/* the handler ran after prev's read or after now's: bracket it */
	uint64_t after = rt__ns(CLOCK_MONOTONIC), before = prev;
	if (now < t->probe_entry)
		before = now;
	else
		after = now;
	if (after < t->probe_exit || before > t->probe_entry)
		return -1;
	*onset = (int64_t)before - (int64_t)d;
	*ret = (int64_t)(after - t->probe_exit);
	return 0;
}

static void measure_stop(rt_thread *t)
{
	int64_t onset[STOP_PROBES], ret[STOP_PROBES];
	int n = 0;
	for (int i = 0; i < STOP_PROBES; i++)
		if (stop_probe_once(t, &onset[n], &ret[n]) == 0)
			n++;
		else if (t->stop_probe != 2)
			break; /* blocked: do not wait for the others */
	t->stop_probe = 0;
	if (n < STOP_PROBES / 2)
		return;
	qsort(onset, (size_t)n, sizeof *onset, cmp_i64);
	qsort(ret, (size_t)n, sizeof *ret, cmp_i64);
	char v[32];
	snprintf(v, sizeof v, "%lld", (long long)onset[n / 2]);
	rt__proc_info("sample.stop_onset_ns", v);
	rt__proc_info_u64("sample.return_ns", (uint64_t)ret[n / 2]);
	rt__proc_info_u64("sample.stop_probes", (uint64_t)n);
}

/* POSIX timers each hold a queued-signal slot of the user's
 * RLIMIT_SIGPENDING while they exist (the kernel preallocates it), so a
 * program under `ulimit -i` whose own timer_create or sigqueue needs those
 * slots would fail sooner. fold's timers are kept to 1/8 of the soft limit
 * (at least the main thread's one): a thread beyond it is not sampled
 * (counted, said once), one beyond it with a wall-clock timer samples on
 * that timer alone. */
static _Atomic long timers_held;

static long timer_budget(void)
{
	static long budget = -2;
	if (budget == -2) {
		struct rlimit rl;
		budget = getrlimit(RLIMIT_SIGPENDING, &rl) || rl.rlim_cur == RLIM_INFINITY ? -1
		                                                                           : (long)(rl.rlim_cur / 8);
	}
	return budget;
}

static int timer_take(void)
{
	long b = timer_budget();
	if (b < 0 || atomic_fetch_add(&timers_held, 1) < (b ? b : 1))
		return 1;
	atomic_fetch_sub(&timers_held, 1);
	return 0;
}

static void timer_give(void)
{
	if (timer_budget() >= 0)
		atomic_fetch_sub(&timers_held, 1);
}

static int time_thread_start(rt_thread *t)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = rt__proc.cfg.signo;
	sev.sigev_value.sival_ptr = t;
	sev.sigev_notify_thread_id = t->tid;
	if (!timer_take()) {
		static _Atomic int warned;
		atomic_fetch_add(&rt__proc.threads_unsampled, 1);
		if (!atomic_exchange(&warned, 1))
			rt__warn("fold keeps its timers to 1/8 of RLIMIT_SIGPENDING (%ld): thread %d and those "
			         "beyond the budget are not sampled",
			         timer_budget(), (int)t->tid);
		return -EAGAIN;
	}
	if (timer_create(time_clock, &sev, &t->timer)) {
		static int warned;
		int e = errno;
		timer_give();
		if (!warned++)
			rt__warn("timer_create failed (%s): threads from now on are not sampled", strerror(e));
		return -e;
	}
	t->timer_ok = 1;
	t->wall = 1;
	/* Not the main thread: a single-threaded program is sampled on wall
	 * time everywhere, and one thread that sleeps costs nothing much. */
	if (outside_cpu && t->tid != rt__proc.pid && timer_take()) {
		sev.sigev_value.sival_ptr = t;
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer_cpu) == 0) {
			t->timer_cpu_ok = 1;
			t->wall = t->open_regions > 0;
		} else
			timer_give();
	}
	static _Atomic int stop_measured;
	if (time_clock == CLOCK_MONOTONIC && !atomic_exchange(&stop_measured, 1))
		measure_stop(t);
	time_rearm(t);
	return 0;
}

static void time_thread_stop(rt_thread *t)
{
	if (!t->timer_ok)
		return;
	t->timer_ok = 0;
	uint64_t missed = time_missed(t);
	if (missed) {
		t->dropped[FOLD_DROP_BLOCKED] += missed;
		static _Atomic int warned;
		if (!atomic_exchange(&warned, 1))
			rt__warn("thread %d kept the sampling signal blocked (outside fold's wrappers): %llu "
			         "sample(s) lost, counted as dropped (signal_blocked)",
			         (int)t->tid, (unsigned long long)missed);
	}
	timer_delete(t->timer);
	timer_give();
	if (t->timer_cpu_ok) {
		t->timer_cpu_ok = 0;
		timer_delete(t->timer_cpu);
		timer_give();
	}
}

const rt_sample_source rt__source_time = {
    .name = "time",
    .configure = time_configure,
    .thread_start = time_thread_start,
    .thread_stop = time_thread_stop,
    .rearm = time_rearm,
    .deadline = time_deadline,
};
