/* run_end.h: how the run ended, said first by every writer: a run cut by a
 * kill or a program that died of a signal (fold_process.end), in one
 * sentence. Private to src/report. */
#ifndef FOLD_RUN_END_H
#define FOLD_RUN_END_H

#include <stddef.h>

#include "analysis.h"

/* "normal", "cut" or "signal" (a signal outranks a cut) for the run. */
const char *report_run_end_status(const fold_analysis *a);
/* The first process that died of a signal, else the first cut one, else
 * NULL. */
const fold_process *report_run_end_process(const fold_analysis *a);
/* "SIGSEGV", or "signal 77" for a number without a name, into out. */
void report_signal_name(int sig, char *out, size_t n);
/* The sentence ("The program died of SIGSEGV at 812 ms; ..." or "This run
 * did not end normally: killed (no end record); recovered 1.2 s of 3
 * threads up to the cut") into out; 0 (and "") when every process ended
 * normally, else 1. */
int report_run_end_text(const fold_analysis *a, char *out, size_t n);

#endif
