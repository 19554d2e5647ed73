/* analyze.c: the analysis pipeline behind fold_analyze() (see analyze.h).
 *
 * load traces (files in parallel) -> run metadata -> regions matched by name
 * across processes -> instances and exact profile -> per region: grouping and
 * outliers, folding of every counter (and CPU time), piecewise-linear phases,
 * the chosen fit's curves, derived metrics from the model files, source
 * attribution -> warnings -> regions ranked by total time.
 *
 * Regions are folded in parallel (one worker per core); each worker writes
 * only its own fold_region_result and reads the loaded traces.
 */
#define _GNU_SOURCE
#include "analyze.h"
#include "fold_util.h"

#include <errno.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attribution.h"
#include "folding.h"
#include "grouping.h"
#include "ingest.h"
#include "instances.h"
#include "kriging.h"
#include "models.h"
#include "pwlr.h"

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

/* ------------------------------------------------------------------------ */

typedef struct gregion {
	char *name;
	unsigned kind;
	uint64_t address;
} gregion;

typedef struct ctx {
	const fold_options *opt;
	ingest__trace **tr;
	size_t ntr;
	fold_analysis *a;
	gregion *reg;
	size_t nreg, cap_reg;
	uint32_t **map; /* per trace: region id -> global index */
	size_t *nmap;
	fold__region_acc *acc;
	fold__models *models;
	fold__attrib *attrib;
	pthread_mutex_t warn_lock;
	size_t cap_warn;
	/* work queue of regions to fold */
	size_t *todo;
	size_t ntodo, next;
	pthread_mutex_t q_lock;
	int rc;
} ctx;

static char *xstrdup(const char *s)
{
	return strdup(s ? s : "");
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s;
}

static void warn(ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void warn(ctx *c, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	if (!s)
		return;
	pthread_mutex_lock(&c->warn_lock);
	fold_analysis *a = c->a;
	if (fold__grow((void **)&a->warnings, &c->cap_warn, a->nwarnings + 1, sizeof *a->warnings) == 0)
		a->warnings[a->nwarnings++].what = s;
	else
		free(s);
	pthread_mutex_unlock(&c->warn_lock);
}

static void progress(ctx *c, double f, const char *what)
{
	if (c->opt->progress)
		c->opt->progress(c->opt->progress_arg, f, what);
}

/* --- run metadata --- */

static int fill_processes(ctx *c)
{
	fold_analysis *a = c->a;
	a->procs = calloc(c->ntr, sizeof *a->procs);
	if (!a->procs)
		return -ENOMEM;
	a->nprocs = c->ntr;
	for (size_t i = 0; i < c->ntr; i++) {
		const ingest__trace *t = c->tr[i];
		fold_process *p = &a->procs[i];
		p->trace_path = xstrdup(t->path);
		p->info = calloc(t->ninfo + 1, sizeof *p->info);
		p->stats = calloc(t->nstats + 1, sizeof *p->stats);
		p->salvage_messages = calloc(t->nsalvage + 1, sizeof *p->salvage_messages);
		if (!p->trace_path || !p->info || !p->stats || !p->salvage_messages)
			return -ENOMEM;
		for (size_t k = 0; k < t->ninfo; k++) {
			p->info[k].key = xstrdup(t->info[k].key);
			p->info[k].value = xstrdup(t->info[k].value);
			p->ninfo++;
		}
		for (size_t k = 0; k < t->nstats; k++) {
			p->stats[k].key = xstrdup(t->stats[k].key);
			p->stats[k].value = xasprintf("%llu", (unsigned long long)t->stats[k].value);
			p->nstats++;
		}
		for (size_t k = 0; k < t->nsalvage; k++)
			p->salvage_messages[p->nsalvage++] = xstrdup(t->salvage[k]);
		/* host/exe/cmdline point into info: the last value of each key. */
		for (size_t k = 0; k < p->ninfo; k++) {
			if (!strcmp(p->info[k].key, "host"))
				p->host = p->info[k].value;
			else if (!strcmp(p->info[k].key, "exe"))
				p->exe = p->info[k].value;
			else if (!strcmp(p->info[k].key, "cmdline"))
				p->cmdline = p->info[k].value;
		}
		const char *v;
		p->pid = (v = ingest__trace_info(t, "pid")) ? strtol(v, NULL, 10) : -1;
		p->rank = (v = ingest__trace_info(t, "mpi.rank")) ? strtol(v, NULL, 10) : -1;
		p->size = (v = ingest__trace_info(t, "mpi.size")) ? strtol(v, NULL, 10) : -1;
		p->nthreads = (unsigned)t->nthreads;
		p->duration_ns = ingest__tick_ns(t, t->max_tick);
		if (p->duration_ns < 0)
			p->duration_ns = 0;
		for (size_t k = 0; k < t->nstats; k++)
			if (!strncmp(t->stats[k].key, "samples.dropped.", 16) && t->stats[k].value)
				warn(c, "%s: %llu samples dropped (%s)", t->path,
				     (unsigned long long)t->stats[k].value, t->stats[k].key + 16);
		if (t->nsalvage)
			warn(c,
			     "%s: the trace was damaged; %zu problem(s) while reading it (see the run "
			     "section)",
			     t->path, t->nsalvage);
		if (t->nclock < 2 && !ingest__trace_info(t, "clock.tick_hz") && t->nthreads)
			warn(c,
			     "%s: fewer than two CLOCK records and no clock.tick_hz; ticks taken as "
			     "nanoseconds",
			     t->path);
	}
	/* Sampling configuration, from the first trace that says. */
	for (size_t i = 0; i < c->ntr && !a->sample_config; i++) {
		const ingest__trace *t = c->tr[i];
		const char *src = ingest__trace_info(t, "sample.source");
		if (!src)
			continue;
		const char *ev = ingest__trace_info(t, "sample.event"),
		           *per = ingest__trace_info(t, "sample.period"),
		           *jit = ingest__trace_info(t, "sample.jitter");
		a->sample_config =
		    xasprintf("%s%s%s%s%s%s%s", src, ev ? " " : "", ev ? ev : "", per ? " period " : "",
		              per ? per : "", jit ? " jitter " : "", jit ? jit : "");
	}
	return 0;
}

static int fill_counters(ctx *c)
{
	fold_analysis *a = c->a;
	size_t cap = 0, capm = 0;
	for (size_t i = 0; i < c->ntr; i++) {
		const ingest__trace *t = c->tr[i];
		for (size_t k = 0; k < t->nctr; k++) {
			size_t j;
			for (j = 0; j < a->ncounters; j++)
				if (!strcmp(a->counters[j].name, t->ctr[k].name))
					break;
			if (j < a->ncounters)
				continue;
			if (fold__grow((void **)&a->counters, &cap, a->ncounters + 1, sizeof *a->counters))
				return -ENOMEM;
			a->counters[a->ncounters].name = xstrdup(t->ctr[k].name);
			a->counters[a->ncounters].kind = t->ctr[k].kind;
			a->ncounters++;
		}
		for (size_t k = 0; k < t->nmissing; k++) {
			size_t j;
			for (j = 0; j < a->nmissing; j++)
				if (!strcmp(a->missing[j].name, t->missing[k].key))
					break;
			if (j < a->nmissing)
				continue;
			if (fold__grow((void **)&a->missing, &capm, a->nmissing + 1, sizeof *a->missing))
				return -ENOMEM;
			a->missing[a->nmissing].name = xstrdup(t->missing[k].key);
			a->missing[a->nmissing].reason = xstrdup(t->missing[k].value);
			a->nmissing++;
		}
	}
	return 0;
}

/* --- regions --- */

static int region_index(ctx *c, const char *name, unsigned kind, uint64_t address, uint32_t *out)
{
	for (size_t i = 0; i < c->nreg; i++)
		if (!strcmp(c->reg[i].name, name)) {
			*out = (uint32_t)i;
			return 0;
		}
	if (fold__grow((void **)&c->reg, &c->cap_reg, c->nreg + 1, sizeof *c->reg))
		return -ENOMEM;
	c->reg[c->nreg].name = xstrdup(name);
	c->reg[c->nreg].kind = kind;
	c->reg[c->nreg].address = address;
	if (!c->reg[c->nreg].name)
		return -ENOMEM;
	*out = (uint32_t)c->nreg++;
	return 0;
}

static int map_regions(ctx *c)
{
	c->map = calloc(c->ntr, sizeof *c->map);
	c->nmap = calloc(c->ntr, sizeof *c->nmap);
	if (!c->map || !c->nmap)
		return -ENOMEM;
	for (size_t i = 0; i < c->ntr; i++) {
		const ingest__trace *t = c->tr[i];
		uint32_t maxid = 0;
		for (size_t k = 0; k < t->nreg; k++)
			if (t->reg[k].id > maxid)
				maxid = t->reg[k].id;
		for (size_t th = 0; th < t->nthreads; th++)
			for (size_t e = 0; e < t->threads[th].nev; e++)
				if (t->threads[th].ev[e].region > maxid &&
				    t->threads[th].ev[e].region < (1u << 24))
					maxid = t->threads[th].ev[e].region;
		c->nmap[i] = (size_t)maxid + 1;
		c->map[i] = malloc(c->nmap[i] * sizeof **c->map);
		if (!c->map[i])
			return -ENOMEM;
		for (size_t k = 0; k < c->nmap[i]; k++)
			c->map[i][k] = UINT32_MAX;
		for (size_t k = 0; k < t->nreg; k++) {
			const ingest__region_def *d = &t->reg[k];
			char buf[64];
			const char *name = d->name;
			if (!name || !*name)
				name = fold__attrib_function_name(c->attrib, (unsigned)i, d->address, buf,
				                                  sizeof buf);
			if (region_index(c, name, d->kind, d->address, &c->map[i][d->id]))
				return -ENOMEM;
		}
		/* Events of regions that were never defined still count, under a made-up name. */
		size_t undefined = 0;
		for (size_t th = 0; th < t->nthreads; th++)
			for (size_t e = 0; e < t->threads[th].nev; e++) {
				uint32_t id = t->threads[th].ev[e].region;
				if (id < c->nmap[i] && c->map[i][id] == UINT32_MAX) {
					char name[48];
					snprintf(name, sizeof name, "region#%u", id);
					if (region_index(c, name, TRACE_REGION_API, 0, &c->map[i][id]))
						return -ENOMEM;
					undefined++;
				}
			}
		if (undefined)
			warn(c, "%s: %zu region id(s) used without a definition; shown as region#ID", t->path,
			     undefined);
	}
	return 0;
}

/* A calibration value from an INFO (decimal) or STAT (integer) key; 0 if absent. */
static double calibration(const ingest__trace *t, const char *const *keys, size_t nkeys)
{
	for (size_t k = 0; k < nkeys; k++) {
		uint64_t v;
		if (ingest__trace_stat(t, keys[k], &v))
			return (double)v;
		const char *s = ingest__trace_info(t, keys[k]);
		if (s)
			return strtod(s, NULL);
	}
	return 0;
}

/* The compiler hooks' calibrated cost (docs/trace-format.md, overhead.*). */
static fold__hook_cost hook_cost(const ingest__trace *t)
{
	static const char *const pair_keys[] = {"overhead.hook_ns", "calibration.hook_ns"};
	static const char *const inner_keys[] = {"overhead.hook_inner_ns"};
	fold__hook_cost h = {calibration(t, pair_keys, 2), calibration(t, inner_keys, 1)};
	if (!(h.pair_ns > 0 && h.pair_ns < 1e6))
		h.pair_ns = h.inner_ns = 0; /* absent or absurd: no compensation */
	if (!(h.inner_ns >= 0 && h.inner_ns <= h.pair_ns))
		h.inner_ns = 0;
	return h;
}

static int cmp_profile(const void *x, const void *y)
{
	const fold_profile_entry *a = x, *b = y;
	if (a->inclusive_ns != b->inclusive_ns)
		return a->inclusive_ns > b->inclusive_ns ? -1 : 1;
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

static int build_profile(ctx *c, fold__callpairs *pairs)
{
	fold_analysis *a = c->a;
	a->profile = calloc(c->nreg + 1, sizeof *a->profile);
	if (!a->profile)
		return -ENOMEM;
	for (size_t g = 0; g < c->nreg; g++) {
		fold__region_acc *A = &c->acc[g];
		if (!A->npt && !A->unclosed && !A->stray_exit)
			continue;
		fold_profile_entry *p = &a->profile[a->nprofile++];
		p->name = xstrdup(c->reg[g].name);
		p->kind = c->reg[g].kind;
		p->unbalanced = A->unclosed + A->stray_exit;
		p->per_thread = calloc(A->npt + 1, sizeof *p->per_thread);
		if (!p->name || !p->per_thread)
			return -ENOMEM;
		p->min_ns = INFINITY;
		p->max_ns = 0;
		for (size_t k = 0; k < A->npt; k++) {
			const fold__prof_thread *pt = &A->pt[k];
			fold_profile_thread *o = &p->per_thread[p->nper_thread++];
			o->proc = pt->proc;
			o->rank = a->procs[pt->proc].rank;
			o->thread = c->tr[pt->proc]->threads[pt->thread].stream;
			o->calls = pt->calls;
			o->inclusive_ns = pt->incl;
			o->exclusive_ns = pt->excl;
			o->min_ns = pt->min;
			o->max_ns = pt->max;
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
	for (size_t i = 0; i < pairs->cap; i++) {
		const fold__callpair_acc *s = &pairs->slot[i];
		if (!s->key)
			continue;
		uint32_t caller = (uint32_t)(s->key >> 32) - 1, callee = (uint32_t)s->key - 1;
		fold_callpair *o = &a->callpairs[a->ncallpairs++];
		o->caller = xstrdup(c->reg[caller].name);
		o->callee = xstrdup(c->reg[callee].name);
		o->calls = s->calls;
		o->inclusive_ns = s->incl;
		if (!o->caller || !o->callee)
			return -ENOMEM;
	}
	qsort(a->callpairs, a->ncallpairs, sizeof *a->callpairs, cmp_callpair);
	for (size_t g = 0; g < c->nreg; g++) {
		const fold__region_acc *A = &c->acc[g];
		if (A->unclosed || A->stray_exit)
			warn(c,
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
			warn(c,
			     "function %s was throttled at %.3f s after %llu calls (mean %llu ns): later "
			     "calls are not "
			     "recorded",
			     name, ingest__tick_ns(c->tr[i], th->tick) / 1e9, (unsigned long long)th->calls,
			     (unsigned long long)th->mean_ns);
		}
	return 0;
}

/* --- folding one region --- */

typedef struct series_work {
	fold__folded f;
	char *name;
	unsigned kind; /* counter kind; 0 for time */
	int skind;
	double scale;  /* mean rate over the folded instances: sum of events / sum of durations */
	double rscale; /* events/s per unit slope: the typical (median) instance's rate */
	const char *unit;
	int rates_only; /* does not place phase boundaries */
} series_work;

/* A counter with fewer events per instance is counting noise (Poisson): it
 * gets rates but does not place phase boundaries. */
#define FOLD__MIN_EVENTS_PER_INSTANCE 10.0

/* Decides which series place the phase boundaries. Phases are what a user
 * reads as code phases, so only reliable series may create them:
 *  - not wall time (y = x has no phases);
 *  - not a counter with few events per instance, or with no event in most
 *    instances (its folded curve is a staircase of counting noise);
 *  - when some series has boundary values recorded at enter and exit, not
 *    the series whose boundary values are estimated from samples (CPU time,
 *    counters missing at the events): the estimate's error moves every
 *    point of an instance and varies with preemption.
 * Series left out still get per-phase rates. */
static void choose_phase_series(series_work *sw, size_t nsw)
{
	int any_exact = 0;
	for (size_t k = 0; k < nsw; k++) {
		series_work *s = &sw[k];
		const fold__folded *f = &s->f;
		s->rates_only = s->skind == FOLD__SER_WALL;
		if (s->skind == FOLD__SER_COUNTER &&
		    (!f->ninst || s->f.sum_total / (double)f->ninst < FOLD__MIN_EVENTS_PER_INSTANCE ||
		     2 * f->nzero > f->ninst))
			s->rates_only = 1;
		if (!s->rates_only && s->skind == FOLD__SER_COUNTER && 2 * f->nexact >= f->ninst)
			any_exact = 1;
	}
	if (!any_exact)
		return;
	for (size_t k = 0; k < nsw; k++)
		if (sw[k].skind == FOLD__SER_CPU || 2 * sw[k].f.nexact < sw[k].f.ninst)
			sw[k].rates_only = 1;
}

/* Slopes of a folded curve are relative to an instance's own mean rate, so
 * they convert to events per second with the typical instance's rate (the
 * median over instances): stretched instances (preempted: same events, longer
 * duration) do not lower it. Sparse counters, whose typical instance has no
 * event, use the mean rate. */
static double rate_scale(const fold__folded *f, double mean_scale, double unit)
{
	if (2 * f->nzero >= f->ninst || !(f->median_rate > 0))
		return mean_scale;
	return f->median_rate * unit;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* Relative spread of the used instances' durations (1.4826 MAD / median):
 * how far a phase switch can smear across the folded instance. */
static double duration_smear(const fold__instance *inst, size_t n)
{
	double *v = malloc((n + 1) * sizeof *v);
	size_t m = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (inst[i].used)
			v[m++] = inst[i].dur_ns;
	double smear = 0;
	if (m >= 3) {
		qsort(v, m, sizeof *v, cmp_dbl);
		double med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
		for (size_t i = 0; i < m; i++)
			v[i] = fabs(v[i] - med);
		qsort(v, m, sizeof *v, cmp_dbl);
		double mad = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
		smear = med > 0 ? 1.4826 * mad / med : 0;
	}
	free(v);
	return smear;
}

static int set_kv(fold_kv **kv, size_t *n, const char *key, char *value)
{
	fold_kv *nk = realloc(*kv, (*n + 1) * sizeof **kv);
	if (!nk) {
		free(value);
		return -ENOMEM;
	}
	*kv = nk;
	nk[*n].key = xstrdup(key);
	nk[*n].value = value;
	(*n)++;
	return 0;
}

static int curve_alloc(fold_curve *cv, size_t n, int band)
{
	cv->n = n;
	cv->x = calloc(n, sizeof *cv->x);
	cv->cum = calloc(n, sizeof *cv->cum);
	cv->value = calloc(n, sizeof *cv->value);
	if (band) {
		cv->lo = calloc(n, sizeof *cv->lo);
		cv->hi = calloc(n, sizeof *cv->hi);
	}
	if (!cv->x || !cv->cum || !cv->value || (band && (!cv->lo || !cv->hi)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		cv->x[i] = n > 1 ? (double)i / (double)(n - 1) : 0;
	return 0;
}

/* Share of its duration instance in spent on the CPU (from the samples'
 * CPU time), or -1 when unknown. */
static double cpu_utilisation(ingest__trace *const *tr, const fold__instance *in)
{
	const ingest__trace *t = tr[in->proc];
	const ingest__thread *th = &t->threads[in->thread];
	double v0, v1;
	if (!th->cpu_cum || !(in->dur_ns > 0) ||
	    fold__boundary_value(t, th, &th->ev[in->ev_enter], 0, 1, in->sb, in->se, 0, &v0) ||
	    fold__boundary_value(t, th, &th->ev[in->ev_exit], 0, 1, in->sb, in->se, 1, &v1))
		return -1;
	return (v1 - v0) / in->dur_ns;
}

/* Minimum share of the best group's CPU utilisation a group needs to be
 * folded by default. */
#define FOLD__MIN_RELATIVE_UTILISATION 0.9

/* The group folded by default: the one with the largest total time among
 * the groups whose instances run on the CPU about as much as the best
 * group's. On a loaded machine preemption can make a stretched copy of the
 * region's instances the largest group (a regular competitor preempts the
 * same way every time, a mode of its own); those instances are the
 * scheduler's, not the code's, and their median CPU utilisation gives them
 * away. Without CPU time: the largest total time. */
static size_t choose_group(ctx *c, fold_region_result *r, const fold__instance *inst, size_t n,
                           const uint32_t *grp, const uint8_t *why, const fold__group_stat *gs, size_t ng)
{
	size_t sel = 0;
	for (size_t k = 1; k < ng; k++)
		if (gs[k].total > gs[sel].total)
			sel = k;
	if (ng < 2)
		return sel;
	double util[16];
	double *u = malloc((n + 1) * sizeof *u);
	if (!u)
		return sel;
	double best = -1;
	for (size_t k = 0; k < ng && k < 16; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (grp[i] == k && why[i] == 0) {
				double v = cpu_utilisation(c->tr, &inst[i]);
				if (v >= 0)
					u[m++] = v;
			}
		util[k] = -1;
		if (m >= 3) {
			qsort(u, m, sizeof *u, cmp_dbl);
			util[k] = m % 2 ? u[m / 2] : 0.5 * (u[m / 2 - 1] + u[m / 2]);
			if (util[k] > best)
				best = util[k];
		}
	}
	free(u);
	if (!(best > 0))
		return sel;
	size_t pick = SIZE_MAX;
	for (size_t k = 0; k < ng && k < 16; k++)
		if (util[k] < 0 || util[k] >= FOLD__MIN_RELATIVE_UTILISATION * best)
			if (pick == SIZE_MAX || gs[k].total > gs[pick].total)
				pick = k;
	if (pick != SIZE_MAX && pick != sel) {
		warn(c,
		     "region %s: group %zu (median %.3g ms) has the most time but its instances spend %.0f%% "
		     "of it "
		     "on the CPU against %.0f%% in group %zu (median %.3g ms), which is folded: stretched by "
		     "preemption or waiting (--group %zu folds it anyway)",
		     r->name, sel, gs[sel].median / 1e6, 100 * util[sel], 100 * util[pick], pick,
		     gs[pick].median / 1e6, sel);
		sel = pick;
	}
	return sel;
}

static int analyze_region(ctx *c, size_t g, fold_region_result *r)
{
	const fold_options *opt = c->opt;
	fold__region_acc *A = &c->acc[g];
	int rc = -ENOMEM;
	size_t n = A->ninst;
	series_work *sw = NULL;
	size_t nsw = 0;
	fold__pwlr_series *ps = NULL;
	size_t *pw = NULL;             /* series -> index among the pwlr series, SIZE_MAX = none */
	fold__instance *pieces = NULL; /* samples attached to the innermost instance */
	size_t npieces = 0;
	fold__pwlr_result pr;
	memset(&pr, 0, sizeof pr);
	double *dur = malloc((n + 1) * sizeof *dur);
	uint32_t *grp = malloc((n + 1) * sizeof *grp);
	uint8_t *why = malloc(n + 1);
	fold__grouping_opts go;
	fold__grouping_opts_init(&go);
	go.outlier_k = opt->outlier_k > 0 ? opt->outlier_k : 3.0;
	fold__group_stat gs[16];
	size_t ng = 0;
	if (!dur || !grp || !why)
		goto out;
	for (size_t i = 0; i < n; i++)
		dur[i] = A->inst[i].dur_ns;
	if (fold__group_durations(dur, n, &go, grp, why, &ng, gs))
		goto out;
	r->groups = calloc(ng + 1, sizeof *r->groups);
	if (!r->groups)
		goto out;
	r->ngroups = ng;
	size_t sel = 0;
	for (size_t k = 0; k < ng; k++) {
		fold_group *G = &r->groups[k];
		G->id = (unsigned)k;
		G->instances = gs[k].n;
		G->used = gs[k].used;
		G->excluded_outliers = gs[k].outliers + gs[k].isolated;
		G->median_duration_ns = gs[k].median;
		G->mad_duration_ns = gs[k].mad;
		G->mean_duration_ns = gs[k].mean;
		G->min_duration_ns = gs[k].min;
		G->max_duration_ns = gs[k].max;
	}
	sel = choose_group(c, r, A->inst, n, grp, why, gs, ng);
	if (opt->group >= 0) {
		if ((size_t)opt->group < ng)
			sel = (size_t)opt->group;
		else
			warn(c, "region %s: group %d requested but it has %zu group(s); folding group %zu",
			     r->name, opt->group, ng, sel);
	}
	r->selected_group = (unsigned)sel;
	/* Every instance folds, nested ones of a recursive region too: a sample
	 * belongs to the innermost instance that contains it (pieces below). */
	unsigned long outl = 0;
	for (size_t i = 0; i < n; i++) {
		fold__instance *in = &A->inst[i];
		in->group = grp[i];
		in->why = why[i] == 1 ? FOLD__EXCL_OUTLIER : why[i] == 2 ? FOLD__EXCL_ISOLATED : FOLD__USED;
		if (grp[i] != sel && in->why == FOLD__USED)
			in->why = FOLD__EXCL_OTHER_GROUP;
		if (grp[i] == sel && (why[i] == 1 || why[i] == 2))
			outl++;
		in->used = in->why == FOLD__USED;
	}
	pieces = fold__instance_pieces(A->inst, n, &npieces);
	if (!pieces)
		goto out;
	unsigned long used = 0, sfold = 0;
	double used_ns = 0;
	for (size_t i = 0; i < n; i++) {
		r->inst[i].group = A->inst[i].group;
		r->inst[i].used = A->inst[i].used;
		if (A->inst[i].used) {
			used++;
			used_ns += A->inst[i].dur_ns;
		}
	}
	for (size_t i = 0; i < npieces; i++)
		if (pieces[i].used)
			sfold += pieces[i].se - pieces[i].sb;
	r->instances_used = used;
	/* Phases are shares of the folded instances, so their mean (not the
	 * region's, which includes outliers and other groups) gives durations. */
	r->folded_mean_duration_ns = used ? used_ns / (double)used : 0;
	r->samples_folded = sfold;
	if (outl)
		warn(c,
		     "region %s: %lu instance(s) of the folded group excluded as duration outliers (outside "
		     "median "
		     "+- %.1f MAD, or isolated durations)",
		     r->name, outl, go.outlier_k);
	if (used < opt->min_instances || used == 0) {
		r->reason =
		    xasprintf("%lu instance(s) usable, at least %u needed to fold", used, opt->min_instances);
		rc = r->reason ? 0 : -ENOMEM;
		goto out;
	}
	if (sfold < opt->min_samples) {
		r->reason = xasprintf("%lu sample(s) inside usable instances, at least %u needed to fold",
		                      sfold, opt->min_samples);
		rc = r->reason ? 0 : -ENOMEM;
		goto out;
	}

	/* Fold every counter, then CPU time; wall time only when nothing else. */
	fold_analysis *a = c->a;
	sw = calloc(a->ncounters + 2, sizeof *sw);
	int64_t *ids = malloc((c->ntr + 1) * sizeof *ids);
	if (!sw || !ids) {
		free(ids);
		goto out;
	}
	for (size_t k = 0; k < a->ncounters; k++) {
		int any = 0;
		for (size_t i = 0; i < c->ntr; i++) {
			ids[i] = -1;
			for (size_t j = 0; j < c->tr[i]->nctr; j++)
				if (!strcmp(c->tr[i]->ctr[j].name, a->counters[k].name)) {
					ids[i] = c->tr[i]->ctr[j].id;
					any = 1;
				}
		}
		if (!any)
			continue;
		fold__fold_spec spec = {FOLD__SER_COUNTER, ids};
		series_work *s = &sw[nsw];
		if (fold__fold_series(c->tr, pieces, npieces, &spec, &s->f)) {
			fold__folded_free(&s->f);
			free(ids);
			goto out;
		}
		if (s->f.n < 3 || s->f.sum_total <= 0 || s->f.sum_dur_ns <= 0) {
			fold__folded_free(&s->f);
			continue;
		}
		s->name = xstrdup(a->counters[k].name);
		s->kind = a->counters[k].kind;
		s->skind = FOLD__SER_COUNTER;
		s->scale = s->f.sum_total / s->f.sum_dur_ns * 1e9;
		s->rscale = rate_scale(&s->f, s->scale, 1e9);
		s->unit = "events/s";
		nsw++;
	}
	for (int kind = FOLD__SER_CPU; kind <= FOLD__SER_WALL; kind++) {
		if (kind == FOLD__SER_WALL && nsw)
			break;
		fold__fold_spec spec = {kind, ids};
		series_work *s = &sw[nsw];
		if (fold__fold_series(c->tr, pieces, npieces, &spec, &s->f)) {
			fold__folded_free(&s->f);
			free(ids);
			goto out;
		}
		if (s->f.n < 3 || s->f.sum_total <= 0 || s->f.sum_dur_ns <= 0) {
			fold__folded_free(&s->f);
			continue;
		}
		s->name = xstrdup(kind == FOLD__SER_CPU ? "cpu_time" : "wall_time");
		s->kind = 0;
		s->skind = kind;
		s->scale = s->f.sum_total / s->f.sum_dur_ns; /* seconds per second */
		s->rscale = rate_scale(&s->f, s->scale, 1.0);
		s->unit = "s/s";
		nsw++;
	}
	free(ids);
	if (!nsw) {
		r->reason = xstrdup("no counter, CPU time or sample could be folded");
		rc = r->reason ? 0 : -ENOMEM;
		goto out;
	}

	/* Phases: joint piecewise-linear fit over every series but wall time (y =
	 * x has no phases); only the reliable ones place boundaries. */
	choose_phase_series(sw, nsw);
	ps = calloc(nsw, sizeof *ps);
	pw = malloc(nsw * sizeof *pw);
	if (!ps || !pw)
		goto out;
	size_t nps = 0;
	for (size_t k = 0; k < nsw; k++) {
		pw[k] = SIZE_MAX;
		if (sw[k].skind != FOLD__SER_WALL) {
			pw[k] = nps;
			ps[nps++] = (fold__pwlr_series){sw[k].f.x, sw[k].f.y, sw[k].f.n, sw[k].f.inst,
			                                sw[k].rates_only};
		}
	}
	if (!nps) {
		pw[0] = 0;
		ps[nps++] = (fold__pwlr_series){sw[0].f.x, sw[0].f.y, sw[0].f.n, sw[0].f.inst, 0};
	}
	fold__pwlr_opts po;
	fold__pwlr_opts_init(&po);
	po.smear = duration_smear(A->inst, n);
	rc = fold__pwlr_fit(ps, nps, &po, &pr);
	if (rc)
		goto out;
	rc = -ENOMEM;

	int kriging = !opt->fit || strcmp(opt->fit, "pwlr") != 0;
	r->fit_method = xstrdup(kriging ? "kriging" : "pwlr");
	size_t G = opt->grid >= 2 ? opt->grid : 200;
	r->series = calloc(nsw + fold__models_max_metrics(c->models) + 1, sizeof *r->series);
	if (!r->series || !r->fit_method)
		goto out;
	for (size_t k = 0; k < nsw; k++) {
		series_work *s = &sw[k];
		fold_series *o = &r->series[r->nseries++];
		o->name = s->name;
		s->name = NULL;
		o->unit = xstrdup(s->unit);
		o->derived = 0;
		o->counter_kind = s->kind;
		o->npoints = s->f.n;
		o->px = s->f.x;
		o->py = s->f.y;
		s->f.x = s->f.y = NULL;
		o->total_per_instance = s->f.ninst ? s->f.sum_total / (double)s->f.ninst : 0;
		o->mean_rate = s->scale;
		size_t pi = pw[k];
		if (curve_alloc(&o->fit, G, kriging) || !o->unit)
			goto out;
		if (kriging) {
			fold__kriging_result kr;
			fold__kriging_opts ko;
			fold__kriging_opts_init(&ko);
			ko.seed = opt->seed;
			if (fold__kriging_fit(o->px, o->py, o->npoints, &ko, o->fit.x, G, &kr) == 0) {
				for (size_t i = 0; i < G; i++) {
					o->fit.cum[i] = kr.cum[i];
					o->fit.value[i] = kr.rate[i] * s->rscale;
					o->fit.lo[i] = kr.rate_lo[i] * s->rscale;
					o->fit.hi[i] = kr.rate_hi[i] * s->rscale;
				}
				o->fit_error = kr.rms;
				if (k == 0) {
					set_kv(&r->fit_params, &r->nfit_params, "kriging.kernel",
					       xstrdup("matern32"));
					set_kv(&r->fit_params, &r->nfit_params, "kriging.length_scale",
					       xasprintf("%.6g", kr.length_scale));
					set_kv(&r->fit_params, &r->nfit_params, "kriging.nugget_ratio",
					       xasprintf("%.6g", kr.eta));
					set_kv(&r->fit_params, &r->nfit_params, "kriging.bins",
					       xasprintf("%zu", kr.nbins));
					set_kv(&r->fit_params, &r->nfit_params, "kriging.approximation",
					       xasprintf("%s", kr.approximation));
				}
				fold__kriging_result_free(&kr);
				continue;
			}
			fold__kriging_result_free(&kr);
			warn(c, "region %s, %s: Kriging fit failed; showing the piecewise-linear fit",
			     r->name, o->name);
		}
		for (size_t i = 0; i < G; i++) {
			double x = o->fit.x[i];
			if (pi == SIZE_MAX || pi >= pr.nseries) {
				o->fit.cum[i] = x;
				o->fit.value[i] = s->scale;
				continue;
			}
			o->fit.cum[i] = fold__pwlr_cum(&pr, pi, x);
			size_t seg = fold__pwlr_segment(&pr, x);
			o->fit.value[i] = pr.slope[pi * pr.nseg + seg] * s->rscale;
			if (o->fit.lo) {
				o->fit.lo[i] = o->fit.hi[i] = o->fit.value[i];
			}
		}
		if (pi != SIZE_MAX && pi < pr.nseries)
			o->fit_error = pr.rms[pi];
	}
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.segments", xasprintf("%zu", pr.nseg));
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.cells", xasprintf("%u", po.cells));
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.min_len", xasprintf("%g", po.min_len));
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.bic", xasprintf("%.6g", pr.bic));
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.bic_segments", xasprintf("%zu", pr.bic_segments));
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.transitions_absorbed",
	       xasprintf("%zu", pr.transitions));
	set_kv(&r->fit_params, &r->nfit_params, "pwlr.smear", xasprintf("%.4g", po.smear));
	{
		/* Which series placed the boundaries, with their robust noise and design effect. */
		char *list = NULL;
		for (size_t k = 0; k < nsw; k++) {
			if (pw[k] >= pr.nseries || sw[k].rates_only)
				continue;
			char *nl =
			    xasprintf("%s%s%s (sigma %.3g, design effect %.3g)", list ? list : "",
			              list ? ", " : "", r->series[k].name, pr.sigma[pw[k]], pr.deff[pw[k]]);
			free(list);
			list = nl;
			if (!list)
				break;
		}
		set_kv(&r->fit_params, &r->nfit_params, "pwlr.phase_series", list ? list : xstrdup("(all)"));
	}
	set_kv(&r->fit_params, &r->nfit_params, "seed", xasprintf("%llu", (unsigned long long)opt->seed));

	/* Phases with per-counter rates from the piecewise-linear slopes. */
	r->phases = calloc(pr.nseg, sizeof *r->phases);
	if (!r->phases)
		goto out;
	r->nphases = pr.nseg;
	for (size_t p = 0; p < pr.nseg; p++) {
		fold_phase_result *ph = &r->phases[p];
		ph->start = pr.bounds[p];
		ph->end = pr.bounds[p + 1];
		ph->rate_names =
		    calloc(nsw + fold__models_max_metrics(c->models) + 1, sizeof *ph->rate_names);
		ph->rates = calloc(nsw + fold__models_max_metrics(c->models) + 1, sizeof *ph->rates);
		if (!ph->rate_names || !ph->rates)
			goto out;
		for (size_t k = 0; k < nsw; k++) {
			double slope = pw[k] < pr.nseries ? pr.slope[pw[k] * pr.nseg + p] : 1.0;
			ph->rate_names[ph->nrates] = xstrdup(r->series[k].name);
			ph->rates[ph->nrates] = slope * sw[k].rscale;
			if (!ph->rate_names[ph->nrates])
				goto out;
			ph->nrates++;
		}
	}
	/* Samples per phase: every sample of the used instances. */
	for (size_t i = 0; i < npieces; i++) {
		const fold__instance *in = &pieces[i];
		if (!in->used || in->t1 <= in->t0)
			continue;
		const ingest__thread *th = &c->tr[in->proc]->threads[in->thread];
		double span = (double)(in->t1 - in->t0);
		for (size_t k = in->sb; k < in->se; k++) {
			double x = ((double)th->smp[k].tick - (double)in->t0) / span;
			r->phases[fold__pwlr_segment(&pr, x)].samples++;
		}
	}
	for (size_t p = 0; p < r->nphases; p++)
		if (r->phases[p].samples < 10)
			warn(c,
			     "region %s: phase %zu [%.3f, %.3f] holds only %lu sample(s); its rates are "
			     "uncertain",
			     r->name, p + 1, r->phases[p].start, r->phases[p].end, r->phases[p].samples);
	rc = fold__models_apply(c->models, r);
	if (rc)
		goto out;
	rc = fold__attrib_region(c->attrib, c->tr, pieces, npieces, r);
	if (rc)
		goto out;
	r->folded = 1;
	rc = 0;
out:
	if (sw)
		for (size_t k = 0; k < nsw; k++) {
			fold__folded_free(&sw[k].f);
			free(sw[k].name);
		}
	free(sw);
	free(ps);
	free(pw);
	free(pieces);
	fold__pwlr_result_free(&pr);
	free(dur);
	free(grp);
	free(why);
	return rc;
}

/* --- per-region results, folded in parallel --- */

static int region_basics(ctx *c, size_t g, fold_region_result *r)
{
	const fold__region_acc *A = &c->acc[g];
	r->name = xstrdup(c->reg[g].name);
	r->kind = c->reg[g].kind;
	r->instances = A->ninst;
	r->inst = calloc(A->ninst + 1, sizeof *r->inst);
	if (!r->name || !r->inst)
		return -ENOMEM;
	r->ninst = A->ninst;
	double total = 0;
	unsigned long samples = 0, outermost = 0;
	for (size_t i = 0; i < A->ninst; i++) {
		const fold__instance *in = &A->inst[i];
		fold_instance_info *o = &r->inst[i];
		o->start_ns = in->start_ns;
		o->duration_ns = in->dur_ns;
		o->thread = c->tr[in->proc]->threads[in->thread].stream;
		o->rank = c->a->procs[in->proc].rank;
		o->used = 1;
		if (!in->nested_same) {
			total += in->dur_ns;
			samples += in->se - in->sb;
			outermost++;
		}
	}
	r->total_ns = total;
	r->mean_duration_ns = outermost ? total / (double)outermost : 0;
	r->samples = samples;
	return 0;
}

static int cmp_instance_start(const void *x, const void *y)
{
	const fold__instance *a = x, *b = y;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	if (a->thread != b->thread)
		return a->thread < b->thread ? -1 : 1;
	if (a->t0 != b->t0)
		return a->t0 < b->t0 ? -1 : 1;
	return a->t1 > b->t1 ? -1 : a->t1 < b->t1;
}

static void *fold_worker(void *arg)
{
	ctx *c = arg;
	for (;;) {
		pthread_mutex_lock(&c->q_lock);
		size_t i = c->next++;
		int stop = c->rc != 0;
		pthread_mutex_unlock(&c->q_lock);
		if (stop || i >= c->ntodo)
			return NULL;
		size_t g = c->todo[i];
		fold_region_result *r = &c->a->regions[i];
		int rc = analyze_region(c, g, r);
		if (rc) {
			pthread_mutex_lock(&c->q_lock);
			if (!c->rc)
				c->rc = rc;
			pthread_mutex_unlock(&c->q_lock);
		}
		progress(c, 0.5 + 0.45 * (double)(i + 1) / (double)c->ntodo, r->name);
	}
}

static int cmp_region(const void *x, const void *y)
{
	const fold_region_result *a = x, *b = y;
	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return strcmp(a->name, b->name);
}

static unsigned worker_count(const fold_options *opt)
{
	if (opt->threads)
		return opt->threads;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (unsigned)(n > 64 ? 64 : n) : 1;
}

static int fold_regions(ctx *c)
{
	fold_analysis *a = c->a;
	c->todo = calloc(c->nreg + 1, sizeof *c->todo);
	a->regions = calloc(c->nreg + 1, sizeof *a->regions);
	if (!c->todo || !a->regions)
		return -ENOMEM;
	for (size_t g = 0; g < c->nreg; g++) {
		if (!c->acc[g].ninst)
			continue;
		qsort(c->acc[g].inst, c->acc[g].ninst, sizeof *c->acc[g].inst, cmp_instance_start);
		if (region_basics(c, g, &a->regions[a->nregions]))
			return -ENOMEM;
		c->todo[a->nregions++] = g;
	}
	/* Regions not selected by the user are listed but not folded. */
	size_t w = 0;
	for (size_t i = 0; i < a->nregions; i++) {
		fold_region_result *r = &a->regions[i];
		if (c->opt->region && strcmp(c->opt->region, r->name)) {
			r->reason = xstrdup("not selected (--region)");
			if (!r->reason)
				return -ENOMEM;
			continue;
		}
		/* Keep the work list aligned with the regions array: swap into place. */
		if (w != i) {
			fold_region_result tmp = a->regions[w];
			a->regions[w] = a->regions[i];
			a->regions[i] = tmp;
			size_t tg = c->todo[w];
			c->todo[w] = c->todo[i];
			c->todo[i] = tg;
		}
		w++;
	}
	c->ntodo = w;
	if (c->opt->region && !w)
		warn(c, "no region named \"%s\" in the trace(s)", c->opt->region);
	unsigned nw = worker_count(c->opt);
	if (nw > c->ntodo)
		nw = (unsigned)(c->ntodo ? c->ntodo : 1);
	pthread_t tids[64];
	unsigned started = 0;
	for (unsigned k = 1; k < nw; k++)
		if (pthread_create(&tids[started], NULL, fold_worker, c) == 0)
			started++;
	fold_worker(c);
	for (unsigned k = 0; k < started; k++)
		pthread_join(tids[k], NULL);
	if (c->rc)
		return c->rc;
	qsort(a->regions, a->nregions, sizeof *a->regions, cmp_region);
	return 0;
}

static void default_diag(void *arg, const char *msg)
{
	(void)arg;
	fprintf(stderr, "fold: %s\n", msg);
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
	if (opt->fit && strcmp(opt->fit, "kriging") && strcmp(opt->fit, "pwlr")) {
		snprintf(err, errlen, "--fit %s: expected \"kriging\" or \"pwlr\"", opt->fit);
		return -EINVAL;
	}
	/* GSL's default handler aborts the process on a singular matrix; every
	 * fit checks return codes instead. Set once, before any worker starts. */
	gsl_set_error_handler_off();
	ctx c;
	memset(&c, 0, sizeof c);
	c.opt = opt;
	pthread_mutex_init(&c.warn_lock, NULL);
	pthread_mutex_init(&c.q_lock, NULL);
	trace_diag_fn diag = opt->diag ? opt->diag : default_diag;
	fold__callpairs pairs;
	memset(&pairs, 0, sizeof pairs);
	c.a = calloc(1, sizeof *c.a);
	if (!c.a) {
		rc = -ENOMEM;
		goto fail;
	}
	progress(&c, 0.0, "reading traces");
	rc = ingest__trace_load_many(paths, npaths, worker_count(opt), &c.tr, diag, opt->diag_arg, err,
	                             errlen);
	if (rc)
		goto fail;
	c.ntr = npaths;
	progress(&c, 0.3, "instances");
	if ((rc = fill_processes(&c)) || (rc = fill_counters(&c)))
		goto fail_nomem;
	rc = fold__models_load(opt->share_dir, &c.models, diag, opt->diag_arg);
	if (rc)
		goto fail_nomem;
	if ((rc = fold__models_classify(c.models, c.a)))
		goto fail_nomem;
	rc = fold__attrib_new(&c.attrib, c.tr, c.ntr, diag, opt->diag_arg);
	if (rc)
		goto fail_nomem;
	if ((rc = map_regions(&c)))
		goto fail_nomem;
	c.acc = calloc(c.nreg + 1, sizeof *c.acc);
	if (!c.acc) {
		rc = -ENOMEM;
		goto fail_nomem;
	}
	for (size_t i = 0; i < c.ntr; i++) {
		fold__hook_cost h = hook_cost(c.tr[i]);
		if (h.pair_ns > 0)
			c.a->hook_overhead_ns = h.pair_ns;
		rc = fold__instances_build(c.tr[i], (unsigned)i, c.map[i], c.nmap[i], c.acc, c.nreg, h,
		                           &pairs);
		if (rc)
			goto fail_nomem;
		for (size_t t = 0; t < c.tr[i]->nthreads; t++)
			c.a->total_samples += c.tr[i]->threads[t].nsmp;
	}
	if ((rc = build_profile(&c, &pairs)))
		goto fail_nomem;
	progress(&c, 0.5, "folding");
	if ((rc = fold_regions(&c)))
		goto fail_nomem;
	if ((rc = fold__attrib_global(c.attrib, c.tr, c.ntr, c.a)))
		goto fail_nomem;
	progress(&c, 1.0, "done");
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
	if (c.tr)
		for (size_t i = 0; i < c.ntr; i++)
			ingest__trace_free(c.tr[i]);
	free(c.tr);
	if (c.map)
		for (size_t i = 0; i < c.ntr; i++)
			free(c.map[i]);
	free(c.map);
	free(c.nmap);
	if (c.acc)
		for (size_t g = 0; g < c.nreg; g++)
			fold__region_acc_free(&c.acc[g]);
	free(c.acc);
	for (size_t g = 0; g < c.nreg; g++)
		free(c.reg[g].name);
	free(c.reg);
	free(c.todo);
	fold__callpairs_free(&pairs);
	fold__models_free(c.models);
	fold__attrib_free(c.attrib);
	pthread_mutex_destroy(&c.warn_lock);
	pthread_mutex_destroy(&c.q_lock);
	return rc;
}
