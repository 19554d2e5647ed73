/* cmd_report.c: `fold [OPTIONS] TRACE...`: the analysis options, then the
 * outputs asked for (HTML, JSON, CSV) or the terminal summary. `fold
 * profile` (cmd_profile.c) shares the option parsing and the analysis. */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
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
	OPT_ALLOW_MIXED,
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
		cli__say(msg);
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
	char line[1200];
	if (d->n[0]) {
		snprintf(line, sizeof line,
		         "%u module%s without debug info (%s): function names from their symbol tables, no "
		         "source lines",
		         d->n[0], d->n[0] == 1 ? "" : "s", d->lines[0]);
		cli__say(line);
	}
	if (d->n[1]) {
		snprintf(line, sizeof line, "%u module%s without debug info or symbols (%s): addresses only",
		         d->n[1], d->n[1] == 1 ? "" : "s", d->lines[1]);
		cli__say(line);
	}
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

/* The numeric analysis options: where each goes in fold_options and what it
 * accepts. A new numeric option is one row here and one in longopts. */
enum num_type { NUM_INT, NUM_UNSIGNED, NUM_U64, NUM_DOUBLE };
static const struct num_opt {
	int id;
	const char *name;
	enum num_type type;
	size_t offset;          /* in fold_options */
	unsigned long min, max; /* whole numbers; min > 0 is stated in units */
	const char *units;
	double lo, hi; /* NUM_DOUBLE */
} num_opts[] = {
    {OPT_GROUP, "--group", NUM_INT, offsetof(fold_options, group), 0, 1000000, NULL, 0, 0},
    {OPT_OUTLIER_K, "--outlier-k", NUM_DOUBLE, offsetof(fold_options, outlier_k), 0, 0, NULL, 0.5, 1e6},
    {OPT_GRID, "--grid", NUM_UNSIGNED, offsetof(fold_options, grid), 10, 100000, "points", 0, 0},
    {OPT_MIN_INSTANCES, "--min-instances", NUM_UNSIGNED, offsetof(fold_options, min_instances), 0, 1000000000,
     NULL, 0, 0},
    {OPT_SEED, "--seed", NUM_U64, offsetof(fold_options, seed), 0, ULONG_MAX, NULL, 0, 0},
    {OPT_THREADS, "--threads", NUM_UNSIGNED, offsetof(fold_options, threads), 0, 1024, NULL, 0, 0},
};

/* Parses optarg for the numeric option id into opt. 0, or -EINVAL after a
 * one-line message; 1 when id is not a numeric option. */
static int set_num_opt(fold_options *opt, int id, const char *arg)
{
	for (size_t i = 0; i < sizeof num_opts / sizeof num_opts[0]; i++) {
		const struct num_opt *n = &num_opts[i];
		if (n->id != id)
			continue;
		char *field = (char *)opt + n->offset;
		if (n->type == NUM_DOUBLE)
			return parse_double(n->name, arg, n->lo, n->hi, (double *)field);
		unsigned long v;
		if (parse_uint(n->name, arg, n->max, &v))
			return -EINVAL;
		if (v < n->min) {
			fprintf(stderr, "fold: %s expects at least %lu %s, got '%s'\n", n->name, n->min,
			        n->units, arg);
			return -EINVAL;
		}
		switch (n->type) {
		case NUM_INT: *(int *)field = (int)v; break;
		case NUM_UNSIGNED: *(unsigned *)field = (unsigned)v; break;
		default: *(uint64_t *)field = v; break;
		}
		return 0;
	}
	return 1;
}

/* What to write once the analysis is done. */
typedef struct outputs {
	const char *html, *json, *csv;
	int quiet;
} outputs;

/* Parses the options into opt and out. Returns -1 to go on, else the exit
 * status (0 after --help or --version, 2 for a bad option). */
static int parse_options(int argc, char **argv, fold_options *opt, outputs *out)
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
	    {"allow-mixed", no_argument, NULL, OPT_ALLOW_MIXED},
	    {"quiet", no_argument, NULL, 'q'},
	    {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},
	    {0, 0, 0, 0},
	};
	int c;
	while ((c = getopt_long(argc, argv, "o:qhV", longopts, NULL)) != -1) {
		switch (c) {
		case 'o': out->html = optarg; break;
		case OPT_JSON: out->json = optarg; break;
		case OPT_CSV: out->csv = optarg; break;
		case OPT_FIT:
			if (strcmp(optarg, "kriging") && strcmp(optarg, "pwlr")) {
				fprintf(stderr, "fold: --fit expects 'kriging' or 'pwlr', got '%s'\n",
				        optarg);
				return 2;
			}
			opt->fit = optarg;
			break;
		case OPT_REGION: opt->region = optarg; break;
		case OPT_ALLOW_MIXED: opt->allow_mixed = 1; break;
		case 'q': out->quiet = 1; break;
		case 'h': cli__usage(stdout); return 0;
		case 'V': printf("fold %s\n", FOLD_VERSION); return 0;
		default: {
			int rc = set_num_opt(opt, c, optarg);
			if (rc == 1)
				fprintf(stderr, "Try 'fold --help'.\n");
			if (rc)
				return 2;
		}
		}
	}
	if (optind >= argc) {
		fprintf(stderr,
		        "fold: no trace given (expected one or more trace files written by libfold.so)\n"
		        "Try 'fold --help'.\n");
		return 2;
	}
	return -1;
}

/* No output may replace an input, nor be a directory where a file belongs
 * (report_output_check): said before any analysis, exit status 2. */
static int check_outputs(const outputs *out, const char *const *inputs, size_t n)
{
	char err[1024];
	const char *files[] = {out->html, out->json && strcmp(out->json, "-") ? out->json : NULL};
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		if (files[i] && report_output_check(files[i], 0, inputs, n, err, sizeof err)) {
			cli__say(err);
			return 2;
		}
	if (out->csv && report_output_check(out->csv, 1, inputs, n, err, sizeof err)) {
		cli__say(err);
		return 2;
	}
	return 0;
}

/* Writes the outputs asked for; the exit status (0, or 1 when one failed). */
static int write_outputs(const fold_analysis *a, const outputs *out, int profile_only)
{
	char err[512] = "";
	int status = 0;
	if (out->json && report_json_write(a, out->json, err, sizeof err)) {
		cli__say(err);
		status = 1;
	}
	if (out->csv && report_csv_write(a, out->csv, err, sizeof err)) {
		cli__say(err);
		status = 1;
	}
	if (out->html) {
		if (report_html_write(a, out->html, err, sizeof err)) {
			cli__say(err);
			status = 1;
		} else if (!out->quiet) {
			fprintf(stderr, "fold: wrote %s\n", out->html);
		}
	}
	if (profile_only) {
		if (report_profile_table(a, stdout, terminal_width())) {
			fprintf(stderr, "fold: standard output: write failed\n");
			status = 1;
		}
	} else if (!out->html && !out->json && !out->csv) {
		report_terminal(a, stdout, terminal_width(), isatty(STDOUT_FILENO) && !getenv("NO_COLOR"));
	}
	return status;
}

/* The analysis commands: default (report) and profile. */
int cli__run_analysis(int argc, char **argv, int profile_only)
{
	fold_options opt;
	fold_options_init(&opt);
	outputs out = {0};
	int status = parse_options(argc, argv, &opt, &out);
	if (status >= 0)
		return status;
	status = check_outputs(&out, (const char *const *)argv + optind, (size_t)(argc - optind));
	if (status)
		return status;
	diag_sum dsum = {.n = {0, 0}};
	pthread_mutex_init(&dsum.lock, NULL);
	if (out.quiet) {
		opt.diag = quiet_diag;
	} else {
		opt.diag = summarising_diag;
		opt.diag_arg = &dsum;
	}
	report_progress *prog = report_progress_new(out.quiet);
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
		cli__say(err[0] ? err : strerror(-rc));
		/* Usage errors: --region names no region (ESRCH), traces of different
		 * programs without --allow-mixed (EXDEV). */
		return rc == -ESRCH || rc == -EXDEV ? 2 : 1;
	}
	status = write_outputs(a, &out, profile_only);
	fold_analysis_free(a);
	return status;
}

int cli__cmd_report(int argc, char **argv)
{
	return cli__run_analysis(argc, argv, 0);
}
