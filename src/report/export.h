/* export.h: `fold export` internals shared by the exporters (pprof, Chrome
 * trace-event JSON, folded stacks). Internal to src/report.
 *
 * The exporters need what fold_analysis does not keep: every sample's call
 * stack and every region enter/exit per thread. They load the traces with
 * the analysis' ingest (ingest.h), symbolise with symbols.h, and walk the
 * samples and events through the filters of export_options.
 *
 * Time: every process is placed on one timeline, in nanoseconds since the
 * earliest process start (start.realtime_ns aligns processes of an MPI run;
 * without it each process starts at 0). --from/--to are seconds on it.
 */
#ifndef FOLD_REPORT_EXPORT_H
#define FOLD_REPORT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "ingest.h"
#include "report_export.h"
#include "report_text.h"
#include "symbols.h"

typedef struct export_ctx {
	const export_options *opt;
	ingest__trace **tr;
	size_t ntr;
	double *offset_ns; /* per process: its origin on the common timeline */
	symtab *sym;
	/* per process: region ids sorted, with resolved names and filter match */
	struct export_regions {
		uint32_t *ids;
		const char **names;
		unsigned char *match;
		size_t n;
	} * regions;
	int region_found; /* the --region name matched some region */
} export_ctx;

/* Loads and symbolises; err gets a one-line message naming the file. */
int export_ctx_open(export_ctx *c, const char *const *paths, size_t n, const export_options *opt,
                    trace_diag_fn diag, void *diag_arg, char *err, size_t errlen);
void export_ctx_close(export_ctx *c);

/* Index of a region id in c->regions[proc] (or -1). */
long export_region_index(const export_ctx *c, size_t proc, uint32_t id);
const char *export_region_name(const export_ctx *c, size_t proc, uint32_t id);
/* Common-timeline time of a tick of process proc, in ns. */
double export_time_ns(const export_ctx *c, size_t proc, uint64_t tick);
int export_in_window(const export_ctx *c, double t_ns);

/* Calls fn for every sample passing the filters, in file and stream order. */
typedef int (*export_sample_fn)(void *arg, size_t proc, const ingest__thread *th, const ingest__sample *s,
                                double t_ns);
int export_each_sample(export_ctx *c, export_sample_fn fn, void *arg);

/* Appends the symbolised stack of a sample root first, inlined frames
 * expanded, names joined by sep (';' in names becomes ':'); "[no stack]"
 * when the sample has none. */
int export_stack_string(export_ctx *c, size_t proc, uint32_t stack, report_buf *out, char sep);
/* Leaf function name of a stack (innermost inlined frame). */
const char *export_stack_leaf(export_ctx *c, size_t proc, uint32_t stack);

/* A hash map from a pair of 64-bit keys to a 64-bit value. */
typedef struct export_map {
	struct export_map_slot {
		uint64_t a, b, v;
		int used;
	} * slot;
	size_t cap, n;
} export_map;
/* Returns a pointer to the value of (a, b), inserting init if absent (*added set); NULL on ENOMEM. */
uint64_t *export_map_get(export_map *m, uint64_t a, uint64_t b, uint64_t init, int *added);
void export_map_free(export_map *m);

/* UTF-8-sanitised copy of s into b (invalid bytes become U+FFFD). */
void export_put_utf8(report_buf *b, const char *s);

int export_pprof(export_ctx *c, report_buf *out, export_stats *st, char *err, size_t errlen);
int export_chrome(export_ctx *c, report_buf *out, export_stats *st, char *err, size_t errlen);
int export_folded(export_ctx *c, report_buf *out, export_stats *st, char *err, size_t errlen);

#endif
