/* A damaged trace is salvaged up to the damage, and the loss is reported:
 * truncation, flipped bytes, a chunk cut mid-way, a bad chunk header. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "trace_reader.h"
#include "trace_writer.h"

#define THREADS 3
#define EVENTS 4000

static char path[256], damaged[256];
static char diag_log[8192];

static void diag_collect(void *arg, const char *msg)
{
	(void)arg;
	strncat(diag_log, msg, sizeof diag_log - strlen(diag_log) - 2);
	strcat(diag_log, "\n");
}

/* Writes THREADS streams of EVENTS enter/exit pairs each in 2 KiB chunks.
 * Region id = stream, so every record says where it came from. */
static int setup(void **state)
{
	(void)state;
	snprintf(path, sizeof path, "/tmp/fold-test-salvage-%d.bin", (int)getpid());
	snprintf(damaged, sizeof damaged, "/tmp/fold-test-salvage-%d-damaged.bin", (int)getpid());
	trace_writer *w;
	int rc;
	if (trace_writer_open(&w, path, 0, 6, 2048))
		return -1;
	TRACE_PUT(rc, w, 0, trace_enc_info, "host", "h");
	for (int i = 0; i < EVENTS; i++)
		for (uint32_t t = 1; t <= THREADS; t++) {
			TRACE_PUT(rc, w, t, trace_enc_enter, (uint64_t)i * 100 + t, t, NULL);
			TRACE_PUT(rc, w, t, trace_enc_exit, (uint64_t)i * 100 + t + 50, t, NULL);
			if (rc)
				return -1;
		}
	return trace_writer_close(w);
}

static int teardown(void **state)
{
	(void)state;
	unlink(path);
	unlink(damaged);
	return 0;
}

static size_t file_size(const char *p)
{
	struct stat st;
	stat(p, &st);
	return (size_t)st.st_size;
}

static uint8_t *slurp(size_t *len)
{
	*len = file_size(path);
	uint8_t *b = malloc(*len);
	FILE *f = fopen(path, "rb");
	assert_int_equal(fread(b, 1, *len, f), *len);
	fclose(f);
	return b;
}

static void spit(const uint8_t *b, size_t len)
{
	FILE *f = fopen(damaged, "wb");
	assert_int_equal(fwrite(b, 1, len, f), len);
	fclose(f);
}

/* Reads `damaged`; returns the number of region events per stream in counts[]. */
static const trace_read_stats *read_all(trace_reader **r, unsigned long counts[THREADS + 1])
{
	char msg[256];
	diag_log[0] = 0;
	memset(counts, 0, sizeof(unsigned long) * (THREADS + 1));
	assert_int_equal(trace_reader_open(r, damaged, diag_collect, NULL, msg, sizeof msg), 0);
	trace_record rec;
	int rc;
	uint64_t last_tick[THREADS + 1] = {0};
	while ((rc = trace_reader_next(*r, &rec)) == 1) {
		if (rec.kind == TRACE_REC_ENTER || rec.kind == TRACE_REC_EXIT) {
			assert_true(rec.stream >= 1 && rec.stream <= THREADS);
			/* every salvaged record is intact: region matches stream, ticks increase */
			assert_int_equal(rec.u.region.region, rec.stream);
			assert_true(rec.tick > last_tick[rec.stream] || last_tick[rec.stream] == 0);
			last_tick[rec.stream] = rec.tick;
			counts[rec.stream]++;
		}
	}
	assert_int_equal(rc, 0);
	return trace_reader_stats(*r);
}

static unsigned long total(const unsigned long c[THREADS + 1])
{
	unsigned long s = 0;
	for (int t = 1; t <= THREADS; t++)
		s += c[t];
	return s;
}

static void test_intact_file_reads_everything(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = slurp(&len);
	spit(b, len);
	trace_reader *r;
	unsigned long c[THREADS + 1];
	const trace_read_stats *st = read_all(&r, c);
	for (int t = 1; t <= THREADS; t++)
		assert_int_equal(c[t], 2 * EVENTS);
	assert_int_equal(st->chunks_damaged, 0);
	assert_string_equal(diag_log, "");
	trace_reader_close(r);
	free(b);
}

static void test_truncated_file_keeps_complete_chunks(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = slurp(&len);
	spit(b, len * 2 / 3 + 7); /* cut inside some chunk */
	trace_reader *r;
	unsigned long c[THREADS + 1];
	const trace_read_stats *st = read_all(&r, c);
	assert_true(st->truncated);
	/* about two thirds of the events survive; nothing beyond the cut */
	assert_true(total(c) > (unsigned long)(THREADS * 2 * EVENTS) / 2);
	assert_true(total(c) < (unsigned long)(THREADS * 2 * EVENTS));
	assert_non_null(strstr(diag_log, damaged));
	assert_non_null(strstr(diag_log, "truncated"));
	char msg[512];
	assert_int_equal(trace_reader_loss_summary(r, msg, sizeof msg), 1);
	assert_non_null(strstr(msg, "salvaged"));
	assert_non_null(strstr(msg, damaged));
	trace_reader_close(r);
	free(b);
}

static void test_flipped_byte_costs_one_chunk(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = slurp(&len);
	b[len / 2] ^= 0x5a; /* inside some chunk's payload or header */
	spit(b, len);
	trace_reader *r;
	unsigned long c[THREADS + 1];
	const trace_read_stats *st = read_all(&r, c);
	assert_int_equal(st->chunks_damaged, 1);
	assert_false(st->truncated);
	/* one chunk of one stream is lost: the other streams are complete */
	int complete = 0;
	for (int t = 1; t <= THREADS; t++)
		complete += c[t] == 2 * EVENTS;
	assert_int_equal(complete, THREADS - 1);
	assert_true(total(c) > (unsigned long)(THREADS * 2 * EVENTS) * 9 / 10);
	assert_non_null(strstr(diag_log, "damaged chunk at offset"));
	trace_reader_close(r);
	free(b);
}

static void test_chunk_cut_midway_resyncs(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = slurp(&len);
	/* Remove 20 bytes from the middle (compressed chunks here are ~60
	 * bytes): a chunk loses part of itself and the next header must be
	 * found again by scanning. */
	size_t cut = len / 3;
	memmove(b + cut, b + cut + 20, len - cut - 20);
	spit(b, len - 20);
	trace_reader *r;
	unsigned long c[THREADS + 1];
	const trace_read_stats *st = read_all(&r, c);
	assert_true(st->chunks_damaged >= 1 && st->chunks_damaged <= 2);
	assert_true(st->bytes_skipped > 0);
	assert_true(total(c) > (unsigned long)(THREADS * 2 * EVENTS) * 9 / 10);
	trace_reader_close(r);
	free(b);
}

static void test_lost_chunk_is_counted_as_missing(void **state)
{
	(void)state;
	size_t len;
	uint8_t *b = slurp(&len);
	/* Overwrite a whole region after the first chunk with zeros: several
	 * whole chunks vanish; the sequence numbers tell how many. */
	memset(b + len / 4, 0, len / 8);
	spit(b, len);
	trace_reader *r;
	unsigned long c[THREADS + 1];
	const trace_read_stats *st = read_all(&r, c);
	assert_true(st->chunks_missing >= 1);
	assert_non_null(strstr(diag_log, "missing"));
	trace_reader_close(r);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_intact_file_reads_everything),
	    cmocka_unit_test(test_truncated_file_keeps_complete_chunks),
	    cmocka_unit_test(test_flipped_byte_costs_one_chunk),
	    cmocka_unit_test(test_chunk_cut_midway_resyncs),
	    cmocka_unit_test(test_lost_chunk_is_counted_as_missing),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
