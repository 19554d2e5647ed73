/* diag.c: the diagnostics' kinds (analysis.h, enum fold_diag_kind): each
 * kind's stable identifier, which the JSON carries and docs/diagnostics.md
 * documents, and its severity; what two records have in common.
 *
 * Invariant: an identifier, once published, names the same kind for good;
 * a kind is added at the end of its section of the enum and here, and in
 * docs/diagnostics.md (tests/unit/analysis/test_diag.c checks all three).
 */
#include "analysis.h"

#include <stdlib.h>
#include <string.h>

static const struct {
	const char *id;
	unsigned severity;
} kinds[FOLD_DIAG_NKINDS] = {
    [FOLD_DIAG_UNCLASSIFIED] = {"unclassified", FOLD_DIAG_WARNING},
    [FOLD_DIAG_PROGRAMS_MIXED] = {"programs_mixed", FOLD_DIAG_NOTE},
    [FOLD_DIAG_OTHER_PROGRAM] = {"other_program", FOLD_DIAG_NOTE},
    [FOLD_DIAG_SAMPLES_DROPPED] = {"samples_dropped", FOLD_DIAG_WARNING},
    [FOLD_DIAG_REGION_EVENTS_LOST] = {"region_events_lost", FOLD_DIAG_WARNING},
    [FOLD_DIAG_CUT_RECOVERED] = {"cut_recovered", FOLD_DIAG_WARNING},
    [FOLD_DIAG_CUT] = {"cut", FOLD_DIAG_WARNING},
    [FOLD_DIAG_CHUNKS_LOST] = {"chunks_lost", FOLD_DIAG_WARNING},
    [FOLD_DIAG_TRACE_DAMAGED] = {"trace_damaged", FOLD_DIAG_WARNING},
    [FOLD_DIAG_CLOCK_UNKNOWN] = {"clock_unknown", FOLD_DIAG_WARNING},
    [FOLD_DIAG_COUNTERS_DROPPED] = {"counters_dropped", FOLD_DIAG_WARNING},
    [FOLD_DIAG_REGIONS_UNDEFINED] = {"regions_undefined", FOLD_DIAG_WARNING},
    [FOLD_DIAG_WRITER_PAUSES] = {"writer_pauses", FOLD_DIAG_WARNING},
    [FOLD_DIAG_REGION_UNBALANCED] = {"region_unbalanced", FOLD_DIAG_WARNING},
    [FOLD_DIAG_FUNCTION_THROTTLED] = {"function_throttled", FOLD_DIAG_NOTE},
    [FOLD_DIAG_CALLS_TOO_DEEP] = {"calls_too_deep", FOLD_DIAG_WARNING},
    [FOLD_DIAG_OWN_COST] = {"own_cost", FOLD_DIAG_WARNING},
    [FOLD_DIAG_REGION_NO_INSTANCE] = {"region_no_instance", FOLD_DIAG_WARNING},
    [FOLD_DIAG_GROUP_TOO_FEW] = {"group_too_few", FOLD_DIAG_NOTE},
    [FOLD_DIAG_GROUP_SLOW_TAIL] = {"group_slow_tail", FOLD_DIAG_NOTE},
    [FOLD_DIAG_GROUP_STRETCHED] = {"group_stretched", FOLD_DIAG_NOTE},
    [FOLD_DIAG_GROUP_MISSING] = {"group_missing", FOLD_DIAG_WARNING},
    [FOLD_DIAG_OUTLIERS_EXCLUDED] = {"outliers_excluded", FOLD_DIAG_NOTE},
    [FOLD_DIAG_LOW_CPU_SHARE] = {"low_cpu_share", FOLD_DIAG_WARNING},
    [FOLD_DIAG_INSTANCES_STARVED] = {"instances_starved", FOLD_DIAG_WARNING},
    [FOLD_DIAG_KRIGING_FAILED] = {"kriging_failed", FOLD_DIAG_WARNING},
    [FOLD_DIAG_CURVE_CONTRADICTS] = {"curve_contradicts", FOLD_DIAG_WARNING},
    [FOLD_DIAG_PHASE_ENDPOINT_RATES] = {"phase_endpoint_rates", FOLD_DIAG_NOTE},
    [FOLD_DIAG_PHASE_NO_RATES] = {"phase_no_rates", FOLD_DIAG_WARNING},
    [FOLD_DIAG_SELF_CHECK_FAILED] = {"self_check_failed", FOLD_DIAG_WARNING},
    [FOLD_DIAG_BOUNDARY_MOVES] = {"boundary_moves", FOLD_DIAG_WARNING},
    [FOLD_DIAG_ONE_PHASE] = {"one_phase", FOLD_DIAG_WARNING},
    [FOLD_DIAG_BOUNDARIES_ALIGNED] = {"boundaries_aligned", FOLD_DIAG_NOTE},
    [FOLD_DIAG_SERIES_NOT_FOLDED] = {"series_not_folded", FOLD_DIAG_WARNING},
    [FOLD_DIAG_NOT_SELECTED] = {"not_selected", FOLD_DIAG_NOTE},
    [FOLD_DIAG_TOO_FEW_INSTANCES] = {"too_few_instances", FOLD_DIAG_NOTE},
    [FOLD_DIAG_TOO_FEW_SAMPLES] = {"too_few_samples", FOLD_DIAG_NOTE},
    [FOLD_DIAG_NOTHING_FOLDABLE] = {"nothing_foldable", FOLD_DIAG_NOTE},
    [FOLD_DIAG_THROTTLED] = {"throttled", FOLD_DIAG_NOTE},
};

const char *fold_diag_kind_id(unsigned kind)
{
	return kind < FOLD_DIAG_NKINDS && kinds[kind].id ? kinds[kind].id : kinds[0].id;
}

unsigned fold_diag_kind_severity(unsigned kind)
{
	return kind < FOLD_DIAG_NKINDS ? kinds[kind].severity : FOLD_DIAG_WARNING;
}

const char *fold_diag_severity_id(unsigned severity)
{
	return severity == FOLD_DIAG_NOTE ? "note" : "warning";
}

const char *fold_diag_subject_type_id(unsigned type)
{
	static const char *const ids[] = {"run",   "process", "thread",  "region",
	                                  "group", "phase",   "counter", "function"};
	return type < sizeof ids / sizeof *ids ? ids[type] : ids[0];
}

fold_diag_subject fold_diag_subject_none(void)
{
	return (fold_diag_subject){
	    .type = FOLD_SUBJECT_RUN, .process = -1, .rank = -1, .thread = -1, .group = -1, .phase = -1};
}

int fold_diag_same_kind(const fold_warning *x, const fold_warning *y)
{
	if (x->kind != y->kind)
		return 0;
	if (x->kind != FOLD_DIAG_UNCLASSIFIED)
		return 1;
	/* unclassified: one call says one kind of thing; without the call
	 * known, a record is of a kind of its own */
	if (x == y)
		return 1;
	return x->format && y->format && (x->format == y->format || !strcmp(x->format, y->format));
}

static int same_str(const char *x, const char *y)
{
	return x && y ? !strcmp(x, y) : x == y;
}

int fold_diag_same_subject(const fold_diag_subject *x, const fold_diag_subject *y)
{
	return x->type == y->type && x->process == y->process && x->rank == y->rank &&
	       same_str(x->trace, y->trace) && x->thread == y->thread && same_str(x->region, y->region) &&
	       x->group == y->group && x->phase == y->phase && same_str(x->counter, y->counter) &&
	       same_str(x->function, y->function) && same_str(x->file, y->file) && x->line == y->line;
}

const fold_diag_value *fold_diag_value_of(const fold_warning *d, const char *name)
{
	for (size_t i = 0; i < d->nvalues && i < FOLD_DIAG_MAX_VALUES; i++)
		if (!strcmp(d->values[i].name, name))
			return &d->values[i];
	return NULL;
}

void fold_diag_free(fold_warning *d)
{
	free(d->subject.trace);
	free(d->subject.region);
	free(d->subject.counter);
	free(d->subject.function);
	free(d->subject.file);
	free(d->detail);
	free(d->what);
}
