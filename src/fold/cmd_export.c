/* cmd_export.c: `fold export` (placeholder until the exporters land). */
#include <stdio.h>

#include "report.h"

int cmd_export(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "fold: export is not implemented yet\n");
	return 2;
}
