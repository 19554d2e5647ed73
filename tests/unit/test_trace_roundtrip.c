/* Round-trips every record kind through trace_writer and trace_reader, across
 * many chunk boundaries, and checks every field the format documents. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_reader.h"
#include "trace_writer.h"

static char path[256];

static void diag_fail(void *arg, const char *msg)
{
	(void)arg;
	fail_msg("unexpected diagnostic on an intact file: %s", msg);
}

static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "/tmp/fold-test-roundtrip-%d.bin", (int)getpid());
	return 0;
}
static int teardown(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

/* Every record kind through chunks compressed by codec, read back. */
static void every_record_kind(enum trace_codec codec, int level)
{
	trace_writer *w;
	int rc;
	assert_int_equal(trace_writer_open_codec(&w, path, 0, codec, level, 4096), 0);
	TRACE_PUT(rc, w, 0, trace_enc_info, "host", "node001");
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_clock, 1000, 2000, 1700000000000000000ull);
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_counter_def, 7, TRACE_COUNTER_SOFTWARE, "perf::TASK-CLOCK");
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_counter_missing, "PAPI_TOT_INS", "Event does not exist");
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 3, TRACE_REGION_FUNCTION, 0x401000, "solve<double>");
	assert_int_equal(rc, 0);
	uint8_t bid[20];
	for (int i = 0; i < 20; i++)
		bid[i] = (uint8_t)(0xa0 + i);
	trace_segment segs[2] = {{0x1000, 0x2345, 5}, {0x4000, 0x100, 6}};
	TRACE_PUT(rc, w, 0, trace_enc_module_load, 2, 5555, 0x7f0000000000ull, bid, 20, "/lib/libx.so", segs,
	          2);
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_module_unload, 2, 6666);
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "samples_dropped_in_runtime", 42);
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 0, trace_enc_throttle, 3, 7777, 100001, 9);
	assert_int_equal(rc, 0);

	/* Thread stream: enough records to span many 4 KiB chunks. */
	TRACE_PUT(rc, w, 1, trace_enc_thread_start, 12345, 0, 100000, "main");
	assert_int_equal(rc, 0);
	uint32_t ids[2] = {7, 9};
	TRACE_PUT(rc, w, 1, trace_enc_counter_set, ids, 2);
	assert_int_equal(rc, 0);
	uint64_t tick = 100000, c0 = 0, c1 = 1000;
	for (int i = 0; i < 5000; i++) {
		uint64_t ctr[2] = {c0, c1};
		TRACE_PUT(rc, w, 1, trace_enc_enter, tick, 3, (i % 2) ? ctr : NULL);
		assert_int_equal(rc, 0);
		tick += 50 + (uint64_t)(i % 7);
		c0 += 11;
		c1 += (uint64_t)i;
		uint64_t frames[3] = {0x401234 + (uint64_t)(i % 3), 0x401100, 0x400800};
		uint64_t ctr2[2] = {c0, c1};
		TRACE_PUT(rc, w, 1, trace_enc_sample, tick, frames, 3, 999600, ctr2);
		assert_int_equal(rc, 0);
		if (i % 5 == 0) {
			/* every other one with the timer's delivery (format 1.2) */
			TRACE_PUT(rc, w, 1, trace_enc_sample_cost, 26000 + (uint64_t)i, 9000 + (uint64_t)i,
			          i % 10 ? 33000 + (uint64_t)i : TRACE_UNKNOWN);
			assert_int_equal(rc, 0);
		}
		tick += 13;
		TRACE_PUT(rc, w, 1, trace_enc_exit, tick, 3, ctr2);
		assert_int_equal(rc, 0);
	}
	TRACE_PUT(rc, w, 1, trace_enc_marker, tick + 1, "checkpoint");
	assert_int_equal(rc, 0);
	TRACE_PUT(rc, w, 1, trace_enc_thread_end, tick + 2);
	assert_int_equal(rc, 0);
	assert_int_equal(trace_writer_close(w), 0);

	trace_reader *r;
	char msg[256];
	assert_int_equal(trace_reader_open(&r, path, diag_fail, NULL, msg, sizeof msg), 0);
	assert_int_equal(trace_reader_version_major(r), TRACE_VERSION_MAJOR);
	trace_record rec;
	int seen[TRACE_REC_EXTENDED_LAST + 1] = {0};
	int last_sample = -1;
	uint64_t rtick = 100000, r0 = 0, r1 = 1000;
	int phase = 0, i = 0;
	while ((rc = trace_reader_next(r, &rec)) == 1) {
		seen[rec.kind]++;
		switch (rec.kind) {
		case TRACE_REC_INFO:
			assert_string_equal(rec.u.info.key, "host");
			assert_string_equal(rec.u.info.value, "node001");
			break;
		case TRACE_REC_CLOCK:
			assert_int_equal(rec.tick, 1000);
			assert_int_equal(rec.u.clock.mono_ns, 2000);
			assert_true(rec.u.clock.real_ns == 1700000000000000000ull);
			break;
		case TRACE_REC_COUNTER_DEF:
			assert_int_equal(rec.u.counter_def.id, 7);
			assert_int_equal(rec.u.counter_def.kind, TRACE_COUNTER_SOFTWARE);
			assert_string_equal(rec.u.counter_def.name, "perf::TASK-CLOCK");
			break;
		case TRACE_REC_COUNTER_MISSING:
			assert_string_equal(rec.u.counter_missing.name, "PAPI_TOT_INS");
			assert_string_equal(rec.u.counter_missing.reason, "Event does not exist");
			break;
		case TRACE_REC_REGION_DEF:
			assert_int_equal(rec.u.region_def.id, 3);
			assert_int_equal(rec.u.region_def.kind, TRACE_REGION_FUNCTION);
			assert_int_equal(rec.u.region_def.address, 0x401000);
			assert_string_equal(rec.u.region_def.name, "solve<double>");
			break;
		case TRACE_REC_MODULE_LOAD:
			assert_int_equal(rec.u.module_load.id, 2);
			assert_int_equal(rec.tick, 5555);
			assert_true(rec.u.module_load.load_bias == 0x7f0000000000ull);
			assert_int_equal(rec.u.module_load.build_id_len, 20);
			assert_memory_equal(rec.u.module_load.build_id, bid, 20);
			assert_string_equal(rec.u.module_load.path, "/lib/libx.so");
			assert_int_equal(rec.u.module_load.nseg, 2);
			assert_int_equal(rec.u.module_load.segs[1].vaddr, 0x4000);
			assert_int_equal(rec.u.module_load.segs[0].memsz, 0x2345);
			assert_int_equal(rec.u.module_load.segs[1].prot, 6);
			break;
		case TRACE_REC_MODULE_UNLOAD:
			assert_int_equal(rec.u.module_unload.id, 2);
			assert_int_equal(rec.tick, 6666);
			break;
		case TRACE_REC_STAT:
			assert_string_equal(rec.u.stat.key, "samples_dropped_in_runtime");
			assert_int_equal(rec.u.stat.value, 42);
			break;
		case TRACE_REC_THROTTLE:
			assert_int_equal(rec.u.throttle.region, 3);
			assert_int_equal(rec.tick, 7777);
			assert_int_equal(rec.u.throttle.calls, 100001);
			assert_int_equal(rec.u.throttle.mean_ns, 9);
			break;
		case TRACE_REC_THREAD_START:
			assert_int_equal(rec.stream, 1);
			assert_int_equal(rec.u.thread_start.os_tid, 12345);
			assert_int_equal(rec.tick, 100000);
			assert_string_equal(rec.u.thread_start.name, "main");
			break;
		case TRACE_REC_COUNTER_SET:
			assert_int_equal(rec.u.counter_set.n, 2);
			assert_int_equal(rec.u.counter_set.ids[0], 7);
			assert_int_equal(rec.u.counter_set.ids[1], 9);
			break;
		case TRACE_REC_STACK_DEF: assert_int_equal(rec.u.stack_def.depth, 3); break;
		case TRACE_REC_ENTER:
			assert_int_equal(phase, 0);
			assert_int_equal(rec.tick, rtick);
			assert_int_equal(rec.u.region.region, 3);
			if (i % 2) {
				assert_int_equal(rec.u.region.nctr, 2);
				assert_int_equal(rec.u.region.ctr[0], r0);
				assert_int_equal(rec.u.region.ctr[1], r1);
			} else {
				assert_int_equal(rec.u.region.nctr, 0);
			}
			rtick += 50 + (uint64_t)(i % 7);
			r0 += 11;
			r1 += (uint64_t)i;
			phase = 1;
			break;
		case TRACE_REC_SAMPLE_COST:
			/* follows the sample of instance i (phase 2: the sample was read) */
			assert_int_equal(phase, 2);
			assert_int_equal(last_sample % 5, 0);
			assert_int_equal(rec.u.sample_cost.cost_ns, 26000 + (uint64_t)last_sample);
			assert_int_equal(rec.u.sample_cost.lag_ns, 9000 + (uint64_t)last_sample);
			assert_int_equal(rec.u.sample_cost.delivery_ns,
			                 last_sample % 10 ? 33000 + (uint64_t)last_sample : TRACE_UNKNOWN);
			break;
		case TRACE_REC_SAMPLE:
			last_sample = (int)i;
			assert_int_equal(phase, 1);
			assert_int_equal(rec.tick, rtick);
			assert_int_equal(rec.u.sample.depth, 3);
			assert_int_equal(rec.u.sample.frames[0], 0x401234 + (uint64_t)(i % 3));
			assert_int_equal(rec.u.sample.frames[2], 0x400800);
			assert_int_equal(rec.u.sample.cpu_ns, 1000000); /* microsecond resolution */
			assert_int_equal(rec.u.sample.nctr, 2);
			assert_int_equal(rec.u.sample.ctr_ids[1], 9);
			assert_int_equal(rec.u.sample.ctr[0], r0);
			assert_int_equal(rec.u.sample.ctr[1], r1);
			rtick += 13;
			phase = 2;
			break;
		case TRACE_REC_EXIT:
			assert_int_equal(phase, 2);
			assert_int_equal(rec.tick, rtick);
			assert_int_equal(rec.u.region.nctr, 2);
			assert_int_equal(rec.u.region.ctr[0], r0);
			phase = 0;
			i++;
			break;
		case TRACE_REC_MARKER:
			assert_int_equal(rec.tick, rtick + 1);
			assert_string_equal(rec.u.marker.text, "checkpoint");
			break;
		case TRACE_REC_THREAD_END: assert_int_equal(rec.tick, rtick + 2); break;
		default: fail_msg("unexpected record kind %u", rec.kind);
		}
	}
	assert_int_equal(rc, 0);
	assert_int_equal(i, 5000);
	for (unsigned k = TRACE_REC_INFO; k <= TRACE_REC_MARKER; k++) {
		if (k == TRACE_REC_ENTER_CTR || k == TRACE_REC_EXIT_CTR ||
		    (k > TRACE_REC_THROTTLE && k < TRACE_REC_THREAD_START))
			continue;
		if (!seen[k])
			fail_msg("record kind %s (%u) never read back", trace_record_kind_name(k), k);
	}
	const trace_read_stats *st = trace_reader_stats(r);
	assert_true(st->chunks_ok > 20); /* the thread stream spans many chunks */
	assert_int_equal(st->chunks_damaged, 0);
	assert_int_equal(st->samples_without_stack_def, 0);
	/* Steady stacks are deduplicated: only a few definitions per chunk. */
	assert_true(seen[TRACE_REC_STACK_DEF] <= 3 * (int)st->chunks_ok);
	assert_int_equal(seen[TRACE_REC_SAMPLE_COST], 1000);
	assert_int_equal(st->records_unknown, 0);
	assert_int_equal(trace_reader_loss_summary(r, msg, sizeof msg), 0);
	trace_reader_close(r);
	/* and the chunks were compressed the way asked */
	uint16_t want = codec == TRACE_CODEC_ZSTD   ? TRACE_CHUNK_FLAG_ZSTD
	                : codec == TRACE_CODEC_ZLIB ? TRACE_CHUNK_FLAG_ZLIB
	                                            : 0;
	assert_int_equal(trace_reader_open(&r, path, diag_fail, NULL, msg, sizeof msg), 0);
	trace_raw_chunk c;
	unsigned flagged = 0, total = 0;
	while (trace_reader_next_chunk(r, &c) == 1) {
		total++;
		flagged += (c.hdr.flags & (TRACE_CHUNK_FLAG_ZLIB | TRACE_CHUNK_FLAG_ZSTD)) == want;
	}
	trace_reader_close(r);
	assert_true(total > 20);
	if (want)
		assert_true(flagged > total / 2); /* small chunks are stored */
	else
		assert_int_equal(flagged, total);
}

static void test_every_record_kind(void **state)
{
	(void)state;
	every_record_kind(TRACE_CODEC_ZLIB, 6);
}

static void test_every_record_kind_zstd(void **state)
{
	(void)state;
	every_record_kind(TRACE_CODEC_ZSTD, 1);
}

static void test_every_record_kind_stored(void **state)
{
	(void)state;
	every_record_kind(TRACE_CODEC_NONE, 0);
}

static void test_newer_major_version_is_refused(void **state)
{
	(void)state;
	FILE *f = fopen(path, "wb");
	uint8_t hdr[TRACE_FILE_HEADER_SIZE];
	trace_file_header_encode(hdr);
	hdr[8] = TRACE_VERSION_MAJOR + 1;
	fwrite(hdr, 1, sizeof hdr, f);
	fclose(f);
	trace_reader *r;
	char msg[256] = "";
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL, msg, sizeof msg), -EPROTONOSUPPORT);
	assert_non_null(strstr(msg, "written by a newer fold"));
	assert_non_null(strstr(msg, path));
}

static void test_not_a_trace(void **state)
{
	(void)state;
	FILE *f = fopen(path, "wb");
	fputs("hello world, this is plain text\n", f);
	fclose(f);
	trace_reader *r;
	char msg[256] = "";
	assert_int_equal(trace_reader_open(&r, path, NULL, NULL, msg, sizeof msg), -EPROTO);
	assert_non_null(strstr(msg, "not a fold trace"));
}

/* sample_cost as format 1.1 wrote it (no delivery_ns: unknown), as 1.2
 * writes it, and with a field a later minor version appends (skipped). */
static void test_sample_cost_fields_by_version(void **state)
{
	(void)state;
	static const uint8_t bodies[3][6] = {{2, 10, 3}, {3, 10, 3, 40}, {5, 10, 3, 40, 0x81, 0x01}};
	static const uint64_t delivery[3] = {TRACE_UNKNOWN, 40, 40};
	for (int v = 0; v < 3; v++) {
		uint8_t raw[64];
		trace_enc e;
		trace_enc_init(&e, NULL);
		trace_enc_begin(&e, raw, sizeof raw);
		size_t n = 0;
		raw[n++] = TRACE_REC_SAMPLE_COST;
		memcpy(raw + n, bodies[v], (size_t)bodies[v][0] + 1);
		n += (size_t)bodies[v][0] + 1;
		e.pos = raw + n;
		trace_enc_stat(&e, "b", 2);
		trace_decoder *d = trace_decoder_new();
		trace_read_stats st = {0};
		trace_decoder_reset(d, 0, raw, trace_enc_len(&e));
		trace_record rec;
		assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
		assert_int_equal(rec.kind, TRACE_REC_SAMPLE_COST);
		assert_int_equal(rec.u.sample_cost.cost_ns, 10);
		assert_int_equal(rec.u.sample_cost.lag_ns, 3);
		assert_int_equal(rec.u.sample_cost.delivery_ns, delivery[v]);
		assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
		assert_string_equal(rec.u.stat.key, "b");
		assert_int_equal(st.records_unknown, 0);
		trace_decoder_free(d);
	}
}

/* pause (format 1.3) as written, and with a field a later minor version
 * appends (skipped), between two known records. */
static void test_pause_record(void **state)
{
	(void)state;
	for (int later = 0; later < 2; later++) {
		uint8_t raw[64];
		trace_enc e;
		trace_enc_init(&e, NULL);
		trace_enc_begin(&e, raw, sizeof raw);
		trace_enc_stat(&e, "a", 1);
		assert_int_equal(trace_enc_pause(&e, 654321), 0);
		if (later) { /* grow the body by one byte, as a later field would */
			size_t n = trace_enc_len(&e);
			raw[n - 4]++; /* the length, after the kind; then 3 bytes of 654321 */
			raw[n] = 7;
			e.pos = raw + n + 1;
		}
		trace_enc_stat(&e, "b", 2);
		trace_decoder *d = trace_decoder_new();
		trace_read_stats st = {0};
		trace_decoder_reset(d, 0, raw, trace_enc_len(&e));
		trace_record rec;
		assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
		assert_string_equal(rec.u.stat.key, "a");
		assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
		assert_int_equal(rec.kind, TRACE_REC_PAUSE);
		assert_int_equal(rec.u.pause.pause_ns, 654321);
		assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
		assert_string_equal(rec.u.stat.key, "b");
		assert_int_equal(st.records_unknown, 0);
		trace_decoder_free(d);
	}
}

/* hook_cost (format 1.5): after only, before only, both, each as written
 * and with a field a later minor version appends (skipped); a body whose
 * flags promise a value it does not hold is damage. */
static void test_hook_cost_record(void **state)
{
	(void)state;
	const uint64_t after[] = {2482, TRACE_UNKNOWN, 506, 0};
	const uint64_t before[] = {TRACE_UNKNOWN, 60, 710, 300000};
	for (int v = 0; v < 4; v++)
		for (int later = 0; later < 2; later++) {
			uint8_t raw[64];
			trace_enc e;
			trace_enc_init(&e, NULL);
			trace_enc_begin(&e, raw, sizeof raw);
			trace_enc_stat(&e, "a", 1);
			size_t at = trace_enc_len(&e);
			assert_int_equal(trace_enc_hook_cost(&e, after[v], before[v]), 0);
			if (later) { /* the length is the byte after the kind */
				size_t n = trace_enc_len(&e);
				raw[at + 1]++;
				raw[n] = 7;
				e.pos = raw + n + 1;
			}
			trace_enc_stat(&e, "b", 2);
			trace_decoder *d = trace_decoder_new();
			trace_read_stats st = {0};
			trace_decoder_reset(d, 0, raw, trace_enc_len(&e));
			trace_record rec;
			assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
			assert_string_equal(rec.u.stat.key, "a");
			assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
			assert_int_equal(rec.kind, TRACE_REC_HOOK_COST);
			assert_true(rec.u.hook_cost.after_ticks == after[v]);
			assert_true(rec.u.hook_cost.before_ticks == before[v]);
			assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
			assert_string_equal(rec.u.stat.key, "b");
			assert_int_equal(st.records_unknown, 0);
			trace_decoder_free(d);
		}
	/* flags 3 (after and before) over a body holding one value */
	uint8_t raw[] = {TRACE_REC_HOOK_COST, 2, 3, 5};
	trace_decoder *d = trace_decoder_new();
	trace_read_stats st = {0};
	trace_decoder_reset(d, 0, raw, sizeof raw);
	trace_record rec;
	assert_true(trace_decoder_next(d, &rec, &st) < 0);
	trace_decoder_free(d);
}

static void test_unknown_extended_record_is_skipped(void **state)
{
	(void)state;
	/* A chunk from a future minor version: an extended record between two known ones. */
	uint8_t raw[64];
	trace_enc e;
	trace_enc_init(&e, NULL);
	trace_enc_begin(&e, raw, sizeof raw);
	trace_enc_stat(&e, "a", 1);
	size_t n = trace_enc_len(&e);
	raw[n++] = 100; /* extended kind */
	raw[n++] = 3;   /* body length */
	raw[n++] = 1;
	raw[n++] = 2;
	raw[n++] = 3;
	e.pos = raw + n;
	trace_enc_stat(&e, "b", 2);
	trace_decoder *d = trace_decoder_new();
	trace_read_stats st = {0};
	trace_decoder_reset(d, 0, raw, trace_enc_len(&e));
	trace_record rec;
	assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
	assert_string_equal(rec.u.stat.key, "a");
	assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
	assert_int_equal(rec.kind, 100);
	assert_int_equal(rec.u.extended.len, 3);
	assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
	assert_string_equal(rec.u.stat.key, "b");
	assert_int_equal(trace_decoder_next(d, &rec, &st), 0);
	assert_int_equal(st.records_unknown, 1);
	trace_decoder_free(d);
}

static void test_encoder_never_writes_past_its_buffer(void **state)
{
	(void)state;
	uint8_t buf[40];
	memset(buf, 0xee, sizeof buf);
	trace_enc e;
	trace_enc_init(&e, NULL);
	trace_enc_begin(&e, buf, 32);
	uint64_t frames[8] = {1, 2, 3, 4, 5, 6, 7, 8};
	int rc, n = 0;
	while ((rc = trace_enc_sample(&e, (uint64_t)n * 1000000, frames, 8, 5, NULL)) == 0)
		n++;
	assert_int_equal(rc, -ENOSPC);
	assert_true(trace_enc_len(&e) <= 32);
	for (int k = 32; k < 40; k++)
		assert_int_equal(buf[k], 0xee);
}

/* Found by the fuzzer: a stack of depth 0 (malformed, but decodable) must
 * give a NULL frame pointer, not arithmetic on an unallocated arena. */
static void test_stack_of_depth_zero(void **state)
{
	(void)state;
	const uint8_t raw[] = {TRACE_REC_STACK_DEF, 1, 0, TRACE_REC_SAMPLE, 0, 1, 0, 0};
	trace_decoder *d = trace_decoder_new();
	trace_read_stats st = {0};
	trace_decoder_reset(d, 1, raw, sizeof raw);
	trace_record rec;
	assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
	assert_int_equal(rec.kind, TRACE_REC_STACK_DEF);
	assert_int_equal(rec.u.stack_def.depth, 0);
	assert_null(rec.u.stack_def.frames);
	assert_int_equal(trace_decoder_next(d, &rec, &st), 1);
	assert_int_equal(rec.kind, TRACE_REC_SAMPLE);
	assert_int_equal(rec.u.sample.depth, 0);
	assert_null(rec.u.sample.frames);
	assert_int_equal(trace_decoder_next(d, &rec, &st), 0);
	trace_decoder_free(d);
}

static void test_crc_matches_zlib(void **state)
{
	(void)state;
	const char *s = "The quick brown fox jumps over the lazy dog";
	assert_int_equal(trace_crc32(0, s, strlen(s)), crc32(0, (const Bytef *)s, (uInt)strlen(s)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_every_record_kind, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_every_record_kind_zstd, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_every_record_kind_stored, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_newer_major_version_is_refused, setup, teardown),
	    cmocka_unit_test_setup_teardown(test_not_a_trace, setup, teardown),
	    cmocka_unit_test(test_unknown_extended_record_is_skipped),
	    cmocka_unit_test(test_sample_cost_fields_by_version),
	    cmocka_unit_test(test_pause_record),
	    cmocka_unit_test(test_hook_cost_record),
	    cmocka_unit_test(test_encoder_never_writes_past_its_buffer),
	    cmocka_unit_test(test_stack_of_depth_zero),
	    cmocka_unit_test(test_crc_matches_zlib),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
