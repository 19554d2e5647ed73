/* names.h: function names shortened for people, keeping what tells them
 * apart (clone suffixes, the class), for the terminal and the report's
 * labels (full names stay in tooltips). Private to src/report. */
#ifndef FOLD_NAMES_H
#define FOLD_NAMES_H

#include <stddef.h>

/* full shortened to at most maxcols columns into out (NUL-terminated,
 * truncated to outn bytes); OpenMP outlined functions ("f._omp_fn.2",
 * "f() [clone ._omp_fn.2]") as "parallel region 2 in f". */
void report_short_name(const char *full, unsigned maxcols, char *out, size_t outn);

/* A CPU-clock counter's rate (perf::TASK-CLOCK, CPU-CLOCK: ns per second)
 * as the CPUs in use ("0.49 CPUs") into out; 0 when counter is not one. */
int report_cpu_rate(const char *counter, double rate, char *out, size_t n);

#endif
