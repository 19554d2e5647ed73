/* json.c: the fold-json document (see json.h and docs/json.md).
 *
 * A small streaming writer: a stack of "first element" flags handles the
 * commas, so each emitter only says what it writes. Large arrays are capped
 * (folded points, instance lists) and the cap is stated in the document.
 */
#define _GNU_SOURCE
#include "json.h"
#include "aggregate.h"
#include "report_text.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fold_version.h"
#include "run_end.h"

#define JSON_MAX_POINTS 2000
#define JSON_MAX_INSTANCES 10000

typedef struct jw {
	FILE *f;
	int first[64];
	int depth;
	int oom; /* a string could not be escaped: the document is incomplete */
} jw;

int report_json_string(FILE *f, const char *s, size_t len)
{
	util_buf b;
	util_buf_init(&b);
	report_esc_json_n(&b, s, len, 0);
	int rc = b.oom ? -ENOMEM : 0;
	if (rc)
		fputs("\"\"", f); /* keeps the document well-formed; the caller fails it */
	else
		fwrite(b.data, 1, b.len, f);
	util_buf_free(&b);
	return rc;
}

static void sep(jw *w)
{
	if (!w->first[w->depth])
		fputc(',', w->f);
	w->first[w->depth] = 0;
}

static void open_(jw *w, char c)
{
	fputc(c, w->f);
	if (w->depth < 63)
		w->depth++;
	w->first[w->depth] = 1;
}

static void close_(jw *w, char c)
{
	fputc(c, w->f);
	if (w->depth > 0)
		w->depth--;
}

static void key(jw *w, const char *k)
{
	sep(w);
	if (report_json_string(w->f, k, strlen(k)))
		w->oom = 1;
	fputc(':', w->f);
}

static void str_raw(jw *w, const char *s)
{
	if (!s)
		fputs("null", w->f);
	else if (report_json_string(w->f, s, strlen(s)))
		w->oom = 1;
}

static void num_raw(jw *w, double v)
{
	if (isfinite(v))
		fprintf(w->f, "%.15g", v);
	else
		fputs("null", w->f);
}

static void kstr(jw *w, const char *k, const char *s)
{
	key(w, k);
	str_raw(w, s);
}
static void knum(jw *w, const char *k, double v)
{
	key(w, k);
	num_raw(w, v);
}
static void kint(jw *w, const char *k, long long v)
{
	key(w, k);
	fprintf(w->f, "%lld", v);
}
static void kbool(jw *w, const char *k, int v)
{
	key(w, k);
	fputs(v ? "true" : "false", w->f);
}
static void kobj(jw *w, const char *k)
{
	key(w, k);
	open_(w, '{');
}
static void karr(jw *w, const char *k)
{
	key(w, k);
	open_(w, '[');
}
static void eobj(jw *w)
{
	sep(w);
	open_(w, '{');
}

static void num_array(jw *w, const char *k, const double *v, size_t n, size_t stride)
{
	if (!v) {
		key(w, k);
		fputs("null", w->f);
		return;
	}
	karr(w, k);
	for (size_t i = 0; i < n; i += stride) {
		sep(w);
		num_raw(w, v[i]);
	}
	close_(w, ']');
}

static void kv_object(jw *w, const char *k, const fold_kv *kv, size_t n)
{
	kobj(w, k);
	for (size_t i = 0; i < n; i++)
		kstr(w, kv[i].key ? kv[i].key : "", kv[i].value);
	close_(w, '}');
}

/* fit_params[] as {name, value, unit} (value a number, or a string for a
 * word), then fit_notes as key -> sentence. */
static void write_fit(jw *w, const fold_region_result *r)
{
	karr(w, "fit_params");
	for (size_t i = 0; i < r->nfit_params; i++) {
		const fold_fit_param *p = &r->fit_params[i];
		eobj(w);
		kstr(w, "name", p->name);
		if (p->kind == FOLD_FIT_WORD)
			kstr(w, "value", p->word);
		else if (p->kind == FOLD_FIT_INTEGER) {
			key(w, "value");
			fprintf(w->f, "%llu", (unsigned long long)p->integer);
		} else
			knum(w, "value", p->value);
		kstr(w, "unit", p->unit ? p->unit : "");
		close_(w, '}');
	}
	close_(w, ']');
	kv_object(w, "fit_notes", r->fit_notes, r->nfit_notes);
}

static void write_process(jw *w, const fold_process *p)
{
	eobj(w);
	kstr(w, "trace", p->trace_path);
	kstr(w, "host", p->host);
	kstr(w, "exe", p->exe);
	kstr(w, "cmdline", p->cmdline);
	kint(w, "pid", p->pid);
	kint(w, "rank", p->rank);
	kint(w, "size", p->size);
	kint(w, "threads", p->nthreads);
	knum(w, "duration_ns", p->duration_ns);
	kstr(w, "end", p->end == FOLD_END_SIGNAL ? "signal" : p->end == FOLD_END_CUT ? "cut" : "normal");
	if (p->end == FOLD_END_SIGNAL)
		kint(w, "end_signal", p->end_signal);
	kbool(w, "exec_replaced", p->exec_replaced);
	kv_object(w, "info", p->info, p->ninfo);
	kobj(w, "stats");
	for (size_t i = 0; i < p->nstats; i++) {
		key(w, p->stats[i].key ? p->stats[i].key : "");
		char *end = NULL;
		const char *v = p->stats[i].value ? p->stats[i].value : "";
		double d = strtod(v, &end);
		if (*v && end && !*end)
			num_raw(w, d);
		else
			str_raw(w, v);
	}
	close_(w, '}');
	karr(w, "salvage");
	for (size_t i = 0; i < p->nsalvage; i++) {
		sep(w);
		str_raw(w, p->salvage_messages[i]);
	}
	close_(w, ']');
	close_(w, '}');
}

static void write_attribution(jw *w, const fold_attribution *t)
{
	eobj(w);
	kstr(w, "name", t->function);
	kstr(w, "file", t->file);
	kint(w, "line", t->line);
	kstr(w, "module", t->module);
	knum(w, "share", t->share);
	kint(w, "samples", (long long)t->samples);
	karr(w, "inline");
	for (size_t i = 0; i < t->ninline; i++) {
		const fold_source_frame *f = &t->inline_chain[i];
		eobj(w);
		kstr(w, "function", f->function);
		kstr(w, "file", f->file);
		kint(w, "line", f->line);
		kstr(w, "call_file", f->call_file);
		kint(w, "call_line", f->call_line);
		close_(w, '}');
	}
	close_(w, ']');
	close_(w, '}');
}

static void write_series(jw *w, const fold_series *s)
{
	eobj(w);
	kstr(w, "name", s->name);
	kstr(w, "unit", s->unit);
	kbool(w, "derived", s->derived);
	if (!s->derived)
		kint(w, "counter_kind", s->counter_kind);
	knum(w, "total_per_instance", s->total_per_instance);
	kstr(w, "boundaries", s->boundaries_estimated ? "estimated" : "measured");
	if (!s->derived) {
		kint(w, "instances_folded", (long long)s->instances_folded);
		kint(w, "instances_skipped", (long long)s->instances_skipped);
	}
	knum(w, "mean_rate", s->mean_rate);
	knum(w, "fit_error", s->fit_error);
	kobj(w, "curve");
	num_array(w, "x", s->fit.x, s->fit.n, 1);
	num_array(w, "cum", s->fit.cum, s->fit.n, 1);
	num_array(w, "value", s->fit.value, s->fit.n, 1);
	if (s->fit.lo && s->fit.hi) {
		num_array(w, "lo", s->fit.lo, s->fit.n, 1);
		num_array(w, "hi", s->fit.hi, s->fit.n, 1);
	}
	close_(w, '}');
	kint(w, "npoints", (long long)s->npoints);
	if (s->npoints && s->px && s->py) {
		size_t stride = (s->npoints + JSON_MAX_POINTS - 1) / JSON_MAX_POINTS;
		if (stride < 1)
			stride = 1;
		kobj(w, "points");
		kint(w, "stride", (long long)stride);
		num_array(w, "x", s->px, s->npoints, stride);
		num_array(w, "y", s->py, s->npoints, stride);
		close_(w, '}');
	}
	close_(w, '}');
}

/* A region's instance groups (docs/json.md, regions[].groups[]). */
static void write_groups(jw *w, const fold_region_result *r)
{
	karr(w, "groups");
	for (size_t i = 0; i < r->ngroups; i++) {
		const fold_group *g = &r->groups[i];
		eobj(w);
		kint(w, "id", g->id);
		kint(w, "instances", (long long)g->instances);
		kint(w, "used", (long long)g->used);
		kint(w, "excluded_outliers", (long long)g->excluded_outliers);
		kint(w, "excluded_other", (long long)g->excluded_other);
		knum(w, "median_duration_ns", g->median_duration_ns);
		knum(w, "mad_duration_ns", g->mad_duration_ns);
		knum(w, "mean_duration_ns", g->mean_duration_ns);
		knum(w, "min_duration_ns", g->min_duration_ns);
		knum(w, "max_duration_ns", g->max_duration_ns);
		kint(w, "samples", (long long)g->samples);
		knum(w, "total_ns", g->total_ns);
		knum(w, "median_cpu_share", g->cpu_share);
		if (g->tail_of >= 0)
			kint(w, "tail_of", g->tail_of);
		else
			kstr(w, "tail_of", NULL);
		close_(w, '}');
	}
	close_(w, ']');
}

/* A diagnostic (docs/json.md, "warnings"): its kind, severity, the subject's
 * fields that apply, the numbers behind it with their units, and the
 * message. */
static void diag_object(jw *w, const fold_warning *d)
{
	const fold_diag_subject *s = &d->subject;
	open_(w, '{');
	kstr(w, "kind", fold_diag_kind_id(d->kind));
	kstr(w, "severity", fold_diag_severity_id(d->severity));
	kobj(w, "subject");
	kstr(w, "type", fold_diag_subject_type_id(s->type));
	if (s->process >= 0)
		kint(w, "process", s->process);
	if (s->rank >= 0)
		kint(w, "rank", s->rank);
	if (s->trace)
		kstr(w, "trace", s->trace);
	if (s->thread >= 0)
		kint(w, "thread", s->thread);
	if (s->region)
		kstr(w, "region", s->region);
	if (s->group >= 0)
		kint(w, "group", s->group);
	if (s->phase >= 0)
		kint(w, "phase", s->phase);
	if (s->counter)
		kstr(w, "counter", s->counter);
	if (s->function)
		kstr(w, "function", s->function);
	if (s->file) {
		kstr(w, "file", s->file);
		kint(w, "line", s->line);
	}
	close_(w, '}');
	kobj(w, "values");
	for (size_t i = 0; i < d->nvalues && i < FOLD_DIAG_MAX_VALUES; i++) {
		kobj(w, d->values[i].name);
		knum(w, "value", d->values[i].value);
		kstr(w, "unit", d->values[i].unit);
		close_(w, '}');
	}
	close_(w, '}');
	if (d->detail)
		kstr(w, "detail", d->detail);
	kstr(w, "message", d->what);
	close_(w, '}');
}

/* Why a region was not folded, as a record, when the analysis gave one. */
static void write_not_folded(jw *w, const fold_region_result *r)
{
	if (!r->not_folded)
		return;
	key(w, "not_folded");
	diag_object(w, r->not_folded);
}

/* A region aggregated in the reports (aggregate.h): its counts and why it
 * was not folded, without groups and instances (docs/json.md). */
static void write_region_aggregated(jw *w, const fold_region_result *r)
{
	eobj(w);
	kstr(w, "name", r->name);
	kint(w, "kind", r->kind);
	kint(w, "instances", (long long)r->instances);
	kint(w, "instances_used", (long long)r->instances_used);
	kint(w, "samples", (long long)r->samples);
	knum(w, "total_ns", r->total_ns);
	knum(w, "mean_duration_ns", r->mean_duration_ns);
	kbool(w, "folded", 0);
	kstr(w, "reason", r->reason);
	write_not_folded(w, r);
	kbool(w, "aggregated", 1);
	close_(w, '}');
}

/* The region's self-check (fold_self_check) as the object "self_check". */
static void write_self_check(jw *w, const fold_self_check *c)
{
	kobj(w, "self_check");
	kbool(w, "done", c->done);
	if (!c->done && c->why_not)
		kstr(w, "why_not", c->why_not);
	if (c->done) {
		kint(w, "instances_a", (long long)c->instances_a);
		kint(w, "instances_b", (long long)c->instances_b);
		kint(w, "phases_a", (long long)c->phases_a);
		kint(w, "phases_b", (long long)c->phases_b);
		knum(w, "boundary", c->boundary);
		knum(w, "rate", c->rate);
		knum(w, "boundary_allowed", c->boundary_allowed);
		knum(w, "rate_allowed", c->rate_allowed);
		kbool(w, "reproducible", c->reproducible);
		knum(w, "duration_shift", c->duration_shift);
	}
	close_(w, '}');
}

/* Phase i of a region, one object of its "phases". */
static void write_phase(jw *w, const fold_phase_result *p, size_t i)
{
	eobj(w);
	knum(w, "start", p->start);
	knum(w, "end", p->end);
	kint(w, "samples", (long long)p->samples);
	kint(w, "pairs_across", (long long)p->pairs_across);
	kint(w, "samples_waited", (long long)p->samples_waited);
	kobj(w, "rates");
	for (size_t k = 0; k < p->nrates; k++)
		knum(w, p->rate_names[k] ? p->rate_names[k] : "", p->rates[k]);
	close_(w, '}');
	karr(w, "start_interval");
	sep(w);
	num_raw(w, i ? p->start_lo : 0);
	sep(w);
	num_raw(w, i ? p->start_hi : 0);
	close_(w, ']');
	kobj(w, "rate_intervals");
	for (size_t k = 0; k < p->nrate_ci && k < p->nrates; k++) {
		karr(w, p->rate_names[k] ? p->rate_names[k] : "");
		sep(w);
		num_raw(w, p->rate_lo[k]);
		sep(w);
		num_raw(w, p->rate_hi[k]);
		close_(w, ']');
	}
	close_(w, '}');
	kbool(w, "gradual", p->gradual);
	if (p->gradual) {
		kobj(w, "rate_from");
		for (size_t k = 0; k < p->nrange; k++)
			knum(w, p->rate_names[k] ? p->rate_names[k] : "", p->rate_from[k]);
		close_(w, '}');
		kobj(w, "rate_to");
		for (size_t k = 0; k < p->nrange; k++)
			knum(w, p->rate_names[k] ? p->rate_names[k] : "", p->rate_to[k]);
		close_(w, '}');
	}
	karr(w, "top_functions");
	for (size_t k = 0; k < p->ntop; k++)
		write_attribution(w, &p->top[k]);
	close_(w, ']');
	close_(w, '}');
}

/* The region's "timeline": its call-depth levels with their spans. */
static void write_timeline(jw *w, const fold_region_result *r)
{
	karr(w, "timeline");
	for (size_t i = 0; i < r->ntimeline; i++) {
		const fold_timeline_level *l = &r->timeline[i];
		eobj(w);
		kint(w, "depth", l->depth);
		karr(w, "spans");
		for (size_t k = 0; k < l->nspans; k++) {
			eobj(w);
			knum(w, "start", l->spans[k].start);
			knum(w, "end", l->spans[k].end);
			kstr(w, "function", l->spans[k].function);
			kstr(w, "file", l->spans[k].file);
			kint(w, "line", l->spans[k].line);
			close_(w, '}');
		}
		close_(w, ']');
		close_(w, '}');
	}
	close_(w, ']');
}

/* The region's instances, at most JSON_MAX_INSTANCES of them, as arrays
 * ("instance_list", "instance_list_truncated"). */
static void write_instance_list(jw *w, const fold_region_result *r)
{
	size_t ni = r->ninst < JSON_MAX_INSTANCES ? r->ninst : JSON_MAX_INSTANCES;
	kbool(w, "instance_list_truncated", ni < r->ninst);
	karr(w, "instance_list");
	for (size_t i = 0; i < ni; i++) {
		const fold_instance_info *in = &r->inst[i];
		sep(w);
		fprintf(w->f, "[");
		num_raw(w, in->start_ns);
		fputc(',', w->f);
		num_raw(w, in->duration_ns);
		fprintf(w->f, ",%u,%ld,%u,%d]", in->thread, in->rank, in->group, in->used);
	}
	close_(w, ']');
}

static void write_region(jw *w, const fold_region_result *r)
{
	eobj(w);
	kstr(w, "name", r->name);
	kint(w, "kind", r->kind);
	kint(w, "instances", (long long)r->instances);
	kint(w, "instances_used", (long long)r->instances_used);
	kint(w, "samples", (long long)r->samples);
	kint(w, "samples_folded", (long long)r->samples_folded);
	knum(w, "total_ns", r->total_ns);
	knum(w, "mean_duration_ns", r->mean_duration_ns);
	knum(w, "folded_mean_duration_ns", r->folded_mean_duration_ns);
	if (r->throttled) {
		/* instances and total_ns are the recorded calls only */
		kbool(w, "throttled", 1);
		kint(w, "estimated_from_samples", (long long)r->est_samples);
		if (r->est_samples) {
			knum(w, "estimated_total_ns", r->est_total_ns);
			knum(w, "estimated_total_err_ns", r->est_total_err_ns);
		}
	}
	kbool(w, "folded", r->folded);
	kstr(w, "reason", r->reason);
	write_not_folded(w, r);
	kint(w, "selected_group", r->selected_group);
	kstr(w, "fit_method", r->fit_method);
	write_fit(w, r);
	kint(w, "bootstrap_replicates", r->bootstrap_replicates);
	write_self_check(w, &r->self_check);
	write_groups(w, r);
	karr(w, "phases");
	for (size_t i = 0; i < r->nphases; i++)
		write_phase(w, &r->phases[i], i);
	close_(w, ']');
	karr(w, "series");
	for (size_t i = 0; i < r->nseries; i++)
		write_series(w, &r->series[i]);
	close_(w, ']');
	write_timeline(w, r);
	write_instance_list(w, r);
	close_(w, '}');
}

static int cmp_idx_caller(const void *x, const void *y, void *arg)
{
	const fold_callpair *p = arg;
	return strcmp(p[*(const size_t *)x].caller, p[*(const size_t *)y].caller);
}

static int cmp_idx_callee(const void *x, const void *y, void *arg)
{
	const fold_callpair *p = arg;
	return strcmp(p[*(const size_t *)x].callee, p[*(const size_t *)y].callee);
}

/* First index in idx whose pair's field equals name (idx sorted by that field). */
static size_t lower(const fold_callpair *p, const size_t *idx, size_t n, const char *name, int by_caller)
{
	size_t lo = 0, hi = n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		const char *v = by_caller ? p[idx[mid]].caller : p[idx[mid]].callee;
		if (strcmp(v, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static void write_profile(jw *w, const fold_analysis *a)
{
	size_t *byc = malloc((a->ncallpairs + 1) * sizeof *byc),
	       *bye = malloc((a->ncallpairs + 1) * sizeof *bye);
	if (byc && bye) {
		for (size_t i = 0; i < a->ncallpairs; i++)
			byc[i] = bye[i] = i;
		qsort_r(byc, a->ncallpairs, sizeof *byc, cmp_idx_caller, a->callpairs);
		qsort_r(bye, a->ncallpairs, sizeof *bye, cmp_idx_callee, a->callpairs);
	}
	karr(w, "profile");
	for (size_t i = 0; i < a->nprofile; i++) {
		const fold_profile_entry *p = &a->profile[i];
		eobj(w);
		kstr(w, "name", p->name);
		kint(w, "kind", p->kind);
		kint(w, "calls", (long long)p->calls);
		knum(w, "inclusive_ns", p->inclusive_ns);
		knum(w, "exclusive_ns", p->exclusive_ns);
		knum(w, "min_ns", p->min_ns);
		knum(w, "mean_ns", p->mean_ns);
		knum(w, "max_ns", p->max_ns);
		if (!strcmp(fold_region_kind_label(p->kind), "function")) {
			knum(w, "hooks_ns", p->hooks_ns);
			knum(w, "hooks_first_ns", p->hooks_first_ns);
		}
		knum(w, "nested_overhead_ns", p->nested_overhead_ns);
		kint(w, "threads", p->nthreads);
		kint(w, "unbalanced", (long long)p->unbalanced);
		if (p->throttled) {
			/* calls and times above are the recorded calls only */
			kbool(w, "throttled", 1);
			knum(w, "throttled_at_s", p->throttled_at_ns / 1e9);
			kint(w, "estimated_from_samples", (long long)p->est_samples);
			if (p->est_samples) {
				knum(w, "estimated_inclusive_ns", p->est_inclusive_ns);
				knum(w, "estimated_inclusive_err_ns", p->est_inclusive_err_ns);
			}
		}
		karr(w, "per_thread");
		for (size_t k = 0; k < p->nper_thread; k++) {
			const fold_profile_thread *t = &p->per_thread[k];
			eobj(w);
			kint(w, "process", t->proc);
			kint(w, "rank", t->rank);
			kint(w, "thread", t->thread);
			kint(w, "calls", (long long)t->calls);
			knum(w, "inclusive_ns", t->inclusive_ns);
			knum(w, "exclusive_ns", t->exclusive_ns);
			knum(w, "min_ns", t->min_ns);
			knum(w, "max_ns", t->max_ns);
			if (!strcmp(fold_region_kind_label(p->kind), "function")) {
				knum(w, "hooks_ns", t->hooks_ns);
				knum(w, "hooks_first_ns", t->hooks_first_ns);
			}
			knum(w, "nested_overhead_ns", t->nested_overhead_ns);
			close_(w, '}');
		}
		close_(w, ']');
		for (int dir = 0; dir < 2 && byc && bye; dir++) {
			const size_t *idx = dir ? bye : byc;
			karr(w, dir ? "callers" : "callees");
			for (size_t k = lower(a->callpairs, idx, a->ncallpairs, p->name, !dir);
			     k < a->ncallpairs; k++) {
				const fold_callpair *cp = &a->callpairs[idx[k]];
				if (strcmp(dir ? cp->callee : cp->caller, p->name))
					break;
				eobj(w);
				kstr(w, "name", dir ? cp->caller : cp->callee);
				kint(w, "calls", (long long)cp->calls);
				knum(w, "inclusive_ns", cp->inclusive_ns);
				close_(w, '}');
			}
			close_(w, ']');
		}
		close_(w, '}');
	}
	close_(w, ']');
	free(byc);
	free(bye);
	karr(w, "callpairs");
	for (size_t i = 0; i < a->ncallpairs; i++) {
		const fold_callpair *cp = &a->callpairs[i];
		eobj(w);
		kstr(w, "caller", cp->caller);
		kstr(w, "callee", cp->callee);
		kint(w, "calls", (long long)cp->calls);
		knum(w, "inclusive_ns", cp->inclusive_ns);
		close_(w, '}');
	}
	close_(w, ']');
}

/* A call tree as a flat array; parent indexes it (-1: a root). */
static void write_tree(jw *w, const char *name, const fold_cct_node *t, size_t n)
{
	karr(w, name);
	for (size_t i = 0; i < n; i++) {
		eobj(w);
		kstr(w, "function", t[i].function);
		kstr(w, "file", t[i].file);
		kint(w, "line", t[i].line);
		kint(w, "self_samples", (long long)t[i].self_samples);
		kint(w, "total_samples", (long long)t[i].total_samples);
		kint(w, "parent", t[i].parent == SIZE_MAX ? -1 : (long long)t[i].parent);
		close_(w, '}');
	}
	close_(w, ']');
}

static void write_hot(jw *w, const char *k, const fold_hot_function *h, size_t n)
{
	karr(w, k);
	for (size_t i = 0; i < n; i++) {
		eobj(w);
		kstr(w, "function", h[i].function);
		kstr(w, "module", h[i].module);
		kstr(w, "file", h[i].file);
		kint(w, "line", h[i].line);
		kint(w, "samples", (long long)h[i].samples);
		kint(w, "line_samples", (long long)h[i].line_samples);
		knum(w, "cpu_ns", h[i].cpu_ns);
		knum(w, "off_cpu_ns", h[i].off_cpu_ns);
		close_(w, '}');
	}
	close_(w, ']');
}

/* Threads with their class, the CPU and wall views, and the imbalance. */
static void write_views(jw *w, const fold_analysis *a)
{
	static const char *const klass[] = {"application", "openmp", "idle_helper"};
	karr(w, "threads");
	for (size_t i = 0; i < a->nthreads; i++) {
		const fold_thread_summary *t = &a->threads[i];
		eobj(w);
		kint(w, "proc", t->proc);
		kint(w, "rank", t->rank);
		kint(w, "stream", t->stream);
		kint(w, "index", t->index);
		kstr(w, "name", t->name);
		kstr(w, "class", klass[t->klass < 3 ? t->klass : 0]);
		kint(w, "samples", (long long)t->samples);
		kint(w, "wait_samples", (long long)t->wait_samples);
		knum(w, "wall_ns", t->wall_ns);
		if (t->cpu_known)
			knum(w, "cpu_ns", t->cpu_ns);
		else
			kstr(w, "cpu_ns", NULL);
		write_hot(w, "top", t->top, t->ntop);
		kstr(w, "top_function", t->top_function);
		close_(w, '}');
	}
	close_(w, ']');
	kbool(w, "cpu_weighted", a->cpu_weighted);
	/* the CPU time of the samples the runtime dropped: a row of hot_cpu */
	knum(w, "dropped_cpu_ns", a->dropped_cpu_ns);
	kint(w, "dropped_cpu_samples", (long long)a->dropped_cpu_samples);
	knum(w, "hot_cpu_total_ns", a->hot_cpu_total_ns);
	kint(w, "hot_samples_total", (long long)a->hot_samples_total);
	write_hot(w, "hot_cpu", a->hot_cpu, a->nhot_cpu);
	write_hot(w, "hot_wall", a->hot_wall, a->nhot_wall);
	karr(w, "imbalance");
	for (size_t i = 0; i < a->nimbalance; i++) {
		const fold_imbalance *m = &a->imbalance[i];
		eobj(w);
		kstr(w, "region", m->region);
		kint(w, "kind", m->kind);
		kstr(w, "over", m->by_thread ? "threads" : "ranks");
		kint(w, "proc", m->proc);
		num_array(w, "values_ns", m->values_ns, m->n, 1);
		karr(w, "who");
		for (size_t k = 0; k < m->n; k++) {
			sep(w);
			num_raw(w, (double)m->who[k]);
		}
		close_(w, ']');
		knum(w, "min_ns", m->min_ns);
		knum(w, "mean_ns", m->mean_ns);
		knum(w, "max_ns", m->max_ns);
		knum(w, "lb", m->lb);
		kint(w, "slowest", m->slowest);
		close_(w, '}');
	}
	close_(w, ']');
}

/* How the run ended, said first: status, and for a signal or a cut who and
 * when, with the sentence the terminal and the report show. */
static void write_run_end(jw *w, const fold_analysis *a)
{
	kobj(w, "run_end");
	kstr(w, "status", report_run_end_status(a));
	const fold_process *p = report_run_end_process(a);
	if (p) {
		char text[512], sig[32];
		report_run_end_text(a, text, sizeof text);
		kstr(w, "trace", p->trace_path);
		kint(w, "pid", p->pid);
		kint(w, "rank", p->rank);
		if (p->end == FOLD_END_SIGNAL) {
			report_signal_name(p->end_signal, sig, sizeof sig);
			kstr(w, "signal", sig);
			kint(w, "signal_number", p->end_signal);
		}
		knum(w, "at_ns", p->duration_ns);
		size_t n = 0;
		for (size_t i = 0; i < a->nprocs; i++)
			n += a->procs[i].end != FOLD_END_NORMAL;
		kint(w, "processes_abnormal", (long long)n);
		kstr(w, "message", text);
	}
	close_(w, '}');
}

static void write_document(jw *w, const fold_analysis *a)
{
	report_aggregate g, *agg = &g;
	if (report_aggregate_regions(a, &g)) {
		w->oom = 1;
		return;
	}
	open_(w, '{');
	kstr(w, "format", "fold-json");
	kint(w, "version", REPORT_JSON_VERSION);
	kstr(w, "generator", "fold " FOLD_VERSION);
	kstr(w, "sample_config", a->sample_config);
	kint(w, "total_samples", (long long)a->total_samples);
	knum(w, "hook_overhead_ns", a->hook_overhead_ns);
	kobj(w, "fold_limits");
	kint(w, "min_instances", a->min_instances);
	kint(w, "min_samples", a->min_samples);
	close_(w, '}');
	kobj(w, "sample_cost");
	kint(w, "samples_compensated", (long long)a->samples_compensated);
	knum(w, "handler_ns", a->sample_handler_ns);
	knum(w, "delivery_ns", a->sample_delivery_ns);
	knum(w, "delivery_before_handler_ns", a->sample_delivery_before_ns);
	kint(w, "delivery_measured_samples", (long long)a->samples_delivery_measured);
	knum(w, "cpu_clock_read_offset_ns", a->sample_cpu_clock_offset_ns);
	if (a->sample_return_ns >= 0) {
		knum(w, "stop_onset_ns", a->sample_stop_onset_ns);
		knum(w, "return_ns", a->sample_return_ns);
	}
	close_(w, '}');
	kobj(w, "trace_writing");
	kint(w, "pauses", (long long)a->trace_writing_pauses);
	knum(w, "ns", a->trace_writing_ns);
	close_(w, '}');
	write_run_end(w, a);
	karr(w, "processes");
	for (size_t i = 0; i < a->nprocs; i++)
		write_process(w, &a->procs[i]);
	close_(w, ']');
	karr(w, "counters");
	for (size_t i = 0; i < a->ncounters; i++) {
		eobj(w);
		kstr(w, "name", a->counters[i].name);
		kint(w, "kind", a->counters[i].kind);
		close_(w, '}');
	}
	close_(w, ']');
	karr(w, "missing_counters");
	for (size_t i = 0; i < a->nmissing; i++) {
		eobj(w);
		kstr(w, "name", a->missing[i].name);
		kstr(w, "reason", a->missing[i].reason);
		close_(w, '}');
	}
	close_(w, ']');
	karr(w, "models_used");
	for (size_t i = 0; i < a->nmodels_used; i++) {
		sep(w);
		str_raw(w, a->models_used[i]);
	}
	close_(w, ']');
	karr(w, "models_skipped");
	for (size_t i = 0; i < a->nmodels_skipped; i++) {
		eobj(w);
		kstr(w, "model", a->models_skipped[i].key);
		kstr(w, "reason", a->models_skipped[i].value);
		close_(w, '}');
	}
	close_(w, ']');
	kobj(w, "regions_aggregated");
	kint(w, "regions", (long long)g.n);
	kint(w, "instances", (long long)g.instances);
	kint(w, "samples", (long long)g.samples);
	knum(w, "total_ns", g.total_ns);
	close_(w, '}');
	karr(w, "regions");
	for (size_t i = 0; i < a->nregions; i++)
		if (report_region_shown(a, agg, i))
			write_region(w, &a->regions[i]);
		else
			write_region_aggregated(w, &a->regions[i]);
	close_(w, ']');
	write_profile(w, a);
	write_tree(w, "call_tree", a->cct, a->ncct);
	write_tree(w, "bottom_up_tree", a->bottom_up, a->nbottom_up);
	karr(w, "lines");
	for (size_t i = 0; i < a->nlines; i++)
		write_attribution(w, &a->lines[i]);
	close_(w, ']');
	write_views(w, a);
	karr(w, "warnings");
	for (size_t i = 0; i < a->nwarnings; i++) {
		sep(w);
		diag_object(w, &a->warnings[i]);
	}
	close_(w, ']');
	close_(w, '}');
	fputc('\n', w->f);
}

int report_json_write(const fold_analysis *a, const char *path, char *err, size_t errlen)
{
	jw w;
	memset(&w, 0, sizeof w);
	w.first[0] = 1;
	if (!path || !strcmp(path, "-")) {
		w.f = stdout;
		write_document(&w, a);
		if (w.oom) {
			snprintf(err, errlen, "stdout: out of memory while writing JSON");
			return -ENOMEM;
		}
		if (fflush(stdout) || ferror(stdout)) {
			snprintf(err, errlen, "stdout: write error while writing JSON: %s", strerror(errno));
			return -EIO;
		}
		return 0;
	}
	report_out o;
	int rc = report_out_open(&o, path, err, errlen);
	if (rc)
		return rc;
	w.f = o.f;
	write_document(&w, a);
	if (w.oom) {
		report_out_close(&o, 0, path, err, errlen);
		snprintf(err, errlen, "%s: out of memory while writing JSON", path);
		return -ENOMEM;
	}
	return report_out_close(&o, 1, path, err, errlen);
}
