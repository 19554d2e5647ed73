/* rt_regions.h: the interface between libfold.so's region front ends.
 *
 * The compiler hooks (rt_cyg.c), their filter (rt_filter.c), the PMPI
 * wrappers (rt_mpi.c) and the OpenMP wrappers (rt_omp.c) build on fold_rt.h
 * and share only what is declared here.
 *
 * Invariants:
 *  - Nothing here is called from a signal handler.
 *  - rt__filter_decide() is called at most once per function address
 *    (rt_cyg.c caches the answer), so it may be slow: it reads ELF symbol
 *    tables and, for file rules, DWARF.
 */
#ifndef FOLD_RT_REGIONS_H
#define FOLD_RT_REGIONS_H

#include <stddef.h>
#include <stdint.h>

#include "fold_rt.h"

/* ---------------------------------------------------------------- filter (rt_filter.c) */

enum rt_filter_verdict {
	FOLD_FILTER_RECORD = 0,   /* record this function */
	FOLD_FILTER_EXCLUDED = 1, /* a FOLD_FILTER rule excludes it */
	FOLD_FILTER_TOO_SMALL = 2 /* smaller than FOLD_MIN_FUNC_BYTES */
};

/* Reads FOLD_FILTER and FOLD_MIN_FUNC_BYTES (once; later calls return at
 * once). Bad input gets one "fold:" line and is ignored. */
void rt__filter_init(void);
/* Reads the symbol tables of every loaded module now when decisions will
 * need them, so their one-time cost is not charged to a measured call. */
void rt__filter_preload(void);
/* 1 if any rule or size limit is active, so decisions need symbol lookups. */
int rt__filter_active(void);
/* Decides whether the function at runtime address fn is recorded. */
enum rt_filter_verdict rt__filter_decide(uint64_t fn);
/* Name and size of the function containing runtime address addr from the
 * ELF symbol tables of its module; returns 0 or -ENOENT. */
int rt__symbol_lookup(uint64_t addr, char *name, size_t name_len, uint64_t *start, uint64_t *size);
/* Parses filter rules from text (for tests and FOLD_FILTER); returns the
 * number of rules or -EINVAL with msg filled. Replaces the active rules. */
int rt__filter_parse(const char *text, const char *origin, char *msg, size_t msg_len);

/* ---------------------------------------------------------------- hooks (rt_cyg.c) */

/* Writes a THROTTLE record to the process stream. */
void rt__proc_throttle(uint32_t region, uint64_t tick, uint64_t calls, uint64_t mean_ns);

/* ---------------------------------------------------------------- shared helpers */

/* Records, on t and at one instant, the exit of region `out` (if non-zero)
 * then the enter of region `in` (if non-zero), with one counter read. Used
 * where one region hands over to the next (a burst to an MPI call).
 * Takes the runtime guard itself. */
void rt__region_handover(rt_thread *t, uint32_t out, uint32_t in);

/* 1 unless the variable is set to 0/off/no/false. */
int rt__env_flag(const char *name, int dflt);

#endif
