/* analysis.c: lifetime of a fold_analysis (see analysis.h). Whoever adds an
 * owned field to analysis.h frees it here. */
#include "analysis.h"

#include <stdlib.h>

#include "trace_format.h"

static void free_kvs(fold_kv *kv, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(kv[i].key);
		free(kv[i].value);
	}
	free(kv);
}

static void free_frames(fold_source_frame *f, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(f[i].function);
		free(f[i].file);
		free(f[i].call_file);
	}
	free(f);
}

static void free_attributions(fold_attribution *a, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(a[i].function);
		free(a[i].file);
		free(a[i].module);
		free_frames(a[i].inline_chain, a[i].ninline);
	}
	free(a);
}

static void free_curve(fold_curve *c)
{
	free(c->x);
	free(c->cum);
	free(c->value);
	free(c->lo);
	free(c->hi);
}

static void free_region(fold_region_result *r)
{
	free(r->name);
	free(r->reason);
	if (r->not_folded)
		fold_diag_free(r->not_folded);
	free(r->not_folded);
	free(r->reason_common);
	free(r->groups);
	for (size_t i = 0; i < r->nseries; i++) {
		fold_series *s = &r->series[i];
		free(s->name);
		free(s->unit);
		free(s->px);
		free(s->py);
		free_curve(&s->fit);
	}
	free(r->series);
	for (size_t i = 0; i < r->nphases; i++) {
		fold_phase_result *p = &r->phases[i];
		for (size_t k = 0; k < p->nrates; k++)
			free(p->rate_names[k]);
		free(p->rate_names);
		free(p->rates);
		free(p->rate_from);
		free(p->rate_to);
		free(p->rate_lo);
		free(p->rate_hi);
		free_attributions(p->top, p->ntop);
	}
	free(r->phases);
	for (size_t i = 0; i < r->ntimeline; i++) {
		for (size_t k = 0; k < r->timeline[i].nspans; k++) {
			free(r->timeline[i].spans[k].function);
			free(r->timeline[i].spans[k].file);
		}
		free(r->timeline[i].spans);
	}
	free(r->timeline);
	free(r->inst);
	free(r->fit_method);
	for (size_t i = 0; i < r->nfit_params; i++) {
		free(r->fit_params[i].name);
		free(r->fit_params[i].word);
	}
	free(r->fit_params);
	free_kvs(r->fit_notes, r->nfit_notes);
}

static void free_hot(fold_hot_function *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].function);
		free(h[i].module);
		free(h[i].file);
	}
	free(h);
}

void fold_analysis_free(fold_analysis *a)
{
	if (!a)
		return;
	for (size_t i = 0; i < a->nprocs; i++) {
		fold_process *p = &a->procs[i];
		free(p->trace_path);
		free_kvs(p->info, p->ninfo);
		free_kvs(p->stats, p->nstats);
		for (size_t k = 0; k < p->nsalvage; k++)
			free(p->salvage_messages[k]);
		free(p->salvage_messages);
	}
	free(a->procs);
	for (size_t i = 0; i < a->ncounters; i++)
		free(a->counters[i].name);
	free(a->counters);
	for (size_t i = 0; i < a->nmissing; i++) {
		free(a->missing[i].name);
		free(a->missing[i].reason);
	}
	free(a->missing);
	for (size_t i = 0; i < a->nregions; i++)
		free_region(&a->regions[i]);
	free(a->regions);
	for (size_t i = 0; i < a->nprofile; i++) {
		free(a->profile[i].name);
		free(a->profile[i].per_thread);
	}
	free(a->profile);
	for (size_t i = 0; i < a->ncallpairs; i++) {
		free(a->callpairs[i].caller);
		free(a->callpairs[i].callee);
	}
	free(a->callpairs);
	for (size_t i = 0; i < a->ncct; i++) {
		free(a->cct[i].function);
		free(a->cct[i].file);
	}
	free(a->cct);
	for (size_t i = 0; i < a->nbottom_up; i++) {
		free(a->bottom_up[i].function);
		free(a->bottom_up[i].file);
	}
	free(a->bottom_up);
	free_attributions(a->lines, a->nlines);
	for (size_t i = 0; i < a->nwarnings; i++)
		fold_diag_free(&a->warnings[i]);
	free(a->warnings);
	free(a->sample_config);
	free_kvs(a->models_skipped, a->nmodels_skipped);
	for (size_t i = 0; i < a->nmodels_used; i++)
		free(a->models_used[i]);
	free(a->models_used);
	for (size_t i = 0; i < a->nthreads; i++) {
		free(a->threads[i].name);
		free_hot(a->threads[i].top, a->threads[i].ntop);
	}
	free(a->threads);
	free_hot(a->hot_cpu, a->nhot_cpu);
	free_hot(a->hot_wall, a->nhot_wall);
	for (size_t i = 0; i < a->nimbalance; i++) {
		free(a->imbalance[i].region);
		free(a->imbalance[i].values_ns);
		free(a->imbalance[i].who);
	}
	free(a->imbalance);
	free(a);
}

const char *fold_region_kind_label(unsigned kind)
{
	switch (kind) {
	case TRACE_REGION_API: return "region";
	case TRACE_REGION_FUNCTION: return "function";
	case TRACE_REGION_MPI: return "MPI";
	case TRACE_REGION_OPENMP: return "OpenMP";
	case TRACE_REGION_BURST: return "burst";
	default: return "other";
	}
}
