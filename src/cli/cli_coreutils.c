/* cli_coreutils.c: hand-over to coreutils fold(1).
 *
 * coreutils ships a fold(1) that wraps text lines, and scripts call it
 * (`fold -w 80`, `cat x | fold`). An installed fold must not break them.
 * This fold hands over when it is invoked the way coreutils' would be:
 *  - any coreutils option: -b, -s, -w N, -wN, -N (obsolete width), --bytes,
 *    --spaces, --width[=N];
 *  - no operand at all and standard input is not a terminal (`... | fold`);
 *  - every operand is text for coreutils (an existing, non-empty file that
 *    is not binary, or "-"), and no fold-only option is given.
 * An operand that is ours is never handed over, whatever the options: a
 * file named like a trace (*.trace) or starting with a trace's magic, an
 * empty file (a run that wrote nothing, e.g. on a full disk: the reader
 * says so), a binary file (a NUL in its first 4 KiB). Given with coreutils
 * options, such an operand is a usage error.
 * It then execs the first `fold` on PATH that is not this program. The
 * environment variable FOLD_HANDOFF_SKIP lists (colon-separated real paths)
 * fold programs already visited, so two copies of ours on PATH never loop.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "trace_format.h"
#include "util.h"

/* The first n bytes of path, a regular file (util_open_regular: a FIFO
 * never blocks the hand-over's decision); bytes read, or -1. */
static ssize_t read_head(const char *path, void *buf, size_t n)
{
	int fd = util_open_regular(path, NULL);
	if (fd < 0)
		return -1;
	ssize_t got = read(fd, buf, n);
	close(fd);
	return got;
}

static int is_coreutils_option(const char *a)
{
	if (!strcmp(a, "-b") || !strcmp(a, "-s") || !strncmp(a, "-w", 2) || !strcmp(a, "--bytes") ||
	    !strcmp(a, "--spaces") || !strncmp(a, "--width", 7))
		return 1;
	/* combined short options such as -bs or -sw80, and the obsolete -80 */
	if (a[0] == '-' && a[1] && a[1] != '-') {
		const char *p = a + 1;
		if (*p >= '0' && *p <= '9') {
			while (*p >= '0' && *p <= '9')
				p++;
			return *p == 0;
		}
		for (; *p; p++) {
			if (*p == 'w')
				return 1; /* the rest is the width */
			if (*p != 'b' && *p != 's')
				return 0;
		}
		return 1;
	}
	return 0;
}

static int named_like_trace(const char *path)
{
	size_t n = strlen(path);
	return n >= 6 && !strcmp(path + n - 6, ".trace");
}

/* 1 when path is ours to read (named like a trace, a trace's magic, empty,
 * binary), 0 when it is text for coreutils, -1 when it cannot be read
 * (ours too: the reader says why). */
static int is_ours(const char *path)
{
	if (!strcmp(path, "-"))
		return 0;
	if (named_like_trace(path))
		return 1;
	char head[4096];
	ssize_t n = read_head(path, head, sizeof head);
	if (n < 0)
		return -1;
	if (n == 0 || (n >= 7 && !memcmp(head, TRACE_FILE_MAGIC, 7)))
		return 1;
	return memchr(head, 0, (size_t)n) != NULL;
}

static int looks_like_coreutils(int argc, char **argv)
{
	int operands = 0, text_files = 0, coreutils_option = 0;
	if (argc > 1 && (!strcmp(argv[1], "dump") || !strcmp(argv[1], "export") ||
	                 !strcmp(argv[1], "profile") || !strcmp(argv[1], "help")))
		return 0;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			for (i++; i < argc; i++) {
				operands++;
				if (is_ours(argv[i]) == 0)
					text_files++;
			}
			break;
		}
		if (is_coreutils_option(a)) {
			coreutils_option = 1;
			if ((a[1] != '-' && a[strlen(a) - 1] == 'w') || !strcmp(a, "--width"))
				i++; /* -w N: N is the width */
			continue;
		}
		if (a[0] == '-' && a[1])
			return 0; /* one of ours (or a typo we report ourselves) */
		operands++;
		if (is_ours(a) == 0)
			text_files++;
	}
	if (coreutils_option)
		return 1;
	if (operands == 0)
		return !isatty(STDIN_FILENO);
	return text_files == operands;
}

static int in_skip_list(const char *skip, const char *real)
{
	size_t n = strlen(real);
	for (const char *p = skip; p && *p;) {
		const char *e = strchr(p, ':');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, real, n))
			return 1;
		p = e ? e + 1 : NULL;
	}
	return 0;
}

/* Options of ours whose value is the next argument (not an operand). */
static int takes_value(const char *a)
{
	static const char *const with_value[] = {
	    "-o",       "--output",    "--json", "--csv",           "--fit",  "--region",
	    "--group",  "--outlier-k", "--grid", "--min-instances", "--seed", "--threads",
	    "--format", "--from",      "--to",   "--max-size",
	};
	for (size_t i = 0; i < sizeof with_value / sizeof with_value[0]; i++)
		if (!strcmp(a, with_value[i]))
			return 1;
	return 0;
}

/* 1 for a directory, 2 for an ELF file, 0 otherwise. */
static int operand_kind(const char *path)
{
	struct stat st;
	if (stat(path, &st))
		return 0;
	if (S_ISDIR(st.st_mode))
		return 1;
	if (!S_ISREG(st.st_mode))
		return 0;
	unsigned char magic[4];
	return read_head(path, magic, sizeof magic) == 4 && !memcmp(magic, "\177ELF", 4) ? 2 : 0;
}

/* The first coreutils option of a call that gives none of fold's own
 * options (whose values are skipped: --outlier-k -1 is ours), or NULL. */
static const char *coreutils_call_option(int argc, char **argv, int first)
{
	const char *copt = NULL;
	for (int i = first; i < argc && strcmp(argv[i], "--"); i++) {
		const char *a = argv[i];
		if (is_coreutils_option(a)) {
			if (!copt)
				copt = a;
			i += (a[1] != '-' && a[strlen(a) - 1] == 'w') || !strcmp(a, "--width");
		} else if (a[0] == '-' && a[1]) {
			return NULL; /* one of ours: our call */
		}
	}
	return copt;
}

/* A coreutils-style call (option opt) with a trace among its operands: a
 * trace is never handed over to be wrapped as text. 2 after saying so, 0
 * when every operand may be text (coreutils' call: its own errors). */
static int refuse_trace_to_coreutils(int argc, char **argv, const char *opt)
{
	for (int i = 1, opts = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts && !strcmp(a, "--")) {
			opts = 0;
			continue;
		}
		if (opts && a[0] == '-' && a[1]) {
			i += (a[1] != '-' && a[strlen(a) - 1] == 'w') || !strcmp(a, "--width");
			continue;
		}
		char magic[7];
		if (named_like_trace(a) || (read_head(a, magic, sizeof magic) == sizeof magic &&
		                            !memcmp(magic, TRACE_FILE_MAGIC, 7))) {
			fprintf(
			    stderr,
			    "fold: %s is %s like a fold trace: %s is an option of coreutils fold(1), which "
			    "wraps text; fold reads traces with its own options (fold --help)\n",
			    a, named_like_trace(a) ? "named" : "made", opt);
			return 2;
		}
	}
	return 0;
}

int cli__refuse_non_trace(int argc, char **argv)
{
	int first = 1;
	if (argc > 1 &&
	    (!strcmp(argv[1], "dump") || !strcmp(argv[1], "export") || !strcmp(argv[1], "profile")))
		first = 2;
	const char *copt = coreutils_call_option(argc, argv, first);
	if (copt)
		return refuse_trace_to_coreutils(argc, argv, copt);
	for (int i = first, opts = 1; i < argc; i++) {
		const char *a = argv[i];
		if (opts && !strcmp(a, "--")) {
			opts = 0;
			continue;
		}
		if (opts && a[0] == '-' && a[1]) {
			i += takes_value(a);
			continue;
		}
		int kind = operand_kind(a);
		if (kind == 1) {
			fprintf(
			    stderr,
			    "fold: %s is a directory: give the trace file(s) in it, e.g. fold %s/*.trace\n",
			    a, a);
			return 2;
		}
		if (kind == 2) {
			fprintf(stderr,
			        "fold: %s is a program: run it under foldrun first (foldrun %s), "
			        "then fold the trace it writes\n",
			        a, a);
			return 2;
		}
	}
	return 0;
}

int cli__coreutils_handoff(int argc, char **argv)
{
	if (!looks_like_coreutils(argc, argv))
		return 0;
	char self[PATH_MAX];
	if (!realpath("/proc/self/exe", self))
		self[0] = 0;
	const char *old_skip = getenv("FOLD_HANDOFF_SKIP");
	size_t skip_len = (old_skip ? strlen(old_skip) : 0) + strlen(self) + 2;
	char *skip = malloc(skip_len);
	if (!skip)
		return 1;
	snprintf(skip, skip_len, "%s%s%s", old_skip ? old_skip : "", old_skip && *old_skip ? ":" : "", self);

	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	char *dirs = strdup(path);
	char *save = NULL;
	for (char *d = dirs ? strtok_r(dirs, ":", &save) : NULL; d; d = strtok_r(NULL, ":", &save)) {
		char cand[PATH_MAX], real[PATH_MAX];
		snprintf(cand, sizeof cand, "%s/fold", *d ? d : ".");
		if (access(cand, X_OK) || !realpath(cand, real))
			continue;
		if (!strcmp(real, self) || in_skip_list(skip, real))
			continue;
		setenv("FOLD_HANDOFF_SKIP", skip, 1);
		argv[0] = cand;
		execv(cand, argv);
		fprintf(stderr, "fold: cannot run %s for the coreutils-style invocation: %s\n", cand,
		        strerror(errno));
		free(dirs);
		free(skip);
		return 1;
	}
	free(dirs);
	free(skip);
	fprintf(stderr, "fold: this looks like a coreutils fold(1) invocation (text input or -b/-s/-w), "
	                "but no other fold is on PATH; for traces, give fold trace files\n");
	return 1;
}
