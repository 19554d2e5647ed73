/* analyze_test.h: what the analysis tests share: the trace and JSON paths
 * of the running test (setup names them per process, teardown removes
 * them), a synthetic run written and folded, and look-ups of regions,
 * rates, series and fit notes that fail the test when absent. */
#ifndef FOLD_ANALYZE_TEST_H
#define FOLD_ANALYZE_TEST_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "analyze.h"
#include "analyze_ctx.h"
#include "region_work.h"
#include "synth.h"

extern char trace[128], json[128];

int setup(void **state);
int teardown(void **state);
/* A diagnostics sink that drops them. */
void quiet(void *arg, const char *msg);
/* Region name of a (fails the test when there is none). */
const fold_region_result *region(const fold_analysis *a, const char *name);
/* The index of rate name in phase p (p->nrates when it has none). */
size_t rate_index(const fold_phase_result *p, const char *name);
/* Rate name in phase p (fails the test when there is none). */
double rate_of(const fold_phase_result *p, const char *name);
/* Writes c's synthetic trace and folds it with fit (NULL: the default,
 * Kriging) (min_samples 0: the default); the analysis must succeed. */
fold_analysis *fold_synth_fit(const synth_config *c, unsigned min_samples, const char *fit);
/* ... with the piecewise-linear fit. */
fold_analysis *fold_synth(const synth_config *c, unsigned min_samples);
/* Does some warning of a contain text? */
int warned_about(const fold_analysis *a, const char *text);
/* The first diagnostic of a of that kind (enum fold_diag_kind), or NULL;
 * the value named name of d (fails the test when there is none). */
const fold_warning *warning_of_kind(const fold_analysis *a, unsigned kind);
double diag_value(const fold_warning *d, const char *name);
/* 20000 instances of 50 us with 1 ms sampling whose samples cost 26 us. */
void short_region_with_sample_cost(synth_config *c, uint64_t seed);
/* The two phases of the default synthetic region, at their rates. */
void check_two_phases(const fold_region_result *r);
/* Series name of r (NULL when there is none). */
const fold_series *series_of(const fold_region_result *r, const char *name);
/* The fit note called key, or the word of the parameter so named; NULL
 * when there is neither. */
const char *fit_param_of(const fold_region_result *r, const char *key);
/* Whether the fits recorded a parameter or a note called key. */
int fit_has(const fold_region_result *r, const char *key);
/* 400 instances of 1 ms; a regular competitor preempts 70% of them for
 * exactly 2 ms. */
void stretched_by_a_competitor(synth_config *c);

/* A region's work record built by hand (no trace): 100 instances of about
 * 1 ms, one counter read at enter and exit whose 20 folded points per
 * instance rise at twice the mean rate up to 0.4 and at a third of it after
 * (noise 1%, drawn from seed), 1e9 events/s per unit slope. The context has
 * default options and no models; hand_record_free releases it all. */
typedef struct hand_record {
	fold_options opt;
	fold_analysis a;
	analyze_ctx c;
	instances__instance inst[100];
	instances__region_acc acc;
	fold_group group;
	fold_region_result r;
	region_work w;
} hand_record;
void hand_record_init(hand_record *h, uint64_t seed);
void hand_record_free(hand_record *h);

#endif
