/* cmd_dump.c: `fold dump [--stats] TRACE`: every record, one per line.
 *
 * The format is for people and for tests: "stream kind tick key=value...",
 * strings quoted with C escapes so a line never breaks. --stats appends the
 * reader's statistics; damage is reported on stderr as always.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "trace_reader.h"
#include "util.h"

/* A string of the trace, quoted: " and \\ escaped, and every byte a
 * terminal could act on (util_term_char_len: controls, TAB too, C1, bytes
 * that are not UTF-8) as \\xNN, so a line never breaks or drives the
 * terminal. */
static void put_str(FILE *o, const char *s)
{
	fputc('"', o);
	for (const unsigned char *p = (const unsigned char *)s; p && *p;) {
		unsigned n = *p == '\t' ? 0 : util_term_char_len(p);
		if (*p == '"' || *p == '\\')
			fprintf(o, "\\%c", *p);
		else if (!n)
			fprintf(o, "\\x%02x", *p);
		else
			fwrite(p, 1, n, o);
		p += n ? n : 1;
	}
	fputc('"', o);
}

static void put_ctr(FILE *o, unsigned n, const uint32_t *ids, const uint64_t *v)
{
	for (unsigned i = 0; i < n; i++)
		fprintf(o, " c%" PRIu32 "=%" PRIu64, ids[i], v[i]);
}

static void dump_record(FILE *o, const trace_record *r)
{
	fprintf(o, "%" PRIu32 " %s", r->stream, trace_record_kind_name(r->kind));
	switch (r->kind) {
	case TRACE_REC_INFO:
		fputc(' ', o);
		put_str(o, r->u.info.key);
		fputc('=', o);
		put_str(o, r->u.info.value);
		break;
	case TRACE_REC_CLOCK:
		fprintf(o, " tick=%" PRIu64 " mono_ns=%" PRIu64 " real_ns=%" PRIu64, r->tick,
		        r->u.clock.mono_ns, r->u.clock.real_ns);
		break;
	case TRACE_REC_COUNTER_DEF:
		fprintf(o, " id=%" PRIu32 " kind=%s name=", r->u.counter_def.id,
		        trace_counter_kind_name(r->u.counter_def.kind));
		put_str(o, r->u.counter_def.name);
		break;
	case TRACE_REC_COUNTER_MISSING:
		fputs(" name=", o);
		put_str(o, r->u.counter_missing.name);
		fputs(" reason=", o);
		put_str(o, r->u.counter_missing.reason);
		break;
	case TRACE_REC_REGION_DEF:
		fprintf(o, " id=%" PRIu32 " kind=%s address=0x%" PRIx64 " name=", r->u.region_def.id,
		        trace_region_kind_name(r->u.region_def.kind), r->u.region_def.address);
		put_str(o, r->u.region_def.name);
		break;
	case TRACE_REC_MODULE_LOAD:
		fprintf(o,
		        " id=%" PRIu32 " tick=%" PRIu64 " bias=0x%" PRIx64 " build_id=", r->u.module_load.id,
		        r->tick, r->u.module_load.load_bias);
		for (size_t i = 0; i < r->u.module_load.build_id_len; i++)
			fprintf(o, "%02x", r->u.module_load.build_id[i]);
		fputs(" path=", o);
		put_str(o, r->u.module_load.path);
		for (unsigned i = 0; i < r->u.module_load.nseg; i++)
			fprintf(o, " seg=0x%" PRIx64 "+0x%" PRIx64 ":%c%c%c", r->u.module_load.segs[i].vaddr,
			        r->u.module_load.segs[i].memsz, r->u.module_load.segs[i].prot & 4 ? 'r' : '-',
			        r->u.module_load.segs[i].prot & 2 ? 'w' : '-',
			        r->u.module_load.segs[i].prot & 1 ? 'x' : '-');
		break;
	case TRACE_REC_MODULE_UNLOAD:
		fprintf(o, " id=%" PRIu32 " tick=%" PRIu64, r->u.module_unload.id, r->tick);
		break;
	case TRACE_REC_STAT:
		fputc(' ', o);
		put_str(o, r->u.stat.key);
		fprintf(o, "=%" PRIu64, r->u.stat.value);
		break;
	case TRACE_REC_THROTTLE:
		fprintf(o, " region=%" PRIu32 " tick=%" PRIu64 " calls=%" PRIu64 " mean_ns=%" PRIu64,
		        r->u.throttle.region, r->tick, r->u.throttle.calls, r->u.throttle.mean_ns);
		break;
	case TRACE_REC_THREAD_START:
		fprintf(o, " tick=%" PRIu64 " os_tid=%" PRIu64 " parent=%" PRIu32 " name=", r->tick,
		        r->u.thread_start.os_tid, r->u.thread_start.parent_stream);
		put_str(o, r->u.thread_start.name);
		break;
	case TRACE_REC_THREAD_END: fprintf(o, " tick=%" PRIu64, r->tick); break;
	case TRACE_REC_COUNTER_SET:
		fputs(" ids=", o);
		for (unsigned i = 0; i < r->u.counter_set.n; i++)
			fprintf(o, "%s%" PRIu32, i ? "," : "", r->u.counter_set.ids[i]);
		break;
	case TRACE_REC_ENTER:
	case TRACE_REC_EXIT:
		fprintf(o, " tick=%" PRIu64 " region=%" PRIu32, r->tick, r->u.region.region);
		put_ctr(o, r->u.region.nctr, r->u.region.ctr_ids, r->u.region.ctr);
		break;
	case TRACE_REC_SAMPLE:
		fprintf(o, " tick=%" PRIu64 " cpu_ns=%" PRIu64 " stack=", r->tick, r->u.sample.cpu_ns);
		for (unsigned i = 0; i < r->u.sample.depth; i++)
			fprintf(o, "%s0x%" PRIx64, i ? "," : "", r->u.sample.frames[i]);
		if (!r->u.sample.depth)
			fputc('-', o);
		put_ctr(o, r->u.sample.nctr, r->u.sample.ctr_ids, r->u.sample.ctr);
		break;
	case TRACE_REC_STACK_DEF:
		fprintf(o, " ref=%" PRIu32 " depth=%u", r->u.stack_def.stack_ref, r->u.stack_def.depth);
		break;
	case TRACE_REC_MARKER:
		fprintf(o, " tick=%" PRIu64 " text=", r->tick);
		put_str(o, r->u.marker.text);
		break;
	case TRACE_REC_SAMPLE_COST:
		fprintf(o, " cost_ns=%" PRIu64 " lag_ns=%" PRIu64, r->u.sample_cost.cost_ns,
		        r->u.sample_cost.lag_ns);
		if (r->u.sample_cost.delivery_ns != TRACE_UNKNOWN)
			fprintf(o, " delivery_ns=%" PRIu64, r->u.sample_cost.delivery_ns);
		break;
	case TRACE_REC_PAUSE: fprintf(o, " pause_ns=%" PRIu64, r->u.pause.pause_ns); break;
	case TRACE_REC_HOOK_COST:
		if (r->u.hook_cost.after_ticks != TRACE_UNKNOWN)
			fprintf(o, " after_ticks=%" PRIu64, r->u.hook_cost.after_ticks);
		if (r->u.hook_cost.before_ticks != TRACE_UNKNOWN)
			fprintf(o, " before_ticks=%" PRIu64, r->u.hook_cost.before_ticks);
		break;
	default: fprintf(o, " kind=%u len=%zu", r->kind, r->u.extended.len); break;
	}
	fputc('\n', o);
}

int cli__cmd_dump(int argc, char **argv)
{
	int stats = 0;
	const char *path = NULL;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--stats"))
			stats = 1;
		else if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			printf("Usage: fold dump [--stats] TRACE\nPrints every record of TRACE, one per "
			       "line.\n");
			return 0;
		} else if (argv[i][0] == '-' && argv[i][1]) {
			fprintf(stderr, "fold dump: unknown option '%s' (expected --stats)\n", argv[i]);
			return 2;
		} else if (path) {
			fprintf(stderr, "fold dump: one trace at a time (got '%s' and '%s')\n", path,
			        argv[i]);
			return 2;
		} else {
			path = argv[i];
		}
	}
	if (!path) {
		fprintf(stderr, "fold dump: no trace given\nUsage: fold dump [--stats] TRACE\n");
		return 2;
	}
	trace_reader *r;
	char msg[512];
	int rc = trace_reader_open(&r, path, trace_diag_stderr, NULL, msg, sizeof msg);
	if (rc) {
		cli__say(msg);
		return 1;
	}
	printf("# %s: fold trace format %u.%u\n", path, trace_reader_version_major(r),
	       trace_reader_version_minor(r));
	trace_record rec;
	while ((rc = trace_reader_next(r, &rec)) == 1)
		dump_record(stdout, &rec);
	if (rc < 0)
		fprintf(stderr, "fold: %s: %s\n", path, strerror(-rc));
	const trace_read_stats *s = trace_reader_stats(r);
	if (stats)
		printf("# stats file_bytes=%" PRIu64 " chunks_ok=%" PRIu64 " chunks_damaged=%" PRIu64
		       " chunks_missing=%" PRIu64 " bytes_skipped=%" PRIu64 " records=%" PRIu64
		       " records_unknown=%" PRIu64 " records_damaged=%" PRIu64 " truncated=%d\n",
		       s->file_bytes, s->chunks_ok, s->chunks_damaged, s->chunks_missing, s->bytes_skipped,
		       s->records, s->records_unknown, s->records_damaged, s->truncated);
	int lost = trace_reader_loss_summary(r, msg, sizeof msg);
	if (lost)
		cli__say(msg);
	trace_reader_close(r);
	return rc < 0 ? 1 : 0;
}
