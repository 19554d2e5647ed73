/* rt_events.c: recording region events and markers on a thread stream.
 *
 * Owns the "encode, and on a full buffer swap and retry once" rule for
 * everything recorded outside the sample handler. Callers hold the thread's
 * runtime guard (rt__enter_runtime), so a sample cannot interleave.
 */
#include <errno.h>

#include "fold_rt.h"

void rt__region_event(rt_thread *t, enum rt_event ev, uint32_t region, int with_counters)
{
	if (!t->cur) {
		rt__thread_fresh_buffer(t);
		if (!t->cur)
			return;
	}
	if (ev == FOLD_EV_ENTER) {
		if (t->open_regions++ == 0)
			rt__sampling_region(t, 1);
	} else if (t->open_regions && --t->open_regions == 0) {
		rt__sampling_region(t, 0);
	}
	rt__counter_set_refresh(t);
	uint64_t ctr[TRACE_MAX_COUNTERS];
	const uint64_t *cp = NULL;
	if (with_counters && t->enc.nctr) {
		rt__read_counters(t, ctr);
		cp = ctr;
	}
	uint64_t tick = rt__tick();
	int rc = ev == FOLD_EV_ENTER ? trace_enc_enter(&t->enc, tick, region, cp)
	                             : trace_enc_exit(&t->enc, tick, region, cp);
	if (rc == -ENOSPC) {
		rt__pool_reserve(4);
		if (rt__thread_swap_buffer(t) == 0)
			(void)(ev == FOLD_EV_ENTER ? trace_enc_enter(&t->enc, tick, region, cp)
			                           : trace_enc_exit(&t->enc, tick, region, cp));
	}
	rt__flush_due(t, tick);
}

void rt__marker(rt_thread *t, const char *text)
{
	if (!t->cur) {
		rt__thread_fresh_buffer(t);
		if (!t->cur)
			return;
	}
	uint64_t tick = rt__tick();
	if (trace_enc_marker(&t->enc, tick, text) == -ENOSPC && rt__thread_swap_buffer(t) == 0)
		trace_enc_marker(&t->enc, tick, text);
}
