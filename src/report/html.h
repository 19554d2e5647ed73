/* html.h: pieces of the HTML report (internal to src/report).
 *
 * html.c writes the page skeleton and the overview, html_region.c one
 * section per region, html_profile.c the exact profile and the sampled call
 * trees, html_assets.c the inline CSS and script. All untrusted text goes
 * through report_esc_html() (HTML) or report_esc_json() (the data block).
 */
#ifndef FOLD_REPORT_HTML_H
#define FOLD_REPORT_HTML_H

#include <stddef.h>

#include "aggregate.h"
#include "analysis.h"
#include "report_text.h"

/* Most folded samples drawn per counter; beyond it a deterministic stride
 * subset is drawn and the figure says so. Keeps a report at a few MB. */
#define REPORT_HTML_MAX_POINTS 1500
/* Most fitted-curve points per series in the script's data block. */
#define REPORT_HTML_MAX_CURVE 256

extern const char report_html_css[];
extern const char report_html_js[];

typedef struct html_ctx {
	util_buf *b;
	const fold_analysis *a;
	unsigned next_id;     /* for unique SVG clipPath ids */
	report_aggregate agg; /* the regions not shown one by one (aggregate.h) */
} html_ctx;

void report_html_region(html_ctx *h, size_t region_index);
/* The section of the regions aggregated (h->agg): counts, reasons, the
 * largest of them, one row for the rest. Nothing when there are none. */
void report_html_aggregated(html_ctx *h);
/* The script's data block: per region its series curves and phases. */
void report_html_region_data(html_ctx *h);
void report_html_profile(html_ctx *h);
/* html_views.c: where the CPUs worked (thread selector), threads,
 * imbalance, grouped warnings, and their CSS and script. */
void report_html_cpu_views(html_ctx *h);
void report_html_imbalance(html_ctx *h);
void report_html_warnings(html_ctx *h);
extern const char report_html_views_css[];
extern const char report_html_views_js[];
/* html_source.c: a folded region's hottest phase lines in their source. */
void report_html_source(html_ctx *h, const fold_region_result *r);
extern const char report_html_source_css[];

/* Shared helpers (html.c). */
void report_html_text(html_ctx *h, const char *s); /* escaped text, "-" for NULL */
/* A function's name as every view names it (names.h at a width that only
 * renames: an OpenMP outlined function as its parallel region, a glibc
 * alias as its public name), the raw name on hover when they differ. */
void report_html_fn(html_ctx *h, const char *full);
/* The same in at most maxcols columns (a name inside a sentence). */
void report_html_fn_cols(html_ctx *h, const char *full, unsigned maxcols);
void report_html_text_max(html_ctx *h, const char *s, unsigned maxcp); /* cut at maxcp code points with "…" */
void report_html_loc(html_ctx *h, const char *file,
                     unsigned line); /* "file:line", basename shown, full in title */
void report_html_num_cell(html_ctx *h, double v, const char *shown); /* <td class=n data-v=..>shown</td> */
/* Stable palette colour for a function name. */
const char *report_html_color(const char *name);

#endif
