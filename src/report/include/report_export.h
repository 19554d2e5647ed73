/* report_export.h: `fold export`: every sample's call stack and every region
 * enter/exit per thread, written as pprof (gzipped profile.proto), Chrome
 * trace-event JSON or folded stacks. Published by src/report for the CLI;
 * the exporters themselves are private to src/report (export.h).
 *
 * Time: every process is placed on one timeline, in nanoseconds since the
 * earliest process start; --from/--to are seconds on it.
 */
#ifndef FOLD_REPORT_EXPORT_PUBLIC_H
#define FOLD_REPORT_EXPORT_PUBLIC_H

#include <stddef.h>

#include "trace_reader.h"

typedef enum export_format { EXPORT_PPROF, EXPORT_CHROME, EXPORT_FOLDED } export_format;

typedef struct export_options {
	export_format format;
	const char *region;  /* only samples/events inside instances of this region (NULL: all) */
	double from_s, to_s; /* window on the common timeline; to_s < 0: to the end */
	int with_samples;    /* chrome: emit sample instant events (default 1) */
	int allow_mixed;     /* accept traces of different programs together */
	/* chrome: most bytes written; -1: the larger of 64 MiB and 20 times the
	 * traces' size; 0: no limit. What does not fit is left out at the end
	 * of every thread, counted in export_stats. */
	long long max_size;
} export_options;

typedef struct export_stats {
	unsigned long samples; /* samples exported */
	unsigned long events;  /* chrome: region begin/end events written */
	unsigned long stacks;  /* distinct stacks */
	/* chrome: samples merged into slices (consecutive samples of a thread
	 * with one stack make one slice), and what the size limit left out */
	unsigned long slices;
	unsigned long samples_dropped, regions_dropped;
	unsigned long long max_size; /* the limit applied (0: none) */
	double cut_s;                /* the earliest time a thread was cut at, s on the timeline */
} export_stats;

/* Loads the traces (paths, n), writes the format of opt to out_path (NULL:
 * standard output; a file is written to a temporary name and renamed) and
 * fills *st. Returns 0 or a negative errno with a one-line message in err
 * naming the file. diag (NULL: stderr) gets the reader's and symboliser's
 * notes. */
int report_export(const char *const *paths, size_t n, const export_options *opt, const char *out_path,
                  trace_diag_fn diag, void *diag_arg, export_stats *st, char *err, size_t errlen);

#endif
