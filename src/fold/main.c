/* main.c: the fold command line (interim: only `fold dump` until the
 * analysis and report modules land). */
#include <stdio.h>
#include <string.h>

#include "cli.h"

int main(int argc, char **argv)
{
	if (fold__coreutils_handoff(argc, argv))
		return 127;
	if (argc > 1 && !strcmp(argv[1], "dump"))
		return fold__cmd_dump(argc - 1, argv + 1);
	fprintf(stderr, "fold: analysis not yet available; use 'fold dump TRACE'\n");
	return 2;
}
