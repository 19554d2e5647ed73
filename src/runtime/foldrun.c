/* foldrun.c: run a program under libfold.so.
 *
 *   foldrun [-e EVENT@PERIOD] [-c COUNTERS] [-o PATTERN] [-q] [--] program args
 *   foldrun --list-events
 *
 * Owns finding libfold.so relative to foldrun's own location (../lib when
 * installed, the same directory in the build tree: no FOLD_HOME), checking
 * the options with the runtime's own parsers, setting FOLD_* and LD_PRELOAD
 * and exec'ing the program (same pid, so `mpirun -np 4 foldrun ./app` and
 * `srun foldrun ./app` measure the ranks, not the launcher).
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <linux/perf_event.h>
#include <papi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fold_rt.h"
#include "fold_version.h"

#ifndef FOLD_LIBDIR_REL
#define FOLD_LIBDIR_REL "../lib"
#endif

static void usage(FILE *out)
{
	fprintf(out, "usage: foldrun [-e EVENT@PERIOD] [-c COUNTERS] [-o PATTERN] [-q] [--] program [args...]\n"
	             "       foldrun --list-events\n"
	             "  -e, --event EVENT@PERIOD  sample source: time@10ms (default), cputime@10ms,\n"
	             "                            perf::TASK-CLOCK@1000000, PAPI_TOT_CYC@2000000, off\n"
	             "  -c, --counters LIST       counters read at every sample, comma separated\n"
	             "                            (PAPI presets or perf:: events; \"none\" for none)\n"
	             "  -o, --output PATTERN      trace file pattern: %%p pid, %%r rank, %%h host,\n"
	             "                            %%e executable, %%n generation (default fold.%%e.%%p.trace)\n"
	             "  -q, --quiet               no summary line at exit (FOLD_QUIET=1)\n"
	             "      --list-events         what this machine can sample and count\n"
	             "  -h, --help, --version\n"
	             "See foldrun(1) and docs/configuration.md for every FOLD_* variable.\n");
}

static int find_runtime(char *out, size_t len)
{
	char self[4096];
	ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
	if (n <= 0)
		return -errno;
	self[n] = 0;
	char *dir = dirname(self);
	const char *candidates[] = {FOLD_LIBDIR_REL "/libfold.so", "libfold.so", "../lib/libfold.so",
	                            "../lib64/libfold.so"};
	for (size_t i = 0; i < sizeof candidates / sizeof candidates[0]; i++) {
		snprintf(out, len, "%s/%s", dir, candidates[i]);
		char real[4096];
		if (access(out, R_OK) == 0 && realpath(out, real)) {
			snprintf(out, len, "%s", real);
			return 0;
		}
	}
	return -ENOENT;
}

/* ---------------------------------------------------------------- --list-events */

static int perf_works(uint32_t type, uint64_t config, char *why, size_t len)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = type;
	attr.config = config;
	attr.exclude_kernel = 1;
	attr.exclude_hv = 1;
	int fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "perf_event_open: %s", strerror(errno));
		return 0;
	}
	close(fd);
	return 1;
}

static int papi_works(const char *name, char *why, size_t len)
{
	int es = PAPI_NULL, rc;
	if ((rc = PAPI_create_eventset(&es)) != PAPI_OK)
		goto out;
	if ((rc = PAPI_add_named_event(es, name)) == PAPI_OK) {
		if ((rc = PAPI_start(es)) == PAPI_OK) {
			long long v;
			PAPI_stop(es, &v);
		}
		PAPI_cleanup_eventset(es);
	}
	PAPI_destroy_eventset(&es);
out:
	if (rc != PAPI_OK)
		snprintf(why, len, "PAPI: %s", PAPI_strerror(rc));
	return rc == PAPI_OK;
}

static int list_events(void)
{
	printf("Sample sources (FOLD_SAMPLE / foldrun -e):\n");
	printf("  time@PERIOD        yes  per-thread CLOCK_MONOTONIC timer (wall time), default time@10ms\n");
	printf("  cputime@PERIOD     yes  per-thread CPU-time timer (at most the kernel tick rate)\n");
	printf("  EVENT@COUNT        overflow of any countable EVENT below (periods: events; ns for *-CLOCK)\n");
	printf("  off                no samples (regions and counters only)\n\n");

	int papi_rc = PAPI_library_init(PAPI_VER_CURRENT);
	int papi_ok = papi_rc == PAPI_VER_CURRENT;
	int perf_component = 0;
	if (papi_ok) {
		int cidx = PAPI_get_component_index("perf_event");
		const PAPI_component_info_t *ci = cidx >= 0 ? PAPI_get_component_info(cidx) : NULL;
		perf_component = ci && !ci->disabled;
		printf("PAPI %d.%d: perf_event component %s%s%s\n", PAPI_VERSION_MAJOR(PAPI_VERSION),
		       PAPI_VERSION_MINOR(PAPI_VERSION), perf_component ? "enabled" : "disabled",
		       ci && ci->disabled ? ": " : "", ci && ci->disabled ? ci->disabled_reason : "");
	} else {
		printf("PAPI: library init failed (%s): events are tested with perf_event_open only\n",
		       papi_rc < 0 ? PAPI_strerror(papi_rc) : "version mismatch");
	}
	printf("\nCounters and overflow events (tested by adding and starting them):\n");
	unsigned usable = 0;
	for (unsigned i = 0; i < rt__perf_name_count; i++) {
		const struct rt_perf_name *p = &rt__perf_names[i];
		char name[160], why[256] = "";
		snprintf(name, sizeof name, "%s%s", strncmp(p->name, "PAPI_", 5) ? "perf::" : "", p->name);
		int ok;
		if (papi_ok && perf_component)
			ok = papi_works(name, why, sizeof why) && perf_works(p->type, p->config, why, sizeof why);
		else
			ok = perf_works(p->type, p->config, why, sizeof why);
		usable += ok;
		printf("  %-32s %-3s %-8s %s\n", name, ok ? "yes" : "no", p->hardware ? "hardware" : "software",
		       ok ? "" : why);
	}
	if (papi_ok && perf_component) {
		/* PAPI native events beyond our table: usable as sampling events. */
		int code = PAPI_NATIVE_MASK, first = 1;
		if (PAPI_enum_event(&code, PAPI_ENUM_FIRST) == PAPI_OK) {
			do {
				PAPI_event_info_t info;
				char why[256];
				if (PAPI_get_event_info(code, &info) != PAPI_OK)
					continue;
				if (!papi_works(info.symbol, why, sizeof why))
					continue;
				if (first) {
					printf("\nMore PAPI native events (sampling only: EVENT@COUNT):\n");
					first = 0;
				}
				printf("  %s\n", info.symbol);
			} while (PAPI_enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
		}
	}
	printf("\n%u of %u counters usable here. Default counters: PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L3_TCM,\n"
	       "falling back to perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES.\n",
	       usable, rt__perf_name_count);
	return 0;
}

/* ---------------------------------------------------------------- main */

static void set(const char *var, const char *value)
{
	if (setenv(var, value, 1)) {
		fprintf(stderr, "foldrun: cannot set %s: %s\n", var, strerror(errno));
		exit(125);
	}
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
	    {"event", required_argument, NULL, 'e'},  {"counters", required_argument, NULL, 'c'},
	    {"output", required_argument, NULL, 'o'}, {"quiet", no_argument, NULL, 'q'},
	    {"list-events", no_argument, NULL, 'L'},  {"help", no_argument, NULL, 'h'},
	    {"version", no_argument, NULL, 'V'},      {NULL, 0, NULL, 0},
	};
	const char *event = NULL, *counters = NULL, *output = NULL;
	int quiet = 0, c;
	/* "+": stop at the program name, its options are its own. */
	while ((c = getopt_long(argc, argv, "+e:c:o:qh", opts, NULL)) != -1) {
		switch (c) {
		case 'e': event = optarg; break;
		case 'c': counters = optarg; break;
		case 'o': output = optarg; break;
		case 'q': quiet = 1; break;
		case 'L': return list_events();
		case 'h': usage(stdout); return 0;
		case 'V': printf("foldrun (fold) %s\n", FOLD_VERSION); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "foldrun: no program given\n");
		usage(stderr);
		return 2;
	}
	if (event) {
		rt_config cfg;
		char msg[256];
		memset(&cfg, 0, sizeof cfg);
		if (rt__parse_sample(event, &cfg, msg, sizeof msg)) {
			fprintf(stderr, "foldrun: -e \"%s\": %s\n", event, msg);
			return 2;
		}
		set("FOLD_SAMPLE", event);
	}
	if (counters)
		set("FOLD_COUNTERS", counters);
	if (output) {
		if (!*output) {
			fprintf(stderr, "foldrun: -o needs a file name pattern\n");
			return 2;
		}
		set("FOLD_OUTPUT", output);
	}
	if (quiet)
		set("FOLD_QUIET", "1");

	char lib[4096];
	if (find_runtime(lib, sizeof lib)) {
		fprintf(stderr, "foldrun: libfold.so not found next to foldrun or in %s relative to it\n",
		        FOLD_LIBDIR_REL);
		return 125;
	}
	/* Keep what is preloaded already (e.g. libasan, which must come first). */
	const char *old = getenv("LD_PRELOAD");
	if (old && *old && !strstr(old, lib)) {
		size_t n = strlen(old) + strlen(lib) + 2;
		char *both = malloc(n);
		if (!both)
			return 125;
		snprintf(both, n, "%s:%s", old, lib);
		set("LD_PRELOAD", both);
		free(both);
	} else if (!old || !*old) {
		set("LD_PRELOAD", lib);
	}
	execvp(argv[optind], argv + optind);
	fprintf(stderr, "foldrun: cannot run %s: %s\n", argv[optind], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
