/* rt_lifecycle.c: the life of the measured process.
 *
 * Owns initialisation (constructor, or lazily from the first hook), the MPI
 * rank, quiescing all threads, checkpoints before exec, and the final flush
 * with its one-line summary. The state it initialises is rt__proc
 * (rt_state.c); the process stream and the region registry are rt_stream.c,
 * the fork protocol rt_fork.c.
 *
 * Invariants:
 *  - Initialisation runs once; a hook that fires during it on the initialising
 *    thread gets NULL from rt__thread() instead of recursing.
 *  - The final flush happens once per process image (destructor, _exit, or an
 *    exec that succeeds); hooks after it are ignored.
 *  - Lock order: threads_lock, then reg_lock, app_lock, mod_lock, proc_lock,
 *    grow_lock (fold_rt.h); all of them, and the locks other modules
 *    register, are held across fork (rt_fork.c).
 */
#include "fold_rt.h"
#include "rt_sys.h"

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

/* ---------------------------------------------------------------- rank */

static void rank_from_env(void)
{
	static const char *const rank_vars[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
	                                        "SLURM_PROCID"};
	static const char *const size_vars[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_NTASKS"};
	for (size_t i = 0; i < sizeof rank_vars / sizeof rank_vars[0]; i++) {
		const char *v = getenv(rank_vars[i]);
		char *end;
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0 && r < (1L << 30)) {
				rt__proc.rank = (int)r;
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
				rt__proc.size = (int)s;
				break;
			}
		}
	}
}

void rt__rank_known(int rank, int size)
{
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return;
	int old_rank = rt__proc.rank;
	rt__proc.rank = rank;
	rt__proc.size = size;
	if (rank >= 0)
		rt__proc_info_u64("mpi.rank", (uint64_t)rank);
	if (size >= 0)
		rt__proc_info_u64("mpi.size", (uint64_t)size);
	rt__proc_clock();
	if (!rt__proc.path_has_rank || old_rank == rank)
		return;
	/* The name was made before the rank was known: give the file its real name
	 * (link + unlink never overwrites an existing file). */
	char pattern[sizeof rt__proc.path];
	int is_default;
	if (rt__output_pattern(rt__proc.cfg.output, 1, pattern, sizeof pattern, &is_default))
		return;
	char path[sizeof rt__proc.path];
	for (unsigned gen = 0; gen < 1000; gen++) {
		int has_gen, has_rank;
		if (rt__output_expand(pattern, gen, path, sizeof path, &has_gen, &has_rank))
			return;
		if (link(rt__proc.path, path) == 0) {
			unlink(rt__proc.path);
			snprintf(rt__proc.path, sizeof rt__proc.path, "%s", path);
			rt__pool_live_rename(path);
			return;
		}
		if (errno != EEXIST)
			return;
	}
}

/* ---------------------------------------------------------------- init */

/* A relative FOLD_OUTPUT is made absolute in the environment too, so the
 * processes this one starts (exec, system, posix_spawn) write where it was
 * meant even after a chdir. Only while the process starts (the main thread,
 * from our constructor), when no other thread can be reading the
 * environment. */
static void absolute_output_env(void)
{
	const char *v = getenv("FOLD_OUTPUT");
	if (!v || !*v || v[0] == '/' || rt__proc.init_tid != getpid())
		return;
	char abs_pattern[1600];
	int is_default;
	if (rt__output_pattern(v, 0, abs_pattern, sizeof abs_pattern, &is_default))
		return;
	if (is_default) { /* a directory: keep it one, absolute */
		char *slash = strrchr(abs_pattern, '/');
		if (slash)
			slash[1] = 0;
	}
	setenv("FOLD_OUTPUT", abs_pattern, 1);
}

/* FOLD_EXEC_GENERATION is fold's message from the image before an exec
 * (rt_exec.c) to this one, read by rt__config_load: the program never
 * finds it in its environment. Constructor time only, as above. The
 * kernel's copy of the initial environment (/proc/self/environ) keeps it. */
static void hide_exec_generation(void)
{
	if (rt__proc.init_tid == getpid() && getenv("FOLD_EXEC_GENERATION"))
		unsetenv("FOLD_EXEC_GENERATION");
}

int rt__output_start(void)
{
	char pattern[sizeof rt__proc.path];
	int is_default;
	rt__fd_take(1); /* the trace file's: the budget is never less (rt_fd.c) */
	int fd =
	    rt__output_pattern(rt__proc.cfg.output, rt__proc.rank >= 0, pattern, sizeof pattern, &is_default);
	if (fd == 0)
		fd = rt__output_open(pattern, rt__proc.path, sizeof rt__proc.path, &rt__proc.path_has_rank);
	if (fd < 0) {
		rt__fd_give(1);
		rt__warn(
		    "cannot create the trace file from FOLD_OUTPUT=\"%s\" (%s): this run is not measured",
		    pattern, strerror(-fd));
		return fd;
	}
	if (is_default && rt__proc.rank < 0)
		rt__proc.path_has_rank = 1; /* the default gains the rank once MPI_Init tells it */
	rt__fd_move(fd, &rt__proc.fd);
	fd = rt__proc.fd;
	struct stat st;
	if (fstat(fd, &st) == 0) {
		rt__proc.fd_dev = st.st_dev;
		rt__proc.fd_ino = st.st_ino;
	}
	rt_io_state io;
	rt__io_begin(&io);
	int rc = trace_file_write_header(fd);
	rt__io_end(&io);
	if (rc) {
		/* A full disk, a quota, RLIMIT_FSIZE: said at once. The empty file
		 * stays, for fold to say what it is. */
		rt__warn("cannot write the trace file %s (%s): this run is not measured", rt__proc.path,
		         strerror(-rc));
		rt__fd_close(&rt__proc.fd);
		return rc;
	}
	/* Without it (a full disk, a file system without fallocate) the
	 * buffers are anonymous memory: a process that ends without the
	 * final flush loses what it had not written. */
	rt__pool_live_start(rt__proc.path);
	return 0;
}

/* Debuggers and memory checkers: fold works under them instead of
 * getting in their way.
 *  - A process that starts traced (gdb -ex run, strace) samples with
 *    SIGPROF, which gdb passes to the program without stopping, unless
 *    FOLD_SIGNAL chose a signal (gdb stops at a real-time signal by default;
 *    one attached later needs `handle SIG38 nostop noprint`, docs).
 *  - Under valgrind (its preload is in LD_PRELOAD) samples keep their leaf
 *    only: libunwind checks addresses by writing them to a pipe, which
 *    memcheck reports as errors of the program's. */
static void adapt_to_tools(rt_config *cfg)
{
	const char *pre = getenv("LD_PRELOAD");
	if (pre && strstr(pre, "vgpreload"))
		cfg->unwind_off = 1;
	if (cfg->signal_set)
		return;
	int fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[2048];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	close(fd);
	if (n <= 0)
		return;
	buf[n] = 0;
	const char *tp = strstr(buf, "\nTracerPid:");
	if (tp && strtol(tp + 12, NULL, 10) > 0) {
		cfg->signo = SIGPROF;
		cfg->signal_traced = 1;
	}
}

static void say_tools(const rt_config *cfg)
{
	if (cfg->unwind_off)
		rt__proc_info("sample.unwind", "leaf only: under valgrind");
	if (cfg->signal_traced)
		rt__proc_info("sample.signal_reason", "traced at start: SIGPROF, which debuggers pass");
}

static void rt_quick_exit(void);

int rt__init(void)
{
	int expect = FOLD_UNINIT;
	pid_t me = (pid_t)syscall(SYS_gettid);
	if (!atomic_compare_exchange_strong(&rt__proc.phase, &expect, FOLD_INITIALIZING)) {
		if (expect == FOLD_INITIALIZING && rt__proc.init_tid != me) {
			while (atomic_load(&rt__proc.phase) == FOLD_INITIALIZING)
				sched_yield();
		}
		return atomic_load(&rt__proc.phase) == FOLD_RUNNING;
	}
	rt__proc.init_tid = me;
	rt__proc.pid = getpid();
	rt__io_stderr_init();
	rt__config_load(&rt__proc.cfg);
	if (rt__notice_wanted())
		rt__config_check_unknown();
	rt__output_remember_cwd();
	absolute_output_env();
	hide_exec_generation();
	rank_from_env();
	rt__clock_init(&rt__proc.clock, rt__proc.cfg.clock_tsc);
	adapt_to_tools(&rt__proc.cfg);
	/* The process stream's buffer, the first thread's, and the 4 a thread's
	 * start keeps in reserve (rt_thread.c): no growth before main. The trace
	 * file first: the pool's buffers are its live file's slots. */
	if (rt__output_start() || rt__pool_init(6)) {
		atomic_store(&rt__proc.phase, FOLD_FINISHED);
		return 0;
	}
	rt__clock_calibrate(&rt__proc.clock);
	rt__flush_init();
	rt__proc_start(0);
	say_tools(&rt__proc.cfg);
	rt__counters_init();
	rt__modules_scan();
	rt__regions_reemit();
	rt__signals_init();
	if (rt__proc.cfg.stack_depth && !rt__proc.cfg.unwind_off && rt__proc.cfg.source != FOLD_SOURCE_OFF)
		rt__unwind_warm();
	syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0, 0);
	rt__fork_install();
	at_quick_exit(rt_quick_exit);
	/* Metadata on disk from the start: a SIGKILL keeps the clock, the
	 * module map and the definitions. */
	rt__proc_seal();
	atomic_store(&rt__proc.phase, FOLD_RUNNING);
	rt__thread_begin(0, getpid() == me ? "main" : "adopted");
	rt__counters_probe_done();
	return 1;
}

/* ---------------------------------------------------------------- quiesce */

void rt__membarrier_all(void)
{
	/* Every thread passes a full barrier, so a busy flag raised before it is
	 * visible and a guard raised after it sees stop. */
	unsigned n = rt__thread_slots(), others = 0;
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		others += t != rt__tls_thread && atomic_load(&t->alive);
	}
	if (!others)
		return;
	/* Expedited (IPIs, microseconds) when registered at init; the global
	 * command waits for an RCU grace period (milliseconds). */
	if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0, 0) != 0 &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_GLOBAL, 0, 0) != 0) {
		rt__sys_nanosleep(2000000);
	}
}

void rt__quiesce(void)
{
	rt_thread *self = rt__tls_thread;
	rt__lock(&rt__threads_lock);
	atomic_store(&rt__proc.stop, 1);
	rt__membarrier_all();
	unsigned n = rt__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (t == self || !atomic_load(&t->alive))
			continue;
		for (int spin = 0; t->busy; spin++) {
			if (spin > 200000) { /* ~ seconds: a thread stuck inside us; give up on it */
				rt__warn("thread %d did not leave the runtime; its last buffer may be lost",
				         (int)t->tid);
				break;
			}
			sched_yield();
		}
	}
}

void rt__unquiesce(void)
{
	unsigned n = rt__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (atomic_load(&t->alive))
			rt__thread_fresh_buffer(t);
	}
	atomic_store(&rt__proc.stop, 0);
	rt__unlock(&rt__threads_lock);
}

static void seal_all_threads(void)
{
	unsigned n = rt__thread_slots();
	rt__pool_reserve(n + 4);
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (atomic_load(&t->alive) && t->cur)
			rt__thread_seal(t);
	}
}

static uint64_t total_samples(uint64_t dropped[FOLD_DROP_NREASONS], uint64_t dropped_cpu[FOLD_DROP_NREASONS],
                              uint64_t *unbalanced, uint64_t leaf_only[FOLD_LEAF_ONLY_NREASONS])
{
	for (int r = 0; r < FOLD_LEAF_ONLY_NREASONS; r++)
		leaf_only[r] = atomic_load(&rt__proc.leaf_only[r]);
	uint64_t taken = atomic_load(&rt__proc.samples_taken);
	*unbalanced = atomic_load(&rt__proc.unbalanced);
	for (int r = 0; r < FOLD_DROP_NREASONS; r++) {
		dropped[r] = atomic_load(&rt__proc.dropped[r]);
		dropped_cpu[r] = atomic_load(&rt__proc.dropped_cpu_ns[r]);
	}
	unsigned n = rt__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (!atomic_load(&t->alive))
			continue;
		taken += t->samples_taken;
		*unbalanced += t->unbalanced;
		for (int r = 0; r < FOLD_DROP_NREASONS; r++) {
			dropped[r] += t->dropped[r];
			dropped_cpu[r] += t->dropped_cpu_ns[r];
		}
		for (int r = 0; r < FOLD_LEAF_ONLY_NREASONS; r++)
			leaf_only[r] += t->leaf_only[r];
	}
	return taken;
}

static void write_end_records(void)
{
	uint64_t tick, mono, real;
	rt__clock_now(&tick, &mono, &real);
	if (rt__proc.clock.tsc && mono > rt__proc.clock.mono0 + 1000000) {
		double hz =
		    (double)(tick - rt__proc.clock.tick0) * 1e9 / (double)(mono - rt__proc.clock.mono0);
		rt__proc_info_u64("clock.tick_hz", (uint64_t)(hz + 0.5));
	}
	rt__proc_clock();
	uint64_t dropped[FOLD_DROP_NREASONS], dropped_cpu[FOLD_DROP_NREASONS], unbalanced;
	uint64_t leaf_only[FOLD_LEAF_ONLY_NREASONS];
	uint64_t taken = total_samples(dropped, dropped_cpu, &unbalanced, leaf_only);
	rt__proc_stat("samples.taken", taken);
	for (int r = 0; r < FOLD_LEAF_ONLY_NREASONS; r++)
		if (leaf_only[r]) {
			char key[64];
			snprintf(key, sizeof key, "samples.leaf_only.%s", rt__leaf_only_names[r]);
			rt__proc_stat(key, leaf_only[r]);
		}
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		if (dropped[r]) {
			char key[64];
			snprintf(key, sizeof key, "samples.dropped.%s", rt__drop_names[r]);
			rt__proc_stat(key, dropped[r]);
			/* the CPU time they measured, which no recorded sample carries */
			if (dropped_cpu[r]) {
				snprintf(key, sizeof key, "samples.dropped_cpu_ns.%s", rt__drop_names[r]);
				rt__proc_stat(key, dropped_cpu[r]);
			}
		}
	if (unbalanced)
		rt__proc_stat("regions.unbalanced", unbalanced);
	uint64_t lost = atomic_load(&rt__proc.region_events_lost);
	for (unsigned i = 0; i < rt__thread_slots(); i++) {
		rt_thread *t = rt__thread_slot(i);
		if (atomic_load(&t->alive)) /* events kept at the final stop are not lost */
			lost += t->ndeferred_lost;
	}
	if (lost)
		rt__proc_stat("regions.events_lost", lost);
	rt__cyg_write_stats();
	uint64_t hticks = atomic_load(&rt__proc.handler_ticks);
	for (unsigned i = 0; i < rt__thread_slots(); i++) {
		rt_thread *t = rt__thread_slot(i);
		if (atomic_load(&t->alive))
			hticks += t->handler_ticks;
	}
	rt__proc_stat("samples.handler_ticks", hticks);
	rt__proc_stat("threads", atomic_load(&rt__proc.threads_total));
	rt__proc_stat("bytes.raw", atomic_load(&rt__proc.bytes_raw));
	rt__proc_stat("chunks.written", atomic_load(&rt__proc.chunks_written));
	/* Losses so far (a later failure cannot be recorded in the file it hits). */
	if (atomic_load(&rt__proc.chunks_lost)) {
		rt__proc_stat("chunks.lost", atomic_load(&rt__proc.chunks_lost));
		rt__proc_stat("samples.lost_writing", atomic_load(&rt__proc.samples_lost));
	}
	if (atomic_load(&rt__proc.threads_unmeasured))
		rt__proc_stat("threads.unmeasured", atomic_load(&rt__proc.threads_unmeasured));
	if (rt__seccomp_threads_quiet())
		rt__proc_stat("seccomp.threads_quiet", rt__seccomp_threads_quiet());
	if (atomic_load(&rt__proc.threads_unsampled))
		rt__proc_stat("threads.unsampled", atomic_load(&rt__proc.threads_unsampled));
	struct stat st;
	if (fstat(rt__proc.fd, &st) == 0)
		rt__proc_stat("bytes.written", (uint64_t)st.st_size);
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
	if (rt__proc.cfg.quiet)
		return;
	uint64_t dropped[FOLD_DROP_NREASONS], dropped_cpu[FOLD_DROP_NREASONS], unbalanced, ndrop = 0;
	uint64_t leaf_only[FOLD_LEAF_ONLY_NREASONS];
	uint64_t taken = total_samples(dropped, dropped_cpu, &unbalanced, leaf_only);
	char why[256] = "";
	size_t o = 0;
	for (int r = 0; r < FOLD_DROP_NREASONS; r++)
		if (dropped[r]) {
			ndrop += dropped[r];
			o += (size_t)snprintf(why + o, sizeof why - o, "%s%llu %s", o ? ", " : ": ",
			                      (unsigned long long)dropped[r], rt__drop_names[r]);
			if (o >= sizeof why)
				break;
		}
	struct stat st;
	char size[32] = "?";
	if (stat(rt__proc.path, &st) == 0)
		human_bytes((uint64_t)st.st_size, size, sizeof size);
	uint64_t lost = atomic_load(&rt__proc.samples_lost), lost_chunks = atomic_load(&rt__proc.chunks_lost);
	char lost_txt[300] = "";
	if (lost_chunks)
		snprintf(lost_txt, sizeof lost_txt,
		         "; %llu more samples in %llu chunk(s) could not be written (%s)",
		         (unsigned long long)lost, (unsigned long long)lost_chunks,
		         strerror(rt__proc.write_errno));
	char unmeasured[160] = "";
	if (atomic_load(&rt__proc.threads_unmeasured))
		snprintf(unmeasured, sizeof unmeasured,
		         ", %llu more not measured (no free trace buffer: over %u threads alive at once)",
		         (unsigned long long)atomic_load(&rt__proc.threads_unmeasured), FOLD_MAX_BUFS - 1);
	/* Only what reached the file counts as written. */
	rt__warn("wrote %s (%s): %llu samples, %llu dropped%s; %llu thread(s)%s%s", rt__proc.path, size,
	         (unsigned long long)(taken >= lost ? taken - lost : 0), (unsigned long long)ndrop, why,
	         (unsigned long long)atomic_load(&rt__proc.threads_total), unmeasured, lost_txt);
}

void rt__finish(const char *why)
{
	(void)why;
	/* A sandbox that denies the final flush's calls: what the process
	 * recorded stays in the live file (rt_seccomp.c). */
	if (atomic_load(&rt__proc.exit_sandboxed))
		return;
	if (rt__vfork_child()) /* shares our memory: hands off */
		return;
	/* The stop figure of a process that took samples and has none yet is
	 * measured now, while its timers still run (or why it has none said). */
	rt__stop_settle(RT_STOP_EXIT);
	int expect = FOLD_RUNNING;
	if (!atomic_compare_exchange_strong(&rt__proc.phase, &expect, FOLD_FINISHED))
		return;
	rt_thread *self = rt__tls_thread;
	if (self)
		self->busy++;
	rt__quiesce();
	unsigned n = rt__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (atomic_load(&t->alive))
			rt__sampling_thread_stop(t);
	}
	if (self && self->cur) {
		uint64_t tick = rt__tick();
		if (trace_enc_thread_end(&self->enc, tick) == -ENOSPC && rt__thread_swap_buffer(self) == 0)
			trace_enc_thread_end(&self->enc, tick);
	}
	seal_all_threads();
	/* Threads' data first, so the statistics count it. */
	rt__pool_drain(1);
	write_end_records();
	rt__proc_seal();
	rt__pool_drain(1);
	rt__pool_live_end();
	rt__fd_close(&rt__proc.fd);
	summary();
	rt__unlock(&rt__threads_lock);
}

/* ---------------------------------------------------------------- exec checkpoints */

void rt__checkpoint(int for_exec)
{
	rt_thread *self = rt__tls_thread;
	/* Before a child starts or this image is replaced: the stop figure,
	 * published for the child (rt_source_time.c). */
	rt__stop_settle(for_exec ? RT_STOP_EXEC : RT_STOP_SPAWN);
	if (self)
		self->busy++;
	if (!for_exec) {
		/* system()/posix_spawn: our threads go on; just get data on disk. */
		if (self && self->cur) {
			rt__thread_seal(self);
			rt__thread_fresh_buffer(self);
		}
		rt__proc_seal();
		rt__pool_drain(1);
		return;
	}
	rt__quiesce();
	if (self && self->cur) {
		uint64_t tick = rt__tick();
		char text[64];
		snprintf(text, sizeof text, "exec (generation %u)", rt__proc.cfg.exec_generation + 1);
		if (trace_enc_marker(&self->enc, tick, text) == -ENOSPC && rt__thread_swap_buffer(self) == 0)
			trace_enc_marker(&self->enc, tick, text);
	}
	seal_all_threads();
	rt__pool_drain(1);
	write_end_records();
	rt__proc_seal();
	rt__pool_drain(1);
	rt__pool_live_end();
	rt__signals_before_exec();
}

void rt__checkpoint_done(int for_exec)
{
	rt_thread *self = rt__tls_thread;
	if (for_exec) {
		/* The exec failed: we are still this program. */
		rt__signals_after_exec_failed();
		rt__unquiesce();
	}
	if (self)
		self->busy--;
}

/* ---------------------------------------------------------------- ctor/dtor */

__attribute__((constructor)) static void rt_constructor(void)
{
	rt__init();
}
__attribute__((destructor)) static void rt_destructor(void)
{
	rt__finish("exit");
}

/* quick_exit runs the at_quick_exit handlers, then glibc's internal _exit
 * (no destructors, past our _exit): registered at start, ours runs last,
 * after the program's, as the destructor does after atexit's. */
static void rt_quick_exit(void)
{
	rt__finish("quick_exit");
}
