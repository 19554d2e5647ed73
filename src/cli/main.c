/* main.c: the fold command line: subcommand dispatch and the usage text.
 * One file per subcommand, entry points cli__cmd_<name> (cli.h):
 *
 *   fold [OPTIONS] TRACE...           analyse; terminal summary, or -o/--json/--csv (cmd_report.c)
 *   fold profile TRACE...             the exact region profile (cmd_profile.c)
 *   fold dump [--stats] TRACE         every record, one per line (cmd_dump.c)
 *   fold export --format=F TRACE...   pprof, chrome, folded (cmd_export.c)
 *
 * coreutils ships fold(1) and scripts call it. When this fold is invoked the
 * way coreutils' would be (cli_coreutils.c decides), it hands over to the
 * next fold on PATH, so installing fold never breaks `fold -w 80`.
 */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace_format.h"
#include "util.h"

void cli__say(const char *msg)
{
	fputs("fold: ", stderr);
	util_fput_term(stderr, msg);
	fputc('\n', stderr);
}

void cli__usage(FILE *out)
{
	fprintf(out, "Usage: fold [OPTIONS] TRACE...\n"
	             "       fold profile [OPTIONS] TRACE...\n"
	             "       fold dump [--stats] TRACE\n"
	             "       fold export --format=pprof|chrome|folded [-o FILE] TRACE...\n"
	             "\n"
	             "Folds the samples of repetitive regions recorded by libfold.so into one\n"
	             "synthetic instance, fits counter rates, finds phases and attributes them\n"
	             "to source lines. Without an output option it prints a summary.\n"
	             "\n"
	             "Options:\n"
	             "  -o, --output FILE     write the self-contained HTML report to FILE\n"
	             "      --json FILE       write the analysis as JSON (\"-\" for stdout)\n"
	             "      --csv DIR         write tidy CSV tables into DIR\n"
	             "      --fit METHOD      kriging (default) or pwlr (piecewise-linear)\n"
	             "      --region NAME     fold only the region NAME\n"
	             "      --group N         fold instance group N of the region (default: automatic)\n"
	             "      --outlier-k K     drop instances outside median +- K*MAD (default 3)\n"
	             "      --grid N          points on fitted curves (default 200)\n"
	             "      --min-instances N regions with fewer instances are listed, not folded\n"
	             "      --seed N          seed of any randomness (default 1)\n"
	             "      --threads N       worker threads (default: one per core)\n"
	             "      --allow-mixed     analyse traces of different programs together\n"
	             "  -q, --quiet           no progress bar, no diagnostics but errors\n"
	             "  -h, --help            this help\n"
	             "  -V, --version         the version\n"
	             "\n"
	             "TRACE files are written by libfold.so (run a program under foldrun, or with\n"
	             "LD_PRELOAD=libfold.so); one file per process, all given together for an MPI run.\n"
	             "Invoked as coreutils fold(1) would be (-w N, -b, -s, or text input), fold hands\n"
	             "over to the fold(1) that comes next on PATH. See fold(1).\n");
}

/* A trace's live file (TRACE.live, left by a process that ended without
 * fold's final flush) is read with its trace: given beside it (a shell's
 * `fold run.*`), it is not a trace of its own. Returns the new argc. */
static int drop_live_files(int argc, char **argv)
{
	size_t sl = strlen(TRACE_LIVE_SUFFIX);
	int k = 1;
	for (int i = 1; i < argc; i++) {
		size_t n = strlen(argv[i]);
		int beside = 0;
		if (n > sl && !strcmp(argv[i] + n - sl, TRACE_LIVE_SUFFIX))
			for (int j = 1; j < argc && !beside; j++)
				beside = j != i && strlen(argv[j]) == n - sl && !strncmp(argv[j], argv[i], n - sl);
		if (!beside)
			argv[k++] = argv[i];
	}
	argv[k] = NULL;
	return k;
}

int main(int argc, char **argv)
{
	argc = drop_live_files(argc, argv);
	int refused = cli__refuse_non_trace(argc, argv);
	if (refused)
		return refused;
	if (cli__coreutils_handoff(argc, argv))
		return 127; /* only reached when the hand-over exec failed (already reported) */
	if (argc > 1) {
		const char *sub = argv[1];
		if (!strcmp(sub, "dump"))
			return cli__cmd_dump(argc - 1, argv + 1);
		if (!strcmp(sub, "export"))
			return cli__cmd_export(argc - 1, argv + 1);
		if (!strcmp(sub, "profile"))
			return cli__cmd_profile(argc - 1, argv + 1);
		if (!strcmp(sub, "help")) {
			cli__usage(stdout);
			return 0;
		}
	}
	return cli__cmd_report(argc, argv);
}
