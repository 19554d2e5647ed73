/* fixture.c: builds the hostile, fully populated fold_analysis of fixture.h. */
#include "fixture.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	rng = rng * 6364136223846793005ull + 1442695040888963407ull;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size);
	if (!p)
		abort();
	return p;
}

static char *xstrdup(const char *s)
{
	if (!s)
		return NULL;
	char *d = strdup(s);
	if (!d)
		abort();
	return d;
}

static char *xfmt(const char *fmt, long v)
{
	char tmp[128];
	snprintf(tmp, sizeof tmp, fmt, v);
	return xstrdup(tmp);
}

static void set_kv(fold_kv *kv, const char *k, const char *v)
{
	kv->key = xstrdup(k);
	kv->value = xstrdup(v);
}

/* A region's behaviour: phase boundaries and the relative rate in each. */
typedef struct shape {
	size_t n;
	const double *bounds; /* n + 1 values from 0 to 1 */
	const double *rate;   /* n relative rates */
} shape;

static double shape_cum(const shape *s, double x)
{
	double total = 0, acc = 0;
	for (size_t i = 0; i < s->n; i++)
		total += s->rate[i] * (s->bounds[i + 1] - s->bounds[i]);
	for (size_t i = 0; i < s->n; i++) {
		double a = s->bounds[i], b = s->bounds[i + 1];
		if (x <= a)
			break;
		acc += s->rate[i] * ((x < b ? x : b) - a);
	}
	return acc / total;
}

static double shape_rel_rate(const shape *s, double x)
{
	double total = 0;
	for (size_t i = 0; i < s->n; i++)
		total += s->rate[i] * (s->bounds[i + 1] - s->bounds[i]);
	for (size_t i = 0; i < s->n; i++)
		if (x <= s->bounds[i + 1])
			return s->rate[i] / total;
	return s->rate[s->n - 1] / total;
}

static void fill_curve(fold_curve *c, size_t n, const shape *s, double scale, int with_cum, int band)
{
	c->n = n;
	c->x = xcalloc(n, sizeof(double));
	c->value = xcalloc(n, sizeof(double));
	c->cum = with_cum ? xcalloc(n, sizeof(double)) : NULL;
	if (band) {
		c->lo = xcalloc(n, sizeof(double));
		c->hi = xcalloc(n, sizeof(double));
	}
	for (size_t i = 0; i < n; i++) {
		double x = (double)i / (double)(n - 1);
		c->x[i] = x;
		/* Smooth the steps a little, as a fit would. */
		double v = 0;
		for (int k = -2; k <= 2; k++)
			v += shape_rel_rate(s, fmin(1, fmax(0, x + k * 0.004)));
		c->value[i] = scale * v / 5;
		if (with_cum)
			c->cum[i] = shape_cum(s, x);
		if (band) {
			c->lo[i] = c->value[i] * 0.93;
			c->hi[i] = c->value[i] * 1.07;
		}
	}
}

static void fill_series(fold_series *se, const char *name, const char *unit, unsigned kind, const shape *s,
                        double per_instance, double mean_ns, size_t npoints, int derived)
{
	se->name = xstrdup(name);
	se->unit = xstrdup(unit);
	se->derived = derived;
	se->counter_kind = derived ? 0 : kind;
	se->npoints = derived ? 0 : npoints;
	if (!derived) {
		se->px = xcalloc(npoints, sizeof(double));
		se->py = xcalloc(npoints, sizeof(double));
		for (size_t i = 0; i < npoints; i++) {
			double x = uniform();
			double y = shape_cum(s, x) + (uniform() - 0.5) * 0.04;
			se->px[i] = x;
			se->py[i] = fmin(1, fmax(0, y));
		}
	}
	double scale = derived ? per_instance : per_instance / (mean_ns * 1e-9);
	fill_curve(&se->fit, 201, s, scale, !derived, !derived);
	se->total_per_instance = derived ? 0 : per_instance;
	se->mean_rate = derived ? per_instance : per_instance / (mean_ns * 1e-9);
	se->fit_error = 0.0123;
}

static void fill_attr(fold_attribution *t, const char *fn, const char *file, unsigned line, double share,
                      unsigned long samples, int inlined)
{
	t->function = xstrdup(fn);
	t->file = xstrdup(file);
	t->line = line;
	t->module = xstrdup("/opt/app/bin/app");
	t->share = share;
	t->samples = samples;
	if (inlined) {
		t->ninline = 2;
		t->inline_chain = xcalloc(2, sizeof(fold_source_frame));
		t->inline_chain[0].function = xstrdup(FIXTURE_FUNC_HELPER);
		t->inline_chain[0].file = xstrdup("/src/blas/axpy.h");
		t->inline_chain[0].line = 17;
		t->inline_chain[0].call_line = 88;
		t->inline_chain[0].call_file = xstrdup(file);
		t->inline_chain[1].function = xstrdup(fn);
		t->inline_chain[1].file = xstrdup(file);
		t->inline_chain[1].line = 88;
	}
}

static void fill_phases(fold_region_result *r, const shape *s, const char *const *fns,
                        const char *const *files, double mean_ns)
{
	r->nphases = s->n;
	r->phases = xcalloc(s->n, sizeof(fold_phase_result));
	for (size_t i = 0; i < s->n; i++) {
		fold_phase_result *p = &r->phases[i];
		p->start = s->bounds[i];
		p->end = s->bounds[i + 1];
		p->nrates = 2;
		p->rate_names = xcalloc(2, sizeof(char *));
		p->rates = xcalloc(2, sizeof(double));
		p->rate_names[0] = xstrdup(r->series[0].name);
		p->rates[0] =
		    r->series[0].total_per_instance / (mean_ns * 1e-9) * shape_rel_rate(s, p->start);
		p->rate_names[1] = xstrdup("IPC");
		p->rates[1] = 0.5 + 0.4 * (double)i;
		p->samples = 40 + 25 * i;
		p->ntop = 3;
		p->top = xcalloc(3, sizeof(fold_attribution));
		fill_attr(&p->top[0], fns[i], files[i], (unsigned)(120 + 10 * i), 0.62, p->samples * 62 / 100,
		          i == 0);
		fill_attr(&p->top[1], fns[i], files[i], (unsigned)(121 + 10 * i), 0.21, p->samples * 21 / 100,
		          0);
		fill_attr(&p->top[2], FIXTURE_FUNC_HELPER, NULL, 0, 0.09, p->samples * 9 / 100, 0);
	}
}

static void fill_timeline(fold_region_result *r, const shape *s, const char *const *fns,
                          const char *const *files)
{
	r->ntimeline = 2;
	r->timeline = xcalloc(2, sizeof(fold_timeline_level));
	r->timeline[0].depth = 0;
	r->timeline[0].nspans = s->n;
	r->timeline[0].spans = xcalloc(s->n, sizeof(fold_timeline_span));
	for (size_t i = 0; i < s->n; i++) {
		fold_timeline_span *sp = &r->timeline[0].spans[i];
		sp->start = s->bounds[i];
		sp->end = s->bounds[i + 1];
		sp->function = xstrdup(fns[i]);
		sp->file = xstrdup(files[i]);
		sp->line = (unsigned)(100 + i);
	}
	r->timeline[1].depth = 1;
	r->timeline[1].nspans = 2 * s->n;
	r->timeline[1].spans = xcalloc(2 * s->n, sizeof(fold_timeline_span));
	for (size_t i = 0; i < s->n; i++) {
		double mid = (s->bounds[i] + s->bounds[i + 1]) / 2;
		fold_timeline_span *a = &r->timeline[1].spans[2 * i], *b = a + 1;
		a->start = s->bounds[i];
		a->end = mid;
		a->function = xstrdup(FIXTURE_FUNC_HELPER);
		a->file = xstrdup("/src/blas/axpy.h");
		a->line = 17;
		b->start = mid;
		b->end = s->bounds[i + 1];
		b->function = xstrdup(i % 2 ? FIXTURE_ESCAPE_SEQ : FIXTURE_BAD_UTF8);
		b->file = NULL;
	}
}

static void fill_instances(fold_region_result *r, size_t n, double median_ns, unsigned group_count)
{
	r->ninst = n;
	r->inst = xcalloc(n, sizeof(fold_instance_info));
	double t = 1e6;
	unsigned long used = 0, outliers = 0;
	double total = 0, mn = INFINITY, mx = 0;
	for (size_t i = 0; i < n; i++) {
		fold_instance_info *in = &r->inst[i];
		in->rank = (long)(i % 2);
		in->thread = (unsigned)(1 + (i / 2) % 2);
		in->group = (unsigned)(i % group_count);
		double d = median_ns * (1 + (uniform() - 0.5) * 0.1) * (1 + 0.08 * in->rank);
		in->used = 1;
		if (i % 17 == 5) {
			d *= 2.5; /* an outlier the analysis excluded */
			in->used = 0;
			outliers++;
		}
		in->duration_ns = d;
		in->start_ns = t;
		t += d * 1.3;
		used += (unsigned long)in->used;
		total += d;
		mn = fmin(mn, d);
		mx = fmax(mx, d);
	}
	r->instances = n;
	r->instances_used = used;
	r->total_ns = total;
	r->mean_duration_ns = total / (double)n;
	r->ngroups = group_count;
	r->groups = xcalloc(group_count, sizeof(fold_group));
	for (unsigned g = 0; g < group_count; g++) {
		fold_group *gr = &r->groups[g];
		gr->id = g;
		gr->instances = n / group_count;
		gr->used = g == 0 ? used : gr->instances;
		gr->excluded_outliers = g == 0 ? outliers : 0;
		gr->excluded_other = g == 0 ? 1 : 0;
		gr->median_duration_ns = median_ns * (g == 0 ? 1 : 0.4);
		gr->mad_duration_ns = median_ns * 0.03;
		gr->min_duration_ns = mn;
		gr->max_duration_ns = mx;
		gr->tail_of = -1;
	}
	r->selected_group = 0;
}

static void fill_procs(fold_analysis *a)
{
	a->nprocs = 2;
	a->procs = xcalloc(2, sizeof(fold_process));
	for (size_t i = 0; i < 2; i++) {
		fold_process *p = &a->procs[i];
		p->trace_path = xfmt("/scratch/run \"1\"/app.%ld.fold", 4242 + (long)i);
		p->ninfo = 8;
		p->info = xcalloc(p->ninfo, sizeof(fold_kv));
		set_kv(&p->info[0], "fold.version", "0.1.0");
		set_kv(&p->info[1], "host", i == 0 ? "node001" : "node<002>&co");
		set_kv(&p->info[2], "exe", "/opt/app/bin/app");
		set_kv(&p->info[3], "cmdline", FIXTURE_CMDLINE);
		set_kv(&p->info[4], "clock.source", "tsc");
		set_kv(&p->info[5], "sample.source", "time");
		set_kv(&p->info[6], "sample.period", "10000000");
		set_kv(&p->info[7], "counters.mode", "software");
		p->host = p->info[1].value;
		p->exe = p->info[2].value;
		p->cmdline = p->info[3].value;
		p->pid = 4242 + (long)i;
		p->rank = (long)i;
		p->size = 2;
		p->nthreads = 2;
		p->duration_ns = 2.75e9 + 1e7 * (double)i;
		p->nstats = 4;
		p->stats = xcalloc(4, sizeof(fold_kv));
		set_kv(&p->stats[0], "samples.taken", "1523");
		set_kv(&p->stats[1], "samples.dropped.in_runtime", "3");
		set_kv(&p->stats[2], "samples.dropped.unwind_failed", "12");
		set_kv(&p->stats[3], "bytes.written", "181234");
		if (i == 1) {
			p->nsalvage = 1;
			p->salvage_messages = xcalloc(1, sizeof(char *));
			p->salvage_messages[0] =
			    xstrdup("chunk 17 of stream 2: checksum mismatch, 412 records skipped");
		}
	}
}

static void fill_profile(fold_analysis *a)
{
	static const char *const names[] = {"main",
	                                    FIXTURE_REGION_SOLVE,
	                                    FIXTURE_FUNC_KERNEL,
	                                    FIXTURE_REGION_FLUX,
	                                    FIXTURE_FUNC_OPERATOR,
	                                    FIXTURE_REGION_MPI,
	                                    FIXTURE_BAD_UTF8};
	static const unsigned kinds[] = {TRACE_REGION_FUNCTION, TRACE_REGION_API,      TRACE_REGION_FUNCTION,
	                                 TRACE_REGION_FUNCTION, TRACE_REGION_FUNCTION, TRACE_REGION_MPI,
	                                 TRACE_REGION_FUNCTION};
	static const double incl[] = {5.4e9, 3.1e9, 2.2e9, 1.2e9, 0.3e9, 0.6e9, 0.01e9};
	static const unsigned long calls[] = {4, 160, 640, 160, 12, 160, 3};
	a->nprofile = 7;
	a->profile = xcalloc(7, sizeof(fold_profile_entry));
	for (size_t i = 0; i < 7; i++) {
		fold_profile_entry *e = &a->profile[i];
		e->name = xstrdup(names[i]);
		e->kind = kinds[i];
		e->calls = calls[i];
		e->inclusive_ns = incl[i];
		e->exclusive_ns = incl[i] * (i == 0 ? 0.05 : 0.6);
		e->mean_ns = incl[i] / (double)calls[i];
		e->min_ns = e->mean_ns * 0.8;
		e->max_ns = e->mean_ns * 2.4;
		e->nthreads = i == 0 ? 2 : 4;
		e->unbalanced = i == 2 ? 3 : 0;
		e->nper_thread = e->nthreads;
		e->per_thread = xcalloc(e->nthreads, sizeof(fold_profile_thread));
		for (size_t k = 0; k < e->nthreads; k++) {
			fold_profile_thread *t = &e->per_thread[k];
			t->rank = (long)(k / 2);
			t->thread = (unsigned)(k % 2 + 1);
			t->calls = calls[i] / e->nthreads;
			t->inclusive_ns = incl[i] / e->nthreads * (k == 0 ? 1.3 : 0.9);
			t->exclusive_ns = t->inclusive_ns * 0.6;
			t->min_ns = e->min_ns;
			t->max_ns = e->max_ns;
		}
	}
	a->hook_overhead_ns = 7.25;
	a->nlines = 2;
	a->lines = xcalloc(2, sizeof(fold_attribution));
	a->lines[0].function = xstrdup(FIXTURE_FUNC_KERNEL);
	a->lines[0].file = xstrdup(FIXTURE_FILE_HOSTILE);
	a->lines[0].line = 121;
	a->lines[0].samples = 1480;
	a->lines[0].share = 0.52;
	a->lines[1].function = xstrdup("axpy_inner");
	a->lines[1].file = xstrdup("/src/blas/axpy.h");
	a->lines[1].line = 18;
	a->lines[1].samples = 770;
	a->lines[1].share = 0.27;
	a->nmodels_used = 1;
	a->models_used = xcalloc(1, sizeof(char *));
	a->models_used[0] = xstrdup("cpi<stack>");
	a->nmodels_skipped = 1;
	a->models_skipped = xcalloc(1, sizeof(fold_kv));
	a->models_skipped[0].key = xstrdup("topdown-icelake");
	a->models_skipped[0].value = xstrdup("no counter for slots (perf::slots) in the trace");
	static const char *const pairs[][2] = {{"main", FIXTURE_REGION_SOLVE},
	                                       {FIXTURE_REGION_SOLVE, FIXTURE_FUNC_KERNEL},
	                                       {"main", FIXTURE_REGION_FLUX},
	                                       {FIXTURE_REGION_FLUX, FIXTURE_FUNC_OPERATOR},
	                                       {"main", FIXTURE_REGION_MPI}};
	a->ncallpairs = 5;
	a->callpairs = xcalloc(5, sizeof(fold_callpair));
	for (size_t i = 0; i < 5; i++) {
		a->callpairs[i].caller = xstrdup(pairs[i][0]);
		a->callpairs[i].callee = xstrdup(pairs[i][1]);
		a->callpairs[i].calls = 160 * (i + 1);
		a->callpairs[i].inclusive_ns = 1e9 / (double)(i + 1);
	}
}

/* main -> solve -> {kernel, operator<<} ; main -> compute_flux -> helper ; main -> MPI */
static void fill_cct(fold_analysis *a)
{
	static const struct {
		const char *fn;
		const char *file;
		unsigned line;
		size_t parent;
		unsigned long self;
	} nodes[] = {
	    {"main", "/src/main.c", 10, SIZE_MAX, 5},
	    {FIXTURE_REGION_SOLVE, "/src/solve.cpp", 40, 0, 60},
	    {FIXTURE_FUNC_KERNEL, FIXTURE_FILE_HOSTILE, 120, 1, 1480},
	    {FIXTURE_FUNC_OPERATOR, "/src/io.cpp", 7, 1, 90},
	    {FIXTURE_REGION_FLUX, "/src/flux.f90", 33, 0, 210},
	    {FIXTURE_FUNC_HELPER, "/src/blas/axpy.h", 17, 4, 620},
	    {FIXTURE_REGION_MPI, NULL, 0, 0, 230},
	    {FIXTURE_FUNC_HELPER, "/src/blas/axpy.h", 17, 2, 150},
	    {FIXTURE_LINE_SEP, NULL, 0, 0, 1},
	};
	size_t n = sizeof nodes / sizeof nodes[0];
	a->ncct = n;
	a->cct = xcalloc(n, sizeof(fold_cct_node));
	for (size_t i = 0; i < n; i++) {
		fold_cct_node *c = &a->cct[i];
		c->function = xstrdup(nodes[i].fn);
		c->file = xstrdup(nodes[i].file);
		c->line = nodes[i].line;
		c->parent = nodes[i].parent;
		c->self_samples = nodes[i].self;
		c->first_child = SIZE_MAX;
		c->next_sibling = SIZE_MAX;
	}
	/* Link children in order, and sum totals bottom-up (parents precede children). */
	for (size_t i = n; i-- > 0;) {
		fold_cct_node *c = &a->cct[i];
		c->total_samples += c->self_samples;
		if (c->parent == SIZE_MAX)
			continue;
		fold_cct_node *p = &a->cct[c->parent];
		c->next_sibling = p->first_child;
		p->first_child = i;
		p->total_samples += c->total_samples;
	}
}

static void fill_region(fold_region_result *r, const char *name, unsigned kind, const shape *s, size_t ninst,
                        double median_ns, size_t npoints, const char *const *fns, const char *const *files,
                        const char *method)
{
	r->name = xstrdup(name);
	r->kind = kind;
	fill_instances(r, ninst, median_ns, kind == TRACE_REGION_API ? 2 : 1);
	r->folded = 1;
	r->samples = (unsigned long)npoints + 37;
	r->samples_folded = (unsigned long)npoints;
	r->nseries = 8;
	r->series = xcalloc(r->nseries, sizeof(fold_series));
	double m = r->mean_duration_ns;
	fill_series(&r->series[0], "perf::TASK-CLOCK", "events/s", TRACE_COUNTER_SOFTWARE, s, m, m, npoints,
	            0);
	static const double ib[] = {0, 0.3, 0.7, 1}, ir[] = {1, 2.5, 0.8};
	shape other = {3, ib, ir};
	fill_series(&r->series[1], "PAPI_TOT_INS", "events/s", TRACE_COUNTER_HARDWARE, &other, 4.2e7, m,
	            npoints, 0);
	fill_series(&r->series[2], "bytes<sent>&\"q\"", "events/s", TRACE_COUNTER_APP, s, 1.5e6, m,
	            npoints / 4, 0);
	fill_series(&r->series[3], "IPC", "ratio", 0, &other, 1.3, m, 0, 1);
	/* A stacked model: series sharing the "cpi/" prefix. */
	static const double cb[] = {0, 0.5, 1}, c1[] = {1, 1}, c2[] = {0.2, 1.4}, c3[] = {0.6, 0.1};
	shape s1 = {2, cb, c1}, s2 = {2, cb, c2}, s3 = {2, cb, c3};
	fill_series(&r->series[4], "cpi/base", "cycles/instruction", 0, &s1, 0.45, m, 0, 1);
	fill_series(&r->series[5], "cpi/memory", "cycles/instruction", 0, &s2, 0.6, m, 0, 1);
	fill_series(&r->series[6], "cpi/branch<mispredict>", "cycles/instruction", 0, &s3, 0.2, m, 0, 1);
	fill_series(&r->series[7], FIXTURE_LINE_SEP, "ratio", 0, &other, 0.3, m, 0, 1);
	fill_phases(r, s, fns, files, m);
	fill_timeline(r, s, fns, files);
	r->fit_method = xstrdup(method);
	r->nfit_params = 3;
	r->fit_params = xcalloc(3, sizeof(fold_fit_param));
	r->fit_params[0] = (fold_fit_param){xstrdup("kernel"), FOLD_FIT_WORD, 0, 0, xstrdup("matern52"), ""};
	r->fit_params[1] = (fold_fit_param){xstrdup("nugget"), FOLD_FIT_NUMBER, 0.0021, 0, NULL, ""};
	r->fit_params[2] = (fold_fit_param){xstrdup("seed"), FOLD_FIT_INTEGER, 12345, 12345, NULL, ""};
	r->nfit_notes = 1;
	r->fit_notes = xcalloc(1, sizeof(fold_kv));
	set_kv(&r->fit_notes[0], "kriging.approximation", "exact (40 points, no binning)");
}

static fold_hot_function hot(const char *fn, const char *file, unsigned line, unsigned long samples,
                             double cpu_ns, double off_ns)
{
	fold_hot_function h = {xstrdup(fn),   xstrdup("/usr/lib/x86_64-linux-gnu/libgomp.so.1"),
	                       xstrdup(file), line,
	                       samples,       samples / 2,
	                       cpu_ns,        off_ns};
	return h;
}

/* Two ranks: rank 0 with an application thread, an OpenMP worker and an
 * idle MPI progress thread; rank 1 with an application thread and an idle
 * helper. Rank 1 computes 3x longer; the OpenMP region is imbalanced. */
static void fill_threads(fold_analysis *a)
{
	static const struct {
		unsigned proc, index, klass;
		unsigned long samples, waits;
		double cpu_ms, wall_ms;
	} th[] = {
	    {0, 0, FOLD_THREAD_APP, 100, 2, 900, 2760},
	    {0, 1, FOLD_THREAD_OPENMP, 80, 10, 700, 2700},
	    {0, 2, FOLD_THREAD_RUNTIME_IDLE, 270, 266, 3, 2760},
	    {1, 0, FOLD_THREAD_APP, 276, 1, 2700, 2760},
	    {1, 1, FOLD_THREAD_RUNTIME_IDLE, 270, 270, 2, 2760},
	};
	a->nthreads = sizeof th / sizeof *th;
	a->threads = xcalloc(a->nthreads, sizeof *a->threads);
	for (size_t i = 0; i < a->nthreads; i++) {
		fold_thread_summary *t = &a->threads[i];
		t->proc = th[i].proc;
		t->rank = (long)th[i].proc;
		t->stream = th[i].index + 1;
		t->index = th[i].index;
		t->klass = th[i].klass;
		t->name = i == 2 ? xstrdup("<b>progress</b>") : NULL;
		t->samples = th[i].samples;
		t->wait_samples = th[i].waits;
		t->cpu_ns = th[i].cpu_ms * 1e6;
		t->wall_ns = th[i].wall_ms * 1e6;
		t->cpu_known = 1;
		t->ntop = 1;
		t->top = xcalloc(1, sizeof *t->top);
		t->top[0] = th[i].klass == FOLD_THREAD_RUNTIME_IDLE
		                ? hot(FIXTURE_FUNC_WAIT, NULL, 0, th[i].samples, 1e6, 2.7e9)
		                : hot(i == 1 ? FIXTURE_FUNC_OMP : FIXTURE_FUNC_KERNEL, "/src/stencil.c", 42,
		                      th[i].samples, th[i].cpu_ms * 1e6, 1e6);
	}
	a->cpu_weighted = 1;
	a->nhot_cpu = 3;
	a->hot_cpu = xcalloc(3, sizeof *a->hot_cpu);
	a->hot_cpu[0] = hot(FIXTURE_FUNC_KERNEL, FIXTURE_FILE_HOSTILE, 130, 300, 3.3e9, 0.2e9);
	a->hot_cpu[1] = hot(FIXTURE_FUNC_OMP, "/src/integrate.cpp", 77, 80, 0.7e9, 0.1e9);
	a->hot_cpu[2] = hot(FIXTURE_FUNC_NOSYMS, NULL, 0, 76, 0.3e9, 1.9e9);
	a->nhot_wall = 3;
	a->hot_wall = xcalloc(3, sizeof *a->hot_wall);
	a->hot_wall[0] = hot(FIXTURE_FUNC_KERNEL, FIXTURE_FILE_HOSTILE, 130, 300, 3.3e9, 0.2e9);
	a->hot_wall[1] = hot(FIXTURE_FUNC_OMP, "/src/integrate.cpp", 77, 80, 0.7e9, 0.1e9);
	a->hot_wall[2] = hot(FIXTURE_FUNC_NOSYMS, NULL, 0, 76, 0.3e9, 1.9e9);
	a->nimbalance = 2;
	a->imbalance = xcalloc(2, sizeof *a->imbalance);
	static const double comp[] = {0.9e9, 2.7e9}, omp[] = {0.35e9, 0.7e9};
	const double *v[] = {comp, omp};
	for (size_t i = 0; i < 2; i++) {
		fold_imbalance *m = &a->imbalance[i];
		m->region = xstrdup(i ? FIXTURE_FUNC_OMP : "computation (outside MPI)");
		m->kind = i ? TRACE_REGION_OPENMP : 0;
		m->by_thread = (int)i;
		m->proc = 0;
		m->n = 2;
		m->values_ns = xcalloc(2, sizeof *m->values_ns);
		m->who = xcalloc(2, sizeof *m->who);
		for (size_t k = 0; k < 2; k++) {
			m->values_ns[k] = v[i][k];
			m->who[k] = i ? (long)k + 1 : (long)k;
		}
		m->min_ns = v[i][0];
		m->max_ns = v[i][1];
		m->mean_ns = (v[i][0] + v[i][1]) / 2;
		m->lb = m->mean_ns / m->max_ns;
		m->slowest = m->who[1];
	}
}

fold_analysis *report_fixture_new(size_t points_per_series)
{
	rng = 0x9e3779b97f4a7c15ull;
	fold_analysis *a = xcalloc(1, sizeof *a);
	fill_procs(a);
	a->ncounters = 3;
	a->counters = xcalloc(3, sizeof(fold_counter_info));
	a->counters[0].name = xstrdup("perf::TASK-CLOCK");
	a->counters[0].kind = TRACE_COUNTER_SOFTWARE;
	a->counters[1].name = xstrdup("PAPI_TOT_INS");
	a->counters[1].kind = TRACE_COUNTER_HARDWARE;
	a->counters[2].name = xstrdup("bytes<sent>&\"q\"");
	a->counters[2].kind = TRACE_COUNTER_APP;
	a->nmissing = 2;
	a->missing = xcalloc(2, sizeof(fold_missing_counter));
	a->missing[0].name = xstrdup("PAPI_L2_DCM");
	a->missing[0].reason = xstrdup("no hardware PMU: PAPI_add_event failed (Event does not exist)");
	a->missing[1].name = xstrdup("PAPI_BR_MSP");
	a->missing[1].reason = xstrdup("<b>not</b> supported & \"no\" fallback");

	a->nregions = 3;
	a->regions = xcalloc(3, sizeof(fold_region_result));
	static const double sb[] = {0, 0.22, 0.61, 1}, sr[] = {0.6, 1.8, 1.0};
	shape solve = {3, sb, sr};
	static const char *const solve_fns[] = {FIXTURE_FUNC_OPERATOR, FIXTURE_FUNC_KERNEL, FIXTURE_BAD_UTF8};
	static const char *const solve_files[] = {"/src/io.cpp", FIXTURE_FILE_HOSTILE, "/src/solve.cpp"};
	fill_region(&a->regions[0], FIXTURE_REGION_SOLVE, TRACE_REGION_API, &solve, 120, 1.8e7,
	            points_per_series, solve_fns, solve_files, "kriging");
	static const double fb[] = {0, 0.45, 1}, fr[] = {2.0, 0.7};
	shape flux = {2, fb, fr};
	static const char *const flux_fns[] = {FIXTURE_FUNC_HELPER, FIXTURE_REGION_FLUX};
	static const char *const flux_files[] = {"/src/blas/axpy.h", "/src/flux.f90"};
	fill_region(&a->regions[1], FIXTURE_REGION_FLUX, TRACE_REGION_FUNCTION, &flux, 60, 6e6,
	            points_per_series / 2, flux_fns, flux_files, "pwlr");
	fold_region_result *mpi = &a->regions[2];
	mpi->name = xstrdup(FIXTURE_REGION_MPI);
	mpi->kind = TRACE_REGION_MPI;
	fill_instances(mpi, 40, 3e5, 1);
	mpi->samples = 3;
	mpi->folded = 0;
	mpi->reason = xstrdup("too few samples (3 < 20) <script>alert(2)</script>");

	fill_profile(a);
	fill_cct(a);
	if (fold_analysis_bottom_up(a))
		abort();
	a->total_samples = 0;
	for (size_t i = 0; i < a->ncct; i++)
		a->total_samples += a->cct[i].self_samples;
	a->nwarnings = 4;
	a->warnings = xcalloc(4, sizeof(fold_warning));
	for (size_t i = 0; i < 4; i++)
		a->warnings[i].subject = fold_diag_subject_none();
	a->warnings[0] = (fold_warning){
	    .kind = FOLD_DIAG_PHASE_NO_RATES,
	    .severity = FOLD_DIAG_WARNING,
	    .subject = a->warnings[0].subject,
	    .values = {{"samples", "count", 9}},
	    .nvalues = 1,
	    .what = xstrdup("region " FIXTURE_REGION_FLUX ": phase 2 has only 9 samples (want >= 20)")};
	a->warnings[0].subject.type = FOLD_SUBJECT_PHASE;
	a->warnings[0].subject.region = xstrdup(FIXTURE_REGION_FLUX);
	a->warnings[0].subject.phase = 2;
	a->warnings[1].kind = FOLD_DIAG_SAMPLES_DROPPED;
	a->warnings[1].subject.type = FOLD_SUBJECT_PROCESS;
	a->warnings[1].subject.process = 0;
	a->warnings[1].what =
	    xstrdup("15 samples dropped (12 unwind_failed, 3 in_runtime) " FIXTURE_ESCAPE_SEQ);
	a->warnings[2].kind = FOLD_DIAG_FUNCTION_THROTTLED;
	a->warnings[2].severity = FOLD_DIAG_NOTE;
	a->warnings[2].subject.type = FOLD_SUBJECT_FUNCTION;
	a->warnings[2].subject.function = xstrdup(FIXTURE_FUNC_OPERATOR);
	a->warnings[2].what = xstrdup("function " FIXTURE_FUNC_OPERATOR " throttled after 100000 calls");
	/* about a region: the analysis marks where its full name is */
	a->warnings[3].kind = FOLD_DIAG_OUTLIERS_EXCLUDED;
	a->warnings[3].severity = FOLD_DIAG_NOTE;
	a->warnings[3].subject.type = FOLD_SUBJECT_REGION;
	a->warnings[3].subject.region = xstrdup(FIXTURE_FUNC_WARNED);
	a->warnings[3].what = xstrdup("region " FIXTURE_FUNC_WARNED
	                              ": 2 instance(s) of the folded group excluded as duration outliers");
	a->warnings[3].name_at = strlen("region ");
	a->warnings[3].name_len = strlen(FIXTURE_FUNC_WARNED);
	a->sample_config = xstrdup("time@10ms jitter 10%");
	fill_threads(a);
	return a;
}

void report_fixture_wall_time_only(fold_phase_result *p)
{
	if (!p->nrates)
		abort();
	free(p->rate_names[0]);
	p->rate_names[0] = xstrdup("wall_time");
	p->rates[0] = 1;
	for (size_t i = 1; i < p->nrates; i++)
		free(p->rate_names[i]);
	p->nrates = 1;
	p->nrange = 0;
	p->nrate_ci = 0;
}
