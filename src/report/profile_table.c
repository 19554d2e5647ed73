/* profile_table.c: the table printed by `fold profile`: the exact profile
 * from region enter/exit, aggregated over threads and ranks, largest
 * inclusive time first (as the analysis ranks it), fitted to the width
 * with names shortened (names.c); without regions, the sampled views and
 * how to record a region. Region names are escaped
 * for the terminal like every other writer's (report_esc_term). */
#include <errno.h>
#include <stdio.h>

#include "names.h"
#include "report.h"
#include "report_text.h"
#include "run_end.h"
#include "term.h"
#include "terminal_views.h"

/* " %8.3f ms": fixed columns so the units line up under each other. */
static void put_ns(FILE *o, double ns)
{
	double v;
	const char *unit;
	report_ns_scale(ns, &v, &unit);
	if (unit[1])
		fprintf(o, " %8.*f %s", unit[0] == 'n' ? 0 : 3, v, unit);
	else
		fprintf(o, " %8.3f %s ", v, unit);
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

/* A cut or crashed run is said first, as in the summary. */
static int run_end_line(const fold_analysis *a, FILE *out, unsigned width)
{
	char end[512];
	if (!report_run_end_text(a, end, sizeof end))
		return 0;
	util_buf b;
	util_buf_init(&b);
	term t = {&b, width < 60 ? 60 : width, 0, 0};
	term_wrapped(&t, end, 2);
	term_newline(&t);
	int rc = b.oom ? -ENOMEM : 0;
	if (!rc && b.len && fwrite(b.data, 1, b.len, out) != b.len)
		rc = -EIO;
	util_buf_free(&b);
	return rc;
}

int report_profile_table(const fold_analysis *a, FILE *out, unsigned width)
{
	int rc = run_end_line(a, out, width);
	if (rc)
		return rc;
	if (!a->nprofile)
		return sampled_only(a, out, width);
	/* The numbers take 46 columns; the name the rest (at least 16). */
	unsigned name_cols = width > 46 + 16 ? width - 46 : 16;
	fprintf(out, "%-*s %9s %11s %11s %11s\n", (int)name_cols, "region", "calls", "inclusive", "exclusive",
	        "mean/call");
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
		fprintf(out, "%*s %9lu", (int)(name_cols - cols), "", p->calls);
		put_ns(out, p->inclusive_ns);
		put_ns(out, p->exclusive_ns);
		put_ns(out, p->mean_ns);
		fputc('\n', out);
	}
	rc = name.oom ? -ENOMEM : ferror(out) ? -EIO : 0;
	util_buf_free(&name);
	return rc;
}
