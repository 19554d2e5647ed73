/* analysis.h: the result of analysing one or more traces.
 *
 * This is the contract between the analysis (src/fold: load, instances,
 * groups, fold, fits, models, symbols, profiles) and every output
 * (src/report: HTML, terminal, JSON, CSV, exports). The analysis fills a
 * fold_analysis; outputs only read it. Everything is owned by the
 * fold_analysis and freed by fold_analysis_free().
 *
 * Units: times in nanoseconds (double), normalised positions in [0,1],
 * rates in events per second, ratios dimensionless.
 */
#ifndef FOLD_ANALYSIS_H
#define FOLD_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

typedef struct fold_kv {
	char *key;
	char *value;
} fold_kv;

/* One parameter a region's fits chose or used, typed: a number with its
 * unit, a whole number (a count, the seed) with its unit, or a word naming
 * a choice (the Kriging kernel). What the fits did that a reader should
 * know in words (a fallback, a clamp, which series) is a note instead
 * (fold_region_result.fit_notes). */
typedef enum fold_fit_kind {
	FOLD_FIT_NUMBER,  /* value */
	FOLD_FIT_INTEGER, /* integer */
	FOLD_FIT_WORD,    /* word */
} fold_fit_kind;

typedef struct fold_fit_param {
	char *name; /* "pwlr.segments", "kriging.length_scale" */
	fold_fit_kind kind;
	double value;
	uint64_t integer;
	char *word;
	/* static text: "" (a pure number), "ns", "instance" (a share of the
	 * instance), or what a count counts ("segments", "instances") */
	const char *unit;
} fold_fit_param;

typedef struct fold_counter_info {
	char *name;
	unsigned kind; /* enum trace_counter_kind */
} fold_counter_info;

typedef struct fold_missing_counter {
	char *name;
	char *reason;
} fold_missing_counter;

/* How a process was sampled (FOLD_SAMPLE, docs/configuration.md), as its
 * trace's INFO says (sample.source, sample.event, sample.period,
 * sample.jitter), parsed in one place (src/fold/ingest/run_facts.c). */
typedef enum fold_sample_mode {
	FOLD_SAMPLING_UNKNOWN = 0, /* the trace does not say, or names a source fold does not know */
	FOLD_SAMPLING_OFF,         /* off: no samples */
	FOLD_SAMPLING_WALL_TIMER,  /* time@PERIOD: every PERIOD ns of wall time */
	FOLD_SAMPLING_CPU_TIMER,   /* cputime@PERIOD: every PERIOD ns of the thread's CPU time */
	FOLD_SAMPLING_OVERFLOW,    /* EVENT@COUNT: every COUNT occurrences of an event */
} fold_sample_mode;

typedef struct fold_sampling {
	fold_sample_mode mode;
	const char *source; /* as the trace says ("time", "papi", ...), NULL when it does not */
	const char
	    *event;    /* "CLOCK_MONOTONIC", "CLOCK_THREAD_CPUTIME_ID", "PAPI_TOT_CYC", ...; NULL: unsaid */
	double period; /* ns for a timer, occurrences for an overflow; 0: unknown or malformed */
	double jitter; /* fraction of the period, [0, 1); 0: unknown or malformed */
} fold_sampling;

/* The period in ns of a timer (wall or CPU time), else 0 (an overflow's
 * period counts events; off and unknown have none). */
static inline double fold_sampling_period_ns(const fold_sampling *s)
{
	return s->mode == FOLD_SAMPLING_WALL_TIMER || s->mode == FOLD_SAMPLING_CPU_TIMER ? s->period : 0;
}

/* The compiler hooks' cost as the runtime calibrated it (INFO overhead.*,
 * docs/trace-format.md). A value the trace does not carry, or carries
 * malformed, is NaN (older runtimes wrote some as STAT records, which the
 * analysis reads first). */
#define FOLD_FACTS_COLD_BINS 16
typedef struct fold_hook_facts {
	double pair_ns;     /* overhead.hook_ns: a recorded enter+exit pair */
	double pair_ns_old; /* calibration.hook_ns: the same, older runtimes */
	double inner_ns;    /* overhead.hook_inner_ns: its part between the two timestamps */
	double enter_after_ns, exit_after_ns, enter_before_ns; /* overhead.hook_*_ns: warm */
	double measure_after_ns, measure_before_ns;            /* overhead.cold_measure_*_ns */
	double cold_gap_ns; /* overhead.cold_gap_ns: older runtimes' one gap */
	/* overhead.cold_bins_ns: present (has_cold_bins), and its increasing
	 * lower bounds (ncold_bins 0: malformed) */
	int has_cold_bins;
	unsigned ncold_bins;
	double cold_bin_lo_ns[FOLD_FACTS_COLD_BINS];
	int gap_from_function; /* overhead.cold_gap_from is "function" */
} fold_hook_facts;

/* The facts of one process' run, from its trace's INFO records, parsed
 * once (src/fold/ingest/run_facts.c) and read by the analysis and the
 * exporters (export_data.h). Strings point into the trace's INFO and live
 * as long as it; an integer the trace does not carry, or carries
 * malformed or out of range, is -1. */
typedef struct fold_facts {
	fold_sampling sampling;
	long pid, ppid;
	long rank, size;      /* mpi.rank, mpi.size */
	long exec_generation; /* 0 for the first image, +1 per exec */
	long fork_parent_pid; /* a fork child's parent */
	const char *host, *exe, *cmdline, *cwd;
	const char *clock_source;  /* "tsc", "monotonic" */
	double tick_hz;            /* clock.tick_hz; 0: unknown */
	int has_start;             /* start.realtime_ns present and well-formed */
	int64_t start_realtime_ns; /* ns since the epoch at the process' start (has_start) */
	const char *compress;      /* trace.compress: "zstd:1", "zlib:6", "none" */
	const char *counters_mode; /* counters.mode: "hardware", "software", ... */
	/* The runtime's stop probe (sample.stop_onset_ns, sample.return_ns):
	 * the kernel's stop onset after a timer's deadline (0 without a usable
	 * probe) and its return after the handler (-1: not probed); each bounded
	 * to 50 us, beyond which it cannot be a probe. */
	double stop_onset_ns, stop_return_ns;
	fold_hook_facts hooks;
} fold_facts;

/* One measured process (one trace file). */
typedef struct fold_process {
	char *trace_path;
	fold_kv *info; /* every INFO record of the header, in file order */
	size_t ninfo;
	const char *host, *exe, *cmdline; /* point into info (may be NULL) */
	long pid;
	long rank, size; /* -1 when not an MPI run */
	unsigned nthreads;
	double duration_ns;
	fold_kv *stats; /* STAT records (samples taken/dropped by reason, bytes) */
	size_t nstats;
	char **salvage_messages; /* what the reader lost, one line each */
	size_t nsalvage;
	/* How the process ended: FOLD_END_NORMAL (the runtime's end records),
	 * FOLD_END_CUT (none: the process ended without the final flush:
	 * killed, by SIGKILL or the OOM killer, or through the exit_group
	 * system call, as Go programs exit) or FOLD_END_SIGNAL (the crash path
	 * recorded end_signal). */
	int end;
	int end_signal;
	/* chunks of a cut process that its live file gave back: what it had
	 * recorded up to its end (0: the trace holds what was flushed) */
	uint64_t chunks_recovered;
	/* 1 when this image ended in an exec: another of the traces is the same
	 * host and pid at the next exec generation (an MPI singleton's fork of
	 * the program before it became orted, a shell before its command). */
	int exec_replaced;
} fold_process;

enum { FOLD_END_NORMAL = 0, FOLD_END_CUT = 1, FOLD_END_SIGNAL = 2 };

/* A source location with its chain of inlined calls (innermost first). */
typedef struct fold_source_frame {
	char *function; /* demangled; Fortran module procedures as module::name */
	char *file;     /* NULL when no line information */
	unsigned line;
	unsigned call_line; /* for inlined frames: the line of the call site */
	char *call_file;
} fold_source_frame;

typedef struct fold_attribution {
	char *function;
	char *file; /* NULL when unknown */
	unsigned line;
	char *module;
	double share; /* of the phase's (or profile's) samples, in [0,1] */
	unsigned long samples;
	fold_source_frame *inline_chain; /* innermost first; may be empty */
	size_t ninline;
} fold_attribution;

/* A curve on a regular grid over the normalised instance time [0,1]. */
typedef struct fold_curve {
	size_t n;
	double *x;       /* grid positions */
	double *cum;     /* fitted cumulative share in [0,1], monotone (may be NULL for derived metrics) */
	double *value;   /* rate (events/s) or ratio at x */
	double *lo, *hi; /* optional uncertainty band of value (NULL if none) */
} fold_curve;

/* One counter or derived metric folded over a region group. */
typedef struct fold_series {
	char *name;            /* counter name or metric name */
	char *unit;            /* "events/s", "ratio", ... */
	int derived;           /* 1 for metrics computed from a model */
	unsigned counter_kind; /* for counters: enum trace_counter_kind */
	/* The folded samples: x in [0,1], y = cumulative share at x. */
	size_t npoints;
	double *px, *py;
	fold_curve fit;
	double total_per_instance; /* mean events per instance */
	double mean_rate;          /* over the whole instance */
	double fit_error;          /* RMS residual of the fit on cumulative share */
	/* 1: the values at the instances' enter/exit were not read there but
	 * estimated from each instance's own samples (CPU time; counters of
	 * function and OpenMP regions): the ends of the instance are an
	 * extrapolation of the rate its samples measured. */
	int boundaries_estimated;
	size_t instances_folded;  /* instances that contribute to this series */
	size_t instances_skipped; /* left out: no value read at the boundaries and < 2 samples inside */
} fold_series;

typedef struct fold_phase_result {
	double start, end; /* in [0,1] */
	size_t nrates;
	char **rate_names;
	double *rates;
	fold_attribution *top; /* functions/lines by share, largest first */
	size_t ntop;
	unsigned long samples;
	/* Of those, samples whose timer expired while the thread was off the
	 * CPU (delivered a wait later, where it ran again, and folded at their
	 * deadline too): evidence of a wait, not of the thread running there. */
	unsigned long samples_waited;
	/* Consecutive samples of one instance on either side of the phase,
	 * none inside it: what measures a phase the samples leave a gap at (a
	 * nested call's time, a wait the signal was delivered after). */
	unsigned long pairs_across;
	/* A gradual change (a ramp, not a step): its rates vary linearly from
	 * rate_from[k] at start to rate_to[k] at end (rates[k] is the mean);
	 * the first nrange rates have them (the folded series, not derived
	 * metrics). */
	int gradual;
	double *rate_from, *rate_to;
	size_t nrange;
	/* 90% intervals from a bootstrap over instances (NAN when none): of
	 * start (0 for the first phase: exact), and of the first nrate_ci
	 * rates (the folded series, not derived metrics). */
	double start_lo, start_hi;
	double *rate_lo, *rate_hi;
	size_t nrate_ci;
} fold_phase_result;

/* The region's self-check: the folded instances split in two interleaved
 * halves (odd/even), each folded on its own. Their agreement is the
 * region's fidelity figure: how far apart their boundaries nearest to each
 * phase boundary are (share of the instance) and their largest relative
 * rate difference over a phase (series that place boundaries). */
typedef struct fold_self_check {
	int done;            /* 0: not computed, why_not says why */
	const char *why_not; /* a static string, NULL when done */
	unsigned long instances_a, instances_b;
	size_t phases_a, phases_b;
	double boundary; /* largest boundary disagreement, share of the instance */
	double rate;     /* largest relative rate disagreement */
	/* What the evidence allows them to disagree by (sampling noise from the
	 * bootstrap, for halves of the instances, at ~99%; at least 1% of the
	 * instance and 3% of a rate), at the boundary and the rate that exceed
	 * their own allowance the most; reproducible: no disagreement beyond
	 * its allowance. */
	double boundary_allowed, rate_allowed;
	int reproducible;
	/* The same between the shorter and the longer half of the instances,
	 * for the boundary that moves most (position in the longer minus in
	 * the shorter; 0 when not computed): a phase whose length varies. */
	double duration_shift;
} fold_self_check;

/* The region's fidelity verdict: can its folded answer (phase count,
 * boundaries, rates) be trusted? It combines every check fold makes of its
 * own answer (the self-check above and the others stage_uncertainty and
 * later stages run); reasons holds a FOLD_FIDELITY_* bit for each check that
 * failed. Anything but CONSISTENT is a flag: the answer may be wrong. */
typedef enum fold_fidelity_verdict {
	FOLD_FIDELITY_UNCHECKED = 0,   /* no check could be made (why in self_check.why_not) */
	FOLD_FIDELITY_CONSISTENT,      /* every check passed */
	FOLD_FIDELITY_NOT_INFORMATIVE, /* the checks had no structure to compare */
	FOLD_FIDELITY_SUSPECT,         /* at least one check failed: reasons */
} fold_fidelity_verdict;

enum {
	FOLD_FIDELITY_HALVES = 1u << 0, /* the odd/even halves disagree beyond their noise */
};

typedef struct fold_fidelity {
	fold_fidelity_verdict verdict;
	unsigned reasons; /* FOLD_FIDELITY_* bits */
} fold_fidelity;

typedef struct fold_group {
	unsigned id;
	unsigned long instances;
	unsigned long used;
	unsigned long excluded_outliers;
	unsigned long excluded_other; /* e.g. unbalanced, no samples */
	double median_duration_ns;    /* the group's centre (median, or mode of a skewed group) */
	double mad_duration_ns;
	double mean_duration_ns; /* mean over its used instances */
	double min_duration_ns, max_duration_ns;
	unsigned long samples; /* samples inside its used instances */
	double total_ns;       /* summed duration of its used instances */
	double cpu_share;      /* median CPU time / duration of its used instances; NAN: unknown */
	int tail_of;           /* the slow tail of group tail_of (its instances, stretched); -1: not one */
} fold_group;

/* The routine active along the folded instance, at one stack depth. */
typedef struct fold_timeline_span {
	double start, end;
	char *function;
	char *file;
	unsigned line;
} fold_timeline_span;

typedef struct fold_timeline_level {
	unsigned depth; /* 0 = outermost frame below the region's own */
	fold_timeline_span *spans;
	size_t nspans;
} fold_timeline_level;

typedef struct fold_instance_info {
	double start_ns; /* from the process start */
	double duration_ns;
	unsigned thread; /* stream id */
	long rank;
	unsigned group;
	int used; /* 0 = excluded */
} fold_instance_info;

typedef struct fold_region_result {
	char *name;
	unsigned kind; /* enum trace_region_kind */
	unsigned long instances;
	unsigned long instances_used;
	unsigned long samples; /* samples inside instances of this region */
	unsigned long samples_folded;
	double total_ns;         /* summed inclusive duration of all instances (outermost, for recursion) */
	double mean_duration_ns; /* total_ns over those instances: the region's mean, outliers included */
	double folded_mean_duration_ns; /* mean duration of the folded (used) instances: the instance that
	                                   phases are shares of, and rates refer to (0 when none is used) */
	/* A throttled function (FOLD_THROTTLE): instances and total_ns are the
	 * recorded calls; est_total_ns (+- est_total_err_ns) the whole run's
	 * time from the samples whose stack holds it (est_samples; 0: none).
	 * The regions are ranked by the estimate when it is the larger. */
	int throttled;
	double est_total_ns, est_total_err_ns;
	unsigned long est_samples;
	int folded; /* 0: too few instances/samples; reason says why */
	char *reason;
	/* The same as a record (kind FOLD_DIAG_NOT_SELECTED...), when the code
	 * that decided it says so; NULL otherwise. Its message is reason. */
	struct fold_warning *not_folded;
	/* reason without its count (reason_count: the usable instances or the
	 * samples in them), shared by the regions that miss the same, so that
	 * they can be listed once with their counts; NULL when reason is the
	 * region's own (another group folds, throttled...) */
	char *reason_common;
	unsigned long reason_count;
	unsigned selected_group; /* the group that was folded */
	fold_group *groups;
	size_t ngroups;
	fold_series *series; /* counters first, then derived metrics */
	size_t nseries;
	fold_phase_result *phases;
	size_t nphases;
	fold_timeline_level *timeline;
	size_t ntimeline;
	fold_instance_info *inst; /* every instance, for the duration distribution */
	size_t ninst;
	char *fit_method;    /* "kriging" or "pwlr" */
	fold_fit_param *fit_params; /* hyper-parameters chosen, counts, the seed */
	size_t nfit_params;
	fold_kv *fit_notes; /* what the fits did, in words: key -> sentence */
	size_t nfit_notes;
	unsigned bootstrap_replicates; /* behind the phases' intervals (0: none) */
	fold_self_check self_check;
	fold_fidelity fidelity; /* the verdict over every check (stage_uncertainty) */
} fold_region_result;

/* One thread's share of a profile entry. */
typedef struct fold_profile_thread {
	unsigned proc;   /* index into fold_analysis.procs */
	long rank;       /* -1 when not an MPI run */
	unsigned thread; /* stream id */
	unsigned long calls;
	double inclusive_ns, exclusive_ns;
	double min_ns, max_ns; /* per call, inclusive */
	double hooks_ns;       /* the calls' own hooks as the callers see them (instances.h) */
	double hooks_first_ns; /* of which the function's first call's one-time work */
	/* fold's measurement inside the (outermost) calls, taken out of
	 * inclusive_ns besides their own hooks: the nested calls' hooks and
	 * the runtime's trace writing. A timer around the calls holds
	 * inclusive_ns + hooks_ns + nested_overhead_ns. */
	double nested_overhead_ns;
} fold_profile_thread;

/* Exact profile from region enter/exit, aggregated over threads and ranks. */
typedef struct fold_profile_entry {
	char *name;
	unsigned kind;
	unsigned long calls;
	double inclusive_ns, exclusive_ns;
	double min_ns, mean_ns, max_ns;  /* per call, inclusive */
	double hooks_ns, hooks_first_ns; /* own hooks, summed over threads (fold_profile_thread) */
	double nested_overhead_ns;       /* summed over threads (fold_profile_thread) */
	unsigned nthreads;
	fold_profile_thread *per_thread; /* one per (process, thread) that called it */
	size_t nper_thread;
	unsigned long unbalanced; /* enters without exit and exits without enter */
	/* Throttled (FOLD_THROTTLE): from throttled_at_ns (run time of the first
	 * process that throttled it) on, calls were not recorded, so calls and
	 * the times above cover only the recorded ones. The whole run's
	 * inclusive time estimated from the samples whose stack holds the
	 * function (est_samples of them; est_inclusive_err_ns one standard
	 * error); est_samples 0: no sample to estimate from. */
	int throttled;
	double throttled_at_ns;
	unsigned long est_samples;
	double est_inclusive_ns, est_inclusive_err_ns;
} fold_profile_entry;

/* The inclusive time to rank and judge a profile entry by: the sampled
 * estimate when the function was throttled and it is the larger. */
double fold_profile_rank_ns(const fold_profile_entry *p);

typedef struct fold_callpair {
	char *caller, *callee;
	unsigned long calls;
	double inclusive_ns;
} fold_callpair;

/* Sampled call tree node (top-down); children index into the same array. */
typedef struct fold_cct_node {
	char *function;
	char *file;
	unsigned line;
	unsigned long self_samples, total_samples;
	size_t parent;                    /* SIZE_MAX for roots */
	size_t first_child, next_sibling; /* SIZE_MAX = none */
} fold_cct_node;

/* Callers followed from a sample's function in the bottom-up tree at most. */
#define FOLD_BOTTOM_UP_DEPTH 24

/* Diagnostics (diag.c; docs/diagnostics.md lists every kind): each
 * warning, note and reason a region was not folded is a record with a kind,
 * a subject, the numbers behind it and its message. The writers group,
 * order and count the records; the message is the record in words. */
enum fold_diag_kind {
	FOLD_DIAG_UNCLASSIFIED = 0, /* a kind this build does not know */
	/* the run and its traces */
	FOLD_DIAG_PROGRAMS_MIXED,     /* run: traces of several programs (--allow-mixed) */
	FOLD_DIAG_OTHER_PROGRAM,      /* process: a helper program of the run */
	FOLD_DIAG_SAMPLES_DROPPED,    /* process: the runtime dropped samples (detail: why) */
	FOLD_DIAG_REGION_EVENTS_LOST, /* process: API region events lost in a stop */
	FOLD_DIAG_CUT_RECOVERED,      /* process: no final flush, recovered from the live file */
	FOLD_DIAG_CUT,                /* process: no final flush, no live file */
	FOLD_DIAG_CHUNKS_LOST,        /* process: chunks not written (disk full) */
	FOLD_DIAG_TRACE_DAMAGED,      /* process: the reader salvaged the trace */
	FOLD_DIAG_CLOCK_UNKNOWN,      /* process: ticks taken as nanoseconds */
	FOLD_DIAG_COUNTERS_DROPPED,   /* run: more counters than the analysis folds */
	FOLD_DIAG_REGIONS_UNDEFINED,  /* process: region ids without a definition */
	FOLD_DIAG_WRITER_PAUSES,      /* thread: writing the trace stopped it */
	FOLD_DIAG_REGION_UNBALANCED,  /* region: unbalanced enter/exit */
	FOLD_DIAG_FUNCTION_THROTTLED, /* function: FOLD_THROTTLE stopped recording it */
	FOLD_DIAG_CALLS_TOO_DEEP,     /* process: calls beyond the runtime's open-call limit */
	FOLD_DIAG_OWN_COST,           /* run (function: where it was most called from) */
	/* the region pipeline */
	FOLD_DIAG_REGION_NO_INSTANCE,   /* region: --region has no complete instance */
	FOLD_DIAG_GROUP_TOO_FEW,        /* group: holds the most time, too few to fold */
	FOLD_DIAG_GROUP_SLOW_TAIL,      /* group: the slow tail of another, which is folded */
	FOLD_DIAG_GROUP_STRETCHED,      /* group: stretched by preemption or waiting */
	FOLD_DIAG_GROUP_MISSING,        /* region: --group names a group it does not have */
	FOLD_DIAG_OUTLIERS_EXCLUDED,    /* region: duration outliers left out */
	FOLD_DIAG_LOW_CPU_SHARE,        /* region: its instances mostly off the CPU */
	FOLD_DIAG_INSTANCES_STARVED,    /* region: some instances preempted or waiting */
	FOLD_DIAG_KRIGING_FAILED,       /* counter: the piecewise-linear fit shown instead */
	FOLD_DIAG_CURVE_CONTRADICTS,    /* counter: the mean rate shown in some phases */
	FOLD_DIAG_PHASE_ENDPOINT_RATES, /* phase: rates from the enter/exit readings */
	FOLD_DIAG_PHASE_NO_RATES,       /* phase: too few samples for rates */
	FOLD_DIAG_SELF_CHECK_FAILED,    /* region: halves disagree */
	FOLD_DIAG_BOUNDARY_MOVES,       /* region: a boundary moves with the duration */
	FOLD_DIAG_ONE_PHASE,            /* region: too few samples to place boundaries */
	FOLD_DIAG_BOUNDARIES_ALIGNED,   /* region: instances aligned before the fit */
	FOLD_DIAG_SERIES_NOT_FOLDED,    /* counter: in the instances, but nothing to fold */
	/* why a region was not folded (fold_region_result.not_folded) */
	FOLD_DIAG_NOT_SELECTED,      /* region: --region names another */
	FOLD_DIAG_TOO_FEW_INSTANCES, /* region */
	FOLD_DIAG_TOO_FEW_SAMPLES,   /* region */
	FOLD_DIAG_NOTHING_FOLDABLE,  /* region: no counter, CPU time or sample */
	FOLD_DIAG_THROTTLED,         /* region: a throttled function */
	FOLD_DIAG_NKINDS
};

enum fold_diag_severity {
	FOLD_DIAG_NOTE = 0,    /* what the analysis did, worth knowing */
	FOLD_DIAG_WARNING = 1, /* a result is less certain, or data is missing */
};

/* What a diagnostic is about. Each field is set when it applies (-1 or
 * NULL when not): a thread also names its process, a phase its region. */
enum fold_diag_subject_type {
	FOLD_SUBJECT_RUN = 0,
	FOLD_SUBJECT_PROCESS,
	FOLD_SUBJECT_THREAD,
	FOLD_SUBJECT_REGION,
	FOLD_SUBJECT_GROUP,
	FOLD_SUBJECT_PHASE,
	FOLD_SUBJECT_COUNTER,
	FOLD_SUBJECT_FUNCTION,
};

typedef struct fold_diag_subject {
	unsigned type;  /* enum fold_diag_subject_type */
	long process;   /* index into fold_analysis.procs */
	long rank;      /* MPI rank of that process */
	char *trace;    /* its trace file */
	long thread;    /* stream id */
	char *region;   /* name, as the regions are named */
	long group;     /* duration group of the region */
	long phase;     /* 1-based, as the reports number phases */
	char *counter;  /* series: a counter or derived metric */
	char *function; /* a function of the profile */
	char *file;     /* and a source line in it (line 0: none) */
	unsigned line;
} fold_diag_subject;

/* A number behind a diagnostic: name and unit are static strings
 * ("count", "ns", "s", "share" in [0,1], "ratio"). */
typedef struct fold_diag_value {
	const char *name, *unit;
	double value;
} fold_diag_value;

#define FOLD_DIAG_MAX_VALUES 8

typedef struct fold_warning {
	unsigned kind;     /* enum fold_diag_kind */
	unsigned severity; /* enum fold_diag_severity (the kind's) */
	fold_diag_subject subject;
	fold_diag_value values[FOLD_DIAG_MAX_VALUES];
	size_t nvalues;
	char *detail; /* a word the kind defines (why samples were dropped...), or NULL */
	/* The message: the record in words. */
	char *what;
	/* The region or function the warning is about, as its full name
	 * appears in what from byte name_at on (name_len bytes; 0: none), so
	 * that a writer can show it as it names it elsewhere. */
	size_t name_at, name_len;
	/* The format it was said with (static; kept for unclassified records,
	 * which are of one kind when said by one call): NULL when unknown. */
	const char *format;
} fold_warning;

/* A kind's stable identifier ("samples_dropped"; "unclassified" for an
 * unknown kind), its severity, and the identifier of a severity and of a
 * subject type. */
const char *fold_diag_kind_id(unsigned kind);
unsigned fold_diag_kind_severity(unsigned kind);
const char *fold_diag_severity_id(unsigned severity);
const char *fold_diag_subject_type_id(unsigned type);
/* A subject about nothing (the run): every index -1, every name NULL. */
fold_diag_subject fold_diag_subject_none(void);
/* Whether two records are of one kind (unclassified: said by one call,
 * known by its format). */
int fold_diag_same_kind(const fold_warning *x, const fold_warning *y);
/* Whether two records are about the same subject. */
int fold_diag_same_subject(const fold_diag_subject *x, const fold_diag_subject *y);
/* The value named name of d, or NULL. */
const fold_diag_value *fold_diag_value_of(const fold_warning *d, const char *name);
/* Frees what d owns (its strings), not d. */
void fold_diag_free(fold_warning *d);

/* The function name of samples taken inside fold's own runtime (libfold.so:
 * region hooks, MPI and OpenMP wrappers): the measurement's cost. */
#define FOLD_MEASUREMENT_FUNCTION "fold measurement (libfold)"
/* The outermost frame of a sample the runtime did not unwind past its leaf
 * (trace frames TRACE_FRAME_NOT_UNWOUND_*): inside the dynamic loader,
 * where unwinding could deadlock, or where the unwinder stopped. Such a
 * sample's leaf is known, its callers are not: the call trees show it
 * under this root, not as a root of its own. */
#define FOLD_NOT_UNWOUND_LOADER "[not unwound: inside the dynamic loader]"
#define FOLD_NOT_UNWOUND_FAILED "[not unwound: the unwinder stopped]"
/* The CPU view's row for the CPU time that samples in a kernel wait measured
 * when their thread was mostly off the CPU: it ran before the wait began,
 * in code no sample caught running, not in the wait (threads_class.c). */
#define FOLD_BEFORE_WAIT_FUNCTION "[not sampled: before a wait]"
/* The CPU view's row for the CPU time that samples the runtime dropped
 * measured (a full buffer, a failed unwind, paused): where
 * it went is not known. */
#define FOLD_DROPPED_FUNCTION "samples the runtime dropped"

/* A function where threads ran (self: the innermost frame of a sample),
 * over the threads that are not idle runtime helpers (threads_class.c). */
typedef struct fold_hot_function {
	char *function;
	char *module; /* the object it is in (NULL when unknown) */
	char *file;   /* its most-sampled line (NULL when no line information) */
	unsigned line;
	unsigned long samples;
	unsigned long line_samples; /* samples at that line */
	double cpu_ns;              /* CPU time of those samples (0 when not measured) */
	double off_cpu_ns;          /* wall time between samples not spent on a CPU */
} fold_hot_function;

/* What a thread did, for the CPU/wall views and the thread selector. */
enum fold_thread_class {
	FOLD_THREAD_APP = 0,          /* the program's own threads (a process' main thread always) */
	FOLD_THREAD_OPENMP = 1,       /* OpenMP worker threads */
	FOLD_THREAD_RUNTIME_IDLE = 2, /* helper threads (MPI progress, runtime) that sat in kernel waits */
};

typedef struct fold_thread_summary {
	unsigned proc;   /* index into fold_analysis.procs */
	long rank;       /* -1 when not an MPI run */
	unsigned stream; /* stream id */
	unsigned index;  /* 0 = the process' main thread, then in order of first appearance */
	unsigned klass;  /* enum fold_thread_class */
	char *name;      /* thread name, NULL when unnamed */
	unsigned long samples;
	unsigned long wait_samples; /* samples in a kernel wait (epoll_wait, poll, futex, nanosleep...) */
	double wall_ns;             /* first to last record */
	double cpu_ns;              /* CPU time measured on it (cpu_known) */
	int cpu_known;
	/* its functions, by CPU time (by samples when !cpu_known), with a row
	 * FOLD_BEFORE_WAIT_FUNCTION for its CPU time before waits */
	fold_hot_function *top;
	size_t ntop;
	/* its first function in top that is one (not FOLD_BEFORE_WAIT_FUNCTION);
	 * points into top, NULL without one */
	const char *top_function;
} fold_thread_summary;

/* Imbalance of one region over ranks (or over the threads of one process). */
typedef struct fold_imbalance {
	char *region; /* region name; "computation (outside MPI)" for the ranks' useful time */
	unsigned kind;
	int by_thread;     /* 0: one value per rank; 1: per thread of process proc */
	unsigned proc;     /* by_thread: the process */
	size_t n;          /* ranks (or threads) */
	double *values_ns; /* per rank (or thread), in rank (thread) order */
	long *who;         /* the rank (or stream id) of each value */
	double min_ns, mean_ns, max_ns;
	double lb;    /* POP load-balance efficiency: mean / max, in (0,1] */
	long slowest; /* rank (or stream) with the largest value */
} fold_imbalance;

typedef struct fold_analysis {
	fold_process *procs;
	size_t nprocs;
	fold_counter_info *counters; /* union over processes */
	size_t ncounters;
	fold_missing_counter *missing;
	size_t nmissing;
	fold_region_result *regions; /* ranked by total_ns, largest first */
	size_t nregions;
	fold_profile_entry *profile;
	size_t nprofile;
	fold_callpair *callpairs;
	size_t ncallpairs;
	fold_cct_node *cct;
	size_t ncct;
	/* The same samples bottom-up: roots are the functions where samples
	 * landed (self), children their callers, each path weighted by the self
	 * samples at its leaf, at most FOLD_BOTTOM_UP_DEPTH deep. Roots are
	 * chained from bottom_up_root through next_sibling (SIZE_MAX: none). */
	fold_cct_node *bottom_up;
	size_t nbottom_up;
	size_t bottom_up_root;
	/* Sampled flat profile by source line (the interrupted line of every
	 * sample, with its inline chain), largest first; share of all samples. */
	fold_attribution *lines;
	size_t nlines;
	unsigned long total_samples;
	fold_warning *warnings;
	size_t nwarnings;
	char *sample_config;     /* e.g. "time@10ms jitter 10%" */
	double hook_overhead_ns; /* per enter+exit pair, subtracted from the profile (0: none) */
	/* A group (and a region) is folded with at least these many instances
	 * and samples inside them (fold_options). */
	unsigned min_instances, min_samples;
	/* The samples' own cost, taken out of folded instances and sample
	 * positions (not out of the exact profile): the mean handler time
	 * measured per sample, the kernel's delivery estimated per sample (0:
	 * not estimated, then only the handler's time is taken out), and how
	 * many samples had it (0: the traces carry no sample_cost records). */
	double sample_handler_ns, sample_delivery_ns;
	double sample_delivery_before_ns; /* the part of the delivery before the handler's entry */
	/* samples whose own delivery before the handler was measured (a
	 * wall-clock timer's deadline to the handler's entry, format 1.2) and
	 * used instead of the estimate; sample_delivery_before_ns is then
	 * their mean as used */
	unsigned long samples_delivery_measured;
	/* How far a sample's CPU-clock counter (TASK-CLOCK, CPU-CLOCK) was read
	 * after its timestamp, beyond what enter/exit records show (negative:
	 * before it), measured in busy instances and taken out of the samples'
	 * values (0: not measured; the largest over the traces) */
	double sample_cpu_clock_offset_ns;
	/* The runtime's stop probe (format 1.3, the last trace's that has
	 * one): the program's stop began this long after the timer's deadline
	 * (negative: before it) and it ran again this long after the handler's
	 * exit; return -1 without a probe. */
	double sample_stop_onset_ns, sample_return_ns;
	unsigned long samples_compensated;
	/* The runtime's own stops to write trace data (pause records, format
	 * 1.3): how many and their time, taken out of the exact profile (as
	 * hooks: into the hooks_ns of the call whose hook wrote) and of the
	 * folded timelines and instances. */
	unsigned long trace_writing_pauses;
	double trace_writing_ns;
	fold_kv *models_skipped; /* derived-metric model id -> one-line reason */
	size_t nmodels_skipped;
	char **models_used; /* ids of the models evaluated */
	size_t nmodels_used;
	/* Every thread of every process, in process then stream order. */
	fold_thread_summary *threads;
	size_t nthreads;
	/* Where the CPUs worked (largest CPU time first; by samples when no
	 * thread measured CPU time: cpu_weighted 0) and where threads spent
	 * wall time (most samples first), over the threads not classed
	 * FOLD_THREAD_RUNTIME_IDLE. */
	fold_hot_function *hot_cpu;
	size_t nhot_cpu;
	fold_hot_function *hot_wall;
	size_t nhot_wall;
	int cpu_weighted;
	/* What the views' shares are of: the CPU time of the threads that are
	 * not idle helpers and of the samples the runtime dropped, and those
	 * threads' samples (hot_cpu and hot_wall keep their top rows only, and
	 * a sample whose stack could not be read is in no row). */
	double hot_cpu_total_ns;
	unsigned long hot_samples_total;
	/* The CPU time measured by samples the runtime dropped (trace stats
	 * samples.dropped_cpu_ns.*, but while paused), and how many those
	 * were: a row FOLD_DROPPED_FUNCTION of hot_cpu, not in any thread's. */
	double dropped_cpu_ns;
	unsigned long dropped_cpu_samples;
	/* Imbalance over ranks (rank x region) and over the threads of a
	 * process (thread x OpenMP region), largest max/mean first. */
	fold_imbalance *imbalance;
	size_t nimbalance;
} fold_analysis;

void fold_analysis_free(fold_analysis *a);

/* "region", "function", "MPI", "OpenMP", "burst" or "other": how every
 * writer names a region's kind (TRACE_REGION_*). */
const char *fold_region_kind_label(unsigned kind);

/* A phase's duration in the folded instance: its share of the folded
 * instances' mean duration. */
static inline double fold_phase_duration_ns(const fold_region_result *r, const fold_phase_result *p)
{
	return (p->end - p->start) * r->folded_mean_duration_ns;
}

/* Builds a->bottom_up from a->cct (fold_analyze does; a hand-made analysis,
 * as in tests, calls it after filling cct). 0 or -ENOMEM. */
int fold_analysis_bottom_up(fold_analysis *a);

#endif
