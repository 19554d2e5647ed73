/* cmd_profile.c: the table printed by `fold profile`: the exact profile from
 * region enter/exit, aggregated over threads and ranks, largest inclusive
 * time first (as analysis.c ranks it). */
#include <stdio.h>

#include "cli.h"

static void put_ns(FILE *o, double ns)
{
	if (ns >= 1e9)
		fprintf(o, " %11.3f s ", ns / 1e9);
	else if (ns >= 1e6)
		fprintf(o, " %11.3f ms", ns / 1e6);
	else if (ns >= 1e3)
		fprintf(o, " %11.3f us", ns / 1e3);
	else
		fprintf(o, " %11.0f ns", ns);
}

void fold__print_profile(const fold_analysis *a, FILE *out)
{
	if (!a->nprofile) {
		fprintf(out, "No regions were recorded: nothing to profile.\n");
		return;
	}
	fprintf(out, "%-40s %12s %14s %14s %14s\n", "region", "calls", "inclusive", "exclusive", "mean/call");
	for (size_t i = 0; i < a->nprofile; i++) {
		const fold_profile_entry *p = &a->profile[i];
		fprintf(out, "%-40.40s %12lu", p->name ? p->name : "?", p->calls);
		put_ns(out, p->inclusive_ns);
		put_ns(out, p->exclusive_ns);
		put_ns(out, p->mean_ns);
		fputc('\n', out);
	}
}
