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
#include <string.h>

#include "report_text.h"

typedef struct term {
	report_buf *b;
	unsigned width;
	int color;
	unsigned col; /* columns written on the current line */
} term;

static void sgr(term *t, const char *code)
{
	if (t->color)
		report_buf_printf(t->b, "\x1b[%sm", code);
}

/* Raw text the caller knows to be short and clean (labels, numbers). */
static void put(term *t, const char *s)
{
	unsigned room = t->col < t->width ? t->width - t->col : 0;
	t->col += report_esc_term(t->b, s, room);
}

static void putf(term *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(term *t, const char *fmt, ...)
{
	char tmp[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tmp, sizeof tmp, fmt, ap);
	va_end(ap);
	put(t, tmp);
}

/* Untrusted text in a cell of exactly w columns (cut or padded). */
static void cell(term *t, const char *s, unsigned w, int right)
{
	unsigned room = t->col < t->width ? t->width - t->col : 0;
	if (w > room)
		w = room;
	unsigned len = report_term_width(s ? s : "-");
	if (len > w)
		len = w;
	if (right)
		for (unsigned i = len; i < w; i++)
			report_buf_putc(t->b, ' ');
	report_esc_term(t->b, s ? s : "-", w);
	if (!right)
		for (unsigned i = len; i < w; i++)
			report_buf_putc(t->b, ' ');
	t->col += w;
}

static void pad_to(term *t, unsigned col)
{
	while (t->col < col && t->col < t->width) {
		report_buf_putc(t->b, ' ');
		t->col++;
	}
}

static void newline(term *t)
{
	report_buf_putc(t->b, '\n');
	t->col = 0;
}

static void heading(term *t, const char *s)
{
	newline(t);
	sgr(t, "1");
	put(t, s);
	sgr(t, "0");
	newline(t);
}

static void run_summary(term *t, const fold_analysis *a)
{
	char d[32];
	unsigned threads = 0;
	double dur = 0;
	int mpi = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		threads += a->procs[i].nthreads;
		dur = fmax(dur, a->procs[i].duration_ns);
		mpi |= a->procs[i].rank >= 0;
	}
	sgr(t, "1");
	put(t, "fold summary");
	sgr(t, "0");
	if (a->nprocs && (a->procs[0].cmdline || a->procs[0].exe)) {
		put(t, ": ");
		put(t, a->procs[0].cmdline ? a->procs[0].cmdline : a->procs[0].exe);
	}
	newline(t);
	report_fmt_ns(d, sizeof d, dur);
	putf(t, "  %zu process%s%s, %u thread%s, %s, %lu samples", a->nprocs, a->nprocs == 1 ? "" : "es",
	     mpi ? " (MPI)" : "", threads, threads == 1 ? "" : "s", d, a->total_samples);
	if (a->sample_config) {
		put(t, ", sampling ");
		put(t, a->sample_config);
	}
	newline(t);
	if (a->nprocs) {
		put(t, "  hosts: ");
		size_t shown = 0;
		for (size_t i = 0; i < a->nprocs && shown < 6; i++) {
			const char *hname = a->procs[i].host;
			int seen = !hname;
			for (size_t k = 0; k < i && !seen; k++)
				seen = a->procs[k].host && !strcmp(a->procs[k].host, hname);
			if (seen)
				continue;
			if (shown++)
				put(t, ", ");
			put(t, hname);
		}
		if (!shown)
			put(t, "unknown");
		newline(t);
	}
	put(t, "  counters: ");
	if (!a->ncounters)
		put(t, "none (timer sampling only)");
	for (size_t i = 0; i < a->ncounters; i++) {
		if (i)
			put(t, ", ");
		put(t, a->counters[i].name);
	}
	newline(t);
	for (size_t i = 0; i < a->nmissing; i++) {
		put(t, "  unavailable: ");
		put(t, a->missing[i].name);
		put(t, ": ");
		put(t, a->missing[i].reason);
		newline(t);
	}
}

static void region_table(term *t, const fold_analysis *a)
{
	char d[32], m[32], n[32];
	/* Fixed columns take 56 and the folded column about 14; the name gets the rest. */
	unsigned namew = t->width > 56 + 14 + 16 ? t->width - 56 - 14 : 16;
	heading(t, "Regions by time");
	sgr(t, "2");
	put(t, "   # ");
	cell(t, "region", namew, 0);
	put(t, " ");
	cell(t, "kind", 9, 0);
	cell(t, "total", 10, 1);
	cell(t, "instances", 10, 1);
	cell(t, "mean", 10, 1);
	cell(t, "samples", 9, 1);
	put(t, "  folded");
	sgr(t, "0");
	newline(t);
	for (size_t i = 0; i < a->nregions; i++) {
		const fold_region_result *r = &a->regions[i];
		putf(t, "%4zu ", i + 1);
		cell(t, r->name, namew, 0);
		put(t, " ");
		cell(t, fold_region_kind_label(r->kind), 9, 0);
		report_fmt_ns(d, sizeof d, r->total_ns);
		cell(t, d, 10, 1);
		snprintf(n, sizeof n, "%lu", r->instances);
		cell(t, n, 10, 1);
		report_fmt_ns(m, sizeof m, r->mean_duration_ns);
		cell(t, m, 10, 1);
		snprintf(n, sizeof n, "%lu", r->samples);
		cell(t, n, 9, 1);
		put(t, "  ");
		if (r->folded) {
			putf(t, "%zu phase%s", r->nphases, r->nphases == 1 ? "" : "s");
		} else {
			sgr(t, "2");
			put(t, r->reason ? r->reason : "no");
			sgr(t, "0");
		}
		newline(t);
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
	putf(t, "%3.0f%% ", 100 * at->share);
	const char *base = at->file ? strrchr(at->file, '/') : NULL;
	base = base ? base + 1 : at->file;
	if (!base) {
		put(t, at->function);
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
	unsigned need = report_term_width(at->function);
	cell(t, at->function, need < fnw ? need : fnw, 0);
	put(t, " ");
	unsigned basew = locw > strlen(loc) ? locw - (unsigned)strlen(loc) : 1;
	unsigned bw = report_term_width(base);
	cell(t, base, bw < basew ? bw : basew, 0);
	put(t, loc);
}

static void rate(term *t, const fold_region_result *r, const fold_phase_result *p, size_t i, unsigned width)
{
	char v[64];
	report_fmt_si(v, sizeof v, p->rates[i]);
	if (p->gradual && i < p->nrange) {
		/* a gradual phase: the rate at its start and at its end */
		char a[24], b[24];
		report_fmt_si(a, sizeof a, p->rate_from[i]);
		report_fmt_si(b, sizeof b, p->rate_to[i]);
		snprintf(v, sizeof v, "%s->%s", a, b);
	}
	const char *suffix = rate_suffix(r, p->rate_names[i]);
	if (*suffix && strcmp(suffix, "/s"))
		strncat(v, " ", sizeof v - strlen(v) - 1);
	strncat(v, suffix, sizeof v - strlen(v) - 1);
	unsigned vw = report_term_width(v);
	unsigned nw = width > vw + 1 ? width - vw - 1 : 1;
	unsigned name = report_term_width(p->rate_names[i]);
	cell(t, p->rate_names[i], name < nw ? name : nw, 0);
	put(t, " ");
	put(t, v);
}

/* Narrow terminals: one phase per block, rates and top lines on their own lines. */
static void region_phases_narrow(term *t, const fold_region_result *r)
{
	char d[32];
	for (size_t k = 0; k < r->nphases; k++) {
		const fold_phase_result *p = &r->phases[k];
		report_fmt_ns(d, sizeof d, fold_phase_duration_ns(r, p));
		putf(t, "  P%zu  %.3f-%.3f  %s  %lu samples", k + 1, p->start, p->end, d, p->samples);
		newline(t);
		for (size_t i = 0; i < p->nrates && i < 4; i++) {
			put(t, "      ");
			rate(t, r, p, i, t->width - 6);
			newline(t);
		}
		for (size_t i = 0; i < p->ntop && i < 3; i++) {
			put(t, "      ");
			top_line(t, &p->top[i]);
			newline(t);
		}
	}
}

static void region_phases(term *t, const fold_region_result *r)
{
	char m[32], d[32], v[32];
	newline(t);
	sgr(t, "1");
	put(t, r->name);
	sgr(t, "0");
	report_fmt_ns(m, sizeof m, r->folded_mean_duration_ns);
	newline(t);
	putf(t, "  %lu of %lu instances folded (their mean %s), %lu samples", r->instances_used, r->instances,
	     m, r->samples_folded);
	if (r->fit_method)
		putf(t, ", %s fit", r->fit_method);
	newline(t);
	if (r->self_check.done) {
		/* the region's fidelity figure: two halves folded apart */
		const fold_self_check *sc = &r->self_check;
		putf(t,
		     "  self-check (odd/even instances folded apart): %zu and %zu phase(s), boundaries "
		     "%.1f%%, "
		     "rates %.1f%% apart",
		     sc->phases_a, sc->phases_b, 100 * sc->boundary, 100 * sc->rate);
		newline(t);
	}
	if (t->width < 90) {
		region_phases_narrow(t, r);
		return;
	}
	/* Layout: phase, span, duration, samples, then rates and top lines share what is left. */
	unsigned fixed = 2 + 4 + 10 + 10 + 8 + 2;
	unsigned rest = t->width > fixed + 30 ? t->width - fixed : 30;
	unsigned ratew = rest * 7 / 20;
	sgr(t, "2");
	put(t, "  ");
	cell(t, "ph", 4, 0);
	cell(t, "span", 10, 0);
	cell(t, "duration", 10, 1);
	cell(t, "samples", 8, 1);
	put(t, "  ");
	cell(t, "rates", ratew, 0);
	put(t, "top source lines");
	sgr(t, "0");
	newline(t);
	for (size_t k = 0; k < r->nphases; k++) {
		const fold_phase_result *p = &r->phases[k];
		size_t lines = p->nrates > p->ntop ? p->nrates : p->ntop;
		if (lines > 3)
			lines = 3;
		if (!lines)
			lines = 1;
		for (size_t li = 0; li < lines; li++) {
			put(t, "  ");
			if (li == 0) {
				char ph[32], span[48];
				snprintf(ph, sizeof ph, "P%zu", k + 1);
				snprintf(span, sizeof span, "%.2f-%.2f", p->start, p->end);
				cell(t, ph, 4, 0);
				cell(t, span, 10, 0);
				report_fmt_ns(d, sizeof d, fold_phase_duration_ns(r, p));
				cell(t, d, 10, 1);
				snprintf(v, sizeof v, "%lu", p->samples);
				cell(t, v, 8, 1);
			} else {
				pad_to(t, 2 + 4 + 10 + 10 + 8);
			}
			put(t, "  ");
			unsigned start = t->col;
			if (li < p->nrates)
				rate(t, r, p, li, ratew - 1);
			pad_to(t, start + ratew);
			if (li < p->ntop)
				top_line(t, &p->top[li]);
			newline(t);
		}
	}
}

static void warnings(term *t, const fold_analysis *a)
{
	size_t nsalvage = 0;
	for (size_t i = 0; i < a->nprocs; i++)
		nsalvage += a->procs[i].nsalvage;
	if (!a->nwarnings && !nsalvage)
		return;
	heading(t, "Warnings");
	for (size_t i = 0; i < a->nwarnings; i++) {
		sgr(t, "33");
		put(t, "  ! ");
		sgr(t, "0");
		put(t, a->warnings[i].what);
		newline(t);
	}
	for (size_t i = 0; i < a->nprocs; i++)
		for (size_t k = 0; k < a->procs[i].nsalvage; k++) {
			sgr(t, "31");
			put(t, "  ! ");
			sgr(t, "0");
			put(t, a->procs[i].salvage_messages[k]);
			newline(t);
		}
}

int report_terminal(const fold_analysis *a, FILE *out, unsigned width, int color)
{
	if (!a || !out)
		return -EINVAL;
	report_buf b;
	report_buf_init(&b);
	term t = {&b, width < 60 ? 60 : width, color, 0};
	run_summary(&t, a);
	region_table(&t, a);
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
	report_buf_free(&b);
	return rc;
}
