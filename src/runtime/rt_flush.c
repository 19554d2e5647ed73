/* rt_flush.c: the periodic flush that bounds what a SIGKILL can lose.
 *
 * Owns when a partly filled chunk is sealed before it is full. fold has no
 * thread of its own (rt_pool.c), so the program's threads do it on their
 * way through the runtime: after a thread records a sample or a region
 * event, rt__flush_due seals its buffer if the oldest record in it is
 * older than FOLD_FLUSH_INTERVAL (default 1 s), and the process stream
 * (definitions, module map, clock) likewise; sealing writes the chunk at
 * once. The process stream is also sealed at start and after every module
 * map change (rt_lifecycle.c, rt_modules.c), so its metadata reaches the file
 * without waiting for a thread.
 *
 * Bound: a thread that keeps running (sampled or entering regions) has at
 * most one interval of unwritten data. A thread that records nothing (say,
 * blocked without being sampled) keeps what it recorded before blocking in
 * its buffer until it records again or the process ends normally.
 *
 * Invariants: everything here is async-signal-safe (it runs in the sample
 * handler): two comparisons per call, and on a due flush the lock-free
 * buffer swap, a write(2) and, for the process stream, a mutex trylock.
 */
#include "fold_rt.h"

static uint64_t interval_ticks = UINT64_MAX;
static _Atomic uint64_t proc_dirty_tick; /* 0: nothing unsealed in the process stream */

void rt__flush_init(void)
{
	uint64_t ns = rt__proc.cfg.flush_interval_ns;
	if (!ns)
		ns = FOLD_DEFAULT_FLUSH_INTERVAL_NS;
	if (rt__proc.clock.tsc && rt__proc.clock.tick_hz)
		interval_ticks = (uint64_t)((double)ns * (double)rt__proc.clock.tick_hz / 1e9);
	else
		interval_ticks = ns;
	atomic_store(&proc_dirty_tick, 0);
}

void rt__proc_dirty(void)
{
	uint64_t zero = 0;
	if (!atomic_load_explicit(&proc_dirty_tick, memory_order_relaxed))
		atomic_compare_exchange_strong(&proc_dirty_tick, &zero, rt__tick() | 1);
}

void rt__proc_clean(void)
{
	atomic_store(&proc_dirty_tick, 0);
}

uint64_t rt__flush_due(rt_thread *t, uint64_t tick)
{
	uint64_t t0 = 0;
	if (FOLD_UNLIKELY(t->sandboxed))
		return 0;
	if (!t->flush_tick) {
		t->flush_tick = tick | 1;
	} else if (tick - t->flush_tick >= interval_ticks && t->cur) {
		t0 = rt__tick();
		rt__thread_seal(t);
		rt__thread_fresh_buffer(t);
	}
	uint64_t d = atomic_load_explicit(&proc_dirty_tick, memory_order_relaxed);
	if (d && tick - d >= interval_ticks && tick > d) {
		if (!t0)
			t0 = rt__tick();
		rt__proc_seal_try();
	}
	if (!t0)
		return 0;
	uint64_t t1 = rt__tick();
	return t1 > t0 ? t1 - t0 : 0;
}
