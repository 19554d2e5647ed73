/* ingest.h: a trace file loaded into memory for analysis.
 *
 * Owns the in-memory model of one process trace: metadata (INFO, STAT,
 * CLOCK, counter and region definitions, module map, throttling), and per
 * thread the region events and samples in stream order, with counter values
 * and call stacks deduplicated per process.
 *
 * Invariants:
 *  - Times stay in ticks of the trace's clock; fold__tick_ns() converts with
 *    the first and last CLOCK records (or clock.tick_hz), as the trace
 *    conventions prescribe.
 *  - Within a thread, events and samples are in stream order (time order);
 *    every event records how many samples of its thread came before it, so an
 *    instance's samples are one contiguous index range.
 *  - Counter values are cumulative per thread; each sample or event refers to
 *    an interned counter set (cset 0 = no counters) and to its values in the
 *    thread's value array.
 *  - Stack ids are per process, 0 = no stack; frames are innermost first.
 */
#ifndef FOLD_INGEST_H
#define FOLD_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h"

enum { FOLD__EV_ENTER = 0, FOLD__EV_EXIT = 1 };

typedef struct fold__event {
	uint64_t tick;
	uint32_t voff;     /* counter values in thread->vals (when cset != 0) */
	uint32_t region;   /* trace region id */
	uint32_t nsamples; /* samples of the thread before this event */
	uint16_t cset;
	uint8_t kind; /* FOLD__EV_ENTER / FOLD__EV_EXIT */
} fold__event;

/* 24 bytes: ingest moves these through memory once (the arrays are populated in bulk, see ingest.c). */
typedef struct fold__sample {
	uint64_t tick;
	uint32_t voff;
	uint32_t stack;  /* 0 = none */
	uint32_t cpu_ns; /* CPU time since the previous sample (saturated) */
	uint16_t cset;
} fold__sample;

typedef struct fold__thread {
	uint32_t stream;
	uint64_t os_tid;
	char *name;
	uint64_t start_tick, end_tick;
	int ended; /* THREAD_END seen */
	fold__event *ev;
	size_t nev, cap_ev;
	fold__sample *smp;
	size_t nsmp, cap_smp;
	uint64_t *vals;
	size_t nvals, cap_vals;
	uint64_t last_tick;
	double *cpu_cum; /* cpu_cum[k] = CPU ns of samples 0..k (NULL when no sample had cpu_ns) */
} fold__thread;

typedef struct fold__cset {
	unsigned n;
	uint32_t ids[32];
} fold__cset;

typedef struct fold__region_def {
	uint32_t id;
	unsigned kind;
	uint64_t address;
	char *name;
} fold__region_def;

typedef struct fold__counter_def {
	uint32_t id;
	unsigned kind;
	char *name;
} fold__counter_def;

typedef struct fold__module {
	uint32_t id;
	uint64_t load_bias;
	uint8_t *build_id;
	size_t build_id_len;
	char *path;
	trace_segment *segs;
	unsigned nseg;
	int unloaded;
} fold__module;

typedef struct fold__throttle {
	uint32_t region;
	uint64_t tick, calls, mean_ns;
} fold__throttle;

typedef struct fold__strpair {
	char *key, *value;
} fold__strpair;

typedef struct fold__statval {
	char *key;
	uint64_t value;
} fold__statval;

typedef struct fold__trace {
	char *path;
	fold__strpair *info;
	size_t ninfo;
	fold__statval *stats;
	size_t nstats;
	char **salvage;
	size_t nsalvage;
	trace_read_stats rstats;
	/* CLOCK records: first and last */
	int nclock;
	uint64_t clk_tick0, clk_mono0, clk_tick1, clk_mono1;
	double ns_per_tick;
	uint64_t origin_tick; /* time 0 of the process (first CLOCK, else earliest event) */
	fold__counter_def *ctr;
	size_t nctr;
	fold__strpair *missing; /* name, reason */
	size_t nmissing;
	fold__region_def *reg;
	size_t nreg;
	fold__module *mod;
	size_t nmod;
	fold__throttle *thr;
	size_t nthr;
	fold__cset *csets; /* csets[0] is the empty set */
	size_t ncsets;
	fold__thread *threads; /* in order of first appearance */
	size_t nthreads;
	/* stacks: per-process dedup */
	uint64_t *frames;
	size_t nframes, cap_frames;
	uint32_t *stk_off, *stk_depth; /* indexed by stack id (1-based; [0] unused) */
	size_t nstacks, cap_stacks;
	uint32_t *stk_hash; /* open addressing, value = stack id */
	size_t hash_cap;
	uint64_t min_tick, max_tick;
} fold__trace;

/* Loads one trace. Returns 0 or a negative errno with a one-line message. */
int fold__trace_load(const char *path, fold__trace **out, trace_diag_fn diag, void *diag_arg, char *err,
                     size_t errlen);
/* Loads several traces using up to nthreads worker threads (files in parallel).
 * On failure, frees what was loaded and reports the first failing file. */
int fold__trace_load_many(const char *const *paths, size_t n, unsigned nthreads, fold__trace ***out,
                          trace_diag_fn diag, void *diag_arg, char *err, size_t errlen);
void fold__trace_free(fold__trace *t);

const char *fold__trace_info(const fold__trace *t, const char *key); /* last value, or NULL */
int fold__trace_stat(const fold__trace *t, const char *key, uint64_t *value);
const fold__region_def *fold__trace_region(const fold__trace *t, uint32_t id);
const fold__counter_def *fold__trace_counter(const fold__trace *t, uint32_t id);

/* Nanoseconds since the process origin. */
static inline double fold__tick_ns(const fold__trace *t, uint64_t tick)
{
	return ((double)tick - (double)t->origin_tick) * t->ns_per_tick;
}

/* Index of counter id in a counter set, or -1. */
static inline int fold__cset_find(const fold__cset *c, uint32_t id)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->ids[i] == id)
			return (int)i;
	return -1;
}

#endif
