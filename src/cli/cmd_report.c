/* cmd_report.c: `fold [OPTIONS] TRACE...`: the analysis options, then the
 * outputs asked for (HTML, JSON, CSV) or the terminal summary. `fold
 * profile` (cmd_profile.c) shares the option parsing and the analysis. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "analyze.h"
#include "cli.h"
#include "fold_version.h"
#include "report.h"

enum {
	OPT_JSON = 256,
	OPT_CSV,
	OPT_FIT,
	OPT_REGION,
	OPT_GROUP,
	OPT_OUTLIER_K,
	OPT_GRID,
	OPT_MIN_INSTANCES,
	OPT_SEED,
	OPT_THREADS,
};

static int parse_uint(const char *opt, const char *s, unsigned long max, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || v > max) {
		fprintf(stderr, "fold: %s expects a whole number from 0 to %lu, got '%s'\n", opt, max, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static int parse_double(const char *opt, const char *s, double lo, double hi, double *out)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= lo && v <= hi)) {
		fprintf(stderr, "fold: %s expects a number from %g to %g, got '%s'\n", opt, lo, hi, s);
		return -EINVAL;
	}
	*out = v;
	return 0;
}

static void quiet_diag(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

/* Diagnostics of the analysis on stderr, except "no DWARF" notices about
 * modules (system libraries, every run): those are gathered and said in
 * one line at the end (dwarf_summary). Called from worker threads. */
typedef struct diag_sum {
	pthread_mutex_t lock;
	char lines[2][1024]; /* module base names: [0] no DWARF, [1] no symbols either */
	unsigned n[2];
} diag_sum;

static void summarising_diag(void *arg, const char *msg)
{
	diag_sum *d = arg;
	const char *k0 = strstr(msg, ": no DWARF debug info"),
	           *k1 = strstr(msg, ": no DWARF and no symbol table");
	if (strncmp(msg, "module ", 7) || (!k0 && !k1)) {
		fprintf(stderr, "fold: %s\n", msg);
		return;
	}
	int which = k1 != NULL;
	const char *end = k1 ? k1 : k0, *base = msg + 7;
	for (const char *p = base; p < end; p++)
		if (*p == '/')
			base = p + 1;
	pthread_mutex_lock(&d->lock);
	size_t len = strlen(d->lines[which]);
	if (len + (size_t)(end - base) + 8 < sizeof d->lines[which])
		snprintf(d->lines[which] + len, sizeof d->lines[which] - len, "%s%.*s",
		         d->n[which] ? ", " : "", (int)(end - base), base);
	else if (!strstr(d->lines[which], ", ..."))
		strcat(d->lines[which], ", ...");
	d->n[which]++;
	pthread_mutex_unlock(&d->lock);
}

static void dwarf_summary(diag_sum *d)
{
	if (d->n[0])
		fprintf(stderr,
		        "fold: %u module%s without debug info (%s): function names from their symbol tables, "
		        "no source "
		        "lines\n",
		        d->n[0], d->n[0] == 1 ? "" : "s", d->lines[0]);
	if (d->n[1])
		fprintf(stderr, "fold: %u module%s without debug info or symbols (%s): addresses only\n",
		        d->n[1], d->n[1] == 1 ? "" : "s", d->lines[1]);
}

static void progress_cb(void *arg, double fraction, const char *what)
{
	report_progress_update(arg, fraction, what);
}

/* The terminal's width: COLUMNS when set (as shells export it, and as a
 * script asks for a width), else the terminal's, else 100. */
static unsigned terminal_width(void)
{
	const char *c = getenv("COLUMNS");
	char *end;
	unsigned long v = c ? strtoul(c, &end, 10) : 0;
	if (c && end != c && !*end && v >= 40 && v <= 1000)
		return (unsigned)v;
	struct winsize ws;
	if (isatty(STDOUT_FILENO) && !ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) && ws.ws_col >= 40)
		return ws.ws_col;
	return 100;
}

/* The analysis commands: default (report) and profile. */
int cli__run_analysis(int argc, char **argv, int profile_only)
{
	static const struct option longopts[] = {
	    {"output", required_argument, NULL, 'o'},
	    {"json", required_argument, NULL, OPT_JSON},
	    {"csv", required_argument, NULL, OPT_CSV},
	    {"fit", required_argument, NULL, OPT_FIT},
	    {"region", required_argument, NULL, OPT_REGION},
	    {"group", required_argument, NULL, OPT_GROUP},
	    {"outlier-k", required_argument, NULL, OPT_OUTLIER_K},
	    {"grid", required_argument, NULL, OPT_GRID},
	    {"min-instances", required_argument, NULL, OPT_MIN_INSTANCES},
	    {"seed", required_argument, NULL, OPT_SEED},
	    {"threads", required_argument, NULL, OPT_THREADS},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {0, 0, 0, 0},
	};
	fold_options opt;
	fold_options_init(&opt);
	const char *html = NULL, *json = NULL, *csv = NULL;
	int quiet = 0, c;
	unsigned long v;
	while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': html = optarg; break;
		case OPT_JSON: json = optarg; break;
		case OPT_CSV: csv = optarg; break;
		case OPT_FIT:
			if (strcmp(optarg, "kriging") && strcmp(optarg, "pwlr")) {
				fprintf(stderr, "fold: --fit expects 'kriging' or 'pwlr', got '%s'\n",
				        optarg);
				return 2;
			}
			opt.fit = optarg;
			break;
		case OPT_REGION: opt.region = optarg; break;
		case OPT_GROUP:
			if (parse_uint("--group", optarg, 1000000, &v))
				return 2;
			opt.group = (int)v;
			break;
		case OPT_OUTLIER_K:
			if (parse_double("--outlier-k", optarg, 0.5, 1e6, &opt.outlier_k))
				return 2;
			break;
		case OPT_GRID:
			if (parse_uint("--grid", optarg, 100000, &v))
				return 2;
			if (v < 10) {
				fprintf(stderr, "fold: --grid expects at least 10 points, got '%s'\n",
				        optarg);
				return 2;
			}
			opt.grid = (unsigned)v;
			break;
		case OPT_MIN_INSTANCES:
			if (parse_uint("--min-instances", optarg, 1000000000, &v))
				return 2;
			opt.min_instances = (unsigned)v;
			break;
		case OPT_SEED:
			if (parse_uint("--seed", optarg, ULONG_MAX, &v))
				return 2;
			opt.seed = v;
			break;
		case OPT_THREADS:
			if (parse_uint("--threads", optarg, 1024, &v))
				return 2;
			opt.threads = (unsigned)v;
			break;
		case 'q': quiet = 1; break;
		case 'h': cli__usage(stdout); return 0;
		case 'V': printf("fold %s\n", FOLD_VERSION); return 0;
		default: fprintf(stderr, "Try 'fold --help'.\n"); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
		        "fold: no trace given (expected one or more trace files written by libfold.so)\n"
		        "Try 'fold --help'.\n");
		return 2;
	}
	diag_sum dsum = {.n = {0, 0}};
	pthread_mutex_init(&dsum.lock, NULL);
	if (quiet) {
		opt.diag = quiet_diag;
	} else {
		opt.diag = summarising_diag;
		opt.diag_arg = &dsum;
	}
	report_progress *prog = report_progress_new(quiet);
	opt.progress = progress_cb;
	opt.progress_arg = prog;

	fold_analysis *a = NULL;
	char err[512] = "";
	int rc = fold_analyze((const char *const *)argv + optind, (size_t)(argc - optind), &opt, &a, err,
	                      sizeof err);
	report_progress_done(prog);
	dwarf_summary(&dsum);
	pthread_mutex_destroy(&dsum.lock);
	if (rc) {
		fprintf(stderr, "fold: %s\n", err[0] ? err : strerror(-rc));
		return 1;
	}
	int status = 0;
	if (json && report_json_write(a, json, err, sizeof err)) {
		fprintf(stderr, "fold: %s\n", err);
		status = 1;
	}
	if (csv && report_csv_write(a, csv, err, sizeof err)) {
		fprintf(stderr, "fold: %s\n", err);
		status = 1;
	}
	if (html) {
		if (report_html_write(a, html, err, sizeof err)) {
			fprintf(stderr, "fold: %s\n", err);
			status = 1;
		} else if (!quiet) {
			fprintf(stderr, "fold: wrote %s\n", html);
		}
	}
	if (profile_only) {
		if (report_profile_table(a, stdout, terminal_width())) {
			fprintf(stderr, "fold: standard output: write failed\n");
			status = 1;
		}
	} else if (!html && !json && !csv) {
		report_terminal(a, stdout, terminal_width(), isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
	}
	fold_analysis_free(a);
	return status;
}

int cli__cmd_report(int argc, char **argv)
{
	return cli__run_analysis(argc, argv, 0);
}
