/* rt_stream.c: the process stream and the region registry.
 *
 * Owns stream 0 of the trace file: its buffers (under rt__proc.proc_lock),
 * the INFO records a new trace file starts with, CLOCK, counter and module
 * definitions, statistics; and the region registry, which gives every region
 * (kind, address, name) one id per process and writes its definition into
 * the process stream, again into a fork child's file (rt__regions_reemit).
 *
 * Invariants:
 *  - Process-stream records are written under rt__proc.proc_lock, never from
 *    a signal handler (rt__proc_seal_try only trylocks and seals).
 *  - A region id, once given, names the same region for the life of the
 *    process image; a fork child re-emits every definition into its file.
 *  - rt__reg_lock comes before rt__proc.proc_lock (lock order, fold_rt.h).
 */
#include "fold_rt.h"
#include "util.h" /* util_grow, util_hash.h: header-only */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fold_version.h"
#include "trace_chunk.h"

/* ---------------------------------------------------------------- process stream */

/* Runs an encoder call on the process stream, moving to a fresh buffer when
 * the current one is full. Caller holds proc_lock. */
#define PROC_PUT(call)                                                                                       \
	do {                                                                                                 \
		trace_enc *enc = &rt__proc.proc_enc;                                                         \
		if (!rt__proc.proc_buf)                                                                      \
			break;                                                                               \
		rt__proc_dirty();                                                                            \
		if ((call) == -ENOSPC) {                                                                     \
			proc_swap();                                                                         \
			(void)(call);                                                                        \
		}                                                                                            \
	} while (0)

static int proc_begin_buf(int may_grow)
{
	rt__proc.proc_buf = rt__buf_claim();
	if (!rt__proc.proc_buf && may_grow) {
		rt__pool_reserve(4);
		rt__proc.proc_buf = rt__buf_claim();
	}
	if (!rt__proc.proc_buf)
		return -ENOMEM;
	rt__proc.proc_buf->stream = TRACE_PROCESS_STREAM;
	rt__proc.proc_buf->seq = rt__proc.proc_seq; /* for the live file's reader */
	int rc = trace_enc_begin(&rt__proc.proc_enc, rt__proc.proc_buf->data, FOLD_BUF_BYTES);
	trace_enc_publish(&rt__proc.proc_enc, &rt__proc.proc_buf->len);
	return rc;
}

static int proc_begin(void) { return proc_begin_buf(1); }

static void proc_seal_locked(void)
{
	rt_buf *b = rt__proc.proc_buf;
	if (!b)
		return;
	rt__proc.proc_buf = NULL;
	rt__proc_clean();
	rt__proc.proc_enc.published = NULL;
	b->len = (uint32_t)trace_enc_len(&rt__proc.proc_enc);
	b->stream = TRACE_PROCESS_STREAM;
	b->nsamples = 0;
	if (!b->len) { /* nothing to say: keep the sequence gap-free */
		rt__buf_release(b);
		return;
	}
	b->seq = rt__proc.proc_seq++;
	rt__buf_submit(b);
}

static void proc_swap(void)
{
	proc_seal_locked();
	proc_begin();
}

void rt__proc_seal(void)
{
	rt_thread *t = rt__tls_thread;
	if (t)
		t->busy++;
	rt__lock(&rt__proc.proc_lock);
	proc_seal_locked();
	proc_begin();
	rt__unlock(&rt__proc.proc_lock);
	if (t)
		t->busy--;
}

/* From the periodic flush, maybe in a signal handler: a trylock (one CAS on
 * a default mutex; never waits), no pool growth. The interrupted code of
 * this thread does not hold proc_lock: its guard would be up. */
void rt__proc_seal_try(void)
{
	if (rt__trylock(&rt__proc.proc_lock))
		return;
	if (rt__proc.proc_buf) {
		proc_seal_locked();
		proc_begin_buf(0);
	}
	rt__unlock(&rt__proc.proc_lock);
}

/* Our own thread's guard goes up while we hold proc_lock, so a sample landing
 * here (whose handler never takes the lock anyway) is counted as in_runtime. */
static rt_thread *proc_lock(void)
{
	rt_thread *t = rt__tls_thread;
	if (t)
		t->busy++;
	rt__lock(&rt__proc.proc_lock);
	return t;
}

static void proc_unlock(rt_thread *t)
{
	rt__unlock(&rt__proc.proc_lock);
	if (t)
		t->busy--;
}

void rt__proc_info(const char *key, const char *value)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_info(enc, key, value));
	proc_unlock(t);
}

int rt__proc_info_try(const char *key, const char *value)
{
	if (rt__trylock(&rt__proc.proc_lock))
		return -EBUSY;
	int rc = -ENOSPC;
	if (rt__proc.proc_buf) {
		rt__proc_dirty();
		rc = trace_enc_info(&rt__proc.proc_enc, key, value);
		if (rc == -ENOSPC) {
			proc_seal_locked();
			if (proc_begin_buf(0) == 0)
				rc = trace_enc_info(&rt__proc.proc_enc, key, value);
		}
	}
	rt__unlock(&rt__proc.proc_lock);
	return rc ? -ENOSPC : 0;
}

void rt__proc_info_u64(const char *key, uint64_t value)
{
	char v[32];
	snprintf(v, sizeof v, "%llu", (unsigned long long)value);
	rt__proc_info(key, v);
}

void rt__proc_stat(const char *key, uint64_t value)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_stat(enc, key, value));
	proc_unlock(t);
}

void rt__proc_clock(void)
{
	uint64_t tick, mono, real;
	rt__clock_now(&tick, &mono, &real);
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_clock(enc, tick, mono, real));
	proc_unlock(t);
}

void rt__proc_counter_def(uint32_t id, unsigned kind, const char *name)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_counter_def(enc, id, kind, name));
	proc_unlock(t);
}

void rt__proc_counter_missing(const char *name, const char *reason)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_counter_missing(enc, name, reason));
	proc_unlock(t);
}

void rt__proc_module_load(uint32_t id, uint64_t tick, uint64_t bias, const uint8_t *bid, size_t bid_len,
                          const char *path, const trace_segment *segs, unsigned nseg)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_module_load(enc, id, tick, bias, bid, bid_len, path, segs, nseg));
	proc_unlock(t);
}

void rt__proc_module_unload(uint32_t id, uint64_t tick)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_module_unload(enc, id, tick));
	proc_unlock(t);
}

/* ---------------------------------------------------------------- regions */

typedef struct region_entry {
	uint32_t id;
	unsigned kind;
	uint64_t address;
	char *name;
	uint64_t hash;
} region_entry;

/* The runtime's own table, not util_hmap (src/util, offline only): libfold.so
 * links none of the offline building blocks, and this registry grows under
 * rt__reg_lock, never from a signal handler. */
pthread_mutex_t rt__reg_lock = PTHREAD_MUTEX_INITIALIZER;
static region_entry *regions;     /* by id - 1 */
static uint32_t nregions;
static size_t cap_regions;
static uint32_t *rt_region_index; /* open addressing over hashes, 0 = empty */
static uint32_t index_cap;

static uint64_t region_hash(unsigned kind, uint64_t address, const char *name)
{
	uint64_t h = util_hash_mix(kind, address);
	return kind == TRACE_REGION_FUNCTION ? h : util_hash_mix(h, util_hash_str(name));
}

static int region_equal(const region_entry *e, unsigned kind, uint64_t address, const char *name)
{
	if (e->kind != kind || e->address != address)
		return 0;
	if (kind == TRACE_REGION_FUNCTION)
		return 1;
	return strcmp(e->name, name ? name : "") == 0;
}

static int index_grow(void)
{
	uint32_t ncap = index_cap ? index_cap * 2 : 256;
	uint32_t *n = calloc(ncap, sizeof *n);
	if (!n)
		return -ENOMEM;
	for (uint32_t i = 0; i < nregions; i++) {
		uint32_t s = (uint32_t)regions[i].hash & (ncap - 1);
		while (n[s])
			s = (s + 1) & (ncap - 1);
		n[s] = i + 1;
	}
	free(rt_region_index);
	rt_region_index = n;
	index_cap = ncap;
	return 0;
}

static void emit_region_def(const region_entry *e)
{
	rt_thread *t = proc_lock();
	PROC_PUT(trace_enc_region_def(enc, e->id, e->kind, e->address, e->name));
	proc_unlock(t);
}

uint32_t rt__region_define(unsigned kind, uint64_t address, const char *name)
{
	if (!name)
		name = "";
	uint64_t h = region_hash(kind, address, name);
	uint32_t id = 0;
	rt__lock(&rt__reg_lock);
	if (index_cap) {
		for (uint32_t s = (uint32_t)h & (index_cap - 1); rt_region_index[s];
		     s = (s + 1) & (index_cap - 1)) {
			region_entry *e = &regions[rt_region_index[s] - 1];
			if (e->hash == h && region_equal(e, kind, address, name)) {
				id = e->id;
				goto out;
			}
		}
	}
	if ((nregions + 1) * 2 > index_cap && index_grow())
		goto out;
	if (util_grow((void **)&regions, &cap_regions, (size_t)nregions + 1, sizeof *regions))
		goto out;
	char *copy = strdup(name);
	if (!copy)
		goto out;
	region_entry *e = &regions[nregions];
	*e = (region_entry){.id = nregions + 1, .kind = kind, .address = address, .name = copy, .hash = h};
	nregions++;
	uint32_t s = (uint32_t)h & (index_cap - 1);
	while (rt_region_index[s])
		s = (s + 1) & (index_cap - 1);
	rt_region_index[s] = nregions;
	id = e->id;
	if (atomic_load(&rt__proc.phase) >= FOLD_INITIALIZING)
		emit_region_def(e);
out:
	rt__unlock(&rt__reg_lock);
	return id;
}

void rt__regions_reemit(void)
{
	for (uint32_t i = 0; i < nregions; i++)
		emit_region_def(&regions[i]);
}

/* ---------------------------------------------------------------- INFO */

static void info_cmdline(void)
{
	int fd = open("/proc/self/cmdline", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char raw[8192];
	ssize_t n = read(fd, raw, sizeof raw - 1);
	close(fd);
	if (n <= 0)
		return;
	raw[n] = 0;
	char out[16384];
	size_t o = 0;
	for (ssize_t i = 0; i < n && o + 8 < sizeof out;) {
		const char *arg = raw + i;
		size_t len = strlen(arg);
		int quote = len == 0;
		for (size_t k = 0; k < len; k++)
			if (!strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./=:,+@%",
			            arg[k]))
				quote = 1;
		if (o)
			out[o++] = ' ';
		if (quote)
			out[o++] = '\'';
		for (size_t k = 0; k < len && o + 6 < sizeof out; k++) {
			if (arg[k] == '\'') {
				memcpy(out + o, "'\\''", 4);
				o += 4;
			} else {
				out[o++] = arg[k];
			}
		}
		if (quote)
			out[o++] = '\'';
		i += (ssize_t)len + 1;
	}
	out[o] = 0;
	rt__proc_info("cmdline", out);
}

static void write_infos(pid_t parent_pid_for_fork)
{
	char buf[4096];
	rt__proc_info("fold.version", FOLD_VERSION);
	if (gethostname(buf, sizeof buf - 1) == 0) {
		buf[sizeof buf - 1] = 0;
		rt__proc_info("host", buf);
	}
	rt__proc_info_u64("pid", (uint64_t)getpid());
	rt__proc_info_u64("ppid", (uint64_t)getppid());
	if (*rt__exe_path())
		rt__proc_info("exe", rt__exe_path());
	info_cmdline();
	if (*rt__start_cwd() && !parent_pid_for_fork)
		rt__proc_info("cwd", rt__start_cwd());
	else if (getcwd(buf, sizeof buf))
		rt__proc_info("cwd", buf);
	if (rt__proc.rank >= 0)
		rt__proc_info_u64("mpi.rank", (uint64_t)rt__proc.rank);
	if (rt__proc.size >= 0)
		rt__proc_info_u64("mpi.size", (uint64_t)rt__proc.size);
	rt__proc_info_u64("start.realtime_ns", rt__proc.clock.real0);
	rt__proc_info_u64("start.monotonic_ns", rt__proc.clock.mono0);
	rt__proc_info("clock.source", rt__proc.clock.tsc ? "tsc" : "monotonic");
	rt__proc_info_u64("clock.tick_hz", rt__proc.clock.tick_hz);
	const rt_config *c = &rt__proc.cfg;
	static const char *const codec_names[] = {"none", "zlib", "zstd"};
	if (c->compress_codec >= 0 && c->compress_codec <= 2) {
		char v[32];
		snprintf(v, sizeof v, "%s:%d", codec_names[c->compress_codec], c->compress_level);
		rt__proc_info("trace.compress", c->compress_codec ? v : "none");
	}
	static const char *const src_names[] = {"off", "time", "time", "papi"};
	rt__proc_info("sample.source", src_names[c->source]);
	if (c->source == FOLD_SOURCE_PAPI && rt__proc.source)
		rt__proc_info("sample.backend", rt__proc.source == &rt__source_perf ? "perf_event" : "papi");
	rt__proc_info("sample.event", c->source == FOLD_SOURCE_TIME      ? "CLOCK_MONOTONIC"
	                              : c->source == FOLD_SOURCE_CPUTIME ? "CLOCK_THREAD_CPUTIME_ID"
	                              : c->source == FOLD_SOURCE_PAPI    ? c->sample_event
	                                                                 : "");
	rt__proc_info_u64("sample.period", c->period);
	snprintf(buf, sizeof buf, "%g", c->jitter);
	rt__proc_info("sample.jitter", buf);
	rt__proc_info_u64("sample.seed", c->seed);
	rt__proc_info_u64("sample.signal", (uint64_t)c->signo);
	rt__proc_info_u64("stack.depth", c->stack_depth);
	if (parent_pid_for_fork)
		rt__proc_info_u64("fork.parent_pid", (uint64_t)parent_pid_for_fork);
	rt__proc_info_u64("exec.generation", c->exec_generation);
}

/* Starts the process stream of a new trace file: its first buffer, the INFO
 * records (fork_parent: the parent's pid in a fork child, else 0), CLOCK. */
void rt__proc_start(pid_t fork_parent)
{
	rt__proc.proc_seq = 0;
	trace_enc_init(&rt__proc.proc_enc, NULL);
	proc_begin();
	write_infos(fork_parent);
	rt__proc_clock();
}
