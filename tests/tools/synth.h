/* synth.h: synthetic traces with a known truth, for tests and benchmarks.
 *
 * Owns generating real trace files (through trace_writer.h) of a program
 * whose repetitive region has known piecewise-constant counter rates:
 * phases with given boundaries, per-phase rates of each counter (events per
 * second) and CPU utilisation, several duration groups, instance-length
 * jitter, sampling jitter, counter noise, outlier instances (stalled: same
 * events, longer duration) and optional counter-set rotation (half of the
 * threads carry only a subset of the counters), preemption (a pause at a
 * random moment of an instance, exponential length, during which nothing
 * counts: a unimodal duration distribution with a tail) and phase-length
 * jitter (one phase's length varies, so the switch moves in x), boundary
 * position jitter (every inner boundary moves on its own in each instance,
 * the duration unchanged), groups that differ in rate or run the phases in
 * the opposite order, and smooth per-instance rate curves (a sine or a
 * ramp over the instance multiplying every counter's rate).
 *
 * Invariants: deterministic for a given configuration (seeded splitmix64);
 * counters are cumulative and monotone, and the values recorded at region
 * boundaries lie on the same path as the sampled ones.
 */
#ifndef FOLD_SYNTH_H
#define FOLD_SYNTH_H

#include <stddef.h>
#include <stdint.h>

#define SYNTH_MAX_PHASES 16
#define SYNTH_MAX_COUNTERS 8
#define SYNTH_MAX_GROUPS 4

typedef struct synth_counter {
	const char *name;
	unsigned kind;                 /* TRACE_COUNTER_APP, _SOFTWARE, _HARDWARE */
	double rate[SYNTH_MAX_PHASES]; /* events per second in each phase */
	double gap_rate;               /* between instances */
} synth_counter;

typedef struct synth_group {
	double duration_ns; /* mean instance duration */
	double weight;      /* share of instances */
	double rate_scale;  /* multiplies every rate (1 = same) */
} synth_group;

/* A smooth rate curve over the instance (synth_config.shape): every
 * counter's rate at position x of an instance (a share of its active time)
 * is its phase's rate times 1 + amp * sin(2 pi freq x + phi) (SINE) or
 * 1 + amp * (2x - 1) (RAMP: from 1 - amp at the start to 1 + amp at the
 * end). */
enum { SYNTH_SHAPE_NONE = 0, SYNTH_SHAPE_SINE, SYNTH_SHAPE_RAMP };

typedef struct synth_config {
	uint64_t seed;
	unsigned threads;   /* streams (default 1) */
	unsigned instances; /* per thread */
	unsigned nphases;
	double bounds[SYNTH_MAX_PHASES + 1]; /* bounds[0] = 0 ... bounds[nphases] = 1 */
	double cpu[SYNTH_MAX_PHASES];        /* CPU utilisation per phase (0..1) */
	unsigned ncounters;
	synth_counter counters[SYNTH_MAX_COUNTERS];
	unsigned ngroups;
	synth_group groups[SYNTH_MAX_GROUPS];
	double duration_jitter;                   /* relative sd of instance durations (Gaussian) */
	double gap_ns;                            /* time between instances */
	double period_ns;                         /* sampling period */
	double sample_jitter;                     /* uniform +- fraction of the period */
	double noise;                             /* relative sd of counter increments between records */
	double counter_noise[SYNTH_MAX_COUNTERS]; /* extra relative noise of one counter */
	double phase_jitter;    /* relative sd of the length of phase jitter_phase only: moves the
	                           switch from instance to instance (smear), unlike duration_jitter */
	unsigned jitter_phase;  /* the phase whose length phase_jitter varies */
	double preempt;         /* share of instances preempted once, at a uniform random moment */
	double preempt_mean_ns; /* mean length of a preemption (exponential); nothing counts meanwhile */
	int preempt_fixed;      /* 1: every preemption lasts exactly preempt_mean_ns (a regular competitor) */
	double preempt_at;      /* > 0: it starts at this share of the active time (else anywhere) */
	int preempt_on_cpu;     /* 1: the thread's CPU clock runs on through it (a VM's stop, which the
	                           guest does not see); the counters still do not count */
	double outliers;        /* share of instances stalled */
	double outlier_factor;  /* their duration multiplier (same events) */
	int boundary_counters;  /* record counters at enter/exit (default 1) */
	double boundary_missing; /* ... except in this share of the instances */
	int rotate_sets;         /* odd threads carry only the first counter */
	int stacks;              /* record a 3-frame stack whose leaf depends on the phase */
	const char *region_name;
	/* With stacks: the module their addresses (0x400000-0x40ffff) lie in
	 * (NULL: none); a path that cannot be read makes a module without
	 * symbols, whose addresses read "[name+0x...]" */
	const char *stack_module;
	/* With stacks: nonzero records the leaf alone, then this frame
	 * (TRACE_FRAME_NOT_UNWOUND_*), as the runtime does where it cannot unwind */
	unsigned stack_not_unwound;
	/* The sample's own cost in the program (0: none): every sample stops the
	 * program for sample_cost_ns (kernel delivery, then the handler, as a
	 * real sampler does); the trace records only the handler's part
	 * (sample_handler_ns, from its entry to its exit) and the timestamp's
	 * lag after the entry (sample_lag_ns), as sample_cost records. The
	 * sampling clock runs on wall time; counters stop, CPU time runs. */
	double sample_cost_ns, sample_handler_ns, sample_lag_ns;
	/* ... of which this much comes after the handler (the signal's return);
	 * the rest of the cost beyond the handler is before its entry */
	double sample_after_ns;
	/* 1: one more counter, perf::TASK-CLOCK (software), the thread's CPU
	 * time in ns as the kernel counts it: the program's CPU time and every
	 * sample's whole cost, read at enter/exit (with boundary_counters) and
	 * by each sample's handler after its delivery and lag */
	int cpu_clock_counter;
	/* The handler reads that CPU clock this much after the sample's
	 * timestamp (negative: before it), on the CPU meanwhile: the value is
	 * ahead of (behind) the sample's moment by it, as a read(2) of the
	 * counters is that long after (before) the timestamp in a real handler */
	double sample_read_offset_ns;
	/* This share of the samples takes sample_delivery_factor times the
	 * delivery before the handler (0.25: a VM's timer interrupt that found
	 * the vCPU running, on XSBench 22 us against a typical 38; 2: the long
	 * tail, up to 60 us there) */
	double sample_delivery_share, sample_delivery_factor;
	/* 1: the sample_cost records carry each sample's delivery before the
	 * handler (delivery_ns, as a wall-clock timer's handler measures it:
	 * its entry less the timer's deadline) */
	int sample_delivery_recorded;
	/* 1: a timer that expires while the program is preempted is delivered
	 * when it runs again, as a signal is: the sample is taken then, with
	 * the counters of the deadline (nothing ran), and its recorded delivery
	 * holds the wait */
	int sample_deferred;
	/* The program stops this long after the timer's deadline (negative:
	 * before it, as on a KVM guest, about -0.9 us): the stops are where
	 * they are without it, the deadlines that much off, so a recorded
	 * delivery (entry less deadline) is the stop before the handler plus
	 * this; 1 in
	 * sample_stop_probe: the trace says so (INFO sample.stop_onset_ns, and
	 * sample.return_ns = sample_after_ns), as the runtime's stop probe does */
	double sample_stop_onset_ns;
	int sample_stop_probe;
	/* > 0: inside every instance a nested instrumented function (region 2,
	 * events without counters) is called every inner_call_ns of the
	 * program's time and runs for half of it, as in a build with
	 * -finstrument-functions */
	double inner_call_ns;
	double odd_shift; /* odd instances' first boundary moved by this share of the instance */
	/* 1: the sampling timer counts the thread's CPU time, not wall time
	 * (FOLD_SAMPLE=cputime): a sample every period_ns of CPU, so instances
	 * that run on a CPU less are sampled less. Needs sample_cost_ns 0. */
	int cputime_sampling;
	/* 1: instances join the groups in a regular interleaving by weight
	 * (with two groups of weights 1 and 1: alternating), not at random */
	int groups_regular;
	/* 1: group g's instances run the phases in the opposite order */
	int group_reversed[SYNTH_MAX_GROUPS];
	/* > 0: every inner boundary of every instance moves by a uniform
	 * +-bound_jitter share of the instance, each on its own; the nominal
	 * boundaries stay the mean positions while the shifts keep the phases in
	 * order (a shift beyond the neighbouring boundary is clipped to it) */
	double bound_jitter;
	unsigned shape; /* SYNTH_SHAPE_*: a smooth rate curve over the instance */
	double shape_amp, shape_freq, shape_phi;
} synth_config;

/* Defaults: one thread, 200 instances of 1 ms, one group, two phases split at
 * 0.37 with an app counter at 1e9/s then 3e8/s, CPU 1.0 then 0.5, 50 us
 * sampling with 50% jitter, no noise, no outliers, no preemption, no phase
 * jitter (jitter_phase 1, preempt_mean_ns 1 ms). */
void synth_config_init(synth_config *c);

typedef struct synth_truth {
	unsigned long samples_in_instances;
	unsigned long instances;
	unsigned long outliers;
} synth_truth;

/* One instance as written (synth_write_instances). */
typedef struct synth_instance {
	unsigned thread;    /* its stream id (1, 2, ...) */
	unsigned group;     /* index into synth_config.groups */
	int reversed;       /* its phases ran in the opposite order */
	int preempted;      /* paused once (synth_config.preempt) */
	int outlier;        /* stalled (synth_config.outliers) */
	double start_ns;    /* its enter record's timestamp */
	double duration_ns; /* its exit's less its enter's */
} synth_instance;

/* Writes the trace. Returns 0 or a negative errno. truth may be NULL. */
int synth_write(const synth_config *c, const char *path, synth_truth *truth);
/* The same, and every instance into inst (thread by thread, in time
 * order; room for cap: threads * instances fill it). */
int synth_write_instances(const synth_config *c, const char *path, synth_truth *truth, synth_instance *inst,
                          size_t cap);
/* The shape's factor at x (1 without a shape). */
double synth_shape_at(const synth_config *c, double x);

/* Fake code address of the leaf function active in phase p (for stacks). */
uint64_t synth_phase_address(unsigned p);

#endif
