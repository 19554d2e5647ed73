/* profile.c: the exact region profile of the analysis (a->profile,
 * a->callpairs) from the per-region accumulators instances.c filled, ranked
 * by inclusive time, with the warnings about unbalanced and throttled
 * regions; and the compiler hooks' calibrated cost that compensates it. */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"

_Static_assert(FOLD_FACTS_COLD_BINS == INSTANCES__COLD_BINS, "the run facts keep every cold bin");

/* A calibration value: the STAT (integer) of key if the trace has one
 * (older runtimes), else its INFO value parsed in the run facts (info,
 * NaN: absent). Returns whether there was one. */
static int calibration(const ingest__trace *t, const char *key, double info, double *out)
{
	uint64_t v;
	if (ingest__trace_stat(t, key, &v))
		*out = (double)v;
	else if (!isnan(info))
		*out = info;
	else
		return 0;
	return 1;
}

/* A STAT count (the cold hooks' totals per bin); 0 if absent. */
static double stat_of(const ingest__trace *t, const char *key)
{
	uint64_t v;
	return ingest__trace_stat(t, key, &v) ? (double)v : 0;
}

/* calibration's value, 0 if absent. */
static double calibration_or_0(const ingest__trace *t, const char *key, double info)
{
	double v;
	return calibration(t, key, info, &v) ? v : 0;
}

/* Per bin: the measured mean over the warm value of the same measurement
 * (0 if below it or absurd); a bin without measurements takes the nearest
 * measured bin's value (the lower at equal distance); then the measuring's
 * own cost is added where the runtime measured (m_lo: from that bin up). */
static void cold_kind(const ingest__trace *t, const char *ticks_key, const char *n_key, double warm,
                      double measure, unsigned m_lo, unsigned nbins, double *out)
{
	int have[INSTANCES__COLD_BINS] = {0};
	for (unsigned b = 0; b < nbins; b++) {
		char k1[80], k2[80];
		snprintf(k1, sizeof k1, "%s.%u", ticks_key, b);
		snprintf(k2, sizeof k2, "%s.%u", n_key, b);
		/* traces of older runtimes: one bin (1), no suffix */
		double ticks = stat_of(t, nbins == 2 && b == 1 ? ticks_key : k1),
		       n = stat_of(t, nbins == 2 && b == 1 ? n_key : k2);
		double extra = n > 0 ? ticks * t->ns_per_tick / n - warm : 0;
		have[b] = n > 0;
		out[b] = extra > 0 && extra < 1e5 ? extra : 0;
	}
	for (unsigned b = 0; b < nbins; b++) {
		if (have[b])
			continue;
		for (unsigned d = 1; d < nbins; d++)
			if (b >= d && have[b - d]) {
				out[b] = out[b - d];
				break;
			} else if (b + d < nbins && have[b + d]) {
				out[b] = out[b + d];
				break;
			}
	}
	for (unsigned b = m_lo; b < nbins; b++)
		out[b] += measure;
}

/* Cold hooks (runtime rt_cyg.c, COLD_BIN0_NS): the bins, and per bin the
 * surplus of each kind of measurement. Traces of older runtimes have one
 * gap (overhead.cold_gap_ns) and the part after the timestamp only. */
static void cold_bins(const ingest__trace *t, instances__hook_cost *h)
{
	const fold_hook_facts *f = &t->facts.hooks;
	double gap = calibration_or_0(t, "overhead.cold_gap_ns", f->cold_gap_ns);
	h->nbins = 0;
	if (f->has_cold_bins) {
		for (unsigned b = 0; b < f->ncold_bins && b < INSTANCES__COLD_BINS; b++)
			h->bin_lo_ns[h->nbins++] = f->cold_bin_lo_ns[b];
	} else if (gap > 0) {
		h->nbins = 2;
		h->bin_lo_ns[0] = 0;
		h->bin_lo_ns[1] = gap;
	}
	if (h->nbins < 2) {
		h->nbins = 0;
		return;
	}
	h->gap_from_function = f->gap_from_function;
	double ma = calibration_or_0(t, "overhead.cold_measure_after_ns", f->measure_after_ns),
	       mb = calibration_or_0(t, "overhead.cold_measure_before_ns", f->measure_before_ns);
	if (!(ma >= 0 && ma < 1e4))
		ma = 0;
	if (!(mb >= 0 && mb < 1e4))
		mb = 0;
	h->measure_after_ns = ma;
	h->measure_before_ns = mb;
	double w_enter = calibration_or_0(t, "overhead.hook_enter_after_ns", f->enter_after_ns);
	h->exit_after_ns = calibration_or_0(t, "overhead.hook_exit_after_ns", f->exit_after_ns);
	h->before_warm_ns = calibration_or_0(t, "overhead.hook_enter_before_ns", f->enter_before_ns);
	cold_kind(t, "overhead.cold_enter_ticks", "overhead.cold_enters", w_enter, ma, 1, h->nbins,
	          h->enter_ns);
	cold_kind(t, "overhead.cold_exit_ticks", "overhead.cold_exits", h->exit_after_ns, ma, 1, h->nbins,
	          h->exit_ns);
	if (f->has_cold_bins)
		cold_kind(t, "overhead.cold_before_ticks", "overhead.cold_befores", h->before_warm_ns, mb, 0,
		          h->nbins, h->before_ns);
	h->enter_ns[0] = h->exit_ns[0] = 0;
}

/* The compiler hooks' calibrated cost (docs/trace-format.md, overhead.*). */
instances__hook_cost analyze__hook_cost(const ingest__trace *t)
{
	const fold_hook_facts *f = &t->facts.hooks;
	double pair = 0;
	if (!calibration(t, "overhead.hook_ns", f->pair_ns, &pair))
		calibration(t, "calibration.hook_ns", f->pair_ns_old, &pair);
	instances__hook_cost h = {.pair_ns = pair,
	                          .inner_ns = calibration_or_0(t, "overhead.hook_inner_ns", f->inner_ns)};
	if (!(h.pair_ns > 0 && h.pair_ns < 1e6))
		h.pair_ns = h.inner_ns = 0; /* absent or absurd: no compensation */
	if (!(h.inner_ns >= 0 && h.inner_ns <= h.pair_ns))
		h.inner_ns = 0;
	if (h.pair_ns > 0)
		cold_bins(t, &h);
	h.enter_after_ns =
	    h.pair_ns > 0 ? calibration_or_0(t, "overhead.hook_enter_after_ns", f->enter_after_ns) : 0;
	return h;
}

double fold_profile_rank_ns(const fold_profile_entry *p)
{
	if (p->throttled && p->est_samples && p->est_inclusive_ns > p->inclusive_ns)
		return p->est_inclusive_ns;
	return p->inclusive_ns;
}

static int cmp_profile(const void *x, const void *y)
{
	const fold_profile_entry *a = x, *b = y;
	double ra = fold_profile_rank_ns(a), rb = fold_profile_rank_ns(b);
	if (ra != rb)
		return ra > rb ? -1 : 1;
	return strcmp(a->name, b->name);
}

static int cmp_callpair(const void *x, const void *y)
{
	const fold_callpair *a = x, *b = y;
	if (a->inclusive_ns != b->inclusive_ns)
		return a->inclusive_ns > b->inclusive_ns ? -1 : 1;
	int r = strcmp(a->caller, b->caller);
	return r ? r : strcmp(a->callee, b->callee);
}

static void profile_diags(analyze_ctx *c);

int analyze__build_profile(analyze_ctx *c, instances__callpairs *pairs)
{
	fold_analysis *a = c->a;
	a->profile = calloc(c->nreg + 1, sizeof *a->profile);
	if (!a->profile)
		return -ENOMEM;
	for (size_t g = 0; g < c->nreg; g++) {
		instances__region_acc *A = &c->acc[g];
		if (!A->npt && !A->unclosed && !A->stray_exit)
			continue;
		fold_profile_entry *p = &a->profile[a->nprofile++];
		p->name = util_strdup(c->reg[g].name);
		p->kind = c->reg[g].kind;
		p->unbalanced = A->unclosed + A->stray_exit;
		p->per_thread = calloc(A->npt + 1, sizeof *p->per_thread);
		if (!p->name || !p->per_thread)
			return -ENOMEM;
		p->min_ns = INFINITY;
		p->max_ns = 0;
		for (size_t k = 0; k < A->npt; k++) {
			const instances__prof_thread *pt = &A->pt[k];
			fold_profile_thread *o = &p->per_thread[p->nper_thread++];
			o->proc = pt->proc;
			o->rank = a->procs[pt->proc].rank;
			o->thread = c->tr[pt->proc]->threads[pt->thread].stream;
			o->calls = pt->calls;
			o->inclusive_ns = pt->incl;
			o->exclusive_ns = pt->excl;
			o->min_ns = pt->min;
			o->max_ns = pt->max;
			o->hooks_ns = pt->hooks;
			o->hooks_first_ns = pt->hooks_first;
			p->hooks_ns += pt->hooks;
			p->hooks_first_ns += pt->hooks_first;
			o->nested_overhead_ns = pt->nested;
			p->nested_overhead_ns += pt->nested;
			p->calls += pt->calls;
			p->inclusive_ns += pt->incl;
			p->exclusive_ns += pt->excl;
			if (pt->min < p->min_ns)
				p->min_ns = pt->min;
			if (pt->max > p->max_ns)
				p->max_ns = pt->max;
		}
		p->nthreads = (unsigned)p->nper_thread;
		if (!p->calls)
			p->min_ns = 0;
		/* mean per call of the inclusive time, every call counted (recursive ones too) */
		double sum_all = 0;
		for (size_t k = 0; k < A->ninst; k++)
			sum_all += A->inst[k].dur_ns;
		p->mean_ns = p->calls ? sum_all / (double)p->calls : 0;
		if (c->a->hook_overhead_ns > 0 && p->calls)
			p->mean_ns = p->inclusive_ns / (double)p->calls;
	}
	qsort(a->profile, a->nprofile, sizeof *a->profile, cmp_profile);
	a->callpairs = calloc(pairs->n + 1, sizeof *a->callpairs);
	if (!a->callpairs)
		return -ENOMEM;
	for (size_t i = 0; i < pairs->n; i++) {
		const instances__callpair_acc *s = &pairs->e[i];
		uint32_t caller = (uint32_t)(s->key >> 32) - 1, callee = (uint32_t)s->key - 1;
		fold_callpair *o = &a->callpairs[a->ncallpairs++];
		o->caller = util_strdup(c->reg[caller].name);
		o->callee = util_strdup(c->reg[callee].name);
		o->calls = s->calls;
		o->inclusive_ns = s->incl > 0 ? s->incl : 0; /* summed unclamped (instances.c) */
		if (!o->caller || !o->callee)
			return -ENOMEM;
	}
	qsort(a->callpairs, a->ncallpairs, sizeof *a->callpairs, cmp_callpair);
	profile_diags(c);
	return 0;
}

/* What the exact profile leaves out, said once: unbalanced regions,
 * throttled functions, calls beyond the runtime's depth limit. */
static void profile_diags(analyze_ctx *c)
{
	for (size_t g = 0; g < c->nreg; g++) {
		const instances__region_acc *A = &c->acc[g];
		fold_diag_subject rs = analyze__subject_region(c->reg[g].name);
		if (A->unclosed || A->stray_exit)
			analyze__diag(
			    c, FOLD_DIAG_REGION_UNBALANCED, &rs,
			    ANALYZE_VALUES({"unclosed", "count", (double)A->unclosed},
			                   {"stray_exits", "count", (double)A->stray_exit}),
			    NULL,
			    "region %s: unbalanced enter/exit (%lu entered but never exited, %lu exits "
			    "without enter); "
			    "those calls are left out of its instances",
			    c->reg[g].name, A->unclosed, A->stray_exit);
	}
	for (size_t i = 0; i < c->ntr; i++)
		for (size_t k = 0; k < c->tr[i]->nthr; k++) {
			const ingest__throttle *th = &c->tr[i]->thr[k];
			const char *name = "?";
			if (th->region < c->nmap[i] && c->map[i][th->region] != UINT32_MAX)
				name = c->reg[c->map[i][th->region]].name;
			fold_diag_subject fs = analyze__subject_function(name);
			fs.process = (long)i;
			fs.trace = c->tr[i]->path;
			analyze__diag(
			    c, FOLD_DIAG_FUNCTION_THROTTLED, &fs,
			    ANALYZE_VALUES({"at", "s", ingest__tick_ns(c->tr[i], th->tick) / 1e9},
			                   {"calls", "count", (double)th->calls},
			                   {"mean", "ns", (double)th->mean_ns}),
			    NULL,
			    "function %s was throttled at %.3f s after %llu calls (mean %llu ns): later "
			    "calls are not "
			    "recorded",
			    name, ingest__tick_ns(c->tr[i], th->tick) / 1e9, (unsigned long long)th->calls,
			    (unsigned long long)th->mean_ns);
		}
	/* Calls the runtime left out, beyond the open calls a thread's shadow
	 * stack holds (rt_cyg.c): their time is their deepest recorded caller's. */
	for (size_t i = 0; i < c->ntr; i++) {
		uint64_t n = 0, limit = 0;
		if (!ingest__trace_stat(c->tr[i], "regions.calls_too_deep", &n) || !n)
			continue;
		ingest__trace_stat(c->tr[i], "regions.depth_limit", &limit);
		fold_diag_subject ps = analyze__subject_process(c, i);
		analyze__diag(
		    c, FOLD_DIAG_CALLS_TOO_DEEP, &ps,
		    ANALYZE_VALUES({"calls", "count", (double)n}, {"limit", "count", (double)limit}), NULL,
		    "%s: %llu call(s) of instrumented functions not recorded: more than %llu "
		    "instrumented calls were open on their thread (fold's limit); their time is "
		    "in the exclusive time of the deepest recorded call around them",
		    c->tr[i]->path, (unsigned long long)n, (unsigned long long)limit);
	}
}

static double region_rank_ns(const fold_region_result *r)
{
	return r->throttled && r->est_samples && r->est_total_ns > r->total_ns ? r->est_total_ns
	                                                                       : r->total_ns;
}

static int cmp_region_rank(const void *x, const void *y)
{
	const fold_region_result *a = x, *b = y;
	double ra = region_rank_ns(a), rb = region_rank_ns(b);
	if (ra != rb)
		return ra > rb ? -1 : 1;
	return strcmp(a->name, b->name);
}

/* A function region's mark and estimate from its throttled profile entry;
 * an unfolded one says that throttling, not sampling, is what it lacks. */
static int mark_throttled_region(const fold_analysis *a, fold_region_result *r)
{
	if (r->kind != TRACE_REGION_FUNCTION)
		return 0;
	for (size_t e = 0; e < a->nprofile; e++) {
		const fold_profile_entry *p = &a->profile[e];
		if (!p->throttled || strcmp(p->name, r->name))
			continue;
		r->throttled = 1;
		r->est_total_ns = p->est_inclusive_ns;
		r->est_total_err_ns = p->est_inclusive_err_ns;
		r->est_samples = p->est_samples;
		if (!r->folded) {
			if (analyze__not_folded(
			        r, FOLD_DIAG_THROTTLED,
			        ANALYZE_VALUES({"at", "s", p->throttled_at_ns / 1e9},
			                       {"calls", "count", (double)p->calls}),
			        "throttled at %.3f s after %lu calls, later calls not recorded; "
			        "FOLD_THROTTLE=off records them all",
			        p->throttled_at_ns / 1e9, p->calls))
				return -ENOMEM;
			free(r->reason_common);
			r->reason_common = NULL;
		}
		return 0;
	}
	return 0;
}

int analyze__estimate_throttled(analyze_ctx *c)
{
	fold_analysis *a = c->a;
	int any = 0;
	for (size_t i = 0; i < c->ntr; i++)
		for (size_t k = 0; k < c->tr[i]->nthr; k++) {
			const ingest__throttle *th = &c->tr[i]->thr[k];
			if (th->region >= c->nmap[i] || c->map[i][th->region] == UINT32_MAX)
				continue;
			const char *name = c->reg[c->map[i][th->region]].name;
			double at = ingest__tick_ns(c->tr[i], th->tick);
			for (size_t e = 0; e < a->nprofile; e++) {
				fold_profile_entry *p = &a->profile[e];
				if (strcmp(p->name, name))
					continue;
				if (!p->throttled || at < p->throttled_at_ns)
					p->throttled_at_ns = at;
				p->throttled = 1;
				any = 1;
			}
		}
	if (!any)
		return 0;
	int rc = 0;
	for (size_t e = 0; e < a->nprofile; e++) {
		fold_profile_entry *p = &a->profile[e];
		if (!p->throttled)
			continue;
		rc = attribution__sampled_inclusive(c->attrib, c->tr, c->ntr, p->name, &p->est_inclusive_ns,
		                                    &p->est_samples);
		if (rc)
			return rc;
		/* a count of n samples: relative standard error 1/sqrt(n) */
		p->est_inclusive_err_ns =
		    p->est_samples ? p->est_inclusive_ns / sqrt((double)p->est_samples) : 0;
	}
	qsort(a->profile, a->nprofile, sizeof *a->profile, cmp_profile);
	for (size_t i = 0; i < a->nregions; i++)
		if ((rc = mark_throttled_region(a, &a->regions[i])))
			return rc;
	qsort(a->regions, a->nregions, sizeof *a->regions, cmp_region_rank);
	return 0;
}
