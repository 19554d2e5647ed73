/* own_cost.c: what fold's own work cost the program, said when it is large.
 *
 * Owns one warning: the share of the program's CPU time (or samples) in
 * fold's measurement (the row FOLD_MEASUREMENT_FUNCTION of the CPU view:
 * the compiler hooks and their PLT stubs, the API, the trace writing), how
 * much slower that made the program, and where the hooks were called from
 * (the measurement's callers in the bottom-up tree). Compiler hooks run for
 * every instrumented call, recorded or not: a function the filter leaves
 * out or throttling switches off still pays its two hook calls. When most of
 * them come from system headers (the C++ library, inlined into the
 * program's code and instrumented with it), the warning names the compiler
 * option that keeps them out.
 *
 * Invariants: reads a->threads, a->hot_cpu and a->bottom_up only; at most
 * one warning, and only on evidence: enough of fold's samples, and a share
 * whose 95% lower bound reaches the threshold.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analyze_ctx.h"
#include "own_cost.h"

/* Below this share of the CPU time the cost is said in the CPU view only. */
#define OWN_COST_WARN_SHARE 0.10
/* ... and no warning on fewer samples of fold's own than this. */
#define OWN_COST_MIN_SAMPLES 10

/* A file of the compiler's or the C library's headers. */
static int system_header(const char *file)
{
	return file && (!strncmp(file, "/usr/include/", 13) || !strncmp(file, "/usr/lib/gcc/", 13) ||
	                strstr(file, "/include/c++/"));
}

/* The callers of fold's measurement in the bottom-up tree: samples in all,
 * those from system headers, and the caller with the most (*top: its
 * function, *top_file: its file's base name, NULL without one). */
static void hook_callers(const fold_analysis *a, unsigned long *all, unsigned long *sys, const char **top,
                         const char **top_file)
{
	*all = *sys = 0;
	*top = *top_file = NULL;
	unsigned long best = 0;
	for (size_t r = a->bottom_up_root; r < a->nbottom_up; r = a->bottom_up[r].next_sibling) {
		if (!a->bottom_up[r].function || strcmp(a->bottom_up[r].function, FOLD_MEASUREMENT_FUNCTION))
			continue;
		for (size_t k = a->bottom_up[r].first_child; k < a->nbottom_up;
		     k = a->bottom_up[k].next_sibling) {
			const fold_cct_node *n = &a->bottom_up[k];
			*all += n->total_samples;
			if (system_header(n->file))
				*sys += n->total_samples;
			if (n->total_samples > best) {
				best = n->total_samples;
				*top = n->function;
				const char *slash = n->file ? strrchr(n->file, '/') : NULL;
				*top_file = slash ? slash + 1 : n->file;
			}
		}
	}
}

void own_cost__warn(analyze_ctx *c)
{
	const fold_analysis *a = c->a;
	double own = 0, total = a->cpu_weighted ? a->dropped_cpu_ns : 0;
	unsigned long own_samples = 0;
	/* over the threads the CPU view shows, as its heading counts them */
	for (size_t k = 0; k < a->nthreads; k++)
		if (a->threads[k].klass != FOLD_THREAD_RUNTIME_IDLE)
			total += a->cpu_weighted ? a->threads[k].cpu_ns : (double)a->threads[k].samples;
	for (size_t i = 0; i < a->nhot_cpu; i++) {
		const fold_hot_function *h = &a->hot_cpu[i];
		if (h->function && !strcmp(h->function, FOLD_MEASUREMENT_FUNCTION)) {
			own += a->cpu_weighted ? h->cpu_ns : (double)h->samples;
			own_samples += h->samples;
		}
	}
	if (!(total > 0) || own < OWN_COST_WARN_SHARE * total)
		return;
	/* A share read off a handful of samples says nothing: the warning needs
	 * OWN_COST_MIN_SAMPLES of fold's, and the share's 95% lower bound (Wilson,
	 * over the samples) at the threshold. A short run's few samples landing
	 * in the hooks' start-up calibration are no finding. */
	unsigned long all_samples = 0;
	for (size_t k = 0; k < a->nthreads; k++)
		if (a->threads[k].klass != FOLD_THREAD_RUNTIME_IDLE)
			all_samples += a->threads[k].samples;
	if (own_samples < OWN_COST_MIN_SAMPLES || !all_samples)
		return;
	double n = (double)all_samples, p = (double)own_samples / n, z = 1.96;
	double lower = (p + z * z / (2 * n) - z * sqrt(p * (1 - p) / n + z * z / (4 * n * n))) / (1 + z * z / n);
	if (lower < OWN_COST_WARN_SHARE)
		return;
	double share = own / total;
	unsigned long all, sys;
	const char *top, *top_file;
	hook_callers(a, &all, &sys, &top, &top_file);
	char where[640] = "";
	if (all && sys * 2 >= all)
		snprintf(where, sizeof where,
		         "; %.0f%% of them in the hooks of functions from system headers (%s most), which "
		         "-finstrument-functions instruments where they are inlined: rebuild with "
		         "-finstrument-functions-exclude-file-list=/usr/include",
		         100.0 * (double)sys / (double)all, top_file ? top_file : "the C++ library's");
	else if (all && top)
		snprintf(where, sizeof where,
		         "; most called from %s. A function fold leaves out (FOLD_FILTER, throttling) still "
		         "runs its hooks: keep it out of the instrumentation at compile time "
		         "(-finstrument-functions-exclude-function-list)",
		         top);
	/* about the run; the function most of it was called from, when named */
	fold_diag_subject s = fold_diag_subject_none();
	s.function = strstr(where, "most called from") ? (char *)top : NULL;
	analyze__diag(c, FOLD_DIAG_OWN_COST, &s,
	              ANALYZE_VALUES({"share", "share", share}, {"samples", "count", (double)own_samples},
	                             {"slowdown", "ratio", share < 0.99 ? 1 / (1 - share) : 100.0},
	                             {"system_header_share", "share", all ? (double)sys / (double)all : 0}),
	              a->cpu_weighted ? "cpu_time" : "samples",
	              "fold's own work (its hooks, their PLT stubs, the trace writing) took %.0f%% of the %s "
	              "of the program's threads (%lu samples): the program took about %.1fx the time it "
	              "would without that work%s",
	              100 * share, a->cpu_weighted ? "CPU time" : "samples", own_samples,
	              share < 0.99 ? 1 / (1 - share) : 100.0, where);
}
