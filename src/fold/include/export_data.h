/* export_data.h: the exporters' contract, published by the analysis library.
 *
 * fold_analysis (analysis.h) keeps what the report needs; exporters (pprof,
 * Chrome trace events, folded stacks, future formats) need every sample with
 * its symbolised call stack, thread and process, and every region
 * enter/exit, on one timeline. A fold_export holds the loaded, symbolised
 * traces and hands them out through these functions, so an exporter only
 * formats and never sees the trace model (ingest.h) or the symboliser
 * (symbols.h).
 *
 * Time: every process is placed on one timeline, in nanoseconds since the
 * earliest process start (start.realtime_ns aligns processes of an MPI run;
 * without it each process starts at 0). The filter's from/to are seconds on
 * it. Processes are indexed 0..n-1 in the order of the paths; threads per
 * process in order of first appearance; stack ids are per process (0: none).
 *
 * Not thread-safe: one exporter at a time.
 */
#ifndef FOLD_EXPORT_DATA_H
#define FOLD_EXPORT_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h" /* fold_facts */
#include "trace_reader.h"

typedef struct fold_export fold_export;

typedef struct fold_export_filter {
	const char *region;  /* only samples inside instances of this region (NULL: all) */
	double from_s, to_s; /* window on the timeline; to_s < 0: to the end */
	int allow_mixed;     /* accept traces of different programs (else -EXDEV) */
} fold_export_filter;

/* Loads and symbolises the traces. Returns 0 or a negative errno with a
 * one-line message in err naming the file (-ESRCH: no region of the
 * filter's name, err lists the nearest; -EXDEV: traces of different programs
 * without allow_mixed). diag (NULL: stderr) gets the reader's and symboliser's
 * notes. */
int fold_export_open(fold_export **out, const char *const *paths, size_t n, const fold_export_filter *filter,
                     trace_diag_fn diag, void *diag_arg, char *err, size_t errlen);
void fold_export_close(fold_export *x);

/* --- processes --- */
size_t fold_export_nprocs(const fold_export *x);
/* The run facts of process proc (analysis.h: sampling, pid, rank, host,
 * exe, clock), parsed from its INFO by the analysis: an exporter reads
 * these, never INFO text. Valid until the fold_export is closed. */
const fold_facts *fold_export_facts(const fold_export *x, size_t proc);
/* The run's sampling, as the analysis reports it (sample_config): the first
 * process' whose mode is known, or NULL. */
const fold_sampling *fold_export_run_sampling(const fold_export *x);
/* The process' origin and its last recorded tick on the timeline, in ns. */
double fold_export_origin_ns(const fold_export *x, size_t proc);
double fold_export_end_ns(const fold_export *x, size_t proc);
/* Whether t_ns lies in the filter's window. */
int fold_export_in_window(const fold_export *x, double t_ns);

/* --- regions (each process numbers its own, densely from 0) --- */
const char *fold_export_region_name(const fold_export *x, size_t proc, uint32_t region);
/* Whether region is the filter's region (0 without a region filter). */
int fold_export_region_selected(const fold_export *x, size_t proc, uint32_t region);

/* --- modules (the process' loaded objects) --- */
typedef struct fold_export_module {
	uint32_t id;
	const char *path;
	uint64_t lo, hi; /* address range of its segments (lo = hi = load bias without segments) */
	const uint8_t *build_id;
	size_t build_id_len;
} fold_export_module;
size_t fold_export_nmodules(const fold_export *x, size_t proc);
void fold_export_module_get(const fold_export *x, size_t proc, size_t m, fold_export_module *out);
/* The index of the module whose segments contain addr, or -1. */
long fold_export_module_of(const fold_export *x, size_t proc, uint64_t addr);
/* Whether the module's object file was opened, and had DWARF (asks the
 * symboliser, which reads the module if it has not yet). */
void fold_export_module_symbols(fold_export *x, size_t proc, size_t m, int *opened, int *has_dwarf);

/* --- threads --- */
typedef struct fold_export_thread {
	unsigned stream;
	uint64_t os_tid;  /* 0: unknown */
	const char *name; /* NULL or "" when unnamed */
	double end_ns;    /* its end (or last record) on the timeline */
	size_t nitems;    /* its samples and region events, unfiltered */
	unsigned number;  /* as the reports number it: 0 the main thread, then by first appearance */
} fold_export_thread;
size_t fold_export_nthreads(const fold_export *x, size_t proc);
void fold_export_thread_get(const fold_export *x, size_t proc, size_t t, fold_export_thread *out);

/* --- samples and region events --- */
typedef struct fold_export_sample {
	size_t proc;
	unsigned stream;
	uint32_t stack;  /* per process, 0 = none */
	uint32_t cpu_ns; /* CPU time since the thread's previous sample */
	double t_ns;
} fold_export_sample;
typedef int (*fold_export_sample_fn)(void *arg, const fold_export_sample *s);
/* Calls fn for every sample passing the filter (region and window), in
 * file and stream order; stops at and returns fn's first nonzero value. */
int fold_export_each_sample(fold_export *x, fold_export_sample_fn fn, void *arg);

enum fold_export_item_kind { FOLD_EXPORT_ENTER, FOLD_EXPORT_EXIT, FOLD_EXPORT_SAMPLE };
typedef struct fold_export_item {
	enum fold_export_item_kind kind;
	double t_ns;
	uint32_t region;           /* ENTER/EXIT: the region (an index of the process, ingest) */
	fold_export_sample sample; /* SAMPLE */
} fold_export_item;
typedef int (*fold_export_item_fn)(void *arg, const fold_export_item *it);
/* Calls fn for every region enter/exit and sample of thread t of process
 * proc in stream order, unfiltered; stops at fn's first nonzero value. */
int fold_export_thread_each(fold_export *x, size_t proc, size_t t, fold_export_item_fn fn, void *arg);

/* --- stacks and symbols --- */
typedef struct fold_export_frame {
	const char *function;
	const char *file; /* NULL when unknown */
	unsigned line;    /* 0 when unknown */
} fold_export_frame;
/* The return addresses of stack (innermost first; the first is the
 * interrupted address). Returns the depth, 0 for no stack. */
unsigned fold_export_stack(const fold_export *x, size_t proc, uint32_t stack, const uint64_t **addrs);
/* The frames at addr, innermost inlined first, the containing function
 * last (a printable "[unknown]" frame when no module contains addr);
 * is_return: addr is a return address (looked up at addr - 1). Returns 0,
 * or a negative errno (out of memory) with *n = 0. The frames stay valid
 * until the fold_export is closed. */
int fold_export_frames(fold_export *x, size_t proc, uint64_t addr, int is_return,
                       const fold_export_frame **frames, unsigned *n);

#endif
