/* many-regions.c: writes a trace of N one-shot regions (each defined once and
 * entered once, ~5 us each) on one thread, with a wall-clock sample every
 * 10 instances, for bench/report-size.sh: what the reports cost when almost
 * no region can be folded.
 *
 * usage: bench_many_regions OUT.trace [N]   (default N = 100000)
 */
#include <stdio.h>
#include <stdlib.h>

#include "trace_writer.h"

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: bench_many_regions OUT.trace [N]\n");
		return 2;
	}
	unsigned long n = argc > 2 ? strtoul(argv[2], NULL, 10) : 100000;
	trace_writer *w;
	if (trace_writer_open_codec(&w, argv[1], 0, TRACE_CODEC_ZSTD, 1, 65536)) {
		perror(argv[1]);
		return 1;
	}
	int rc = 0;
	uint64_t tick = 1000000;
	TRACE_PUT(rc, w, 0, trace_enc_info, "host", "bench");
	TRACE_PUT(rc, w, 0, trace_enc_info, "pid", "100");
	TRACE_PUT(rc, w, 0, trace_enc_info, "exe", "/bench/many-regions");
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.source", "monotonic");
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.source", "time");
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.period", "10000");
	TRACE_PUT(rc, w, 0, trace_enc_clock, tick, tick, 1700000000000000000ull);
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 100, 0, tick, "main");
	for (unsigned long i = 1; i <= n && !rc; i++) {
		char name[32];
		snprintf(name, sizeof name, "task_%lu", i);
		TRACE_PUT(rc, w, 0, trace_enc_region_def, (uint32_t)i, TRACE_REGION_API, 0, name);
		uint64_t frames[2] = {0x401000 + (i % 7) * 16, 0x402000};
		TRACE_PUT(rc, w, 1, trace_enc_enter, tick, (uint32_t)i, NULL);
		if (i % 10 == 0)
			TRACE_PUT(rc, w, 1, trace_enc_sample, tick + 2000, frames, 2, 4, NULL);
		tick += 5000 + i % 13;
		TRACE_PUT(rc, w, 1, trace_enc_exit, tick, (uint32_t)i, NULL);
		tick += 100;
	}
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, tick);
	TRACE_PUT(rc, w, 0, trace_enc_clock, tick, tick, 1700000000000000000ull + tick);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "threads", 1);
	if (rc || trace_writer_close(w)) {
		fprintf(stderr, "bench_many_regions: cannot write %s\n", argv[1]);
		return 1;
	}
	return 0;
}
