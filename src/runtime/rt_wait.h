/* rt_wait.h: what the wrappers of blocking calls share (rt_wait.c,
 * rt_socket.c): who interrupted a call, and time left to a deadline.
 * Internal to the runtime; async-signal-safe. */
#ifndef FOLD_RT_WAIT_H
#define FOLD_RT_WAIT_H

#include <stdint.h>
#include <time.h>

#include "fold_rt.h"

typedef struct sig_snap {
	unsigned ours, app;
} sig_snap;

static inline sig_snap snap(void)
{
	sig_snap s = {rt__tls_sig_ours, rt__tls_sig_app};
	atomic_signal_fence(memory_order_seq_cst);
	return s;
}

/* The call failed with EINTR: was it our sampling signal alone? */
static inline int only_ours(sig_snap s)
{
	atomic_signal_fence(memory_order_seq_cst);
	return rt__tls_sig_app == s.app && rt__tls_sig_ours != s.ours;
}

static inline uint64_t mono_ns(void)
{
	return rt__ns(CLOCK_MONOTONIC);
}

static inline uint64_t ts_ns(const struct timespec *ts)
{
	if (ts->tv_sec < 0 || ts->tv_nsec < 0)
		return 0;
	return (uint64_t)ts->tv_sec * 1000000000ull + (uint64_t)ts->tv_nsec;
}

static inline struct timespec ns_ts(uint64_t ns)
{
	return (struct timespec){(time_t)(ns / 1000000000ull), (long)(ns % 1000000000ull)};
}

/* Time left to a deadline, 0 once it passed. */
static inline uint64_t left_ns(uint64_t deadline)
{
	uint64_t now = mono_ns();
	return now >= deadline ? 0 : deadline - now;
}

/* Milliseconds left, rounded up: never shorter than the program asked. */
static inline int left_ms(uint64_t deadline)
{
	uint64_t ns = left_ns(deadline);
	uint64_t ms = (ns + 999999) / 1000000;
	return ms > 0x7fffffff ? 0x7fffffff : (int)ms;
}

/* A timespec timeout's deadline, or 0 for "none" (NULL) and for invalid
 * values, which go to the kernel unchanged so it reports them. */
static inline uint64_t deadline_of(const struct timespec *ts)
{
	if (!ts || ts->tv_sec < 0 || ts->tv_nsec < 0 || ts->tv_nsec >= 1000000000L)
		return 0;
	return mono_ns() + ts_ns(ts);
}

#endif
