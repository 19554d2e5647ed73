/* truth_eval.h: random region structures with a known truth, folded and
 * judged (the randomized truth bench, bench/truth-bench.c).
 *
 * Owns drawing a scenario from a seed (a synth_config: phases and their
 * shares, rates and CPU, rate or phase-order populations, smooth curves,
 * boundary position jitter, waits, nested calls, threads, instance length,
 * sampling, competitors, the sample's cost), writing it as a trace, running
 * fold_analyze() on it and judging the region's answer against the truth
 * with the definitions of docs/validation.md ("The randomized truth
 * bench"): wrong phase count, a boundary off by more than 2% of the
 * instance, an app-counter rate off by more than 5%, a CPU rate off by more
 * than 0.05 CPU; interval coverage; the fidelity flag; population mixtures.
 *
 * Invariants: a scenario is a function of (seed, index) alone; the judge
 * reads only the public analysis result (analysis.h), never fold's
 * internals.
 */
#ifndef FOLD_TRUTH_EVAL_H
#define FOLD_TRUTH_EVAL_H

#include <stddef.h>
#include <stdint.h>

#include "synth.h"

/* Families: what a scenario has (several at once; clean: none of them). */
enum {
	TRUTH_CLEAN =
	    1u << 0,         /* homogeneous, steps, no jitter, waits or competitors, >= 100 us, >= 1 sample */
	TRUTH_POP = 1u << 1, /* two populations of instances that differ in rate */
	TRUTH_ORDER = 1u << 2,  /* two populations that run the phases in opposite orders */
	TRUTH_SMOOTH = 1u << 3, /* a smooth rate curve (sine or ramp), no steps */
	TRUTH_JITTER = 1u << 4, /* boundaries move independently in every instance */
	TRUTH_WAIT = 1u << 5,   /* a wait phase: CPU 0.01-0.05, the counter near 0 */
	TRUTH_SHORT = 1u << 6,  /* instances under 100 us */
	TRUTH_LOAD = 1u << 7,   /* CPU competitors: instances preempted */
	TRUTH_COARSE = 1u << 8, /* fewer samples than instances */
	TRUTH_NFAMILIES = 9
};
const char *truth_family_name(unsigned bit_index);

/* Why an answer is wrong (bits). */
enum {
	TRUTH_WRONG_COUNT = 1u << 0,    /* phase count differs from the truth */
	TRUTH_WRONG_BOUNDARY = 1u << 1, /* a boundary off by > 2% of the instance */
	TRUTH_WRONG_RATE = 1u << 2,     /* an app-counter phase rate off by > 5% */
	TRUTH_WRONG_CPU = 1u << 3,      /* a CPU rate off by > 0.05 CPU */
	TRUTH_WRONG_CURVE = 1u << 4,    /* smooth: the curve off by > 5% away from the ends */
	TRUTH_WRONG_MIXTURE = 1u << 5,  /* the folded instances hold both populations */
	TRUTH_NWHY = 6
};

typedef struct truth_scenario {
	uint64_t seed; /* the draw's seed */
	unsigned index;
	unsigned families;
	synth_config cfg;
	int pop;        /* 0: one population; 1: by rate; 2: by phase order (group 1 the minority) */
	double spi;     /* samples per instance (period vs duration) */
	int regular;    /* populations interleaved regularly (else at random) */
	unsigned waits; /* wait phases */
	char shape_desc[48];
} truth_scenario;

/* The truth of one population, as fold should see it: phases with equal
 * rates merged (a boundary between equal rates is not one). */
typedef struct truth_phases {
	unsigned n;
	double bounds[SYNTH_MAX_PHASES + 1];
	double rate[SYNTH_MAX_PHASES];    /* app::work, events/s */
	double cpu[SYNTH_MAX_PHASES];     /* CPUs */
	double samples[SYNTH_MAX_PHASES]; /* expected samples in it over the population's instances */
	int resolvable[SYNTH_MAX_PHASES];
} truth_phases;

typedef struct truth_verdict {
	int folded; /* 0: fold declined (not folded): neither right nor wrong */
	int wrong;
	unsigned why;            /* TRUTH_WRONG_* */
	int missed_unresolvable; /* right once unresolvable truth phases are merged away */
	int flagged;             /* fidelity verdict not CONSISTENT */
	unsigned verdict, reasons;
	size_t nphases;                                          /* fold's */
	unsigned truth_n;                                        /* the truth's (merged) */
	double worst_boundary, worst_rate, worst_cpu, curve_err; /* NAN: not judged */
	/* coverage of the truth by fold's 90% intervals (over answers with the
	 * right phase count), and how many truths had no interval at all */
	unsigned bnd_n, bnd_in, bnd_none;
	unsigned rate_n, rate_in, rate_none;
	unsigned cpu_n, cpu_in, cpu_none;
	unsigned band_n, band_in; /* smooth: curve grid points inside the curve's band */
	unsigned rates_withheld;  /* phases without an app-counter rate */
	/* populations */
	int matched;        /* fold's instances matched to the written ones */
	double used_share;  /* of the instances, folded */
	int folded_pop;     /* the population most of the folded instances belong to */
	double other_share; /* of the folded instances, from the other population */
	int mixed, split, silent_mixture;
	double write_s, fold_s; /* seconds writing the trace, in fold_analyze() */
	char answer[512];       /* fold's phases: start:app-rate:cpu ... */
	char truth[512];
	char reasons_text[96];
	char why_text[96];
} truth_verdict;

/* Draws scenario index of the draw seed. */
void truth_draw(uint64_t seed, unsigned index, truth_scenario *s);
/* The truth of population g of s. samples_in_instances: from synth_truth. */
void truth_phases_of(const truth_scenario *s, unsigned g, double samples, truth_phases *t);
/* Writes s to path, folds it, judges it. 0 or a negative errno (err says
 * what failed). */
int truth_run(const truth_scenario *s, const char *path, truth_verdict *v, char *err, size_t errlen);
/* The scenario's parameters in one line (for CSV and reports). */
void truth_describe(const truth_scenario *s, char *buf, size_t len);

#endif
