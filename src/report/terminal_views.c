/* terminal_views.c: the sections of the terminal summary that answer
 * before any region is folded: where the CPUs worked and where threads
 * spent wall time (functions with their hottest line and sample counts),
 * the threads with their class and busy share, the imbalance over ranks
 * and threads, and how to record a region when none was.
 *
 * Invariants: every line fits the width (names shortened by
 * report_short_name, long text wrapped, never cut mid-sentence); idle
 * runtime helper threads are summarised in one line, never listed among
 * the application's functions.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "names.h"
#include "terminal_views.h"

#define HOT_ROWS 8
#define THREAD_ROWS 12

static const char *class_label(unsigned k)
{
	switch (k) {
	case FOLD_THREAD_OPENMP: return "OpenMP worker";
	case FOLD_THREAD_RUNTIME_IDLE: return "idle helper";
	default: return "application";
	}
}

/* "plain.c:3": the file's base name and line, or the module's base name. */
static void location(const fold_hot_function *h, char *out, size_t n)
{
	const char *f = h->file ? h->file : NULL;
	if (f) {
		const char *b = strrchr(f, '/');
		snprintf(out, n, "%s:%u", b ? b + 1 : f, h->line);
		return;
	}
	const char *m = h->module ? strrchr(h->module, '/') : NULL;
	snprintf(out, n, "%s", m ? m + 1 : h->module ? h->module : "");
}

static void name_cell(term *t, const char *full, unsigned w)
{
	char s[512];
	report_short_name(full, w, s, sizeof s);
	term_cell(t, s, w, 0);
}

/* Counts of the threads per class, and their samples. */
static void class_counts(const fold_analysis *a, size_t *n, unsigned long *samples, unsigned long *waits)
{
	for (unsigned k = 0; k < 3; k++)
		n[k] = samples[k] = waits[k] = 0;
	for (size_t i = 0; i < a->nthreads; i++) {
		unsigned k = a->threads[i].klass < 3 ? a->threads[i].klass : 0;
		n[k]++;
		samples[k] += a->threads[i].samples;
		waits[k] += a->threads[i].wait_samples;
	}
}

/* Function rows: value column (CPU time or off-CPU share), share, samples, name, hottest line. */
static void hot_rows(term *t, const fold_analysis *a, const fold_hot_function *h, size_t n, int cpu)
{
	/* shares of all the busy threads' time (hot lists keep their top rows only) */
	double total_cpu = a->hot_cpu_total_ns;
	unsigned long total = a->hot_samples_total;
	/* The location is kept whole: its column is as wide as the widest shown. */
	unsigned locw = 12;
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		char loc[256];
		location(&h[i], loc, sizeof loc);
		unsigned w = report_term_width(loc);
		if (w > locw)
			locw = w;
	}
	if (locw > t->width * 2 / 5)
		locw = t->width * 2 / 5;
	unsigned fixed = 2 + 9 + 7 + 9 + 2;
	unsigned namew = t->width > fixed + locw + 1 + 12 ? t->width - fixed - locw - 1 : 12;
	term_sgr(t, "2");
	term_put(t, "  ");
	term_cell(t, cpu ? "CPU" : "off CPU", 9, 1);
	term_cell(t, "share", 7, 1);
	term_cell(t, "samples", 9, 1);
	term_put(t, "  ");
	term_cell(t, "function", namew, 0);
	term_put(t, " ");
	term_put(t, "hottest line");
	term_sgr(t, "0");
	term_newline(t);
	for (size_t i = 0; i < n && i < HOT_ROWS; i++) {
		const fold_hot_function *r = &h[i];
		char v[32], loc[256];
		term_put(t, "  ");
		if (cpu && a->cpu_weighted) {
			report_fmt_ns(v, sizeof v, r->cpu_ns);
			term_cell(t, v, 9, 1);
			snprintf(v, sizeof v, "%.1f%%", total_cpu > 0 ? 100 * r->cpu_ns / total_cpu : 0);
		} else if (cpu) {
			term_cell(t, "-", 9, 1);
			snprintf(v, sizeof v, "%.1f%%",
			         total ? 100.0 * (double)r->samples / (double)total : 0);
		} else {
			double wall = r->cpu_ns + r->off_cpu_ns;
			snprintf(v, sizeof v, "%.0f%%", wall > 0 ? 100 * r->off_cpu_ns / wall : 0);
			term_cell(t, v, 9, 1);
			snprintf(v, sizeof v, "%.1f%%",
			         total ? 100.0 * (double)r->samples / (double)total : 0);
		}
		term_cell(t, v, 7, 1);
		snprintf(v, sizeof v, "%lu", r->samples);
		term_cell(t, v, 9, 1);
		term_put(t, "  ");
		name_cell(t, r->function, namew);
		term_put(t, " ");
		location(r, loc, sizeof loc);
		term_put(t, loc);
		term_newline(t);
	}
}

void term_view_hot(term *t, const fold_analysis *a)
{
	if (!a->nhot_cpu)
		return;
	size_t nc[3];
	unsigned long sc[3], wc[3];
	class_counts(a, nc, sc, wc);
	size_t busy = nc[FOLD_THREAD_APP] + nc[FOLD_THREAD_OPENMP];
	char h[160];
	if (a->cpu_weighted) {
		double cpu = 0;
		for (size_t i = 0; i < a->nthreads; i++)
			if (a->threads[i].klass != FOLD_THREAD_RUNTIME_IDLE)
				cpu += a->threads[i].cpu_ns;
		cpu += a->dropped_cpu_ns; /* its own row, FOLD_DROPPED_FUNCTION */
		char d[32];
		report_fmt_ns(d, sizeof d, cpu);
		snprintf(h, sizeof h, "Where the CPUs worked: %s of CPU time on %zu thread%s", d, busy,
		         busy == 1 ? "" : "s");
	} else {
		snprintf(h, sizeof h, "Where the threads ran: samples of %zu thread%s (no CPU time measured)",
		         busy, busy == 1 ? "" : "s");
	}
	term_heading(t, h);
	hot_rows(t, a, a->hot_cpu, a->nhot_cpu, 1);
	/* Wall view: only when it says something the CPU view does not. */
	double off = 0, all = 0;
	for (size_t i = 0; i < a->nhot_wall; i++) {
		off += a->hot_wall[i].off_cpu_ns;
		all += a->hot_wall[i].off_cpu_ns + a->hot_wall[i].cpu_ns;
	}
	if (a->cpu_weighted && all > 0 && off > 0.1 * all) {
		snprintf(h, sizeof h,
		         "Where the threads spent wall time (%.0f%% of it off CPU: waiting or preempted)",
		         100 * off / all);
		term_heading(t, h);
		hot_rows(t, a, a->hot_wall, a->nhot_wall, 0);
	}
}

static void thread_label(const fold_analysis *a, const fold_thread_summary *s, char *out, size_t n)
{
	int mpi = 0;
	for (size_t i = 0; i < a->nprocs; i++)
		mpi |= a->procs[i].rank >= 0;
	const fold_process *pr = s->proc < a->nprocs ? &a->procs[s->proc] : NULL;
	const char *exe = pr && pr->exe ? strrchr(pr->exe, '/') : NULL;
	exe = exe ? exe + 1 : pr ? pr->exe : NULL;
	if (mpi && s->rank < 0) /* a launcher's daemon traced with the ranks */
		snprintf(out, n, "%s %ld%s #%u", exe ? exe : "pid", pr ? pr->pid : -1L,
		         pr && pr->exec_replaced ? " pre-exec" : "", s->index);
	else if (mpi)
		snprintf(out, n, "rank %ld #%u", s->rank, s->index);
	else if (a->nprocs > 1)
		snprintf(out, n, "proc %u #%u", s->proc, s->index);
	else
		snprintf(out, n, "#%u", s->index);
}

/* Too many threads to list: the busy share of the ranks' (processes')
 * main threads in one line, the least and the most busy named. */
static void ranks_busy(term *t, const fold_analysis *a)
{
	double sum = 0, lo = 2, hi = -1;
	long lo_who = -1, hi_who = -1;
	size_t n = 0;
	for (size_t i = 0; i < a->nthreads; i++) {
		const fold_thread_summary *s = &a->threads[i];
		if (s->index || !s->cpu_known || !(s->wall_ns > 0))
			continue;
		double b = fmin(1, s->cpu_ns / s->wall_ns);
		long who = s->rank >= 0 ? s->rank : (long)s->proc;
		sum += b;
		n++;
		if (b < lo) {
			lo = b;
			lo_who = who;
		}
		if (b > hi) {
			hi = b;
			hi_who = who;
		}
	}
	if (n < 2)
		return;
	const char *what = a->threads[0].rank >= 0 ? "rank" : "process";
	char line[256];
	snprintf(line, sizeof line,
	         "%ss' main threads busy: least %.0f%% (%s %ld), mean %.0f%%, most %.0f%% (%s %ld)", what,
	         100 * lo, what, lo_who, 100 * sum / (double)n, 100 * hi, what, hi_who);
	term_put(t, "  ");
	term_wrapped(t, line, 4);
	term_newline(t);
}

void term_view_threads(term *t, const fold_analysis *a)
{
	if (!a->nthreads)
		return;
	term_heading(t, "Threads (busy: CPU time / wall time; waits: samples in kernel waits)");
	unsigned labw = 14, fixed = 2 + 14 + 1 + 13 + 8 + 7 + 7 + 2;
	unsigned namew = t->width > fixed + 12 ? t->width - fixed : 12;
	term_sgr(t, "2");
	term_put(t, "  ");
	term_cell(t, "thread", labw, 0);
	term_put(t, " ");
	term_cell(t, "class", 13, 0);
	term_cell(t, "samples", 8, 1);
	term_cell(t, "busy", 7, 1);
	term_cell(t, "waits", 7, 1);
	term_put(t, "  ");
	term_put(t, "top function");
	term_sgr(t, "0");
	term_newline(t);
	size_t shown = 0, idle = 0;
	for (size_t i = 0; i < a->nthreads; i++) {
		const fold_thread_summary *s = &a->threads[i];
		if (s->klass == FOLD_THREAD_RUNTIME_IDLE) {
			idle++;
			continue;
		}
		if (shown++ >= THREAD_ROWS)
			continue;
		char v[64];
		term_put(t, "  ");
		thread_label(a, s, v, sizeof v);
		term_cell(t, v, labw, 0);
		term_put(t, " ");
		term_cell(t, class_label(s->klass), 13, 0);
		snprintf(v, sizeof v, "%lu", s->samples);
		term_cell(t, v, 8, 1);
		if (s->cpu_known && s->wall_ns > 0)
			snprintf(v, sizeof v, "%.0f%%", fmin(100, 100 * s->cpu_ns / s->wall_ns));
		else
			snprintf(v, sizeof v, "-");
		term_cell(t, v, 7, 1);
		snprintf(v, sizeof v, "%.0f%%",
		         s->samples ? 100.0 * (double)s->wait_samples / (double)s->samples : 0);
		term_cell(t, v, 7, 1);
		term_put(t, "  ");
		char nm[512];
		report_short_name(s->top_function ? s->top_function : "-", namew, nm, sizeof nm);
		term_put(t, nm);
		term_newline(t);
	}
	if (shown > THREAD_ROWS) {
		term_putf(t, "  ... %zu more application and OpenMP threads (the HTML report lists them all)",
		          shown - THREAD_ROWS);
		term_newline(t);
		ranks_busy(t, a);
	}
	if (idle) {
		unsigned long smp = 0, wt = 0;
		const char *top = NULL;
		unsigned long topn = 0;
		for (size_t i = 0; i < a->nthreads; i++) {
			const fold_thread_summary *s = &a->threads[i];
			if (s->klass != FOLD_THREAD_RUNTIME_IDLE)
				continue;
			smp += s->samples;
			wt += s->wait_samples;
			for (size_t k = 0; k < s->ntop; k++)
				if (s->top[k].function == s->top_function && s->top[k].samples > topn) {
					topn = s->top[k].samples;
					top = s->top_function;
				}
		}
		char line[512], topname[128];
		report_short_name(top ? top : "-", 40, topname, sizeof topname);
		if (smp)
			snprintf(line, sizeof line,
			         "+ %zu idle helper thread%s (MPI progress or runtime): %lu samples, %.0f%% "
			         "in kernel "
			         "waits (mostly %s); left out of the lists above.",
			         idle, idle == 1 ? "" : "s", smp, 100.0 * (double)wt / (double)smp, topname);
		else
			snprintf(
			    line, sizeof line,
			    "+ %zu helper thread%s (MPI or runtime) that no sample caught running: left out.",
			    idle, idle == 1 ? "" : "s");
		term_put(t, "  ");
		term_wrapped(t, line, 4);
		term_newline(t);
	}
}

void term_view_imbalance(term *t, const fold_analysis *a)
{
	if (!a->nimbalance)
		return;
	int ranks = 0, threads = 0;
	for (size_t i = 0; i < a->nimbalance; i++) {
		ranks |= !a->imbalance[i].by_thread;
		threads |= a->imbalance[i].by_thread;
	}
	term_heading(t, ranks && threads
	                    ? "Imbalance over ranks and threads (LB: load balance = mean / max, 1 "
	                      "is balanced)"
	                : ranks ? "Imbalance over ranks (LB: load balance = mean / max; 1 is balanced)"
	                        : "Imbalance over threads (LB: load balance = mean / max; 1 is balanced)");
	unsigned fixed = 2 + 8 * 3 + 9 + 5 + 2 + 10;
	unsigned namew = t->width > fixed + 12 ? t->width - fixed : 12;
	term_sgr(t, "2");
	term_put(t, "  ");
	term_cell(t, "region", namew, 0);
	term_cell(t, "min", 8, 1);
	term_cell(t, "mean", 8, 1);
	term_cell(t, "max", 8, 1);
	term_cell(t, "max/mean", 9, 1);
	term_cell(t, "LB", 5, 1);
	term_put(t, "  ");
	term_put(t, "slowest");
	term_sgr(t, "0");
	term_newline(t);
	size_t rows = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < a->nimbalance && rows < 12; i++) {
			const fold_imbalance *m = &a->imbalance[i];
			if (m->by_thread != pass || m->mean_ns <= 0)
				continue;
			/* Regions far smaller than the largest only add lines. */
			if (m->max_ns < 0.01 * a->imbalance[0].max_ns && i)
				continue;
			char v[64];
			term_put(t, "  ");
			name_cell(t, m->region, namew);
			report_fmt_ns(v, sizeof v, m->min_ns);
			term_cell(t, v, 8, 1);
			report_fmt_ns(v, sizeof v, m->mean_ns);
			term_cell(t, v, 8, 1);
			report_fmt_ns(v, sizeof v, m->max_ns);
			term_cell(t, v, 8, 1);
			snprintf(v, sizeof v, "%.2f", m->max_ns / m->mean_ns);
			term_cell(t, v, 9, 1);
			snprintf(v, sizeof v, "%.2f", m->lb);
			term_cell(t, v, 5, 1);
			term_put(t, "  ");
			if (m->by_thread) {
				unsigned idx = 0;
				for (size_t k = 0; k < a->nthreads; k++)
					if (a->threads[k].proc == m->proc &&
					    a->threads[k].stream == (unsigned)m->slowest)
						idx = a->threads[k].index;
				/* "rank 0 #1", as the threads are named above, when the run has ranks */
				if (a->procs[m->proc].rank >= 0 && a->nprocs > 1)
					snprintf(v, sizeof v, "rank %ld #%u", a->procs[m->proc].rank, idx);
				else
					snprintf(v, sizeof v, "thread #%u", idx);
			} else if (a->procs[0].rank >= 0) {
				snprintf(v, sizeof v, "rank %ld", m->slowest);
			} else {
				snprintf(v, sizeof v, "proc %ld", m->slowest);
			}
			if (m->lb < 0.9)
				term_sgr(t, "1");
			term_put(t, v);
			if (m->lb < 0.9)
				term_sgr(t, "0");
			term_newline(t);
			rows++;
		}
}

void term_view_no_regions(term *t)
{
	term_heading(t, "No region was recorded, so nothing was folded.");
	term_put(t, "  ");
	term_wrapped(
	    t,
	    "Mark repeated work with fold_enter()/fold_exit() (fold.h), or build with "
	    "-finstrument-functions and a FOLD_FILTER, or run an MPI program: its calls are regions.",
	    2);
	term_newline(t);
}
