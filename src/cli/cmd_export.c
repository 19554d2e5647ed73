/* cmd_export.c: `fold export`: per-sample stacks and per-thread timelines in
 * formats other tools read: pprof (gzipped profile.proto), Chrome/Perfetto
 * trace-event JSON, folded stacks for flame graphs. Option parsing only; the
 * exporters live in src/report/export*.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "report.h"
#include "report_export.h"

static void usage(FILE *out)
{
	fputs("usage: fold export --format=pprof|chrome|folded [-o FILE] [--region NAME]\n"
	      "                   [--from S] [--to S] [--no-samples] [--max-size SIZE] [--allow-mixed]\n"
	      "                   [-q] TRACE...\n"
	      "  --format F     pprof: gzipped profile.proto for pprof / go tool pprof\n"
	      "                 chrome: trace-event JSON for Perfetto UI / chrome://tracing\n"
	      "                 folded: \"root;...;leaf count\" lines for flamegraph.pl / speedscope\n"
	      "  -o FILE        output file (default: standard output; pprof needs -o on a terminal)\n"
	      "  --region NAME  only samples (and events) inside instances of region NAME\n"
	      "  --from S       start of the time window, seconds since the run started\n"
	      "  --to S         end of the time window, seconds since the run started\n"
	      "  --no-samples   chrome: region timelines only, no sample events\n"
	      "  --max-size SIZE chrome: most bytes written (64M, 1G; 0: no limit); default 64M or\n"
	      "                 20 times the traces, whichever is larger\n"
	      "  --allow-mixed  accept traces of different programs together\n"
	      "  -q             no summary line on stderr\n",
	      out);
}

/* -q: the reader's and symboliser's notes (salvaged chunks, modules without
 * DWARF) are not errors; the export says what it wrote either way. */
static void diag_quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message;
}

static int parse_seconds(const char *opt, const char *arg, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	if (errno || end == arg || *end || v < 0) {
		fprintf(stderr, "fold: %s %s: expected a number of seconds >= 0\n", opt, arg);
		return -1;
	}
	*out = v;
	return 0;
}

/* "64M", "1G", "500K", "1000000" (bytes), "0" (no limit). */
static int parse_size(const char *arg, long long *out)
{
	char *end;
	errno = 0;
	double v = strtod(arg, &end);
	double unit = 1;
	if (end != arg && *end && !end[1]) {
		switch (*end) {
		case 'k':
		case 'K':
			unit = 1024.0;
			end++;
			break;
		case 'm':
		case 'M':
			unit = 1024.0 * 1024;
			end++;
			break;
		case 'g':
		case 'G':
			unit = 1024.0 * 1024 * 1024;
			end++;
			break;
		}
	}
	if (errno || end == arg || *end || !(v >= 0) || v * unit > 9e18) {
		fprintf(stderr,
		        "fold: export: --max-size %s: expected a size such as 64M, 1G or 0 (no limit)\n",
		        arg);
		return -1;
	}
	*out = (long long)(v * unit);
	return 0;
}

/* What the size limit of a Chrome export left out, and how to get it. */
static void say_cut(const export_stats *st)
{
	if (!st->samples_dropped && !st->regions_dropped)
		return;
	char limit[32];
	if (st->max_size >= 1048576)
		snprintf(limit, sizeof limit, "%.4g MiB", (double)st->max_size / 1048576.0);
	else if (st->max_size >= 1024)
		snprintf(limit, sizeof limit, "%.4g KiB", (double)st->max_size / 1024.0);
	else
		snprintf(limit, sizeof limit, "%llu bytes", st->max_size);
	fprintf(stderr,
	        "fold: export: the output reached its limit of %s (--max-size): %lu sample%s and %lu region "
	        "instance%s at the end of the threads were left out, the first from %.3f s; export them "
	        "with --from/--to or --region, or raise --max-size (0: no limit)\n",
	        limit, st->samples_dropped, st->samples_dropped == 1 ? "" : "s", st->regions_dropped,
	        st->regions_dropped == 1 ? "" : "s", st->cut_s);
}

int cli__cmd_export(int argc, char **argv)
{
	enum {
		OPT_FORMAT = 256,
		OPT_REGION,
		OPT_FROM,
		OPT_TO,
		OPT_NO_SAMPLES,
		OPT_ALLOW_MIXED,
		OPT_MAX_SIZE,
		OPT_HELP
	};
	static const struct option longopts[] = {
	    {"format", required_argument, NULL, OPT_FORMAT},
	    {"output", required_argument, NULL, 'o'},
	    {"region", required_argument, NULL, OPT_REGION},
	    {"from", required_argument, NULL, OPT_FROM},
	    {"to", required_argument, NULL, OPT_TO},
	    {"no-samples", no_argument, NULL, OPT_NO_SAMPLES},
	    {"allow-mixed", no_argument, NULL, OPT_ALLOW_MIXED},
	    {"max-size", required_argument, NULL, OPT_MAX_SIZE},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, OPT_HELP},
	    {NULL, 0, NULL, 0},
	};
	export_options opt = {
	    .format = EXPORT_FOLDED, .from_s = 0, .to_s = -1, .with_samples = 1, .max_size = -1};
	const char *format = NULL, *out_path = NULL;
	int quiet = 0, c;
	optind = 0; /* glibc: full re-initialisation, main may have parsed options already */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "o:qh", longopts, NULL)) != -1) {
		switch (c) {
		case OPT_FORMAT: format = optarg; break;
		case 'o': out_path = optarg; break;
		case OPT_REGION: opt.region = optarg; break;
		case OPT_FROM:
			if (parse_seconds("--from", optarg, &opt.from_s))
				return 2;
			break;
		case OPT_TO:
			if (parse_seconds("--to", optarg, &opt.to_s))
				return 2;
			break;
		case OPT_NO_SAMPLES: opt.with_samples = 0; break;
		case OPT_ALLOW_MIXED: opt.allow_mixed = 1; break;
		case OPT_MAX_SIZE:
			if (parse_size(optarg, &opt.max_size))
				return 2;
			break;
		case 'q': quiet = 1; break;
		case 'h':
		case OPT_HELP: usage(stdout); return 0;
		default:
			fprintf(stderr,
			        "fold: export: unknown or incomplete option %s (see fold export --help)\n",
			        argv[optind - 1]);
			return 2;
		}
	}
	if (!format) {
		fprintf(stderr, "fold: export: --format is required: pprof, chrome or folded\n");
		return 2;
	}
	if (!strcmp(format, "pprof"))
		opt.format = EXPORT_PPROF;
	else if (!strcmp(format, "chrome") || !strcmp(format, "perfetto"))
		opt.format = EXPORT_CHROME;
	else if (!strcmp(format, "folded"))
		opt.format = EXPORT_FOLDED;
	else {
		fprintf(stderr, "fold: export: --format %s: expected pprof, chrome or folded\n", format);
		return 2;
	}
	if (opt.to_s >= 0 && opt.to_s <= opt.from_s) {
		fprintf(stderr, "fold: export: --to %g must be after --from %g\n", opt.to_s, opt.from_s);
		return 2;
	}
	if (optind >= argc) {
		fprintf(stderr, "fold: export: no trace file given\n");
		return 2;
	}
	if (opt.format == EXPORT_PPROF && !out_path && isatty(STDOUT_FILENO)) {
		fprintf(stderr,
		        "fold: export: pprof output is binary; give -o FILE (e.g. -o profile.pb.gz)\n");
		return 2;
	}

	char err[1024] = "";
	if (out_path && report_output_check(out_path, 0, (const char *const *)argv + optind,
	                                    (size_t)(argc - optind), err, sizeof err)) {
		cli__say(err);
		return 2;
	}
	export_stats st = {0};
	int rc = report_export((const char *const *)argv + optind, (size_t)(argc - optind), &opt, out_path,
	                       quiet ? diag_quiet : NULL, NULL, &st, err, sizeof err);
	if (rc) {
		cli__say(err);
		/* Usage errors: --region names no region (ESRCH), traces of different
		 * programs without --allow-mixed (EXDEV). */
		return rc == -ESRCH || rc == -EXDEV ? 2 : 1;
	}
	say_cut(&st);
	if (!st.samples && !st.events)
		fprintf(stderr, "fold: export: nothing in the selection (check --region, --from, --to)\n");
	else if (!quiet && opt.format == EXPORT_CHROME)
		fprintf(
		    stderr,
		    "fold: exported %lu samples (as %lu slices of consecutive samples with one stack) and "
		    "%lu region begin/end events to %s\n",
		    st.samples, st.slices, st.events, out_path ? out_path : "standard output");
	else if (!quiet)
		fprintf(stderr, "fold: exported %lu samples (%lu distinct stacks) to %s\n", st.samples,
		        st.stacks, out_path ? out_path : "standard output");
	return 0;
}
