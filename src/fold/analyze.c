/* analyze.c: fold_analyze() (see analyze.h), the analysis from trace files
 * to a fold_analysis, as a sequence of modules sharing an analyze_ctx:
 *
 * load traces (files in parallel, ingest.c) -> run metadata (run_meta.c) ->
 * regions matched by name across processes (region_match.c) -> instances
 * and the exact profile (instances.c, profile.c) -> the samples' own cost
 * taken out of what is folded (perturb.c) -> every region through
 * the per-region pipeline (region_pipeline.c), in parallel on the worker
 * pool (fold_regions.c) -> whole-run attribution -> threads classed, CPU
 * and wall views (threads_class.c) -> imbalance (imbalance.c); regions
 * ranked by total time. Diagnostics are collected along the way: this file
 * is their one sink (analyze__diag), below every stage.
 */
#define _GNU_SOURCE
#include "analyze.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"
#include "fit.h"
#include "programs.h"
#include "own_cost.h"
#include "threads_class.h"

void fold_options_init(fold_options *opt)
{
	memset(opt, 0, sizeof *opt);
	opt->group = -1;
	opt->fit = "kriging";
	opt->outlier_k = 3.0;
	opt->grid = 200;
	opt->min_instances = 3;
	opt->min_samples = 20;
	opt->seed = 1;
}

static _Thread_local size_t warn_scope;

void analyze__warn_scope(size_t queue_place)
{
	warn_scope = queue_place;
}

static char *dup_or_null(const char *s, int *oom)
{
	char *d = s ? util_strdup(s) : NULL;
	if (s && !d)
		*oom = 1;
	return d;
}

/* d's subject and detail copied from the caller's; 0 or -ENOMEM. */
static int own_strings(fold_warning *d, const fold_diag_subject *s, const char *detail)
{
	int oom = 0;
	d->subject = *s;
	d->subject.trace = dup_or_null(s->trace, &oom);
	d->subject.region = dup_or_null(s->region, &oom);
	d->subject.counter = dup_or_null(s->counter, &oom);
	d->subject.function = dup_or_null(s->function, &oom);
	d->subject.file = dup_or_null(s->file, &oom);
	d->detail = dup_or_null(detail, &oom);
	return oom ? -ENOMEM : 0;
}

static void diag_v(analyze_ctx *c, unsigned kind, const fold_diag_subject *subject,
                   const fold_diag_value *values, const char *detail, const char *fmt, va_list ap)
{
	fold_warning d;
	memset(&d, 0, sizeof d);
	d.kind = kind < FOLD_DIAG_NKINDS ? kind : FOLD_DIAG_UNCLASSIFIED;
	d.severity = fold_diag_kind_severity(d.kind);
	d.format = fmt;
	for (; values && values->name && d.nvalues < FOLD_DIAG_MAX_VALUES; values++)
		d.values[d.nvalues++] = *values;
	d.what = util_vasprintf(fmt, ap);
	if (!d.what || own_strings(&d, subject, detail)) {
		fold_diag_free(&d);
		return;
	}
	const char *name = d.subject.function ? d.subject.function : d.subject.region;
	const char *at = name && *name ? strstr(d.what, name) : NULL;
	if (at) {
		d.name_at = (size_t)(at - d.what);
		d.name_len = strlen(name);
	}
	pthread_mutex_lock(&c->warn_lock);
	fold_analysis *a = c->a;
	if (util_grow((void **)&a->warnings, &c->cap_warn, a->nwarnings + 1, sizeof *a->warnings) == 0 &&
	    util_grow((void **)&c->warn_order, &c->cap_warn_order, a->nwarnings + 1, sizeof *c->warn_order) ==
	        0) {
		c->warn_order[a->nwarnings] = warn_scope;
		a->warnings[a->nwarnings++] = d;
	} else {
		fold_diag_free(&d);
	}
	pthread_mutex_unlock(&c->warn_lock);
}

void analyze__diag(analyze_ctx *c, unsigned kind, const fold_diag_subject *subject,
                   const fold_diag_value *values, const char *detail, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fold_diag_subject none = fold_diag_subject_none();
	diag_v(c, kind, subject ? subject : &none, values, detail, fmt, ap);
	va_end(ap);
}

fold_diag_subject analyze__subject_process(const analyze_ctx *c, size_t i)
{
	fold_diag_subject s = fold_diag_subject_none();
	s.type = FOLD_SUBJECT_PROCESS;
	s.process = (long)i;
	s.trace = i < c->ntr ? (char *)c->tr[i]->path : NULL;
	return s;
}

fold_diag_subject analyze__subject_thread(const analyze_ctx *c, size_t i, unsigned stream)
{
	fold_diag_subject s = analyze__subject_process(c, i);
	s.type = FOLD_SUBJECT_THREAD;
	s.thread = (long)stream;
	return s;
}

fold_diag_subject analyze__subject_region(const char *name)
{
	fold_diag_subject s = fold_diag_subject_none();
	s.type = FOLD_SUBJECT_REGION;
	s.region = (char *)name;
	return s;
}

fold_diag_subject analyze__subject_function(const char *name)
{
	fold_diag_subject s = fold_diag_subject_none();
	s.type = FOLD_SUBJECT_FUNCTION;
	s.function = (char *)name;
	return s;
}

int analyze__not_folded(fold_region_result *r, unsigned kind, const fold_diag_value *values, const char *fmt,
                        ...)
{
	fold_warning *d = calloc(1, sizeof *d);
	if (!d)
		return -ENOMEM;
	d->kind = kind < FOLD_DIAG_NKINDS ? kind : FOLD_DIAG_UNCLASSIFIED;
	d->severity = fold_diag_kind_severity(d->kind);
	d->format = fmt;
	for (; values && values->name && d->nvalues < FOLD_DIAG_MAX_VALUES; values++)
		d->values[d->nvalues++] = *values;
	va_list ap;
	va_start(ap, fmt);
	d->what = util_vasprintf(fmt, ap);
	va_end(ap);
	fold_diag_subject s = analyze__subject_region(r->name);
	char *reason = d->what ? util_strdup(d->what) : NULL;
	if (!reason || own_strings(d, &s, NULL)) {
		free(reason);
		fold_diag_free(d);
		free(d);
		return -ENOMEM;
	}
	free(r->reason);
	r->reason = reason;
	if (r->not_folded)
		fold_diag_free(r->not_folded);
	free(r->not_folded);
	r->not_folded = d;
	return 0;
}

/* Every record about a process names its rank (a->procs is filled after
 * the first records were said). */
static void diag_ranks(fold_analysis *a)
{
	for (size_t i = 0; i < a->nwarnings; i++) {
		fold_diag_subject *s = &a->warnings[i].subject;
		if (s->process >= 0 && (size_t)s->process < a->nprocs)
			s->rank = a->procs[s->process].rank;
	}
}

/* Stable: by queue place, then the order they were said in. */
static int cmp_warn_order(const void *x, const void *y)
{
	const size_t *a = x, *b = y; /* {queue place, position} */
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

void analyze__warn_sort(analyze_ctx *c, size_t from)
{
	fold_analysis *a = c->a;
	size_t n = a->nwarnings > from ? a->nwarnings - from : 0;
	size_t *key = n ? malloc(n * 2 * sizeof *key) : NULL;
	fold_warning *w = n ? malloc(n * sizeof *w) : NULL;
	if (key && w) { /* without memory the order stays as said */
		for (size_t i = 0; i < n; i++) {
			key[2 * i] = c->warn_order[from + i];
			key[2 * i + 1] = i;
		}
		qsort(key, n, 2 * sizeof *key, cmp_warn_order);
		for (size_t i = 0; i < n; i++)
			w[i] = a->warnings[from + key[2 * i + 1]];
		for (size_t i = 0; i < n; i++) {
			a->warnings[from + i] = w[i];
			c->warn_order[from + i] = key[2 * i];
		}
	}
	free(key);
	free(w);
}

void analyze__progress(analyze_ctx *c, double f, const char *what)
{
	if (c->opt->progress)
		c->opt->progress(c->opt->progress_arg, f, what);
}

static void default_diag(void *arg, const char *msg)
{
	(void)arg;
	fputs("fold: ", stderr);
	util_fput_term(stderr, msg); /* names from the traces */
	fputc('\n', stderr);
}

/* The programs the traces are of (c->prog, c->nprog, c->main_prog), and
 * the diagnostics of more than one. 0 or -ENOMEM. */
static int number_programs(analyze_ctx *c)
{
	c->prog = calloc(c->ntr, sizeof *c->prog);
	if (!c->prog)
		return -ENOMEM;
	c->nprog = programs__number(c->tr, c->ntr, c->prog);
	c->main_prog = programs__main(c->tr, c->prog, c->ntr, c->nprog);
	if (c->nprog > 1 && c->opt->allow_mixed)
		analyze__diag(
		    c, FOLD_DIAG_PROGRAMS_MIXED, NULL,
		    ANALYZE_VALUES({"programs", "count", (double)c->nprog}), NULL,
		    "traces of %zu different programs analysed together (--allow-mixed): the regions of "
		    "all but %s are kept apart as \"name [program]\"; the call trees and hot functions "
		    "merge functions of the same name",
		    c->nprog, programs__label(c->tr[programs__first(c->prog, c->ntr, c->main_prog)]));
	else if (c->nprog > 1)
		for (size_t i = 0; i < c->ntr; i++) {
			if (c->prog[i] == c->main_prog)
				continue;
			const char *exe = c->tr[i]->facts.exe;
			fold_diag_subject s = analyze__subject_process(c, i);
			analyze__diag(c, FOLD_DIAG_OTHER_PROGRAM, &s, NULL, programs__label(c->tr[i]),
			              "%s: a trace of another program of the same run (%s), analysed with "
			              "it: its regions are kept apart as \"name [%s]\"",
			              c->tr[i]->path, exe ? exe : "?", programs__label(c->tr[i]));
		}
	return 0;
}

/* Each trace's region instances (into c->acc) and the call pairs of its
 * hooks; the run's hook overhead and sample count. 0 or a negative errno. */
static int build_instances(analyze_ctx *c, instances__callpairs *pairs)
{
	int rc;
	c->acc = calloc(c->nreg + 1, sizeof *c->acc);
	if (!c->acc)
		return -ENOMEM;
	for (size_t i = 0; i < c->ntr; i++) {
		instances__hook_cost h = analyze__hook_cost(c->tr[i]);
		if (h.pair_ns > 0)
			c->a->hook_overhead_ns = h.pair_ns;
		rc =
		    instances__build(c->tr[i], (unsigned)i, c->map[i], c->nmap[i], c->acc, c->nreg, h, pairs);
		if (rc)
			return rc;
		for (size_t t = 0; t < c->tr[i]->nthreads; t++)
			c->a->total_samples += c->tr[i]->threads[t].nsmp;
	}
	return 0;
}

/* The views over the folded regions: global attribution, bottom-up, the
 * throttling estimate, thread classes, imbalance, and their diagnostics.
 * 0 or a negative errno. */
static int global_views(analyze_ctx *c)
{
	int rc;
	if ((rc = attribution__global(c->attrib, c->tr, c->ntr, c->a)) ||
	    (rc = fold_analysis_bottom_up(c->a)) || (rc = analyze__estimate_throttled(c)))
		return rc;
	if ((rc = threads__classify(c->attrib, c->tr, c->ntr, c->a)) || (rc = imbalance__compute(c->a)))
		return rc;
	own_cost__warn(c);
	diag_ranks(c->a);
	return 0;
}

/* Frees what the analysis context holds (but c->a) and the call pairs. */
static void ctx_free(analyze_ctx *c, instances__callpairs *pairs)
{
	if (c->tr)
		for (size_t i = 0; i < c->ntr; i++)
			ingest__trace_free(c->tr[i]);
	free(c->tr);
	free(c->prog);
	if (c->acc)
		for (size_t g = 0; g < c->nreg; g++)
			instances__region_acc_free(&c->acc[g]);
	free(c->acc);
	analyze__regions_free(c);
	instances__callpairs_free(pairs);
	models__free(c->models);
	attribution__free(c->attrib);
	free(c->warn_order);
	free(c->ctr_ids);
	pthread_mutex_destroy(&c->warn_lock);
}

int fold_analyze(const char *const *paths, size_t npaths, const fold_options *opt_in, fold_analysis **out,
                 char *err, size_t errlen)
{
	int rc;
	fold_options defaults;
	const fold_options *opt = opt_in;
	if (!opt) {
		fold_options_init(&defaults);
		opt = &defaults;
	}
	*out = NULL;
	if (errlen)
		err[0] = 0;
	if (!npaths) {
		snprintf(err, errlen, "no trace file given");
		return -EINVAL;
	}
	if (opt->fit && !fit__find(opt->fit)) {
		snprintf(err, errlen, "--fit %s: expected \"kriging\" or \"pwlr\"", opt->fit);
		return -EINVAL;
	}
	/* GSL's default handler aborts the process on a singular matrix; every
	 * fit checks return codes instead. Set once, before any worker starts. */
	gsl_set_error_handler_off();
	analyze_ctx c;
	memset(&c, 0, sizeof c);
	c.opt = opt;
	pthread_mutex_init(&c.warn_lock, NULL);
	trace_diag_fn diag = opt->diag ? opt->diag : default_diag;
	instances__callpairs pairs;
	memset(&pairs, 0, sizeof pairs);
	c.a = calloc(1, sizeof *c.a);
	if (!c.a) {
		rc = -ENOMEM;
		goto fail;
	}
	c.a->min_instances = opt->min_instances;
	c.a->sample_return_ns = -1; /* no stop probe until a trace has one (perturb.c) */
	c.a->min_samples = opt->min_samples;
	analyze__progress(&c, 0.0, "reading traces");
	rc = ingest__trace_load_many(paths, npaths, analyze__worker_count(opt), &c.tr, diag, opt->diag_arg,
	                             err, errlen);
	if (rc)
		goto fail;
	c.ntr = npaths;
	if ((rc = programs__check(c.tr, c.ntr, opt->allow_mixed, err, errlen)))
		goto fail;
	if ((rc = number_programs(&c)))
		goto fail_nomem;
	analyze__progress(&c, 0.3, "instances");
	if ((rc = analyze__fill_processes(&c)) || (rc = analyze__fill_counters(&c)))
		goto fail_nomem;
	if ((rc = analyze__check_recovered(&c, err, errlen)))
		goto fail;
	rc = models__load(opt->share_dir, &c.models, diag, opt->diag_arg);
	if (rc)
		goto fail_nomem;
	if ((rc = models__classify(c.models, c.a)))
		goto fail_nomem;
	rc = attribution__new(&c.attrib, c.tr, c.ntr, diag, opt->diag_arg);
	if (rc)
		goto fail_nomem;
	if ((rc = analyze__map_regions(&c)))
		goto fail_nomem;
	if ((rc = analyze__check_region(&c, paths, npaths, err, errlen)))
		goto fail;
	if ((rc = build_instances(&c, &pairs)))
		goto fail_nomem;
	if ((rc = analyze__build_profile(&c, &pairs)) || (rc = perturb__compensate_samples(&c)))
		goto fail_nomem;
	analyze__progress(&c, 0.5, "folding");
	if ((rc = analyze__fold_regions(&c)))
		goto fail_nomem;
	if ((rc = global_views(&c)))
		goto fail_nomem;
	analyze__progress(&c, 1.0, "done");
	*out = c.a;
	c.a = NULL;
	rc = 0;
	goto cleanup;
fail_nomem:
	if (errlen && (!err[0] || rc == -ENOMEM))
		snprintf(err, errlen, "analysis failed: %s", strerror(-rc));
fail:
	fold_analysis_free(c.a);
	c.a = NULL;
cleanup:
	ctx_free(&c, &pairs);
	return rc;
}
