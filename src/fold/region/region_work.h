/* region_work.h: the record the per-region pipeline (region_pipeline.c)
 * hands from stage to stage, and the helpers its stages share (private to
 * src/fold/region).
 *
 * Every stage is `int stage_x(analyze_ctx *c, region_work *w)` in a file
 * stage_x.c of its own and one row of region_pipeline.c's table. A stage
 * reads what the stages before it filled (the comment of each field says
 * which stage fills it), writes its own fields and the region's result
 * w->r, and returns 0 to go on, 1 when the region is not folded (w->r->reason
 * says why, set by analyze__not_folded) or a negative errno. It adds
 * diagnostics through analyze__diag and nothing else of the context; it
 * runs in a worker thread.
 *
 * Invariants: a field is written by the stage that owns it and read only by
 * the stages after it; every pointer in the record is owned by it (freed by
 * region__work_free) until a stage moves it into w->r and clears it.
 */
#ifndef FOLD_REGION_WORK_H
#define FOLD_REGION_WORK_H

#include <stddef.h>
#include <stdint.h>

#include "analyze_ctx.h"
#include "folding.h"
#include "pwlr.h"

/* One folded series: a counter, CPU time or wall time. */
typedef struct series_work {
	folding__folded f;
	char *name;
	unsigned kind; /* counter kind; 0 for time */
	int skind;
	double scale;      /* mean rate over the folded instances: sum of events / sum of durations */
	double rscale;     /* events/s per unit slope: the typical (median) instance's rate */
	double rscale_rel; /* its relative standard error over the instances (NAN: unknown) */
	const char *unit;
	int rates_only;         /* does not place phase boundaries */
	unsigned long withheld; /* phases whose curve shape the fit withheld (fit_input) */
} series_work;

/* What grouping leaves for the following stages. */
typedef struct grouped {
	instances__instance *pieces; /* samples attached to the innermost instance */
	size_t npieces;
	unsigned long used;  /* instances folded */
	unsigned long sfold; /* samples inside them */
} grouped;

/* The alignment of a boundary whose position varies between instances
 * (stage_phases.c). */
typedef struct align_info {
	int done;
	double at;      /* the aligned boundary's position */
	size_t aligned; /* instances with their own estimate */
	/* the warps applied, in order (up to two passes): instance id's own
	 * boundary bi[id] (NAN: not warped) moved to `to` within [lo, hi] */
	int npass;
	double *bi[2];
	double lo[2], to[2], hi[2];
} align_info;

typedef struct region_work {
	/* set before the first stage */
	size_t g;                   /* the region's index in c->acc and c->reg */
	instances__region_acc *acc; /* its instances (&c->acc[g]); stage_group marks them used */
	fold_region_result *r;      /* the result (region_basics filled); every stage adds to it */
	/* stage_group: the pieces of the folded group's instances */
	grouped gr;
	/* stage_fold: the folded series (room for every counter plus two) */
	series_work *sw;
	size_t nsw;
	/* stage_phases: the joint piecewise-linear fit over ps[0..nps) (every
	 * series but wall time), pw[k] series k's index in it (SIZE_MAX: none),
	 * its options and result, and the boundary alignment applied before it */
	size_t *pw;
	pwlr__series *ps;
	size_t nps;
	pwlr__opts po;
	pwlr__result pr;
	align_info ai;
} region_work;

/* A work record for region g of c into r, nothing computed yet. */
void region__work_init(region_work *w, analyze_ctx *c, size_t g, fold_region_result *r);
void region__work_free(region_work *w);

/* --- thresholds more than one stage applies --- */

/* A counter with fewer events per instance is counting noise (Poisson): it
 * gets rates but does not place phase boundaries. */
#define FOLD__MIN_EVENTS_PER_INSTANCE 10.0
/* Median CPU share of the folded instances above which the CPU clock does
 * not place phase boundaries (choose_phase_series). */
#define FOLD__BUSY_SHARE 0.95
/* Minimum share of the best group's CPU utilisation a group needs to be
 * folded by default. */
#define FOLD__MIN_RELATIVE_UTILISATION 0.9
/* Median CPU share below which the folded instances did not get the CPU
 * (warn_cpu_share, starved_group). */
#define FOLD__LOW_CPU_SHARE 0.6
/* Bootstrap replicates behind each interval: 5th-95th percentiles of 30
 * are within a few per cent of their limit and cost 30 phase fits. */
#define FOLD__BOOTSTRAP_REPLICATES 30

/* --- helpers the stages share (region_work.c) --- */

/* Is series s the thread's CPU clock as a counter? */
int region__is_cpu_clock(const series_work *s);
/* A counter of counting noise: fewer than FOLD__MIN_EVENTS_PER_INSTANCE
 * events per instance, or none in most instances. */
int region__is_sparse(const series_work *s);
int region__cmp_dbl(const void *x, const void *y);
/* The trace counter id of the run's counter k (or the one called name) in
 * every trace (-1: absent there). Returns whether any trace has it. */
int region__counter_ids(analyze_ctx *c, size_t k, int64_t *ids);
int region__counter_ids_of(analyze_ctx *c, const char *name, int64_t *ids);
/* The largest rate a series can physically have on one thread. */
double region__series_max(int skind, const char *name);
/* v within [0, max]; NaN (no data) stays NaN. */
double region__clamp_rate(double v, double max);
void region__align_info_free(align_info *ai);
double region__warp(double x, double lo, double from, double to, double hi);
/* Position x of instance id as the phases were fitted (after its warps). */
double region__aligned_x(const align_info *ai, uint32_t id, double x);
/* Diagnostic subjects within region name (borrowed until analyze__diag
 * copies them): its duration group, its phase (1-based, as the reports
 * number phases) and its series called counter. */
fold_diag_subject region__subject_group(const char *name, size_t group);
fold_diag_subject region__subject_phase(const char *name, size_t phase);
fold_diag_subject region__subject_counter(const char *name, const char *counter);
/* stage_curves.c: series k's curve as the steps of its phase rates. */
void region__step_curve(fold_region_result *r, size_t k, const pwlr__result *pr);

/* --- the stages, in the order region_pipeline.c runs them --- */
int stage_group(analyze_ctx *c, region_work *w);
int stage_fold(analyze_ctx *c, region_work *w);
int stage_phases(analyze_ctx *c, region_work *w);
int stage_curves(analyze_ctx *c, region_work *w);
int stage_table(analyze_ctx *c, region_work *w);
int stage_uncertainty(analyze_ctx *c, region_work *w);
int stage_sampled_rates(analyze_ctx *c, region_work *w);
int stage_bound_rates(analyze_ctx *c, region_work *w);
int stage_steps(analyze_ctx *c, region_work *w);
int stage_models(analyze_ctx *c, region_work *w);
int stage_attribution(analyze_ctx *c, region_work *w);

#endif
