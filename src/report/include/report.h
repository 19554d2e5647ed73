/* report.h: fold's human-facing outputs, read-only consumers of a fold_analysis.
 *
 * The CLI (src/cli) calls exactly these (and report_export.h for `fold
 * export`). This is the writers' published header: src/report's other
 * headers are private to it. Every writer treats the
 * strings of the analysis (symbol names, file names, command lines, INFO
 * values) as untrusted text: they may hold markup, quotes, control characters
 * or invalid UTF-8, and are escaped for the target format.
 *
 * Functions return 0 or a negative errno; writers that take err/errlen leave
 * a one-line message naming the file and the problem there.
 */
#ifndef FOLD_REPORT_H
#define FOLD_REPORT_H

#include <stddef.h>
#include <stdio.h>

#include "analysis.h"

/* One self-contained HTML file (inline CSS, SVG and script, no external URL).
 * Written to an exclusive temporary file next to path and renamed, so a
 * reader never sees half a report (report_out_open). */
int report_html_write(const fold_analysis *a, const char *path, char *err, size_t errlen);

/* The analysis as JSON (docs/report.md): to path, "-" for standard output.
 * A file is written to an exclusive temporary next to it and renamed. */
int report_json_write(const fold_analysis *a, const char *path, char *err, size_t errlen);

/* The table of `fold profile`: the exact profile, one region per line,
 * region names shortened to fit width columns and escaped for a terminal;
 * without regions, where the CPUs worked and how to record a region.
 * Returns 0, -EIO or -ENOMEM. */
int report_profile_table(const fold_analysis *a, FILE *out, unsigned width);

/* Plain-text summary for a terminal: run, regions, phases with rates and top
 * source lines, warnings. No line is longer than width columns (minimum 60).
 * color != 0 adds ANSI colours; pass isatty(fileno(out)) && !NO_COLOR. */
int report_terminal(const fold_analysis *a, FILE *out, unsigned width, int color);

/* Tidy CSV tables in dir (created if missing), one row per observation,
 * RFC 4180 quoting: regions.csv, samples.csv, curves.csv, phases.csv,
 * phase_rates.csv, phase_sources.csv, instances.csv, profile.csv,
 * callpairs.csv, calltree.csv, bottomup.csv (columns in docs/report.md). */
int report_csv_write(const fold_analysis *a, const char *dir, char *err, size_t errlen);

/* Whether an output may be written at path, before any analysis: not when
 * it would replace one of the inputs (the same device and inode: the input
 * itself, a hard link or a symlink to it), nor when it is a directory,
 * socket or block device where a file is expected. csv_dir: path is the
 * --csv directory, which must be one (or not exist yet), and each table
 * file in it is checked. 0, or -EEXIST (an input), -EISDIR, -ENOTDIR,
 * -EINVAL, with a one-line message; the CLI exits 2 (a usage error). */
int report_output_check(const char *path, int csv_dir, const char *const *inputs, size_t ninputs, char *err,
                        size_t errlen);

/* Progress bar on stderr, drawn only when stderr is a terminal and quiet is 0;
 * otherwise every call is a cheap no-op. Redraws at most ~10 times a second.
 * report_progress_done() erases the bar and frees p (NULL is accepted). */
typedef struct report_progress report_progress;
report_progress *report_progress_new(int quiet);
void report_progress_update(report_progress *p, double fraction, const char *what);
void report_progress_done(report_progress *p);

#endif
