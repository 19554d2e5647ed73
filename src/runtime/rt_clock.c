/* rt_clock.c: the runtime's timestamp source.
 *
 * Owns the choice between rdtsc ticks (clock.source "tsc", only when the CPU
 * says the TSC is invariant) and CLOCK_MONOTONIC nanoseconds, and the start-up
 * estimate of the tick rate. The exact conversion is done offline from the
 * CLOCK records written at start and at the end; the estimate only serves a
 * trace with a single CLOCK record (a crash).
 */
#include "fold_rt.h"

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

int rt__clock_tsc;

static int tsc_is_invariant(void)
{
#if defined(__x86_64__) || defined(__i386__)
	unsigned a, b, c, d;
	if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u)
		return 0;
	__cpuid(0x80000007u, a, b, c, d);
	return (d >> 8) & 1; /* invariant TSC: constant rate, runs in C-states */
#else
	return 0;
#endif
}

void rt__clock_now(uint64_t *tick, uint64_t *mono_ns, uint64_t *real_ns)
{
	*mono_ns = rt__ns(CLOCK_MONOTONIC);
	*tick = rt__tick();
	*real_ns = rt__ns(CLOCK_REALTIME);
}

void rt__clock_init(rt_clock *c, int want_tsc)
{
	rt__clock_tsc = want_tsc && tsc_is_invariant();
	c->tsc = rt__clock_tsc;
	rt__clock_now(&c->tick0, &c->mono0, &c->real0);
	c->tick_hz = c->tsc ? 0 : 1000000000ull; /* TSC: rt__clock_calibrate */
}

void rt__clock_calibrate(rt_clock *c)
{
	if (!c->tsc)
		return;
	/* The TSC against CLOCK_MONOTONIC (itself read from the TSC by the
	 * vDSO) since rt__clock_init, at least 25 us: the rate to ~0.5%, enough
	 * for the estimate, which only a trace cut short before its end-of-run
	 * CLOCK record uses (that record, also written by the crash path, makes
	 * it exact). The start-up work in between is the time measured: only
	 * what is missing of the 25 us is spun. */
	uint64_t t1, m1;
	do {
		m1 = rt__ns(CLOCK_MONOTONIC);
		t1 = rt__tick();
	} while (m1 - c->mono0 < 25000);
	c->tick_hz = (uint64_t)((double)(t1 - c->tick0) * 1e9 / (double)(m1 - c->mono0));
}
