/* rt_omp.c: OpenMP parallel regions and worker threads.
 *
 * Owns the OpenMP front end of libfold.so: every execution of a parallel
 * region by a thread is a region of kind TRACE_REGION_OPENMP on that thread,
 * with counter values at its boundaries when they are cheap to read (rdpmc;
 * FOLD_OPENMP_COUNTERS), so fold sees each thread's share of each parallel
 * region (and their imbalance). The first time a thread works
 * for OpenMP it gets a MARKER "openmp thread N" (N = omp_get_thread_num()).
 * FOLD_OPENMP=0 turns this off.
 *
 * Two mechanisms, one per runtime:
 *  - GCC's libgomp (GCC 12 has no OMPT): we interpose the entry points the
 *    compiler calls to start a parallel region (GOMP_parallel, the combined
 *    GOMP_parallel_loop_* and GOMP_parallel_sections, the legacy
 *    GOMP_parallel_start/end pair) and hand libgomp a trampoline that records
 *    the region around the outlined body on every thread. The region is
 *    defined by the outlined function's address with an empty name, so fold
 *    names it like "main._omp_fn.0".
 *  - LLVM's libomp (clang -fopenmp): OMPT. We export ompt_start_tool; libomp
 *    calls it at start-up and we register parallel_begin and implicit_task
 *    callbacks. The region is defined by the parallel construct's return
 *    address (codeptr_ra), named "<function>.omp@0x<offset>" from the ELF
 *    symbol of the enclosing function (two parallel regions of one function
 *    differ by offset). A worker's last implicit task may end after our final
 *    flush (libomp reports it when the worker next wakes), so fold can see it
 *    unclosed.
 *    When OMPT is active the GOMP wrappers only forward (libomp also provides
 *    the GOMP entry points), so nothing is counted twice.
 *
 * Invariants:
 *  - The trampoline's argument lives on the stack of the thread that called
 *    GOMP_parallel*, which returns only after every thread of the team has
 *    finished the body (the implicit barrier), so workers never see it dead.
 *  - The legacy start/end pair keeps what it needs in a small per-thread
 *    stack (one entry per nested parallel region).
 */
#include "rt_regions.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------- shared */

static int omp_enabled = -1;
static _Atomic int ompt_active;

static int omp_on(void)
{
	if (FOLD_UNLIKELY(omp_enabled < 0))
		omp_enabled = rt__env_flag("FOLD_OPENMP", 1);
	return omp_enabled && !atomic_load_explicit(&ompt_active, memory_order_relaxed);
}

static FOLD_TLS int omp_marked;

/* Counter values at parallel-region boundaries: a read(2) per boundary and
 * thread costs an OpenMP code with thousands of regions per second 20% and
 * more, so by default only when they are read in user space (rdpmc);
 * FOLD_OPENMP_COUNTERS=1 always, 0 never. Samples carry counters anyway. */
static int omp_counters_mode = -2;

static int omp_counters(const rt_thread *t)
{
	if (FOLD_UNLIKELY(omp_counters_mode == -2)) {
		const char *v = getenv("FOLD_OPENMP_COUNTERS");
		omp_counters_mode = v && *v ? rt__env_flag("FOLD_OPENMP_COUNTERS", 0) : -1;
	}
	return omp_counters_mode < 0 ? t->rdpmc : omp_counters_mode;
}

static void thread_marker(rt_thread *t)
{
	static int (*thread_num)(void);
	static int looked;
	if (!looked) {
		thread_num = (int (*)(void))rt__real("omp_get_thread_num");
		looked = 1;
	}
	char text[48];
	snprintf(text, sizeof text, "openmp thread %d", thread_num ? thread_num() : -1);
	rt__marker(t, text);
	omp_marked = 1;
}

static void region_event(enum rt_event ev, uint32_t region)
{
	if (!region)
		return;
	rt_thread *t = rt__tls_thread;
	if (!t)
		t = rt__thread();
	if (!t || !rt__enter_runtime(t))
		return;
	if (!omp_marked && ev == FOLD_EV_ENTER)
		thread_marker(t);
	rt__region_event(t, ev, region, omp_counters(t));
	rt__leave_runtime(t);
}

/* Region ids by address; parallel regions repeat, so one entry per thread
 * spares most lookups the registry's lock. */
static FOLD_TLS uint64_t last_addr;
static FOLD_TLS uint32_t last_region;

static uint32_t omp_region(uint64_t addr, int named)
{
	if (addr == last_addr && last_region)
		return last_region;
	char name[160] = "";
	uint64_t start;
	if (named && rt__symbol_lookup(addr, name, sizeof name - 24, &start, NULL) == 0) {
		size_t n = strlen(name);
		snprintf(name + n, sizeof name - n, ".omp@0x%llx", (unsigned long long)(addr - start));
	}
	uint32_t r = rt__region_define(TRACE_REGION_OPENMP, addr, name);
	last_addr = addr;
	last_region = r;
	return r;
}

/* ---------------------------------------------------------------- libgomp */

typedef void (*omp_body)(void *);

typedef struct omp_task {
	omp_body fn;
	void *data;
	uint32_t region;
} omp_task;

static void omp_trampoline(void *p)
{
	const omp_task *w = p;
	region_event(FOLD_EV_ENTER, w->region);
	w->fn(w->data);
	region_event(FOLD_EV_EXIT, w->region);
}

/* `real`: the next definition of the function we are in (libgomp's). */
#define REAL(fn)                                                                                             \
	static typeof(&fn) real;                                                                             \
	if (FOLD_UNLIKELY(!real))                                                                            \
		real = (typeof(&fn))rt__real(#fn);

/* Declarations as in GCC's libgomp_g.h. */
FOLD_EXPORT void GOMP_parallel(omp_body fn, void *data, unsigned nthreads, unsigned flags);
FOLD_EXPORT unsigned GOMP_parallel_reductions(omp_body fn, void *data, unsigned nthreads, unsigned flags);
FOLD_EXPORT void GOMP_parallel_sections(omp_body fn, void *data, unsigned nthreads, unsigned count,
                                        unsigned flags);
FOLD_EXPORT void GOMP_parallel_start(omp_body fn, void *data, unsigned nthreads);
FOLD_EXPORT void GOMP_parallel_end(void);

FOLD_EXPORT void GOMP_parallel(omp_body fn, void *data, unsigned nthreads, unsigned flags)
{
	REAL(GOMP_parallel);
	if (!real)
		return;
	if (!omp_on()) {
		real(fn, data, nthreads, flags);
		return;
	}
	omp_task w = {fn, data, omp_region((uint64_t)fn, 0)};
	real(omp_trampoline, &w, nthreads, flags);
}

FOLD_EXPORT unsigned GOMP_parallel_reductions(omp_body fn, void *data, unsigned nthreads, unsigned flags)
{
	REAL(GOMP_parallel_reductions);
	if (!real)
		return 0;
	if (!omp_on())
		return real(fn, data, nthreads, flags);
	omp_task w = {fn, data, omp_region((uint64_t)fn, 0)};
	return real(omp_trampoline, &w, nthreads, flags);
}

FOLD_EXPORT void GOMP_parallel_sections(omp_body fn, void *data, unsigned nthreads, unsigned count,
                                        unsigned flags)
{
	REAL(GOMP_parallel_sections);
	if (!real)
		return;
	if (!omp_on()) {
		real(fn, data, nthreads, count, flags);
		return;
	}
	omp_task w = {fn, data, omp_region((uint64_t)fn, 0)};
	real(omp_trampoline, &w, nthreads, count, flags);
}

/* The combined parallel loops: (fn, data, nthreads, start, end, incr[, chunk], flags). */
#define GOMP_LOOP_CHUNK(name)                                                                                \
	FOLD_EXPORT void name(omp_body fn, void *data, unsigned nthreads, long start, long end, long incr,   \
	                      long chunk, unsigned flags);                                                   \
	FOLD_EXPORT void name(omp_body fn, void *data, unsigned nthreads, long start, long end, long incr,   \
	                      long chunk, unsigned flags)                                                    \
	{                                                                                                    \
		REAL(name);                                                                                  \
		if (!real)                                                                                   \
			return;                                                                              \
		if (!omp_on()) {                                                                             \
			real(fn, data, nthreads, start, end, incr, chunk, flags);                            \
			return;                                                                              \
		}                                                                                            \
		omp_task w = {fn, data, omp_region((uint64_t)fn, 0)};                                        \
		real(omp_trampoline, &w, nthreads, start, end, incr, chunk, flags);                          \
	}
#define GOMP_LOOP_RUNTIME(name)                                                                              \
	FOLD_EXPORT void name(omp_body fn, void *data, unsigned nthreads, long start, long end, long incr,   \
	                      unsigned flags);                                                               \
	FOLD_EXPORT void name(omp_body fn, void *data, unsigned nthreads, long start, long end, long incr,   \
	                      unsigned flags)                                                                \
	{                                                                                                    \
		REAL(name);                                                                                  \
		if (!real)                                                                                   \
			return;                                                                              \
		if (!omp_on()) {                                                                             \
			real(fn, data, nthreads, start, end, incr, flags);                                   \
			return;                                                                              \
		}                                                                                            \
		omp_task w = {fn, data, omp_region((uint64_t)fn, 0)};                                        \
		real(omp_trampoline, &w, nthreads, start, end, incr, flags);                                 \
	}

GOMP_LOOP_CHUNK(GOMP_parallel_loop_static)
GOMP_LOOP_CHUNK(GOMP_parallel_loop_dynamic)
GOMP_LOOP_CHUNK(GOMP_parallel_loop_guided)
GOMP_LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_dynamic)
GOMP_LOOP_CHUNK(GOMP_parallel_loop_nonmonotonic_guided)
GOMP_LOOP_RUNTIME(GOMP_parallel_loop_runtime)
GOMP_LOOP_RUNTIME(GOMP_parallel_loop_nonmonotonic_runtime)
GOMP_LOOP_RUNTIME(GOMP_parallel_loop_maybe_nonmonotonic_runtime)

/* Legacy (GCC < 4.9): the encountering thread runs fn itself between
 * GOMP_parallel_start and GOMP_parallel_end, so its region spans that
 * interval; the workers run the trampoline. */
#define LEGACY_DEPTH 16
static FOLD_TLS omp_task legacy[LEGACY_DEPTH];
static FOLD_TLS unsigned legacy_depth;

FOLD_EXPORT void GOMP_parallel_start(omp_body fn, void *data, unsigned nthreads)
{
	REAL(GOMP_parallel_start);
	if (!real)
		return;
	unsigned d = legacy_depth++;
	if (!omp_on() || d >= LEGACY_DEPTH) {
		if (d < LEGACY_DEPTH)
			legacy[d].region = 0;
		real(fn, data, nthreads);
		return;
	}
	legacy[d] = (omp_task){fn, data, omp_region((uint64_t)fn, 0)};
	region_event(FOLD_EV_ENTER, legacy[d].region);
	real(omp_trampoline, &legacy[d], nthreads);
}

FOLD_EXPORT void GOMP_parallel_end(void)
{
	REAL(GOMP_parallel_end);
	if (real)
		real();
	if (!legacy_depth)
		return;
	unsigned d = --legacy_depth;
	if (d < LEGACY_DEPTH)
		region_event(FOLD_EV_EXIT, legacy[d].region);
}

/* ---------------------------------------------------------------- OMPT (libomp) */

/* From the OpenMP 5.0 specification (omp-tools.h), the part we use. */
typedef union ompt_data_t {
	uint64_t value;
	void *ptr;
} ompt_data_t;
typedef void (*ompt_interface_fn_t)(void);
typedef ompt_interface_fn_t (*ompt_function_lookup_t)(const char *);
typedef void (*ompt_callback_t)(void);
typedef int (*ompt_set_callback_t)(int event, ompt_callback_t callback);
typedef struct ompt_start_tool_result_t {
	int (*initialize)(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data);
	void (*finalize)(ompt_data_t *tool_data);
	ompt_data_t tool_data;
} ompt_start_tool_result_t;
enum { OMPT_CALLBACK_PARALLEL_BEGIN = 3, OMPT_CALLBACK_IMPLICIT_TASK = 7 };
enum { OMPT_SCOPE_BEGIN = 1, OMPT_SCOPE_END = 2 };
enum { OMPT_TASK_INITIAL = 0x1 };
enum { OMPT_SET_SOMETIMES = 3 }; /* ompt_set_result_t: sometimes, sometimes_paired, always */

static void on_parallel_begin(ompt_data_t *task, const void *frame, ompt_data_t *parallel, unsigned requested,
                              int flags, const void *codeptr_ra)
{
	(void)task;
	(void)frame;
	(void)requested;
	(void)flags;
	if (parallel)
		parallel->value = omp_region((uint64_t)codeptr_ra, 1);
}

static void on_implicit_task(int endpoint, ompt_data_t *parallel, ompt_data_t *task, unsigned actual,
                             unsigned index, int flags)
{
	(void)actual;
	(void)index;
	if ((flags & OMPT_TASK_INITIAL) || !task)
		return;
	if (endpoint == OMPT_SCOPE_BEGIN) {
		task->value = parallel ? parallel->value : 0;
		region_event(FOLD_EV_ENTER, (uint32_t)task->value);
	} else if (endpoint == OMPT_SCOPE_END) {
		region_event(FOLD_EV_EXIT, (uint32_t)task->value);
	}
}

static int ompt_initialize(ompt_function_lookup_t lookup, int device, ompt_data_t *tool_data)
{
	(void)device;
	(void)tool_data;
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set)
		return 0;
	int ok =
	    set(OMPT_CALLBACK_PARALLEL_BEGIN, (ompt_callback_t)on_parallel_begin) >= OMPT_SET_SOMETIMES &&
	    set(OMPT_CALLBACK_IMPLICIT_TASK, (ompt_callback_t)on_implicit_task) >= OMPT_SET_SOMETIMES;
	if (!ok) {
		rt__warn("the OpenMP runtime refused OMPT callbacks: parallel regions are not recorded");
		return 0;
	}
	atomic_store(&ompt_active, 1);
	return 1; /* keep the tool */
}

static void ompt_finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
}

FOLD_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version);
FOLD_EXPORT ompt_start_tool_result_t *ompt_start_tool(unsigned omp_version, const char *runtime_version)
{
	(void)omp_version;
	(void)runtime_version;
	static ompt_start_tool_result_t result = {ompt_initialize, ompt_finalize, {0}};
	if (omp_enabled < 0)
		omp_enabled = rt__env_flag("FOLD_OPENMP", 1);
	return omp_enabled ? &result : NULL;
}
