/* rt_config.c: FOLD_* environment variables and the runtime's stderr lines.
 *
 * Owns parsing and validating the configuration once, at process start. Every
 * variable is documented in docs/configuration.md. A bad value never stops the
 * program: it gets one "fold:" line naming the variable, the value given and
 * what is accepted, and the default is used.
 */
#include "fold_rt.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_chunk.h"
#include "util_nearest.h"

/* foldrun's: its own standard error. libfold.so links rt_io.c's, which
 * keeps fold's lines out of a program's files and its signals. */
__attribute__((weak)) void rt__warn_raw(const char *msg)
{
	size_t n = strlen(msg);
	while (n > 0) {
		ssize_t w = write(STDERR_FILENO, msg, n);
		if (w <= 0) {
			if (w < 0 && errno == EINTR)
				continue;
			return;
		}
		msg += w;
		n -= (size_t)w;
	}
}

void rt__str_put(char *buf, size_t cap, size_t *o, const char *s)
{
	while (*s && *o + 1 < cap)
		buf[(*o)++] = *s++;
	if (*o < cap)
		buf[*o] = 0;
}

void rt__str_put_u64(char *buf, size_t cap, size_t *o, uint64_t v)
{
	char tmp[24];
	int n = 0;
	do
		tmp[n++] = (char)('0' + v % 10);
	while ((v /= 10) && n < 23);
	while (n && *o + 1 < cap)
		buf[(*o)++] = tmp[--n];
	if (*o < cap)
		buf[*o] = 0;
}

void rt__warn(const char *fmt, ...)
{
	char line[1024];
	int saved = errno;
	int off = snprintf(line, sizeof line, "fold: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line + off, sizeof line - (size_t)off - 1, fmt, ap);
	va_end(ap);
	size_t n = strlen(line);
	line[n] = '\n';
	line[n + 1] = 0;
	rt__warn_raw(line);
	errno = saved;
}

int rt__parse_duration(const char *s, uint64_t *ns)
{
	char *end;
	errno = 0;
	double v = strtod(s, &end);
	if (end == s || errno || !(v > 0) || isinf(v)) /* also nan, inf */
		return -EINVAL;
	double mul;
	if (!strcmp(end, "ns"))
		mul = 1;
	else if (!strcmp(end, "us"))
		mul = 1e3;
	else if (!strcmp(end, "ms"))
		mul = 1e6;
	else if (!strcmp(end, "s"))
		mul = 1e9;
	else
		return -EINVAL;
	double r = v * mul;
	if (r < 1 || r > 3600e9)
		return -EINVAL;
	*ns = (uint64_t)(r + 0.5);
	return 0;
}

int rt__parse_signal(const char *s)
{
	static const struct {
		const char *name;
		int signo;
	} names[] = {{"SIGPROF", SIGPROF},
	             {"SIGVTALRM", SIGVTALRM},
	             {"SIGALRM", SIGALRM},
	             {"SIGUSR1", SIGUSR1},
	             {"SIGUSR2", SIGUSR2}};
	const char *p = s;
	if (!strncmp(p, "SIG", 3) || !strncmp(p, "sig", 3)) {
		for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
			if (!strcasecmp(p, names[i].name))
				return names[i].signo;
		p += 3;
	}
	if (!strncasecmp(p, "RTMIN", 5)) {
		int off = 0;
		if (p[5] == '+') {
			char *end;
			long v = strtol(p + 6, &end, 10);
			if (*end || end == p + 6 || v < 0)
				return -EINVAL;
			off = (int)v;
		} else if (p[5]) {
			return -EINVAL;
		}
		if (SIGRTMIN + off > SIGRTMAX)
			return -EINVAL;
		return SIGRTMIN + off;
	}
	if (p != s) /* SIGxxx we do not accept */
		return -EINVAL;
	char *end;
	long v = strtol(s, &end, 10);
	if (*end || end == s)
		return -EINVAL;
	/* Only signals whose default action we can safely take over. */
	if (v == SIGPROF || v == SIGVTALRM || v == SIGALRM || v == SIGUSR1 || v == SIGUSR2 ||
	    (v >= SIGRTMIN && v <= SIGRTMAX))
		return (int)v;
	return -EINVAL;
}

int rt__parse_sample(const char *spec, rt_config *cfg, char *msg, size_t msg_len)
{
	if (!strcmp(spec, "off")) {
		cfg->source = FOLD_SOURCE_OFF;
		cfg->period = 0;
		return 0;
	}
	const char *at = strrchr(spec, '@');
	if (!at || at == spec || !at[1]) {
		snprintf(msg, msg_len,
		         "expected SOURCE@PERIOD (time@10ms, cputime@10ms, EVENT@COUNT) or off");
		return -EINVAL;
	}
	size_t nlen = (size_t)(at - spec);
	if (nlen >= sizeof cfg->sample_event) {
		snprintf(msg, msg_len, "event name too long");
		return -EINVAL;
	}
	char name[FOLD_NAME_MAX];
	memcpy(name, spec, nlen);
	name[nlen] = 0;
	const char *per = at + 1;
	if (!strcmp(name, "time") || !strcmp(name, "cputime")) {
		uint64_t ns;
		if (rt__parse_duration(per, &ns)) {
			snprintf(msg, msg_len,
			         "period must be a number with a unit ns, us, ms or s (e.g. 10ms)");
			return -EINVAL;
		}
		if (ns < FOLD_MIN_PERIOD_NS) {
			snprintf(
			    msg, msg_len,
			    "period below the safe floor of 100us (shorter periods livelock this machine)");
			return -EINVAL;
		}
		cfg->source = !strcmp(name, "time") ? FOLD_SOURCE_TIME : FOLD_SOURCE_CPUTIME;
		cfg->period = ns;
		cfg->sample_event[0] = 0;
		return 0;
	}
	char *end;
	errno = 0;
	unsigned long long v = strtoull(per, &end, 10);
	if (errno || end == per || *end || v == 0) {
		snprintf(msg, msg_len,
		         "EVENT@PERIOD needs a whole number of events as period (e.g. 1000000)");
		return -EINVAL;
	}
	if (v < FOLD_MIN_PAPI_PERIOD) {
		snprintf(msg, msg_len, "period below the safe floor of %llu events",
		         (unsigned long long)FOLD_MIN_PAPI_PERIOD);
		return -EINVAL;
	}
	/* perf::TASK-CLOCK / CPU-CLOCK count ns: apply the time floor too. */
	if ((strstr(name, "TASK-CLOCK") || strstr(name, "CPU-CLOCK")) && v < FOLD_MIN_PERIOD_NS) {
		snprintf(msg, msg_len, "period below the safe floor of 100000 ns for %s", name);
		return -EINVAL;
	}
	cfg->source = FOLD_SOURCE_PAPI;
	cfg->period = v;
	memcpy(cfg->sample_event, name, nlen + 1);
	return 0;
}

/* Every FOLD_* environment variable fold reads: the runtime's settings
 * (docs/configuration.md; here and in the region front ends), then those of
 * the fold CLI and of fold's own scripts and tests, which reach programs
 * through the environment and are no typos. Any other FOLD_* variable gets
 * a "did you mean" at start-up (rt__config_check_unknown). The test
 * cli_unknown_env keeps this table, the getenv() calls and
 * docs/configuration.md in step. */
static const struct {
	const char *name;
	int setting; /* 1: a runtime setting, offered as "did you mean" */
} known_vars[] = {
    {"FOLD_SAMPLE", 1},
    {"FOLD_SAMPLE_OUTSIDE", 1},
    {"FOLD_JITTER", 1},
    {"FOLD_SEED", 1},
    {"FOLD_SIGNAL", 1},
    {"FOLD_COUNTERS", 1},
    {"FOLD_STACK_DEPTH", 1},
    {"FOLD_OUTPUT", 1},
    {"FOLD_QUIET", 1},
    {"FOLD_ZLIB_LEVEL", 1},
    {"FOLD_COMPRESS", 1},
    {"FOLD_FLUSH_INTERVAL", 1},
    {"FOLD_CLOCK", 1},
    {"FOLD_EXEC_GENERATION", 1},
    {"FOLD_FILTER", 1},
    {"FOLD_MIN_FUNC_BYTES", 1},
    {"FOLD_THROTTLE", 1},
    {"FOLD_MPI_BURSTS", 1},
    {"FOLD_OPENMP", 1},
    {"FOLD_OPENMP_COUNTERS", 1},
    /* the fold CLI */
    {"FOLD_SHARE_DIR", 0},
    {"FOLD_HANDOFF_SKIP", 0},
    /* fold's scripts and tests */
    {"FOLD_CLI", 0},
    {"FOLD_BUILD", 0},
    {"FOLD_PROXY_APPS", 0},
    {"FOLD_VALIDATION_ANY_LOAD", 0},
    {"FOLD_FUZZ_SECONDS", 0},
    {"FOLD_FRESH_CACHE", 0},
    {"FOLD_FRESH_MIRROR", 0},
};
#define NKNOWN_VARS (sizeof known_vars / sizeof known_vars[0])

static const char *setting_name(const void *arg, size_t i)
{
	(void)arg;
	return known_vars[i].setting ? known_vars[i].name : NULL;
}

void rt__config_check_unknown(void)
{
	extern char **environ;
	for (char **e = environ; e && *e; e++) {
		if (strncmp(*e, "FOLD_", 5))
			continue;
		char name[128];
		size_t n = 0;
		while ((*e)[n] && (*e)[n] != '=' && n + 1 < sizeof name) {
			name[n] = (*e)[n];
			n++;
		}
		name[n] = 0;
		size_t k = 0;
		while (k < NKNOWN_VARS && strcmp(known_vars[k].name, name))
			k++;
		if (k < NKNOWN_VARS)
			continue;
		/* The bound is on the part after FOLD_; a second name only when as near. */
		size_t idx[2];
		size_t got =
		    util_nearest(name, setting_name, NULL, NKNOWN_VARS, util_typo_bound(name + 5), 2, idx);
		for (size_t i = 0; !got && i < NKNOWN_VARS; i++) /* FOLD_FLUSH: FOLD_FLUSH_INTERVAL */
			if (known_vars[i].setting && !strncmp(known_vars[i].name, name, n) &&
			    known_vars[i].name[n] == '_')
				idx[got++] = i;
		if (got == 2 && util_edit_distance(name, known_vars[idx[1]].name) >
		                    util_edit_distance(name, known_vars[idx[0]].name))
			got = 1;
		if (got == 2)
			rt__warn("%s is not a fold setting (did you mean %s or %s?)", name,
			         known_vars[idx[0]].name, known_vars[idx[1]].name);
		else if (got == 1)
			rt__warn("%s is not a fold setting (did you mean %s?)", name,
			         known_vars[idx[0]].name);
		else
			rt__warn("%s is not a fold setting; ignored (the settings are in libfold(3))", name);
	}
}

static void bad_value(const char *var, const char *value, const char *accepted, const char *dflt)
{
	rt__warn("%s=\"%s\" is not valid: %s; using %s", var, value, accepted, dflt);
}

static int parse_u64(const char *s, uint64_t *out);

/* FOLD_COMPRESS=zstd[:LEVEL] (the default, level 1), zlib[:LEVEL] or
 * none; the older FOLD_ZLIB_LEVEL=N, when FOLD_COMPRESS is not set, is
 * zlib:N (0: none). */
static void parse_compress(rt_config *cfg)
{
	cfg->compress_codec = TRACE_CODEC_ZSTD;
	cfg->compress_level = 1;
	const char *v = getenv("FOLD_COMPRESS");
	const char *z = getenv("FOLD_ZLIB_LEVEL");
	uint64_t l;
	if ((!v || !*v) && z && *z) {
		if (parse_u64(z, &l) || l > 9)
			bad_value("FOLD_ZLIB_LEVEL", z, "expected 0 (store) to 9", "zstd:1");
		else {
			cfg->compress_codec = l ? TRACE_CODEC_ZLIB : TRACE_CODEC_NONE;
			cfg->compress_level = (int)l;
		}
		return;
	}
	if (!v || !*v)
		return;
	const char *colon = strchr(v, ':');
	size_t n = colon ? (size_t)(colon - v) : strlen(v);
	int codec = n == 4 && !strncmp(v, "zstd", 4)   ? TRACE_CODEC_ZSTD
	            : n == 4 && !strncmp(v, "zlib", 4) ? TRACE_CODEC_ZLIB
	            : n == 4 && !strncmp(v, "none", 4) ? TRACE_CODEC_NONE
	                                               : -1;
	uint64_t max = codec == TRACE_CODEC_ZSTD ? 19 : 9;
	l = 1;
	if (codec < 0 || (codec == TRACE_CODEC_NONE && colon) ||
	    (colon && (parse_u64(colon + 1, &l) || l < 1 || l > max))) {
		bad_value("FOLD_COMPRESS", v, "expected zstd[:1-19], zlib[:1-9] or none", "zstd:1");
		return;
	}
	cfg->compress_codec = codec;
	cfg->compress_level = codec == TRACE_CODEC_NONE ? 0 : (int)l;
}

static int parse_u64(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	if (!*s || *s == '-')
		return -EINVAL;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *end)
		return -EINVAL;
	*out = v;
	return 0;
}

static int env_bool(const char *var, int dflt)
{
	const char *v = getenv(var);
	if (!v)
		return dflt;
	if (!strcmp(v, "1") || !strcasecmp(v, "yes") || !strcasecmp(v, "true") || !strcasecmp(v, "on"))
		return 1;
	if (!strcmp(v, "0") || !strcasecmp(v, "no") || !strcasecmp(v, "false") || !strcasecmp(v, "off") ||
	    !*v)
		return 0;
	bad_value(var, v, "expected 1/0, yes/no, true/false or on/off", dflt ? "1" : "0");
	return dflt;
}

void rt__config_load(rt_config *cfg)
{
	char msg[256];
	const char *v;
	memset(cfg, 0, sizeof *cfg);

	cfg->quiet = env_bool("FOLD_QUIET", 0);

	snprintf(cfg->sample_spec, sizeof cfg->sample_spec, "%s", FOLD_DEFAULT_SAMPLE);
	rt__parse_sample(FOLD_DEFAULT_SAMPLE, cfg, msg, sizeof msg);
	if ((v = getenv("FOLD_SAMPLE")) && *v) {
		rt_config tmp = *cfg;
		if (rt__parse_sample(v, &tmp, msg, sizeof msg) == 0) {
			*cfg = tmp;
			snprintf(cfg->sample_spec, sizeof cfg->sample_spec, "%s", v);
		} else {
			bad_value("FOLD_SAMPLE", v, msg, FOLD_DEFAULT_SAMPLE);
		}
	}

	cfg->jitter = 0.1;
	if ((v = getenv("FOLD_JITTER")) && *v) {
		char *end;
		errno = 0;
		double j = strtod(v, &end);
		if (errno || end == v || *end || !(j >= 0 && j <= 0.5)) /* also nan */
			bad_value("FOLD_JITTER", v, "expected a fraction of the period from 0 to 0.5", "0.1");
		else
			cfg->jitter = j;
	}

	cfg->seed = 0x5eedf01dull;
	if ((v = getenv("FOLD_SEED")) && *v) {
		uint64_t s;
		if (parse_u64(v, &s))
			bad_value("FOLD_SEED", v, "expected a non-negative integer", "0x5eedf01d");
		else
			cfg->seed = s;
	}

	cfg->signo = SIGRTMIN + 4;
	if ((v = getenv("FOLD_SIGNAL")) && *v) {
		int s = rt__parse_signal(v);
		if (s < 0)
			bad_value(
			    "FOLD_SIGNAL", v,
			    "expected SIGPROF, SIGVTALRM, SIGALRM, SIGUSR1, SIGUSR2, SIGRTMIN+N or a number",
			    "SIGRTMIN+4");
		else {
			cfg->signo = s;
			cfg->signal_set = 1;
		}
	}

	cfg->stack_depth = FOLD_DEFAULT_STACK_DEPTH;
	if ((v = getenv("FOLD_STACK_DEPTH")) && *v) {
		uint64_t d;
		if (parse_u64(v, &d) || d > TRACE_MAX_DEPTH)
			bad_value("FOLD_STACK_DEPTH", v, "expected an integer from 0 (no stacks) to 256",
			          "64");
		else
			cfg->stack_depth = (unsigned)d;
	}

	cfg->counters_default = 1;
	if ((v = getenv("FOLD_COUNTERS")) != NULL) {
		if (strlen(v) >= sizeof cfg->counters) {
			bad_value("FOLD_COUNTERS", "...", "list too long (at most 511 characters)",
			          "the default set");
		} else {
			snprintf(cfg->counters, sizeof cfg->counters, "%s", v);
			cfg->counters_default = 0;
		}
	}

	snprintf(cfg->output, sizeof cfg->output, "%s", "");
	if ((v = getenv("FOLD_OUTPUT")) && *v) {
		if (strlen(v) >= sizeof cfg->output)
			bad_value("FOLD_OUTPUT", "...", "path pattern too long (at most 511 characters)",
			          "the default pattern");
		else
			snprintf(cfg->output, sizeof cfg->output, "%s", v);
	}

	parse_compress(cfg);

	cfg->flush_interval_ns = FOLD_DEFAULT_FLUSH_INTERVAL_NS;
	if ((v = getenv("FOLD_FLUSH_INTERVAL")) && *v) {
		uint64_t ns;
		if (rt__parse_duration(v, &ns) || ns < FOLD_MIN_FLUSH_INTERVAL_NS)
			bad_value("FOLD_FLUSH_INTERVAL", v,
			          "expected a duration of at least 10ms (e.g. 500ms, 2s)", "1s");
		else
			cfg->flush_interval_ns = ns;
	}

	cfg->clock_tsc = 1;
	if ((v = getenv("FOLD_CLOCK")) && *v) {
		if (!strcmp(v, "tsc"))
			cfg->clock_tsc = 1;
		else if (!strcmp(v, "monotonic"))
			cfg->clock_tsc = 0;
		else
			bad_value("FOLD_CLOCK", v, "expected tsc or monotonic", "tsc");
	}

	/* Set by our exec wrappers for the next image of the same process. */
	if ((v = getenv("FOLD_EXEC_GENERATION")) && *v) {
		uint64_t g;
		if (parse_u64(v, &g) || g > 1000000)
			bad_value("FOLD_EXEC_GENERATION", v,
			          "expected a small non-negative integer (set by fold)", "0");
		else
			cfg->exec_generation = (unsigned)g;
	}
}
