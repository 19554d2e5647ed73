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
 */
#include "fold_rt.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
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
}

/* Entering the first region: wall time from now on (two timer_settime calls,
 * only when the thread had moved to CPU time). The CPU-time clock keeps
 * what was left of its period for the next time outside. */
void rt__sampling_region(rt_thread *t, int inside)
{
	if (!inside || t->wall || !t->timer_cpu_ok || !t->timer_ok || rt__proc.source != &rt__source_time)
		return;
	/* The flag first: a tick arriving meanwhile re-arms the wall timer. */
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

static int time_thread_start(rt_thread *t)
{
	struct sigevent sev;
	memset(&sev, 0, sizeof sev);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = rt__proc.cfg.signo;
	sev.sigev_value.sival_ptr = t;
	sev.sigev_notify_thread_id = t->tid;
	if (timer_create(time_clock, &sev, &t->timer)) {
		static int warned;
		if (!warned++)
			rt__warn("timer_create failed (%s): threads from now on are not sampled",
			         strerror(errno));
		return -errno;
	}
	t->timer_ok = 1;
	t->wall = 1;
	/* Not the main thread: a single-threaded program is sampled on wall
	 * time everywhere, and one thread that sleeps costs nothing much. */
	if (outside_cpu && t->tid != getpid()) {
		sev.sigev_value.sival_ptr = t;
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &t->timer_cpu) == 0) {
			t->timer_cpu_ok = 1;
			t->wall = t->open_regions > 0;
		}
	}
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
	if (t->timer_cpu_ok) {
		t->timer_cpu_ok = 0;
		timer_delete(t->timer_cpu);
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
