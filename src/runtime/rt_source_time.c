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
 * Once per process that takes wall-clock samples, the stop probe
 * measures how a timer's signal stops the program around its deadline
 * (measure_stop): INFO sample.stop_onset_ns and sample.return_ns, which
 * the analysis uses to place samples and take their cost out
 * (src/fold/run/perturb.c). It is deferred until the process has taken its
 * first such sample and taken from the parent process when that one
 * published it (rt__stop_settle).
 */
#include "fold_rt.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

static clockid_t time_clock;
/* 1: threads other than main are sampled on CPU time outside regions
 * (FOLD_SAMPLE_OUTSIDE=cpu, the default with time@). */
static int outside_cpu;
/* The stop figure (see measure_stop and rt__stop_settle below). A process
 * probes while it runs (in a handler, before a child) only once it has
 * lived this long: the probe's ~1.5 ms is then under 1% of its time. */
#define STOP_MIN_AGE_NS 150000000ull
enum { STOP_UNKNOWN = 0, STOP_MEASURING, STOP_KNOWN, STOP_FAILED };
static struct {
	_Atomic int state;
	int64_t onset;
	uint64_t ret;
	unsigned probes;
	const char *from;    /* "probe" or "parent" */
	_Atomic int written; /* its INFO is in this trace file */
	_Atomic int published;
	_Atomic int sampled; /* a wall-clock sample was taken */
	uint64_t start_ns;   /* when this process (image, fork child) started */
	uint64_t delay_ns;   /* one flush interval, at least STOP_MIN_AGE_NS */
	uint64_t due_ns;     /* from then on the handler may probe */
} stop;

static int time_configure(void)
{
	time_clock = rt__proc.cfg.source == FOLD_SOURCE_CPUTIME ? CLOCK_THREAD_CPUTIME_ID : CLOCK_MONOTONIC;
	outside_cpu = 0;
	uint64_t interval =
	    rt__proc.cfg.flush_interval_ns ? rt__proc.cfg.flush_interval_ns : FOLD_DEFAULT_FLUSH_INTERVAL_NS;
	stop.start_ns = rt__ns(CLOCK_MONOTONIC);
	stop.delay_ns = interval > STOP_MIN_AGE_NS ? interval : STOP_MIN_AGE_NS;
	stop.due_ns = stop.start_ns + stop.delay_ns;
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
 * without a figure. About 1.5 ms. */
#define STOP_PROBES 16
#define STOP_AHEAD_NS 50000ull
#define STOP_TIMEOUT_NS 5000000ull

/* Insertion sort: no qsort in a signal handler. */
static void sort_i64(int64_t *v, int n)
{
	for (int i = 1; i < n; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			int64_t x = v[j];
			v[j] = v[j - 1];
			v[j - 1] = x;
		}
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

/* The stop figure of this process image: measured here, or the one its
 * parent process published. Deferred (issue 28): a process that never
 * takes a wall-clock sample needs none, and most processes of a spawn loop
 * live less than a sampling period; the probe cost each of them ~1.5 ms.
 * So the figure is settled when it is first needed and the process is in
 * a state to measure it:
 *  - at a safe point after the process's first wall-clock sample (the
 *    end, an exec, a fork, posix_spawn or system: rt__stop_settle), first
 *    from the parent's memory map (rt__parent_view), else by the probe on
 *    the calling thread (before a child only once the process has lived
 *    STOP_MIN_AGE_NS: the probe's time is then under 1% of its own, and
 *    a pause record the analysis takes out);
 *  - in the sample handler, by a sample one flush interval (at least
 *    STOP_MIN_AGE_NS) after the start (stop_in_handler), so that a process
 *    killed or crashed after living that long keeps it like the rest of
 *    its data;
 *  - in a fork child, the parent's figure (same memory).
 * Once known outside a handler it is published for the processes this
 * one starts: a memory mapping named by the figure (a 0-byte memfd,
 * PROT_NONE), which a child reads in /proc/PPID/maps with the notice
 * check; nothing enters the environment. A trace without the figure
 * says why (INFO sample.stop_from). */

static int stop_wanted(void)
{
	return time_clock == CLOCK_MONOTONIC && rt__proc.source == &rt__source_time;
}

/* Runs the probes on t, the calling thread, whose sampling timer t->timer
 * is not armed; 0 with the figure in stop, -1 without. */
static int measure_stop(rt_thread *t)
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
		return -1;
	sort_i64(onset, n);
	sort_i64(ret, n);
	stop.onset = onset[n / 2];
	stop.ret = (uint64_t)ret[n / 2];
	stop.probes = (unsigned)n;
	stop.from = "probe";
	return 0;
}

/* The INFO records of the figure, built without stdio (maybe in a handler:
 * put is rt__proc_info or its trylock variant). 0 when all were written. */
static int stop_write(int (*put)(const char *, const char *))
{
	char v[3][24];
	size_t o = 0;
	if (stop.onset < 0)
		rt__str_put(v[0], sizeof v[0], &o, "-");
	rt__str_put_u64(v[0], sizeof v[0], &o, stop.onset < 0 ? (uint64_t)-stop.onset : (uint64_t)stop.onset);
	o = 0;
	rt__str_put_u64(v[1], sizeof v[1], &o, stop.ret);
	o = 0;
	rt__str_put_u64(v[2], sizeof v[2], &o, stop.probes);
	if (put("sample.stop_from", stop.from) || put("sample.stop_onset_ns", v[0]) ||
	    put("sample.return_ns", v[1]) || put("sample.stop_probes", v[2]))
		return -1;
	atomic_store(&stop.written, 1);
	return 0;
}

static int proc_info_put(const char *key, const char *value)
{
	rt__proc_info(key, value);
	return 0;
}

/* measure_stop on t with its guard up; *ns its length. pause: the program
 * runs on after it, so it is written into t's stream as a pause of the
 * runtime after its latest record (the analysis takes it out of the
 * program's time, as it does a chunk's writing); at the end of the image
 * nothing follows it. */
static int measure_stop_paused(rt_thread *t, uint64_t *ns, int pause)
{
	t->busy++;
	atomic_signal_fence(memory_order_seq_cst);
	uint64_t tick = rt__tick(), t0 = rt__ns(CLOCK_MONOTONIC);
	int rc = measure_stop(t);
	*ns = rt__ns(CLOCK_MONOTONIC) - t0;
	if (pause && t->cur)
		rt__thread_note_pause(t, rt__tick() - tick);
	atomic_signal_fence(memory_order_seq_cst);
	t->busy--;
	return rc;
}

/* The name of the mapping a child finds in its parent's memory map. */
static void stop_publish(void)
{
	if (atomic_exchange(&stop.published, 1))
		return;
	char name[96];
	snprintf(name, sizeof name, "%s%lld:%llu:%u", RT_STOP_MAP_PREFIX, (long long)stop.onset,
	         (unsigned long long)stop.ret, stop.probes);
	int fd = memfd_create(name, MFD_CLOEXEC);
	if (fd < 0)
		return;
	void *p = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE, fd, 0);
	(void)p; /* kept for the life of the image; unused */
	close(fd);
}

/* The parent's figure, if it published one; may_read: read the parent's
 * memory map if nobody has yet (not in a handler). */
static int stop_from_parent(int may_read)
{
	const rt_parent_view *pv = rt__parent_view(may_read);
	if (!pv || !pv->has_stop)
		return -1;
	stop.onset = pv->stop_onset;
	stop.ret = pv->stop_return;
	stop.probes = pv->stop_probes;
	stop.from = "parent";
	return 0;
}

/* Outside a handler, on the calling thread t (may be NULL): the figure
 * from the parent, else (may_probe) by the probe, a pause in t's stream if
 * the image goes on (pause). t's wall-clock timer is re-armed after it
 * (outside the handler: its deadline is then unsure, as in
 * rt__sampling_region). */
static void stop_settle_now(rt_thread *t, int may_probe, int pause)
{
	int expect = STOP_UNKNOWN;
	if (!atomic_compare_exchange_strong(&stop.state, &expect, STOP_MEASURING))
		return;
	if (stop_from_parent(1) == 0) {
		atomic_store(&stop.state, STOP_KNOWN);
		return;
	}
	if (!may_probe || !t || !t->timer_ok) {
		atomic_store(&stop.state, STOP_UNKNOWN); /* another thread may measure */
		return;
	}
	int armed = t->wall || !t->timer_cpu_ok; /* t->timer is the sampling timer */
	struct itimerspec off = {{0, 0}, {0, 0}};
	timer_settime(t->timer, 0, &off, NULL); /* a signal it raised is taken on return */
	uint64_t ns;
	int rc = measure_stop_paused(t, &ns, pause);
	if (armed) {
		t->deadline_unsure = 1;
		atomic_signal_fence(memory_order_seq_cst);
		time_arm(t, phase_of_period(t));
	}
	atomic_store(&stop.state, rc ? STOP_FAILED : STOP_KNOWN);
}

/* Why this image ends without a figure (INFO sample.stop_from). */
static const char *stop_none_reason(int state)
{
	if (state == STOP_FAILED)
		return "none: the probe's timer signals did not come (blocked)";
	if (state == STOP_MEASURING)
		return "none: another thread was still probing when the process ended";
	if (!atomic_load(&stop.sampled))
		return "none: no wall-clock sample was taken (the probe runs once one is)";
	return "none: the thread that ended the process has no timer to probe with";
}

void rt__stop_settle(enum rt_stop_point at)
{
	if (!stop_wanted() || atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return;
	/* A process not sampled yet needs no probe, but the parent's figure
	 * costs nothing much and its children may be sampled. Before a child
	 * the process goes on: it probes only once it has lived long enough
	 * for the probe to be a small part of its time. */
	int sampled = atomic_load(&stop.sampled), goes_on = at == RT_STOP_SPAWN;
	int may_probe = sampled && (!goes_on || rt__ns(CLOCK_MONOTONIC) - stop.start_ns >= STOP_MIN_AGE_NS);
	if ((sampled || goes_on) && atomic_load(&stop.state) == STOP_UNKNOWN)
		stop_settle_now(rt__tls_thread, may_probe, goes_on);
	int state = atomic_load(&stop.state);
	if (state == STOP_KNOWN && !atomic_load(&stop.written))
		stop_write(proc_info_put);
	if (state == STOP_KNOWN && at == RT_STOP_SPAWN)
		stop_publish();
	if ((at == RT_STOP_EXIT || at == RT_STOP_EXEC) && !atomic_load(&stop.written))
		rt__proc_info("sample.stop_from", stop_none_reason(state));
}

void rt__stop_after_fork(void)
{
	/* Same memory: the parent's figure (or none yet: measured here when
	 * needed); its mapping came along. The INFO goes into the new file. */
	atomic_store(&stop.written, 0);
	atomic_store(&stop.sampled, 0); /* the child was not */
	stop.start_ns = rt__ns(CLOCK_MONOTONIC);
	stop.due_ns = stop.start_ns + stop.delay_ns;
	if (atomic_load(&stop.state) == STOP_MEASURING)
		atomic_store(&stop.state, STOP_UNKNOWN); /* the parent's other thread was measuring */
	if (atomic_load(&stop.state) == STOP_KNOWN) {
		stop.from = "parent";
		stop_write(proc_info_put);
	}
}

/* In the handler of a wall-clock sample, once the process has lived a
 * flush interval (at least STOP_MIN_AGE_NS): the probe's signals are taken
 * nested in this handler (the sampling signal unblocked meanwhile, its
 * handler sees t->stop_probe), on a thread that is not inside the runtime
 * (t->busy: it may be arming its timer), and the INFO written with a
 * trylock (or by a later sample, or at the end). Publishing waits for a
 * safe point (a system call a sandbox may deny has no place in the sample
 * path). */
static void stop_in_handler(rt_thread *t)
{
	int expect = STOP_UNKNOWN;
	if (!atomic_compare_exchange_strong(&stop.state, &expect, STOP_MEASURING))
		return;
	int rc = stop_from_parent(0);
	if (rc) {
		sigset_t un, old;
		sigemptyset(&un);
		sigaddset(&un, rt__proc.cfg.signo);
		syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &un, &old, _NSIG / 8);
		uint64_t ns;
		rc = measure_stop_paused(t, &ns, 1);
		syscall(SYS_rt_sigprocmask, SIG_SETMASK, &old, NULL, _NSIG / 8);
		/* The sample being taken keeps its own cost: its entry and its
		 * deadline move past the pause (its delivery stays as it was). */
		if (t->sample_entry)
			t->sample_entry += ns;
		if (t->sample_deadline)
			t->sample_deadline += ns;
	}
	atomic_store(&stop.state, rc ? STOP_FAILED : STOP_KNOWN);
}

/* From the handler, every wall-clock sample: two loads once settled. */
static void stop_on_sample(rt_thread *t)
{
	if (FOLD_UNLIKELY(!atomic_load_explicit(&stop.sampled, memory_order_relaxed)))
		atomic_store(&stop.sampled, 1);
	int state = atomic_load_explicit(&stop.state, memory_order_relaxed);
	if (__builtin_expect(atomic_load_explicit(&stop.written, memory_order_relaxed) ||
	                         state == STOP_FAILED || state == STOP_MEASURING || t->busy,
	                     1))
		return;
	if (state == STOP_UNKNOWN) {
		if (rt__ns(CLOCK_MONOTONIC) < stop.due_ns)
			return;
		stop_in_handler(t);
	}
	if (atomic_load(&stop.state) == STOP_KNOWN && stop_write(rt__proc_info_try) == 0)
		rt__proc_seal_try(); /* on disk now, not a flush interval later */
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

/* The handler's re-arm: the stop figure first (its probe uses t->timer). */
static void time_rearm_sample(rt_thread *t)
{
	if (t->timer_ok && on_wall_clock(t))
		stop_on_sample(t);
	time_rearm(t);
}

const rt_sample_source rt__source_time = {
    .name = "time",
    .configure = time_configure,
    .thread_start = time_thread_start,
    .thread_stop = time_thread_stop,
    .rearm = time_rearm_sample,
    .deadline = time_deadline,
};
