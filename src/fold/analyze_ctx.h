/* analyze_ctx.h: the state fold_analyze() threads through its modules
 * (private to src/fold): run metadata (run_meta.c), regions matched by name
 * across processes (region_match.c), the exact profile (profile.c), the
 * per-region pipeline (region_pipeline.c) and the worker pool that runs it
 * (fold_regions.c).
 *
 * Invariants: everything but the warnings list and the work queue is
 * written before the workers start and only read while they run; a worker
 * writes only its own fold_region_result. analyze__diag() is the one
 * thread-safe way to add to a->warnings.
 */
#ifndef FOLD_ANALYZE_CTX_H
#define FOLD_ANALYZE_CTX_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "analyze.h"
#include "attribution.h"
#include "util.h"
#include "ingest.h"
#include "instances.h"
#include "models.h"

/* A region of the run: one per distinct name over every process. */
typedef struct analyze_region_def {
	char *name;
	unsigned kind;
	uint64_t address;
} analyze_region_def;

typedef struct analyze_ctx {
	const fold_options *opt;
	ingest__trace **tr;
	size_t ntr;
	unsigned *prog;     /* per trace: its program (programs.h) */
	size_t nprog;       /* > 1: allow_mixed, or helpers of one run; regions kept apart by program */
	unsigned main_prog; /* the run's main program (most traces): its regions keep their names */
	fold_analysis *a;
	analyze_region_def *reg;
	size_t nreg, cap_reg;
	util_hmap reg_by_name; /* name -> index into reg */
	uint32_t **map;        /* per trace: its region index (ingest: dense) -> global index */
	/* a->counters[k]'s id in trace i: ctr_ids[k * ntr + i], -1 when absent */
	int64_t *ctr_ids;
	size_t c_ncounters;
	size_t *nmap;
	instances__region_acc *acc;
	models__set *models;
	attribution__ctx *attrib;
	pthread_mutex_t warn_lock;
	size_t cap_warn;
	size_t *warn_order; /* per warning: its region's place in the work queue + 1, 0 outside */
	size_t cap_warn_order;
} analyze_ctx;

/* Diagnostics (analysis.h, fold_warning): the one sink every module says
 * its warnings, notes and reasons through. analyze__diag files a record of
 * kind about subject (its strings copied) with the numbers behind it
 * (values: a list ending in {NULL}, ANALYZE_VALUES; NULL: none; at most
 * FOLD_DIAG_MAX_VALUES kept), a detail word (copied; NULL: none) and the
 * message. Thread-safe; dropped when memory runs out, as a diagnostic must
 * not fail the analysis. The subject's function (else its region) is
 * marked in the message where its name first appears. */
#define ANALYZE_VALUES(...) ((const fold_diag_value[]){__VA_ARGS__, {NULL, NULL, 0}})
void analyze__diag(analyze_ctx *c, unsigned kind, const fold_diag_subject *subject,
                   const fold_diag_value *values, const char *detail, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));
/* Subjects: the process of trace i, a thread (stream id) of it, a region
 * and a function by name (borrowed until analyze__diag copies them). The
 * ranks are filled in from a->procs when the analysis ends. */
fold_diag_subject analyze__subject_process(const analyze_ctx *c, size_t i);
fold_diag_subject analyze__subject_thread(const analyze_ctx *c, size_t i, unsigned stream);
fold_diag_subject analyze__subject_region(const char *name);
fold_diag_subject analyze__subject_function(const char *name);
/* Why region r was not folded: sets r->reason to the message and
 * r->not_folded to its record (kind FOLD_DIAG_NOT_SELECTED...; subject the
 * region; values as for analyze__diag), replacing any earlier ones. Not a
 * warning: the writers show it with the region. 0 or -ENOMEM. */
int analyze__not_folded(fold_region_result *r, unsigned kind, const fold_diag_value *values, const char *fmt,
                        ...) __attribute__((format(printf, 4, 5)));
/* The calling thread's warnings are about the region at this place of the
 * work queue from now on (0: none). The pool's warnings are put in queue
 * order afterwards (analyze__warn_sort), so the output does not depend on
 * which worker finished first. */
void analyze__warn_scope(size_t queue_place);
void analyze__warn_sort(analyze_ctx *c, size_t from);
void analyze__progress(analyze_ctx *c, double fraction, const char *what);

/* The most counters the analysis folds (the runtime records at most
 * TRACE_MAX_COUNTERS per process). */
#define FOLD__MAX_COUNTERS 64

/* run_meta.c: a->procs, a->sample_config, a->counters (those the traces
 * carry, one per name) and c->ctr_ids, a->missing. */
int analyze__fill_processes(analyze_ctx *c);
int analyze__fill_counters(analyze_ctx *c);
/* 0 unless every process was cut and not one sample or region event was
 * recovered: then -ENODATA with the reason in err. */
int analyze__check_recovered(const analyze_ctx *c, char *err, size_t errlen);
/* A trace's sampling (its fold_facts) in words with units; NULL for an
 * unknown mode or out of memory. */
char *analyze__sampling_text(const fold_sampling *s);
/* The run's sampling: the first trace's whose mode is known, or NULL. */
const fold_sampling *analyze__run_sampling(const analyze_ctx *c);

/* region_match.c: c->reg and c->map: every trace's region ids mapped to one
 * region per name (unnamed regions by their function's name), per program
 * when there are several ("name [program]"). */
int analyze__map_regions(analyze_ctx *c);
void analyze__regions_free(analyze_ctx *c);
/* 0 when opt->region is unset or names a region of the run; else
 * -REGION_UNKNOWN_ERRNO (region_suggest.h) with the nearest names in err. */
/* Whether region name is the one opt->region asks for: the same name, or
 * with several programs, that name in any of them. */
int analyze__region_selected(const analyze_ctx *c, const char *name);
int analyze__check_region(const analyze_ctx *c, const char *const *paths, size_t npaths, char *err,
                          size_t errlen);

/* profile.c: the hooks' calibrated cost of a trace, and a->profile,
 * a->callpairs with their warnings from the accumulated instances. */
instances__hook_cost analyze__hook_cost(const ingest__trace *t);
int analyze__build_profile(analyze_ctx *c, instances__callpairs *pairs);
/* profile.c: marks throttled entries and estimates their whole-run
 * inclusive time from the sampled call tree (after attribution__global),
 * then ranks the profile again. 0 or -ENOMEM. */
int analyze__estimate_throttled(analyze_ctx *c);

/* perturb.c: the samples' own cost taken out of instance durations, sample
 * positions and CPU time (traces with sample_cost records only); a's
 * sample_handler_ns, sample_delivery_ns, samples_compensated. */
int perturb__compensate_samples(analyze_ctx *c);
/* Whether instances of this duration are short against trace p's timer
 * sampling period (at most a quarter of it; also true when the period is
 * unknown or not a timer's): only then does a sample land in an instance
 * with a probability proportional to its length, well below 1, so that the
 * sampled instances' excess over the unsampled measures the samples' cost
 * rather than which instances were long. */
int perturb__short_against_period(const analyze_ctx *c, size_t p, double duration_ns);

/* region_pipeline.c: the per-region pipeline for region g into r (whose
 * region_basics are filled). Returns 0 (r->folded or r->reason set) or a
 * negative errno. */
int analyze__region(analyze_ctx *c, size_t g, fold_region_result *r);

/* fold_regions.c: a->regions: every region with instances, the selected
 * ones folded by the worker pool, ranked by total time. */
int analyze__fold_regions(analyze_ctx *c);
unsigned analyze__worker_count(const fold_options *opt);

#endif
