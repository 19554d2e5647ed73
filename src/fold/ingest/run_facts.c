/* run_facts.c: a process' run facts from its INFO records (run_facts.h).
 * The keys and their forms are the runtime's (src/runtime/rt_stream.c
 * write_infos, docs/trace-format.md); FOLD_SAMPLE's forms map to modes as
 * docs/configuration.md describes them:
 *   time@PERIOD     sample.source "time", sample.event CLOCK_MONOTONIC
 *   cputime@PERIOD  sample.source "time", sample.event CLOCK_THREAD_CPUTIME_ID
 *                   (synthetic traces: sample.source "cputime")
 *   EVENT@COUNT     sample.source "papi", sample.event EVENT
 *   off             sample.source "off"
 * The period is in ns for both timers and in occurrences for an overflow. */
#include "run_facts.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* A non-negative decimal integer that is the whole of v and at most max,
 * else -1. */
static long whole_long(const char *v, long max)
{
	if (!v || *v < '0' || *v > '9')
		return -1;
	char *end;
	errno = 0;
	unsigned long long x = strtoull(v, &end, 10);
	if (errno || *end || x > (unsigned long long)max)
		return -1;
	return (long)x;
}

/* A finite number that is the whole of v, in [lo, hi], else fallback. */
static double whole_double(const char *v, double lo, double hi, double fallback)
{
	if (!v || !*v || isspace((unsigned char)*v))
		return fallback;
	char *end;
	double x = strtod(v, &end);
	if (*end || !isfinite(x) || x < lo || x > hi)
		return fallback;
	return x;
}

fold_sample_mode run_facts__sample_mode(const char *source, const char *event)
{
	if (!source)
		return FOLD_SAMPLING_UNKNOWN;
	if (!strcmp(source, "off"))
		return FOLD_SAMPLING_OFF;
	if (!strcmp(source, "cputime"))
		return FOLD_SAMPLING_CPU_TIMER;
	if (!strcmp(source, "time"))
		return event && !strcmp(event, "CLOCK_THREAD_CPUTIME_ID") ? FOLD_SAMPLING_CPU_TIMER
		                                                          : FOLD_SAMPLING_WALL_TIMER;
	if (!strcmp(source, "papi"))
		return FOLD_SAMPLING_OVERFLOW;
	return FOLD_SAMPLING_UNKNOWN;
}

/* Pids, ranks and generations are ints on every system fold runs on. */
#define ID_MAX 2147483647L
/* Periods convert to int64 nanoseconds or counts (pprof) without overflow. */
#define PERIOD_MAX 9.2e18
/* A stop probe beyond 50 us either way cannot be one (perturb.c). */
#define PROBE_MAX_NS 50000.0

static void parse_sampling(fold_sampling *s, run_facts__get_fn get, const void *arg)
{
	s->source = get(arg, "sample.source");
	s->event = get(arg, "sample.event");
	s->mode = run_facts__sample_mode(s->source, s->event);
	double p = whole_double(get(arg, "sample.period"), 0, PERIOD_MAX, 0);
	s->period = s->mode == FOLD_SAMPLING_OFF || s->mode == FOLD_SAMPLING_UNKNOWN ? 0 : p;
	s->jitter = whole_double(get(arg, "sample.jitter"), 0, 0.999, 0);
}

/* overhead.cold_bins_ns: increasing lower bounds, comma separated; at
 * most FOLD_FACTS_COLD_BINS are read, none when one is malformed. */
static unsigned parse_bins(const char *bins, double *lo)
{
	unsigned n = 0;
	for (const char *p = bins; *p && n < FOLD_FACTS_COLD_BINS;) {
		char *end;
		double v = strtod(p, &end);
		if (end == p || !isfinite(v) || (n && !(v > lo[n - 1])))
			return 0;
		lo[n++] = v;
		p = *end == ',' ? end + 1 : end;
	}
	return n;
}

static void parse_hooks(fold_hook_facts *h, run_facts__get_fn get, const void *arg)
{
	h->pair_ns = whole_double(get(arg, "overhead.hook_ns"), -INFINITY, INFINITY, NAN);
	h->pair_ns_old = whole_double(get(arg, "calibration.hook_ns"), -INFINITY, INFINITY, NAN);
	h->inner_ns = whole_double(get(arg, "overhead.hook_inner_ns"), -INFINITY, INFINITY, NAN);
	h->enter_after_ns = whole_double(get(arg, "overhead.hook_enter_after_ns"), -INFINITY, INFINITY, NAN);
	h->exit_after_ns = whole_double(get(arg, "overhead.hook_exit_after_ns"), -INFINITY, INFINITY, NAN);
	h->enter_before_ns =
	    whole_double(get(arg, "overhead.hook_enter_before_ns"), -INFINITY, INFINITY, NAN);
	h->measure_after_ns =
	    whole_double(get(arg, "overhead.cold_measure_after_ns"), -INFINITY, INFINITY, NAN);
	h->measure_before_ns =
	    whole_double(get(arg, "overhead.cold_measure_before_ns"), -INFINITY, INFINITY, NAN);
	h->cold_gap_ns = whole_double(get(arg, "overhead.cold_gap_ns"), -INFINITY, INFINITY, NAN);
	const char *bins = get(arg, "overhead.cold_bins_ns");
	h->has_cold_bins = bins != NULL;
	h->ncold_bins = bins ? parse_bins(bins, h->cold_bin_lo_ns) : 0;
	const char *from = get(arg, "overhead.cold_gap_from");
	h->gap_from_function = from && !strcmp(from, "function");
}

void run_facts__parse(fold_facts *f, run_facts__get_fn get, const void *arg)
{
	memset(f, 0, sizeof *f);
	parse_sampling(&f->sampling, get, arg);
	f->pid = whole_long(get(arg, "pid"), ID_MAX);
	f->ppid = whole_long(get(arg, "ppid"), ID_MAX);
	f->rank = whole_long(get(arg, "mpi.rank"), ID_MAX);
	f->size = whole_long(get(arg, "mpi.size"), ID_MAX);
	f->exec_generation = whole_long(get(arg, "exec.generation"), ID_MAX);
	f->fork_parent_pid = whole_long(get(arg, "fork.parent_pid"), ID_MAX);
	f->host = get(arg, "host");
	f->exe = get(arg, "exe");
	f->cmdline = get(arg, "cmdline");
	f->cwd = get(arg, "cwd");
	f->clock_source = get(arg, "clock.source");
	f->tick_hz = whole_double(get(arg, "clock.tick_hz"), 1, 1e15, 0);
	const char *rt = get(arg, "start.realtime_ns");
	char *end;
	errno = 0;
	unsigned long long start = rt && *rt >= '0' && *rt <= '9' ? strtoull(rt, &end, 10) : 0;
	f->has_start = rt && *rt >= '0' && *rt <= '9' && !errno && !*end && start <= INT64_MAX;
	f->start_realtime_ns = f->has_start ? (int64_t)start : 0;
	f->compress = get(arg, "trace.compress");
	/* Both or neither: an onset without its return is not used. */
	f->stop_onset_ns =
	    whole_double(get(arg, "sample.stop_onset_ns"), -PROBE_MAX_NS + 1e-9, PROBE_MAX_NS - 1e-9, NAN);
	f->stop_return_ns = whole_double(get(arg, "sample.return_ns"), 0, PROBE_MAX_NS - 1e-9, -1);
	if (isnan(f->stop_onset_ns) || f->stop_return_ns < 0) {
		f->stop_onset_ns = 0;
		f->stop_return_ns = -1;
	}
	parse_hooks(&f->hooks, get, arg);
}
