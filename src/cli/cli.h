/* cli.h: the fold executable's own functions (src/cli): one file per
 * subcommand, entry point cli__cmd_<name>, each returning the exit status. */
#ifndef FOLD_CLI_H
#define FOLD_CLI_H

#include <stdio.h>

/* If argv looks like a coreutils fold(1) invocation, execs the next fold on
 * PATH and does not return; returns nonzero only if that exec failed. */
int cli__coreutils_handoff(int argc, char **argv);
/* A directory or a program (ELF file) given where a trace belongs, in a
 * call that is not coreutils-style: says what to give instead and returns
 * 2 (the exit status); 0 when every operand may be a trace. */
int cli__refuse_non_trace(int argc, char **argv);
/* "fold: MSG" on stderr, every character a terminal could act on as '?'
 * (util_fput_term): messages carry names and paths from traces. */
void cli__say(const char *msg);
/* The usage text of `fold --help`. */
void cli__usage(FILE *out);

/* `fold [OPTIONS] TRACE...`: the report (terminal, HTML, JSON, CSV). */
int cli__cmd_report(int argc, char **argv);
/* `fold profile`: the exact region profile as a table. */
int cli__cmd_profile(int argc, char **argv);
/* `fold dump [--stats] TRACE`: every record of a trace, one per line. */
int cli__cmd_dump(int argc, char **argv);
/* `fold export --format=... TRACE...`; argv[0] is "export". */
int cli__cmd_export(int argc, char **argv);

/* The analysis commands: the options of `fold --help`, the analysis, then
 * the outputs; profile_only prints the profile table instead. */
int cli__run_analysis(int argc, char **argv, int profile_only);

#endif
