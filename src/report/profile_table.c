/* profile_table.c: the table printed by `fold profile`: the exact profile
 * from region enter/exit, aggregated over threads and ranks, largest
 * inclusive time first (as the analysis ranks it). Region names are escaped
 * for the terminal like every other writer's (report_esc_term). */
#include <errno.h>
#include <stdio.h>

#include "report.h"
#include "report_text.h"

#define NAME_COLS 40

/* " %11.3f ms": fixed columns so the units line up under each other. */
static void put_ns(FILE *o, double ns)
{
	double v;
	const char *unit;
	report_ns_scale(ns, &v, &unit);
	if (unit[1])
		fprintf(o, " %11.*f %s", unit[0] == 'n' ? 0 : 3, v, unit);
	else
		fprintf(o, " %11.3f %s ", v, unit);
}

int report_profile_table(const fold_analysis *a, FILE *out)
{
	if (!a->nprofile) {
		fprintf(out, "No regions were recorded: nothing to profile.\n");
		return ferror(out) ? -EIO : 0;
	}
	fprintf(out, "%-40s %12s %14s %14s %14s\n", "region", "calls", "inclusive", "exclusive", "mean/call");
	report_buf name;
	report_buf_init(&name);
	for (size_t i = 0; i < a->nprofile; i++) {
		const fold_profile_entry *p = &a->profile[i];
		name.len = 0;
		unsigned cols = report_esc_term(&name, p->name ? p->name : "?", NAME_COLS);
		if (name.oom)
			break;
		if (name.len)
			fwrite(name.data, 1, name.len, out);
		fprintf(out, "%*s %12lu", (int)(NAME_COLS - cols), "", p->calls);
		put_ns(out, p->inclusive_ns);
		put_ns(out, p->exclusive_ns);
		put_ns(out, p->mean_ns);
		fputc('\n', out);
	}
	int rc = name.oom ? -ENOMEM : ferror(out) ? -EIO : 0;
	report_buf_free(&name);
	return rc;
}
