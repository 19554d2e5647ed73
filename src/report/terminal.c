/* terminal.c: the plain-text summary fold prints without -o: the run,
 * regions by time, each folded region's phases with their rates and top
 * source lines, and the warnings.
 *
 * Invariants: no line is wider than the width asked for (names are cut with
 * "…"); untrusted text is sanitised (control characters, ESC included, never
 * reach the terminal); ANSI colour only when asked for.
 */
#include "report.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "report_text.h"
#include "term.h"
#include "terminal_views.h"
#include "names.h"
#include "run_end.h"
#include "warn_group.h"

static void run_summary(term *t, const fold_analysis *a)
{
	char d[32];
	unsigned threads = 0;
	double dur = 0;
	size_t ranks = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		threads += a->procs[i].nthreads;
		dur = fmax(dur, a->procs[i].duration_ns);
		ranks += a->procs[i].rank >= 0;
	}
	/* Helpers of an MPI run (Open MPI's orted) are processes, not ranks. */
	char mpi[48] = "";
	if (ranks && ranks == a->nprocs)
		snprintf(mpi, sizeof mpi, " (MPI ranks)");
	else if (ranks)
		snprintf(mpi, sizeof mpi, " (%zu MPI rank%s)", ranks, ranks == 1 ? "" : "s");
	term_sgr(t, "1");
	term_put(t, "fold summary");
	term_sgr(t, "0");
	if (a->nprocs && (a->procs[0].cmdline || a->procs[0].exe)) {
		term_put(t, ": ");
		term_put(t, a->procs[0].cmdline ? a->procs[0].cmdline : a->procs[0].exe);
	}
	term_newline(t);
	/* A cut or crashed run is said first: what follows covers only part of it. */
	char end[512];
	if (report_run_end_text(a, end, sizeof end)) {
		term_put(t, "  ");
		term_sgr(t, "1;31");
		term_wrapped(t, end, 4);
		term_sgr(t, "0");
		term_newline(t);
	}
	report_fmt_ns(d, sizeof d, dur);
	char line[1024];
	int n =
	    snprintf(line, sizeof line, "%zu process%s%s, %u thread%s, %s, %lu samples", a->nprocs,
	             a->nprocs == 1 ? "" : "es", mpi, threads, threads == 1 ? "" : "s", d, a->total_samples);
	if (a->sample_config && n > 0 && (size_t)n < sizeof line)
		snprintf(line + n, sizeof line - (size_t)n, ", sampling: %s", a->sample_config);
	term_put(t, "  ");
	term_wrapped(t, line, 4);
	term_newline(t);
	if (a->nprocs) {
		term_put(t, "  hosts: ");
		size_t shown = 0;
		for (size_t i = 0; i < a->nprocs && shown < 6; i++) {
			const char *hname = a->procs[i].host;
			int seen = !hname;
			for (size_t k = 0; k < i && !seen; k++)
				seen = a->procs[k].host && !strcmp(a->procs[k].host, hname);
			if (seen)
				continue;
			if (shown++)
				term_put(t, ", ");
			term_put(t, hname);
		}
		if (!shown)
			term_put(t, "unknown");
		term_newline(t);
	}
	term_put(t, "  counters: ");
	if (!a->ncounters)
		term_put(t, "none (timer sampling only)");
	for (size_t i = 0; i < a->ncounters; i++) {
		if (i)
			term_put(t, ", ");
		term_put(t, a->counters[i].name);
	}
	term_newline(t);
	/* Counters that could not be counted, one line per reason. */
	for (size_t i = 0; i < a->nmissing; i++) {
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !strcmp(a->missing[k].reason ? a->missing[k].reason : "",
			               a->missing[i].reason ? a->missing[i].reason : "");
		if (seen)
			continue;
		util_buf m;
		util_buf_init(&m);
		util_buf_puts(&m, "unavailable: ");
		for (size_t k = i, c = 0; k < a->nmissing; k++)
			if (!strcmp(a->missing[k].reason ? a->missing[k].reason : "",
			            a->missing[i].reason ? a->missing[i].reason : "")) {
				util_buf_printf(&m, "%s%s", c++ ? ", " : "", a->missing[k].name);
			}
		util_buf_printf(&m, ": %s", a->missing[i].reason ? a->missing[i].reason : "unknown reason");
		term_put(t, "  ");
		term_wrapped(t, m.oom ? "unavailable counters" : m.data, 4);
		term_newline(t);
		util_buf_free(&m);
	}
}

/* What a region that was not folded is listed under: its reason without
 * the count when regions share it, else its own. */
/* One line for the regions aggregated (aggregate.h): how many, their
 * instances, samples and time, their most frequent reason. */
static void aggregated_line(term *t, const report_aggregate *g)
{
	char tot[32];
	report_fmt_ns(tot, sizeof tot, g->total_ns);
	util_buf l;
	util_buf_init(&l);
	util_buf_printf(&l,
	                "... and %zu more region%s, not folded: %lu instances, %lu samples, %s in all (%zu "
	                "of them: %s); every region is in fold profile and the JSON",
	                g->n, g->n == 1 ? "" : "s", g->instances, g->samples, tot, g->nreason[0],
	                g->reason[0] ? g->reason[0] : "not folded");
	term_sgr(t, "2");
	term_put(t, "     ");
	term_wrapped(t, l.oom ? "... and more regions, not folded" : l.data, 7);
	term_sgr(t, "0");
	term_newline(t);
	util_buf_free(&l);
}

/* Regions by time: the numbers first, the name in the room left (shortened
 * by names.c, never cut mid-word at 80 columns for common names); why a
 * region was not folded is said once per reason below the table. */
static void region_table(term *t, const fold_analysis *a, const report_aggregate *g)
{
	char d[40], m[32], n[32];
	unsigned fixed = 4 + 8 + 7 + 8 + 8 + 2 + 9 + 9;
	unsigned namew = t->width > fixed + 16 ? t->width - fixed : 16;
	term_heading(t, "Regions by time");
	term_sgr(t, "2");
	term_put(t, "   #");
	term_cell(t, "total", 8, 1);
	term_cell(t, "count", 7, 1);
	term_cell(t, "mean", 8, 1);
	term_cell(t, "samples", 8, 1);
	term_put(t, "  ");
	term_cell(t, "kind", 9, 0);
	term_cell(t, "folded", 9, 0);
	term_put(t, "region");
	term_sgr(t, "0");
	term_newline(t);
	int unfolded = 0;
	for (size_t i = 0; i < a->nregions; i++) {
		const fold_region_result *r = &a->regions[i];
		if (!report_region_shown(a, g, i))
			continue;
		term_putf(t, "%4zu", i + 1);
		if (r->throttled && r->est_samples) {
			/* throttled: the sampled estimate (the note below says so) */
			char e[32];
			report_fmt_ns(e, sizeof e, r->est_total_ns);
			snprintf(d, sizeof d, "~%s", e);
		} else {
			report_fmt_ns(d, sizeof d, r->total_ns);
		}
		term_cell(t, d, 8, 1);
		snprintf(n, sizeof n, r->throttled ? "%lu+" : "%lu", r->instances);
		term_cell(t, n, 7, 1);
		report_fmt_ns(m, sizeof m, r->mean_duration_ns);
		term_cell(t, m, 8, 1);
		snprintf(n, sizeof n, "%lu", r->samples);
		term_cell(t, n, 8, 1);
		term_put(t, "  ");
		term_cell(t, fold_region_kind_label(r->kind), 9, 0);
		if (r->folded) {
			snprintf(n, sizeof n, "%zu phase%s", r->nphases, r->nphases == 1 ? "" : "s");
			term_cell(t, n, 9, 0);
		} else {
			unfolded = 1;
			term_sgr(t, "2");
			term_cell(t, "no", 9, 0);
			term_sgr(t, "0");
		}
		char nm[512];
		report_short_name(r->name, namew, nm, sizeof nm);
		term_put(t, nm);
		term_newline(t);
	}
	if (g->n)
		aggregated_line(t, g);
	if (!unfolded)
		return;
	/* Each reason once, with the (shown) regions it holds for; regions that
	 * miss the same count of instances or samples once, each with its
	 * count. */
	for (size_t i = 0; i < g->cut; i++) {
		const fold_region_result *r = &a->regions[i];
		if (r->folded)
			continue;
		const char *why = report_not_folded_key(r);
		int seen = 0;
		for (size_t k = 0; k < i && !seen; k++)
			seen = !a->regions[k].folded && !strcmp(report_not_folded_key(&a->regions[k]), why);
		if (seen)
			continue;
		util_buf l;
		util_buf_init(&l);
		if (r->reason_common)
			util_buf_printf(&l, "not folded (%s; each region's count in brackets):", why);
		else
			util_buf_printf(&l, "not folded (%s):", why);
		for (size_t k = i, c = 0; k < g->cut; k++) {
			const fold_region_result *o = &a->regions[k];
			if (o->folded || strcmp(report_not_folded_key(o), why))
				continue;
			util_buf_printf(&l, "%s %zu", c++ ? "," : "", k + 1);
			if (o->reason_common) /* a no-break space: a region and its count on one line */
				util_buf_printf(&l, "\xc2\xa0(%lu)", o->reason_count);
		}
		term_sgr(t, "2");
		term_put(t, "     ");
		term_wrapped(t, l.oom ? "not folded" : l.data, 7);
		term_sgr(t, "0");
		term_newline(t);
		util_buf_free(&l);
	}
}

/* Unit of a phase rate, from the series of the same name: counters are
 * events per second ("/s"), ratios are bare, anything else is named. */
static const char *rate_suffix(const fold_region_result *r, const char *name)
{
	for (size_t i = 0; i < r->nseries; i++) {
		const fold_series *s = &r->series[i];
		if (!name || !s->name || strcmp(name, s->name))
			continue;
		if (!s->unit || !strcmp(s->unit, "ratio") || !*s->unit)
			return "";
		if (!strcmp(s->unit, "events/s"))
			return "/s";
		return s->unit;
	}
	return "";
}

static void top_line(term *t, const fold_attribution *at)
{
	term_putf(t, "%3.0f%% ", 100 * at->share);
	const char *base = at->file ? strrchr(at->file, '/') : NULL;
	base = base ? base + 1 : at->file;
	char fn[512];
	if (!base) {
		report_short_name(at->function, term_room(t), fn, sizeof fn);
		term_put(t, fn);
		return;
	}
	/* The location is kept whole when it can be; the function takes the rest. */
	char loc[32];
	snprintf(loc, sizeof loc, ":%u", at->line);
	unsigned room = t->width > t->col ? t->width - t->col : 0;
	unsigned locw = report_term_width(base) + (unsigned)strlen(loc);
	if (locw > room / 2)
		locw = room / 2;
	unsigned fnw = room > locw + 1 ? room - locw - 1 : 0;
	report_short_name(at->function, fnw, fn, sizeof fn);
	unsigned need = report_term_width(fn);
	term_cell(t, fn, need < fnw ? need : fnw, 0);
	term_put(t, " ");
	unsigned basew = locw > strlen(loc) ? locw - (unsigned)strlen(loc) : 1;
	unsigned bw = report_term_width(base);
	term_cell(t, base, bw < basew ? bw : basew, 0);
	term_put(t, loc);
}

static void rate(term *t, const fold_region_result *r, const fold_phase_result *p, size_t i, unsigned width)
{
	char v[64];
	/* wall time is folded only when nothing else could be: its rate is 1
	 * by definition, the absence of any counter inside is the news */
	if (!strcmp(p->rate_names[i], "wall_time")) {
		term_cell(t, "no counter inside", width, 0);
		return;
	}
	int cpus = report_cpu_rate(p->rate_names[i], p->rates[i], v, sizeof v);
	if (!cpus)
		report_fmt_si(v, sizeof v, p->rates[i]);
	if (p->gradual && i < p->nrange) {
		/* a gradual phase: the rate at its start and at its end */
		char a[24], b[24];
		if (!report_cpu_rate(p->rate_names[i], p->rate_from[i], a, sizeof a))
			report_fmt_si(a, sizeof a, p->rate_from[i]);
		if (!report_cpu_rate(p->rate_names[i], p->rate_to[i], b, sizeof b))
			report_fmt_si(b, sizeof b, p->rate_to[i]);
		snprintf(v, sizeof v, "%s->%s", a, b);
	}
	if (isnan(p->rates[i])) {
		snprintf(v, sizeof v, "no data"); /* the samples do not cover it */
	} else if (!cpus) {
		const char *suffix = rate_suffix(r, p->rate_names[i]);
		if (*suffix && strcmp(suffix, "/s"))
			strncat(v, " ", sizeof v - strlen(v) - 1);
		strncat(v, suffix, sizeof v - strlen(v) - 1);
	}
	unsigned vw = report_term_width(v);
	unsigned nw = width > vw + 1 ? width - vw - 1 : 1;
	/* perf::TASK-CLOCK is TASK-CLOCK to a reader: the prefix only costs room */
	const char *nm = p->rate_names[i];
	if (!strncmp(nm, "perf::", 6) && nm[6])
		nm += 6;
	unsigned name = report_term_width(nm);
	term_cell(t, nm, name < nw ? name : nw, 0);
	term_put(t, " ");
	term_put(t, v);
}

/* Narrow terminals: one phase per block, rates and top lines on their own lines. */
static void region_phases_narrow(term *t, const fold_region_result *r)
{
	char d[32];
	for (size_t k = 0; k < r->nphases; k++) {
		const fold_phase_result *p = &r->phases[k];
		report_fmt_ns(d, sizeof d, fold_phase_duration_ns(r, p));
		term_putf(t, "  P%zu  %.3f-%.3f  %s  %lu samples", k + 1, p->start, p->end, d, p->samples);
		term_newline(t);
		for (size_t i = 0; i < p->nrates && i < 4; i++) {
			term_put(t, "      ");
			rate(t, r, p, i, t->width - 6);
			term_newline(t);
		}
		for (size_t i = 0; i < p->ntop && i < 3; i++) {
			term_put(t, "      ");
			top_line(t, &p->top[i]);
			term_newline(t);
		}
	}
}

static void region_phases(term *t, const fold_region_result *r)
{
	char m[32], d[32], v[32];
	term_newline(t);
	term_sgr(t, "1");
	char nm[512];
	report_short_name(r->name, t->width, nm, sizeof nm);
	term_put(t, nm);
	term_sgr(t, "0");
	report_fmt_ns(m, sizeof m, r->folded_mean_duration_ns);
	term_newline(t);
	term_putf(t, "  %lu of %lu instances folded (their mean %s), %lu samples", r->instances_used,
	          r->instances, m, r->samples_folded);
	if (r->fit_method)
		term_putf(t, ", %s fit", r->fit_method);
	term_newline(t);
	if (r->self_check.done) {
		/* the region's fidelity figure: two halves folded apart */
		const fold_self_check *sc = &r->self_check;
		char line[256], ph[48] = "";
		if (sc->phases_a != sc->phases_b)
			snprintf(ph, sizeof ph, ", %zu vs %zu phases", sc->phases_a, sc->phases_b);
		/* what the evidence allows: the verdict scales with the samples */
		snprintf(
		    line, sizeof line,
		    "self-check (odd/even halves): boundaries %.1f%%, rates %.1f%% apart%s; noise allows "
		    "%.1f%%, %.1f%%: %s",
		    100 * sc->boundary, 100 * sc->rate, ph, 100 * sc->boundary_allowed,
		    100 * sc->rate_allowed, sc->reproducible ? "reproducible" : "NOT reproducible");
		term_put(t, "  ");
		term_wrapped(t, line, 4);
		term_newline(t);
	} else if (r->self_check.why_not) {
		char line[256];
		snprintf(line, sizeof line, "self-check: not done: %s", r->self_check.why_not);
		term_put(t, "  ");
		term_wrapped(t, line, 4);
		term_newline(t);
	}
	if (t->width < 90) {
		region_phases_narrow(t, r);
		return;
	}
	/* Layout: phase, span, duration, samples, then rates and top lines share what is left. */
	unsigned fixed = 2 + 4 + 10 + 10 + 8 + 2;
	unsigned rest = t->width > fixed + 30 ? t->width - fixed : 30;
	unsigned ratew = rest * 7 / 20;
	term_sgr(t, "2");
	term_put(t, "  ");
	term_cell(t, "ph", 4, 0);
	term_cell(t, "span", 10, 0);
	term_cell(t, "duration", 10, 1);
	term_cell(t, "samples", 8, 1);
	term_put(t, "  ");
	term_cell(t, "rates", ratew, 0);
	term_put(t, "top source lines");
	term_sgr(t, "0");
	term_newline(t);
	for (size_t k = 0; k < r->nphases; k++) {
		const fold_phase_result *p = &r->phases[k];
		size_t lines = p->nrates > p->ntop ? p->nrates : p->ntop;
		if (lines > 3)
			lines = 3;
		if (!lines)
			lines = 1;
		for (size_t li = 0; li < lines; li++) {
			term_put(t, "  ");
			if (li == 0) {
				char ph[32], span[48];
				snprintf(ph, sizeof ph, "P%zu", k + 1);
				snprintf(span, sizeof span, "%.2f-%.2f", p->start, p->end);
				term_cell(t, ph, 4, 0);
				term_cell(t, span, 10, 0);
				report_fmt_ns(d, sizeof d, fold_phase_duration_ns(r, p));
				term_cell(t, d, 10, 1);
				snprintf(v, sizeof v, "%lu", p->samples);
				term_cell(t, v, 8, 1);
			} else {
				term_pad_to(t, 2 + 4 + 10 + 10 + 8);
			}
			term_put(t, "  ");
			unsigned start = t->col;
			if (li < p->nrates)
				rate(t, r, p, li, ratew - 1);
			term_pad_to(t, start + ratew);
			if (li < p->ntop)
				top_line(t, &p->top[li]);
			term_newline(t);
		}
	}
}

/* Columns of a region's or function's name inside a warning. */
#define WARN_NAME_COLS 40

/* Appends the values of d that the first record of its group does not
 * share (" (phases 3, samples 0)"): a record named only by its subject
 * must not seem to say the first one's numbers. */
static void differing_values(const fold_warning *d, const fold_warning *first, util_buf *out)
{
	int any = 0;
	for (size_t i = 0; i < d->nvalues; i++) {
		const fold_diag_value *v = &d->values[i];
		const fold_diag_value *f = fold_diag_value_of(first, v->name);
		if (f && (f->value == v->value || (isnan(f->value) && isnan(v->value))))
			continue;
		int share = v->unit && !strcmp(v->unit, "share");
		util_buf_printf(out, "%s%s %.*g", any ? ", " : " (", v->name, share ? 3 : 6, v->value);
		any = 1;
	}
	if (any)
		util_buf_puts(out, ")");
}

/* The others of a group after its first (order[1..n-1]): each one's
 * subject when it differs from the first's, with the values it does not
 * share with the first, else what it says of it. */
static void warning_others(term *t, const fold_analysis *a, const size_t *order, size_t n)
{
	const fold_warning *first = &a->warnings[order[0]];
	util_buf m, od;
	util_buf_init(&m);
	util_buf_init(&od);
	util_buf_puts(&m, "also:");
	for (size_t j = 1; j < n; j++) {
		const fold_warning *d = &a->warnings[order[j]];
		od.len = 0;
		if (d->subject.type != FOLD_SUBJECT_RUN &&
		    !fold_diag_same_subject(&d->subject, &first->subject)) {
			report_warn_subject(d, WARN_NAME_COLS, &od);
			differing_values(d, first, &od);
		} else
			report_warn_rest(d, WARN_NAME_COLS, &od);
		util_buf_printf(&m, "%s %s", j > 1 ? ";" : "", od.oom || !od.data ? d->what : od.data);
	}
	term_put(t, "    ");
	term_wrapped(t, m.oom ? "(out of memory)" : m.data, 6);
	term_newline(t);
	util_buf_free(&m);
	util_buf_free(&od);
}

/* Warnings grouped by kind (warn_group.h): each kind once, its first whole
 * (wrapped, never cut), with how many times it was said and of what. */
static void warnings(term *t, const fold_analysis *a)
{
	size_t nsalvage = 0;
	for (size_t i = 0; i < a->nprocs; i++)
		nsalvage += a->procs[i].nsalvage;
	if (!a->nwarnings && !nsalvage)
		return;
	char h[64];
	snprintf(h, sizeof h, "Warnings (%zu)", a->nwarnings + nsalvage);
	term_heading(t, h);
	size_t *order = a->nwarnings ? malloc(a->nwarnings * sizeof *order) : NULL;
	report_warn_group *groups = a->nwarnings ? malloc(a->nwarnings * sizeof *groups) : NULL;
	long ng = order && groups ? report_warn_groups(a, order, groups) : 0;
	if (a->nwarnings && ng <= 0) {
		term_put(t, "  ! (out of memory: warnings in the JSON)");
		term_newline(t);
	}
	for (long g = 0; g < ng; g++) {
		const size_t *o = order + groups[g].first;
		size_t n = groups[g].n;
		const fold_warning *w = &a->warnings[o[0]];
		term_sgr(t, "33");
		term_put(t, "  ! ");
		term_sgr(t, "0");
		if (n > 1)
			term_putf(t, "%zux ", n);
		util_buf d;
		util_buf_init(&d);
		report_warn_text(w, WARN_NAME_COLS, &d);
		term_wrapped(t, d.oom || !d.data ? w->what : d.data, 4);
		term_newline(t);
		util_buf_free(&d);
		if (n > 1)
			warning_others(t, a, o, n);
	}
	free(order);
	free(groups);
	/* what the reader salvaged: the first lines and the summary of each
	 * trace (a trace may hold any number of damaged chunks) */
	for (size_t i = 0; i < a->nprocs; i++) {
		size_t n = a->procs[i].nsalvage;
		for (size_t k = 0; k < n; k++) {
			if (k == REPORT_SALVAGE_LINES && n > REPORT_SALVAGE_LINES + 1) {
				term_put(t, "    ");
				term_putf(t, "(%zu more lines of %s; all of them in the JSON)", n - k - 1,
				          a->procs[i].trace_path);
				term_newline(t);
				k = n - 2;
				continue;
			}
			term_sgr(t, "31");
			term_put(t, "  ! ");
			term_sgr(t, "0");
			term_wrapped(t, a->procs[i].salvage_messages[k], 4);
			term_newline(t);
		}
	}
}

int report_terminal(const fold_analysis *a, FILE *out, unsigned width, int color)
{
	if (!a || !out)
		return -EINVAL;
	util_buf b;
	util_buf_init(&b);
	term t = {&b, width < 60 ? 60 : width, color, 0};
	run_summary(&t, a);
	term_view_hot(&t, a);
	term_view_threads(&t, a);
	term_view_imbalance(&t, a);
	report_aggregate g;
	if (report_aggregate_regions(a, &g)) {
		util_buf_free(&b);
		return -ENOMEM;
	}
	if (a->nregions)
		region_table(&t, a, &g);
	else
		term_view_no_regions(&t);
	for (size_t i = 0; i < a->nregions; i++)
		if (a->regions[i].folded && a->regions[i].nphases)
			region_phases(&t, &a->regions[i]);
	warnings(&t, a);
	int rc = 0;
	if (b.oom)
		rc = -ENOMEM;
	else if (b.len && fwrite(b.data, 1, b.len, out) != b.len)
		rc = -EIO;
	if (!rc && fflush(out) != 0)
		rc = -errno;
	util_buf_free(&b);
	return rc;
}
