/* csv.c: `fold --csv DIR`: the analysis as tidy CSV tables, one observation
 * per row, for R, pandas or a spreadsheet.
 *
 * Files: regions.csv, samples.csv (folded samples), curves.csv (fitted
 * curves), phases.csv, phase_rates.csv, phase_sources.csv, instances.csv,
 * profile.csv (exact region profile), callpairs.csv, calltree.csv (sampled
 * call tree), bottomup.csv (the same samples bottom-up). Fields follow RFC 4180; strings are UTF-8-sanitised
 * and a leading = + - @ TAB CR is defused, other control characters become '?' (report_esc_csv). Numbers use
 * %.9g, NaN/inf as empty fields. Each file is written whole through a temporary + rename.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "report_text.h"

static void num(util_buf *b, double v)
{
	if (isfinite(v))
		util_buf_printf(b, "%.9g", v);
}

static void str(util_buf *b, const char *s)
{
	report_esc_csv(b, s);
}

static void sep(util_buf *b)
{
	util_buf_putc(b, ',');
}

static void eol(util_buf *b)
{
	util_buf_puts(b, "\r\n");
}

static int write_table(const char *dir, const char *name, util_buf *b, char *err, size_t errlen)
{
	size_t n = strlen(dir) + strlen(name) + 2;
	char *path = malloc(n);
	if (!path) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -ENOMEM;
	}
	snprintf(path, n, "%s/%s", dir, name);
	int rc = report_out_buf(b, path, err, errlen);
	free(path);
	util_buf_free(b);
	util_buf_init(b);
	return rc;
}

static void regions_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,rank_by_time,kind,instances,instances_used,samples,samples_folded,total_ns,"
	                 "mean_duration_ns,folded,reason,fit_method,phases,throttled,estimated_total_ns\r\n");
	for (size_t i = 0; i < a->nregions; i++) {
		const fold_region_result *r = &a->regions[i];
		str(b, r->name);
		util_buf_printf(b, ",%zu,%u,%lu,%lu,%lu,%lu,", i + 1, r->kind, r->instances,
		                r->instances_used, r->samples, r->samples_folded);
		num(b, r->total_ns);
		sep(b);
		num(b, r->mean_duration_ns);
		util_buf_printf(b, ",%d,", r->folded);
		str(b, r->reason);
		sep(b);
		str(b, r->fit_method);
		util_buf_printf(b, ",%zu,%d,", r->nphases, r->throttled);
		if (r->throttled && r->est_samples)
			num(b, r->est_total_ns);
		eol(b);
	}
}

static void samples_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,series,x,cumulative_share\r\n");
	for (size_t i = 0; i < a->nregions; i++)
		for (size_t s = 0; s < a->regions[i].nseries; s++) {
			const fold_series *se = &a->regions[i].series[s];
			for (size_t k = 0; k < se->npoints && se->px && se->py; k++) {
				str(b, a->regions[i].name);
				sep(b);
				str(b, se->name);
				sep(b);
				num(b, se->px[k]);
				sep(b);
				num(b, se->py[k]);
				eol(b);
			}
		}
}

static void curves_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,series,unit,derived,x,cumulative_share,value,value_lo,value_hi\r\n");
	for (size_t i = 0; i < a->nregions; i++)
		for (size_t s = 0; s < a->regions[i].nseries; s++) {
			const fold_series *se = &a->regions[i].series[s];
			const fold_curve *c = &se->fit;
			for (size_t k = 0; k < c->n; k++) {
				str(b, a->regions[i].name);
				sep(b);
				str(b, se->name);
				sep(b);
				str(b, se->unit);
				util_buf_printf(b, ",%d,", se->derived);
				num(b, c->x[k]);
				sep(b);
				if (c->cum)
					num(b, c->cum[k]);
				sep(b);
				num(b, c->value[k]);
				sep(b);
				if (c->lo)
					num(b, c->lo[k]);
				sep(b);
				if (c->hi)
					num(b, c->hi[k]);
				eol(b);
			}
		}
}

static void phases_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,phase,start,end,duration_ns,samples\r\n");
	for (size_t i = 0; i < a->nregions; i++)
		for (size_t k = 0; k < a->regions[i].nphases; k++) {
			const fold_phase_result *p = &a->regions[i].phases[k];
			str(b, a->regions[i].name);
			util_buf_printf(b, ",%zu,", k + 1);
			num(b, p->start);
			sep(b);
			num(b, p->end);
			sep(b);
			num(b, fold_phase_duration_ns(&a->regions[i], p));
			util_buf_printf(b, ",%lu", p->samples);
			eol(b);
		}
}

static void phase_rates_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,phase,metric,rate\r\n");
	for (size_t i = 0; i < a->nregions; i++)
		for (size_t k = 0; k < a->regions[i].nphases; k++) {
			const fold_phase_result *p = &a->regions[i].phases[k];
			for (size_t m = 0; m < p->nrates; m++) {
				str(b, a->regions[i].name);
				util_buf_printf(b, ",%zu,", k + 1);
				str(b, p->rate_names[m]);
				sep(b);
				num(b, p->rates[m]);
				eol(b);
			}
		}
}

static void phase_sources_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,phase,rank,function,file,line,module,share,samples,inlined_in\r\n");
	for (size_t i = 0; i < a->nregions; i++)
		for (size_t k = 0; k < a->regions[i].nphases; k++) {
			const fold_phase_result *p = &a->regions[i].phases[k];
			for (size_t t = 0; t < p->ntop; t++) {
				const fold_attribution *at = &p->top[t];
				str(b, a->regions[i].name);
				util_buf_printf(b, ",%zu,%zu,", k + 1, t + 1);
				str(b, at->function);
				sep(b);
				str(b, at->file);
				util_buf_printf(b, ",%u,", at->line);
				str(b, at->module);
				sep(b);
				num(b, at->share);
				util_buf_printf(b, ",%lu,", at->samples);
				/* The inline chain as "outer<-...": its functions after the innermost. */
				util_buf b2;
				util_buf_init(&b2);
				for (size_t f = 1; f < at->ninline; f++) {
					if (f > 1)
						util_buf_puts(&b2, " <- ");
					util_buf_puts(&b2, at->inline_chain[f].function
					                       ? at->inline_chain[f].function
					                       : "?");
				}
				if (b2.oom)
					b->oom = 1;
				str(b, b2.data);
				util_buf_free(&b2);
				eol(b);
			}
		}
}

static void instances_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,rank,thread,group,start_ns,duration_ns,used\r\n");
	for (size_t i = 0; i < a->nregions; i++)
		for (size_t k = 0; k < a->regions[i].ninst; k++) {
			const fold_instance_info *in = &a->regions[i].inst[k];
			str(b, a->regions[i].name);
			util_buf_printf(b, ",%ld,%u,%u,", in->rank, in->thread, in->group);
			num(b, in->start_ns);
			sep(b);
			num(b, in->duration_ns);
			util_buf_printf(b, ",%d", in->used ? 1 : 0);
			eol(b);
		}
}

static void profile_table(util_buf *b, const fold_analysis *a)
{
	/* throttled rows: calls and times are the recorded calls; the estimate
	 * (empty when not throttled or no sample holds the function) is the
	 * whole run's inclusive time from the samples */
	util_buf_puts(b, "region,kind,calls,inclusive_ns,exclusive_ns,min_ns,mean_ns,max_ns,threads,"
	                 "throttled,estimated_inclusive_ns,estimated_from_samples,hooks_ns,"
	                 "nested_overhead_ns\r\n");
	for (size_t i = 0; i < a->nprofile; i++) {
		const fold_profile_entry *e = &a->profile[i];
		str(b, e->name);
		util_buf_printf(b, ",%u,%lu,", e->kind, e->calls);
		num(b, e->inclusive_ns);
		sep(b);
		num(b, e->exclusive_ns);
		sep(b);
		num(b, e->min_ns);
		sep(b);
		num(b, e->mean_ns);
		sep(b);
		num(b, e->max_ns);
		util_buf_printf(b, ",%u,%d,", e->nthreads, e->throttled);
		if (e->throttled && e->est_samples) {
			num(b, e->est_inclusive_ns);
			util_buf_printf(b, ",%lu", e->est_samples);
		} else {
			util_buf_puts(b, ",");
		}
		sep(b);
		num(b, e->hooks_ns);
		sep(b);
		num(b, e->nested_overhead_ns);
		eol(b);
	}
}

static void callpairs_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "caller,callee,calls,inclusive_ns\r\n");
	for (size_t i = 0; i < a->ncallpairs; i++) {
		str(b, a->callpairs[i].caller);
		sep(b);
		str(b, a->callpairs[i].callee);
		util_buf_printf(b, ",%lu,", a->callpairs[i].calls);
		num(b, a->callpairs[i].inclusive_ns);
		eol(b);
	}
}

static void tree_table(util_buf *b, const fold_cct_node *t, size_t n)
{
	util_buf_puts(b, "node,parent,function,file,line,self_samples,total_samples\r\n");
	for (size_t i = 0; i < n; i++) {
		const fold_cct_node *c = &t[i];
		util_buf_printf(b, "%zu,", i);
		if (c->parent != SIZE_MAX)
			util_buf_printf(b, "%zu", c->parent);
		sep(b);
		str(b, c->function);
		sep(b);
		str(b, c->file);
		util_buf_printf(b, ",%u,%lu,%lu", c->line, c->self_samples, c->total_samples);
		eol(b);
	}
}

static const char *thread_class_name(unsigned k)
{
	return k == FOLD_THREAD_OPENMP         ? "openmp"
	       : k == FOLD_THREAD_RUNTIME_IDLE ? "runtime_idle"
	                                       : "application";
}

/* The threads, classed (threads_class.c); cpu_ns empty when not measured. */
static void threads_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(
	    b, "process,rank,thread,index,class,name,samples,wait_samples,wall_ns,cpu_ns,top_function\r\n");
	for (size_t i = 0; i < a->nthreads; i++) {
		const fold_thread_summary *t = &a->threads[i];
		util_buf_printf(b, "%u,%ld,%u,%u,%s,", t->proc, t->rank, t->stream, t->index,
		                thread_class_name(t->klass));
		str(b, t->name);
		util_buf_printf(b, ",%lu,%lu,", t->samples, t->wait_samples);
		num(b, t->wall_ns);
		sep(b);
		if (t->cpu_known)
			num(b, t->cpu_ns);
		sep(b);
		str(b, t->top_function);
		eol(b);
	}
}

static void hot_table(util_buf *b, const fold_hot_function *h, size_t n)
{
	util_buf_puts(b, "rank_by_time,function,module,file,line,samples,line_samples,cpu_ns,off_cpu_ns\r\n");
	for (size_t i = 0; i < n; i++) {
		util_buf_printf(b, "%zu,", i + 1);
		str(b, h[i].function);
		sep(b);
		str(b, h[i].module);
		sep(b);
		str(b, h[i].file);
		util_buf_printf(b, ",%u,%lu,%lu,", h[i].line, h[i].samples, h[i].line_samples);
		num(b, h[i].cpu_ns);
		sep(b);
		num(b, h[i].off_cpu_ns);
		eol(b);
	}
}

/* Where the CPUs worked (functions by CPU time) and where threads waited. */
static void hot_cpu_table(util_buf *b, const fold_analysis *a)
{
	hot_table(b, a->hot_cpu, a->nhot_cpu);
}
static void hot_wall_table(util_buf *b, const fold_analysis *a)
{
	hot_table(b, a->hot_wall, a->nhot_wall);
}

/* Imbalance: one row per (region, rank or thread), with the region's
 * summary repeated (tidy: filter on slowest = 1 for one row per region). */
static void imbalance_table(util_buf *b, const fold_analysis *a)
{
	util_buf_puts(b, "region,kind,by,process,who,value_ns,min_ns,mean_ns,max_ns,max_over_mean,"
	                 "load_balance,slowest\r\n");
	for (size_t i = 0; i < a->nimbalance; i++) {
		const fold_imbalance *m = &a->imbalance[i];
		for (size_t k = 0; k < m->n; k++) {
			str(b, m->region);
			util_buf_printf(b, ",%u,%s,", m->kind, m->by_thread ? "thread" : "rank");
			if (m->by_thread)
				util_buf_printf(b, "%u", m->proc);
			util_buf_printf(b, ",%ld,", m->who[k]);
			num(b, m->values_ns[k]);
			sep(b);
			num(b, m->min_ns);
			sep(b);
			num(b, m->mean_ns);
			sep(b);
			num(b, m->max_ns);
			sep(b);
			num(b, m->mean_ns > 0 ? m->max_ns / m->mean_ns : 0);
			sep(b);
			num(b, m->lb);
			util_buf_printf(b, ",%d", m->who[k] == m->slowest);
			eol(b);
		}
	}
}

static void calltree_table(util_buf *b, const fold_analysis *a)
{
	tree_table(b, a->cct, a->ncct);
}

static void bottomup_table(util_buf *b, const fold_analysis *a)
{
	tree_table(b, a->bottom_up, a->nbottom_up);
}

static const struct {
	const char *name;
	void (*fill)(util_buf *, const fold_analysis *);
} tables[] = {
    {"regions.csv", regions_table},         {"samples.csv", samples_table},
    {"curves.csv", curves_table},           {"phases.csv", phases_table},
    {"phase_rates.csv", phase_rates_table}, {"phase_sources.csv", phase_sources_table},
    {"instances.csv", instances_table},     {"profile.csv", profile_table},
    {"callpairs.csv", callpairs_table},     {"calltree.csv", calltree_table},
    {"bottomup.csv", bottomup_table},       {"threads.csv", threads_table},
    {"hot_cpu.csv", hot_cpu_table},         {"hot_wall.csv", hot_wall_table},
    {"imbalance.csv", imbalance_table},
};
#define NTABLES (sizeof tables / sizeof tables[0])

const char *const *report_csv_table_names(size_t *n)
{
	static const char *names[NTABLES];
	for (size_t i = 0; i < NTABLES; i++)
		names[i] = tables[i].name;
	*n = NTABLES;
	return names;
}

int report_csv_write(const fold_analysis *a, const char *dir, char *err, size_t errlen)
{
	if (!a || !dir) {
		snprintf(err, errlen, "csv: no analysis or no directory");
		return -EINVAL;
	}
	if (mkdir(dir, 0777) != 0 && errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "%s: cannot create directory: %s", dir, strerror(e));
		return -e;
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
		         "%s exists and is not a directory: --csv writes its tables into a directory", dir);
		return -ENOTDIR;
	}
	util_buf b;
	util_buf_init(&b);
	for (size_t i = 0; i < NTABLES; i++) {
		tables[i].fill(&b, a);
		int rc = write_table(dir, tables[i].name, &b, err, errlen);
		if (rc) {
			util_buf_free(&b);
			return rc;
		}
	}
	util_buf_free(&b);
	return 0;
}
