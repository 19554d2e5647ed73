/* analyze.h: the analysis entry point the CLI calls.
 *
 * fold_analyze() reads one or more traces (one per process) and fills a
 * fold_analysis (analysis.h): run metadata, instances and groups per region,
 * the folded samples, fits, phases, derived metrics, source attribution and
 * the exact region profile. Deterministic for a given input and options.
 */
#ifndef FOLD_ANALYZE_H
#define FOLD_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "trace_reader.h"

typedef void (*fold_progress_fn)(void *arg, double fraction, const char *what);

typedef struct fold_options {
	const char *region;     /* fold only regions with this name (NULL: all eligible) */
	int group;              /* group to fold; -1: automatic */
	const char *fit;        /* "kriging" (default) or "pwlr" */
	double outlier_k;       /* drop instances outside median +- k*MAD (default 3) */
	unsigned grid;          /* points of fitted curves (default 200) */
	unsigned min_instances; /* fewer instances: region listed, not folded */
	unsigned min_samples;   /* fewer folded samples: region listed, not folded */
	uint64_t seed;          /* for any randomness; recorded in fit_params */
	const char *share_dir;  /* data directory (models); NULL: found next to the executable */
	unsigned threads;       /* worker threads; 0: one per core */
	int allow_mixed;        /* analyse traces of different programs together (regions kept apart) */
	fold_progress_fn progress;
	void *progress_arg;
	trace_diag_fn diag; /* reader and analysis diagnostics; NULL: stderr */
	void *diag_arg;
} fold_options;

void fold_options_init(fold_options *opt);
/* Returns 0, or a negative errno with a one-line message in err: -ESRCH
 * when opt->region names no region of the run (err lists the nearest),
 * -EXDEV when the traces come from different programs and allow_mixed is
 * unset. */
int fold_analyze(const char *const *paths, size_t npaths, const fold_options *opt, fold_analysis **out,
                 char *err, size_t errlen);

#endif
