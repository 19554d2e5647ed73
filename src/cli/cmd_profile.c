/* cmd_profile.c: `fold profile [OPTIONS] TRACE...`: the exact region profile
 * as a table (report_profile_table), with the options of the analysis. */
#include "cli.h"

int cli__cmd_profile(int argc, char **argv)
{
	return cli__run_analysis(argc, argv, 1);
}
