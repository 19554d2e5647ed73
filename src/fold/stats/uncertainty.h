/* uncertainty.h: how sure the folded phases are.
 *
 * Owns two re-fits of the phase fit (pwlr.h) on resampled instances:
 *  - a bootstrap over instances: `replicates` resamples of the folded
 *    instances with replacement (a duplicated instance keeps its points
 *    together, as a new instance, so the design effect still sees it
 *    move as a whole), each fitted with the same options; every inner
 *    boundary of the main fit gets the 5th-95th percentile of the nearest
 *    boundary of the replicates, and every phase and series the same
 *    interval of the replicates' mean slope over the phase's interior
 *    (its middle 70%). Deterministic: splitmix64 from the seed.
 *  - a self-check: the instances split in two halves by the parity of
 *    their index (interleaved in time, so slow drifts fall in both), each
 *    fitted on its own; the halves' phase counts, the largest distance
 *    between their boundaries nearest to each boundary of the main fit
 *    (share of the instance) and the largest relative difference of their
 *    rates over each phase's interior (series that place boundaries) are
 *    the region's fidelity figure. Two independent folds of the same code
 *    should agree within what their sampling noise allows (the bootstrap
 *    interval, widened for half the instances each); where they do not,
 *    the phases are not to be trusted.
 *  - a duration split: the shorter and the longer half of the instances
 *    (by duration) fitted apart; a boundary whose nearest counterparts in
 *    the two halves lie further apart than the self-check's own spread
 *    moves with the instance's duration (a phase whose length varies):
 *    shares of the instance then average different code positions.
 * Slopes here are relative (the folded curves' units); callers scale them.
 */
#ifndef FOLD_UNCERTAINTY_H
#define FOLD_UNCERTAINTY_H

#include <stddef.h>
#include <stdint.h>

#include "pwlr.h"

typedef struct uncertainty__result {
	unsigned replicates;                    /* bootstrap replicates that fitted */
	double blo[FOLD_PWLR_MAX_SEGMENTS + 1]; /* interval of bounds[j] (j = 0, nseg: exact) */
	double bhi[FOLD_PWLR_MAX_SEGMENTS + 1];
	double *rlo, *rhi; /* nseries x nseg: interval of each phase's relative slope (NAN: none) */
	double *rmid;      /* ... and the slope of the whole fit the replicates vary around */
	/* self-check */
	int checked;             /* both halves fitted */
	const char *check_why_not; /* static: why not checked */
	size_t ninst_a, ninst_b; /* instances in each half */
	size_t nseg_a, nseg_b;   /* their phase counts */
	double check_boundary;   /* largest boundary disagreement, share of the instance */
	double check_rate;       /* largest relative rate disagreement */
	/* What the halves may disagree by: sampling noise (from the bootstrap
	 * intervals, scaled to two halves of the instances, at about 99%) or
	 * the fidelity targets (1% of the instance, 3% of a rate), whichever is
	 * larger; the old fixed 5% and 10% where the bootstrap gave no interval.
	 * *_allowed is the allowance of the largest disagreement; check_excess
	 * the largest ratio of disagreement to allowance over every boundary and
	 * (phase, series) (> 1: not reproducible), check_worst and
	 * check_worst_allowed that one's figures (a rate when check_worst_rate). */
	double check_boundary_allowed, check_rate_allowed, check_excess;
	double check_worst, check_worst_allowed;
	int check_worst_rate;
	/* duration split (dur given) */
	int dur_checked;
	size_t dur_boundary;        /* the boundary that moves most (index into bounds) */
	double dur_short, dur_long; /* its position in the shorter and the longer half */
} uncertainty__result;

/* ps/nps/po: exactly what the main fit pr was computed from; every series
 * must carry instance ids. dur: each instance id's duration (NULL: no
 * duration split). Returns 0 or -ENOMEM. */
int uncertainty__estimate(const pwlr__series *ps, size_t nps, const pwlr__opts *po, const pwlr__result *pr,
                          unsigned replicates, uint64_t seed, const double *dur, uncertainty__result *out);
void uncertainty__result_free(uncertainty__result *u);

/* The duration split alone (see above): 1 with *j the boundary of pr that
 * moves most and its positions in the shorter and the longer half, 0 when
 * it could not be computed, or -ENOMEM. */
int uncertainty__duration_shift(const pwlr__series *ps, size_t nps, const pwlr__opts *po,
                                const pwlr__result *pr, const double *dur, size_t *j, double *at_short,
                                double *at_long);

#endif
