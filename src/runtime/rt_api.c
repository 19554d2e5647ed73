/* rt_api.c: the public API of include/fold.h, as libfold.so defines it.
 *
 * Owns the semantics of API regions and app-defined counters on a thread:
 * balanced use is recorded as ENTER/EXIT with the thread's counter values;
 * unbalanced use (an exit without enter, the exit of another region than the
 * innermost, a thread ending inside a region, longjmp out of one) is recorded
 * as it happened plus a MARKER saying what was wrong and a regions.unbalanced
 * statistic, and never crashes. Calls before initialisation start the
 * runtime; calls after the final flush do nothing.
 */
#include "fold.h"

#include <stdio.h>
#include <string.h>

#include "fold_rt.h"

FOLD_EXPORT uint32_t fold_region(const char *name)
{
	rt__thread(); /* initialises the process on first use */
	return rt__region_define(TRACE_REGION_API, 0, name ? name : "");
}

static void unbalanced(rt_thread *t, const char *what, uint32_t region)
{
	char text[128];
	if (t->region_depth)
		snprintf(text, sizeof text, "unbalanced: %s of region %u (innermost open: %u)", what, region,
		         t->region_stack[(t->region_depth - 1) % FOLD_REGION_STACK]);
	else
		snprintf(text, sizeof text, "unbalanced: %s of region %u (none open)", what, region);
	rt__marker(t, text);
	t->unbalanced++;
}

static void keep(rt_thread *t, uint32_t region, int enter, int call, uint64_t tick);

/* The record of an API event: tick 0, now with the thread's counter values;
 * else a kept event's own tick, without them. One no buffer takes (all
 * queued while the writer waits: another thread's fork) is kept. */
static void record(rt_thread *t, uint32_t region, int enter, uint64_t tick)
{
	enum rt_event ev = enter ? FOLD_EV_ENTER : FOLD_EV_EXIT;
	int rc = tick ? rt__region_event_at(t, ev, region, tick) : rt__region_event(t, ev, region, 1);
	if (rc) /* rare: the clock is read again only then, not on every event */
		keep(t, region, enter, 0, tick ? tick : rt__tick());
}

static void enter_region(rt_thread *t, uint32_t region, uint64_t tick)
{
	if (t->region_depth < FOLD_REGION_STACK)
		t->region_stack[t->region_depth] = region;
	t->region_depth++;
	record(t, region, 1, tick);
}

static void exit_region(rt_thread *t, uint32_t region, uint64_t tick)
{
	unsigned d = t->region_depth;
	if (d == 0) {
		unbalanced(t, "exit without enter", region);
	} else if (d <= FOLD_REGION_STACK && t->region_stack[d - 1] != region) {
		/* Find it further out (longjmp, a missed exit): close down to it. */
		unsigned k = d - 1;
		while (k > 0 && t->region_stack[k - 1] != region)
			k--;
		if (k > 0) {
			unbalanced(t, "exit skipping inner regions", region);
			t->region_depth = k - 1;
		} else {
			unbalanced(t, "exit of a region that is not open", region);
		}
	} else {
		t->region_depth--;
	}
	record(t, region, 0, tick);
}

/* While another thread forks (or the runtime is quiesced for a moment)
 * the runtime is stopped and its writer waits: an API call then is kept
 * with its tick and made at the thread's next API call, and so is a record
 * no buffer could take, so that the thread's regions stay balanced and
 * their times exact. Dropped, an enter left its exit "without enter"
 * (prog_forkstress: "1 exit(s) do not match the innermost open region"
 * after an enter lost 17 ms into a fork). Not while paused (fold_pause:
 * the program asked for nothing) or after the final stop. An instance
 * wholly inside the stop is lost, and so is anything beyond FOLD_DEFERRED
 * kept events: counted (regions.events_lost). */
static void keep(rt_thread *t, uint32_t region, int enter, int call, uint64_t tick)
{
	if (atomic_load_explicit(&rt__proc.paused, memory_order_relaxed) ||
	    atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return;
	/* An exit of the region whose enter is the last kept: the instance
	 * fell wholly into the stop, and is lost (counted); what is kept stays
	 * the events that change the thread's open regions. */
	if (!enter && t->ndeferred && t->deferred[t->ndeferred - 1].enter &&
	    t->deferred[t->ndeferred - 1].region == region) {
		t->ndeferred--;
		t->ndeferred_lost += 2;
		return;
	}
	if (t->ndeferred >= FOLD_DEFERRED) {
		t->ndeferred_lost++;
		return;
	}
	t->deferred[t->ndeferred].tick = tick ? tick : 1;
	t->deferred[t->ndeferred].region = region;
	t->deferred[t->ndeferred].enter = (uint16_t)enter;
	t->deferred[t->ndeferred].call = (uint16_t)call;
	t->ndeferred++;
}

/* The kept events, in order; any that cannot be recorded yet is kept
 * again, with every one after it. */
static void record_kept(rt_thread *t)
{
	unsigned n = t->ndeferred;
	__typeof__(t->deferred[0]) kept[FOLD_DEFERRED];
	memcpy(kept, t->deferred, n * sizeof kept[0]);
	t->ndeferred = 0;
	for (unsigned i = 0; i < n; i++) {
		if (t->ndeferred) { /* an earlier one failed: keep the order */
			keep(t, kept[i].region, kept[i].enter, kept[i].call, kept[i].tick);
			continue;
		}
		if (!kept[i].call)
			record(t, kept[i].region, kept[i].enter, kept[i].tick);
		else if (kept[i].enter)
			enter_region(t, kept[i].region, kept[i].tick);
		else
			exit_region(t, kept[i].region, kept[i].tick);
	}
}

FOLD_EXPORT void fold_enter(uint32_t region)
{
	rt_thread *t = rt__thread();
	if (!t)
		return;
	if (!rt__enter_runtime(t)) {
		if (atomic_load_explicit(&rt__proc.stop, memory_order_relaxed))
			keep(t, region, 1, 1, rt__tick());
		return;
	}
	if (FOLD_UNLIKELY(t->ndeferred))
		record_kept(t);
	enter_region(t, region, 0);
	rt__leave_runtime(t);
}

FOLD_EXPORT void fold_exit(uint32_t region)
{
	rt_thread *t = rt__thread();
	if (!t)
		return;
	if (!rt__enter_runtime(t)) {
		if (atomic_load_explicit(&rt__proc.stop, memory_order_relaxed))
			keep(t, region, 0, 1, rt__tick());
		return;
	}
	if (FOLD_UNLIKELY(t->ndeferred))
		record_kept(t);
	exit_region(t, region, 0);
	rt__leave_runtime(t);
}

FOLD_EXPORT uint32_t fold_counter(const char *name)
{
	rt__thread();
	return rt__app_counter_define(name ? name : "");
}

FOLD_EXPORT void fold_count(uint32_t counter, uint64_t n)
{
	rt_thread *t = rt__tls_thread;
	if (FOLD_UNLIKELY(!t)) {
		t = rt__thread();
		if (!t)
			return;
	}
	uint32_t idx = counter - FOLD_APP_COUNTER_BASE;
	if (idx < FOLD_MAX_APP_COUNTERS)
		t->app[idx] += n;
}

/* Pause and resume leave a marker on the calling thread, so the analysis
 * knows the gap is deliberate. */
FOLD_EXPORT void fold_pause(void)
{
	rt_thread *t = rt__thread();
	if (!t || !rt__enter_runtime(t))
		return;
	rt__marker(t, "fold_pause");
	atomic_store(&rt__proc.paused, 1);
	rt__leave_runtime(t);
}

FOLD_EXPORT void fold_resume(void)
{
	rt_thread *t = rt__thread();
	if (!t || !atomic_exchange(&rt__proc.paused, 0))
		return;
	if (!rt__enter_runtime(t))
		return;
	rt__marker(t, "fold_resume");
	rt__leave_runtime(t);
}
