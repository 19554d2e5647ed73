/* folding.h: projecting the samples of many instances onto one.
 *
 * Owns the folding arithmetic: a sample at tick t of an instance [t0, t1]
 * maps to x = (t - t0) / (t1 - t0), and a cumulative counter value v(t) to
 * y = (v(t) - v(t0)) / (v(t1) - v(t0)), its share of the instance's total.
 *
 * Invariants:
 *  - Boundary values come from the counters recorded at enter/exit when the
 *    event carries the counter (measured); otherwise they are estimated
 *    from the instance's own samples only: extrapolated with the rate
 *    between its first (last) two samples when it has at least 8, else with
 *    its mean rate between its first and last sample, bounded by the
 *    samples outside (the counter is cumulative and monotone). A
 *    neighbour's samples are never interpolated across a boundary, so a
 *    different rate outside the instance does not leak into it; an instance
 *    with fewer than two samples carrying the counter (and no measured
 *    boundary) does not take part in that counter's series.
 *  - Each counter uses only the instances whose samples carry it, so
 *    instances measured with different counter sets fold together.
 *  - An instance whose total for a counter is 0 contributes no points but
 *    counts (with 0 events) in the counter's rate.
 *  - CPU time (the samples' cpu_ns, accumulated per thread) folds like a
 *    counter; "wall time" is the identity y = x.
 *  - A folded point's y is a share of its own instance's total, so a slope
 *    of the folded curve is a rate relative to the typical instance's mean
 *    rate: median_rate converts it to events per second.
 */
#ifndef FOLD_FOLDING_H
#define FOLD_FOLDING_H

#include <stddef.h>
#include <stdint.h>

#include "ingest.h"
#include "instances.h"

/* Fewest samples in an instance for boundary extrapolation from inside it
 * (folding__boundary_value); with fewer, an estimated boundary value
 * assumes the instance's mean rate up to its edges. */
#define FOLDING__EXTRAPOLATE_MIN 8

enum folding__series_kind { FOLD__SER_COUNTER = 0, FOLD__SER_CPU = 1, FOLD__SER_WALL = 2 };

typedef struct folding__spec {
	int kind;
	const int64_t *ctr_id; /* per trace: counter id, or -1 when that trace lacks it */
} folding__spec;

typedef struct folding__folded {
	double *x, *y;
	uint32_t *inst; /* index (into the instance array) of each point's instance */
	size_t n, cap;
	double sum_total;   /* events (or CPU ns) over contributing instances */
	double sum_dur_ns;  /* their summed duration */
	size_t ninst;       /* instances that carry the counter */
	size_t nexact;      /* ... whose boundary values were recorded at enter and exit */
	size_t nskipped;    /* instances left out: no measured boundary and < 2 samples carrying it */
	size_t nzero;       /* ... with no event (contribute no point) */
	double median_rate; /* median over those instances of total / duration (per ns): the
	                       typical instance's rate, which stretched instances do not lower */
	/* relative standard errors over the instances of median_rate (1.2533
	 * robust sigma / sqrt(n)) and of sum_total / sum_dur_ns (the ratio's,
	 * instances as clusters); NAN with fewer than 2 instances */
	double median_rel_se, mean_rel_se;
} folding__folded;

/* Folds one series over the instances (pieces, see instances__instance_pieces)
 * with used != 0: points from each piece's own samples; boundary values,
 * totals and counts once per instance (its first piece). Point i's instance
 * is inst[].id. */
int folding__fold_series(ingest__trace *const *tr, const instances__instance *inst, size_t ninst,
                         const folding__spec *spec, folding__folded *out);
void folding__folded_free(folding__folded *f);

/* Value of counter id at sample k of thread th, or -1 when absent. */
int folding__sample_value(const ingest__trace *t, const ingest__thread *th, size_t k, uint32_t id, double *v);

/* Value of counter id recorded at event ev itself (measured, not
 * estimated), or -1 when the event does not carry it. */
int folding__event_value(const ingest__trace *t, const ingest__thread *th, const ingest__event *ev,
                         uint32_t id, double *v);

/* Counter value at an instance boundary (ev = its enter or exit event,
 * [sb, se) its samples). Exact when the event carries the counter; else
 * estimated from the instance's own samples (see the invariants). Returns 0
 * or -ENOENT when neither the event nor two of the instance's samples carry
 * the counter. */
typedef struct folding__boundary {
	const ingest__event *ev; /* the instance's enter or exit event */
	size_t sb, se;           /* its samples: [sb, se) of the thread's */
	int is_exit;             /* ev is the exit */
} folding__boundary;
int folding__boundary_value(const ingest__trace *t, const ingest__thread *th, const folding__boundary *b,
                            uint32_t id, int cpu, double *v);

#endif
