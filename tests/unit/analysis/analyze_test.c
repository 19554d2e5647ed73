/* analyze_test.c: what the analysis tests share (analyze_test.h): a
 * synthetic trace folded, regions, rates and fit notes looked up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "analyze_ctx.h"
#include "analyze_test.h"
#include "contradicted_points.h"
#include "json.h"
#include "json_check.h"
#include "region_work.h"
#include "synth.h"
#include "trace_format.h"
#include "trace_writer.h"

char trace[128], json[128];

int setup(void **state)
{
	(void)state;
	snprintf(trace, sizeof trace, "/tmp/fold-test-analyze-%d.trc", (int)getpid());
	snprintf(json, sizeof json, "/tmp/fold-test-analyze-%d.json", (int)getpid());
	return 0;
}

int teardown(void **state)
{
	(void)state;
	unlink(trace);
	unlink(json);
	return 0;
}

void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

const fold_region_result *region(const fold_analysis *a, const char *name)
{
	for (size_t i = 0; i < a->nregions; i++)
		if (!strcmp(a->regions[i].name, name))
			return &a->regions[i];
	fail_msg("region %s not found", name);
	return NULL;
}

/* The index of rate name in phase p (p->nrates when it has none). */
size_t rate_index(const fold_phase_result *p, const char *name)
{
	size_t k = 0;
	while (k < p->nrates && strcmp(p->rate_names[k], name))
		k++;
	return k;
}

double rate_of(const fold_phase_result *p, const char *name)
{
	for (size_t k = 0; k < p->nrates; k++)
		if (!strcmp(p->rate_names[k], name))
			return p->rates[k];
	fail_msg("rate %s not in phase", name);
	return NAN;
}

/* Writes c's synthetic trace and folds it with fit (NULL: the default,
 * Kriging) (min_samples 0: the default); the analysis must succeed. */
fold_analysis *fold_synth_fit(const synth_config *c, unsigned min_samples, const char *fit)
{
	assert_int_equal(synth_write(c, trace, NULL), 0);
	fold_options o;
	fold_options_init(&o);
	if (min_samples)
		o.min_samples = min_samples;
	o.fit = fit;
	o.diag = quiet;
	fold_analysis *a = NULL;
	char err[256];
	const char *paths[] = {trace};
	assert_int_equal(fold_analyze(paths, 1, &o, &a, err, sizeof err), 0);
	return a;
}

/* ... with the piecewise-linear fit. */
fold_analysis *fold_synth(const synth_config *c, unsigned min_samples)
{
	return fold_synth_fit(c, min_samples, "pwlr");
}

/* Does some warning of a contain text? */
int warned_about(const fold_analysis *a, const char *text)
{
	for (size_t i = 0; i < a->nwarnings; i++)
		if (strstr(a->warnings[i].what, text))
			return 1;
	return 0;
}

const fold_warning *warning_of_kind(const fold_analysis *a, unsigned kind)
{
	for (size_t i = 0; i < a->nwarnings; i++)
		if (a->warnings[i].kind == kind)
			return &a->warnings[i];
	return NULL;
}

double diag_value(const fold_warning *d, const char *name)
{
	const fold_diag_value *v = fold_diag_value_of(d, name);
	if (!v)
		fail_msg("the %s diagnostic has no value %s", fold_diag_kind_id(d->kind), name);
	return v->value;
}

/* 20000 instances of 50 us, 50 us apart, 1 ms sampling, each sample
 * costing the program 26 us (8 us of it the handler, whose timestamp lags
 * its entry by 2 us): the short region of issue 13 on a VM. */
void short_region_with_sample_cost(synth_config *c, uint64_t seed)
{
	synth_config_init(c);
	c->instances = 20000;
	c->groups[0].duration_ns = 5e4;
	c->gap_ns = 5e4;
	c->period_ns = 1e6;
	c->noise = 0.02;
	c->sample_cost_ns = 26e3;
	c->sample_handler_ns = 8e3;
	c->sample_lag_ns = 2e3;
	c->seed = seed;
}

void check_two_phases(const fold_region_result *r)
{
	assert_true(r->folded);
	assert_int_equal(r->nphases, 2);
	assert_true(fabs(r->phases[0].end - 0.37) < 0.01);
	assert_true(fabs(rate_of(&r->phases[0], "app::work") / 1e9 - 1) < 0.02);
	assert_true(fabs(rate_of(&r->phases[1], "app::work") / 3e8 - 1) < 0.02);
	assert_true(fabs(rate_of(&r->phases[0], "cpu_time") - 1.0) < 0.03);
	assert_true(fabs(rate_of(&r->phases[1], "cpu_time") - 0.5) < 0.03);
}

const fold_series *series_of(const fold_region_result *r, const char *name)
{
	for (size_t k = 0; k < r->nseries; k++)
		if (!strcmp(r->series[k].name, name))
			return &r->series[k];
	return NULL;
}

/* The value of fit parameter key of region r, or NULL. */
/* The fit note called key (a sentence), or the word of the parameter so
 * named; NULL when there is neither. */
const char *fit_param_of(const fold_region_result *r, const char *key)
{
	for (size_t i = 0; i < r->nfit_notes; i++)
		if (!strcmp(r->fit_notes[i].key, key))
			return r->fit_notes[i].value;
	for (size_t i = 0; i < r->nfit_params; i++)
		if (!strcmp(r->fit_params[i].name, key) && r->fit_params[i].kind == FOLD_FIT_WORD)
			return r->fit_params[i].word;
	return NULL;
}

/* Whether the fits recorded a parameter or a note called key. */
int fit_has(const fold_region_result *r, const char *key)
{
	for (size_t i = 0; i < r->nfit_params; i++)
		if (!strcmp(r->fit_params[i].name, key))
			return 1;
	return fit_param_of(r, key) != NULL;
}

/* 400 instances of 1 ms; a regular competitor preempts 70% of them for
 * exactly 2 ms. */
void stretched_by_a_competitor(synth_config *c)
{
	synth_config_init(c);
	c->instances = 400;
	c->preempt = 0.7;
	c->preempt_mean_ns = 2e6;
	c->preempt_fixed = 1;
	c->noise = 0.02;
}

void hand_record_init(hand_record *h, uint64_t seed)
{
	enum { NI = 100, NP = 20 };
	memset(h, 0, sizeof *h);
	fold_options_init(&h->opt);
	h->c = (analyze_ctx){.opt = &h->opt, .a = &h->a};
	pthread_mutex_init(&h->c.warn_lock, NULL);
	for (size_t i = 0; i < NI; i++) {
		h->inst[i].used = 1;
		h->inst[i].dur_ns = 1e6 * (1 + 0.05 * sin((double)i));
		h->inst[i].id = (uint32_t)i;
	}
	h->acc = (instances__region_acc){.inst = h->inst, .ninst = NI};
	h->group = (fold_group){.cpu_share = 0.5};
	h->r = (fold_region_result){
	    .name = "r", .groups = &h->group, .ngroups = 1, .instances_used = NI, .samples_folded = NI * NP};
	series_work *sw = calloc(1, sizeof *sw);
	assert_non_null(sw);
	folding__folded *f = &sw->f;
	f->x = malloc(NI * NP * sizeof *f->x);
	f->y = malloc(NI * NP * sizeof *f->y);
	f->inst = malloc(NI * NP * sizeof *f->inst);
	assert_true(f->x && f->y && f->inst);
	for (size_t i = 0; i < NI; i++)
		for (size_t j = 0; j < NP; j++) {
			double x = ((double)j + 0.5 + 0.3 * sin((double)(i * NP + j))) / NP;
			double y = x < 0.4 ? 2 * x : 0.8 + (x - 0.4) / 3;
			f->x[f->n] = x;
			seed = seed * 6364136223846793005ull + 1442695040888963407ull;
			f->y[f->n] = y + 0.01 * ((double)(seed >> 11) / 9007199254740992.0 - 0.5);
			f->inst[f->n++] = (uint32_t)i;
		}
	f->ninst = f->nexact = NI;
	f->sum_total = 1e6 * NI;
	f->sum_dur_ns = 1e6 * NI;
	sw->skind = FOLD__SER_COUNTER;
	sw->name = strdup("ctr");
	sw->unit = "events/s";
	sw->scale = sw->rscale = 1e9;
	sw->rscale_rel = NAN;
	assert_non_null(sw->name);
	h->w = (region_work){.acc = &h->acc, .r = &h->r, .sw = sw, .nsw = 1};
}

void hand_record_free(hand_record *h)
{
	region__work_free(&h->w);
	for (size_t i = 0; i < h->a.nwarnings; i++)
		fold_diag_free(&h->a.warnings[i]);
	free(h->a.warnings);
	pthread_mutex_destroy(&h->c.warn_lock);
}
