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
	snprintf(p, sizeof p, "%s/seed-raw.bin", argv[1]);
	return write_seed(p, TRACE_CODEC_NONE, 0);
}
