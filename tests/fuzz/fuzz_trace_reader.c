/* fuzz_trace_reader.c: libFuzzer target for the trace reader.
 *
 * The input is read twice: as a whole file through trace_reader (memfd, no
 * disk), and as one raw chunk payload through trace_decoder. Either must
 * only ever return records or errors: no crash, no out-of-bounds access,
 * no leak, no hang (resync scanning is linear).
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "trace_reader.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static void consume(const trace_record *rec, volatile uint64_t *sink)
{
	/* Touch what the record points to, so ASan sees any bad pointer. */
	switch (rec->kind) {
	case TRACE_REC_SAMPLE:
		for (unsigned i = 0; i < rec->u.sample.depth; i++)
			*sink += rec->u.sample.frames[i];
		for (unsigned i = 0; i < rec->u.sample.nctr; i++)
			*sink += rec->u.sample.ctr[i] + rec->u.sample.ctr_ids[i];
		break;
	case TRACE_REC_INFO:
		for (const char *p = rec->u.info.key; *p; p++)
			*sink += (uint8_t)*p;
		for (const char *p = rec->u.info.value; *p; p++)
			*sink += (uint8_t)*p;
		break;
	case TRACE_REC_MODULE_LOAD:
		for (unsigned i = 0; i < rec->u.module_load.nseg; i++)
			*sink += rec->u.module_load.segs[i].vaddr;
		for (size_t i = 0; i < rec->u.module_load.build_id_len; i++)
			*sink += rec->u.module_load.build_id[i];
		break;
	case TRACE_REC_ENTER:
	case TRACE_REC_EXIT:
		for (unsigned i = 0; i < rec->u.region.nctr; i++)
			*sink += rec->u.region.ctr[i];
		break;
	default:
		*sink += rec->tick;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	volatile uint64_t sink = 0;
	trace_record rec;

	trace_decoder *d = trace_decoder_new();
	trace_read_stats st = {0};
	trace_decoder_reset(d, 1, data, size);
	while (trace_decoder_next(d, &rec, &st) == 1)
		consume(&rec, &sink);
	trace_decoder_free(d);

	int fd = memfd_create("fuzz-trace", MFD_CLOEXEC);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) == (ssize_t)size) {
		char path[64];
		snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
		trace_reader *r;
		if (trace_reader_open(&r, path, quiet, NULL, NULL, 0) == 0) {
			while (trace_reader_next(r, &rec) == 1)
				consume(&rec, &sink);
			char msg[512];
			trace_reader_loss_summary(r, msg, sizeof msg);
			trace_reader_close(r);
		}
	}
	close(fd);
	return 0;
}
