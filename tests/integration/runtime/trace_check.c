/* trace_check.c: checks a trace written by libfold.so against expectations.
 *
 * The integration tests run real programs under LD_PRELOAD and then ask this
 * program whether the trace says what the program did. Every expectation is
 * an option; any failed one prints "trace_check: FAIL: ..." and the exit
 * status is 1. Always checked: the file opens, and every ENTER/EXIT of a
 * thread stream nests properly (unless --allow-unbalanced).
 *
 *   --regions NAME=N        exactly N enter/exit pairs of region NAME in total
 *   --min-samples N         at least N samples (--max-samples N: at most)
 *   --cpu-ms MIN:MAX        the samples' cpu_ns add up to MIN..MAX ms
 *   --max-sample-cpu-ms N   no sample carries more than N ms of CPU time
 *   --delivery-share MIN:MAX  share of the sample_cost records that carry a
 *                           delivery (timer deadline to handler entry), all
 *                           of them under a second
 *   --samples-in-region N   at least N samples were taken inside a region
 *   --samples-outside MIN:MAX  samples taken outside any region by threads
 *                           other than the first one: MIN..MAX
 *   --app-counter NAME=V    sum over threads of the counter's final value is V
 *   --counter-range NAME=MIN:MAX  sum over threads of the counter's final
 *                           value (any counter) is within MIN..MAX
 *   --counter-in-samples NAME  the counter appears in samples' counter sets
 *   --threads N             exactly N thread streams (--min-threads N)
 *   --stack-in-exe F        at least fraction F of samples have a frame in
 *                           the executable's text
 *   --frame-in-module S     some sample has a frame in a module whose path
 *                           contains S
 *   --info KEY=VALUE        the last INFO KEY equals VALUE (--info-present KEY,
 *                           --info-absent KEY)
 *   --stat KEY=N | KEY>=N   a STAT value (--stat-absent KEY: there is none)
 *   --marker S              some MARKER contains S
 *   --counter-def NAME      a COUNTER_DEF with that name exists
 *   --counter-missing NAME  a COUNTER_MISSING for NAME exists
 *   --module S              a MODULE_LOAD with S in its path exists
 *   --module-unloaded S     ... and a MODULE_UNLOAD of it
 *   --allow-damage          damaged/truncated chunks are not a failure
 *   --allow-unbalanced      improper nesting is not a failure
 *   --print                 print a summary
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_reader.h"

#define MAXN 4096
#define MAXSTREAMS 8192

static int failures;

#define FAIL(...)                                                                                          \
	do {                                                                                               \
		fprintf(stderr, "trace_check: FAIL: " __VA_ARGS__);                                       \
		fputc('\n', stderr);                                                                       \
		failures++;                                                                                \
	} while (0)

typedef struct kv {
	char *key, *value;
} kv;

typedef struct module {
	uint32_t id;
	char *path;
	uint64_t bias;
	trace_segment segs[16];
	unsigned nseg;
	int unloaded;
} module;

static kv infos[MAXN];
static unsigned ninfos;
static kv stats[MAXN];
static unsigned nstats;
static char *region_names[MAXN];      /* by id */
static char *counter_names[MAXN];     /* by id */
static char *missing[MAXN];
static unsigned nmissing;
static module modules[MAXN];
static unsigned nmodules;
static char *markers[MAXN];
static unsigned nmarkers;

static uint64_t region_pairs[MAXN];
static unsigned region_depth[MAXSTREAMS];
static uint32_t region_stack[MAXSTREAMS][64];
static unsigned burst_depth[MAXSTREAMS];
static uint32_t burst_stack[MAXSTREAMS][64];
static unsigned char region_is_burst[MAXN];
static uint64_t unbalanced;
static uint64_t counter_last[MAXSTREAMS][TRACE_MAX_COUNTERS];
static uint32_t counter_ids[MAXSTREAMS][TRACE_MAX_COUNTERS];
static unsigned counter_n[MAXSTREAMS];
static uint64_t counter_final[MAXSTREAMS][MAXN / 16]; /* by id < 256 */
static int counter_in_samples[256];
static int thread_seen[MAXSTREAMS];
static unsigned nthreads;
static uint64_t nsamples, samples_in_exe, samples_cpu_ns, samples_in_region, max_sample_cpu_ns;
static uint64_t ncosts, ndeliveries, deliveries_over_1s;
static uint64_t samples_outside[MAXSTREAMS];
static uint32_t first_thread_stream = UINT32_MAX;

static char *sdup(const char *s) { return strdup(s ? s : ""); }

static void set_kv(kv *arr, unsigned *n, const char *k, const char *v)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp(arr[i].key, k)) {
			free(arr[i].value);
			arr[i].value = sdup(v);
			return;
		}
	if (*n < MAXN) {
		arr[*n].key = sdup(k);
		arr[*n].value = sdup(v);
		(*n)++;
	}
}

static const char *get_kv(kv *arr, unsigned n, const char *k)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(arr[i].key, k))
			return arr[i].value;
	return NULL;
}

static const module *exe_module(void)
{
	const char *exe = get_kv(infos, ninfos, "exe");
	for (unsigned i = 0; i < nmodules; i++)
		if (exe && !strcmp(modules[i].path, exe))
			return &modules[i];
	return NULL;
}

static int in_text(const module *m, uint64_t addr)
{
	if (!m)
		return 0;
	for (unsigned s = 0; s < m->nseg; s++) {
		uint64_t lo = m->bias + m->segs[s].vaddr;
		if ((m->segs[s].prot & 1) && addr >= lo && addr < lo + m->segs[s].memsz)
			return 1;
	}
	return 0;
}

static const char *frame_module_substr;
static int frame_in_module_found;

static void record(const trace_record *r)
{
	uint32_t s = r->stream < MAXSTREAMS ? r->stream : MAXSTREAMS - 1;
	switch (r->kind) {
	case TRACE_REC_INFO: set_kv(infos, &ninfos, r->u.info.key, r->u.info.value); break;
	case TRACE_REC_STAT: {
		char v[32];
		snprintf(v, sizeof v, "%llu", (unsigned long long)r->u.stat.value);
		set_kv(stats, &nstats, r->u.stat.key, v);
		break;
	}
	case TRACE_REC_REGION_DEF:
		if (r->u.region_def.id < MAXN) {
			free(region_names[r->u.region_def.id]);
			region_names[r->u.region_def.id] = sdup(r->u.region_def.name);
			region_is_burst[r->u.region_def.id] = r->u.region_def.kind == TRACE_REGION_BURST;
		}
		break;
	case TRACE_REC_COUNTER_DEF:
		if (r->u.counter_def.id < MAXN) {
			free(counter_names[r->u.counter_def.id]);
			counter_names[r->u.counter_def.id] = sdup(r->u.counter_def.name);
		}
		break;
	case TRACE_REC_COUNTER_MISSING:
		if (nmissing < MAXN)
			missing[nmissing++] = sdup(r->u.counter_missing.name);
		break;
	case TRACE_REC_MODULE_LOAD:
		if (nmodules < MAXN) {
			module *m = &modules[nmodules++];
			m->id = r->u.module_load.id;
			m->path = sdup(r->u.module_load.path);
			m->bias = r->u.module_load.load_bias;
			m->nseg = r->u.module_load.nseg < 16 ? r->u.module_load.nseg : 16;
			memcpy(m->segs, r->u.module_load.segs, m->nseg * sizeof *m->segs);
		}
		break;
	case TRACE_REC_MODULE_UNLOAD:
		for (unsigned i = 0; i < nmodules; i++)
			if (modules[i].id == r->u.module_unload.id)
				modules[i].unloaded = 1;
		break;
	case TRACE_REC_MARKER:
		if (nmarkers < MAXN)
			markers[nmarkers++] = sdup(r->u.marker.text);
		break;
	case TRACE_REC_THREAD_START:
		if (s < first_thread_stream)
			first_thread_stream = s;
		if (!thread_seen[s]) {
			thread_seen[s] = 1;
			nthreads++;
		}
		break;
	case TRACE_REC_COUNTER_SET:
		counter_n[s] = r->u.counter_set.n;
		memcpy(counter_ids[s], r->u.counter_set.ids, r->u.counter_set.n * sizeof(uint32_t));
		break;
	case TRACE_REC_ENTER:
	case TRACE_REC_ENTER_CTR: {
		int b = r->u.region.region < MAXN && region_is_burst[r->u.region.region];
		unsigned *depth = b ? &burst_depth[s] : &region_depth[s];
		uint32_t *stk = b ? burst_stack[s] : region_stack[s];
		if (*depth < 64)
			stk[*depth] = r->u.region.region;
		(*depth)++;
		break;
	}
	case TRACE_REC_EXIT:
	case TRACE_REC_EXIT_CTR: {
		int b = r->u.region.region < MAXN && region_is_burst[r->u.region.region];
		unsigned *depth = b ? &burst_depth[s] : &region_depth[s];
		uint32_t *stk = b ? burst_stack[s] : region_stack[s];
		if (*depth == 0 || (*depth <= 64 && stk[*depth - 1] != r->u.region.region)) {
			unbalanced++;
		} else {
			(*depth)--;
			if (r->u.region.region < MAXN)
				region_pairs[r->u.region.region]++;
		}
		break;
	}
	case TRACE_REC_SAMPLE_COST:
		ncosts++;
		if (r->u.sample_cost.delivery_ns != TRACE_UNKNOWN) {
			ndeliveries++;
			deliveries_over_1s += r->u.sample_cost.delivery_ns >= 1000000000ull;
		}
		break;
	case TRACE_REC_SAMPLE: {
		nsamples++;
		if (region_depth[s] || burst_depth[s])
			samples_in_region++;
		else
			samples_outside[s]++;
		samples_cpu_ns += r->u.sample.cpu_ns;
		if (r->u.sample.cpu_ns > max_sample_cpu_ns)
			max_sample_cpu_ns = r->u.sample.cpu_ns;
		const module *exe = exe_module();
		int hit = 0;
		for (unsigned i = 0; i < r->u.sample.depth; i++)
			if (in_text(exe, r->u.sample.frames[i] - (i ? 1 : 0)))
				hit = 1;
		samples_in_exe += hit;
		if (frame_module_substr && !frame_in_module_found)
			for (unsigned i = 0; i < r->u.sample.depth; i++)
				for (unsigned m = 0; m < nmodules; m++)
					if (strstr(modules[m].path, frame_module_substr) &&
					    in_text(&modules[m], r->u.sample.frames[i] - (i ? 1 : 0)))
						frame_in_module_found = 1;
		for (unsigned i = 0; i < r->u.sample.nctr; i++)
			if (r->u.sample.ctr_ids[i] < 256)
				counter_in_samples[r->u.sample.ctr_ids[i]] = 1;
		break;
	}
	default: break;
	}
	/* Counter values (cumulative per thread): remember the last one seen. */
	const uint32_t *ids = NULL;
	const uint64_t *vals = NULL;
	unsigned n = 0;
	if (r->kind == TRACE_REC_SAMPLE) {
		ids = r->u.sample.ctr_ids;
		vals = r->u.sample.ctr;
		n = r->u.sample.nctr;
	} else if (r->kind == TRACE_REC_ENTER || r->kind == TRACE_REC_EXIT) { /* nctr 0: no counters */
		ids = r->u.region.ctr_ids;
		vals = r->u.region.ctr;
		n = r->u.region.nctr;
	}
	for (unsigned i = 0; i < n; i++)
		if (ids[i] < MAXN / 16 && vals[i] >= counter_final[s][ids[i]])
			counter_final[s][ids[i]] = vals[i];
	(void)counter_last;
}

static uint32_t id_by_name(char **names, const char *name)
{
	for (uint32_t i = 0; i < MAXN; i++)
		if (names[i] && !strcmp(names[i], name))
			return i;
	return 0;
}

static int split(const char *arg, char *key, size_t klen, const char **value, const char *sep)
{
	const char *p = strstr(arg, sep);
	if (!p || (size_t)(p - arg) >= klen)
		return -1;
	memcpy(key, arg, (size_t)(p - arg));
	key[p - arg] = 0;
	*value = p + strlen(sep);
	return 0;
}

static void diag_print(void *arg, const char *msg)
{
	int *damage = arg;
	fprintf(stderr, "trace_check: reader: %s\n", msg);
	(*damage)++;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: trace_check FILE [expectations...]\n");
		return 2;
	}
	const char *path = argv[1];
	int allow_damage = 0, allow_unbalanced = 0, print = 0;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--allow-damage"))
			allow_damage = 1;
		else if (!strcmp(argv[i], "--allow-unbalanced"))
			allow_unbalanced = 1;
		else if (!strcmp(argv[i], "--print"))
			print = 1;
		else if (!strcmp(argv[i], "--frame-in-module") && i + 1 < argc)
			frame_module_substr = argv[i + 1];
	}
	trace_reader *r;
	char msg[512];
	int damage = 0;
	int rc = trace_reader_open(&r, path, diag_print, &damage, msg, sizeof msg);
	if (rc) {
		fprintf(stderr, "trace_check: FAIL: cannot open %s: %s\n", path, msg);
		return 1;
	}
	trace_record rec;
	/* Two passes: definitions (process stream) may come after their use. */
	while (trace_reader_next(r, &rec) == 1)
		if (rec.stream == TRACE_PROCESS_STREAM)
			record(&rec);
	trace_reader_rewind(r);
	while (trace_reader_next(r, &rec) == 1)
		if (rec.stream != TRACE_PROCESS_STREAM)
			record(&rec);
	const trace_read_stats *st = trace_reader_stats(r);
	if (!allow_damage && (st->chunks_damaged || st->chunks_missing || st->truncated || st->records_damaged))
		FAIL("%s is damaged: %llu damaged, %llu missing chunks, truncated=%d", path,
		     (unsigned long long)st->chunks_damaged, (unsigned long long)st->chunks_missing, st->truncated);
	if (!allow_unbalanced && unbalanced)
		FAIL("%llu exit(s) do not match the innermost open region", (unsigned long long)unbalanced);

	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
		char key[256];
		const char *val;
		if (!strcmp(a, "--allow-damage") || !strcmp(a, "--allow-unbalanced") || !strcmp(a, "--print"))
			continue;
		if (!v) {
			FAIL("option %s needs a value", a);
			break;
		}
		i++;
		if (!strcmp(a, "--regions")) {
			if (split(v, key, sizeof key, &val, "=")) {
				FAIL("--regions expects NAME=N");
				continue;
			}
			uint32_t id = id_by_name(region_names, key);
			unsigned long long want = strtoull(val, NULL, 10);
			if (!id)
				FAIL("region \"%s\" is not defined", key);
			else if (region_pairs[id] != want)
				FAIL("region \"%s\": %llu enter/exit pairs, expected %llu", key,
				     (unsigned long long)region_pairs[id], want);
		} else if (!strcmp(a, "--min-samples")) {
			if (nsamples < strtoull(v, NULL, 10))
				FAIL("%llu samples, expected at least %s", (unsigned long long)nsamples, v);
		} else if (!strcmp(a, "--cpu-ms")) {
			double lo, hi, got = (double)samples_cpu_ns / 1e6;
			if (sscanf(v, "%lf:%lf", &lo, &hi) != 2)
				FAIL("--cpu-ms expects MIN:MAX (ms)");
			else if (got < lo || got > hi)
				FAIL("samples carry %.1f ms of CPU time, expected %s", got, v);
		} else if (!strcmp(a, "--max-sample-cpu-ms")) {
			double got = (double)max_sample_cpu_ns / 1e6;
			if (got > strtod(v, NULL))
				FAIL("a sample carries %.1f ms of CPU time, expected at most %s", got, v);
		} else if (!strcmp(a, "--delivery-share")) {
			double lo, hi, got = ncosts ? (double)ndeliveries / (double)ncosts : 0;
			if (sscanf(v, "%lf:%lf", &lo, &hi) != 2)
				FAIL("--delivery-share expects MIN:MAX");
			else if (got < lo || got > hi || deliveries_over_1s)
				FAIL("%llu of %llu sample_cost records carry a delivery (%llu of them 1 s or more), "
				     "expected a share of %s",
				     (unsigned long long)ndeliveries, (unsigned long long)ncosts,
				     (unsigned long long)deliveries_over_1s, v);
		} else if (!strcmp(a, "--samples-in-region")) {
			if (samples_in_region < strtoull(v, NULL, 10))
				FAIL("%llu samples inside regions, expected at least %s",
				     (unsigned long long)samples_in_region, v);
		} else if (!strcmp(a, "--samples-outside")) {
			uint64_t n = 0;
			for (uint32_t k = 0; k < MAXSTREAMS; k++)
				if (k != first_thread_stream)
					n += samples_outside[k];
			unsigned long long lo = 0, hi = 0;
			if (sscanf(v, "%llu:%llu", &lo, &hi) != 2 || n < lo || n > hi)
				FAIL("%llu samples outside regions (threads but the first), expected %s",
				     (unsigned long long)n, v);
		} else if (!strcmp(a, "--max-samples")) {
			if (nsamples > strtoull(v, NULL, 10))
				FAIL("%llu samples, expected at most %s", (unsigned long long)nsamples, v);
		} else if (!strcmp(a, "--app-counter")) {
			if (split(v, key, sizeof key, &val, "=")) {
				FAIL("--app-counter expects NAME=V");
				continue;
			}
			uint32_t id = id_by_name(counter_names, key);
			unsigned long long want = strtoull(val, NULL, 10), total = 0;
			for (unsigned s = 0; s < MAXSTREAMS; s++)
				if (id < MAXN / 16)
					total += counter_final[s][id];
			if (!id)
				FAIL("counter \"%s\" is not defined", key);
			else if (total != want)
				FAIL("counter \"%s\": total %llu, expected %llu", key, total, want);
		} else if (!strcmp(a, "--counter-range")) {
			unsigned long long lo = 0, hi = 0, total = 0;
			if (split(v, key, sizeof key, &val, "=") || sscanf(val, "%llu:%llu", &lo, &hi) != 2) {
				FAIL("--counter-range expects NAME=MIN:MAX");
				continue;
			}
			uint32_t id = id_by_name(counter_names, key);
			for (unsigned s = 0; s < MAXSTREAMS; s++)
				if (id < MAXN / 16)
					total += counter_final[s][id];
			if (!id)
				FAIL("counter \"%s\" is not defined", key);
			else if (total < lo || total > hi)
				FAIL("counter \"%s\": total %llu, expected %llu..%llu", key, total, lo, hi);
		} else if (!strcmp(a, "--counter-in-samples")) {
			uint32_t id = id_by_name(counter_names, v);
			if (!id || id >= 256 || !counter_in_samples[id])
				FAIL("counter \"%s\" is not in any sample", v);
		} else if (!strcmp(a, "--threads")) {
			if (nthreads != strtoul(v, NULL, 10))
				FAIL("%u thread streams, expected %s", nthreads, v);
		} else if (!strcmp(a, "--min-threads")) {
			if (nthreads < strtoul(v, NULL, 10))
				FAIL("%u thread streams, expected at least %s", nthreads, v);
		} else if (!strcmp(a, "--stack-in-exe")) {
			double want = strtod(v, NULL);
			double got = nsamples ? (double)samples_in_exe / (double)nsamples : 0;
			if (!exe_module())
				FAIL("no MODULE_LOAD for the executable (INFO exe)");
			else if (got < want)
				FAIL("%.3f of samples have a frame in the executable's text, expected >= %s", got, v);
		} else if (!strcmp(a, "--frame-in-module")) {
			if (!frame_in_module_found)
				FAIL("no sample has a frame in a module matching \"%s\"", v);
		} else if (!strcmp(a, "--info")) {
			if (split(v, key, sizeof key, &val, "=")) {
				FAIL("--info expects KEY=VALUE");
				continue;
			}
			const char *got = get_kv(infos, ninfos, key);
			if (!got || strcmp(got, val))
				FAIL("INFO %s = \"%s\", expected \"%s\"", key, got ? got : "(absent)", val);
		} else if (!strcmp(a, "--info-range")) {
			/* KEY=LO:HI, a number within [LO, HI] */
			const char *colon;
			if (split(v, key, sizeof key, &val, "=") || !(colon = strchr(val, ':'))) {
				FAIL("--info-range expects KEY=LO:HI");
				continue;
			}
			const char *got = get_kv(infos, ninfos, key);
			double g = got ? strtod(got, NULL) : NAN, lo = strtod(val, NULL),
			       hi = strtod(colon + 1, NULL);
			if (!got || !(g >= lo && g <= hi))
				FAIL("INFO %s = %s, expected within [%g, %g]", key, got ? got : "(absent)",
				     lo, hi);
		} else if (!strcmp(a, "--info-present")) {
			if (!get_kv(infos, ninfos, v))
				FAIL("INFO %s is absent", v);
		} else if (!strcmp(a, "--info-absent")) {
			if (get_kv(infos, ninfos, v))
				FAIL("INFO %s = \"%s\", expected none", v, get_kv(infos, ninfos, v));
		} else if (!strcmp(a, "--stat")) {
			int ge = strstr(v, ">=") != NULL;
			if (split(v, key, sizeof key, &val, ge ? ">=" : "=")) {
				FAIL("--stat expects KEY=N or KEY>=N");
				continue;
			}
			const char *got = get_kv(stats, nstats, key);
			unsigned long long g = got ? strtoull(got, NULL, 10) : 0, w = strtoull(val, NULL, 10);
			if (!got || (ge ? g < w : g != w))
				FAIL("STAT %s = %s, expected %s%llu", key, got ? got : "(absent)", ge ? ">=" : "", w);
		} else if (!strcmp(a, "--stat-absent")) {
			const char *got = get_kv(stats, nstats, v);
			if (got)
				FAIL("STAT %s = %s, expected none", v, got);
		} else if (!strcmp(a, "--marker")) {
			int found = 0;
			for (unsigned m = 0; m < nmarkers; m++)
				found |= strstr(markers[m], v) != NULL;
			if (!found)
				FAIL("no MARKER contains \"%s\"", v);
		} else if (!strcmp(a, "--counter-def")) {
			if (!id_by_name(counter_names, v))
				FAIL("no COUNTER_DEF named \"%s\"", v);
		} else if (!strcmp(a, "--counter-missing")) {
			int found = 0;
			for (unsigned m = 0; m < nmissing; m++)
				found |= !strcmp(missing[m], v);
			if (!found)
				FAIL("no COUNTER_MISSING for \"%s\"", v);
		} else if (!strcmp(a, "--module") || !strcmp(a, "--module-unloaded")) {
			int found = 0;
			for (unsigned m = 0; m < nmodules; m++)
				if (strstr(modules[m].path, v) && (a[8] != '-' || modules[m].unloaded))
					found = 1;
			if (!found)
				FAIL("no %s matching \"%s\"", a[8] == '-' ? "unloaded module" : "module", v);
		} else {
			FAIL("unknown option %s", a);
		}
	}
	if (print) {
		printf("%s: %llu samples (%llu with a frame in the executable, %.1f ms CPU), %u threads, %llu chunks\n",
		       path, (unsigned long long)nsamples, (unsigned long long)samples_in_exe,
		       (double)samples_cpu_ns / 1e6, nthreads, (unsigned long long)st->chunks_ok);
		for (unsigned i = 0; i < ninfos; i++)
			printf("  info %s = %s\n", infos[i].key, infos[i].value);
		for (unsigned i = 0; i < nstats; i++)
			printf("  stat %s = %s\n", stats[i].key, stats[i].value);
		for (uint32_t i = 0; i < MAXN; i++)
			if (region_names[i])
				printf("  region %u \"%s\": %llu pairs\n", i, region_names[i],
				       (unsigned long long)region_pairs[i]);
		for (uint32_t i = 0; i < MAXN; i++)
			if (counter_names[i])
				printf("  counter %u \"%s\"\n", i, counter_names[i]);
		for (unsigned i = 0; i < nmodules; i++)
			printf("  module %u %s%s\n", modules[i].id, modules[i].path,
			       modules[i].unloaded ? " (unloaded)" : "");
		for (unsigned i = 0; i < nmarkers && i < 20; i++)
			printf("  marker %s\n", markers[i]);
	}
	trace_reader_close(r);
	if (failures)
		return 1;
	return 0;
}
