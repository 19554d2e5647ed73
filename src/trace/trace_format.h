/* trace_format.h: the fold trace file format, version 1 (see docs/trace-format.md).
 *
 * Owns the constants both halves agree on: file magic, chunk layout, record
 * kinds and their field grammar. Nothing here allocates or does I/O.
 *
 * Invariants:
 *  - A file is a 16-byte file header followed by chunks. Every chunk is
 *    self-contained: delta-coding state, the counter set and the stack table
 *    all restart at a chunk boundary, so any intact chunk decodes on its own
 *    and a damaged one costs only itself.
 *  - Stream 0 is the process stream (metadata, definitions, module map,
 *    statistics); streams 1..n are threads, one stream per thread.
 *  - A sample's thread CPU time is stored in microseconds (µs resolution is
 *    ample at any sampling period the runtime allows, and saves ~1.2 bytes a
 *    sample); the encoder takes and the reader returns nanoseconds.
 *  - Record kinds 1..63 have a fixed grammar within a major version. Kinds
 *    64..127 carry a varint body length first, so a reader can skip kinds a
 *    newer minor version added.
 */
#ifndef FOLD_TRACE_FORMAT_H
#define FOLD_TRACE_FORMAT_H

#include <stdint.h>

#define TRACE_FILE_MAGIC "FOLDTRC1" /* 8 bytes, no terminator written */
#define TRACE_FILE_HEADER_SIZE 16
#define TRACE_VERSION_MAJOR 1
#define TRACE_VERSION_MINOR 6
/* "Not measured": an optional field a record does not carry. */
#define TRACE_UNKNOWN UINT64_MAX

#define TRACE_CHUNK_MAGIC 0x4b484346u /* "FCHK" little-endian */
#define TRACE_CHUNK_HEADER_SIZE 32
#define TRACE_CHUNK_FLAG_ZLIB 0x1u
#define TRACE_CHUNK_FLAG_ZSTD 0x2u /* (1.4) a zstd frame; readers before 1.4 skip it as damaged */
/* Largest raw (uncompressed) chunk a reader accepts; writers stay well below. */
#define TRACE_CHUNK_MAX_RAW (16u << 20)

#define TRACE_PROCESS_STREAM 0u

/* The live file, TRACE.live (docs/trace-format.md): libfold's chunk buffers,
 * shared with a file next to the trace while the process runs and removed
 * after its final flush. One that is left behind holds what a process that
 * ended without that flush had not written (exit_group, SIGKILL): a reader
 * takes its slots' chunks that the trace lacks. Little-endian, host
 * layout: a header page, then TRACE_LIVE slots of slot_bytes each. */
#define TRACE_LIVE_MAGIC "FOLDLIV1"
#define TRACE_LIVE_SUFFIX ".live"
#define TRACE_LIVE_HEADER_BYTES 4096u
typedef struct trace_live_header {
	char magic[8];         /* TRACE_LIVE_MAGIC */
	uint32_t version;      /* 1 */
	uint32_t slot_bytes;   /* distance between slots */
	uint32_t data_offset;  /* of a slot's chunk data, from the slot's start */
	uint32_t data_cap;     /* most bytes of chunk data a slot holds */
	uint32_t nslots;       /* slots the file holds (grows) */
	uint32_t reserved;
	uint64_t pid;
} trace_live_header;
/* A slot's start: its state (1 being written, 2 sealed and waiting for the
 * writer, 3 being written to the trace; 0 free), stream, sequence number
 * (a slot being written: the one its chunk will get) and length of whole
 * records (published after each record). */
typedef struct trace_live_slot {
	uint32_t state, index, stream, seq, len;
} trace_live_slot;
enum { TRACE_LIVE_FREE = 0, TRACE_LIVE_CURRENT = 1, TRACE_LIVE_QUEUED = 2, TRACE_LIVE_WRITING = 3 };

/* Most counters one stream may carry in its counter set. */
#define TRACE_MAX_COUNTERS 32
/* Deepest call stack recorded. */
#define TRACE_MAX_DEPTH 256
/* A stack's outermost frame that no code address can be (format 1.6): the
 * runtime did not unwind past the frames before it, because the sample
 * fell inside the dynamic loader (dlopen, dl_iterate_phdr), where unwinding
 * could deadlock, or because the unwinder stopped there. */
#define TRACE_FRAME_NOT_UNWOUND_LOADER 1u
#define TRACE_FRAME_NOT_UNWOUND_FAILED 2u

/* Record kinds. Field grammar after the kind byte; "v" = unsigned LEB128
 * varint, "z" = zigzag signed varint, "s" = varint length + bytes (no NUL). */
enum trace_record_kind {
	/* process stream */
	TRACE_REC_INFO = 1,            /* s key, s value */
	TRACE_REC_CLOCK = 2,           /* v tick, v monotonic_ns, v realtime_ns */
	TRACE_REC_COUNTER_DEF = 3,     /* v id, u8 counter_kind, s name */
	TRACE_REC_COUNTER_MISSING = 4, /* s name, s reason */
	TRACE_REC_REGION_DEF = 5,      /* v id, u8 region_kind, v address, s name */
	TRACE_REC_MODULE_LOAD = 6,     /* v id, v tick, v load_bias, s build_id(raw bytes), s path,
	                                  v nseg, nseg x (v vaddr, v memsz, u8 prot) */
	TRACE_REC_MODULE_UNLOAD = 7,   /* v id, v tick */
	TRACE_REC_STAT = 8,            /* s key, v value */
	TRACE_REC_THROTTLE = 9,        /* v region, v tick, v calls, v mean_ns */

	/* thread streams */
	TRACE_REC_THREAD_START = 16, /* v os_tid, v parent_stream, v tick, s name */
	TRACE_REC_THREAD_END = 17,   /* z dtick */
	TRACE_REC_COUNTER_SET = 18,  /* v n, n x v counter_id */
	TRACE_REC_ENTER = 19,        /* z dtick, v region */
	TRACE_REC_EXIT = 20,         /* z dtick, v region */
	TRACE_REC_ENTER_CTR = 21,    /* z dtick, v region, v n, n x z dvalue */
	TRACE_REC_EXIT_CTR = 22,     /* z dtick, v region, v n, n x z dvalue */
	TRACE_REC_SAMPLE = 23,       /* z dtick, v stack_ref, v cpu_us, v n, n x z dvalue */
	TRACE_REC_STACK_DEF = 24,    /* v stack_ref, v depth, z frame0, (depth-1) x z dframe */
	TRACE_REC_MARKER = 25,       /* z dtick, s text */

	TRACE_REC_FIXED_LAST = 63,
	/* 64..127: v body_len, body (skippable extensions) */
	TRACE_REC_EXTENDED_FIRST = 64,
	TRACE_REC_SAMPLE_COST = 64, /* (1.1) thread: v body_len, v cost_ns, v lag_ns, [v delivery_ns
	                               (1.2)]: what the preceding sample of the stream cost the
	                               program */
	TRACE_REC_PAUSE = 65,       /* (1.3) thread: v body_len, v pause_ns: the runtime stopped the
	                               thread this long right after the stream's preceding record,
	                               writing trace data (not the program's time) */
	TRACE_REC_HOOK_COST = 66,   /* (1.5) thread: v body_len, v what (1: after, 2: before), [v
	                               after_ticks], [v before_ticks]: the measured time of the
	                               compiler hook of the stream's preceding record (an enter or
	                               exit), after its timestamp and before it */
	TRACE_REC_EXTENDED_LAST = 127,
};

enum trace_counter_kind {
	TRACE_COUNTER_HARDWARE = 1,
	TRACE_COUNTER_SOFTWARE = 2,
	TRACE_COUNTER_APP = 3,
};

enum trace_region_kind {
	TRACE_REGION_API = 1,      /* fold_region() */
	TRACE_REGION_FUNCTION = 2, /* -finstrument-functions; address is the function */
	TRACE_REGION_MPI = 3,      /* an MPI call */
	TRACE_REGION_OPENMP = 4,   /* an OpenMP parallel region */
	TRACE_REGION_BURST = 5,    /* computation between MPI calls */
};

/* Flags in the 16-bit flags word of the file header. */
#define TRACE_FILE_FLAG_NONE 0u

const char *trace_record_kind_name(unsigned kind);
const char *trace_counter_kind_name(unsigned kind);
const char *trace_region_kind_name(unsigned kind);

#endif
