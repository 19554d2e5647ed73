/* export.h: `fold export` internals shared by the exporters (pprof, Chrome
 * trace-event JSON, folded stacks). Internal to src/report.
 *
 * The exporters need what fold_analysis does not keep: every sample's call
 * stack and every region enter/exit per thread. The analysis library hands
 * them out, loaded, symbolised, on one timeline and filtered, through its
 * exporters' contract (export_data.h); the exporters only format.
 */
#ifndef FOLD_REPORT_EXPORT_H
#define FOLD_REPORT_EXPORT_H

#include <stddef.h>
#include <stdint.h>

#include "export_data.h"
#include "report_export.h"
#include "report_text.h"
#include "util.h"

typedef struct export_ctx {
	const export_options *opt;
	fold_export *x;              /* the traces, through the analysis' contract */
	unsigned long long max_size; /* chrome: most bytes to write (0: no limit) */
} export_ctx;

/* Appends the symbolised stack of a sample root first, inlined frames
 * expanded, names joined by sep (';' in names becomes ':'); "[no stack]"
 * when the sample has none. */
int export_stack_string(export_ctx *c, size_t proc, uint32_t stack, util_buf *out, char sep);
/* Leaf function name of a stack (innermost inlined frame). */
const char *export_stack_leaf(export_ctx *c, size_t proc, uint32_t stack);

/* A map from a pair of 64-bit keys to a 64-bit value (entries in order of
 * insertion, indexed by a util_hmap). */
typedef struct export_map {
	struct export_map_entry {
		uint64_t a, b, v;
	} * e;
	size_t n, cap;
	util_hmap index;
} export_map;
/* Returns a pointer to the value of (a, b), inserting init if absent (*added
 * set); NULL on ENOMEM. The pointer is valid until the next call on m. */
uint64_t *export_map_get(export_map *m, uint64_t a, uint64_t b, uint64_t init, int *added);
void export_map_free(export_map *m);

/* UTF-8-sanitised copy of s into b (invalid bytes become U+FFFD). */
void export_put_utf8(util_buf *b, const char *s);

int export_pprof(export_ctx *c, util_buf *out, export_stats *st, char *err, size_t errlen);
int export_chrome(export_ctx *c, util_buf *out, export_stats *st, char *err, size_t errlen);
int export_folded(export_ctx *c, util_buf *out, export_stats *st, char *err, size_t errlen);

#endif
