/* run_end.c: how the run ended, in one sentence (run_end.h). */
#define _GNU_SOURCE
#include "run_end.h"

#include <stdio.h>
#include <string.h>

#include "report_text.h"

const char *report_run_end_status(const fold_analysis *a)
{
	const fold_process *p = report_run_end_process(a);
	if (!p)
		return "normal";
	return p->end == FOLD_END_SIGNAL ? "signal" : "cut";
}

const fold_process *report_run_end_process(const fold_analysis *a)
{
	const fold_process *cut = NULL;
	for (size_t i = 0; i < a->nprocs; i++) {
		if (a->procs[i].end == FOLD_END_SIGNAL)
			return &a->procs[i];
		if (a->procs[i].end == FOLD_END_CUT && !cut)
			cut = &a->procs[i];
	}
	return cut;
}

void report_signal_name(int sig, char *out, size_t n)
{
	const char *abbrev = sig > 0 && sig < 65 ? sigabbrev_np(sig) : NULL;
	if (abbrev)
		snprintf(out, n, "SIG%s", abbrev);
	else
		snprintf(out, n, "signal %d", sig);
}

/* "The program", "Rank 2 (pid 812)" or "Process 812": who ended so. */
static void who(const fold_analysis *a, const fold_process *p, char *out, size_t n)
{
	if (a->nprocs == 1)
		snprintf(out, n, "The program");
	else if (p->rank >= 0)
		snprintf(out, n, "Rank %ld (pid %ld)", p->rank, p->pid);
	else
		snprintf(out, n, "Process %ld", p->pid);
}

int report_run_end_text(const fold_analysis *a, char *out, size_t n)
{
	const fold_process *p = report_run_end_process(a);
	if (n)
		out[0] = 0;
	if (!p)
		return 0;
	size_t abnormal = 0, cut = 0;
	unsigned threads = 0;
	double recovered = 0;
	for (size_t i = 0; i < a->nprocs; i++) {
		const fold_process *q = &a->procs[i];
		abnormal += q->end != FOLD_END_NORMAL;
		if (q->end == FOLD_END_CUT) {
			cut++;
			threads += q->nthreads;
			recovered = q->duration_ns > recovered ? q->duration_ns : recovered;
		}
	}
	char whom[64], when[32], more[96] = "";
	who(a, p, whom, sizeof whom);
	if (p->end == FOLD_END_SIGNAL) {
		char sig[32];
		report_signal_name(p->end_signal, sig, sizeof sig);
		report_fmt_ns(when, sizeof when, p->duration_ns);
		if (abnormal > 1)
			snprintf(more, sizeof more, "; %zu more process%s did not end normally", abnormal - 1,
			         abnormal == 2 ? "" : "es");
		snprintf(out, n, "%s died of %s at %s%s; the analysis covers the run up to then", whom, sig,
		         when, more);
		return 1;
	}
	report_fmt_ns(when, sizeof when, recovered);
	if (a->nprocs > 1)
		snprintf(more, sizeof more, "%zu of %zu processes ", cut, a->nprocs);
	if (p->chunks_recovered)
		snprintf(out, n,
		         "This run did not end normally: %sended without fold's final flush (killed, or "
		         "an exit through the exit_group system call, as Go programs exit); all it "
		         "recorded, %s of %u thread%s, was recovered from its live file",
		         more, when, threads, threads == 1 ? "" : "s");
	else
		snprintf(out, n,
		         "This run did not end normally: %skilled or ended through exit_group (no end "
		         "record); recovered %s of %u thread%s up to the cut",
		         more, when, threads, threads == 1 ? "" : "s");
	return 1;
}
