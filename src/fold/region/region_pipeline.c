/* region_pipeline.c: the per-region pipeline, in stages, each a function
 * with its own inputs and outputs:
 *
 *   group        instances by duration, outliers, the group to fold
 *                -> r->groups, instance marks, the pieces to fold
 *   fold series  every counter, then CPU time (wall time only when nothing
 *                else) -> series_work[]
 *   fit phases   the joint piecewise-linear fit -> pwlr__result (steps
 *                and gradual changes)
 *   fit curves   the chosen fit (fit.h) per series -> r->series, fit_params
 *   build phases phases with per-series rates and samples -> r->phases
 *   uncertainty  bootstrap intervals of boundaries and rates, the
 *                odd/even self-check (uncertainty.c) -> r->phases, r->self_check
 *   sampled rates  series whose enter/exit values are estimated: phase
 *                rates (and their curve) from consecutive samples of one
 *                instance -> r->phases, r->series
 *   apply models derived metrics from the model files (models.c)
 *   attribute    source lines per phase (attribution.c)
 *
 * Runs in a worker thread: reads the context, writes only r (and warnings
 * through analyze__warn).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"
#include "fit.h"
#include "folding.h"
#include "grouping.h"
#include "kriging.h"
#include "phase_split.h"
#include "pwlr.h"
#include "uncertainty.h"

typedef struct series_work {
	folding__folded f;
	char *name;
	unsigned kind; /* counter kind; 0 for time */
	int skind;
	double scale;      /* mean rate over the folded instances: sum of events / sum of durations */
	double rscale;     /* events/s per unit slope: the typical (median) instance's rate */
	double rscale_rel; /* its relative standard error over the instances (NAN: unknown) */
	const char *unit;
	int rates_only;         /* does not place phase boundaries */
	unsigned long withheld; /* phases whose curve shape the fit withheld (fit_input) */
} series_work;

/* Is series s the thread's CPU clock as a counter? */
static int is_cpu_clock(const series_work *s)
{
	return s->skind == FOLD__SER_COUNTER && ingest__is_cpu_clock(s->name);
}

/* A counter with fewer events per instance is counting noise (Poisson): it
 * gets rates but does not place phase boundaries. */
#define FOLD__MIN_EVENTS_PER_INSTANCE 10.0

/* A counter of counting noise: fewer than FOLD__MIN_EVENTS_PER_INSTANCE
 * events per instance, or none in most instances. */
static int is_sparse(const series_work *s)
{
	const folding__folded *f = &s->f;
	return s->skind == FOLD__SER_COUNTER &&
	       (!f->ninst || f->sum_total / (double)f->ninst < FOLD__MIN_EVENTS_PER_INSTANCE ||
	        2 * f->nzero > f->ninst);
}

/* Median CPU share of the folded instances above which the CPU clock does
 * not place phase boundaries (choose_phase_series). */
#define FOLD__BUSY_SHARE 0.95
/* Fewest folded samples inside a phase for its rates: with n samples a
 * rate's relative standard error is about 1/sqrt(n), over 30% below 10. */
#define FOLD__MIN_PHASE_SAMPLES 10
/* An instance that ran on a CPU less than this share of the typical
 * instance's was starved: preempted or waiting (warn_cpu_share). */
#define FOLD__STARVED_SHARE 0.8

/* Decides which series place the phase boundaries. Phases are what a user
 * reads as code phases, so only reliable series may create them:
 *  - not wall time (y = x has no phases);
 *  - not a counter with few events per instance, or with no event in most
 *    instances (its folded curve is a staircase of counting noise);
 *  - when some series has boundary values recorded at enter and exit, not
 *    the series whose boundary values are estimated from samples (CPU time,
 *    counters missing at the events): the estimate's error moves every
 *    point of an instance and varies with preemption;
 *  - not a series with estimated boundary values when the instances carry
 *    fewer than FOLDING__EXTRAPOLATE_MIN samples each (samples_per_instance);
 *  - not the CPU clock (CPU time, TASK-CLOCK) when the folded instances ran
 *    on a CPU nearly all of their time (busy_share: their median CPU share):
 *    a typical instance then has no waiting phase, and what the clock shows
 *    is where single instances were preempted. Measured precisely, those
 *    dips outweigh a real switch of the other counters (in a loaded run of
 *    the README demo one half of the instances put its only boundary at
 *    0.74 on TASK-CLOCK, away from the 10x flop-rate switch at 0.47; and
 *    a miniFE burst folded only by it showed 0.27 CPUs, then 1.0).
 * Series left out still get per-phase rates. */
static size_t choose_reliable_series(series_work *sw, size_t nsw, double busy_share,
                                     double samples_per_instance)
{
	int any_exact = 0;
	size_t few = 0;
	for (size_t k = 0; k < nsw; k++) {
		series_work *s = &sw[k];
		s->rates_only = s->skind == FOLD__SER_WALL || is_sparse(s);
		if (!s->rates_only && s->skind == FOLD__SER_COUNTER && 2 * s->f.nexact >= s->f.ninst)
			any_exact = 1;
	}
	if (any_exact)
		for (size_t k = 0; k < nsw; k++)
			if (sw[k].skind == FOLD__SER_CPU || 2 * sw[k].f.nexact < sw[k].f.ninst)
				sw[k].rates_only = 1;
	/* Estimated boundary values need enough samples per instance to
	 * extrapolate from inside it; with fewer, each instance's cumulative
	 * share assumes its mean rate up to its edges, which bends the folded
	 * curve: 5 samples per 1 ms instance gave 4 phases for 2, 2 samples 7
	 * phases, 1 sample a switch at 0.64 for 0.37. */
	for (size_t k = 0; k < nsw; k++)
		if (!sw[k].rates_only && sw[k].skind != FOLD__SER_WALL &&
		    2 * sw[k].f.nexact < sw[k].f.ninst &&
		    !(samples_per_instance >= FOLDING__EXTRAPOLATE_MIN)) {
			sw[k].rates_only = 1;
			few++;
		}
	if (busy_share >= FOLD__BUSY_SHARE)
		for (size_t k = 0; k < nsw; k++)
			if (sw[k].skind == FOLD__SER_CPU || is_cpu_clock(&sw[k]))
				sw[k].rates_only = 1;
	return few;
}

/* Sets each series' rates_only (choose_reliable_series). Returns 1 when no
 * series may place boundaries: the region then has one phase (an always
 * busy region measured only by the CPU clock, whose dips are preemptions;
 * only sparse counters, whose points are counting noise; estimates from
 * too few samples), and *few says how many series were left out for too
 * few samples per instance (then a warning says so). */
static int choose_phase_series(series_work *sw, size_t nsw, double busy_share, double samples_per_instance,
                               size_t *few)
{
	*few = choose_reliable_series(sw, nsw, busy_share, samples_per_instance);
	for (size_t k = 0; k < nsw; k++)
		if (!sw[k].rates_only)
			return 0;
	return 1;
}

/* Slopes of a folded curve are relative to an instance's own mean rate, so
 * they convert to events per second with the typical instance's rate (the
 * median over instances): stretched instances (preempted: same events, longer
 * duration) do not lower it. Sparse counters use the mean rate (events over
 * time): the typical instance of one with no event in most instances has
 * none, and the median of a count of a few events is a whole number of them
 * (0.55 page faults per 1.6 ms instance: the median instance's 1 read 625/s
 * where the instances hold 340/s). */
static double rate_scale(const folding__folded *f, double mean_scale, double unit)
{
	if (2 * f->nzero >= f->ninst || !(f->median_rate > 0) ||
	    f->sum_total < FOLD__MIN_EVENTS_PER_INSTANCE * (double)f->ninst)
		return mean_scale;
	return f->median_rate * unit;
}

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

/* Relative spread of the used instances' durations (1.4826 MAD / median):
 * how far a phase switch can smear across the folded instance. */
static double duration_smear(const instances__instance *inst, size_t n)
{
	double *v = malloc((n + 1) * sizeof *v);
	size_t m = 0;
	if (!v)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (inst[i].used)
			v[m++] = inst[i].dur_ns;
	double smear = 0;
	if (m >= 3) {
		qsort(v, m, sizeof *v, cmp_dbl);
		double med = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
		for (size_t i = 0; i < m; i++)
			v[i] = fabs(v[i] - med);
		qsort(v, m, sizeof *v, cmp_dbl);
		double mad = m % 2 ? v[m / 2] : 0.5 * (v[m / 2 - 1] + v[m / 2]);
		smear = med > 0 ? 1.4826 * mad / med : 0;
	}
	free(v);
	return smear;
}

static int curve_alloc(fold_curve *cv, size_t n, int band)
{
	cv->n = n;
	cv->x = calloc(n, sizeof *cv->x);
	cv->cum = calloc(n, sizeof *cv->cum);
	cv->value = calloc(n, sizeof *cv->value);
	if (band) {
		cv->lo = calloc(n, sizeof *cv->lo);
		cv->hi = calloc(n, sizeof *cv->hi);
	}
	if (!cv->x || !cv->cum || !cv->value || (band && (!cv->lo || !cv->hi)))
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		cv->x[i] = n > 1 ? (double)i / (double)(n - 1) : 0;
	return 0;
}

/* Share of its duration instance in spent on the CPU, or -1 when unknown:
 * from the CPU clock read at its enter and exit when the runtime read it
 * there (exact, whatever the samples), else from its samples' CPU time.
 * At most 1: one thread cannot run more than all of the time (a short
 * instance's reads, each a little after its timestamp, can say 1.01). */
static double cpu_utilisation(ingest__trace *const *tr, const instances__instance *in, int *measured)
{
	const ingest__trace *t = tr[in->proc];
	const ingest__thread *th = &t->threads[in->thread];
	double v0, v1;
	*measured = 0;
	if (in->dur_ns > 0 && !ingest__cpu_clock_at(t, th, &th->ev[in->ev_enter], &v0) &&
	    !ingest__cpu_clock_at(t, th, &th->ev[in->ev_exit], &v1)) {
		*measured = 1;
		return v1 >= v0 ? fmin(1, (v1 - v0) / in->dur_ns) : -1;
	}
	if (!th->cpu_cum || !(in->dur_ns > 0) ||
	    folding__boundary_value(t, th, &th->ev[in->ev_enter], 0, 1, in->sb, in->se, 0, &v0) ||
	    folding__boundary_value(t, th, &th->ev[in->ev_exit], 0, 1, in->sb, in->se, 1, &v1))
		return -1;
	return fmin(1, (v1 - v0) / in->dur_ns);
}

/* Minimum share of the best group's CPU utilisation a group needs to be
 * folded by default. */
#define FOLD__MIN_RELATIVE_UTILISATION 0.9
/* Instances a group's median CPU utilisation is taken from (fewer: unknown). */
#define FOLD__MIN_UTILISATION_INSTANCES 10
/* A group folded instead of the one with the most time (for its CPU share)
 * has at least this share of that group's instances. */
#define FOLD__MIN_PICK_SHARE 0.25

/* Samples a group's CPU share is estimated from when its instances' own
 * shares are unknown. */
#define FOLD__MIN_SHARE_SAMPLES 20

/* CPU share of group k from its samples, when its instances are too short
 * to carry two each and the CPU clock is not read at enter and exit (a
 * function region): the CPU time each sample inside its used instances
 * reports since the thread's previous sample, over the wall time since
 * then, summed. A wall-clock timer that expires while the thread is
 * preempted is delivered when it runs again, so a stretched instance's
 * sample reports the preemption (a 2 us function's calls stretched to 4 ms
 * on a loaded XSBench held the most time and were folded, CPU share
 * unknown). NAN with fewer than FOLD__MIN_SHARE_SAMPLES samples. */
static double sampled_cpu_share(ingest__trace *const *tr, const instances__instance *inst, size_t n,
                                const uint32_t *grp, const uint8_t *why, size_t k)
{
	double cpu = 0, wall = 0;
	size_t m = 0;
	for (size_t i = 0; i < n; i++) {
		if (grp[i] != k || why[i] != 0)
			continue;
		const ingest__trace *t = tr[inst[i].proc];
		const ingest__thread *th = &t->threads[inst[i].thread];
		if (!th->cpu_cum)
			continue;
		for (size_t j = inst[i].sb > 0 ? inst[i].sb : 1; j < inst[i].se; j++) {
			double dt = ((double)th->smp[j].tick - (double)th->smp[j - 1].tick) * t->ns_per_tick;
			double dc = th->cpu_cum[j] - th->cpu_cum[j - 1];
			if (!(dt > 0) || dc < 0)
				continue;
			cpu += fmin(dc, dt);
			wall += dt;
			m++;
		}
	}
	return m >= FOLD__MIN_SHARE_SAMPLES && wall > 0 ? cpu / wall : NAN;
}

/* Median CPU utilisation of each group's used instances (with fewer than
 * FOLD__MIN_UTILISATION_INSTANCES known, its samples' share:
 * sampled_cpu_share; NAN: unknown), into r->groups. */
static int group_cpu_shares(analyze_ctx *c, fold_region_result *r, const instances__instance *inst, size_t n,
                            const uint32_t *grp, const uint8_t *why, size_t ng)
{
	double *u = malloc((n + 1) * sizeof *u);
	if (!u)
		return -ENOMEM;
	for (size_t k = 0; k < ng; k++) {
		size_t m = 0;
		for (size_t i = 0; i < n; i++)
			if (grp[i] == k && why[i] == 0) {
				int measured;
				double v = cpu_utilisation(c->tr, &inst[i], &measured);
				if (v >= 0)
					u[m++] = v;
			}
		r->groups[k].cpu_share = NAN;
		if (m >= FOLD__MIN_UTILISATION_INSTANCES) {
			qsort(u, m, sizeof *u, cmp_dbl);
			r->groups[k].cpu_share = m % 2 ? u[m / 2] : 0.5 * (u[m / 2 - 1] + u[m / 2]);
		} else {
			r->groups[k].cpu_share = sampled_cpu_share(c->tr, inst, n, grp, why, k);
		}
	}
	free(u);
	return 0;
}

/* When the group with the most time is not folded because it lacks the
 * instances or samples to fold, says so, with what to do: a user must never
 * wonder why fold shows a group holding less of the region's time. */
static void say_unfoldable_time(analyze_ctx *c, const fold_region_result *r, const grouping__stat *gs,
                                size_t ng, const int *can_fold, size_t sel)
{
	size_t most = 0;
	double all = 0;
	for (size_t k = 0; k < ng; k++) {
		all += gs[k].total;
		if (gs[k].total > gs[most].total)
			most = k;
	}
	if (most == sel || can_fold[most] >= can_fold[sel] || !(all > 0))
		return;
	const char *what = "run longer or sample more often (FOLD_SAMPLE)";
	if (gs[most].used < c->opt->min_instances)
		what = "a one-off, not a repetition; its time is in the exact profile";
	analyze__warn_about(
	    c, r->name,
	    "region %s: group %zu (median %.3g ms) holds the most time (%.0f%% of the region's) "
	    "but has only %lu sample(s) in %lu instance(s), too few to fold (%u samples and %u "
	    "instances needed): %s; group %zu (%.0f%%) is folded (--group %zu folds the other "
	    "anyway)",
	    r->name, most, gs[most].median / 1e6, 100 * gs[most].total / all, r->groups[most].samples,
	    gs[most].used, c->opt->min_samples, c->opt->min_instances, what, sel, 100 * gs[sel].total / all,
	    most);
}

/* The summed duration of the used instances of every group. */
static double region_time(const grouping__stat *gs, size_t ng)
{
	double t = 0;
	for (size_t k = 0; k < ng; k++)
		t += gs[k].total;
	return t > 0 ? t : 1;
}

/* The group folded by default: the one with the largest total time among
 * the groups that have the instances and samples to fold (can_fold[k]; all
 * groups when none has) and whose instances run on the CPU about as much as
 * the best of those groups' (r->groups[k].cpu_share). A group that cannot
 * fold never displaces one that can, whatever its CPU share: it would leave
 * the region unfolded; fold says so (say_unfoldable_time). On a loaded
 * machine preemption can make a stretched copy of the region's instances the
 * largest group (a regular competitor preempts the same way every time, a
 * mode of its own); those instances are the scheduler's, not the code's, and
 * their median CPU utilisation gives them away. Without CPU time: the
 * largest total time. */
static size_t choose_group(analyze_ctx *c, fold_region_result *r, const grouping__stat *gs, size_t ng,
                           const int *can_fold)
{
	size_t sel = 0;
	for (size_t k = 1; k < ng; k++)
		if (can_fold[k] > can_fold[sel] ||
		    (can_fold[k] == can_fold[sel] && gs[k].total > gs[sel].total))
			sel = k;
	/* When no group can fold, the region is not folded whichever is
	 * chosen: nothing to say about CPU shares. */
	if (ng < 2 || !can_fold[sel])
		return sel;
	/* A group promoted from the slow tail of another (its instances above
	 * that group's centre, within 10 times it) is that code stretched:
	 * preempted, stopped by a VM, or slower now and then. When the group it
	 * came from can fold and holds at least as many instances, that group
	 * is the typical instance: its phases are the code's, where the tail's
	 * mix instances stretched by varying amounts at varying places (a test
	 * region whose page faults a VM slowed in 45% of its instances: the
	 * tail held 51% of the time and its switch read 0.55 against 0.50). */
	int parent = gs[sel].tail_of;
	if (parent >= 0 && (size_t)parent < ng && can_fold[parent] && gs[parent].used >= gs[sel].used) {
		analyze__warn_about(
		    c, r->name,
		    "region %s: group %zu (median %.3g ms, %.0f%% of the region's time) is the "
		    "slow tail of group %d (median %.3g ms), whose instances it has stretched; "
		    "group %d, the typical instance, is folded (--group %zu folds the tail)",
		    r->name, sel, gs[sel].median / 1e6, 100 * gs[sel].total / region_time(gs, ng), parent,
		    gs[parent].median / 1e6, parent, sel);
		sel = (size_t)parent;
	}
	double best = -1;
	for (size_t k = 0; k < ng; k++)
		if (can_fold[k] && r->groups[k].cpu_share > best)
			best = r->groups[k].cpu_share;
	/* Only a group whose CPU share was measured low is displaced, and only
	 * by one whose share was measured high (an unknown share proves
	 * nothing: CloverLeaf's burst read "60% ... against nan% in group 2"). */
	double own = r->groups[sel].cpu_share;
	if (!(best > 0) || isnan(own) || own >= FOLD__MIN_RELATIVE_UTILISATION * best)
		return sel;
	/* ... and never by its own slow tail, which a VM's stops (the guest's
	 * CPU clock runs on through them) give the higher share */
	size_t pick = SIZE_MAX;
	for (size_t k = 0; k < ng; k++) {
		double util = r->groups[k].cpu_share;
		if (can_fold[k] && !isnan(util) && util >= FOLD__MIN_RELATIVE_UTILISATION * best &&
		    gs[k].tail_of != (int)sel)
			if (pick == SIZE_MAX || gs[k].total > gs[pick].total)
				pick = k;
	}
	/* A few long instances (a first time step that allocates, a step that
	 * writes a checkpoint) are not the code's mode because they run on
	 * the CPU more: the group picked over the one with the time must be a
	 * population of its own. */
	if (pick != SIZE_MAX && pick != sel &&
	    (double)gs[pick].used < FOLD__MIN_PICK_SHARE * (double)gs[sel].used)
		pick = sel;
	if (pick != SIZE_MAX && pick != sel) {
		analyze__warn_about(
		    c, r->name,
		    "region %s: group %zu (median %.3g ms) has the most time but its instances spend %.0f%% "
		    "of it "
		    "on the CPU against %.0f%% in group %zu (median %.3g ms), which is folded: stretched by "
		    "preemption or waiting (--group %zu folds it anyway)",
		    r->name, sel, gs[sel].median / 1e6, 100 * r->groups[sel].cpu_share,
		    100 * r->groups[pick].cpu_share, pick, gs[pick].median / 1e6, sel);
		sel = pick;
	}
	return sel;
}

/* --- stage 1: group --- */

/* What grouping leaves for the following stages. */
typedef struct grouped {
	instances__instance *pieces; /* samples attached to the innermost instance */
	size_t npieces;
	unsigned long used;  /* instances folded */
	unsigned long sfold; /* samples inside them */
} grouped;

static void fill_groups(fold_region_result *r, const grouping__stat *gs, size_t ng)
{
	for (size_t k = 0; k < ng; k++) {
		fold_group *G = &r->groups[k];
		G->id = (unsigned)k;
		G->instances = gs[k].n;
		G->used = gs[k].used;
		G->excluded_outliers = gs[k].outliers + gs[k].isolated;
		G->median_duration_ns = gs[k].median;
		G->mad_duration_ns = gs[k].mad;
		G->mean_duration_ns = gs[k].mean;
		G->min_duration_ns = gs[k].min;
		G->max_duration_ns = gs[k].max;
		G->tail_of = gs[k].tail_of;
	}
	r->ngroups = ng;
}

/* A group's min and max over its used instances that carried no sample,
 * when they are most of them: their durations are measured, while a
 * sampled one's is its measurement less the estimated cost of its
 * samples, off by the spread of that cost (hundreds of ns on a VM). On
 * XSBench's lookups of 1.7 us, of which one in 600 carried a sample, that
 * made the group's minimum 8.8 ns, below every call the exact profile saw
 * (128 ns). Groups of longer instances, mostly sampled, keep the
 * estimates: against their durations the error is small. */
static void unsampled_extremes(fold_region_result *r, const instances__instance *inst, size_t n,
                               const uint32_t *grp, const uint8_t *why)
{
	enum { G = 16 };
	double mn[G], mx[G];
	unsigned long free_n[G] = {0};
	for (size_t k = 0; k < G; k++) {
		mn[k] = INFINITY;
		mx[k] = -INFINITY;
	}
	for (size_t i = 0; i < n; i++) {
		if (why[i] != 0 || grp[i] >= G || inst[i].ise > inst[i].isb)
			continue;
		free_n[grp[i]]++;
		mn[grp[i]] = fmin(mn[grp[i]], inst[i].dur_ns);
		mx[grp[i]] = fmax(mx[grp[i]], inst[i].dur_ns);
	}
	for (size_t k = 0; k < r->ngroups && k < G; k++) {
		fold_group *g = &r->groups[k];
		if (2 * free_n[k] < g->used || !free_n[k])
			continue;
		g->min_duration_ns = mn[k];
		g->max_duration_ns = mx[k];
	}
}

/* Marks every instance used or why not; returns the selected group's
 * outliers. Every instance folds, nested ones of a recursive region too: a
 * sample belongs to the innermost instance that contains it (pieces). */
static unsigned long mark_instances(instances__instance *inst, size_t n, const uint32_t *grp,
                                    const uint8_t *why, size_t sel)
{
	unsigned long outl = 0;
	for (size_t i = 0; i < n; i++) {
		instances__instance *in = &inst[i];
		in->group = grp[i];
		in->why = why[i] == 1 ? FOLD__EXCL_OUTLIER : why[i] == 2 ? FOLD__EXCL_ISOLATED : FOLD__USED;
		if (grp[i] != sel && in->why == FOLD__USED)
			in->why = FOLD__EXCL_OTHER_GROUP;
		if (grp[i] == sel && (why[i] == 1 || why[i] == 2))
			outl++;
		in->used = in->why == FOLD__USED;
	}
	return outl;
}

/* What one sample adds to the duration of the instance that carries it
 * (signal delivery and handler), estimated from the instances themselves
 * when they are short against the sampling period
 * (perturb__short_against_period) and at most 10% of them carry a sample:
 * then whether an instance carries a sample is nearly independent of its
 * length, and the sampled instances' excess over the median unsampled
 * duration, per sample, is the cost. Otherwise 0 (every instance carries
 * samples in proportion to its length; the stretch is uniform). Grouping
 * works on durations with this cost removed, so that carrying a sample
 * never makes an instance an outlier or a group of its own. */
static double sample_cost_ns(const analyze_ctx *c, const instances__instance *inst, size_t n, double *tmp)
{
	size_t n0 = 0, n1 = 0;
	for (size_t i = 0; i < n; i++)
		if (inst[i].ise == inst[i].isb)
			tmp[n0++] = inst[i].dur_ns;
	n1 = n - n0;
	if (n1 < 5 || n0 < 5 || (double)n1 > 0.1 * (double)n)
		return 0;
	qsort(tmp, n0, sizeof *tmp, cmp_dbl);
	double m0 = n0 % 2 ? tmp[n0 / 2] : 0.5 * (tmp[n0 / 2 - 1] + tmp[n0 / 2]);
	/* Under CPU-time sampling a few long instances can be the only sampled
	 * ones even at 10% (1 ms of "cost" per sample on 1.8 ms instances of
	 * CloverLeaf, which ran 6% on a CPU). */
	if (!perturb__short_against_period(c, inst[0].proc, m0))
		return 0;
	/* The same population only (as perturb.c estimates the delivery): a
	 * sample costs tens of us, so a sampled instance beyond twice the
	 * unsampled median plus 200 us is long for another reason (preempted,
	 * waiting), and when those are most of the sampled ones the excess is
	 * their length, not a cost (996 us "per sample" on an OpenMP region
	 * whose 5 us calls a loaded machine stretched to ms). */
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (inst[i].ise > inst[i].isb && inst[i].dur_ns < 2 * m0 + 2e5)
			tmp[m++] = (inst[i].dur_ns - m0) / (double)(inst[i].ise - inst[i].isb);
	if (m < 5 || 2 * m < n1)
		return 0;
	qsort(tmp, m, sizeof *tmp, cmp_dbl);
	double cost = m % 2 ? tmp[m / 2] : 0.5 * (tmp[m / 2 - 1] + tmp[m / 2]);
	return cost > 0 ? cost : 0;
}

/* Groups the instances by duration and picks the group to fold (--group
 * overrides the choice). */
static int group_durations(analyze_ctx *c, instances__region_acc *A, fold_region_result *r, uint32_t *grp,
                           uint8_t *why, size_t *sel, double *outlier_k)
{
	size_t n = A->ninst;
	double *dur = malloc((n + 1) * sizeof *dur);
	if (!dur)
		return -ENOMEM;
	double cost = sample_cost_ns(c, A->inst, n, dur);
	for (size_t i = 0; i < n; i++) {
		double k = (double)(A->inst[i].ise - A->inst[i].isb);
		dur[i] = A->inst[i].dur_ns - k * cost;
		if (dur[i] < 0.5 * A->inst[i].dur_ns / (1 + k))
			dur[i] = 0.5 * A->inst[i].dur_ns / (1 + k);
	}
	grouping__opts go;
	grouping__opts_init(&go);
	go.outlier_k = c->opt->outlier_k > 0 ? c->opt->outlier_k : 3.0;
	go.max_out_groups = 16;
	*outlier_k = go.outlier_k;
	grouping__stat gs[16];
	size_t ng = 0;
	int rc = grouping__durations(dur, n, &go, grp, why, &ng, gs);
	free(dur);
	if (rc)
		return -ENOMEM;
	fit_params params = {&r->fit_params, &r->nfit_params};
	if (cost > 0 && fit__param(&params, "grouping.sample_cost_ns", "%.0f", cost))
		return -ENOMEM;
	r->groups = calloc(ng + 1, sizeof *r->groups);
	if (!r->groups)
		return -ENOMEM;
	fill_groups(r, gs, ng);
	unsampled_extremes(r, A->inst, n, grp, why);
	/* Which groups have the instances and the samples to fold. */
	unsigned long gsmp[16] = {0};
	for (size_t i = 0; i < n; i++)
		if (why[i] == 0 && grp[i] < 16 && A->inst[i].nested_same == 0)
			gsmp[grp[i]] += A->inst[i].ise - A->inst[i].isb;
	int can_fold[16] = {0};
	for (size_t k = 0; k < ng && k < 16; k++) {
		can_fold[k] =
		    gs[k].used >= c->opt->min_instances && gs[k].used > 0 && gsmp[k] >= c->opt->min_samples;
		r->groups[k].samples = gsmp[k];
		r->groups[k].total_ns = gs[k].total;
	}
	if (group_cpu_shares(c, r, A->inst, n, grp, why, ng))
		return -ENOMEM;
	*sel = choose_group(c, r, gs, ng, can_fold);
	int want = c->opt->group;
	if (want < 0)
		say_unfoldable_time(c, r, gs, ng, can_fold, *sel);
	if (want >= 0) {
		if ((size_t)want < ng)
			*sel = (size_t)want;
		else
			analyze__warn_about(
			    c, r->name,
			    "region %s: group %d requested but it has %zu group(s); folding group %zu",
			    r->name, want, ng, *sel);
	}
	r->selected_group = (unsigned)*sel;
	return 0;
}

static int stage_group(analyze_ctx *c, instances__region_acc *A, fold_region_result *r, grouped *out)
{
	size_t n = A->ninst;
	uint32_t *grp = malloc((n + 1) * sizeof *grp);
	uint8_t *why = malloc(n + 1);
	size_t sel = 0;
	double outlier_k = 0;
	int rc = -ENOMEM;
	if (!grp || !why)
		goto out;
	if ((rc = group_durations(c, A, r, grp, why, &sel, &outlier_k)))
		goto out;
	unsigned long outl = mark_instances(A->inst, n, grp, why, sel);
	rc = -ENOMEM;
	out->pieces = instances__instance_pieces(A->inst, n, &out->npieces);
	if (!out->pieces)
		goto out;
	double used_ns = 0;
	for (size_t i = 0; i < n; i++) {
		r->inst[i].group = A->inst[i].group;
		r->inst[i].used = A->inst[i].used;
		if (A->inst[i].used) {
			out->used++;
			used_ns += A->inst[i].dur_ns;
		}
	}
	for (size_t i = 0; i < out->npieces; i++)
		if (out->pieces[i].used)
			out->sfold += out->pieces[i].se - out->pieces[i].sb;
	r->instances_used = out->used;
	/* Phases are shares of the folded instances, so their mean (not the
	 * region's, which includes outliers and other groups) gives durations. */
	r->folded_mean_duration_ns = out->used ? used_ns / (double)out->used : 0;
	r->samples_folded = out->sfold;
	if (outl)
		analyze__warn_about(
		    c, r->name,
		    "region %s: %lu instance(s) of the folded group excluded as duration outliers "
		    "(outside median +- %.1f MAD, or isolated durations)",
		    r->name, outl, outlier_k);
	rc = 0;
out:
	free(grp);
	free(why);
	return rc;
}

/* Warns when the folded instances did not get the CPU: their median CPU
 * share (CPU time / duration) is low, or a tenth of them got clearly less
 * than the typical one (preempted or waiting: their samples fold where they
 * were paused, not where code changed). The second needs each instance's
 * share measured (the CPU clock read at enter and exit): estimated from one
 * or two samples it follows the phase the samples fell in (CPU 1.0 then 0.5
 * in a synthetic region without any preemption read "19% got less"). */
#define FOLD__LOW_CPU_SHARE 0.6

static void warn_cpu_share(analyze_ctx *c, const fold_region_result *r, const instances__instance *inst,
                           size_t n)
{
	double *u = malloc((n + 1) * sizeof *u);
	size_t m = 0, nmeasured = 0;
	if (!u)
		return;
	for (size_t i = 0; i < n; i++)
		if (inst[i].used && !inst[i].nested_same) {
			int measured;
			double v = cpu_utilisation(c->tr, &inst[i], &measured);
			if (v >= 0) {
				u[m++] = v;
				nmeasured += measured;
			}
		}
	if (m >= 10) {
		qsort(u, m, sizeof *u, cmp_dbl);
		double med = m % 2 ? u[m / 2] : 0.5 * (u[m / 2 - 1] + u[m / 2]);
		size_t low = 0;
		while (low < m && u[low] < FOLD__STARVED_SHARE * med)
			low++;
		if (med < FOLD__LOW_CPU_SHARE)
			analyze__warn_about(
			    c, r->name,
			    "region %s: the folded instances ran on a CPU for only %.0f%% of their time "
			    "(median): they waited (I/O, locks, messages) or were preempted; phases with "
			    "low cpu_time may be waits rather than code",
			    r->name, 100 * med);
		else if (10 * low > m && 2 * nmeasured >= m)
			analyze__warn_about(
			    c, r->name,
			    "region %s: %.0f%% of the folded instances got less than %.0f%% of the typical "
			    "instance's CPU share (%.0f%%): preempted or waiting; their samples fold where "
			    "they were paused (are other busy threads or processes sharing these cores?)",
			    r->name, 100.0 * (double)low / (double)m, 100 * FOLD__STARVED_SHARE, 100 * med);
	}
	free(u);
}

/* Sets r->reason when too few instances or samples are left to fold: what
 * is missing and what to do (another group that can fold and the option
 * that selects it, or how to get more samples or instances).
 * Returns 1 if so, 0 if the region folds, or -ENOMEM. */
static int too_few(analyze_ctx *c, fold_region_result *r, const grouped *g)
{
	const fold_options *opt = c->opt;
	int few_inst = g->used < opt->min_instances || g->used == 0;
	if (!few_inst && g->sfold >= opt->min_samples)
		return 0;
	char other[160] = "";
	for (size_t k = 0; k < r->ngroups; k++) {
		const fold_group *G = &r->groups[k];
		if (k != r->selected_group && G->used >= opt->min_instances && G->used > 0 &&
		    G->samples >= opt->min_samples) {
			snprintf(other, sizeof other,
			         "; group %zu (%lu instances, median %.3g ms, %lu samples) can be folded "
			         "with --group %zu",
			         k, G->used, G->median_duration_ns / 1e6, G->samples, k);
			break;
		}
	}
	if (few_inst)
		r->reason = util_asprintf("%lu instance(s) usable in group %u, at least %u needed to fold%s",
		                          g->used, r->selected_group, opt->min_instances,
		                          *other ? other : "; run more iterations or lower --min-instances");
	else
		r->reason = util_asprintf(
		    "%lu sample(s) inside the usable instances of group %u, at least %u needed to fold%s",
		    g->sfold, r->selected_group, opt->min_samples,
		    *other ? other : "; sample more often (FOLD_SAMPLE=time@1ms) or run more iterations");
	if (!r->reason)
		return -ENOMEM;
	if (!*other) {
		r->reason_count = few_inst ? g->used : g->sfold;
		r->reason_common =
		    few_inst ? util_asprintf("fewer than %u usable instances; run more iterations or lower "
		                             "--min-instances",
		                             opt->min_instances)
		             : util_asprintf("fewer than %u samples inside the usable instances; sample more "
		                             "often (FOLD_SAMPLE=time@1ms) or run more iterations",
		                             opt->min_samples);
		if (!r->reason_common)
			return -ENOMEM;
	}
	return 1;
}

/* --- stage 2: fold series --- */

/* Folds one series into *s. Returns 1 if it has enough to fit, 0 if it was
 * dropped, or a negative errno. */
static int fold_one(analyze_ctx *c, const grouped *g, const folding__spec *spec, series_work *s)
{
	if (folding__fold_series(c->tr, g->pieces, g->npieces, spec, &s->f)) {
		folding__folded_free(&s->f);
		return -ENOMEM;
	}
	if (s->f.n < 3 || s->f.sum_total <= 0 || s->f.sum_dur_ns <= 0) {
		folding__folded_free(&s->f);
		return 0;
	}
	/* Counters in events/s; CPU and wall time in seconds per second. */
	double unit = spec->kind == FOLD__SER_COUNTER ? 1e9 : 1.0;
	s->skind = spec->kind;
	s->scale = s->f.sum_total / s->f.sum_dur_ns * unit;
	s->rscale = rate_scale(&s->f, s->scale, unit);
	s->rscale_rel = s->rscale == s->scale ? s->f.mean_rel_se : s->f.median_rel_se;
	s->unit = spec->kind == FOLD__SER_COUNTER ? "events/s" : "s/s";
	return 1;
}

/* The trace counter id of the run's counter k in every trace (-1: absent
 * there). Returns whether any trace has it. */
static int counter_ids(analyze_ctx *c, size_t k, int64_t *ids)
{
	int any = 0;
	for (size_t i = 0; i < c->ntr; i++) {
		ids[i] = k < c->c_ncounters ? c->ctr_ids[k * c->ntr + i] : -1;
		any |= ids[i] >= 0;
	}
	return any;
}

/* The same for the run's counter called name (a->counters holds at most
 * FOLD__MAX_COUNTERS). */
static int counter_ids_of(analyze_ctx *c, const char *name, int64_t *ids)
{
	for (size_t k = 0; k < c->a->ncounters; k++)
		if (!strcmp(c->a->counters[k].name, name))
			return counter_ids(c, k, ids);
	return 0;
}

/* Every counter, then CPU time; wall time only when nothing else folded.
 * sw has room for every counter plus two. */
static int stage_fold_series(analyze_ctx *c, const grouped *g, series_work *sw, size_t *nsw)
{
	const fold_analysis *a = c->a;
	int64_t *ids = malloc((c->ntr + 1) * sizeof *ids);
	if (!ids)
		return -ENOMEM;
	int rc = 0;
	for (size_t k = 0; k < a->ncounters && rc >= 0; k++) {
		if (!counter_ids(c, k, ids))
			continue;
		folding__spec spec = {FOLD__SER_COUNTER, ids};
		rc = fold_one(c, g, &spec, &sw[*nsw]);
		if (rc > 0) {
			sw[*nsw].name = util_strdup(a->counters[k].name);
			sw[*nsw].kind = a->counters[k].kind;
			(*nsw)++;
		}
	}
	for (int kind = FOLD__SER_CPU; kind <= FOLD__SER_WALL && rc >= 0; kind++) {
		if (kind == FOLD__SER_WALL && *nsw)
			break;
		folding__spec spec = {kind, ids};
		rc = fold_one(c, g, &spec, &sw[*nsw]);
		if (rc > 0) {
			sw[*nsw].name = util_strdup(kind == FOLD__SER_CPU ? "cpu_time" : "wall_time");
			sw[*nsw].kind = 0;
			(*nsw)++;
		}
	}
	free(ids);
	return rc < 0 ? rc : 0;
}

/* One CPU-time series, not several that disagree: when the samples' CPU
 * time (cpu_time) and a CPU-clock counter (TASK-CLOCK) both folded, keep
 * the counter if its values at enter/exit were read there (measured) for
 * most instances, else cpu_time (both are then read at the samples only);
 * drop the other and say which in fit_params (cpu_series). */
static int one_cpu_series(series_work *sw, size_t *nsw, fit_params *params)
{
	size_t cpu = SIZE_MAX, clk = SIZE_MAX;
	for (size_t k = 0; k < *nsw; k++) {
		if (sw[k].skind == FOLD__SER_CPU)
			cpu = k;
		else if (is_cpu_clock(&sw[k]) && clk == SIZE_MAX)
			clk = k;
	}
	if (cpu == SIZE_MAX || clk == SIZE_MAX)
		return 0;
	int measured = 2 * sw[clk].f.nexact >= sw[clk].f.ninst && sw[clk].f.ninst > 0;
	size_t keep = measured ? clk : cpu, drop = measured ? cpu : clk;
	int rc = fit__param(params, "cpu_series", "%s (%s); %s dropped: the same CPU time, %s", sw[keep].name,
	                    measured ? "read at enter/exit" : "read at the samples", sw[drop].name,
	                    measured ? "estimated at the boundaries" : "not read at enter/exit either");
	folding__folded_free(&sw[drop].f);
	free(sw[drop].name);
	for (size_t k = drop; k + 1 < *nsw; k++)
		sw[k] = sw[k + 1];
	(*nsw)--;
	memset(&sw[*nsw], 0, sizeof sw[*nsw]);
	return rc;
}

/* The largest rate a series can physically have on one thread: CPU time
 * 1 s/s, a CPU-clock counter 1e9 ns/s (instances are per thread);
 * otherwise unbounded. Every counter is cumulative: no rate is below 0. */
static double series_max(int skind, const char *name)
{
	if (skind == FOLD__SER_CPU || skind == FOLD__SER_WALL)
		return 1.0;
	series_work probe = {.skind = skind, .name = (char *)name};
	return is_cpu_clock(&probe) ? 1e9 : INFINITY;
}

/* v within [0, max]; NaN (no data) stays NaN. */
static double clamp_rate(double v, double max)
{
	return v < 0 ? 0 : v > max ? max : v;
}

/* Clamps a fitted curve's values (and band) to [0, max]; returns how many
 * values were outside. */
static size_t clamp_curve(fold_curve *cv, double max)
{
	size_t n = 0;
	for (size_t i = 0; i < cv->n; i++) {
		double *v[3] = {&cv->value[i], cv->lo ? &cv->lo[i] : NULL, cv->hi ? &cv->hi[i] : NULL};
		for (int j = 0; j < 3; j++) {
			if (!v[j] || !isfinite(*v[j]))
				continue;
			if (*v[j] < 0 || *v[j] > max) {
				*v[j] = *v[j] < 0 ? 0 : max;
				n += j == 0;
			}
		}
	}
	return n;
}

/* --- stage 3: fit phases --- */

/* A phase whose length varies from instance to instance puts its boundary
 * at a different share of each instance: folded on shares, the switch
 * smears and phase durations come out wrong (shares cannot hold a fixed and
 * a variable phase at once). When the boundary that moves most between the
 * shorter and the longer half of the instances moves by more than
 * FOLD__ALIGN_MIN_SHIFT, each instance's own position of it is estimated
 * (the place that best matches the folded curve of the first series that
 * places boundaries, between the neighbouring boundaries, on a grid) and
 * every series' points of that instance are warped piecewise-linearly so
 * that it lands on the duration-weighted mean position: phase durations are
 * then the mean durations. The phases are fitted again on the aligned
 * points. Needs FOLD__ALIGN_MIN_POINTS points of an instance near the
 * boundary; instances with fewer are left as they are, and when they are
 * most of the instances nothing is aligned. */
#define FOLD__ALIGN_MIN_SHIFT 0.03
#define FOLD__ALIGN_MIN_POINTS 4
/* ... and at least this share of the instances with points must have their
 * own estimate: a fit of a few warped instances among many that are not
 * has phases of neither, which the unaligned fit's rates do not match
 * (miniFE's MPI_Send, 13 of 117 aligned: 5 phases, one without samples,
 * three given one rate, the curve +77% and -18% off them; miniMD's
 * timestep, 94 of 350: its first phase, over two unaligned ones, took the
 * second's rate, the curve +135% off it) */
#define FOLD__ALIGN_MIN_SHARE 0.5
#define FOLD__ALIGN_GRID 80

typedef struct align_info {
	int done;
	double at;      /* the aligned boundary's position */
	size_t aligned; /* instances with their own estimate */
	/* the warps applied, in order (up to two passes): instance id's own
	 * boundary bi[id] (NAN: not warped) moved to `to` within [lo, hi] */
	int npass;
	double *bi[2];
	double lo[2], to[2], hi[2];
} align_info;

static void align_info_free(align_info *ai)
{
	for (int k = 0; k < 2; k++)
		free(ai->bi[k]);
	memset(ai, 0, sizeof *ai);
}

static double warp(double x, double lo, double from, double to, double hi)
{
	if (x < lo || x > hi || !(from > lo) || !(from < hi))
		return x;
	return x < from ? lo + (x - lo) * (to - lo) / (from - lo) : to + (x - from) * (hi - to) / (hi - from);
}

/* Position x of instance id as the phases were fitted (after its warps). */
static double aligned_x(const align_info *ai, uint32_t id, double x)
{
	for (int k = 0; ai && k < ai->npass; k++)
		if (ai->bi[k] && !isnan(ai->bi[k][id]))
			x = warp(x, ai->lo[k], ai->bi[k][id], ai->to[k], ai->hi[k]);
	return x;
}

static int align_boundary(pwlr__series *ps, double *const *xs, size_t nps, const pwlr__opts *po,
                          pwlr__result *pr, const instances__instance *inst, size_t n, align_info *ai,
                          pwlr__result *keep)
{
	memset(ai, 0, sizeof *ai);
	size_t k0 = SIZE_MAX;
	for (size_t k = 0; k < nps && k0 == SIZE_MAX; k++)
		if (!ps[k].rates_only && ps[k].inst)
			k0 = k;
	if (pr->nseg < 2 || k0 == SIZE_MAX || !n)
		return 0;
	double *dur = malloc(n * sizeof *dur), *bi = malloc(n * sizeof *bi);
	size_t *cnt = calloc(n + 1, sizeof *cnt), *idx = malloc((ps[k0].n + 1) * sizeof *idx);
	int rc = -ENOMEM;
	if (!dur || !bi || !cnt || !idx)
		goto out;
	for (size_t i = 0; i < n; i++)
		dur[i] = inst[i].dur_ns;
	size_t j;
	double as, al;
	rc = uncertainty__duration_shift(ps, nps, po, pr, dur, &j, &as, &al);
	if (rc <= 0 || !(fabs(al - as) > FOLD__ALIGN_MIN_SHIFT))
		goto out;
	rc = 0;
	if (j == 0 || j >= pr->nseg)
		goto out;
	/* the window: the neighbouring boundaries, past a segment next to it
	 * whose slope lies between its own neighbours' (the same smeared
	 * switch: a transition) */
	size_t jl = j - 1, jh = j + 1;
	const double *sl = pr->slope + k0 * pr->nseg;
	if (jl > 0 && j < pr->nseg &&
	    (sl[jl] - sl[jl - 1]) * (sl[j] - sl[jl]) > 0) /* segment jl between jl-1 and j */
		jl--;
	if (jh < pr->nseg && (sl[jh - 1] - sl[j - 1]) * (sl[jh] - sl[jh - 1]) > 0) /* segment j */
		jh++;
	double lo = pr->bounds[jl], b = pr->bounds[j], hi = pr->bounds[jh];
	/* points of the reference series grouped by instance (counting sort) */
	const pwlr__series *s = &ps[k0];
	for (size_t i = 0; i < s->n; i++)
		if (s->inst[i] < n)
			cnt[s->inst[i] + 1]++;
	for (size_t i = 0; i < n; i++)
		cnt[i + 1] += cnt[i];
	for (size_t i = 0; i < s->n; i++)
		if (s->inst[i] < n)
			idx[cnt[s->inst[i]]++] = i;
	for (size_t i = n; i > 0; i--)
		cnt[i] = cnt[i - 1];
	cnt[0] = 0;
	double sw = 0, sd = 0;
	for (size_t i = 0; i < n; i++) {
		bi[i] = NAN;
		size_t near = 0;
		for (size_t q = cnt[i]; q < cnt[i + 1]; q++)
			near += s->x[idx[q]] >= lo && s->x[idx[q]] <= hi;
		if (near < FOLD__ALIGN_MIN_POINTS)
			continue;
		double best = INFINITY;
		for (int g = 0; g <= FOLD__ALIGN_GRID; g++) {
			double bb = lo + (hi - lo) * (0.05 + 0.9 * g / FOLD__ALIGN_GRID), cost = 0;
			for (size_t q = cnt[i]; q < cnt[i + 1]; q++) {
				double x = s->x[idx[q]];
				if (x < lo || x > hi)
					continue;
				double e = s->y[idx[q]] - pwlr__cum(pr, k0, warp(x, lo, bb, b, hi));
				cost += e * e;
			}
			if (cost < best) {
				best = cost;
				bi[i] = bb;
			}
		}
		sw += bi[i] * dur[i];
		sd += dur[i];
		ai->aligned++;
	}
	size_t with_points = 0;
	for (size_t i = 0; i < n; i++)
		with_points += cnt[i + 1] > cnt[i];
	if (ai->aligned < 10 || (double)ai->aligned < FOLD__ALIGN_MIN_SHARE * (double)with_points ||
	    !(sd > 0))
		goto out;
	double target = sw / sd;

	for (size_t k = 0; k < nps; k++)
		for (size_t i = 0; i < ps[k].n; i++) {
			uint32_t id = ps[k].inst ? ps[k].inst[i] : UINT32_MAX;
			if (id < n && !isnan(bi[id]))
				xs[k][i] = warp(xs[k][i], lo, bi[id], target, hi);
		}
	if (keep && !keep->knot)
		*keep = *pr; /* the unaligned fit, for the rates */
	else
		pwlr__result_free(pr);
	rc = pwlr__fit(ps, nps, po, pr);
	ai->done = rc == 0;
	ai->at = target;
	ai->npass = 1;
	ai->bi[0] = bi;
	ai->lo[0] = lo;
	ai->to[0] = target;
	ai->hi[0] = hi;
	bi = NULL;
out:
	free(dur);
	free(bi);
	free(cnt);
	free(idx);
	return rc < 0 ? rc : 0;
}

/* Joint piecewise-linear fit over every series but wall time (y = x has no
 * phases); only the reliable ones place boundaries (choose_phase_series).
 * pw[k]: series k's index among the fitted series, SIZE_MAX if none. */
static int stage_fit_phases(series_work *sw, size_t nsw, const instances__instance *inst, size_t n,
                            pwlr__opts *po, pwlr__result *pr, size_t *pw, pwlr__series *ps, size_t *nps_out,
                            align_info *ai, double busy_share, double samples_per_instance, size_t *few)
{
	int one_phase = choose_phase_series(sw, nsw, busy_share, samples_per_instance, few);
	if (!one_phase)
		*few = 0;
	size_t nps = 0;
	for (size_t k = 0; k < nsw; k++) {
		pw[k] = SIZE_MAX;
		if (sw[k].skind != FOLD__SER_WALL) {
			pw[k] = nps;
			ps[nps++] =
			    (pwlr__series){sw[k].f.x, sw[k].f.y, sw[k].f.n, sw[k].f.inst, sw[k].rates_only};
		}
	}
	if (!nps) {
		pw[0] = 0;
		ps[nps++] = (pwlr__series){sw[0].f.x, sw[0].f.y, sw[0].f.n, sw[0].f.inst, 0};
	}
	pwlr__opts_init(po);
	po->smear = duration_smear(inst, n);
	if (one_phase) /* nothing may place boundaries: one phase, not the fallback of every series */
		po->max_segments = 1;
	*nps_out = nps;
	int rc = pwlr__fit(ps, nps, po, pr);
	if (rc)
		return rc;
	/* the series' own point arrays, in the fit's order, for the alignment */
	double *xs[64];
	if (nps > 64)
		return 0;
	for (size_t k = 0; k < nps; k++)
		xs[k] = NULL;
	for (size_t k = 0; k < nsw; k++)
		if (pw[k] < nps)
			xs[pw[k]] = sw[k].f.x;
	for (size_t k = 0; k < nps; k++)
		if (!xs[k])
			return 0;
	/* twice: the first pass aligns on a smeared fit, the second on the
	 * sharper fit of the aligned points */
	align_info a2;
	pwlr__result first;
	memset(&first, 0, sizeof first);
	if ((rc = align_boundary(ps, xs, nps, po, pr, inst, n, ai, &first)) || !ai->done ||
	    (rc = align_boundary(ps, xs, nps, po, pr, inst, n, &a2, NULL))) {
		pwlr__result_free(&first);
		return rc;
	}
	if (a2.done) {
		ai->at = a2.at;
		ai->npass = 2;
		ai->bi[1] = a2.bi[0];
		ai->lo[1] = a2.lo[0];
		ai->to[1] = a2.to[0];
		ai->hi[1] = a2.hi[0];
		a2.bi[0] = NULL;
	}
	align_info_free(&a2);
	/* Rates: warping an instance rescales its slopes by its own factor,
	 * which biases the pooled slope: the unaligned fit's where they
	 * measure the same phase (pwlr__adopt_rates). */
	if (first.knot)
		pwlr__adopt_rates(pr, &first, po->smear);
	pwlr__result_free(&first);
	return 0;
}

/* The phase fit's parameters (pwlr.*), which series placed the boundaries
 * (with their robust noise and design effect), and the seed. */
static int record_phase_params(const fit_params *p, const pwlr__result *pr, const pwlr__opts *po,
                               const series_work *sw, const fold_series *series, size_t nsw, const size_t *pw,
                               uint64_t seed)
{
	int rc;
	if ((rc = fit__param(p, "pwlr.segments", "%zu", pr->nseg)) ||
	    (rc = fit__param(p, "pwlr.cells", "%u", po->cells)) ||
	    (rc = fit__param(p, "pwlr.min_len", "%g", po->min_len)) ||
	    (rc = fit__param(p, "pwlr.bic", "%.6g", pr->bic)) ||
	    (rc = fit__param(p, "pwlr.bic_segments", "%zu", pr->bic_segments)) ||
	    (rc = fit__param(p, "pwlr.transitions_absorbed", "%zu", pr->transitions)) ||
	    (rc = fit__param(p, "pwlr.gradual_merged", "%zu", pr->gradual_merged)) ||
	    (rc = fit__param(p, "pwlr.smear", "%.4g", po->smear)))
		return rc;
	char *list = NULL;
	for (size_t k = 0; k < nsw; k++) {
		if (pw[k] >= pr->nseries || sw[k].rates_only)
			continue;
		char *nl = util_asprintf("%s%s%s (sigma %.3g, design effect %.3g)", list ? list : "",
		                         list ? ", " : "", series[k].name, pr->sigma[pw[k]], pr->deff[pw[k]]);
		free(list);
		list = nl;
		if (!list)
			return -ENOMEM;
	}
	/* none qualified: one phase (choose_phase_series) */
	rc = fit__param(p, "pwlr.phase_series", "%s", list ? list : "(none: one phase)");
	free(list);
	return rc ? rc : fit__param(p, "seed", "%llu", (unsigned long long)seed);
}

/* --- stage 4: fit curves --- */

/* r->series from the folded series, each with the chosen fit's curve on the
 * grid (the phase fit's when the chosen one fails). The first series
 * records the fit's parameters. */
static int stage_fit_curves(analyze_ctx *c, fold_region_result *r, series_work *sw, size_t nsw,
                            const pwlr__result *pr, const size_t *pw)
{
	const fold_options *opt = c->opt;
	const fit_method *fit = opt->fit ? fit__find(opt->fit) : &fit__kriging;
	if (!fit)
		fit = &fit__kriging;
	size_t G = opt->grid >= 2 ? opt->grid : 200;
	r->fit_method = util_strdup(fit->name);
	r->series = calloc(nsw + models__max_metrics(c->models) + 1, sizeof *r->series);
	if (!r->series || !r->fit_method)
		return -ENOMEM;
	fit_params params = {&r->fit_params, &r->nfit_params};
	for (size_t k = 0; k < nsw; k++) {
		series_work *s = &sw[k];
		fold_series *o = &r->series[r->nseries++];
		double max = series_max(s->skind, s->name);
		o->name = s->name;
		s->name = NULL;
		o->unit = util_strdup(s->unit);
		o->counter_kind = s->kind;
		o->npoints = s->f.n;
		o->px = s->f.x;
		o->py = s->f.y;
		s->f.x = s->f.y = NULL;
		o->total_per_instance = s->f.ninst ? s->f.sum_total / (double)s->f.ninst : 0;
		o->mean_rate = s->scale;
		o->boundaries_estimated = s->skind != FOLD__SER_WALL && s->f.nexact < s->f.ninst;
		o->instances_folded = s->f.ninst;
		o->instances_skipped = s->f.nskipped;
		if (!o->name || !o->unit || curve_alloc(&o->fit, G, fit->band))
			return -ENOMEM;
		unsigned long withheld = 0;
		fit_input in = {o->px, o->py, s->f.inst, o->npoints, s->scale, s->rscale,
		                max,   pr,    pw[k],     opt->seed,  &withheld};
		/* Too few points for a Kriging curve (a sparse counter: a few
		 * samples carry an event) is expected, not a failure: the
		 * piecewise-linear curve, said in fit_params. */
		int few = fit == &fit__kriging && o->npoints < KRIGING__MIN_POINTS;
		int rc = few ? 1 : fit->fit(&in, &o->fit, &o->fit_error, k == 0 ? &params : NULL);
		if (rc < 0)
			return rc;
		if (few) {
			if (fit__param(&params, "kriging.too_few_points",
			               "%s: %zu point(s), piecewise-linear curve", o->name, o->npoints) ||
			    (rc = fit__pwlr.fit(&in, &o->fit, &o->fit_error, NULL)))
				return rc ? rc : -ENOMEM;
		} else if (rc > 0) {
			analyze__warn_about(
			    c, r->name, "region %s, %s: Kriging fit failed; showing the piecewise-linear fit",
			    r->name, o->name);
			if ((rc = fit__pwlr.fit(&in, &o->fit, &o->fit_error, NULL)))
				return rc;
		}
		s->withheld = withheld;
		if (withheld) {
			/* phases as the reports number them, with their spans */
			char list[160] = "", key[160];
			size_t len = 0;
			for (unsigned b = 0;
			     b < 8 * sizeof withheld && b < pr->nseg && len + 24 < sizeof list; b++)
				if (withheld >> b & 1)
					len += (size_t)snprintf(list + len, sizeof list - len,
					                        "%s%u [%.3f, %.3f]", len ? ", " : "", b + 1,
					                        pr->bounds[b], pr->bounds[b + 1]);
			snprintf(key, sizeof key, "curve.shape_withheld.%s", o->name);
			if (fit__param(&params, key, "phase(s) %s", list))
				return -ENOMEM;
			analyze__warn_about(
			    c, r->name,
			    "region %s, %s: in phase(s) %s the folded points of different instances "
			    "contradict each other (their fitted mean falls where it should rise): "
			    "the curve shows the phase's mean rate there, not a shape",
			    r->name, o->name, list);
		}
		size_t nclamp = clamp_curve(&o->fit, max);
		if (nclamp && fit__param(&params, "bounds.curve", "%s: %zu of %zu points clamped to [0, %g]",
		                         o->name, nclamp, o->fit.n, max))
			return -ENOMEM;
	}
	return 0;
}

/* --- stage 5: build phases --- */

/* Counts each phase's folded samples and the instances sampled on either
 * side of it with none inside (pairs_across), and the extent of its
 * samples (xlo[p], xhi[p]; +-INFINITY without any). */
static int count_phase_samples(analyze_ctx *c, fold_region_result *r, const pwlr__result *pr,
                               const grouped *g, const align_info *ai, double *xlo, double *xhi)
{
	size_t nid = 0;
	for (size_t i = 0; i < g->npieces; i++)
		nid = g->pieces[i].id >= nid ? g->pieces[i].id + 1 : nid;
	/* each instance's phase of its latest sample: the pieces of one
	 * instance (around its nested calls of the same region) are one run */
	size_t *last = malloc((nid + 1) * sizeof *last);
	if (!last)
		return -ENOMEM;
	for (size_t i = 0; i < nid; i++)
		last[i] = SIZE_MAX;
	for (size_t p = 0; p < pr->nseg; p++) {
		xlo[p] = INFINITY;
		xhi[p] = -INFINITY;
	}
	unsigned long no_time = 0;
	for (size_t i = 0; i < g->npieces; i++) {
		const instances__instance *in = &g->pieces[i];
		if (in->used && in->t1 <= in->t0)
			no_time += in->se - in->sb;
		if (!in->used || in->t1 <= in->t0)
			continue;
		const ingest__thread *th = &c->tr[in->proc]->threads[in->thread];
		double span = (double)(in->t1 - in->t0);
		for (size_t k = in->sb; k < in->se; k++) {
			double x = aligned_x(ai, in->id, ((double)th->smp[k].tick - (double)in->t0) / span);
			size_t p = pwlr__segment(pr, x), prev = last[in->id];
			r->phases[p].samples++;
			if (th->waited_ns && th->waited_ns[k])
				r->phases[p].samples_waited++;
			for (size_t q = prev + 1; prev != SIZE_MAX && q < p; q++)
				r->phases[q].pairs_across++;
			last[in->id] = p;
			if (x < xlo[p])
				xlo[p] = x;
			if (x > xhi[p])
				xhi[p] = x;
		}
	}
	free(last);
	/* A piece whose samples' cost took all of its time (a 1 us XSBench
	 * lookup carrying a 25 us sample: compensated duration 0) has no
	 * position for them: they are not folded, and the count says so
	 * (38 of 971 under load), not only the phases' sum. */
	if (no_time) {
		r->samples_folded = r->samples_folded > no_time ? r->samples_folded - no_time : 0;
		if (fit__param(&(fit_params){&r->fit_params, &r->nfit_params}, "samples.no_time_left",
		               "%lu sample(s) in instances whose samples' cost took all their time "
		               "(compensated duration 0): not folded",
		               no_time))
			return -ENOMEM;
	}
	return 0;
}

/* Rates the samples do not support are NAN ("no data"). */
static void withhold_unsupported_rates(analyze_ctx *c, fold_region_result *r, const series_work *sw,
                                       size_t nsw, const double *xlo, const double *xhi)
{
	/* A phase at an end of the instance whose samples do not cover at least
	 * half of it (none, or all at its inner edge: the sample-free ends that
	 * delivery lag and sample cost leave) is measured there only by the
	 * boundary values: a series whose boundary values are estimated
	 * (extrapolated from the samples inside) has no data there, and says so
	 * (NaN: "no data" in the reports, null in the JSON), rather than a rate
	 * the samples do not support. The same for a phase without any sample
	 * anywhere in the instance, where wall time's 1 s/s is no data either. */
	for (size_t p = 0; p < r->nphases; p++) {
		fold_phase_result *ph = &r->phases[p];
		/* Fewer than FOLD__MIN_PHASE_SAMPLES folded samples: no rate from
		 * the samples inside (its relative error would pass 30%). Such a
		 * phase is where the folded samples leave a gap (a preemption or a
		 * wait the signal was delivered after, aligned across instances):
		 * its rates were slopes between its neighbours' edges, e.g. page
		 * faults at 29/s where TASK-CLOCK read 0, over 0 samples of a
		 * loaded miniMD step. */
		if (ph->samples < FOLD__MIN_PHASE_SAMPLES) {
			/* A series read at enter and exit keeps its rate when many
			 * instances have samples on either side, whose values bracket
			 * the phase (a nested call's time in a recursive region). */
			int across = ph->pairs_across >= FOLD__MIN_PHASE_SAMPLES;
			for (size_t k = 0; k < ph->nrates; k++) {
				if (across && k < nsw && sw[k].skind == FOLD__SER_COUNTER &&
				    !is_sparse(&sw[k]) && 2 * sw[k].f.nexact >= sw[k].f.ninst)
					continue;
				ph->rates[k] = NAN;
				if (k < ph->nrange)
					ph->rate_from[k] = ph->rate_to[k] = NAN;
			}
			continue;
		}
		/* no sample at all, anywhere in the instance: only the values
		 * read at enter/exit measure it; wall time (1 s/s) says nothing */
		int none = ph->samples == 0;
		if (!none && p != 0 && p + 1 != r->nphases)
			continue;
		if (!none && xhi[p] - xlo[p] >= 0.5 * (ph->end - ph->start))
			continue;
		for (size_t k = 0; k < nsw && k < ph->nrates; k++)
			if ((none && sw[k].skind == FOLD__SER_WALL) ||
			    (sw[k].skind != FOLD__SER_WALL && sw[k].f.nexact < sw[k].f.ninst)) {
				ph->rates[k] = NAN;
				if (k < ph->nrange)
					ph->rate_from[k] = ph->rate_to[k] = NAN;
			}
	}
}

/* A warning for each phase with too few samples: which rates it still
 * shows (counters read at enter and exit, across it) or that it shows none. */
static void warn_thin_phases(analyze_ctx *c, const fold_region_result *r)
{
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		if (ph->samples >= FOLD__MIN_PHASE_SAMPLES)
			continue;
		size_t shown = 0;
		for (size_t k = 0; k < ph->nrates; k++)
			shown += !isnan(ph->rates[k]);
		if (shown)
			analyze__warn_about(
			    c, r->name,
			    "region %s: phase %zu [%.3f, %.3f] holds only %lu sample(s): its rates are "
			    "those of the counters read at enter and exit, across it in %lu instances "
			    "sampled on either side",
			    r->name, p + 1, ph->start, ph->end, ph->samples, ph->pairs_across);
		else
			analyze__warn_about(
			    c, r->name,
			    "region %s: phase %zu [%.3f, %.3f] holds only %lu sample(s), too few for "
			    "its rates (none shown)",
			    r->name, p + 1, ph->start, ph->end, ph->samples);
	}
}

/* Phases with per-series rates from the piecewise-linear slopes, and the
 * samples of the used instances per phase. */
static int stage_build_phases(analyze_ctx *c, fold_region_result *r, const series_work *sw, size_t nsw,
                              const pwlr__result *pr, const size_t *pw, const grouped *g,
                              const align_info *ai)
{
	size_t room = nsw + models__max_metrics(c->models) + 1;
	r->phases = calloc(pr->nseg, sizeof *r->phases);
	if (!r->phases)
		return -ENOMEM;
	r->nphases = pr->nseg;
	size_t nclamped = 0;
	for (size_t p = 0; p < pr->nseg; p++) {
		fold_phase_result *ph = &r->phases[p];
		ph->start = pr->bounds[p];
		ph->end = pr->bounds[p + 1];
		ph->rate_names = calloc(room, sizeof *ph->rate_names);
		ph->rates = calloc(room, sizeof *ph->rates);
		if (!ph->rate_names || !ph->rates)
			return -ENOMEM;
		ph->gradual = pr->gradual[p];
		if (ph->gradual) {
			ph->rate_from = calloc(room, sizeof *ph->rate_from);
			ph->rate_to = calloc(room, sizeof *ph->rate_to);
			if (!ph->rate_from || !ph->rate_to)
				return -ENOMEM;
		}
		for (size_t k = 0; k < nsw; k++) {
			double slope = pw[k] < pr->nseries ? pr->slope[pw[k] * pr->nseg + p] : 1.0;
			ph->rate_names[ph->nrates] = util_strdup(r->series[k].name);
			ph->rates[ph->nrates] = slope * sw[k].rscale;
			double max = series_max(sw[k].skind, r->series[k].name);
			if (ph->rates[ph->nrates] > max || ph->rates[ph->nrates] < 0) {
				ph->rates[ph->nrates] = ph->rates[ph->nrates] < 0 ? 0 : max;
				nclamped++;
			}
			if (!ph->rate_names[ph->nrates])
				return -ENOMEM;
			if (ph->gradual) {
				int in = pw[k] < pr->nseries;
				/* the phase's own line at its ends: at its end pwlr__rate
				 * would give the next phase's rate (a ramp 0.48 -> 0.44
				 * read "0.48 -> 0.92", the rate after it) */
				ph->rate_from[ph->nrates] =
				    in ? pwlr__segment_rate(pr, pw[k], p, ph->start) * sw[k].rscale
				       : ph->rates[ph->nrates];
				ph->rate_to[ph->nrates] =
				    in ? pwlr__segment_rate(pr, pw[k], p, ph->end) * sw[k].rscale
				       : ph->rates[ph->nrates];
				ph->rate_from[ph->nrates] = clamp_rate(ph->rate_from[ph->nrates], max);
				ph->rate_to[ph->nrates] = clamp_rate(ph->rate_to[ph->nrates], max);
				ph->nrange = ph->nrates + 1;
			}
			ph->nrates++;
		}
	}
	double *xlo = malloc(2 * (pr->nseg + 1) * sizeof *xlo);
	if (!xlo)
		return -ENOMEM;
	if (count_phase_samples(c, r, pr, g, ai, xlo, xlo + pr->nseg + 1)) {
		free(xlo);
		return -ENOMEM;
	}
	withhold_unsupported_rates(c, r, sw, nsw, xlo, xlo + pr->nseg + 1);
	free(xlo);
	if (nclamped) {
		fit_params params = {&r->fit_params, &r->nfit_params};
		if (fit__param(&params, "bounds.phase_rates", "%zu rate(s) clamped to their physical range",
		               nclamped))
			return -ENOMEM;
	}
	warn_thin_phases(c, r);
	return 0;
}

/* --- stage 5b: rates of series with estimated boundaries --- */

/* Consecutive samples of one instance inside a phase that a rate needs. */
#define FOLD__MIN_SAMPLE_PAIRS 5

/* Per-phase sums of one series over consecutive samples of one piece that
 * lie in the same phase: the increment dv over the wall time dt, and the
 * ratio estimator's spread over pieces (each piece a cluster). */
typedef struct pair_sums {
	double dv, dt;          /* summed over pieces */
	double dv_lo, dv_hi;    /* span_accumulate: what the points allow dv to be at least, at most */
	double pdv, pdt;        /* the current piece's */
	double q1, q2, q3;      /* sums of pdv^2, pdv*pdt, pdt^2 over pieces */
	unsigned long pairs, n; /* pairs, pieces with a pair */
} pair_sums;

/* One increment dv over wall time dt of the current piece. */
static void pair_add(pair_sums *q, double dv, double dt)
{
	q->pdv += dv;
	q->pdt += dt;
	q->dv += dv;
	q->dt += dt;
	q->pairs++;
}

static void pair_close_piece(pair_sums *ps, size_t nseg)
{
	for (size_t p = 0; p < nseg; p++) {
		pair_sums *q = &ps[p];
		if (q->pdt > 0) {
			q->q1 += q->pdv * q->pdv;
			q->q2 += q->pdv * q->pdt;
			q->q3 += q->pdt * q->pdt;
			q->n++;
		}
		q->pdv = q->pdt = 0;
	}
}

/* The series' value at sample k (CPU ns for cpu_time); 0 or -1 when absent. */
static int series_value_at(const ingest__trace *t, const ingest__thread *th, size_t k, const series_work *s,
                           int64_t id, double *v)
{
	if (s->skind == FOLD__SER_CPU) {
		if (!th->cpu_cum)
			return -1;
		*v = th->cpu_cum[k];
		return 0;
	}
	return id < 0 ? -1 : folding__sample_value(t, th, k, (uint32_t)id, v);
}

/* Adds series s's increments between consecutive samples of one piece that
 * lie in the same phase to ps[0..pr->nseg). Pieces whose instance got less
 * than share_min of a CPU (share, stretched_pieces) are left out. */
static void pair_accumulate(analyze_ctx *c, const series_work *s, const int64_t *ids, const pwlr__result *pr,
                            const grouped *g, const align_info *ai, const double *share, double share_min,
                            pair_sums *ps)
{
	memset(ps, 0, pr->nseg * sizeof *ps);
	for (size_t i = 0; i < g->npieces; i++) {
		const instances__instance *in = &g->pieces[i];
		if (!in->used || in->t1 <= in->t0 || (share && share[i] < share_min))
			continue;
		const ingest__trace *t = c->tr[in->proc];
		const ingest__thread *th = &t->threads[in->thread];
		int64_t id = s->skind == FOLD__SER_COUNTER ? ids[in->proc] : -1;
		double span = (double)(in->t1 - in->t0), v0 = 0, v1;
		int have0 = 0;
		for (size_t j = in->sb; j < in->se; j++) {
			if (series_value_at(t, th, j, s, id, &v1)) {
				have0 = 0;
				continue;
			}
			if (have0 && th->smp[j].tick > th->smp[j - 1].tick) {
				size_t p0 = pwlr__segment(
				    pr, aligned_x(ai, in->id,
				                  ((double)th->smp[j - 1].tick - (double)in->t0) / span));
				size_t p1 = pwlr__segment(
				    pr,
				    aligned_x(ai, in->id, ((double)th->smp[j].tick - (double)in->t0) / span));
				if (p0 == p1 && v1 >= v0)
					pair_add(&ps[p0], v1 - v0,
					         (double)(th->smp[j].tick - th->smp[j - 1].tick) *
					             t->ns_per_tick);
			}
			v0 = v1;
			have0 = 1;
		}
		pair_close_piece(ps, pr->nseg);
	}
}

/* One instance's increments of series k over each phase, from its points
 * (pu: aligned position, pt: ticks since its enter, pv: value; n of them),
 * added to ps as one piece's (phase_split.h): the phases outside the mask
 * `target` run at their fitted rates, the target phases share the rest. */
static void span_gaps(const fold_region_result *r, size_t k, unsigned long target, const pwlr__result *pr,
                      const double *pu, const double *pt, const double *pv, size_t n, double ns_per_tick,
                      double max_per_ns, pair_sums *ps)
{
	double known[FOLD_PWLR_MAX_SEGMENTS] = {0};
	phase_split__share sh[FOLD_PWLR_MAX_SEGMENTS];
	size_t nseg = pr->nseg < FOLD_PWLR_MAX_SEGMENTS ? pr->nseg : FOLD_PWLR_MAX_SEGMENTS;
	for (size_t p = 0; p < nseg; p++) {
		int outside = p >= 8 * sizeof target || !(target >> p & 1);
		known[p] = outside && k < r->phases[p].nrates && isfinite(r->phases[p].rates[k])
		               ? r->phases[p].rates[k] * 1e-9 * ns_per_tick
		               : NAN;
	}
	phase_split__instance(pr->bounds, nseg, known, max_per_ns * ns_per_tick, pu, pt, pv, n, sh);
	for (size_t p = 0; p < nseg; p++) {
		if (!(sh[p].dt > 0))
			continue;
		pair_add(&ps[p], sh[p].dv, sh[p].dt * ns_per_tick);
		ps[p].dv_lo += sh[p].lo;
		ps[p].dv_hi += sh[p].hi;
	}
}

/* Adds each whole instance's own increment of series s (r's series k) over
 * each phase to ps[0..pr->nseg): its value and wall time at the phase's two
 * bounds, between its own consecutive points (its enter and exit values,
 * which the events carry, its samples, and a waited sample's value at its
 * timer's deadline too, where nothing ran since), in the aligned instance
 * coordinate the bounds are in; each gap between them divided among the
 * phases it overlaps (span_gaps). A pair there counts an instance.
 * Instances without measured enter and exit values, pieces of instances
 * and instances that got less than share_min of a CPU are left out. */
static int span_accumulate(analyze_ctx *c, const fold_region_result *r, size_t k, unsigned long target,
                           const series_work *s, const int64_t *ids, const pwlr__result *pr, const grouped *g,
                           const align_info *ai, const double *share, double share_min, pair_sums *ps)
{
	memset(ps, 0, pr->nseg * sizeof *ps);
	/* the counter's largest rate per ns (a CPU clock: one CPU), which
	 * bounds what a phase can hold of a gap it shares (phase_split.h) */
	const double max_per_ns = series_max(s->skind, r->series[k].name) / 1e9;
	size_t cap = 0;
	double *pu = NULL, *pt = NULL, *pv = NULL;
	int rc = 0;
	for (size_t i = 0; i < g->npieces && !rc; i++) {
		const instances__instance *in = &g->pieces[i];
		if (!in->used || in->t1 <= in->t0 || (share && share[i] < share_min))
			continue;
		const ingest__trace *t = c->tr[in->proc];
		const ingest__thread *th = &t->threads[in->thread];
		int64_t id = s->skind == FOLD__SER_COUNTER ? ids[in->proc] : -1;
		const ingest__event *en = &th->ev[in->ev_enter], *ex = &th->ev[in->ev_exit];
		double v0, v1;
		if (id < 0 || en->tick != in->t0 || ex->tick != in->t1 ||
		    folding__event_value(t, th, en, (uint32_t)id, &v0) ||
		    folding__event_value(t, th, ex, (uint32_t)id, &v1) || v1 < v0)
			continue;
		size_t need = 2 * (in->se - in->sb) + 2, n = 0;
		if (need > cap) {
			double *a = realloc(pu, need * sizeof *a),
			       *b = a ? realloc(pt, need * sizeof *b) : NULL,
			       *d = b ? realloc(pv, need * sizeof *d) : NULL;
			pu = a ? a : pu;
			pt = b ? b : pt;
			pv = d ? d : pv;
			if (!d) {
				rc = -ENOMEM;
				break;
			}
			cap = need;
		}
		double span = (double)(in->t1 - in->t0), last = v0;
		pu[n] = aligned_x(ai, in->id, 0);
		pt[n] = 0;
		pv[n++] = v0;
		for (size_t j = in->sb; j < in->se; j++) {
			double v;
			if (series_value_at(t, th, j, s, id, &v) || v < last || v > v1)
				continue;
			double tj = (double)(th->smp[j].tick - in->t0);
			if (th->waited_ns && th->waited_ns[j] && t->ns_per_tick > 0) {
				double tw = tj - (double)th->waited_ns[j] / t->ns_per_tick;
				if (tw > pt[n - 1]) {
					pu[n] = aligned_x(ai, in->id, tw / span);
					pt[n] = tw;
					pv[n++] = v;
				}
			}
			if (tj > pt[n - 1] && tj < span) {
				pu[n] = aligned_x(ai, in->id, tj / span);
				pt[n] = tj;
				pv[n++] = v;
				last = v;
			}
		}
		pu[n] = aligned_x(ai, in->id, 1);
		pt[n] = span;
		pv[n++] = v1;
		span_gaps(r, k, target, pr, pu, pt, pv, n, t->ns_per_tick, max_per_ns, ps);
		pair_close_piece(ps, pr->nseg);
	}
	free(pu);
	free(pt);
	free(pv);
	return rc;
}

/* Phase p's rate of series k from its pair sums q (events or CPU time over
 * wall time) and, with the pieces as clusters, the ratio's 90% interval;
 * NaN (no data) with fewer than FOLD__MIN_SAMPLE_PAIRS pairs. */
static void pair_rate(fold_region_result *r, size_t k, const series_work *s, size_t p, const pair_sums *q)
{
	fold_phase_result *ph = &r->phases[p];
	if (k >= ph->nrates)
		return;
	double unit = s->skind == FOLD__SER_COUNTER ? 1e9 : 1.0;
	double max = series_max(s->skind, r->series[k].name);
	double rate = NAN, lo = NAN, hi = NAN;
	if (q->pairs >= FOLD__MIN_SAMPLE_PAIRS && q->dt > 0) {
		double R = q->dv / q->dt;
		rate = R * unit;
		if (q->n >= 2) {
			double ss = q->q1 - 2 * R * q->q2 + R * R * q->q3;
			double se = sqrt(fmax(ss, 0) * (double)q->n / (double)(q->n - 1)) / q->dt;
			lo = clamp_rate((R - 1.645 * se) * unit, max);
			hi = clamp_rate((R + 1.645 * se) * unit, max);
		}
		rate = clamp_rate(rate, max);
	}
	/* span_accumulate's bounds: the interval holds what the points allow */
	if (isfinite(rate) && q->dv_hi > 0) {
		double blo = clamp_rate(q->dv_lo / q->dt * unit, max),
		       bhi = clamp_rate(q->dv_hi / q->dt * unit, max);
		lo = isfinite(lo) ? fmin(lo, blo) : blo;
		hi = isfinite(hi) ? fmax(hi, bhi) : bhi;
	}
	ph->rates[k] = rate;
	if (k < ph->nrate_ci) {
		ph->rate_lo[k] = lo;
		ph->rate_hi[k] = hi;
	}
}

/* What phase ph's table says of series k at x inside it: its rate there
 * (*v; a gradual phase's ramp from rate_from to rate_to), the band (its
 * interval, moved along a ramp by the ramp's distance from its mean; NaN
 * where the interval does not hold the rate) and the rate's integral from
 * the phase's start to x (*area); all NaN where the phase has no data for
 * it. Returns 0 when the table has no such series. */
static int table_at(const fold_phase_result *ph, size_t k, double x, double *v, double *lo, double *hi,
                    double *area)
{
	if (k >= ph->nrates)
		return 0;
	if (!isfinite(ph->rates[k])) {
		*v = *lo = *hi = *area = NAN;
		return 1;
	}
	double mean = ph->rates[k], w = ph->end - ph->start, u = x - ph->start;
	int ci = k < ph->nrate_ci && ph->rate_lo[k] <= mean && mean <= ph->rate_hi[k];
	*v = mean;
	*area = mean * u;
	*lo = ci ? ph->rate_lo[k] : NAN;
	*hi = ci ? ph->rate_hi[k] : NAN;
	if (ph->gradual && k < ph->nrange && isfinite(ph->rate_from[k]) && isfinite(ph->rate_to[k]) &&
	    w > 0) {
		double a = ph->rate_from[k], b = ph->rate_to[k];
		*v = a + (b - a) * u / w;
		*area = a * u + (b - a) * u * u / (2 * w);
		*lo = fmax(0, *lo + *v - mean);
		*hi += *v - mean;
	}
	return 1;
}

/* Series k's curve as the steps of its phase rates (ramps in gradual
 * phases) with their intervals as the band, its cumulative share their
 * integral when every phase has a rate: the fitted curve of a series with
 * estimated boundary values has the smeared shape its phase rates no
 * longer have. */
static void step_curve(fold_region_result *r, size_t k, const pwlr__result *pr)
{
	fold_curve *cv = &r->series[k].fit;
	double total = 0, v, lo, hi, area;
	int all = 1;
	for (size_t p = 0; p < r->nphases; p++) {
		const fold_phase_result *ph = &r->phases[p];
		all &= table_at(ph, k, ph->end, &v, &lo, &hi, &area) && isfinite(area);
		if (all)
			total += area;
	}
	for (size_t i = 0; i < cv->n; i++) {
		size_t p = pwlr__segment(pr, cv->x[i]);
		const fold_phase_result *ph = &r->phases[p < r->nphases ? p : r->nphases - 1];
		if (!table_at(ph, k, cv->x[i], &v, &lo, &hi, &area))
			continue;
		cv->value[i] = v;
		if (cv->lo && cv->hi) {
			cv->lo[i] = lo;
			cv->hi[i] = hi;
		}
		if (all && total > 0 && cv->cum) {
			double c = 0, qv, ql, qh, qa;
			for (size_t q = 0; q < p && q < r->nphases; q++)
				if (table_at(&r->phases[q], k, r->phases[q].end, &qv, &ql, &qh, &qa))
					c += qa;
			cv->cum[i] = (c + area) / total;
		}
	}
}

/* In the phases where the fit withheld series k's shape (its instances'
 * points contradict each other), the curve is the phase's rate as the
 * table gives it (a gradual phase's ramp), with that rate's interval over
 * the instances as its band (none without one): the fit's band there is
 * the envelope of a shape that is not shown (6-9 times the rate in a
 * loaded CloverLeaf burst; 0-6168/s around a loaded miniMD burst's page
 * faults at 114/s), and its mean slope not quite the table's rate. The
 * cumulative stays the straight line the fit drew. */
static void withheld_steps(fold_region_result *r, size_t k, unsigned long withheld, const pwlr__result *pr)
{
	fold_curve *cv = &r->series[k].fit;
	for (size_t i = 0; i < cv->n; i++) {
		size_t p = pwlr__segment(pr, cv->x[i]);
		if (p >= r->nphases || p >= 8 * sizeof withheld || !(withheld >> p & 1))
			continue;
		double v, lo, hi, area;
		if (!table_at(&r->phases[p], k, cv->x[i], &v, &lo, &hi, &area) || !isfinite(v))
			continue;
		cv->value[i] = v;
		if (cv->lo && cv->hi) {
			cv->lo[i] = lo;
			cv->hi[i] = hi;
		}
	}
}

/* Each piece's CPU share over its consecutive samples (*share, NULL when
 * the trace has no CPU time) and the least a piece needs to count
 * (*share_min): FOLD__MIN_RELATIVE_UTILISATION of the median piece's. A
 * piece below it was stretched (preempted, stalled) and would lower every
 * phase's rate below what the code does when it runs: the folded instance
 * is the typical one, as the fitted rates' scale is the median instance's. */
static int stretched_pieces(analyze_ctx *c, const grouped *g, double **share, double *share_min)
{
	*share = NULL;
	*share_min = 0;
	double *sh = malloc((g->npieces + 1) * sizeof *sh), *tmp = malloc((g->npieces + 1) * sizeof *tmp);
	if (!sh || !tmp) {
		free(sh);
		free(tmp);
		return -ENOMEM;
	}
	size_t m = 0;
	for (size_t i = 0; i < g->npieces; i++) {
		const instances__instance *in = &g->pieces[i];
		const ingest__thread *th = &c->tr[in->proc]->threads[in->thread];
		sh[i] = INFINITY; /* unknown: kept */
		if (!in->used || !th->cpu_cum || in->se < in->sb + 2)
			continue;
		double dt =
		    (double)(th->smp[in->se - 1].tick - th->smp[in->sb].tick) * c->tr[in->proc]->ns_per_tick;
		if (dt > 0) {
			sh[i] = (th->cpu_cum[in->se - 1] - th->cpu_cum[in->sb]) / dt;
			tmp[m++] = sh[i];
		}
	}
	if (m >= 5) {
		qsort(tmp, m, sizeof *tmp, cmp_dbl);
		*share_min = FOLD__MIN_RELATIVE_UTILISATION * tmp[m / 2];
		*share = sh;
		sh = NULL;
	}
	free(sh);
	free(tmp);
	return 0;
}

/* Whether the folded group's instances ran on a CPU less than
 * FOLD__LOW_CPU_SHARE of their time (fold warns of it, warn_cpu_share).
 * Their pauses are then what the rates over wall time measure, in most
 * instances: the rates from the instances' own values take them all in,
 * not only those the pauses stretched least (stretched_pieces), or the
 * phases' rates sum to more than the instances did (a synthetic region
 * preempted once per instance, 52% on a CPU: 5.7e8 against 3.55e8/s). */
static int starved_group(const fold_region_result *r)
{
	return r->selected_group < r->ngroups && r->groups[r->selected_group].cpu_share < FOLD__LOW_CPU_SHARE;
}

/* A series whose values at enter/exit are estimated (extrapolated from the
 * instance's own samples) folds into curves whose shape, not level, is
 * measured: its slope over a phase, scaled by the instance's mean rate,
 * smears a phase's rate towards the instance's mean. What the samples
 * measure is the increment between consecutive samples of one instance:
 * those inside one phase give its rate (events or CPU time over wall time)
 * and, with the pieces as clusters, the ratio's 90% interval. A phase with
 * fewer than FOLD__MIN_SAMPLE_PAIRS such pairs has no rate (no data).
 * Gradual phases keep the fit's rates. */
static int stage_sampled_rates(analyze_ctx *c, fold_region_result *r, const series_work *sw, size_t nsw,
                               const pwlr__result *pr, const grouped *g, const align_info *ai)
{
	int64_t *ids = malloc((c->ntr + 1) * sizeof *ids);
	pair_sums *ps = malloc(pr->nseg * sizeof *ps);
	double *share = NULL, share_min = 0;
	int rc = ids && ps ? stretched_pieces(c, g, &share, &share_min) : -ENOMEM;
	util_buf which;
	util_buf_init(&which);
	for (size_t k = 0; k < nsw && !rc; k++) {
		const series_work *s = &sw[k];
		/* measured for most instances (as choose_phase_series judges it):
		 * the fitted rates hold; a few instances without boundary values
		 * (a counter set switched between them) do not make it estimated */
		if (s->skind == FOLD__SER_WALL || 2 * s->f.nexact >= s->f.ninst)
			continue;
		const char *name = r->series[k].name; /* sw[k].name moved there */
		if (!name || (s->skind == FOLD__SER_COUNTER && !counter_ids_of(c, name, ids)))
			continue;
		pair_accumulate(c, s, ids, pr, g, ai, starved_group(r) ? NULL : share, share_min, ps);
		for (size_t p = 0; p < r->nphases; p++)
			if (!r->phases[p].gradual)
				pair_rate(r, k, s, p, &ps[p]);
		step_curve(r, k, pr);
		util_buf_printf(&which, "%s%s", which.len ? ", " : "", name);
	}
	if (!rc && which.len &&
	    fit__param(&(fit_params){&r->fit_params, &r->nfit_params}, "rates.from_sample_pairs",
	               "%s: boundary values estimated; phase rates from consecutive samples of one instance "
	               "(at least %d per phase)",
	               which.oom ? "?" : which.data, FOLD__MIN_SAMPLE_PAIRS))
		rc = -ENOMEM;
	util_buf_free(&which);
	free(ids);
	free(ps);
	free(share);
	return rc;
}

/* A series measured at enter and exit whose fitted rate over a phase is at
 * its physical bound (0, or its maximum such as one CPU) without the
 * instances showing it: the fit mixes instances whose points disagree (a
 * preemption that splits one instance's work at one place and another's
 * elsewhere), and a slope it bounds or clamps there says nothing of the
 * rate. MPI_Waitall under load read TASK-CLOCK 0/s [0, 0] over a phase
 * where 38 of its samples found the thread running; a synthetic region
 * preempted near its end read 0/s where it ran 3.7% of the time. Such a
 * phase takes its rate from what each instance measures over it (its
 * counter and wall time at the phase's bounds, between its own points,
 * span_accumulate), with the instances as clusters for the 90% interval;
 * the curve there is that rate and its band that interval. A phase
 * fewer than FOLD__MIN_SAMPLE_PAIRS instances measure keeps the fit's.
 *
 * In a starved group (its instances on a CPU less than FOLD__LOW_CPU_SHARE
 * of their time, which fold warns of) the fit's rate can be off inside the
 * bounds too: the instances' points disagree wherever the scheduler paused
 * them, and a least-squares slope over a phase's interior weighs the
 * instances that ran there. miniMD omp2 under stress-ng --cpu 2 (35% CPU
 * share) read its time step's phases at 2.4e8 and 7.2e8 CPU ns/s, where its
 * instances' own values gave 3.8e8 [3.3e8, 4.2e8] and 4.8e8 [4.2e8, 5.3e8]
 * (the folded points' mean at the switch agreed with the instances, not
 * the table). There a fitted rate outside what the instances allow
 * (each phase on its own, the others at their fitted rates) and more than
 * FOLD__RATE_APART from theirs is replaced the same way (fit_params
 * rates.from_instances). Outside starved groups the fit's rate is the
 * typical instance's when it runs, and the ratio over all instances
 * (0.998 against 0.9997 CPU in a busy burst) is not the better answer. */
#define FOLD__RATE_APART 0.05
static int stage_bound_rates(analyze_ctx *c, fold_region_result *r, const series_work *sw, size_t nsw,
                             const pwlr__result *pr, const grouped *g, const align_info *ai)
{
	int64_t *ids = NULL;
	pair_sums *ps = NULL;
	double *share = NULL, share_min = 0;
	util_buf which, apart;
	util_buf_init(&which);
	util_buf_init(&apart);
	int rc = 0, started = 0;
	const size_t maxp = 8 * sizeof(unsigned long);
	int starved = starved_group(r);
	for (size_t k = 0; k < nsw && k < r->nseries && !rc; k++) {
		const series_work *s = &sw[k];
		const char *name = r->series[k].name;
		if (s->skind != FOLD__SER_COUNTER || 2 * s->f.nexact < s->f.ninst || !name)
			continue;
		double max = series_max(s->skind, name);
		unsigned long at_bound = 0, fitted = 0;
		for (size_t p = 0; p < r->nphases && p < maxp; p++) {
			const fold_phase_result *ph = &r->phases[p];
			if (ph->gradual || k >= ph->nrates || !isfinite(ph->rates[k]))
				continue;
			if (ph->rates[k] <= 0 || ph->rates[k] >= max)
				at_bound |= 1ul << p;
			else
				fitted |= 1ul << p;
		}
		/* only a starved group's fitted rates are compared with the
		 * instances' (below): elsewhere the work would change nothing */
		if (!starved)
			fitted = 0;
		if (!at_bound && !fitted)
			continue;
		if (!started) {
			started = 1;
			ids = malloc((c->ntr + 1) * sizeof *ids);
			ps = malloc(pr->nseg * sizeof *ps);
			if (!ids || !ps || (rc = stretched_pieces(c, g, &share, &share_min))) {
				rc = rc ? rc : -ENOMEM;
				break;
			}
		}
		if (!counter_ids_of(c, name, ids))
			continue;
		/* a fitted rate outside what the instances' own values over its
		 * phase allow (the other phases at their rates) */
		unsigned long outside = 0;
		for (size_t p = 0; p < r->nphases && p < maxp && !rc; p++) {
			if (!(fitted >> p & 1))
				continue;
			if ((rc = span_accumulate(c, r, k, 1ul << p, s, ids, pr, g, ai,
			                          starved ? NULL : share, share_min, ps)))
				break;
			fold_phase_result *ph = &r->phases[p];
			if (ps[p].pairs < FOLD__MIN_SAMPLE_PAIRS || !(ps[p].dt > 0) || k >= ph->nrate_ci)
				continue;
			double v = ph->rates[k], lo = ph->rate_lo[k], hi = ph->rate_hi[k];
			pair_rate(r, k, s, p, &ps[p]);
			double own = ph->rates[k];
			if (starved && !(v >= ph->rate_lo[k] && v <= ph->rate_hi[k]) &&
			    fabs(v - own) > FOLD__RATE_APART * fmax(fabs(v), fabs(own)))
				outside |= 1ul << p;
			ph->rates[k] = v;
			ph->rate_lo[k] = lo;
			ph->rate_hi[k] = hi;
		}
		unsigned long target = at_bound | outside;
		if (rc || !target)
			continue;
		if ((rc = span_accumulate(c, r, k, target, s, ids, pr, g, ai, starved ? NULL : share,
		                          share_min, ps)))
			break;
		unsigned long redone = 0;
		for (size_t p = 0; p < r->nphases && p < maxp; p++) {
			if (!(target >> p & 1) || ps[p].pairs < FOLD__MIN_SAMPLE_PAIRS || !(ps[p].dt > 0))
				continue;
			pair_rate(r, k, s, p, &ps[p]);
			redone |= 1ul << p;
			util_buf *b = at_bound >> p & 1 ? &which : &apart;
			util_buf_printf(b, "%s%s phase %zu", b->len ? ", " : "", name, p + 1);
		}
		/* the whole curve from the table: the fit's cumulative and its
		 * shape elsewhere would no longer integrate to the phases' rates
		 * (a starved miniMD step's cumulative read 45% at a switch its
		 * steps and its points put at 66%) */
		if (redone)
			step_curve(r, k, pr);
	}
	fit_params fp = {&r->fit_params, &r->nfit_params};
	if (!rc && which.len &&
	    fit__param(&fp, "rates.at_bound_from_instances",
	               "%s: the fit's rate sat at its physical bound; rate from each instance's own values "
	               "at the phase's bounds; the series' curve is the phase rates' steps",
	               which.oom ? "?" : which.data))
		rc = -ENOMEM;
	if (!rc && apart.len &&
	    fit__param(&fp, "rates.from_instances",
	               "%s: the fit's rate lay outside what the instances' own values over the phase allow; "
	               "rate from those values; the series' curve is the phase rates' steps",
	               apart.oom ? "?" : apart.data))
		rc = -ENOMEM;
	util_buf_free(&which);
	util_buf_free(&apart);
	free(ids);
	free(ps);
	free(share);
	return rc;
}

/* A counter of a few events per instance (one that places no boundary,
 * choose_phase_series) read at enter/exit: its phase rates count each
 * instance's events in the phase (pwlr), and its folded points are a few 0s
 * and 1s per instance whose fitted shape inside a phase is counting noise
 * (a Kriging curve bent by it averaged 253/s over a phase of 163/s). Its
 * curve is the steps of its phase rates, with their intervals as the band:
 * curve and table from the same count. So are the phases where the fit
 * withheld a series' shape (withheld_steps). */
static int stage_sparse_steps(fold_region_result *r, const series_work *sw, size_t nsw,
                              const pwlr__result *pr, double busy_share)
{
	util_buf which, busy;
	util_buf_init(&which);
	util_buf_init(&busy);
	for (size_t k = 0; k < nsw && k < r->nseries; k++) {
		const series_work *s = &sw[k];
		if (s->withheld)
			withheld_steps(r, k, s->withheld, pr);
		if (2 * s->f.nexact < s->f.ninst)
			continue;
		if (is_sparse(s)) {
			step_curve(r, k, pr);
			util_buf_printf(&which, "%s%s", which.len ? ", " : "", r->series[k].name);
		} else if (busy_share >= FOLD__BUSY_SHARE && s->skind == FOLD__SER_COUNTER &&
		           ingest__is_cpu_clock(r->series[k].name)) { /* s->name moved to the series */
			/* its dips are single instances' preemptions, left out of the
			 * phases (choose_reliable_series): the curve shows the same */
			step_curve(r, k, pr);
			util_buf_printf(&busy, "%s%s", busy.len ? ", " : "", r->series[k].name);
		}
	}
	int rc = 0;
	if (which.len &&
	    fit__param(&(fit_params){&r->fit_params, &r->nfit_params}, "curve.steps",
	               "%s: fewer than %g events per instance (or none in most): the curve is the phase "
	               "rates' steps",
	               which.oom ? "?" : which.data, FOLD__MIN_EVENTS_PER_INSTANCE))
		rc = -ENOMEM;
	if (!rc && busy.len &&
	    fit__param(&(fit_params){&r->fit_params, &r->nfit_params}, "curve.steps_busy",
	               "%s: the instances ran on a CPU %.0f%% of their time (median): the curve is the "
	               "phase rates' steps; its dips were single instances' preemptions",
	               busy.oom ? "?" : busy.data, 100 * busy_share))
		rc = -ENOMEM;
	util_buf_free(&which);
	util_buf_free(&busy);
	return rc;
}

/* --- stage 6: uncertainty --- */

/* Bootstrap replicates behind each interval: 5th-95th percentiles of 30
 * are within a few per cent of their limit and cost 30 phase fits. */
#define FOLD__BOOTSTRAP_REPLICATES 30

/* Intervals of every phase's start and of its rates, and the self-check. */
static int stage_uncertainty(analyze_ctx *c, fold_region_result *r, const series_work *sw, size_t nsw,
                             const pwlr__series *ps, size_t nps, const pwlr__opts *po, const pwlr__result *pr,
                             const size_t *pw, const instances__region_acc *A)
{
	uncertainty__result u;
	double *dur = malloc((A->ninst + 1) * sizeof *dur);
	if (!dur)
		return -ENOMEM;
	for (size_t i = 0; i < A->ninst; i++)
		dur[i] = A->inst[i].dur_ns;
	int rc = uncertainty__estimate(ps, nps, po, pr, FOLD__BOOTSTRAP_REPLICATES, c->opt->seed, dur, &u);
	free(dur);
	if (rc) {
		uncertainty__result_free(&u);
		return rc;
	}
	r->bootstrap_replicates = u.replicates;
	for (size_t p = 0; p < r->nphases; p++) {
		fold_phase_result *ph = &r->phases[p];
		ph->start_lo = u.replicates ? u.blo[p] : NAN;
		ph->start_hi = u.replicates ? u.bhi[p] : NAN;
		ph->rate_lo = calloc(nsw + 1, sizeof *ph->rate_lo);
		ph->rate_hi = calloc(nsw + 1, sizeof *ph->rate_hi);
		if (!ph->rate_lo || !ph->rate_hi) {
			uncertainty__result_free(&u);
			return -ENOMEM;
		}
		for (size_t k = 0; k < nsw; k++) {
			int in = pw[k] < pr->nseries && u.replicates;
			size_t q = in ? pw[k] * pr->nseg + p : 0;
			ph->rate_lo[k] = in ? u.rlo[q] * sw[k].rscale : NAN;
			ph->rate_hi[k] = in ? u.rhi[q] * sw[k].rscale : NAN;
			/* The replicates vary the fit's interior slope; the table may
			 * give the phase another estimate of the same rate (events over
			 * time, sample pairs). The interval keeps the replicates' spread
			 * on each side but around the table's rate, so it always holds
			 * the number it qualifies (a burst's 2.67e8 sat under its own
			 * [3.9e8, 1e9]). */
			double mid = in ? u.rmid[q] * sw[k].rscale : NAN;
			if (in && k < ph->nrates && isfinite(ph->rates[k]) && isfinite(mid)) {
				/* The replicates vary the shape (slopes relative to each
				 * instance's own rate), not the scale, the typical
				 * instance's rate: its own 90% spread over the instances
				 * adds in quadrature. A region of one phase had none
				 * (page faults 508/s [508, 508] from 116 faults). */
				double v = ph->rates[k],
				       e = isfinite(sw[k].rscale_rel) ? 1.645 * sw[k].rscale_rel * v : 0;
				double dl = fmax(0, mid - ph->rate_lo[k]), dh = fmax(0, ph->rate_hi[k] - mid);
				ph->rate_lo[k] = v - sqrt(dl * dl + e * e);
				ph->rate_hi[k] = v + sqrt(dh * dh + e * e);
			}
			double max = series_max(sw[k].skind, r->series[k].name);
			int nodata = k < ph->nrates && isnan(ph->rates[k]);
			ph->rate_lo[k] = nodata ? NAN : clamp_rate(ph->rate_lo[k], max);
			ph->rate_hi[k] = nodata ? NAN : clamp_rate(ph->rate_hi[k], max);
		}
		ph->nrate_ci = nsw;
	}
	fold_self_check *sc = &r->self_check;
	sc->done = u.checked;
	sc->why_not = u.checked ? NULL : u.check_why_not ? u.check_why_not : "not computed";
	sc->instances_a = u.ninst_a;
	sc->instances_b = u.ninst_b;
	sc->phases_a = u.nseg_a;
	sc->phases_b = u.nseg_b;
	sc->boundary = u.check_boundary;
	sc->rate = u.check_rate;
	sc->boundary_allowed = u.check_boundary_allowed;
	sc->rate_allowed = u.check_rate_allowed;
	sc->reproducible = sc->done && u.check_excess <= 1;
	/* Judged on the phases reported: each boundary must have a counterpart
	 * in both halves and each phase's rates must agree. A half with extra
	 * boundaries of its own (half the samples: the fit follows more noise)
	 * does not contradict them; a half lacking one of them does, through
	 * the boundary figure. */
	if (sc->done && !sc->reproducible)
		analyze__warn_about(
		    c, r->name,
		    "region %s: self-check failed: its two halves of instances folded on their own "
		    "give %zu and %zu phase(s) (all: %zu), boundaries %.1f%% of the instance and "
		    "rates %.0f%% apart; a %s %.1f%% apart where their sampling noise allows "
		    "%.1f%%: these phases are not reproducible",
		    r->name, sc->phases_a, sc->phases_b, r->nphases, 100 * sc->boundary, 100 * sc->rate,
		    u.check_worst_rate ? "rate" : "boundary", 100 * u.check_worst,
		    100 * u.check_worst_allowed);
	/* A boundary that moves between the shorter and the longer instances
	 * by more than the halves' own disagreement (and 1% of the instance):
	 * a phase whose length varies. */
	if (u.dur_checked) {
		double shift = fabs(u.dur_long - u.dur_short);
		sc->duration_shift = u.dur_long - u.dur_short;
		if (shift > 0.01 && (!sc->done || shift > 2 * sc->boundary))
			analyze__warn_about(
			    c, r->name,
			    "region %s: the phase boundary at %.3f moves with the instance's duration "
			    "(%.3f in the shorter half of the instances, %.3f in the longer): a phase's "
			    "length varies from instance to instance, so phase shares and durations are "
			    "averages over different code positions",
			    r->name, pr->bounds[u.dur_boundary], u.dur_short, u.dur_long);
	}
	uncertainty__result_free(&u);
	return 0;
}

/* An inner boundary whose 90% bootstrap interval is wider than this share
 * of the instance is not located by the data. */
#define FOLD__UNLOCATED_WIDTH 0.15

/* Do the phases on either side of inner boundary j differ in some series
 * that places boundaries, beyond their bootstrap intervals? A boundary
 * whose position varies from instance to instance (a wait of varying
 * length) is not located, yet separates real phases. */
static int rates_differ(const pwlr__series *ps, size_t nps, const pwlr__result *pr,
                        const uncertainty__result *u, size_t j)
{
	for (size_t k = 0; k < nps && k < pr->nseries; k++) {
		if (ps[k].rates_only)
			continue;
		double alo = u->rlo[k * pr->nseg + j - 1], ahi = u->rhi[k * pr->nseg + j - 1];
		double blo = u->rlo[k * pr->nseg + j], bhi = u->rhi[k * pr->nseg + j];
		if (isnan(alo) || isnan(ahi) || isnan(blo) || isnan(bhi))
			continue;
		if (ahi < blo || bhi < alo)
			return 1;
	}
	return 0;
}

/* Boundaries the data do not locate, between rates they do not tell apart,
 * are not phase boundaries. With three
 * phases or more, the bootstrap re-fits locate each inner boundary and
 * bound each phase's rates; when some boundary's interval is wider than
 * FOLD__UNLOCATED_WIDTH and no series' rates on its two sides are apart
 * beyond their intervals, the fit is done again with that many segments
 * fewer (up to three times). A page-faulting phase
 * whose fault cost rises 15% across it was cut into 3 to 7 sub-phases of
 * 0.45e6 to 2.9e6 faults/s for a truth of 1.3e6, their boundaries' intervals
 * spanning 0.16-0.40 of the instance, while the real switch's spanned 0.03.
 * *dropped: how many boundaries went. */
static int drop_unlocated(analyze_ctx *c, const pwlr__series *ps, size_t nps, pwlr__opts *po,
                          pwlr__result *pr, size_t *dropped)
{
	*dropped = 0;
	for (int round = 0; round < 3 && pr->nseg >= 3; round++) {
		uncertainty__result u;
		int rc = uncertainty__estimate(ps, nps, po, pr, FOLD__BOOTSTRAP_REPLICATES, c->opt->seed,
		                               NULL, &u);
		if (rc) {
			uncertainty__result_free(&u);
			return rc;
		}
		size_t wide = 0;
		for (size_t j = 1; u.replicates && j < pr->nseg; j++)
			wide +=
			    u.bhi[j] - u.blo[j] > FOLD__UNLOCATED_WIDTH && !rates_differ(ps, nps, pr, &u, j);
		uncertainty__result_free(&u);
		if (!wide)
			break;
		pwlr__opts fewer = *po;
		fewer.max_segments = (unsigned)(pr->nseg - wide);
		pwlr__result again;
		if ((rc = pwlr__fit(ps, nps, &fewer, &again)) != 0) {
			pwlr__result_free(&again);
			return rc;
		}
		*dropped += pr->nseg - again.nseg;
		pwlr__result_free(pr);
		*pr = again;
		*po = fewer;
	}
	return 0;
}

/* --- the pipeline --- */

int analyze__region(analyze_ctx *c, size_t g, fold_region_result *r)
{
	instances__region_acc *A = &c->acc[g];
	grouped gr = {0};
	series_work *sw = NULL;
	size_t nsw = 0, *pw = NULL, nps = 0, few = 0;
	pwlr__series *ps = NULL;
	pwlr__opts po;
	pwlr__result pr;
	memset(&pr, 0, sizeof pr);
	align_info ai = {0};
	int rc = stage_group(c, A, r, &gr);
	if (rc || (rc = too_few(c, r, &gr)))
		goto out;
	warn_cpu_share(c, r, A->inst, A->ninst);
	rc = -ENOMEM;
	sw = calloc(c->a->ncounters + 2, sizeof *sw);
	if (!sw || (rc = stage_fold_series(c, &gr, sw, &nsw)))
		goto out;
	{
		fit_params cp = {&r->fit_params, &r->nfit_params};
		if ((rc = one_cpu_series(sw, &nsw, &cp)))
			goto out;
	}
	if (!nsw) {
		r->reason = util_strdup("no counter, CPU time or sample could be folded");
		rc = r->reason ? 0 : -ENOMEM;
		goto out;
	}
	rc = -ENOMEM;
	pw = malloc(nsw * sizeof *pw);
	ps = calloc(nsw, sizeof *ps);
	if (!pw || !ps ||
	    (rc = stage_fit_phases(
	         sw, nsw, A->inst, A->ninst, &po, &pr, pw, ps, &nps, &ai,
	         r->groups[r->selected_group].cpu_share,
	         r->instances_used ? (double)r->samples_folded / (double)r->instances_used : 0, &few)))
		goto out;
	if (few)
		analyze__warn_about(
		    c, r->name,
		    "region %s: one phase shown: the series that could place phase boundaries are not "
		    "read at enter and exit%s, and its instances carry %.1f samples each, too few to "
		    "estimate them (%d needed); rates come from consecutive samples. Sample more often "
		    "(FOLD_SAMPLE), or mark the code with a fold_region() API region",
		    r->name,
		    r->kind == TRACE_REGION_FUNCTION ? " (a function region)"
		    : r->kind == TRACE_REGION_OPENMP ? " (an OpenMP region)"
		                                     : "",
		    r->instances_used ? (double)r->samples_folded / (double)r->instances_used : 0,
		    FOLDING__EXTRAPOLATE_MIN);
	if (ai.done) {
		analyze__warn_about(
		    c, r->name,
		    "region %s: a phase's length varies from instance to instance: each instance's "
		    "phase boundary was aligned to %.3f (%zu instances) before the phases were fitted",
		    r->name, ai.at, ai.aligned);
		if ((rc = fit__param(&(fit_params){&r->fit_params, &r->nfit_params}, "align.boundary", "%.4f",
		                     ai.at)) ||
		    (rc = fit__param(&(fit_params){&r->fit_params, &r->nfit_params}, "align.instances", "%zu",
		                     ai.aligned)))
			goto out;
	}
	if (!ai.done && pr.nseg >= 3) {
		size_t dropped = 0;
		if ((rc = drop_unlocated(c, ps, nps, &po, &pr, &dropped)))
			goto out;
		if (dropped && (rc = fit__param(
		                    &(fit_params){&r->fit_params, &r->nfit_params}, "pwlr.unlocated_dropped",
		                    "%zu boundary(ies) whose 90%% bootstrap interval spans more than %.2f of "
		                    "the instance",
		                    dropped, FOLD__UNLOCATED_WIDTH)))
			goto out;
	}
	fit_params params = {&r->fit_params, &r->nfit_params};
	if ((rc = stage_fit_curves(c, r, sw, nsw, &pr, pw)) ||
	    (rc = record_phase_params(&params, &pr, &po, sw, r->series, nsw, pw, c->opt->seed)) ||
	    (rc = stage_build_phases(c, r, sw, nsw, &pr, pw, &gr, &ai)) ||
	    (rc = stage_uncertainty(c, r, sw, nsw, ps, nps, &po, &pr, pw, A)) ||
	    (rc = stage_sampled_rates(c, r, sw, nsw, &pr, &gr, &ai)) ||
	    (rc = stage_bound_rates(c, r, sw, nsw, &pr, &gr, &ai)) ||
	    (rc = stage_sparse_steps(r, sw, nsw, &pr, r->groups[r->selected_group].cpu_share)) ||
	    (rc = models__apply(c->models, r)) ||
	    (rc = attribution__region(c->attrib, c->tr, gr.pieces, gr.npieces, r)))
		goto out;
	r->folded = 1;
out:
	for (size_t k = 0; sw && k < nsw; k++) {
		folding__folded_free(&sw[k].f);
		free(sw[k].name);
	}
	free(sw);
	free(pw);
	free(ps);
	free(gr.pieces);
	pwlr__result_free(&pr);
	align_info_free(&ai);
	return rc > 0 ? 0 : rc;
}
