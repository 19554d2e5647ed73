/* stage_group.c: the pipeline's first stage. Groups the region's
 * instances by duration (with the samples' own cost taken out), marks
 * outliers, picks the group to fold (the most time among those that can
 * fold and run on a CPU about as much as the best; --group overrides) and
 * collects its instances' pieces -> r->groups, r->inst marks, w->gr.
 * Stops the region (returns 1, r->reason) when too few instances or samples
 * are left, and warns when the folded instances did not get the CPU.
 *
 * Invariants: the instances' marks (used, group, why) are written here
 * only; every instance of the group folds, nested ones of a recursive
 * region too (a sample belongs to the innermost instance holding it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fit.h"
#include "grouping.h"
#include "region_work.h"

/* An instance that ran on a CPU less than this share of the typical
 * instance's was starved: preempted or waiting (warn_cpu_share). */
#define FOLD__STARVED_SHARE 0.8

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
	    folding__boundary_value(t, th, &(folding__boundary){&th->ev[in->ev_enter], in->sb, in->se, 0}, 0,
	                            1, &v0) ||
	    folding__boundary_value(t, th, &(folding__boundary){&th->ev[in->ev_exit], in->sb, in->se, 1}, 0,
	                            1, &v1))
		return -1;
	return fmin(1, (v1 - v0) / in->dur_ns);
}

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
			qsort(u, m, sizeof *u, region__cmp_dbl);
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
	int one_off = gs[most].used < c->opt->min_instances;
	if (one_off)
		what = "a one-off, not a repetition; its time is in the exact profile";
	fold_diag_subject s = region__subject_group(r->name, most);
	analyze__diag(
	    c, FOLD_DIAG_GROUP_TOO_FEW, &s,
	    ANALYZE_VALUES(
	        {"median", "ns", gs[most].median}, {"share", "share", gs[most].total / all},
	        {"samples", "count", (double)r->groups[most].samples},
	        {"instances", "count", (double)gs[most].used}, {"min_samples", "count", c->opt->min_samples},
	        {"min_instances", "count", c->opt->min_instances}, {"folded_group", "count", (double)sel},
	        {"folded_share", "share", gs[sel].total / all}),
	    one_off ? "one_off" : NULL,
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
		fold_diag_subject s = region__subject_group(r->name, sel);
		analyze__diag(c, FOLD_DIAG_GROUP_SLOW_TAIL, &s,
		              ANALYZE_VALUES({"median", "ns", gs[sel].median},
		                             {"share", "share", gs[sel].total / region_time(gs, ng)},
		                             {"tail_of", "count", parent},
		                             {"tail_of_median", "ns", gs[parent].median}),
		              NULL,
		              "region %s: group %zu (median %.3g ms, %.0f%% of the region's time) is the "
		              "slow tail of group %d (median %.3g ms), whose instances it has stretched; "
		              "group %d, the typical instance, is folded (--group %zu folds the tail)",
		              r->name, sel, gs[sel].median / 1e6, 100 * gs[sel].total / region_time(gs, ng),
		              parent, gs[parent].median / 1e6, parent, sel);
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
		fold_diag_subject s = region__subject_group(r->name, sel);
		analyze__diag(
		    c, FOLD_DIAG_GROUP_STRETCHED, &s,
		    ANALYZE_VALUES({"median", "ns", gs[sel].median},
		                   {"cpu_share", "share", r->groups[sel].cpu_share},
		                   {"folded_group", "count", (double)pick},
		                   {"folded_cpu_share", "share", r->groups[pick].cpu_share},
		                   {"folded_median", "ns", gs[pick].median}),
		    NULL,
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
	qsort(tmp, n0, sizeof *tmp, region__cmp_dbl);
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
	qsort(tmp, m, sizeof *tmp, region__cmp_dbl);
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
	fit_params params = FIT__PARAMS_OF(r);
	if (cost > 0 && fit__number(&params, "grouping.sample_cost_ns", cost, "ns"))
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
		fold_diag_subject s = analyze__subject_region(r->name);
		if ((size_t)want < ng)
			*sel = (size_t)want;
		else
			analyze__diag(
			    c, FOLD_DIAG_GROUP_MISSING, &s,
			    ANALYZE_VALUES({"requested", "count", want}, {"groups", "count", (double)ng},
			                   {"folded_group", "count", (double)*sel}),
			    NULL, "region %s: group %d requested but it has %zu group(s); folding group %zu",
			    r->name, want, ng, *sel);
	}
	r->selected_group = (unsigned)*sel;
	return 0;
}

/* Groups, marks the instances and collects the pieces of the folded group
 * into *out. */
static int group_instances(analyze_ctx *c, instances__region_acc *A, fold_region_result *r, grouped *out)
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
	fold_diag_subject s = analyze__subject_region(r->name);
	if (outl)
		analyze__diag(c, FOLD_DIAG_OUTLIERS_EXCLUDED, &s,
		              ANALYZE_VALUES({"instances", "count", (double)outl}, {"k", "ratio", outlier_k}),
		              NULL,
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
		qsort(u, m, sizeof *u, region__cmp_dbl);
		double med = m % 2 ? u[m / 2] : 0.5 * (u[m / 2 - 1] + u[m / 2]);
		size_t low = 0;
		while (low < m && u[low] < FOLD__STARVED_SHARE * med)
			low++;
		fold_diag_subject s = analyze__subject_region(r->name);
		if (med < FOLD__LOW_CPU_SHARE)
			analyze__diag(
			    c, FOLD_DIAG_LOW_CPU_SHARE, &s, ANALYZE_VALUES({"cpu_share", "share", med}), NULL,
			    "region %s: the folded instances ran on a CPU for only %.0f%% of their time "
			    "(median): they waited (I/O, locks, messages) or were preempted; phases with "
			    "low cpu_time may be waits rather than code",
			    r->name, 100 * med);
		else if (10 * low > m && 2 * nmeasured >= m)
			analyze__diag(
			    c, FOLD_DIAG_INSTANCES_STARVED, &s,
			    ANALYZE_VALUES({"starved", "share", (double)low / (double)m},
			                   {"threshold", "share", FOLD__STARVED_SHARE},
			                   {"typical_cpu_share", "share", med}),
			    NULL,
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
	long other_group = -1;
	for (size_t k = 0; k < r->ngroups; k++) {
		const fold_group *G = &r->groups[k];
		if (k != r->selected_group && G->used >= opt->min_instances && G->used > 0 &&
		    G->samples >= opt->min_samples) {
			snprintf(other, sizeof other,
			         "; group %zu (%lu instances, median %.3g ms, %lu samples) can be folded "
			         "with --group %zu",
			         k, G->used, G->median_duration_ns / 1e6, G->samples, k);
			other_group = (long)k;
			break;
		}
	}
	fold_diag_value v[5] = {
	    {few_inst ? "instances" : "samples", "count", (double)(few_inst ? g->used : g->sfold)},
	    {"needed", "count", few_inst ? opt->min_instances : opt->min_samples},
	    {"group", "count", r->selected_group},
	    {NULL, NULL, 0},
	    {NULL, NULL, 0}};
	if (other_group >= 0)
		v[3] = (fold_diag_value){"other_group", "count", (double)other_group};
	int rc;
	if (few_inst)
		rc = analyze__not_folded(r, FOLD_DIAG_TOO_FEW_INSTANCES, v,
		                         "%lu instance(s) usable in group %u, at least %u needed to fold%s",
		                         g->used, r->selected_group, opt->min_instances,
		                         *other ? other : "; run more iterations or lower --min-instances");
	else
		rc = analyze__not_folded(
		    r, FOLD_DIAG_TOO_FEW_SAMPLES, v,
		    "%lu sample(s) inside the usable instances of group %u, at least %u needed to fold%s",
		    g->sfold, r->selected_group, opt->min_samples,
		    *other ? other : "; sample more often (FOLD_SAMPLE=time@1ms) or run more iterations");
	if (rc)
		return rc;
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

int stage_group(analyze_ctx *c, region_work *w)
{
	int rc = group_instances(c, w->acc, w->r, &w->gr);
	if (rc || (rc = too_few(c, w->r, &w->gr)))
		return rc;
	warn_cpu_share(c, w->r, w->acc->inst, w->acc->ninst);
	return 0;
}
