/* make_seed_corpus.c: writes small valid traces covering every record kind
 * into DIR, as the fuzzer's seed corpus. */
#include <stdio.h>

#include "trace_writer.h"

static int write_seed(const char *path, enum trace_codec codec, int level)
{
	trace_writer *w;
	int rc;
	if (trace_writer_open_codec(&w, path, 0, codec, level, 512))
		return 1;
	uint8_t bid[4] = {1, 2, 3, 4};
	trace_segment seg = {0x1000, 0x800, 5};
	uint32_t ids[2] = {1, 2};
	TRACE_PUT(rc, w, 0, trace_enc_info, "host", "seed");
	TRACE_PUT(rc, w, 0, trace_enc_clock, 10, 20, 30);
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 1, TRACE_COUNTER_APP, "flops");
	TRACE_PUT(rc, w, 0, trace_enc_counter_missing, "PAPI_TOT_INS", "no PMU");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "step");
	TRACE_PUT(rc, w, 0, trace_enc_module_load, 1, 5, 0x400000, bid, 4, "/bin/x", &seg, 1);
	TRACE_PUT(rc, w, 0, trace_enc_module_unload, 1, 6);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "samples.taken", 3);
	TRACE_PUT(rc, w, 0, trace_enc_throttle, 1, 7, 100, 2);
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 77, 0, 100, "main");
	TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 2);
	for (uint64_t i = 0; i < 40; i++) {
		uint64_t ctr[2] = {i * 10, i * i};
		uint64_t frames[3] = {0x1100 + i % 2, 0x1200, 0x1300};
		TRACE_PUT(rc, w, 1, trace_enc_enter, 100 + i * 10, 1, ctr);
		TRACE_PUT(rc, w, 1, trace_enc_sample, 104 + i * 10, frames, 3, 3, ctr);
		TRACE_PUT(rc, w, 1, trace_enc_sample_cost, 26000 + i, 9000 + i,
		          i % 2 ? 31000 + i : TRACE_UNKNOWN);
		TRACE_PUT(rc, w, 1, trace_enc_exit, 108 + i * 10, 1, NULL);
		if (i % 3 == 0)
			TRACE_PUT(rc, w, 1, trace_enc_pause, 700 + i);
		else
			TRACE_PUT(rc, w, 1, trace_enc_hook_cost, 2 + i, i % 2 ? 1 + i : TRACE_UNKNOWN);
	}
	TRACE_PUT(rc, w, 1, trace_enc_marker, 600, "m");
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, 601);
	(void)rc;
	return trace_writer_close(w) ? 1 : 0;
}

/* A richer seed for the structure-aware fuzzer: two threads, counters,
 * nested API and function regions that fold (enough instances and samples),
 * a module that exists (/bin/true) and one that does not, bursts, stats and
 * info keys the analysis reads. */
static int write_rich_seed(const char *path)
{
	trace_writer *w;
	int rc;
	if (trace_writer_open_codec(&w, path, 0, TRACE_CODEC_ZSTD, 1, 4096))
		return 1;
	uint8_t bid[4] = {9, 8, 7, 6};
	trace_segment seg = {0x1000, 0x20000, 5};
	uint32_t ids[2] = {1, 2};
	TRACE_PUT(rc, w, 0, trace_enc_info, "host", "seed");
	TRACE_PUT(rc, w, 0, trace_enc_info, "pid", "100");
	TRACE_PUT(rc, w, 0, trace_enc_info, "exe", "/bin/seed");
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.source", "monotonic");
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.source", "time");
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.period", "100000");
	TRACE_PUT(rc, w, 0, trace_enc_info, "mpi.rank", "0");
	TRACE_PUT(rc, w, 0, trace_enc_info, "burst.caller.4", "4198400");
	TRACE_PUT(rc, w, 0, trace_enc_clock, 1000, 1000, 1700000000000000000ull);
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 1, TRACE_COUNTER_SOFTWARE, "perf::TASK-CLOCK");
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 2, TRACE_COUNTER_APP, "flops");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0, "step");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_API, 0, "inner");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x401100, "");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 4, TRACE_REGION_BURST, 0x401200,
	          "burst after MPI_Allreduce");
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 5, TRACE_REGION_MPI, 0, "MPI_Allreduce");
	TRACE_PUT(rc, w, 0, trace_enc_module_load, 1, 1000, 0x400000, NULL, 0, "/bin/true", &seg, 1);
	TRACE_PUT(rc, w, 0, trace_enc_module_load, 2, 1000, 0x7f0000000000, bid, 4, "/nonexistent/lib.so",
	          &seg, 1);
	for (uint32_t s = 1; s <= 2; s++) {
		uint64_t t = 2000 + s;
		TRACE_PUT(rc, w, s, trace_enc_thread_start, 100 + s - 1, s == 1 ? 0 : 1, t,
		          s == 1 ? "main" : "worker");
		TRACE_PUT(rc, w, s, trace_enc_counter_set, ids, 2);
		for (uint64_t i = 0; i < 60; i++) {
			/* a 50-us instance of step: inner (with a function in it), an
			 * MPI call and a burst, two samples */
			uint64_t c0[2] = {i * 50000, i * 7}, c1[2] = {i * 50000 + 20000, i * 7 + 3};
			uint64_t f1[3] = {0x401100 + i % 3, 0x401180, 0x401300},
			         f2[2] = {0x7f0000001100, 0x401300};
			TRACE_PUT(rc, w, s, trace_enc_enter, t, 1, c0);
			TRACE_PUT(rc, w, s, trace_enc_sample, t + 5000 + i % 97 * 100, f1, 3, 9, c0);
			TRACE_PUT(rc, w, s, trace_enc_sample_cost, 2000, 500, i % 2 ? 800 : TRACE_UNKNOWN);
			TRACE_PUT(rc, w, s, trace_enc_enter, t + 20000, 2, NULL);
			TRACE_PUT(rc, w, s, trace_enc_enter, t + 21000, 3, NULL);
			TRACE_PUT(rc, w, s, trace_enc_hook_cost, 20, TRACE_UNKNOWN);
			TRACE_PUT(rc, w, s, trace_enc_sample, t + 25000 + i % 101 * 100, f2, 2, 10, c1);
			TRACE_PUT(rc, w, s, trace_enc_exit, t + 39000, 3, NULL);
			TRACE_PUT(rc, w, s, trace_enc_exit, t + 40000, 2, NULL);
			TRACE_PUT(rc, w, s, trace_enc_enter, t + 41000, 5, NULL);
			TRACE_PUT(rc, w, s, trace_enc_exit, t + 45000, 5, NULL);
			TRACE_PUT(rc, w, s, trace_enc_enter, t + 45000, 4, NULL);
			TRACE_PUT(rc, w, s, trace_enc_exit, t + 49000, 4, NULL);
			TRACE_PUT(rc, w, s, trace_enc_exit, t + 50000, 1, c1);
			if (i % 20 == 0)
				TRACE_PUT(rc, w, s, trace_enc_pause, 50);
			t += 51000;
		}
		TRACE_PUT(rc, w, s, trace_enc_thread_end, t);
	}
	TRACE_PUT(rc, w, 0, trace_enc_throttle, 3, 1500000, 60, 190);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "overhead.first_enter_before_ticks.3", 40);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "samples.dropped.buffer_full", 2);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "threads", 2);
	TRACE_PUT(rc, w, 0, trace_enc_clock, 3100000, 3100000, 1700000000003099000ull);
	(void)rc;
	return trace_writer_close(w) ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: make_seed_corpus DIR\n");
		return 2;
	}
	char p[4096];
	snprintf(p, sizeof p, "%s/seed-zlib.bin", argv[1]);
	if (write_seed(p, TRACE_CODEC_ZLIB, 6))
		return 1;
	snprintf(p, sizeof p, "%s/seed-zstd.bin", argv[1]);
	if (write_seed(p, TRACE_CODEC_ZSTD, 1))
		return 1;
	snprintf(p, sizeof p, "%s/seed-rich.bin", argv[1]);
	if (write_rich_seed(p))
		return 1;
	snprintf(p, sizeof p, "%s/seed-raw.bin", argv[1]);
	return write_seed(p, TRACE_CODEC_NONE, 0);
}
