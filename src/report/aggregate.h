/* aggregate.h: which regions the reports show one by one, and what the
 * others add up to (internal to src/report).
 *
 * A report stays proportional to the trace, whatever the trace holds:
 * every folded region is shown on its own (each needs min_instances
 * instances and min_samples samples in them, so a trace holds few), and so
 * are the REPORT_UNFOLDED_SHOWN regions with the most time among those
 * that were not folded. Every other region (a trace of 100,000 one-shot
 * regions has 99,970 of them) is aggregated: the HTML report and the
 * terminal give them one table of the largest REPORT_AGGREGATE_LISTED and
 * one row for the rest, with their count, instances, samples, time and
 * why they were not folded; the JSON keeps each with its counts but
 * without its groups and instances. The exact profile keeps every region
 * (CSV, JSON, fold profile); the HTML profile table lists the
 * REPORT_PROFILE_HTML_ROWS regions with the most inclusive time and one
 * row for the rest.
 */
#ifndef FOLD_REPORT_AGGREGATE_H
#define FOLD_REPORT_AGGREGATE_H

#include <stddef.h>

#include "analysis.h"

#define REPORT_UNFOLDED_SHOWN 30
#define REPORT_AGGREGATE_LISTED 100
#define REPORT_PROFILE_HTML_ROWS 500
#define REPORT_AGGREGATE_REASONS 4
/* Salvage lines the terminal prints per trace, before its summary line. */
#define REPORT_SALVAGE_LINES 10

typedef struct report_aggregate {
	size_t cut; /* regions [cut, n) that are not folded are aggregated */
	size_t n;   /* how many are */
	unsigned long instances, samples;
	double total_ns;
	/* the most frequent reasons they were not folded, with their counts */
	const char *reason[REPORT_AGGREGATE_REASONS];
	size_t nreason[REPORT_AGGREGATE_REASONS];
	size_t other_reasons; /* regions with another reason than those */
} report_aggregate;

/* What a's regions aggregate to. 0 or -ENOMEM. */
int report_aggregate_regions(const fold_analysis *a, report_aggregate *g);
/* Whether region i is shown on its own (not aggregated). */
static inline int report_region_shown(const fold_analysis *a, const report_aggregate *g, size_t i)
{
	return i < g->cut || a->regions[i].folded;
}
/* The reason region r was not folded, shared by the regions that miss the
 * same (its count left out), or its own. */
const char *report_not_folded_key(const fold_region_result *r);

#endif
