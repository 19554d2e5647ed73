/* region_pipeline.c: the per-region pipeline, a table of stages run in
 * order on one work record (region_work.h). Each stage is a file of its
 * own (stage_<name>.c) with the signature
 *
 *     int stage_x(analyze_ctx *c, region_work *w);
 *
 * returning 0 to go on, 1 when the region is not folded (r->reason set) or
 * a negative errno. A new stage is a new file and one row below.
 *
 * Runs in a worker thread: reads the context, writes only the region's
 * result (and diagnostics through analyze__diag).
 */
#include "region_work.h"

typedef struct region_stage {
	const char *name;
	int (*run)(analyze_ctx *c, region_work *w);
	const char *fills;
} region_stage;

static const region_stage stages[] = {
    {"group", stage_group, "r->groups, instance marks, w->gr: the pieces of the group to fold"},
    {"fold", stage_fold, "w->sw: every counter, then CPU time (wall time only when nothing else)"},
    {"phases", stage_phases, "w->pr: the joint piecewise-linear fit (aligned, unlocated boundaries dropped)"},
    {"curves", stage_curves, "r->series: the chosen fit's curve per series, the fit parameters"},
    {"table", stage_table, "r->phases: bounds, per-series rates, samples per phase"},
    {"uncertainty", stage_uncertainty, "r->phases intervals, r->self_check"},
    {"sampled rates", stage_sampled_rates, "rates of series with estimated boundaries from sample pairs"},
    {"bound rates", stage_bound_rates, "rates at a physical bound from the instances' own values"},
    {"steps", stage_steps, "curves of sparse counters and withheld shapes as the phase rates' steps"},
    {"models", stage_models, "derived metrics (models.c)"},
    {"attribution", stage_attribution, "source lines per phase (attribution.c)"},
};

int analyze__region(analyze_ctx *c, size_t g, fold_region_result *r)
{
	region_work w;
	region__work_init(&w, c, g, r);
	int rc = 0;
	for (size_t i = 0; i < sizeof stages / sizeof *stages && !rc; i++)
		rc = stages[i].run(c, &w);
	if (!rc)
		r->folded = 1;
	region__work_free(&w);
	return rc > 0 ? 0 : rc;
}
