/* profile_table.c: the table printed by `fold profile`: the exact profile
 * from region enter/exit, aggregated over threads and ranks, largest
 * inclusive time first (as the analysis ranks it), fitted to the width
 * with names shortened (names.c); without regions, the sampled views and
 * how to record a region. Region names are escaped
 * for the terminal like every other writer's (report_esc_term). */
#include <errno.h>
#include <stdio.h>

#include "names.h"
#include "profile_cost.h"
#include "report.h"
#include "report_text.h"
#include "run_end.h"
#include "term.h"
#include "terminal_views.h"

/* " %8.3f ms": fixed columns so the units line up under each other; mark
 * replaces the leading blank ('~' estimated, '>' at least). */
static void put_ns_mark(FILE *o, double ns, char mark)
{
	double v;
	const char *unit;
	report_ns_scale(ns, &v, &unit);
	char num[32];
	snprintf(num, sizeof num, "%s%.*f", mark == ' ' ? "" : (char[]){mark, 0},
	         unit[1] && unit[0] == 'n' ? 0 : 3, v);
	fprintf(o, " %8s %s%s", num, unit, unit[1] ? "" : " ");
}

static void put_ns(FILE *o, double ns)
{
	put_ns_mark(o, ns, ' ');
}

/* fold's cost in a row's calls (profile_cost.h), blank where there is none. */
static void put_cost(FILE *o, const fold_profile_entry *p)
{
	double c = report_profile_cost_ns(p);
	if (c > 0)
		put_ns(o, c);
	else
		fprintf(o, " %11s", "-");
}

/* Under the table: what the marks of throttled rows mean. */
static void throttled_notes(const fold_analysis *a, FILE *out)
{
	for (size_t i = 0; i < a->nprofile; i++) {
		const fold_profile_entry *p = &a->profile[i];
		if (!p->throttled)
			continue;
		char at[32], est[32], err[32], rec[32], shortn[64];
		report_short_name(p->name ? p->name : "?", 40, shortn, sizeof shortn);
		report_fmt_ns(at, sizeof at, p->throttled_at_ns);
		report_fmt_ns(rec, sizeof rec, p->inclusive_ns);
		util_fput_term(out, shortn); /* a name from the trace */
		fprintf(out,
		        ": throttled at %s after %lu calls; later calls not recorded (recorded: %s).\n  ", at,
		        p->calls, rec);
		if (p->est_samples) {
			report_fmt_ns(est, sizeof est, p->est_inclusive_ns);
			report_fmt_ns(err, sizeof err, p->est_inclusive_err_ns);
			fprintf(out, "Inclusive ~%s +- %s estimated from %lu samples.\n", est, err,
			        p->est_samples);
		} else {
			fputs("No sample holds it: its total is unknown.\n", out);
		}
	}
}

/* Without regions: what the samples say, and how to record a region. */
static int sampled_only(const fold_analysis *a, FILE *out, unsigned width)
{
	util_buf b;
	util_buf_init(&b);
	term t = {&b, width < 60 ? 60 : width, 0, 0};
	term_view_no_regions(&t);
	term_view_hot(&t, a);
	term_view_threads(&t, a);
	int rc = b.oom ? -ENOMEM : 0;
	if (!rc && b.len > 1 &&
	    fwrite(b.data + 1, 1, b.len - 1, out) != b.len - 1) /* no leading blank line */
		rc = -EIO;
	util_buf_free(&b);
	return rc ? rc : ferror(out) ? -EIO : 0;
}

/* text wrapped to the width (at least 60), indented by 2 after its first
 * line, and a newline */
static int put_wrapped(FILE *out, unsigned width, const char *text)
{
	util_buf b;
	util_buf_init(&b);
	term t = {&b, width < 60 ? 60 : width, 0, 0};
	term_wrapped(&t, text, 2);
	term_newline(&t);
	int rc = b.oom ? -ENOMEM : 0;
	if (!rc && b.len && fwrite(b.data, 1, b.len, out) != b.len)
		rc = -EIO;
	util_buf_free(&b);
	return rc;
}

/* Under a table of calls that held fold's cost: what it is, or that the
 * width left its column out (shown: 0). */
static int cost_note(FILE *out, unsigned width, int shown)
{
	return put_wrapped(out, width,
	                   shown ? "fold cost: fold's own measured work inside the calls (their hooks, "
	                           "nested calls' hooks, trace writing), taken out of the times. A timer "
	                           "the program keeps right around the calls holds inclusive + fold cost, "
	                           "and the way into and out of the hooks beyond their calibrated cost "
	                           "(10-60 ns per call after a kernel that evicted the caches)."
	                         : "fold's own measured work inside the calls is taken out of the times; "
	                           "74 columns or more (COLUMNS) show it per row as \"fold cost\".");
}

/* A cut or crashed run is said first, as in the summary. */
static int run_end_line(const fold_analysis *a, FILE *out, unsigned width)
{
	char end[512];
	if (!report_run_end_text(a, end, sizeof end))
		return 0;
	return put_wrapped(out, width, end);
}

int report_profile_table(const fold_analysis *a, FILE *out, unsigned width)
{
	int rc = run_end_line(a, out, width);
	if (rc)
		return rc;
	if (!a->nprofile)
		return sampled_only(a, out, width);
	/* The numbers take 46 columns, 58 with fold's cost, which a narrower
	 * width leaves out; the name the rest (at least 16). */
	int has_cost = report_profile_has_cost(a);
	int cost = has_cost && width >= 58 + 16;
	unsigned num_cols = cost ? 58 : 46;
	unsigned name_cols = width > num_cols + 16 ? width - num_cols : 16;
	fprintf(out, "%-*s %9s %11s", (int)name_cols, "region", "calls", "inclusive");
	if (cost)
		fprintf(out, " %11s", "fold cost");
	fprintf(out, " %11s %11s\n", "exclusive", "mean/call");
	util_buf name;
	util_buf_init(&name);
	for (size_t i = 0; i < a->nprofile; i++) {
		const fold_profile_entry *p = &a->profile[i];
		name.len = 0;
		char shortn[512];
		report_short_name(p->name ? p->name : "?", name_cols, shortn, sizeof shortn);
		unsigned cols = report_esc_term(&name, shortn, name_cols);
		if (name.oom)
			break;
		if (name.len)
			fwrite(name.data, 1, name.len, out);
		if (p->throttled) {
			/* calls and exclusive: at least the recorded ones; inclusive:
			 * the sampled estimate when there is one (throttled_notes) */
			char calls[32];
			snprintf(calls, sizeof calls, "%lu+", p->calls);
			fprintf(out, "%*s %9s", (int)(name_cols - cols), "", calls);
			if (p->est_samples)
				put_ns_mark(out, p->est_inclusive_ns, '~');
			else
				put_ns_mark(out, p->inclusive_ns, '>');
			if (cost)
				put_cost(out, p);
			put_ns_mark(out, p->exclusive_ns, '>');
		} else {
			fprintf(out, "%*s %9lu", (int)(name_cols - cols), "", p->calls);
			put_ns(out, p->inclusive_ns);
			if (cost)
				put_cost(out, p);
			put_ns(out, p->exclusive_ns);
		}
		put_ns(out, p->mean_ns);
		fputc('\n', out);
	}
	throttled_notes(a, out);
	rc = has_cost ? cost_note(out, width, cost) : 0;
	if (!rc)
		rc = name.oom ? -ENOMEM : ferror(out) ? -EIO : 0;
	util_buf_free(&name);
	return rc;
}
