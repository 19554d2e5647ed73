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

FOLD_EXPORT void fold_enter(uint32_t region)
{
	rt_thread *t = rt__thread();
	if (!t || !rt__enter_runtime(t))
		return;
	if (t->region_depth < FOLD_REGION_STACK)
		t->region_stack[t->region_depth] = region;
	t->region_depth++;
	rt__region_event(t, FOLD_EV_ENTER, region, 1);
	rt__leave_runtime(t);
}

FOLD_EXPORT void fold_exit(uint32_t region)
{
	rt_thread *t = rt__thread();
	if (!t || !rt__enter_runtime(t))
		return;
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
	rt__region_event(t, FOLD_EV_EXIT, region, 1);
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
