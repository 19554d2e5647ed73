/* instances.h: region instances and the exact region profile.
 *
 * Owns the walk over each thread's enter/exit events that turns them into
 * instances (one per completed enter..exit pair) and, in the same pass, the
 * exact profile: calls, inclusive and exclusive time per region and thread,
 * and caller-callee pairs.
 *
 * Invariants:
 *  - An instance's samples are the thread's samples [sb, se): every sample
 *    taken between its enter and its exit, including those inside nested
 *    regions. Folding attaches a sample to the innermost instance of the
 *    folded region that contains it: instances__instance_pieces() cuts an
 *    instance of a recursive region around its nested instances of the same
 *    region into pieces, each owning a sample range.
 *  - MPI computation bursts (TRACE_REGION_BURST) pair on a stack of their
 *    own: a burst begins when an MPI call returns and ends when the next one
 *    starts, so it is not nested with the program's regions (a burst open at
 *    a region's enter closes inside it). Bursts have no parent and no
 *    children in the profile; every other region nests as if bursts did not
 *    exist.
 *  - Unbalanced events never crash and never invent time: an exit without a
 *    matching enter is ignored, regions left open by a mismatched exit or at
 *    thread end produce no instance; all are counted per region.
 *  - Inclusive time of a recursive region counts only its outermost
 *    instances; exclusive time subtracts direct children only.
 *  - Overhead compensation (from the trace's calibration of the hooks: P,
 *    the cost of one recorded enter+exit pair, and I, the part of it that
 *    lies between a call's own two timestamps). A call's measured duration D
 *    contains its own I and every descendant's whole P, so
 *      inclusive = D - I - P x descendants
 *      exclusive = D - sum of children's D - I - (P - I) x children
 *    (the second is the first minus the children's inclusive times), both
 *    clamped at 0. Without calibration P = I = 0.
 *    A hook that runs after a stretch of the program's own work (cold
 *    caches and TLBs) costs more than P; the runtime measures such events
 *    (instances__hook_cost: by the gap after the thread's previous event),
 *    and the surplus over the warm value (the event's own measurement, from
 *    its hook_cost record, else its bin's mean; with the measuring's own
 *    cost) is taken out too: Ce, a cold enter's part after
 *    its timestamp, lies inside its call; Cx, a cold exit's, and Cb, the
 *    part of an armed enter before its timestamp, inside the caller, so
 *      inclusive -= own Ce + every descendant's Ce, Cb and Cx
 *      exclusive -= own Ce + the direct children's Cb and Cx
 *    Unmeasured: hooks within 2 us of the previous record (and, in traces
 *    of older runtimes, within their cold gap), and the part before the
 *    timestamp of an enter that does not follow a measured event.
 */
#ifndef FOLD_INSTANCES_H
#define FOLD_INSTANCES_H

#include <stddef.h>
#include <stdint.h>

#include "ingest.h"
#include "util.h"

typedef struct instances__instance {
	uint64_t t0, t1; /* ticks */
	double start_ns, dur_ns;
	uint32_t proc, thread; /* trace index, thread index in that trace */
	uint32_t ev_enter, ev_exit;
	uint32_t sb, se;      /* sample range (of a piece: the samples it owns) */
	uint32_t isb, ise;    /* the whole instance's sample range */
	uint32_t id;          /* index of the instance in its region (pieces of one instance share it) */
	uint32_t nested_same; /* how many instances of the same region enclose it */
	uint32_t group;
	uint8_t used;
	uint8_t why;  /* instances__exclusion */
	uint8_t cont; /* 1: a further piece of the same instance (see instances__instance_pieces) */
} instances__instance;

enum instances__exclusion {
	FOLD__USED = 0,
	FOLD__EXCL_OUTLIER = 1,     /* duration outside median +- k*MAD of its group */
	FOLD__EXCL_ISOLATED = 2,    /* duration cluster too small to be a group */
	FOLD__EXCL_OTHER_GROUP = 3, /* belongs to a group that was not folded */
	FOLD__EXCL_NESTED =
	    4, /* unused since recursive instances fold at every depth (kept: stable values) */
};

typedef struct instances__prof_thread {
	uint32_t proc, thread;
	uint64_t calls;
	double incl, excl, min, max;
	double hooks;       /* the calls' own hooks, as their callers see them (ns) */
	double hooks_first; /* of which a first call's one-time work */
	double nested;      /* fold's measurement inside the outermost calls, taken out of incl
	                       besides their own hooks: nested calls' hooks, trace writing */
} instances__prof_thread;

typedef struct instances__region_acc {
	instances__instance *inst;
	size_t ninst, cap_inst;
	instances__prof_thread *pt;
	size_t npt, cap_pt;
	unsigned long unclosed;   /* enters never matched by an exit (mismatch, thread end) */
	unsigned long stray_exit; /* exits without an enter */
} instances__region_acc;

typedef struct instances__callpair_acc {
	uint64_t key; /* (caller + 1) << 32 | (callee + 1), global region indices */
	uint64_t calls;
	double incl;
} instances__callpair_acc;

typedef struct instances__callpairs {
	instances__callpair_acc *e; /* e[0..n): the pairs in order of first call */
	util_hmap by_key;           /* key -> index into e */
	size_t cap, n;
} instances__callpairs;

/* Walks every thread of trace t (index proc). map[id] gives the global
 * region index of trace region id (ids >= nmap are ignored as undefined).
 * Instances and profile data are appended to acc[global index]. */
/* Calibrated cost of the compiler hooks, ns (0 when the trace has none). */
#define INSTANCES__COLD_BINS 16
typedef struct instances__hook_cost {
	double pair_ns;  /* one recorded enter+exit pair */
	double inner_ns; /* the part between the call's own two timestamps */
	/* Cold hooks, by the gap of an instrumented function's event after the
	 * thread's previous function event (traces of older runtimes: previous
	 * record): nbins bins (0: none measured) with lower
	 * bounds bin_lo_ns; events in bins >= 1 are measured after their
	 * timestamp, enters after such an event (armed) before it too. Per bin
	 * the surplus over the calibration, the measuring's own cost included:
	 * of an enter after its timestamp (inside the call), of an exit after
	 * it and of an armed enter before it (both outside the call). */
	unsigned nbins;
	int gap_from_function; /* the gap after the previous function event, not any record */
	double bin_lo_ns[INSTANCES__COLD_BINS];
	double enter_ns[INSTANCES__COLD_BINS], exit_ns[INSTANCES__COLD_BINS], before_ns[INSTANCES__COLD_BINS];
	double enter_after_ns; /* warm: an enter's part after its timestamp */
	/* warm: an exit's part after its timestamp, an armed enter's before
	 * it; what measuring costs beyond what it measures, after and before
	 * (for events the trace measures one by one, hook_cost records) */
	double exit_after_ns, before_warm_ns, measure_after_ns, measure_before_ns;
} instances__hook_cost;

/* First calls. The runtime's one-time work for a function (deciding about
 * it, a thread's first hook) runs in the enter hook of its first recorded
 * call; the runtime measures it per function on both sides of that call's
 * timestamp (STAT overhead.first_enter_before_ticks.ID and
 * overhead.first_enter_after_ticks.ID). fold takes it to be the function's
 * earliest enter in the process: the part after the timestamp, over the
 * warm value, is taken out as a cold enter's Ce is (instead of it).
 *
 * Own hooks. What a program's timer around one call of an instrumented
 * function holds besides the function: the call's own enter and exit hooks,
 * which the compensation above keeps out of the function's times. fold
 * reports it per function and thread (profile hooks_ns): P per call, the
 * call's own cold surpluses (Ce and Cb of its enter, Cx of its exit), and
 * for a first call the one-time work before its timestamp. */

int instances__build(const ingest__trace *t, unsigned proc, const uint32_t *map, size_t nmap,
                     instances__region_acc *acc, size_t nacc, instances__hook_cost hook,
                     instances__callpairs *pairs);

/* Pieces of the instances inst[0..n) of one region, sorted by (process,
 * thread, start, longest first) as fold_region sorts them: one piece per
 * instance owning its samples outside its directly nested instances of the
 * same region, plus one more piece per such nested instance (the samples
 * after it). The first piece of an instance has cont = 0; all carry the
 * instance's index in id and its whole sample range in isb/ise. Non-recursive
 * regions get one piece per instance. Returns NULL on allocation failure. */
instances__instance *instances__instance_pieces(const instances__instance *inst, size_t n, size_t *npieces);

void instances__region_acc_free(instances__region_acc *a);
void instances__callpairs_free(instances__callpairs *p);

#endif
