/* trace_size.c: bytes per record after compression, for the format's budget
 * (<= 4 bytes per region event, <= 8 bytes per sample with a steady stack).
 *
 * Writes realistic streams through the same encoder and chunk writer the
 * runtime uses: TSC ticks at 2.6 GHz, region instances of ~1 ms with 5%
 * jitter, samples every 10 ms +-10% (seeded), a steady 20-frame stack whose
 * leaf moves among 8 hot addresses, three cumulative counters.
 *
 *   build/bench/bench_trace_size [instances]
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_writer.h"

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static double uniform(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

static long file_size(const char *p)
{
	struct stat st;
	return stat(p, &st) ? -1 : (long)st.st_size;
}

static long write_regions(const char *path, long n)
{
	trace_writer *w;
	int rc = 0;
	if (trace_writer_open(&w, path, 0, 6, 65536))
		return -1;
	uint64_t tick = 1000000;
	for (long i = 0; i < n && !rc; i++) {
		TRACE_PUT(rc, w, 1, trace_enc_enter, tick, 1 + (uint32_t)(i % 2), NULL);
		tick += (uint64_t)(2.6e6 * (1.0 + 0.05 * (uniform() - 0.5)));
		TRACE_PUT(rc, w, 1, trace_enc_exit, tick, 1 + (uint32_t)(i % 2), NULL);
		tick += (uint64_t)(2600 * uniform());
	}
	trace_writer_close(w);
	return rc ? -1 : file_size(path);
}

static long write_samples(const char *path, long n, int with_counters)
{
	trace_writer *w;
	int rc = 0;
	if (trace_writer_open(&w, path, 0, 6, 65536))
		return -1;
	uint32_t ids[3] = {1, 2, 3};
	if (with_counters)
		TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 3);
	uint64_t frames[20];
	for (int k = 0; k < 20; k++)
		frames[k] = 0x555555554000ull + 0x1000u * (unsigned)(20 - k) + 0x37u * (unsigned)k;
	uint64_t tick = 1000000, c[3] = {0, 0, 0};
	for (long i = 0; i < n && !rc; i++) {
		uint64_t dt = (uint64_t)(2.6e7 * (0.9 + 0.2 * uniform()));
		tick += dt;
		frames[0] = 0x555555558000ull + 0x10u * (unsigned)(uniform() * 8);
		c[0] += dt;                                /* cycles-like */
		c[1] += (uint64_t)((double)dt * 1.7);      /* instructions-like */
		c[2] += (uint64_t)(2000 * uniform());      /* misses-like */
		TRACE_PUT(rc, w, 1, trace_enc_sample, tick, frames, 20, (uint64_t)(1e7 * (0.9 + 0.2 * uniform())),
		          with_counters ? c : NULL);
	}
	trace_writer_close(w);
	return rc ? -1 : file_size(path);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	char path[64];
	snprintf(path, sizeof path, "/tmp/fold-bench-trace-%d.bin", (int)getpid());

	long rb = write_regions(path, n);
	long sb = write_samples(path, n, 0);
	long cb = write_samples(path, n, 1);
	unlink(path);
	if (rb < 0 || sb < 0 || cb < 0) {
		fprintf(stderr, "bench_trace_size: writing %s failed\n", path);
		return 1;
	}
	printf("region events: %.2f bytes/event (%ld instances, budget 4)\n", (double)rb / (2.0 * (double)n), n);
	printf("samples, 20-frame steady stack, no counters: %.2f bytes/sample (budget 8)\n", (double)sb / (double)n);
	printf("samples, 20-frame steady stack, 3 counters: %.2f bytes/sample\n", (double)cb / (double)n);
	printf("reproduce: build/bench/bench_trace_size %ld\n", n);
	return 0;
}
