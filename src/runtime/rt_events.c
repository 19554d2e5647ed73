/* rt_events.c: recording region events and markers on a thread stream.
 *
 * Owns the "encode, and on a full buffer swap and retry once" rule for
 * everything recorded outside the sample handler. Callers hold the thread's
 * runtime guard (fold__enter_runtime), so a sample cannot interleave.
 */
#include <errno.h>

#include "fold_rt.h"

void fold__region_event(fold_thread *t, enum fold_event ev, uint32_t region, int with_counters)
{
	if (!t->cur) {
		fold__thread_fresh_buffer(t);
		if (!t->cur)
			return;
	}
	if (ev == FOLD_EV_ENTER) {
		if (t->open_regions++ == 0)
			fold__sampling_region(t, 1);
	} else if (t->open_regions && --t->open_regions == 0) {
		fold__sampling_region(t, 0);
	}
	fold__counter_set_refresh(t);
	uint64_t ctr[TRACE_MAX_COUNTERS];
	const uint64_t *cp = NULL;
	if (with_counters && t->enc.nctr) {
		fold__read_counters(t, ctr);
		cp = ctr;
	}
	uint64_t tick = fold__tick();
	int rc = ev == FOLD_EV_ENTER ? trace_enc_enter(&t->enc, tick, region, cp)
	                             : trace_enc_exit(&t->enc, tick, region, cp);
	if (rc == -ENOSPC) {
		fold__pool_reserve(4);
		if (fold__thread_swap_buffer(t) == 0)
			(void)(ev == FOLD_EV_ENTER ? trace_enc_enter(&t->enc, tick, region, cp)
			                           : trace_enc_exit(&t->enc, tick, region, cp));
	}
	fold__flush_due(t, tick);
}

void fold__marker(fold_thread *t, const char *text)
{
	if (!t->cur) {
		fold__thread_fresh_buffer(t);
		if (!t->cur)
			return;
	}
	uint64_t tick = fold__tick();
	if (trace_enc_marker(&t->enc, tick, text) == -ENOSPC && fold__thread_swap_buffer(t) == 0)
		trace_enc_marker(&t->enc, tick, text);
}
