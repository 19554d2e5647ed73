/* make_hostile_trace.c: small traces that are valid to the byte (checksums,
 * lengths) but hostile in what they say, for the CLI tests of untrusted
 * input:
 *
 *   make_hostile_trace escapes OUT        names, paths and text with ESC
 *                                         sequences, C1 controls, a leading
 *                                         TAB or =, throttled
 *   make_hostile_trace stream OUT ID      the thread's stream is ID
 *   make_hostile_trace region OUT ID      the region's id is ID
 *   make_hostile_trace module OUT PATH [ADDR]
 *                                         a module at PATH loaded at 0x400000,
 *                                         samples at its address ADDR
 *                                         (default 0x1100)
 *   make_hostile_trace counters OUT N     N counter definitions and sets
 *   make_hostile_trace many OUT N         N one-shot regions (one instance
 *                                         each, a sample in every tenth)
 *
 * Every variant has one thread that enters its region 40 times, with
 * samples inside, so the analysis has something to fold.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "trace_chunk.h"
#include "trace_encode.h"

typedef struct out {
	int fd;
	uint8_t buf[1 << 16];
	trace_enc enc;
	uint32_t stream, seq;
} out;

/* Starts a chunk of stream; seq: its sequence number in the stream. */
static void begin(out *o, uint32_t stream, uint32_t seq)
{
	o->stream = stream;
	o->seq = seq;
	trace_enc_init(&o->enc, NULL);
	trace_enc_begin(&o->enc, o->buf, sizeof o->buf);
}

static void seal(out *o)
{
	if (trace_enc_len(&o->enc) &&
	    trace_chunk_write_raw(o->fd, o->stream, o->seq++, o->buf, trace_enc_len(&o->enc))) {
		perror("make_hostile_trace: write");
		exit(1);
	}
	trace_enc_begin(&o->enc, o->buf, sizeof o->buf);
}

/* Appends one record, sealing the chunk when it is full. */
#define PUT(o, fn, ...)                                                                                      \
	do {                                                                                                 \
		if (fn(&(o)->enc, __VA_ARGS__) == -ENOSPC) {                                                 \
			seal(o);                                                                             \
			if (fn(&(o)->enc, __VA_ARGS__)) {                                                    \
				fprintf(stderr, "make_hostile_trace: record too large\n");                   \
				exit(1);                                                                     \
			}                                                                                    \
		}                                                                                            \
	} while (0)

static const uint64_t t0 = 1000000;
static uint64_t sample_addr = 0x1100; /* in the module, if any */

static void process_stream(out *o, const char *exe, const char *module, uint32_t region_id,
                           const char *region_name, unsigned ncounters)
{
	begin(o, TRACE_PROCESS_STREAM, 0);
	PUT(o, trace_enc_info, "host", "hostile");
	PUT(o, trace_enc_info, "pid", "4242");
	PUT(o, trace_enc_info, "exe", exe);
	PUT(o, trace_enc_info, "cmdline", exe);
	PUT(o, trace_enc_info, "clock.source", "monotonic");
	PUT(o, trace_enc_info, "sample.source", "time");
	PUT(o, trace_enc_info, "sample.period", "100000");
	PUT(o, trace_enc_clock, t0, t0, 1700000000000000000ull);
	PUT(o, trace_enc_region_def, region_id, TRACE_REGION_API, 0, region_name);
	for (unsigned k = 0; k < ncounters; k++) {
		char name[32];
		snprintf(name, sizeof name, "app_counter_%u", k);
		PUT(o, trace_enc_counter_def, k + 1, TRACE_COUNTER_APP, name);
	}
	if (module) {
		uint8_t bid[4] = {0xde, 0xad, 0xbe, 0xef};
		trace_segment seg = {sample_addr & ~0xfffull, 0x10000, 5};
		/* a real file's module has no build-id to differ from */
		size_t nbid = module[0] == '/' && access(module, F_OK) == 0 ? 0 : sizeof bid;
		PUT(o, trace_enc_module_load, 1, t0, 0x400000, bid, nbid, module, &seg, 1);
	}
	PUT(o, trace_enc_clock, t0 + 40 * 20000 + 1000, t0 + 40 * 20000 + 1000,
	    1700000000000000000ull + 801000);
	PUT(o, trace_enc_stat, "threads", 1);
	seal(o);
}

/* 40 instances of 10 us, a sample in the middle of each, in stream. */
static void thread_stream(out *o, uint32_t stream, uint32_t region_id, const char *thread_name,
                          unsigned ncounters)
{
	begin(o, stream, 0);
	PUT(o, trace_enc_thread_start, 4242, 0, t0, thread_name);
	uint32_t ids[TRACE_MAX_COUNTERS];
	uint64_t ctr[TRACE_MAX_COUNTERS];
	for (unsigned i = 0; i < 40; i++) {
		uint64_t t = t0 + 100 + (uint64_t)i * 20000;
		uint64_t frames[2] = {0x400000 + sample_addr + (i % 4), 0x400000 + sample_addr + 0x10};
		unsigned n = 0;
		if (ncounters) {
			/* a new set every instance, cycling through the definitions */
			n = ncounters < TRACE_MAX_COUNTERS ? ncounters : TRACE_MAX_COUNTERS;
			for (unsigned k = 0; k < n; k++) {
				ids[k] = (i * n + k) % ncounters + 1;
				ctr[k] = (uint64_t)i * 100 + k;
			}
			PUT(o, trace_enc_counter_set, ids, n);
		}
		PUT(o, trace_enc_enter, t, region_id, n ? ctr : NULL);
		PUT(o, trace_enc_sample, t + 5000, frames, 2, 5, NULL);
		PUT(o, trace_enc_exit, t + 10000, region_id, n ? ctr : NULL);
	}
	PUT(o, trace_enc_marker, t0 + 40 * 20000, thread_name);
	PUT(o, trace_enc_thread_end, t0 + 40 * 20000 + 500);
	seal(o);
}

/* N regions, each defined and entered once (5 us), on one thread. */
static void many_regions(out *o, unsigned long n)
{
	process_stream(o, "/bin/prog", NULL, 1, "task_1", 0);
	begin(o, TRACE_PROCESS_STREAM, 1);
	for (unsigned long i = 2; i <= n; i++) {
		char name[32];
		snprintf(name, sizeof name, "task_%lu", i);
		PUT(o, trace_enc_region_def, (uint32_t)i, TRACE_REGION_API, 0, name);
	}
	seal(o);
	begin(o, 1, 0);
	PUT(o, trace_enc_thread_start, 4242, 0, t0, "main");
	uint64_t t = t0 + 100;
	for (unsigned long i = 1; i <= n; i++) {
		uint64_t frames[2] = {0x401100 + (i % 7) * 16, 0x401800};
		PUT(o, trace_enc_enter, t, (uint32_t)i, NULL);
		if (i % 10 == 0)
			PUT(o, trace_enc_sample, t + 2000, frames, 2, 4, NULL);
		t += 5000 + i % 13;
		PUT(o, trace_enc_exit, t, (uint32_t)i, NULL);
		t += 100;
	}
	PUT(o, trace_enc_thread_end, t);
	seal(o);
}

static int usage(void)
{
	fprintf(stderr, "usage: make_hostile_trace escapes|stream|region|module|counters|many OUT [ARG]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return usage();
	const char *variant = argv[1], *arg = argc > 3 ? argv[3] : NULL;
	static out o;
	o.fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (o.fd < 0 || trace_file_write_header(o.fd)) {
		perror(argv[2]);
		return 1;
	}
	if (!strcmp(variant, "escapes")) {
		/* what a terminal would act on (ESC and C1 CSI sequences, OSC
		 * retitling, BEL) and what a spreadsheet would evaluate */
		const char *evil = "\x1b[2J\x1b]0;pwned\x07\xc2\x9b"
		                   "31mevil";
		char exe[128], region[128], module[128];
		snprintf(exe, sizeof exe, "/tmp/%s/prog", evil);
		snprintf(region, sizeof region, "\t=HYPERLINK(\"x\")%s", evil);
		snprintf(module, sizeof module, "/nonexistent/%s.so", evil);
		process_stream(&o, exe, module, 7, region, 0);
		begin(&o, TRACE_PROCESS_STREAM, 1);
		PUT(&o, trace_enc_throttle, 7, t0 + 300000, 20, 10000);
		seal(&o);
		thread_stream(&o, 1, 7, evil, 0);
	} else if (!strcmp(variant, "stream") && arg) {
		process_stream(&o, "/bin/prog", NULL, 1, "step", 0);
		thread_stream(&o, (uint32_t)strtoul(arg, NULL, 0), 1, "main", 0);
	} else if (!strcmp(variant, "region") && arg) {
		uint32_t id = (uint32_t)strtoul(arg, NULL, 0);
		process_stream(&o, "/bin/prog", NULL, id, "step", 0);
		thread_stream(&o, 1, id, "main", 0);
	} else if (!strcmp(variant, "module") && arg) {
		if (argc > 4)
			sample_addr = strtoull(argv[4], NULL, 0);
		process_stream(&o, "/bin/prog", arg, 1, "step", 0);
		thread_stream(&o, 1, 1, "main", 0);
	} else if (!strcmp(variant, "counters") && arg) {
		unsigned n = (unsigned)strtoul(arg, NULL, 0);
		process_stream(&o, "/bin/prog", NULL, 1, "step", n);
		thread_stream(&o, 1, 1, "main", n);
	} else if (!strcmp(variant, "many") && arg) {
		many_regions(&o, strtoul(arg, NULL, 0));
	} else {
		return usage();
	}
	return close(o.fd) ? 1 : 0;
}
