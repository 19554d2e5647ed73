/* profile_cost.h: fold's own cost inside a profile row's calls, as the
 * report writers show it (internal to src/report). The analysis takes the
 * measured cost of fold's work inside the calls out of their times (the
 * calls' own hooks, hooks_ns; the nested calls' hooks and trace writing,
 * nested_overhead_ns); a timer the program keeps right around the calls
 * holds inclusive_ns + this (docs/regions.md, "Own hooks"). */
#ifndef FOLD_REPORT_PROFILE_COST_H
#define FOLD_REPORT_PROFILE_COST_H

#include <stddef.h>

#include "analysis.h"

static inline double report_profile_cost_ns(const fold_profile_entry *e)
{
	double c = e->hooks_ns + e->nested_overhead_ns;
	return c > 0 ? c : 0;
}

/* Whether any row has a cost to show (a run with compiler hooks, or with
 * trace writing inside a region). */
static inline int report_profile_has_cost(const fold_analysis *a)
{
	for (size_t i = 0; i < a->nprofile; i++)
		if (report_profile_cost_ns(&a->profile[i]) > 0)
			return 1;
	return 0;
}

#endif
