/* ingest.h: a trace file loaded into memory for analysis.
 *
 * Owns the in-memory model of one process trace: metadata (INFO, STAT,
 * CLOCK, counter and region definitions, module map, throttling), and per
 * thread the region events and samples in stream order, with counter values
 * and call stacks deduplicated per process.
 *
 * Invariants:
 *  - Times stay in ticks of the trace's clock; ingest__tick_ns() converts with
 *    the first and last CLOCK records (or clock.tick_hz), as the trace
 *    conventions prescribe.
 *  - Within a thread, events and samples are in stream order (time order);
 *    every event records how many samples of its thread came before it, so an
 *    instance's samples are one contiguous index range.
 *  - Counter values are cumulative per thread; each sample or event refers to
 *    an interned counter set (cset 0 = no counters) and to its values in the
 *    thread's value array.
 *  - Stack ids are per process, 0 = no stack; frames are innermost first.
 *  - No id read from the file indexes an array: stream ids map to threads,
 *    region ids to a dense numbering (t->reg, defined or only used), counter
 *    and module ids, info and stat keys, counter sets through hash maps,
 *    so memory and lookups grow with the records present, never with the
 *    values of ids (a stream 0xFFFFFFFF or a region 4e9 cost one entry).
 */
#ifndef FOLD_INGEST_H
#define FOLD_INGEST_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h" /* fold_facts */
#include "trace_reader.h"
#include "util.h"

enum { INGEST__EV_ENTER = 0, INGEST__EV_EXIT = 1 };

typedef struct ingest__event {
	uint64_t tick;
	uint32_t voff;     /* counter values in thread->vals (when cset != 0) */
	uint32_t region;   /* the region: an index into trace->reg (dense, not the trace's id) */
	uint32_t nsamples; /* samples of the thread before this event */
	uint16_t cset;
	uint8_t kind; /* INGEST__EV_ENTER / INGEST__EV_EXIT */
} ingest__event;

/* 24 bytes: ingest moves these through memory once (the arrays are populated in bulk, see ingest.c). */
typedef struct ingest__sample {
	uint64_t tick;
	uint32_t voff;
	uint32_t stack;  /* 0 = none */
	uint32_t cpu_ns; /* CPU time since the previous sample (saturated) */
	uint16_t cset;
} ingest__sample;

/* A pause record (format 1.3): the runtime stopped the thread for ns right
 * after its record at tick, writing trace data; nev events and nsmp samples
 * of the thread came before it. */
typedef struct ingest__pause {
	uint64_t tick;
	uint32_t nev, nsmp;
	double ns;
} ingest__pause;

/* A hook_cost record (format 1.5): the runtime's measurement of the
 * compiler hook of the thread's event ev, after its timestamp and before
 * it, in clock ticks (NAN: not measured). */
typedef struct ingest__hook_cost {
	uint32_t ev;
	double after_ticks, before_ticks;
} ingest__hook_cost;

typedef struct ingest__thread {
	uint32_t stream;
	uint64_t os_tid;
	char *name;
	uint64_t start_tick, end_tick;
	int ended; /* THREAD_END seen */
	ingest__event *ev;
	size_t nev, cap_ev;
	ingest__sample *smp;
	size_t nsmp, cap_smp;
	uint64_t *vals;
	size_t nvals, cap_vals;
	uint64_t last_tick;
	double *cpu_cum; /* cpu_cum[k] = CPU ns of samples 0..k (NULL when no sample had cpu_ns) */
	/* sample_cost records (format 1.1): per sample, the handler's time from
	 * its entry to its exit and the timestamp's lag after the entry, ns
	 * (NULL when the thread has none; UINT32_MAX: that sample has none),
	 * and (format 1.2, wall-clock timers) the delivery from the timer's
	 * deadline to the handler's entry (UINT32_MAX: not measured) */
	uint32_t *cost_ns, *lag_ns, *delivery_ns;
	size_t cap_cost, ncost, ndelivery;
	ingest__pause *pause; /* in stream order */
	size_t npause, cap_pause;
	ingest__hook_cost *hook_cost; /* in stream order, at most one per event */
	size_t nhook_cost, cap_hook_cost;
	/* set by perturb.c: per sample, how long (ns, saturated) the program
	 * waited off the CPU between its timer's deadline and its stop (a
	 * delivery past the cap), nothing of it running meanwhile; NULL when no
	 * sample waited */
	uint32_t *waited_ns;
} ingest__thread;

typedef struct ingest__cset {
	unsigned n;
	uint32_t ids[32];
} ingest__cset;

/* A region of the trace: defined by a region_def record, or only used by
 * events (defined 0: no name, kind, address). Events and throttle records
 * refer to it by its index in trace->reg. */
typedef struct ingest__region_def {
	uint32_t id; /* the trace's id */
	unsigned kind;
	uint64_t address;
	char *name;
	int defined;
} ingest__region_def;

typedef struct ingest__counter_def {
	uint32_t id;
	unsigned kind;
	char *name;
} ingest__counter_def;

typedef struct ingest__module {
	uint32_t id;
	uint64_t load_bias;
	uint8_t *build_id;
	size_t build_id_len;
	char *path;
	trace_segment *segs;
	unsigned nseg;
	int unloaded;
} ingest__module;

typedef struct ingest__throttle {
	uint32_t region; /* index into trace->reg */
	uint64_t tick, calls, mean_ns;
} ingest__throttle;

typedef struct ingest__strpair {
	char *key, *value;
} ingest__strpair;

typedef struct ingest__statval {
	char *key;
	uint64_t value;
} ingest__statval;

typedef struct ingest__trace {
	char *path;
	ingest__strpair *info;
	size_t ninfo;
	fold_facts facts; /* the run facts of info (run_facts.h), its strings in info */
	ingest__statval *stats;
	size_t nstats;
	char **salvage;
	size_t nsalvage;
	trace_read_stats rstats;
	/* CLOCK records: first and last */
	int nclock;
	uint64_t clk_tick0, clk_mono0, clk_tick1, clk_mono1;
	uint64_t clk_real0, clk_real1; /* wall-clock time (ns since the epoch) of the first and last CLOCK */
	double ns_per_tick;
	uint64_t origin_tick; /* time 0 of the process (first CLOCK, else earliest event) */
	ingest__counter_def *ctr;
	size_t nctr;
	ingest__strpair *missing; /* name, reason */
	size_t nmissing;
	ingest__region_def *reg;
	size_t nreg;
	ingest__module *mod;
	size_t nmod;
	ingest__throttle *thr;
	size_t nthr;
	ingest__cset *csets; /* csets[0] is the empty set */
	size_t ncsets;
	ingest__thread *threads; /* in order of first appearance */
	size_t nthreads;
	/* stacks: per-process dedup */
	uint64_t *frames;
	size_t nframes, cap_frames;
	uint32_t *stk_off, *stk_depth; /* indexed by stack id (1-based; [0] unused) */
	size_t nstacks, cap_stacks;
	util_hmap stk_by_frames; /* hash of the frames -> stack id */
	uint64_t min_tick, max_tick;
	/* lookups by what the file says (keys and ids), see the invariants */
	util_hmap info_by_key, stat_by_key;        /* -> index of the key's last record */
	util_hmap reg_by_id, ctr_by_id, mod_by_id; /* trace id -> index (modules: the last load) */
	util_hmap csets_by_ids, thread_by_stream;
} ingest__trace;

/* Loads one trace. Returns 0 or a negative errno with a one-line message. */
int ingest__trace_load(const char *path, ingest__trace **out, trace_diag_fn diag, void *diag_arg, char *err,
                       size_t errlen);
/* Loads several traces using up to nthreads worker threads (files in parallel).
 * On failure, frees what was loaded and reports the first failing file. */
int ingest__trace_load_many(const char *const *paths, size_t n, unsigned nthreads, ingest__trace ***out,
                            trace_diag_fn diag, void *diag_arg, char *err, size_t errlen);
void ingest__trace_free(ingest__trace *t);

const char *ingest__trace_info(const ingest__trace *t, const char *key); /* last value, or NULL */
int ingest__trace_stat(const ingest__trace *t, const char *key, uint64_t *value);
/* How the reports number thread i of t: 0 for the process' main thread
 * (its tid is the pid in the trace info), the others from 1 in order of
 * first appearance. */
unsigned ingest__thread_number(const ingest__trace *t, size_t i);
/* The region of trace id `id` (defined or used), or NULL. */
const ingest__region_def *ingest__trace_region(const ingest__trace *t, uint32_t id);
const ingest__counter_def *ingest__trace_counter(const ingest__trace *t, uint32_t id);
/* Is a counter of this name the thread's CPU clock (perf::TASK-CLOCK,
 * CPU-CLOCK, any case): ns of CPU per second? */
int ingest__is_cpu_clock(const char *name);
/* The index in counter set cset of the thread's CPU clock as a counter
 * (perf::TASK-CLOCK or CPU-CLOCK), or -1. */
int ingest__cpu_clock_slot(const ingest__trace *t, uint16_t cset);
/* That clock's value (ns) read with event ev, or -ENOENT when ev read none. */
int ingest__cpu_clock_at(const ingest__trace *t, const ingest__thread *th, const ingest__event *ev,
                         double *ns);

/* Nanoseconds since the process origin. */
static inline double ingest__tick_ns(const ingest__trace *t, uint64_t tick)
{
	return ((double)tick - (double)t->origin_tick) * t->ns_per_tick;
}

/* Index of counter id in a counter set, or -1. */
static inline int ingest__cset_find(const ingest__cset *c, uint32_t id)
{
	for (unsigned i = 0; i < c->n; i++)
		if (c->ids[i] == id)
			return (int)i;
	return -1;
}

#endif
