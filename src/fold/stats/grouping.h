/* grouping.h: automatic grouping of instances by duration, and outliers.
 *
 * Owns the decision which instances of a region behave alike. Instances are
 * clustered on log(duration) with an exact dynamic programme over the sorted
 * values (a 1-D Gaussian mixture with hard assignment: clusters are
 * contiguous in sorted order, so the optimum is exact), the number of
 * clusters chosen by BIC; the user never gives a count. A split must then be
 * evidenced twice: neighbouring clusters whose means are closer than 2.5 x
 * (sd_a + sd_b) are merged (a flat, jittered group must not split in two),
 * and so are neighbouring groups without a dip in the density between them
 * (a unimodal distribution with a long preemption tail is one group, its
 * tail outliers). Clusters holding too few instances to be a group are
 * marked isolated (outliers). Within each group, instances outside
 * centre +- k * scale are outliers: median and MAD (scaled to a standard
 * deviation, floored at 1% of the centre), or, for a strongly right-skewed
 * group (a tight mode and a tail), the half-sample mode and the MAD of the
 * durations below it.
 *
 * Outliers stay a small minority by construction: when the excluded
 * instances exceed a few percent of the instances or of the region's time,
 * the excluded sets holding the most time (a group's outliers above its
 * centre, those below, each isolated cluster) become groups of their own,
 * reported and selectable, until what stays excluded is within the caps.
 *
 * Invariants: deterministic; groups are numbered by increasing median
 * duration; every instance gets a group (isolated ones the nearest group)
 * and a reason when it is excluded.
 */
#ifndef FOLD_GROUPING_H
#define FOLD_GROUPING_H

#include <stddef.h>
#include <stdint.h>

typedef struct grouping__opts {
	double outlier_k;       /* default 3 */
	unsigned max_groups;    /* default 6 */
	double min_group_share; /* a cluster below this share of instances is isolated (default 0.02) */
	unsigned min_group;     /* ... or below this many instances (default 3) */
	double log_floor;       /* smallest within-group spread in log-duration (default 0.01) */
	/* Outliers are a minority by construction: excluded instances beyond
	 * these shares of the instances / of the region's time are populations,
	 * made groups of their own (default 0.03 / 0.05). */
	double outlier_max_share, outlier_max_time;
	/* ... and beyond this share of their own group's members (default 0.10) */
	double outlier_max_group_share;
	unsigned max_out_groups; /* groups returned at most, clusters plus populations (default 16) */
} grouping__opts;

void grouping__opts_init(grouping__opts *o);

typedef struct grouping__stat {
	unsigned long n, used, outliers, isolated;
	double median, min, max;      /* of durations, ns (median: the centre, see above) */
	double mad;                   /* median |duration - centre| of the used ones, ns */
	double total;                 /* summed duration of the used instances */
	double mean;                  /* their mean duration */
	/* a population promoted from the slow tail of group tail_of (its
	 * instances above that group's centre, within 10 times it): that
	 * group's code, stretched; -1 for any other group */
	int tail_of;
} grouping__stat;

/* dur[n] durations; fills group[n] (0..*ngroups-1) and why[n]
 * (0 used, 1 outlier, 2 isolated). stats (may be NULL) receives up to
 * max_groups entries. Returns 0 or -ENOMEM. */
int grouping__durations(const double *dur, size_t n, const grouping__opts *o, uint32_t *group, uint8_t *why,
                        size_t *ngroups, grouping__stat *stats);

#endif
