/* cli.h: functions private to the fold executable (main.c, cmd_*.c, cli_*.c). */
#ifndef FOLD_CLI_H
#define FOLD_CLI_H

#include <stdio.h>

#include "analysis.h"

/* If argv looks like a coreutils fold(1) invocation, execs the next fold on
 * PATH and does not return; returns nonzero only if that exec failed. */
int fold__coreutils_handoff(int argc, char **argv);
/* `fold dump`: every record of a trace, one per line. */
int fold__cmd_dump(int argc, char **argv);
/* `fold profile`: the exact region profile as a table. */
void fold__print_profile(const fold_analysis *a, FILE *out);

#endif
