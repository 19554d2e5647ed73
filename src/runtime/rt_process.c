/* rt_process.c: the life of the measured process.
 *
 * Owns initialisation (constructor, or lazily from the first hook), the
 * process stream (stream 0: INFO, CLOCK, definitions, statistics), the region
 * registry, quiescing all threads, and the final flush with its one-line
 * summary.
 *
 * Invariants:
 *  - Initialisation runs once; a hook that fires during it on the initialising
 *    thread gets NULL from fold__thread() instead of recursing.
 *  - The final flush happens once per process image (destructor, _exit, or an
 *    exec that succeeds); hooks after it are ignored.
 *  - Lock order: threads_lock, then reg_lock, app_lock, mod_lock, proc_lock,
 *    grow_lock (fold_rt.h); all of them, and the locks other modules
 *    register, are held across fork (fold_atfork_*).
 */
#include "fold_rt.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/membarrier.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fold_version.h"
#include "trace_chunk.h"

fold_rt fold__rt = {.fd = -1, .rank = -1, .size = -1, .proc_lock = PTHREAD_MUTEX_INITIALIZER};

const char *const fold__drop_names[FOLD_DROP_NREASONS] = {
    "in_runtime", "in_dlopen", "buffer_full", "unwind_failed", "paused", "stopped", "signal_blocked",
};

/* ---------------------------------------------------------------- process stream */

/* Runs an encoder call on the process stream, moving to a fresh buffer when
 * the current one is full. Caller holds proc_lock. */
#define PROC_PUT(call)                                                                                     \
	do {                                                                                               \
		trace_enc *enc = &fold__rt.proc_enc;                                                       \
		if (!fold__rt.proc_buf)                                                                    \
			break;                                                                             \
		fold__proc_dirty();                                                                        \
		if ((call) == -ENOSPC) {                                                                   \
			proc_swap();                                                                       \
			(void)(call);                                                                      \
		}                                                                                          \
	} while (0)

static int proc_begin_buf(int may_grow)
{
	fold__rt.proc_buf = fold__buf_claim();
	if (!fold__rt.proc_buf && may_grow) {
		fold__pool_reserve(4);
		fold__rt.proc_buf = fold__buf_claim();
	}
	if (!fold__rt.proc_buf)
		return -ENOMEM;
	fold__rt.proc_buf->stream = TRACE_PROCESS_STREAM;
	return trace_enc_begin(&fold__rt.proc_enc, fold__rt.proc_buf->data, FOLD_BUF_BYTES);
}

static int proc_begin(void) { return proc_begin_buf(1); }

static void proc_seal_locked(void)
{
	fold_buf *b = fold__rt.proc_buf;
	if (!b)
		return;
	fold__rt.proc_buf = NULL;
	fold__proc_clean();
	b->len = (uint32_t)trace_enc_len(&fold__rt.proc_enc);
	b->stream = TRACE_PROCESS_STREAM;
	b->nsamples = 0;
	if (!b->len) { /* nothing to say: keep the sequence gap-free */
		fold__buf_release(b);
		return;
	}
	b->seq = fold__rt.proc_seq++;
	fold__buf_submit(b);
}

static void proc_swap(void)
{
	proc_seal_locked();
	proc_begin();
}

void fold__proc_seal(void)
{
	fold_thread *t = fold__tls_thread;
	if (t)
		t->busy++;
	pthread_mutex_lock(&fold__rt.proc_lock);
	proc_seal_locked();
	proc_begin();
	pthread_mutex_unlock(&fold__rt.proc_lock);
	if (t)
		t->busy--;
}

/* From the periodic flush, maybe in a signal handler: a trylock (one CAS on
 * a default mutex; never waits), no pool growth. The interrupted code of
 * this thread does not hold proc_lock: its guard would be up. */
void fold__proc_seal_try(void)
{
	if (pthread_mutex_trylock(&fold__rt.proc_lock))
		return;
	if (fold__rt.proc_buf) {
		proc_seal_locked();
		proc_begin_buf(0);
	}
	pthread_mutex_unlock(&fold__rt.proc_lock);
}

/* Our own thread's guard goes up while we hold proc_lock, so a sample landing
 * here (whose handler never takes the lock anyway) is counted as in_runtime. */
static fold_thread *proc_lock(void)
{
	fold_thread *t = fold__tls_thread;
	if (t)
		t->busy++;
	pthread_mutex_lock(&fold__rt.proc_lock);
	return t;
}

static void proc_unlock(fold_thread *t)
{
	pthread_mutex_unlock(&fold__rt.proc_lock);
	if (t)
		t->busy--;
}

void fold__proc_info(const char *key, const char *value)
{
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_info(enc, key, value));
	proc_unlock(t);
}

void fold__proc_info_u64(const char *key, uint64_t value)
{
	char v[32];
	snprintf(v, sizeof v, "%llu", (unsigned long long)value);
	fold__proc_info(key, v);
}

void fold__proc_stat(const char *key, uint64_t value)
{
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_stat(enc, key, value));
	proc_unlock(t);
}

void fold__proc_clock(void)
{
	uint64_t tick, mono, real;
	fold__clock_now(&tick, &mono, &real);
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_clock(enc, tick, mono, real));
	proc_unlock(t);
}

void fold__proc_counter_def(uint32_t id, unsigned kind, const char *name)
{
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_counter_def(enc, id, kind, name));
	proc_unlock(t);
}

void fold__proc_counter_missing(const char *name, const char *reason)
{
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_counter_missing(enc, name, reason));
	proc_unlock(t);
}

void fold__proc_module_load(uint32_t id, uint64_t tick, uint64_t bias, const uint8_t *bid, size_t bid_len,
                            const char *path, const trace_segment *segs, unsigned nseg)
{
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_module_load(enc, id, tick, bias, bid, bid_len, path, segs, nseg));
	proc_unlock(t);
}

void fold__proc_module_unload(uint32_t id, uint64_t tick)
{
	fold_thread *t = proc_lock();
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
 * reg_lock, never from a signal handler. */
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
static region_entry *regions;     /* by id - 1 */
static uint32_t nregions, cap_regions;
static uint32_t *region_index;    /* open addressing over hashes, 0 = empty */
static uint32_t index_cap;

static uint64_t region_hash(unsigned kind, uint64_t address, const char *name)
{
	uint64_t h = 0xcbf29ce484222325ull ^ kind;
	h = (h ^ address) * 0x100000001b3ull;
	if (kind != TRACE_REGION_FUNCTION)
		for (const char *p = name; p && *p; p++)
			h = (h ^ (uint8_t)*p) * 0x100000001b3ull;
	return h ^ (h >> 31);
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
	free(region_index);
	region_index = n;
	index_cap = ncap;
	return 0;
}

static void emit_region_def(const region_entry *e)
{
	fold_thread *t = proc_lock();
	PROC_PUT(trace_enc_region_def(enc, e->id, e->kind, e->address, e->name));
	proc_unlock(t);
}

uint32_t fold__region_define(unsigned kind, uint64_t address, const char *name)
{
	if (!name)
		name = "";
	uint64_t h = region_hash(kind, address, name);
	uint32_t id = 0;
	pthread_mutex_lock(&reg_lock);
	if (index_cap) {
		for (uint32_t s = (uint32_t)h & (index_cap - 1); region_index[s]; s = (s + 1) & (index_cap - 1)) {
			region_entry *e = &regions[region_index[s] - 1];
			if (e->hash == h && region_equal(e, kind, address, name)) {
				id = e->id;
				goto out;
			}
		}
	}
	if ((nregions + 1) * 2 > index_cap && index_grow())
		goto out;
	if (nregions == cap_regions) {
		uint32_t ncap = cap_regions ? cap_regions * 2 : 64;
		region_entry *n = realloc(regions, ncap * sizeof *n);
		if (!n)
			goto out;
		regions = n;
		cap_regions = ncap;
	}
	char *copy = strdup(name);
	if (!copy)
		goto out;
	region_entry *e = &regions[nregions];
	*e = (region_entry){.id = nregions + 1, .kind = kind, .address = address, .name = copy, .hash = h};
	nregions++;
	uint32_t s = (uint32_t)h & (index_cap - 1);
	while (region_index[s])
		s = (s + 1) & (index_cap - 1);
	region_index[s] = nregions;
	id = e->id;
	if (atomic_load(&fold__rt.phase) >= FOLD_INITIALIZING)
		emit_region_def(e);
out:
	pthread_mutex_unlock(&reg_lock);
	return id;
}

static void reemit_regions(void)
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
	fold__proc_info("cmdline", out);
}

static void write_infos(pid_t parent_pid_for_fork)
{
	char buf[4096];
	fold__proc_info("fold.version", FOLD_VERSION);
	if (gethostname(buf, sizeof buf - 1) == 0) {
		buf[sizeof buf - 1] = 0;
		fold__proc_info("host", buf);
	}
	fold__proc_info_u64("pid", (uint64_t)getpid());
	fold__proc_info_u64("ppid", (uint64_t)getppid());
	ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
	if (n > 0) {
		buf[n] = 0;
		fold__proc_info("exe", buf);
	}
	info_cmdline();
	if (getcwd(buf, sizeof buf))
		fold__proc_info("cwd", buf);
	if (fold__rt.rank >= 0)
		fold__proc_info_u64("mpi.rank", (uint64_t)fold__rt.rank);
	if (fold__rt.size >= 0)
		fold__proc_info_u64("mpi.size", (uint64_t)fold__rt.size);
	fold__proc_info_u64("start.realtime_ns", fold__rt.clock.real0);
	fold__proc_info_u64("start.monotonic_ns", fold__rt.clock.mono0);
	fold__proc_info("clock.source", fold__rt.clock.tsc ? "tsc" : "monotonic");
	fold__proc_info_u64("clock.tick_hz", fold__rt.clock.tick_hz);
	const fold_config *c = &fold__rt.cfg;
	static const char *const src_names[] = {"off", "time", "time", "papi"};
	fold__proc_info("sample.source", src_names[c->source]);
	if (c->source == FOLD_SOURCE_PAPI && fold__rt.source)
		fold__proc_info("sample.backend", fold__rt.source == &fold__source_perf ? "perf_event" : "papi");
	fold__proc_info("sample.event", c->source == FOLD_SOURCE_TIME      ? "CLOCK_MONOTONIC"
	                                : c->source == FOLD_SOURCE_CPUTIME ? "CLOCK_THREAD_CPUTIME_ID"
	                                : c->source == FOLD_SOURCE_PAPI    ? c->sample_event
	                                                                   : "");
	fold__proc_info_u64("sample.period", c->period);
	snprintf(buf, sizeof buf, "%g", c->jitter);
	fold__proc_info("sample.jitter", buf);
	fold__proc_info_u64("sample.seed", c->seed);
	fold__proc_info_u64("sample.signal", (uint64_t)c->signo);
	fold__proc_info_u64("stack.depth", c->stack_depth);
	if (parent_pid_for_fork)
		fold__proc_info_u64("fork.parent_pid", (uint64_t)parent_pid_for_fork);
	fold__proc_info_u64("exec.generation", c->exec_generation);
}

/* ---------------------------------------------------------------- rank */

static void rank_from_env(void)
{
	static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK", "SLURM_PROCID"};
	static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
	for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
		const char *v = getenv(rank_vars[i]);
		char *end;
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0 && r < (1L << 30)) {
				fold__rt.rank = (int)r;
				break;
			}
		}
	}
	for (size_t i = 0; i < sizeof size_vars / sizeof size_vars[0]; i++) {
		const char *v = getenv(size_vars[i]);
		char *end;
		if (v && *v) {
			long s = strtol(v, &end, 10);
			if (!*end && s > 0 && s < (1L << 30)) {
				fold__rt.size = (int)s;
				break;
			}
		}
	}
}

void fold__rank_known(int rank, int size)
{
	if (atomic_load(&fold__rt.phase) != FOLD_RUNNING)
		return;
	int old_rank = fold__rt.rank;
	fold__rt.rank = rank;
	fold__rt.size = size;
	if (rank >= 0)
		fold__proc_info_u64("mpi.rank", (uint64_t)rank);
	if (size >= 0)
		fold__proc_info_u64("mpi.size", (uint64_t)size);
	fold__proc_clock();
	if (!fold__rt.path_has_rank || old_rank == rank)
		return;
	/* The name was made before the rank was known: give the file its real name
	 * (link + unlink never overwrites an existing file). */
	char pattern[sizeof fold__rt.path];
	int is_default;
	if (fold__output_pattern(fold__rt.cfg.output, 1, pattern, sizeof pattern, &is_default))
		return;
	char path[sizeof fold__rt.path];
	for (unsigned gen = 0; gen < 1000; gen++) {
		int has_gen, has_rank;
		if (fold__output_expand(pattern, gen, path, sizeof path, &has_gen, &has_rank))
			return;
		if (link(fold__rt.path, path) == 0) {
			unlink(fold__rt.path);
			snprintf(fold__rt.path, sizeof fold__rt.path, "%s", path);
			return;
		}
		if (errno != EEXIST)
			return;
	}
}

/* ---------------------------------------------------------------- init */

static void fold_atfork_prepare(void);
static void fold_atfork_parent(void);
static void fold_atfork_child(void);

/* A relative FOLD_OUTPUT is made absolute in the environment too, so the
 * processes this one starts (exec, system, posix_spawn) write where it was
 * meant even after a chdir. Only while the process starts (the main thread,
 * from our constructor), when no other thread can be reading the
 * environment. */
static void absolute_output_env(void)
{
	const char *v = getenv("FOLD_OUTPUT");
	if (!v || !*v || v[0] == '/' || fold__rt.init_tid != getpid())
		return;
	char abs_pattern[1600];
	int is_default;
	if (fold__output_pattern(v, 0, abs_pattern, sizeof abs_pattern, &is_default))
		return;
	if (is_default) { /* a directory: keep it one, absolute */
		char *slash = strrchr(abs_pattern, '/');
		if (slash)
			slash[1] = 0;
	}
	setenv("FOLD_OUTPUT", abs_pattern, 1);
}

static int open_output(void)
{
	char pattern[sizeof fold__rt.path];
	int is_default;
	int fd = fold__output_pattern(fold__rt.cfg.output, fold__rt.rank >= 0, pattern, sizeof pattern, &is_default);
	if (fd == 0)
		fd = fold__output_open(pattern, fold__rt.path, sizeof fold__rt.path, &fold__rt.path_has_rank);
	if (fd < 0) {
		fold__warn("cannot create the trace file from FOLD_OUTPUT=\"%s\" (%s): this run is not measured",
		           pattern, strerror(-fd));
		return fd;
	}
	if (is_default && fold__rt.rank < 0)
		fold__rt.path_has_rank = 1; /* the default gains the rank once MPI_Init tells it */
	fold__fd_move(fd, &fold__rt.fd);
	fd = fold__rt.fd;
	return trace_file_write_header(fd);
}

static void start_process_stream(pid_t fork_parent)
{
	fold__rt.proc_seq = 0;
	trace_enc_init(&fold__rt.proc_enc, NULL);
	proc_begin();
	write_infos(fork_parent);
	fold__proc_clock();
}

int fold__init(void)
{
	int expect = FOLD_UNINIT;
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (!atomic_compare_exchange_strong(&fold__rt.phase, &expect, FOLD_INITIALIZING)) {
		if (expect == FOLD_INITIALIZING && fold__rt.init_tid != me) {
			while (atomic_load(&fold__rt.phase) == FOLD_INITIALIZING)
				sched_yield();
		}
		return atomic_load(&fold__rt.phase) == FOLD_RUNNING;
	}
	fold__rt.init_tid = me;
	fold__rt.pid = getpid();
	fold__config_load(&fold__rt.cfg);
	fold__output_remember_cwd();
	absolute_output_env();
	rank_from_env();
	fold__clock_init(&fold__rt.clock, fold__rt.cfg.clock_tsc);
	fold__flush_init();
	if (fold__pool_init(4) || open_output()) {
		atomic_store(&fold__rt.phase, FOLD_FINISHED);
		return 0;
	}
	start_process_stream(0);
	fold__counters_init();
	fold__modules_scan();
	reemit_regions();
	fold__signals_init();
	if (fold__rt.cfg.stack_depth && fold__rt.cfg.source != FOLD_SOURCE_OFF)
		fold__unwind_warm();
	syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
	static int atfork_done;
	if (!atfork_done) {
		pthread_atfork(fold_atfork_prepare, fold_atfork_parent, fold_atfork_child);
		atfork_done = 1;
	}
	/* Metadata on disk from the start: a SIGKILL keeps the clock, the
	 * module map and the definitions. */
	fold__proc_seal();
	atomic_store(&fold__rt.phase, FOLD_RUNNING);
	fold__thread_begin(0, getpid() == me ? "main" : "adopted");
	return 1;
}

/* ---------------------------------------------------------------- quiesce */

static void memory_barrier_all_threads(void)
{
	/* Every thread passes a full barrier, so a busy flag raised before it is
	 * visible and a guard raised after it sees stop. */
	unsigned n = fold__thread_slots(), others = 0;
	for (unsigned i = 0; i < n; i++) {
		fold_thread *t = fold__thread_slot(i);
		others += t != fold__tls_thread && atomic_load(&t->alive);
	}
	if (!others)
		return;
	/* Expedited (IPIs, microseconds) when registered at init; the global
	 * command waits for an RCU grace period (milliseconds). */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0 &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0) {
		struct timespec ts = {0, 2000000};
		nanosleep(&ts, NULL);
	}
}

void fold__quiesce(void)
{
	fold_thread *self = fold__tls_thread;
	pthread_mutex_lock(&fold__threads_lock);
	atomic_store(&fold__rt.stop, 1);
	memory_barrier_all_threads();
	unsigned n = fold__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (t == self || !atomic_load(&t->alive))
			continue;
		for (int spin = 0; t->busy; spin++) {
			if (spin > 200000) { /* ~ seconds: a thread stuck inside us; give up on it */
				fold__warn("thread %d did not leave the runtime; its last buffer may be lost", (int)t->tid);
				break;
			}
			sched_yield();
		}
	}
}

void fold__unquiesce(void)
{
	unsigned n = fold__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (atomic_load(&t->alive))
			fold__thread_fresh_buffer(t);
	}
	atomic_store(&fold__rt.stop, 0);
	pthread_mutex_unlock(&fold__threads_lock);
}

static void seal_all_threads(void)
{
	unsigned n = fold__thread_slots();
	fold__pool_reserve(n + 4);
	for (unsigned i = 0; i < n; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (atomic_load(&t->alive) && t->cur)
			fold__thread_seal(t);
	}
}

static uint64_t total_samples(uint64_t dropped[FOLD_DROP_NREASONS], uint64_t *unbalanced)
{
	uint64_t taken = atomic_load(&fold__rt.samples_taken);
	*unbalanced = atomic_load(&fold__rt.unbalanced);
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		dropped[r] = atomic_load(&fold__rt.dropped[r]);
	unsigned n = fold__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (!atomic_load(&t->alive))
			continue;
		taken += t->samples_taken;
		*unbalanced += t->unbalanced;
		for (int r = 0; r < FOLD_DROP_NREASONS; r++)
			dropped[r] += t->dropped[r];
	}
	return taken;
}

static void write_end_records(void)
{
	uint64_t tick, mono, real;
	fold__clock_now(&tick, &mono, &real);
	if (fold__rt.clock.tsc && mono > fold__rt.clock.mono0 + 1000000) {
		double hz = (double)(tick - fold__rt.clock.tick0) * 1e9 / (double)(mono - fold__rt.clock.mono0);
		fold__proc_info_u64("clock.tick_hz", (uint64_t)(hz + 0.5));
	}
	fold__proc_clock();
	uint64_t dropped[FOLD_DROP_NREASONS], unbalanced;
	uint64_t taken = total_samples(dropped, &unbalanced);
	fold__proc_stat("samples.taken", taken);
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		if (dropped[r]) {
			char key[64];
			snprintf(key, sizeof key, "samples.dropped.%s", fold__drop_names[r]);
			fold__proc_stat(key, dropped[r]);
		}
	if (unbalanced)
		fold__proc_stat("regions.unbalanced", unbalanced);
	uint64_t hticks = atomic_load(&fold__rt.handler_ticks);
	for (unsigned i = 0; i < fold__thread_slots(); i++) {
		fold_thread *t = fold__thread_slot(i);
		if (atomic_load(&t->alive))
			hticks += t->handler_ticks;
	}
	fold__proc_stat("samples.handler_ticks", hticks);
	fold__proc_stat("threads", atomic_load(&fold__rt.threads_total));
	fold__proc_stat("bytes.raw", atomic_load(&fold__rt.bytes_raw));
	fold__proc_stat("chunks.written", atomic_load(&fold__rt.chunks_written));
	/* Losses so far (a later failure cannot be recorded in the file it hits). */
	if (atomic_load(&fold__rt.chunks_lost)) {
		fold__proc_stat("chunks.lost", atomic_load(&fold__rt.chunks_lost));
		fold__proc_stat("samples.lost_writing", atomic_load(&fold__rt.samples_lost));
	}
	if (atomic_load(&fold__rt.threads_unmeasured))
		fold__proc_stat("threads.unmeasured", atomic_load(&fold__rt.threads_unmeasured));
	struct stat st;
	if (fstat(fold__rt.fd, &st) == 0)
		fold__proc_stat("bytes.written", (uint64_t)st.st_size);
}

static void human_bytes(uint64_t b, char *out, size_t len)
{
	if (b < 10240)
		snprintf(out, len, "%llu B", (unsigned long long)b);
	else if (b < 10ull << 20)
		snprintf(out, len, "%.1f KiB", (double)b / 1024);
	else
		snprintf(out, len, "%.1f MiB", (double)b / 1048576);
}

static void summary(void)
{
	if (fold__rt.cfg.quiet)
		return;
	uint64_t dropped[FOLD_DROP_NREASONS], unbalanced, ndrop = 0;
	uint64_t taken = total_samples(dropped, &unbalanced);
	char why[256] = "";
	size_t o = 0;
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		if (dropped[r]) {
			ndrop += dropped[r];
			o += (size_t)snprintf(why + o, sizeof why - o, "%s%llu %s", o ? ", " : ": ",
			                      (unsigned long long)dropped[r], fold__drop_names[r]);
			if (o >= sizeof why)
				break;
		}
	struct stat st;
	char size[32] = "?";
	if (stat(fold__rt.path, &st) == 0)
		human_bytes((uint64_t)st.st_size, size, sizeof size);
	uint64_t lost = atomic_load(&fold__rt.samples_lost), lost_chunks = atomic_load(&fold__rt.chunks_lost);
	char lost_txt[300] = "";
	if (lost_chunks)
		snprintf(lost_txt, sizeof lost_txt, "; %llu more samples in %llu chunk(s) could not be written (%s)",
		         (unsigned long long)lost, (unsigned long long)lost_chunks, strerror(fold__rt.write_errno));
	char unmeasured[160] = "";
	if (atomic_load(&fold__rt.threads_unmeasured))
		snprintf(unmeasured, sizeof unmeasured,
		         ", %llu more not measured (no free trace buffer: over %u threads alive at once)",
		         (unsigned long long)atomic_load(&fold__rt.threads_unmeasured), FOLD_MAX_BUFS - 1);
	/* Only what reached the file counts as written. */
	fold__warn("wrote %s (%s): %llu samples, %llu dropped%s; %llu thread(s)%s%s", fold__rt.path, size,
	           (unsigned long long)(taken >= lost ? taken - lost : 0), (unsigned long long)ndrop, why,
	           (unsigned long long)atomic_load(&fold__rt.threads_total), unmeasured, lost_txt);
}

void fold__finish(const char *why)
{
	(void)why;
	if (getpid() != fold__rt.pid) /* a vfork child shares our memory: hands off */
		return;
	int expect = FOLD_RUNNING;
	if (!atomic_compare_exchange_strong(&fold__rt.phase, &expect, FOLD_FINISHED))
		return;
	fold_thread *self = fold__tls_thread;
	if (self)
		self->busy++;
	fold__quiesce();
	unsigned n = fold__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (atomic_load(&t->alive))
			fold__sampling_thread_stop(t);
	}
	if (self && self->cur) {
		uint64_t tick = fold__tick();
		if (trace_enc_thread_end(&self->enc, tick) == -ENOSPC && fold__thread_swap_buffer(self) == 0)
			trace_enc_thread_end(&self->enc, tick);
	}
	seal_all_threads();
	/* Threads' data first, so the statistics count it. */
	fold__pool_drain(1);
	write_end_records();
	fold__proc_seal();
	fold__pool_drain(1);
	fold__fd_close(&fold__rt.fd);
	summary();
	pthread_mutex_unlock(&fold__threads_lock);
}

/* ---------------------------------------------------------------- exec checkpoints */

void fold__checkpoint(int for_exec)
{
	fold_thread *self = fold__tls_thread;
	if (self)
		self->busy++;
	if (!for_exec) {
		/* system()/posix_spawn: our threads go on; just get data on disk. */
		if (self && self->cur) {
			fold__thread_seal(self);
			fold__thread_fresh_buffer(self);
		}
		fold__proc_seal();
		fold__pool_drain(1);
		return;
	}
	fold__quiesce();
	if (self && self->cur) {
		uint64_t tick = fold__tick();
		char text[64];
		snprintf(text, sizeof text, "exec (generation %u)", fold__rt.cfg.exec_generation + 1);
		if (trace_enc_marker(&self->enc, tick, text) == -ENOSPC && fold__thread_swap_buffer(self) == 0)
			trace_enc_marker(&self->enc, tick, text);
	}
	seal_all_threads();
	fold__pool_drain(1);
	write_end_records();
	fold__proc_seal();
	fold__pool_drain(1);
	fold__signals_before_exec();
}

void fold__checkpoint_done(int for_exec)
{
	fold_thread *self = fold__tls_thread;
	if (for_exec) {
		/* The exec failed: we are still this program. */
		fold__signals_after_exec_failed();
		fold__unquiesce();
	}
	if (self)
		self->busy--;
}

/* ---------------------------------------------------------------- fork */

#define MAX_FORK_LOCKS 16
static pthread_mutex_t *fork_locks[MAX_FORK_LOCKS];
static _Atomic unsigned nfork_locks;
static pthread_mutex_t fork_locks_lock = PTHREAD_MUTEX_INITIALIZER;

int fold__fork_lock_register(pthread_mutex_t *lock)
{
	int rc = 0;
	pthread_mutex_lock(&fork_locks_lock);
	unsigned n = atomic_load(&nfork_locks);
	for (unsigned i = 0; i < n; i++)
		if (fork_locks[i] == lock)
			goto out;
	if (n == MAX_FORK_LOCKS) {
		rc = -ENOSPC;
		goto out;
	}
	fork_locks[n] = lock;
	atomic_store(&nfork_locks, n + 1);
out:
	pthread_mutex_unlock(&fork_locks_lock);
	return rc;
}

/* The core locks after threads_lock, in order. */
static pthread_mutex_t *const core_locks[] = {&reg_lock, &fold__app_lock, &fold__mod_lock, &fold__rt.proc_lock,
                                              &fold__grow_lock};
#define NCORE (sizeof core_locks / sizeof core_locks[0])

/* fold__rt.stop as it was before a fork raised it. */
static int fork_saved_stop;

/* No other thread may be inside its sample handler at the fork: its
 * unwinder holds libunwind's lock for a moment (a thread's first sample
 * creates its cache under it), and the child would inherit that lock taken
 * and block in its own first sample. New samples are dropped (stop); those
 * in flight take microseconds and are waited for. A thread busy in an API
 * call that waits for a lock the forking thread holds is not waited for
 * beyond the bound (no handler of it can be in flight then). */
static void wait_for_handlers(const fold_thread *self)
{
	unsigned n = fold__thread_slots();
	int budget = 20000; /* sched_yield()s in all: a few ms at most */
	for (unsigned i = 0; i < n && budget > 0; i++) {
		fold_thread *t = fold__thread_slot(i);
		if (t == self || !atomic_load(&t->alive))
			continue;
		while (t->busy && budget-- > 0)
			sched_yield();
	}
}

static void fold_atfork_prepare(void)
{
	/* Registered (outer) locks first; our busy guard goes up only once we
	 * own threads_lock, so a quiesce in progress, which holds it and waits
	 * for busy threads, is never waiting for us. */
	pthread_mutex_lock(&fork_locks_lock);
	unsigned n = atomic_load(&nfork_locks);
	for (unsigned i = 0; i < n; i++)
		pthread_mutex_lock(fork_locks[i]);
	pthread_mutex_lock(&fold__threads_lock);
	fold_thread *self = fold__tls_thread;
	if (self)
		self->busy++;
	fork_saved_stop = atomic_exchange(&fold__rt.stop, 1);
	memory_barrier_all_threads();
	wait_for_handlers(self);
	for (unsigned i = 0; i < NCORE; i++)
		pthread_mutex_lock(core_locks[i]);
}

static void unlock_registered(void)
{
	unsigned n = atomic_load(&nfork_locks);
	while (n--)
		pthread_mutex_unlock(fork_locks[n]);
	pthread_mutex_unlock(&fork_locks_lock);
}

static void fold_atfork_parent(void)
{
	atomic_store(&fold__rt.stop, fork_saved_stop);
	for (unsigned i = NCORE; i--;)
		pthread_mutex_unlock(core_locks[i]);
	fold_thread *self = fold__tls_thread;
	if (self)
		self->busy--;
	pthread_mutex_unlock(&fold__threads_lock);
	unlock_registered();
}

static void fold_atfork_child(void)
{
	fold_thread *self = fold__tls_thread;
	atomic_store(&fold__rt.stop, fork_saved_stop);
	/* This thread took every lock: they are free again, whatever the
	 * parent's other threads (gone here) were doing. */
	for (unsigned i = 0; i < NCORE; i++)
		pthread_mutex_init(core_locks[i], NULL);
	unlock_registered();
	pid_t parent = fold__rt.pid;
	fold__rt.pid = getpid();
	if (atomic_load(&fold__rt.phase) != FOLD_RUNNING) {
		pthread_mutex_init(&fold__threads_lock, NULL);
		if (self)
			self->busy--;
		return;
	}
	/* Fresh state: the parent owns everything recorded so far. */
	fold__fd_close(&fold__rt.fd);
	if (fold__rt.proc_buf)
		fold__buf_release(fold__rt.proc_buf);
	fold__rt.proc_buf = NULL;
	fold__threads_after_fork(self);
	fold__pool_after_fork();
	atomic_store(&fold__rt.threads_total, 0);
	atomic_store(&fold__rt.samples_taken, 0);
	atomic_store(&fold__rt.handler_ticks, 0);
	atomic_store(&fold__rt.unbalanced, 0);
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		atomic_store(&fold__rt.dropped[r], 0);
	atomic_store(&fold__rt.bytes_raw, 0);
	atomic_store(&fold__rt.chunks_written, 0);
	atomic_store(&fold__rt.chunks_lost, 0);
	atomic_store(&fold__rt.samples_lost, 0);
	atomic_store(&fold__rt.threads_unmeasured, 0);
	fold__rt.write_errno = 0;
	fold__clock_now(&fold__rt.clock.tick0, &fold__rt.clock.mono0, &fold__rt.clock.real0);
	if (open_output()) {
		atomic_store(&fold__rt.phase, FOLD_FINISHED);
		if (self) {
			if (self->cur)
				fold__buf_release(self->cur);
			self->cur = NULL;
			fold__tls_thread = NULL;
		}
		return;
	}
	start_process_stream(parent);
	fold__counters_init();
	fold__modules_reset_after_fork();
	fold__modules_scan();
	reemit_regions();
	fold__proc_seal();
	if (self) {
		/* The forking thread continues as stream 1 of the new file. */
		if (self->cur)
			fold__buf_release(self->cur);
		self->cur = NULL;
		self->stream = fold__next_stream();
		self->parent_stream = 0;
		self->seq = 0;
		self->tid = (pid_t)syscall(SYS_gettid);
		self->samples_taken = 0;
		self->handler_ticks = 0;
		memset(self->dropped, 0, sizeof self->dropped);
		self->unbalanced = 0;
		self->napp_set = 0;
		trace_enc_init(&self->enc, self->stacks);
		fold__thread_fresh_buffer(self);
		trace_enc_thread_start(&self->enc, (uint64_t)self->tid, 0, fold__tick(), "main");
		atomic_store(&fold__rt.threads_total, 1);
		self->timer_ok = 0; /* POSIX timers are not inherited */
		self->papi_eventset = -1;
		if (self->sample_fd >= 0) /* the parent thread's event */
			fold__fd_close(&self->sample_fd);
		if (fold__rt.source == &fold__source_papi) {
			fold__papi_after_fork();
			if (fold__rt.source->configure()) {
				fold__rt.cfg.source = FOLD_SOURCE_OFF;
				fold__proc_info("sample.source", "off");
			}
		}
		fold__counters_thread_start(self);
		fold__counter_set_refresh(self);
		self->last_cpu_ns = fold__cpu_base(self);
		fold__sampling_thread_start(self);
	}
	pthread_mutex_init(&fold__threads_lock, NULL);
	if (self)
		self->busy--;
}

/* ---------------------------------------------------------------- ctor/dtor */

__attribute__((constructor)) static void fold_constructor(void) { fold__init(); }
__attribute__((destructor)) static void fold_destructor(void) { fold__finish("exit"); }
