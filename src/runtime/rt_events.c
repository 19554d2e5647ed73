/* rt_events.c: recording region events and markers on a thread stream.
 *
 * Owns the "encode, and on a full buffer swap and retry once" rule for
 * everything recorded outside the sample handler. Callers hold the thread's
 * runtime guard (rt__enter_runtime), so a sample cannot interleave.
 */
#include <errno.h>

#include "fold_rt.h"

/* The record itself; -ENOSPC when no buffer takes it. */
static int region_record(rt_thread *t, enum rt_event ev, uint32_t region, const uint64_t *cp, uint64_t tick)
{
	int rc = ev == FOLD_EV_ENTER ? trace_enc_enter(&t->enc, tick, region, cp)
	                             : trace_enc_exit(&t->enc, tick, region, cp);
	uint64_t paused = 0;
	if (rc == -ENOSPC) {
		/* after the timestamp: the writing is a pause (rt__thread_note_pause) */
		uint64_t t0 = rt__tick();
		rt__pool_reserve(4);
		rc = rt__thread_swap_buffer(t);
		if (rc == 0)
			rc = ev == FOLD_EV_ENTER ? trace_enc_enter(&t->enc, tick, region, cp)
			                         : trace_enc_exit(&t->enc, tick, region, cp);
		paused = rt__tick() - t0;
	}
	paused += rt__flush_due(t, tick);
	if (rc == 0)
		rt__thread_note_pause(t, paused);
	return rc ? -ENOSPC : 0;
}

/* The thread's buffer, and its count of open regions (which switches its
 * sampling clock); *moved: whether the count changed. -ENOSPC without a
 * buffer. */
static int region_open_close(rt_thread *t, enum rt_event ev, int *moved)
{
	*moved = 0;
	if (!t->cur) {
		rt__thread_fresh_buffer(t);
		if (!t->cur)
			return -ENOSPC;
	}
	if (ev == FOLD_EV_ENTER) {
		*moved = 1;
		if (t->open_regions++ == 0)
			rt__sampling_region(t, 1);
	} else if (t->open_regions) {
		*moved = 1;
		if (--t->open_regions == 0)
			rt__sampling_region(t, 0);
	}
	return 0;
}

/* A record that did not make it: the count of open regions as before
 * (the caller keeps the event and records it later, rt_api.c). */
static int region_undo(rt_thread *t, enum rt_event ev, int moved)
{
	if (moved && ev == FOLD_EV_ENTER) {
		if (--t->open_regions == 0)
			rt__sampling_region(t, 0);
	} else if (moved) {
		if (t->open_regions++ == 0)
			rt__sampling_region(t, 1);
	}
	return -ENOSPC;
}

int rt__region_event(rt_thread *t, enum rt_event ev, uint32_t region, int with_counters)
{
	int moved;
	if (region_open_close(t, ev, &moved))
		return -ENOSPC;
	rt__counter_set_refresh(t);
	uint64_t ctr[TRACE_MAX_COUNTERS];
	const uint64_t *cp = NULL;
	if (with_counters && t->enc.nctr) {
		rt__read_counters(t, ctr);
		cp = ctr;
	}
	return region_record(t, ev, region, cp, rt__tick()) ? region_undo(t, ev, moved) : 0;
}

int rt__region_event_at(rt_thread *t, enum rt_event ev, uint32_t region, uint64_t tick)
{
	int moved;
	if (region_open_close(t, ev, &moved))
		return -ENOSPC;
	return region_record(t, ev, region, NULL, tick) ? region_undo(t, ev, moved) : 0;
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
