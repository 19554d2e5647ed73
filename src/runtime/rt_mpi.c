/* rt_mpi.c: PMPI wrappers, computation bursts and cross-rank clock alignment.
 *
 * Owns the MPI front end of libfold.so: each common MPI call (C, and the
 * Fortran spellings mpi_xxx_, mpi_xxx__, mpi_xxx, MPI_XXX of the mpif.h /
 * `use mpi` bindings) is a region of kind TRACE_REGION_MPI named like
 * "MPI_Allreduce", and the computation between two MPI calls of a thread is a
 * region of kind TRACE_REGION_BURST (FOLD_MPI_BURSTS=0 turns bursts off).
 *
 * Bursts are how an unmodified MPI code gets repetitive regions to fold (the
 * BSC approach): a burst starts when an MPI call returns and ends when the
 * thread's next MPI call starts. One region per (MPI call, call path) it
 * follows, named "burst after MPI_Allreduce" ("... #2" for a second call path
 * of the same function), with the call site in REGION_DEF.address. The call
 * path is the call site and the BURST_PATH_CALLERS return addresses above it
 * (libunwind, when the MPI call returns): the computation that follows a
 * given call path is the same code every iteration, so its instances fold
 * together, while the different phases of an iteration stay apart even when
 * they all end in one wrapper's MPI call (a dot() or halo_exchange() called
 * from several places). Without libunwind, or when the unwind does not reach
 * the call site, the key is the call site alone. Region boundaries carry counter values, with one
 * counter read and one timestamp shared by the burst's exit and the call's
 * enter.
 *
 * MPI_Init/MPI_Init_thread (and mpi_init_) set mpi.rank/mpi.size
 * (rt__rank_known), then pass a barrier and record, right after it, a CLOCK
 * record and the info key mpi.sync.init_tick; MPI_Finalize does the same with
 * mpi.sync.finalize_tick before PMPI_Finalize. Ranks leave a barrier within
 * microseconds of each other, so fold can align their clocks on these ticks.
 * After PMPI_Finalize returns, the trace is finished and flushed
 * (rt__finish): launchers may kill ranks soon after MPI_Finalize.
 *
 * How libfold.so is built against MPI without depending on it: rt_mpi.c is
 * compiled with Open MPI's mpi.h but libfold.so is not linked to libmpi. Every
 * PMPI_* / pmpi_*_ function is looked up with dlsym at the first wrapped call,
 * and the one data object MPI_COMM_WORLD refers to is a weak reference, so
 * libfold.so loads in any program (even with LD_BIND_NOW) and the wrappers
 * are never called in a program without MPI. The wrappers follow the MPI
 * ABI of the mpi.h they were compiled with (Open MPI here).
 *
 * Invariants:
 *  - A wrapper called from inside another wrapped call on the same thread
 *    (an MPI library calling its own MPI_ entry points) only forwards.
 *  - Bursts and the "inside MPI" flag are per thread (MPI_THREAD_MULTIPLE).
 *  - The Fortran wrappers call the pmpi_xxx_ entry points of the Fortran
 *    library, which call PMPI_ in C, so a Fortran call is one region.
 */
#include "rt_regions.h"
#include "util.h" /* util_grow: header-only */

#include <dlfcn.h>
#include <errno.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#pragma weak ompi_mpi_comm_world

/* ---------------------------------------------------------------- the calls */

/* X(Name, fortran_lower, FORTRAN_UPPER, fortran_argc, (C parameters), (C arguments)) */
#define FOLD_MPI_CALLS(X)                                                                                    \
	X(Send, send, SEND, 7, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),             \
	  (b, n, t, d, g, c))                                                                                \
	X(Ssend, ssend, SSEND, 7, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),          \
	  (b, n, t, d, g, c))                                                                                \
	X(Bsend, bsend, BSEND, 7, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),          \
	  (b, n, t, d, g, c))                                                                                \
	X(Rsend, rsend, RSEND, 7, (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c),          \
	  (b, n, t, d, g, c))                                                                                \
	X(Recv, recv, RECV, 8, (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Status *st),   \
	  (b, n, t, s, g, c, st))                                                                            \
	X(Sendrecv, sendrecv, SENDRECV, 13,                                                                  \
	  (const void *sb, int sn, MPI_Datatype stp, int d, int sg, void *rb, int rn, MPI_Datatype rtp,      \
	   int s, int rg, MPI_Comm c, MPI_Status *st),                                                       \
	  (sb, sn, stp, d, sg, rb, rn, rtp, s, rg, c, st))                                                   \
	X(Sendrecv_replace, sendrecv_replace, SENDRECV_REPLACE, 10,                                          \
	  (void *b, int n, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm c, MPI_Status *st),        \
	  (b, n, t, d, sg, s, rg, c, st))                                                                    \
	X(Isend, isend, ISEND, 8,                                                                            \
	  (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),                  \
	  (b, n, t, d, g, c, r))                                                                             \
	X(Issend, issend, ISSEND, 8,                                                                         \
	  (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),                  \
	  (b, n, t, d, g, c, r))                                                                             \
	X(Ibsend, ibsend, IBSEND, 8,                                                                         \
	  (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),                  \
	  (b, n, t, d, g, c, r))                                                                             \
	X(Irsend, irsend, IRSEND, 8,                                                                         \
	  (const void *b, int n, MPI_Datatype t, int d, int g, MPI_Comm c, MPI_Request *r),                  \
	  (b, n, t, d, g, c, r))                                                                             \
	X(Irecv, irecv, IRECV, 8,                                                                            \
	  (void *b, int n, MPI_Datatype t, int s, int g, MPI_Comm c, MPI_Request *r), (b, n, t, s, g, c, r)) \
	X(Probe, probe, PROBE, 5, (int s, int g, MPI_Comm c, MPI_Status *st), (s, g, c, st))                 \
	X(Iprobe, iprobe, IPROBE, 6, (int s, int g, MPI_Comm c, int *f, MPI_Status *st), (s, g, c, f, st))   \
	X(Wait, wait, WAIT, 3, (MPI_Request * r, MPI_Status * st), (r, st))                                  \
	X(Waitall, waitall, WAITALL, 4, (int n, MPI_Request r[], MPI_Status st[]), (n, r, st))               \
	X(Waitany, waitany, WAITANY, 5, (int n, MPI_Request r[], int *i, MPI_Status *st), (n, r, i, st))     \
	X(Waitsome, waitsome, WAITSOME, 6, (int n, MPI_Request r[], int *o, int ix[], MPI_Status st[]),      \
	  (n, r, o, ix, st))                                                                                 \
	X(Test, test, TEST, 4, (MPI_Request * r, int *f, MPI_Status *st), (r, f, st))                        \
	X(Testall, testall, TESTALL, 5, (int n, MPI_Request r[], int *f, MPI_Status st[]), (n, r, f, st))    \
	X(Testany, testany, TESTANY, 6, (int n, MPI_Request r[], int *i, int *f, MPI_Status *st),            \
	  (n, r, i, f, st))                                                                                  \
	X(Testsome, testsome, TESTSOME, 6, (int n, MPI_Request r[], int *o, int ix[], MPI_Status st[]),      \
	  (n, r, o, ix, st))                                                                                 \
	X(Barrier, barrier, BARRIER, 2, (MPI_Comm c), (c))                                                   \
	X(Bcast, bcast, BCAST, 6, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c),                    \
	  (b, n, t, root, c))                                                                                \
	X(Reduce, reduce, REDUCE, 8,                                                                         \
	  (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c),                \
	  (sb, rb, n, t, op, root, c))                                                                       \
	X(Allreduce, allreduce, ALLREDUCE, 7,                                                                \
	  (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c), (sb, rb, n, t, op, c))   \
	X(Gather, gather, GATHER, 9,                                                                         \
	  (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,             \
	   MPI_Comm c),                                                                                      \
	  (sb, sn, st, rb, rn, rt, root, c))                                                                 \
	X(Gatherv, gatherv, GATHERV, 10,                                                                     \
	  (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int dp[],                \
	   MPI_Datatype rt, int root, MPI_Comm c),                                                           \
	  (sb, sn, st, rb, rn, dp, rt, root, c))                                                             \
	X(Scatter, scatter, SCATTER, 9,                                                                      \
	  (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, int root,             \
	   MPI_Comm c),                                                                                      \
	  (sb, sn, st, rb, rn, rt, root, c))                                                                 \
	X(Scatterv, scatterv, SCATTERV, 10,                                                                  \
	  (const void *sb, const int sn[], const int dp[], MPI_Datatype st, void *rb, int rn,                \
	   MPI_Datatype rt, int root, MPI_Comm c),                                                           \
	  (sb, sn, dp, st, rb, rn, rt, root, c))                                                             \
	X(Allgather, allgather, ALLGATHER, 8,                                                                \
	  (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),          \
	  (sb, sn, st, rb, rn, rt, c))                                                                       \
	X(Allgatherv, allgatherv, ALLGATHERV, 9,                                                             \
	  (const void *sb, int sn, MPI_Datatype st, void *rb, const int rn[], const int dp[],                \
	   MPI_Datatype rt, MPI_Comm c),                                                                     \
	  (sb, sn, st, rb, rn, dp, rt, c))                                                                   \
	X(Alltoall, alltoall, ALLTOALL, 8,                                                                   \
	  (const void *sb, int sn, MPI_Datatype st, void *rb, int rn, MPI_Datatype rt, MPI_Comm c),          \
	  (sb, sn, st, rb, rn, rt, c))                                                                       \
	X(Alltoallv, alltoallv, ALLTOALLV, 10,                                                               \
	  (const void *sb, const int sn[], const int sd[], MPI_Datatype st, void *rb, const int rn[],        \
	   const int rd[], MPI_Datatype rt, MPI_Comm c),                                                     \
	  (sb, sn, sd, st, rb, rn, rd, rt, c))                                                               \
	X(Reduce_scatter, reduce_scatter, REDUCE_SCATTER, 7,                                                 \
	  (const void *sb, void *rb, const int rn[], MPI_Datatype t, MPI_Op op, MPI_Comm c),                 \
	  (sb, rb, rn, t, op, c))                                                                            \
	X(Scan, scan, SCAN, 7, (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c),     \
	  (sb, rb, n, t, op, c))                                                                             \
	X(Exscan, exscan, EXSCAN, 7,                                                                         \
	  (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c), (sb, rb, n, t, op, c))   \
	X(Ibarrier, ibarrier, IBARRIER, 3, (MPI_Comm c, MPI_Request * r), (c, r))                            \
	X(Ibcast, ibcast, IBCAST, 7, (void *b, int n, MPI_Datatype t, int root, MPI_Comm c, MPI_Request *r), \
	  (b, n, t, root, c, r))                                                                             \
	X(Iallreduce, iallreduce, IALLREDUCE, 8,                                                             \
	  (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, MPI_Comm c, MPI_Request *r),          \
	  (sb, rb, n, t, op, c, r))                                                                          \
	X(Ireduce, ireduce, IREDUCE, 9,                                                                      \
	  (const void *sb, void *rb, int n, MPI_Datatype t, MPI_Op op, int root, MPI_Comm c,                 \
	   MPI_Request *r),                                                                                  \
	  (sb, rb, n, t, op, root, c, r))

/* Fortran (mpif.h / use mpi) parameter lists: every argument by reference. */
#define FP1 void *a1
#define FP2 FP1, void *a2
#define FP3 FP2, void *a3
#define FP4 FP3, void *a4
#define FP5 FP4, void *a5
#define FP6 FP5, void *a6
#define FP7 FP6, void *a7
#define FP8 FP7, void *a8
#define FP9 FP8, void *a9
#define FP10 FP9, void *a10
#define FP11 FP10, void *a11
#define FP12 FP11, void *a12
#define FP13 FP12, void *a13
#define FA1 a1
#define FA2 FA1, a2
#define FA3 FA2, a3
#define FA4 FA3, a4
#define FA5 FA4, a5
#define FA6 FA5, a6
#define FA7 FA6, a7
#define FA8 FA7, a8
#define FA9 FA8, a9
#define FA10 FA9, a10
#define FA11 FA10, a11
#define FA12 FA11, a12
#define FA13 FA12, a13

enum mpi_call {
	CALL_Init,
	CALL_Init_thread,
	CALL_Finalize,
#define X(Name, lower, UPPER, nf, params, args) CALL_##Name,
	FOLD_MPI_CALLS(X)
#undef X
	    CALL_COUNT
};

static const char *const call_names[CALL_COUNT] = {"MPI_Init", "MPI_Init_thread", "MPI_Finalize",
#define X(Name, lower, UPPER, nf, params, args) "MPI_" #Name,
                                                   FOLD_MPI_CALLS(X)
#undef X
};

/* ---------------------------------------------------------------- the real functions */

static struct {
	typeof(&PMPI_Init) Init;
	typeof(&PMPI_Init_thread) Init_thread;
	typeof(&PMPI_Finalize) Finalize;
	typeof(&PMPI_Comm_rank) Comm_rank;
	typeof(&PMPI_Comm_size) Comm_size;
#define X(Name, lower, UPPER, nf, params, args) typeof(&PMPI_##Name) Name;
	FOLD_MPI_CALLS(X)
#undef X
} real;

static struct {
	void (*init)(FP1);
	void (*init_thread)(FP3);
	void (*finalize)(FP1);
#define X(Name, lower, UPPER, nf, params, args) void (*lower)(FP##nf);
	FOLD_MPI_CALLS(X)
#undef X
} realf;

static pthread_once_t resolve_once = PTHREAD_ONCE_INIT;

static void *lookup(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	return p ? p : dlsym(RTLD_DEFAULT, name);
}

static void resolve(void)
{
#define R(field, sym) *(void **)&real.field = lookup(#sym)
#define RF(field, sym) *(void **)&realf.field = lookup(#sym)
	R(Init, PMPI_Init);
	R(Init_thread, PMPI_Init_thread);
	R(Finalize, PMPI_Finalize);
	R(Comm_rank, PMPI_Comm_rank);
	R(Comm_size, PMPI_Comm_size);
	RF(init, pmpi_init_);
	RF(init_thread, pmpi_init_thread_);
	RF(finalize, pmpi_finalize_);
#define X(Name, lower, UPPER, nf, params, args)                                                              \
	R(Name, PMPI_##Name);                                                                                \
	RF(lower, pmpi_##lower##_);
	FOLD_MPI_CALLS(X)
#undef X
#undef R
#undef RF
}

static void missing(const char *name)
{
	rt__warn("%s: the MPI library's PMPI entry point cannot be found; this call fails", name);
}

static MPI_Comm world(void)
{
	if (&ompi_mpi_comm_world)
		return MPI_COMM_WORLD;
	return (MPI_Comm)dlsym(RTLD_DEFAULT, "ompi_mpi_comm_world");
}

/* ---------------------------------------------------------------- regions */

static _Atomic uint32_t call_region[CALL_COUNT];
static int bursts_on = -1;

typedef struct burst_key {
	uint32_t call;
	uint64_t site, path; /* path: hash of the call path (0: the site alone) */
	uint32_t region;
} burst_key;

/* Return addresses above the call site that distinguish call paths. */
enum { BURST_PATH_CALLERS = 3, BURST_UNWIND_MAX = 12 };

/* Hash of the call path ending at the return address `site`: the site and
 * the callers above it, from an unwind of this thread's stack (the wrapper's
 * own frames come first and are skipped). 0 when it cannot be told. */
static uint64_t call_path(uint64_t site, uint64_t *caller)
{
	void *fr[BURST_UNWIND_MAX];
	int n = rt__unwind_backtrace(fr, BURST_UNWIND_MAX);
	int i = 0;
	*caller = 0;
	while (i < n && (uint64_t)(uintptr_t)fr[i] != site)
		i++;
	if (i >= n)
		return 0;
	if (i + 1 < n)
		*caller = (uint64_t)(uintptr_t)fr[i + 1];
	uint64_t h = 1469598103934665603ull; /* FNV-1a over the addresses */
	for (int k = i; k < n && k <= i + BURST_PATH_CALLERS; k++) {
		uint64_t a = (uint64_t)(uintptr_t)fr[k];
		for (int b = 0; b < 8; b++) {
			h ^= (a >> (8 * b)) & 0xff;
			h *= 1099511628211ull;
		}
	}
	return h ? h : 1;
}

static pthread_mutex_t burst_lock = PTHREAD_MUTEX_INITIALIZER;

/* A rank that forks (a launcher helper, system()) while another thread is in
 * an MPI call must not leave the child on burst_lock. */
__attribute__((constructor(103))) static void mpi_register_fork_lock(void)
{
	rt__fork_lock_register(&burst_lock);
}
static burst_key *bursts;
static size_t nbursts, cap_bursts;
static unsigned burst_sites[CALL_COUNT];

static FOLD_TLS int in_mpi;          /* inside a wrapped call */
static FOLD_TLS uint32_t open_burst; /* this thread's burst region, 0 if none */
static _Atomic int mpi_initialized;  /* bursts begin once MPI_Init returned */

static uint32_t region_of(enum mpi_call call)
{
	uint32_t r = atomic_load_explicit(&call_region[call], memory_order_relaxed);
	if (FOLD_UNLIKELY(!r)) {
		r = rt__region_define(TRACE_REGION_MPI, 0, call_names[call]);
		atomic_store_explicit(&call_region[call], r, memory_order_relaxed);
	}
	return r;
}

/* The burst region following `call` made from `site` on call path `path`;
 * a new one says which return address called the site's function (info
 * burst.caller.ID), so fold can name it for people. */
static uint32_t burst_region(enum mpi_call call, uint64_t site, uint64_t path, uint64_t caller)
{
	uint32_t r = 0;
	rt__lock(&burst_lock);
	for (size_t i = 0; i < nbursts; i++)
		if (bursts[i].call == call && bursts[i].site == site && bursts[i].path == path) {
			r = bursts[i].region;
			goto out;
		}
	if (util_grow((void **)&bursts, &cap_bursts, nbursts + 1, sizeof *bursts))
		goto out;
	char name[96];
	unsigned k = ++burst_sites[call];
	if (k == 1)
		snprintf(name, sizeof name, "burst after %s", call_names[call]);
	else
		snprintf(name, sizeof name, "burst after %s #%u", call_names[call], k);
	r = rt__region_define(TRACE_REGION_BURST, site, name);
	if (r && caller) {
		char key[40];
		snprintf(key, sizeof key, "burst.caller.%u", r);
		rt__proc_info_u64(key, caller);
	}
	bursts[nbursts++] = (burst_key){call, site, path, r};
out:
	rt__unlock(&burst_lock);
	return r;
}

static void put_event(rt_thread *t, int enter, uint64_t tick, uint32_t region, const uint64_t *ctr)
{
	int rc =
	    enter ? trace_enc_enter(&t->enc, tick, region, ctr) : trace_enc_exit(&t->enc, tick, region, ctr);
	if (rc == -ENOSPC) {
		uint64_t t0 = rt__tick(); /* after the timestamp: a pause */
		rt__pool_reserve(4);
		if (rt__thread_swap_buffer(t) == 0 &&
		    (enter ? trace_enc_enter(&t->enc, tick, region, ctr)
		           : trace_enc_exit(&t->enc, tick, region, ctr)) == 0)
			rt__thread_note_pause(t, rt__tick() - t0);
	}
}

void rt__region_handover(rt_thread *t, uint32_t out, uint32_t in)
{
	if (!t || (!out && !in) || !rt__enter_runtime(t))
		return;
	if (!t->cur)
		rt__thread_fresh_buffer(t);
	if (t->cur) {
		rt__counter_set_refresh(t);
		uint64_t ctr[TRACE_MAX_COUNTERS];
		const uint64_t *cp = NULL;
		if (t->enc.nctr) {
			rt__read_counters(t, ctr);
			cp = ctr;
		}
		uint64_t tick = rt__tick();
		if (out)
			put_event(t, 0, tick, out, cp);
		if (in)
			put_event(t, 1, tick, in, cp);
	}
	rt__leave_runtime(t);
}

typedef struct mpi_scope {
	rt_thread *t;
	enum mpi_call call;
	uint64_t site;
	int active; /* 0: nested call, only forwarded */
} mpi_scope;

static void mpi_begin(mpi_scope *s, enum mpi_call call, void *site)
{
	pthread_once(&resolve_once, resolve);
	s->active = !in_mpi;
	if (!s->active)
		return;
	in_mpi = 1;
	s->call = call;
	s->site = (uint64_t)site;
	s->t = rt__tls_thread;
	if (!s->t)
		s->t = rt__thread();
	uint32_t burst = open_burst;
	open_burst = 0;
	rt__region_handover(s->t, burst, region_of(call));
}

static void mpi_end(mpi_scope *s)
{
	if (!s->active)
		return;
	if (bursts_on < 0)
		bursts_on = rt__env_flag("FOLD_MPI_BURSTS", 1);
	uint32_t burst = 0;
	if (bursts_on && s->call != CALL_Finalize &&
	    atomic_load_explicit(&mpi_initialized, memory_order_relaxed)) {
		/* Unwind under the guard: the sampler does not unwind this thread meanwhile. */
		uint64_t path = 0, caller = 0;
		if (s->t && rt__enter_runtime(s->t)) {
			path = call_path(s->site, &caller);
			rt__leave_runtime(s->t);
		}
		burst = burst_region(s->call, s->site, path, caller);
	}
	rt__region_handover(s->t, region_of(s->call), burst);
	open_burst = burst;
	in_mpi = 0;
}

/* ---------------------------------------------------------------- init and finalize */

static void sync_point(const char *key)
{
	if (real.Barrier)
		real.Barrier(world());
	uint64_t tick = rt__tick();
	rt__proc_clock();
	rt__proc_info_u64(key, tick);
}

static void after_mpi_init(int rc)
{
	if (rc != MPI_SUCCESS || atomic_exchange(&mpi_initialized, 1))
		return;
	int rank = -1, size = -1;
	if (real.Comm_rank && real.Comm_size) {
		real.Comm_rank(world(), &rank);
		real.Comm_size(world(), &size);
	}
	rt__rank_known(rank, size);
	sync_point("mpi.sync.init_tick");
}

static void before_mpi_finalize(void)
{
	if (atomic_load(&mpi_initialized))
		sync_point("mpi.sync.finalize_tick");
}

static void after_mpi_finalize(void)
{
	rt__finish("MPI_Finalize");
}

FOLD_EXPORT int MPI_Init(int *argc, char ***argv)
{
	mpi_scope sc_;
	mpi_begin(&sc_, CALL_Init, __builtin_return_address(0));
	int rc = MPI_ERR_INTERN;
	if (real.Init)
		rc = real.Init(argc, argv);
	else
		missing("PMPI_Init");
	if (sc_.active)
		after_mpi_init(rc);
	mpi_end(&sc_);
	return rc;
}

FOLD_EXPORT int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
	mpi_scope sc_;
	mpi_begin(&sc_, CALL_Init_thread, __builtin_return_address(0));
	int rc = MPI_ERR_INTERN;
	if (real.Init_thread)
		rc = real.Init_thread(argc, argv, required, provided);
	else
		missing("PMPI_Init_thread");
	if (sc_.active)
		after_mpi_init(rc);
	mpi_end(&sc_);
	return rc;
}

FOLD_EXPORT int MPI_Finalize(void)
{
	mpi_scope sc_;
	mpi_begin(&sc_, CALL_Finalize, __builtin_return_address(0));
	if (sc_.active)
		before_mpi_finalize();
	int rc = MPI_ERR_INTERN;
	if (real.Finalize)
		rc = real.Finalize();
	else
		missing("PMPI_Finalize");
	mpi_end(&sc_);
	if (sc_.active)
		after_mpi_finalize();
	return rc;
}

/* The Fortran library's mpi_init_ calls PMPI_Init directly, so the C wrapper
 * never sees a Fortran program start MPI: these do the same work. */
static void fortran_ierr_fail(void *ierr)
{
	if (ierr)
		*(MPI_Fint *)ierr = MPI_ERR_INTERN;
}

FOLD_EXPORT void mpi_init_(FP1);
FOLD_EXPORT void mpi_init_thread_(FP3);
FOLD_EXPORT void mpi_finalize_(FP1);

FOLD_EXPORT void mpi_init_(FP1)
{
	mpi_scope sc_;
	mpi_begin(&sc_, CALL_Init, __builtin_return_address(0));
	if (realf.init)
		realf.init(FA1);
	else {
		missing("pmpi_init_");
		fortran_ierr_fail(a1);
	}
	if (sc_.active)
		after_mpi_init(*(MPI_Fint *)a1 == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
	mpi_end(&sc_);
}

FOLD_EXPORT void mpi_init_thread_(FP3)
{
	mpi_scope sc_;
	mpi_begin(&sc_, CALL_Init_thread, __builtin_return_address(0));
	if (realf.init_thread)
		realf.init_thread(FA3);
	else {
		missing("pmpi_init_thread_");
		fortran_ierr_fail(a3);
	}
	if (sc_.active)
		after_mpi_init(*(MPI_Fint *)a3 == 0 ? MPI_SUCCESS : MPI_ERR_OTHER);
	mpi_end(&sc_);
}

FOLD_EXPORT void mpi_finalize_(FP1)
{
	mpi_scope sc_;
	mpi_begin(&sc_, CALL_Finalize, __builtin_return_address(0));
	if (sc_.active)
		before_mpi_finalize();
	if (realf.finalize)
		realf.finalize(FA1);
	else {
		missing("pmpi_finalize_");
		fortran_ierr_fail(a1);
	}
	mpi_end(&sc_);
	if (sc_.active)
		after_mpi_finalize();
}

#define FORTRAN_ALIASES(lower, UPPER, nf)                                                                    \
	FOLD_EXPORT void mpi_##lower##_(FP##nf);                                                             \
	FOLD_EXPORT void mpi_##lower(FP##nf) __attribute__((alias("mpi_" #lower "_")));                      \
	FOLD_EXPORT void mpi_##lower##__(FP##nf) __attribute__((alias("mpi_" #lower "_")));                  \
	FOLD_EXPORT void MPI_##UPPER(FP##nf) __attribute__((alias("mpi_" #lower "_")));

FORTRAN_ALIASES(init, INIT, 1)
FORTRAN_ALIASES(init_thread, INIT_THREAD, 3)
FORTRAN_ALIASES(finalize, FINALIZE, 1)

/* ---------------------------------------------------------------- every other call */

#define X(Name, lower, UPPER, nf, params, args)                                                              \
	FOLD_EXPORT int MPI_##Name params                                                                    \
	{                                                                                                    \
		mpi_scope sc_;                                                                               \
		mpi_begin(&sc_, CALL_##Name, __builtin_return_address(0));                                   \
		int rc = MPI_ERR_INTERN;                                                                     \
		if (real.Name)                                                                               \
			rc = real.Name args;                                                                 \
		else                                                                                         \
			missing("PMPI_" #Name);                                                              \
		mpi_end(&sc_);                                                                               \
		return rc;                                                                                   \
	}                                                                                                    \
	FOLD_EXPORT void mpi_##lower##_(FP##nf);                                                             \
	FOLD_EXPORT void mpi_##lower##_(FP##nf)                                                              \
	{                                                                                                    \
		mpi_scope sc_;                                                                               \
		mpi_begin(&sc_, CALL_##Name, __builtin_return_address(0));                                   \
		if (realf.lower)                                                                             \
			realf.lower(FA##nf);                                                                 \
		else {                                                                                       \
			missing("pmpi_" #lower "_");                                                         \
			fortran_ierr_fail(a##nf);                                                            \
		}                                                                                            \
		mpi_end(&sc_);                                                                               \
	}                                                                                                    \
	FORTRAN_ALIASES(lower, UPPER, nf)
FOLD_MPI_CALLS(X)
#undef X
