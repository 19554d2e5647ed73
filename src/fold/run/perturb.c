/* perturb.c: taking the sampler's own cost out of what is folded.
 *
 * Owns the compensation of the measurement's perturbation (issue 13): every
 * sample stops the program for the kernel's delivery of the signal and the
 * handler, so an instance that carries samples is longer by their cost, and
 * a sample's timestamp lags the moment the program was interrupted. The
 * trace's sample_cost records give, per sample, the handler's time (entry
 * to exit) and the timestamp's lag after the entry; for a wall-clock
 * timer's sample (format 1.2) also the kernel's part before the entry, the
 * timer's deadline to the entry, which then is that sample's stop before
 * the handler (Db_k, at most twice the trace's median: see
 * measured_delivery_cap). Otherwise the kernel's part is estimated
 * per trace from the instances themselves: in a region whose instances are
 * short against the sampling period, instances with one sample are longer
 * than those without by the sample's whole cost (compared at their lower
 * quartiles: see delivery_from_region); minus the handler's measured part
 * that is the delivery (D). The part after the handler (the signal's
 * return, ~2 us on a VM) is never measured: D - Db, 0 without an estimate.
 * Unless the runtime probed the stop (format 1.3, INFO sample.stop_onset_ns
 * and sample.return_ns: rt_source_time.c): the program stops that much
 * before (negative) or after the deadline, on a KVM guest about 0.9 us
 * before it, and runs again that long after the handler's exit (about 0.4
 * us). A measured delivery's stop before the entry is then the delivery
 * less the onset, the sample's position the deadline plus the onset (the
 * samples of a 1.5 us function sat 0.9-2 us late and left its first third
 * sample-free), and the return is taken as probed where the instances
 * give no estimate of it (theirs also holds the program's slower run after
 * the handler, its caches refilled).
 *
 * Then, per thread, time is contracted around every sample: with S[k] the
 * time stolen by samples 0..k-1 (handler + D each, Db of D before the
 * handler's entry and the rest, the signal's return, after its exit: see
 * delivery_before; a measured Db_k instead of Db;
 * but never more than passed between the records around the sample: see
 * stolen_per_sample),
 *   sample k's tick   -> tick - lag_k - Db_k - S[k]   (where the program was)
 *   event ticks       -> tick - S[samples before it]
 *   instance t0 (t1)  -> t0 - S[isb]  (t1 - S[ise]), the same
 *   its duration      -> from the two (what it takes without the sampler)
 *   CPU time           the stolen time ran on the CPU: taken out of cpu_cum,
 *                      and out of a CPU-clock counter (TASK-CLOCK,
 *                      CPU-CLOCK) read at samples and events, which counts
 *                      it too (else its folded rate passes 1 CPU around
 *                      every sample and small steps become phases).
 * Before that, per trace, the CPU clock's read offset: the handler reads
 * the counters a little after its timestamp (a read(2), 0.5-1.5 us on a VM;
 * 3 us when the unwinding came between), while enter and exit take theirs
 * right after the read, so a sample's CPU-clock value is ahead of its
 * position by about one read (behind it, were the timestamp taken after).
 * The handler is on the CPU meanwhile, so the clock advanced by exactly
 * that time, whatever the program did: it is measured where the CPU clock
 * must equal wall time (instances read at enter/exit that were on the CPU
 * throughout, where the CPU clock since the enter minus the wall time since
 * it is the offset, and so is the wall time to the exit minus the CPU clock
 * to it) and subtracted from every sample's CPU-clock value. Left in, a
 * busy 54 us region's folded TASK-CLOCK met its exit value 2-10% of the
 * instance early and read 0/s there.
 * Runs once, after the exact profile (which keeps the program's own,
 * perturbed times: they are what the program's timers see) and before the
 * regions are folded; later stages order events and samples by
 * ev[].nsamples, never by comparing raw ticks with compensated ones.
 * Before the samples, the runtime's own pauses (pause records: a region
 * event's hook sealed a full chunk, or the periodic flush was due, and the
 * thread deflated and wrote trace data, ~0.3-1 ms per 64 KB) are taken
 * out the same way, each right after the event it follows: every later
 * event and sample moves back by it, CPU time and CPU-clock values lose
 * it, and an instance that contains it is that much shorter. (The exact
 * profile takes it out too, as the hook's own cost: instances.c.)
 * Traces without sample_cost records only lose the CPU clock's read offset;
 * traces without delivery_ns (format 1.1, CPU-time timers, counter
 * overflows) use the estimate for every sample, as before.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"

/* A trace's delivery of a sample (see stolen_per_sample): D, the typical
 * delivery, Db of it before the handler's entry; cap, the most a
 * measured delivery counts for; sp, the runtime's probe of the stop. */
typedef struct perturb__delivery {
	double D, Db, cap;
	const struct stop_probe *sp;
} perturb__delivery;

/* Fewest samples in busy instances for the CPU clock's read offset. */
#define FOLD__MIN_OFFSET_SAMPLES 20
/* Fewest instances with no sample and with exactly one for an estimate. */
#define FOLD__MIN_COST_INSTANCES 20
/* Longest instances (median, share of the sampling period) to estimate it from. */
#define FOLD__MAX_COST_INSTANCE_SHARE 0.25

static int cmp_dbl(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;
	return a < b ? -1 : a > b;
}

static double median(double *v, size_t n)
{
	qsort(v, n, sizeof *v, cmp_dbl);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* q-quantile of v[0..n) (sorts v). */
static double quantile(double *v, size_t n, double q)
{
	qsort(v, n, sizeof *v, cmp_dbl);
	return v[(size_t)(q * (double)(n - 1))];
}

/* q-quantile of v[0..n) with each value weighted by itself (sorts v): the
 * quantile of the length-biased distribution, from which a timer that
 * expires at a random moment picks the instance it lands in. */
static double length_biased_quantile(double *v, size_t n, double q)
{
	qsort(v, n, sizeof *v, cmp_dbl);
	double total = 0, acc = 0;
	for (size_t i = 0; i < n; i++)
		total += v[i] > 0 ? v[i] : 0;
	for (size_t i = 0; i < n; i++) {
		acc += v[i] > 0 ? v[i] : 0;
		if (acc >= q * total)
			return v[i];
	}
	return n ? v[n - 1] : 0;
}

/* Handler time of sample k (the thread's median for a sample without a
 * record). */
/* The CPU-clock counter's value in a record with counter set cset at voff,
 * and its id (-1: the record has none). */
static int cpu_clock_value(const ingest__trace *t, const ingest__thread *th, uint16_t cset, uint32_t voff,
                           uint32_t *id, double *v)
{
	int j = ingest__cpu_clock_slot(t, cset);
	if (j < 0 || (size_t)voff + (size_t)j >= th->nvals)
		return -1;
	*id = t->csets[cset].ids[j];
	*v = (double)th->vals[voff + (uint32_t)j];
	return 0;
}

/* Adds one candidate per sample of instance in (trace t) to v[0..*n): when
 * its CPU clock is read at enter and exit and ran with the wall clock
 * throughout (off the CPU for at most 1% of it, 0.25..1 us), the CPU clock
 * since the enter less the wall time since it (L) and the wall time to the
 * exit less the CPU clock to it (U) are both the sample's read offset; L is
 * at most it and U at least it when the instance waited, so their mean is
 * taken. Raw ticks and values: the compensation moves both alike. */
static int offset_candidates(const ingest__trace *t, const instances__instance *in, double **v, size_t *n,
                             size_t *cap)
{
	const ingest__thread *th = &t->threads[in->thread];
	if (in->ev_enter >= th->nev || in->ev_exit >= th->nev)
		return 0;
	const ingest__event *e0 = &th->ev[in->ev_enter], *e1 = &th->ev[in->ev_exit];
	uint32_t id0, id1, id;
	double c0, c1, vs;
	if (in->ise <= in->isb || cpu_clock_value(t, th, e0->cset, e0->voff, &id0, &c0) ||
	    cpu_clock_value(t, th, e1->cset, e1->voff, &id1, &c1) || id0 != id1)
		return 0;
	double dur = ((double)e1->tick - (double)e0->tick) * t->ns_per_tick;
	double tol = fmin(fmax(0.01 * dur, 250), 1000);
	if (!(dur > 0) || fabs(dur - (c1 - c0)) > tol)
		return 0;
	for (size_t k = in->isb; k < in->ise && k < th->nsmp; k++) {
		const ingest__sample *sm = &th->smp[k];
		if (cpu_clock_value(t, th, sm->cset, sm->voff, &id, &vs) || id != id0)
			continue;
		double a = ((double)sm->tick - (double)e0->tick) * t->ns_per_tick;
		double b = ((double)e1->tick - (double)sm->tick) * t->ns_per_tick;
		if (util_grow((void **)v, cap, *n + 1, sizeof **v))
			return -ENOMEM;
		(*v)[(*n)++] = 0.5 * ((vs - c0 - a) + (b - (c1 - vs)));
	}
	return 0;
}

/* Measures the CPU clock's read offset in trace p (median of the
 * candidates of all its instances) and takes it out of every sample's
 * CPU-clock value; *off and *used: the offset and its samples (0: too few,
 * nothing changed). */
static int align_cpu_clock(const analyze_ctx *c, size_t p, double *off, size_t *used)
{
	ingest__trace *t = c->tr[p];
	double *v = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	*off = 0;
	*used = 0;
	for (size_t g = 0; g < c->nreg && !rc; g++) {
		const instances__region_acc *A = &c->acc[g];
		for (size_t i = 0; i < A->ninst && !rc; i++)
			if (A->inst[i].proc == p)
				rc = offset_candidates(t, &A->inst[i], &v, &n, &cap);
	}
	if (rc || n < FOLD__MIN_OFFSET_SAMPLES)
		goto out;
	*off = median(v, n);
	*used = n;
	for (size_t i = 0; i < t->nthreads; i++) {
		ingest__thread *th = &t->threads[i];
		for (size_t k = 0; k < th->nsmp; k++) {
			int j = ingest__cpu_clock_slot(t, th->smp[k].cset);
			if (j < 0 || (size_t)th->smp[k].voff + (size_t)j >= th->nvals)
				continue;
			uint64_t *x = &th->vals[th->smp[k].voff + (uint32_t)j];
			double nv = (double)*x - *off;
			*x = nv > 0 ? (uint64_t)llround(nv) : 0;
		}
	}
out:
	free(v);
	return rc;
}

/* align_cpu_clock for every trace; the analysis records the offset's mean
 * over the traces, weighted by the samples it rests on. */
static int align_cpu_clocks(analyze_ctx *c)
{
	double sum = 0;
	size_t n = 0;
	for (size_t p = 0; p < c->ntr; p++) {
		double off;
		size_t used;
		if (!(c->tr[p]->ns_per_tick > 0))
			continue;
		int rc = align_cpu_clock(c, p, &off, &used);
		if (rc)
			return rc;
		sum += off * (double)used;
		n += used;
	}
	c->a->sample_cpu_clock_offset_ns = n ? sum / (double)n : 0;
	return 0;
}

/* Takes stolen_ns out of the CPU-clock value of a record (if it has one). */
static void take_out_cpu_clock(const ingest__trace *t, ingest__thread *th, uint16_t cset, uint32_t voff,
                               double stolen_ns)
{
	int j = ingest__cpu_clock_slot(t, cset);
	if (j < 0 || (size_t)voff + (size_t)j >= th->nvals || !(stolen_ns > 0))
		return;
	uint64_t *v = &th->vals[voff + (uint32_t)j], d = (uint64_t)llround(stolen_ns);
	*v = *v > d ? *v - d : 0;
}

static double handler_ns(const ingest__thread *th, size_t k, double fallback)
{
	if (!th->cost_ns || k >= th->cap_cost || th->cost_ns[k] == UINT32_MAX)
		return fallback;
	return th->cost_ns[k];
}

int perturb__short_against_period(const analyze_ctx *c, size_t p, double duration_ns)
{
	double period = fold_sampling_period_ns(&c->tr[p]->facts.sampling);
	return !(period > 0 && duration_ns > FOLD__MAX_COST_INSTANCE_SHARE * period);
}

/* Estimate of the delivery D for trace p from one region's instances;
 * returns the number of one-sample instances it rests on (0: none). */
static size_t delivery_from_region(const analyze_ctx *c, const instances__region_acc *A, size_t p,
                                   const double *fallback, double *d)
{
	size_t n = A->ninst, n0 = 0, n1 = 0;
	double *v0 = malloc((n + 1) * sizeof *v0), *v1 = malloc((n + 1) * sizeof *v1);
	size_t got = 0;
	if (!v0 || !v1)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const instances__instance *in = &A->inst[i];
		if (in->proc != p || in->nested_same)
			continue;
		const ingest__thread *th = &c->tr[p]->threads[in->thread];
		if (in->ise == in->isb)
			v0[n0++] = in->dur_ns;
		else if (in->ise == in->isb + 1)
			v1[n1++] = in->dur_ns - handler_ns(th, in->isb, fallback[in->thread]);
	}
	if (n0 < FOLD__MIN_COST_INSTANCES || n1 < FOLD__MIN_COST_INSTANCES)
		goto out;
	double m0 = median(v0, n0);
	/* Only instances short against the sampling period: a timer lands in
	 * one with a probability proportional to its length (the correction
	 * below) only while that probability is well below 1; instances about
	 * as long as the period are sampled whenever they are long, and the
	 * difference is their lengths, not the cost (67 us "delivery" on 1 ms
	 * instances at 1 ms sampling shifted every sample by 7% of them). */
	if (!perturb__short_against_period(c, p, m0))
		goto out;
	/* Same population only: a region with instances of very different
	 * lengths would compare long (sampled) with short (unsampled) ones. */
	size_t m = 0;
	for (size_t i = 0; i < n1; i++)
		if (v1[i] > 0.5 * m0 && v1[i] < 2 * m0 + 2e5)
			v1[m++] = v1[i];
	if (m < FOLD__MIN_COST_INSTANCES || 2 * m < n1)
		goto out;
	/* A timer that expires at a random moment lands in an instance with a
	 * probability proportional to its length: the sampled instances are a
	 * length-biased draw (longer ones, the ones the scheduler paused, more
	 * often), so they are compared with the length-biased distribution of
	 * the unsampled ones, at their lower quartiles (the upper part of both
	 * holds preemption, not cost). Against the plain quartile of the
	 * unsampled instances, the difference counted the bias as cost: 39 us
	 * per sample on a loaded run whose 54 us instances vary widely. */
	*d = quantile(v1, m, 0.25) - length_biased_quantile(v0, n0, 0.25);
	got = m;
out:
	free(v0);
	free(v1);
	return got;
}

/* Fewest samples at the edge that measures the delivery after the handler. */
#define FOLD__EDGE_SAMPLES 10

/* One-sample instance in of region A (process p): its sample's time after
 * the enter less its lag (a), the time from the handler's exit to the exit
 * (b) and the duration without the sample's whole cost h + D (d), in ns;
 * -1 when in is not one. */
static int one_sample_times(const ingest__trace *t, const instances__instance *in, size_t p,
                            const double *fallback, double D, double *a, double *b, double *d)
{
	if (in->proc != p || in->nested_same || in->ise != in->isb + 1)
		return -1;
	const ingest__thread *th = &t->threads[in->thread];
	size_t k = in->isb;
	double lag = th->lag_ns && k < th->cap_cost && th->lag_ns[k] != UINT32_MAX ? th->lag_ns[k] : 0;
	double h = handler_ns(th, k, fallback[in->thread]);
	*a = ((double)th->smp[k].tick - (double)in->t0) * t->ns_per_tick - lag;
	*b = in->dur_ns - *a - h;
	*d = in->dur_ns - h - D;
	return *d > 0 && *a >= 0 && *b >= 0 ? 0 : -1;
}

/* The part of the delivery D that lies before the handler's entry, D less
 * the part after its exit (the signal's return), measured at the end of
 * the instances of region A (process p) that carry one sample, short
 * against the period: there a sample stops the program at a uniform
 * position p of its time, so the time from the handler's exit to the
 * instance's exit is (1 - p) d + Da with d the instance's time without the
 * sample, and its k-th smallest share of d over n instances is
 * k / (n + 1) + Da / d. The edge, not the mean: the delivery's spread and
 * its long tail (22-60 us around 38 on XSBench) pushed the mean to all of
 * D before the handler, and the signal's return, never taken out, left the
 * last 2-3% of the instance without samples (a phase of its own). D when
 * there are too few such instances; clamped to [0, D]. */
static double delivery_before(const analyze_ctx *c, const instances__region_acc *A, size_t p,
                              const double *fallback, double D)
{
	const ingest__trace *t = c->tr[p];
	double *w = malloc((A->ninst + 1) * sizeof *w), *rel = malloc((A->ninst + 1) * sizeof *rel);
	double a, b, d, db = D;
	size_t n = 0, m = 0;
	if (!w || !rel)
		goto out;
	for (size_t i = 0; i < A->ninst; i++)
		if (one_sample_times(t, &A->inst[i], p, fallback, D, &a, &b, &d) == 0)
			w[n++] = d;
	if (n < FOLD__MIN_COST_INSTANCES)
		goto out;
	/* the same population: not instances a preemption stretched */
	double wm = median(w, n);
	for (size_t i = 0; i < A->ninst; i++)
		if (one_sample_times(t, &A->inst[i], p, fallback, D, &a, &b, &d) == 0 && d > 0.5 * wm &&
		    d < 1.5 * wm)
			rel[m++] = b / d;
	if (m < FOLD__MIN_COST_INSTANCES)
		goto out;
	size_t k = m / 50 > FOLD__EDGE_SAMPLES ? m / 50 : FOLD__EDGE_SAMPLES;
	double da = (quantile(rel, m, (double)(k - 1) / (double)(m - 1)) - (double)k / (double)(m + 1)) * wm;
	db = D - (da < 0 ? 0 : da > D ? D : da);
out:
	free(w);
	free(rel);
	return db;
}

static double lag_of(const ingest__thread *th, size_t k)
{
	return th->lag_ns && k < th->cap_cost && th->lag_ns[k] != UINT32_MAX ? th->lag_ns[k] : 0;
}

/* The runtime's stop probe in trace t (see the top): the stop's onset
 * after the deadline (negative: before it; 0 without a probe) and the
 * return after the handler (-1: not probed). */
typedef struct stop_probe {
	double onset_ns, return_ns;
} stop_probe;

static stop_probe stop_probe_of(const ingest__trace *t)
{
	/* a probe that cannot be one (beyond 50 us either way) is not used:
	 * run_facts.c bounds both */
	return (stop_probe){t->facts.stop_onset_ns, t->facts.stop_return_ns};
}

/* Sample k's measured stop before the handler (its timer's deadline to
 * the handler's entry, format 1.2, less the probed onset), -1 when it has
 * none. */
static double measured_delivery(const ingest__thread *th, size_t k, const stop_probe *sp)
{
	if (!th->delivery_ns || k >= th->cap_cost || th->delivery_ns[k] == UINT32_MAX)
		return -1;
	double d = th->delivery_ns[k] - sp->onset_ns;
	return d > 0 ? d : 0;
}

/* Longest measured delivery taken as the sampler's, per trace: twice the
 * median measured one (0: trace p has none). Beyond it the program was
 * off the CPU when its timer expired (another job, the host's scheduler:
 * 8% of the samples took 150 us to 1 ms on a loaded 2-core VM, against a
 * median of 32 us), a stop it would have had without fold, whose time ran
 * on no CPU: taken out, it shortened instances by preemptions and took
 * CPU time out of counters that never counted it. */
static int measured_delivery_cap(const ingest__trace *t, const stop_probe *sp, double *cap)
{
	size_t n = 0, m = 0;
	*cap = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		n += t->threads[i].ndelivery;
	if (!n)
		return 0;
	double *v = malloc(n * sizeof *v);
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < t->nthreads; i++)
		for (size_t k = 0; k < t->threads[i].nsmp && m < n; k++) {
			double d = measured_delivery(&t->threads[i], k, sp);
			if (d >= 0)
				v[m++] = d;
		}
	*cap = m ? 2 * median(v, m) : 0;
	free(v);
	return 0;
}

/* Where a sample's stop began, before its handler's entry (ns): what the
 * delivery stole (ran on the CPU, taken out of the timeline), and beyond it
 * what the program waited off the CPU for a measured delivery longer than
 * the cap. Nothing of the program ran in that wait (a signal is delivered
 * as soon as the thread runs again), so the counters the handler reads are
 * those of the timer's deadline too. */
typedef struct sample_delay {
	double stolen, waited;
} sample_delay;

/* Keeps, per sample of th, what the program waited off the CPU before its
 * stop (B[k].waited): folding.c folds such a sample at its timer's deadline
 * too, where its counters already read what they read at the stop. */
static int note_waits(ingest__thread *th, const sample_delay *B)
{
	free(th->waited_ns);
	th->waited_ns = NULL;
	for (size_t k = 0; k < th->nsmp; k++) {
		if (!(B[k].waited > 0))
			continue;
		if (!th->waited_ns && !(th->waited_ns = calloc(th->nsmp, sizeof *th->waited_ns)))
			return -ENOMEM;
		th->waited_ns[k] = B[k].waited >= UINT32_MAX ? UINT32_MAX : (uint32_t)llround(B[k].waited);
	}
	return 0;
}

/* What stolen_per_sample used, for the report. */
typedef struct stolen_sums {
	double before;          /* sum of the measured deliveries used (after their bounds) */
	unsigned long measured; /* samples that had one */
} stolen_sums;

/* Each sample's stolen time on thread th, in ticks: S[k] before sample k
 * (S[0] = 0), and B[k] its delivery before the handler's entry. The
 * typical delivery D (Db of it before the entry) is what a sample steals;
 * a sample with a measured delivery (a wall-clock timer's, format 1.2)
 * stole that much before the entry instead, at most cap (see
 * measured_delivery_cap), and D - Db after the handler. On a VM the stop
 * before the entry varies from sample to sample (18 to 60 us around a
 * median of 32), and D is estimated only where instances are short
 * against the period: with 0.9 ms instances at 1 ms sampling every sample
 * sat 33 us late and the instances kept it. Either way, a single sample
 * cannot have stolen more than passed between the
 * records around it: the program stopped after the record before it (an
 * event, or the previous handler's end) and ran again before the record
 * after it (an event, or the next handler's entry). Without that bound a
 * sample whose delivery was short, next to an event (as every sample is in
 * a region of instrumented functions), was moved to that event and its
 * instance shortened by more than the sample cost: positions past the
 * instance's exit, whose CPU clock was still short of the exit's (a busy
 * 60 us region folded with TASK-CLOCK 0/s in its last 4.5%). */
static void stolen_per_sample(const ingest__trace *t, const ingest__thread *th, double fb,
                              const perturb__delivery *dl, double *S, sample_delay *B, stolen_sums *sum)
{
	double D = dl->D, Db = dl->Db, cap = dl->cap;
	const stop_probe *sp = dl->sp;
	const double nspt = t->ns_per_tick;
	size_t e = 0;
	S[0] = 0;
	for (size_t k = 0; k < th->nsmp; k++) {
		double h = handler_ns(th, k, fb), entry = (double)th->smp[k].tick - lag_of(th, k) / nspt;
		double before = -1, after = -1; /* ticks: last record before the stop, first after */
		while (e < th->nev && th->ev[e].nsamples <= k)
			before = (double)th->ev[e++].tick;
		if (e < th->nev)
			after = (double)th->ev[e].tick;
		if (k) {
			double prev = (double)th->smp[k - 1].tick +
			              (handler_ns(th, k - 1, fb) - lag_of(th, k - 1)) / nspt;
			before = prev > before ? prev : before;
		}
		if (k + 1 < th->nsmp) {
			double next = (double)th->smp[k + 1].tick - lag_of(th, k + 1) / nspt;
			after = after < 0 || next < after ? next : after;
		}
		double db = Db, da = D - Db, m = measured_delivery(th, k, sp);
		if (m >= 0)
			db = fmin(m, cap);
		/* the probed return only where the instances show none: theirs
		 * holds the program's slower run after the handler too (its
		 * caches, refilled), which the probe's spin loop does not have */
		if (m >= 0 && sp->return_ns >= 0 && !(D - Db > 0))
			da = sp->return_ns;
		double room = before >= 0 ? (entry - before) * nspt : HUGE_VAL;
		db = fmax(0, fmin(db, room));
		if (after >= 0)
			da = fmax(0, fmin(da, (after - entry) * nspt - h));
		if (m >= 0) {
			sum->before += db;
			sum->measured++;
		}
		B[k].stolen = db;
		B[k].waited = m > db ? fmax(0, fmin(m, room) - db) : 0;
		S[k + 1] = S[k] + (h + db + da) / nspt;
	}
}

/* Each thread's median handler time in trace t, fallback[i], for its
 * samples without a record. */
static int handler_fallbacks(const ingest__trace *t, double *fallback)
{
	for (size_t i = 0; i < t->nthreads; i++) {
		const ingest__thread *th = &t->threads[i];
		if (!th->ncost)
			continue;
		double *v = malloc(th->ncost * sizeof *v);
		if (!v)
			return -ENOMEM;
		size_t m = 0;
		for (size_t k = 0; k < th->nsmp && k < th->cap_cost && m < th->ncost; k++)
			if (th->cost_ns[k] != UINT32_MAX)
				v[m++] = th->cost_ns[k];
		fallback[i] = m ? median(v, m) : 0;
		free(v);
	}
	return 0;
}

/* Trace p's delivery D, from the region with the most one-sample
 * instances, and Db, its part before the handler; *est: whether D was
 * estimated at all. */
static void estimate_delivery(const analyze_ctx *c, size_t p, const double *fallback, double *D, double *Db,
                              int *est)
{
	size_t best = 0, from = SIZE_MAX;
	*D = 0;
	for (size_t g = 0; g < c->nreg; g++) {
		double d;
		size_t got = delivery_from_region(c, &c->acc[g], p, fallback, &d);
		if (got > best) {
			best = got;
			*D = d;
			from = g;
		}
	}
	*D = *D < 0 ? 0 : *D > 1e6 ? 1e6 : *D;
	/* Db: D's part before the handler (where the sample's timestamp lags
	 * the program's stop); D - Db after it */
	*Db = from != SIZE_MAX ? delivery_before(c, &c->acc[from], p, fallback, *D) : *D;
	*est = best > 0;
}

/* Moves the instances of trace p by the time taken out before them,
 * S[thread][...] ticks: indexed by the samples before the instance's enter
 * and exit (by_event 0: the stolen time of samples) or by its enter and
 * exit events (1: the runtime's pauses). */
static void shift_instances(analyze_ctx *c, size_t p, double *const *S, int by_event)
{
	const ingest__trace *t = c->tr[p];
	for (size_t g = 0; g < c->nreg; g++) {
		instances__region_acc *A = &c->acc[g];
		for (size_t k = 0; k < A->ninst; k++) {
			instances__instance *in = &A->inst[k];
			const double *s = in->proc == p ? S[in->thread] : NULL;
			if (!s)
				continue;
			double t0 = (double)in->t0 - s[by_event ? in->ev_enter : in->isb];
			double t1 = (double)in->t1 - s[by_event ? in->ev_exit : in->ise];
			if (t1 < t0)
				t1 = t0;
			in->t0 = (uint64_t)llround(t0);
			in->t1 = (uint64_t)llround(t1);
			in->dur_ns = (t1 - t0) * t->ns_per_tick;
		}
	}
}

/* Places thread th's samples where the program was (never before the
 * record before them), takes the stolen time out of their CPU time and
 * CPU-clock values, then moves its events. */
static void shift_thread(const ingest__trace *t, ingest__thread *th, double fb, const double *S,
                         const sample_delay *B)
{
	size_t e = 0;
	double floor = 0, cpu = 0;
	for (size_t k = 0; k < th->nsmp; k++) {
		while (e < th->nev && th->ev[e].nsamples <= k) {
			double et = (double)th->ev[e].tick - S[k];
			floor = et > floor ? et : floor;
			e++;
		}
		double lag = lag_of(th, k), db = B[k].stolen;
		double back = (lag + db) / t->ns_per_tick;
		double tk = (double)th->smp[k].tick - S[k] - back;
		if (tk < floor)
			tk = floor;
		floor = tk;
		th->smp[k].tick = (uint64_t)llround(tk);
		take_out_cpu_clock(t, th, th->smp[k].cset, th->smp[k].voff, S[k] * t->ns_per_tick + db + lag);
		if (th->cpu_cum) {
			/* the stolen time ran on the CPU: delivery and the handler
			 * up to its read for this sample, the rest of the previous
			 * one's */
			double prev = k ? handler_ns(th, k - 1, fb) : 0;
			double pda = k ? (S[k] - S[k - 1]) * t->ns_per_tick - prev - B[k - 1].stolen : 0;
			double own =
			    th->smp[k].cpu_ns - (db + lag) - (prev - (k ? lag_of(th, k - 1) : 0)) - pda;
			cpu += own > 0 ? own : 0;
			th->cpu_cum[k] = cpu;
		}
	}
	/* events last (the samples' floors used their raw ticks) */
	for (size_t k = 0; k < th->nev; k++) {
		size_t at = th->ev[k].nsamples <= th->nsmp ? th->ev[k].nsamples : th->nsmp;
		th->ev[k].tick = (uint64_t)llround((double)th->ev[k].tick - S[at]);
		take_out_cpu_clock(t, th, th->ev[k].cset, th->ev[k].voff, S[at] * t->ns_per_tick);
	}
}

/* Records trace p's delivery in the analysis: the largest over the traces.
 * With measured deliveries, the part before the handler is their mean as
 * used, and the delivery that plus the estimated part after it. */
static void report_delivery(fold_analysis *a, int est, double D, double Db, const stolen_sums *sum,
                            const stop_probe *sp)
{
	if (sp->return_ns >= 0) {
		a->sample_stop_onset_ns = sp->onset_ns;
		a->sample_return_ns = sp->return_ns;
	}
	if (sum->measured) {
		double before = sum->before / (double)sum->measured;
		double whole = before + (est && D - Db > 0 ? D - Db : sp->return_ns >= 0 ? sp->return_ns : 0);
		if (whole >= a->sample_delivery_ns) {
			a->sample_delivery_ns = whole;
			a->sample_delivery_before_ns = before;
		}
		a->samples_delivery_measured += sum->measured;
		return;
	}
	if (est && D >= a->sample_delivery_ns)
		a->sample_delivery_before_ns = Db;
	if (est && D > a->sample_delivery_ns)
		a->sample_delivery_ns = D;
}

/* Trace writing that took 1% or more of a thread's time perturbed the
 * program even if fold takes it out: said once per trace, with what makes
 * it smaller. */
static void warn_writing(analyze_ctx *c, size_t p)
{
	const ingest__trace *t = c->tr[p];
	for (size_t i = 0; i < t->nthreads; i++) {
		const ingest__thread *th = &t->threads[i];
		double sum = 0, span = 0;
		for (size_t q = 0; q < th->npause; q++)
			sum += th->pause[q].ns;
		uint64_t end = th->ended ? th->end_tick : th->last_tick;
		if (end > th->start_tick)
			span = (double)(end - th->start_tick) * t->ns_per_tick;
		if (!(span > 0) || sum < 0.01 * span)
			continue;
		/* zlib takes 3x zstd's time (docs/configuration.md, FOLD_COMPRESS) */
		const char *how = t->facts.compress;
		int zlib = how && !strncmp(how, "zlib", 4);
		fold_diag_subject ts = analyze__subject_thread(c, p, th->stream);
		analyze__diag(
		    c, FOLD_DIAG_WRITER_PAUSES, &ts,
		    ANALYZE_VALUES({"paused", "ns", sum}, {"pauses", "count", (double)th->npause},
		                   {"share", "share", sum / span}),
		    zlib ? "zlib" : NULL,
		    "%s: writing the trace stopped thread %u for %.1f ms in %zu pause(s), %.1f%% of its "
		    "time; taken out of the times shown, but the program ran that much slower: record "
		    "fewer calls (FOLD_FILTER, FOLD_THROTTLE)%s",
		    t->path, th->stream, sum / 1e6, th->npause, 100 * sum / span,
		    zlib ? " or compress with zstd (FOLD_COMPRESS=zstd, a third of zlib's time)" : "");
		return;
	}
}

/* Trace p's pauses out of its threads' times (see the top): P[i][e], in
 * ticks, the pauses of thread i before its event e. */
static int contract_pauses(analyze_ctx *c, size_t p)
{
	ingest__trace *t = c->tr[p];
	double **P = calloc(t->nthreads + 1, sizeof *P);
	int rc = -ENOMEM;
	if (!P)
		return rc;
	for (size_t i = 0; i < t->nthreads; i++) {
		ingest__thread *th = &t->threads[i];
		if (!th->npause)
			continue;
		if (!(P[i] = malloc((th->nev + 1) * sizeof **P)))
			goto out;
		double sum = 0, nspt = t->ns_per_tick;
		size_t q = 0;
		for (size_t e = 0; e <= th->nev; e++) {
			for (; q < th->npause && th->pause[q].nev <= e; q++)
				sum += th->pause[q].ns / nspt;
			P[i][e] = sum;
		}
		c->a->trace_writing_pauses += th->npause;
		c->a->trace_writing_ns += sum * nspt;
		/* samples: the pauses before each, out of its position, its CPU
		 * time since the previous one and its CPU clock */
		double ps = 0;
		q = 0;
		for (size_t k = 0; k < th->nsmp; k++) {
			double here = 0;
			for (; q < th->npause && th->pause[q].nsmp <= k; q++)
				here += th->pause[q].ns;
			ps += here / nspt;
			th->smp[k].tick = (uint64_t)llround((double)th->smp[k].tick - ps);
			uint32_t cut = here >= th->smp[k].cpu_ns ? th->smp[k].cpu_ns : (uint32_t)here;
			if (th->smp[k].cpu_ns != UINT32_MAX)
				th->smp[k].cpu_ns -= cut;
			if (th->cpu_cum)
				th->cpu_cum[k] -= ps * nspt;
			take_out_cpu_clock(t, th, th->smp[k].cset, th->smp[k].voff, ps * nspt);
		}
		for (size_t e = 0; e < th->nev; e++) {
			th->ev[e].tick = (uint64_t)llround((double)th->ev[e].tick - P[i][e]);
			take_out_cpu_clock(t, th, th->ev[e].cset, th->ev[e].voff, P[i][e] * nspt);
		}
	}
	shift_instances(c, p, P, 1);
	warn_writing(c, p);
	rc = 0;
out:
	for (size_t i = 0; i < t->nthreads; i++)
		free(P[i]);
	free(P);
	return rc;
}

int perturb__compensate_samples(analyze_ctx *c)
{
	fold_analysis *a = c->a;
	double hsum = 0;
	unsigned long hn = 0, comp = 0;
	if (align_cpu_clocks(c))
		return -ENOMEM;
	for (size_t p = 0; p < c->ntr; p++)
		if (c->tr[p]->ns_per_tick > 0 && contract_pauses(c, p))
			return -ENOMEM;
	for (size_t p = 0; p < c->ntr; p++) {
		ingest__trace *t = c->tr[p];
		int any = 0;
		for (size_t i = 0; i < t->nthreads; i++)
			any |= t->threads[i].ncost > 0;
		if (!any || !(t->ns_per_tick > 0))
			continue;
		double *fallback = calloc(t->nthreads + 1, sizeof *fallback);
		double **S = calloc(t->nthreads + 1, sizeof *S);
		sample_delay **B = calloc(t->nthreads + 1, sizeof *B);
		int rc = -ENOMEM, est;
		double D, Db, cap;
		stolen_sums sum = {0, 0};
		stop_probe sp = stop_probe_of(t);
		if (!fallback || !S || !B || handler_fallbacks(t, fallback) ||
		    measured_delivery_cap(t, &sp, &cap))
			goto fail;
		estimate_delivery(c, p, fallback, &D, &Db, &est);
		/* S[k]: time stolen before sample k, in ticks */
		for (size_t i = 0; i < t->nthreads; i++) {
			ingest__thread *th = &t->threads[i];
			if (!th->ncost)
				continue;
			if (!(S[i] = malloc((th->nsmp + 1) * sizeof **S)) ||
			    !(B[i] = malloc((th->nsmp + 1) * sizeof **B)))
				goto fail;
			stolen_per_sample(t, th, fallback[i], &(perturb__delivery){D, Db, cap, &sp}, S[i],
			                  B[i], &sum);
			if ((rc = note_waits(th, B[i])) < 0)
				goto fail;
			rc = -ENOMEM;
			for (size_t k = 0; k < th->nsmp; k++)
				hsum += handler_ns(th, k, fallback[i]);
			hn += th->nsmp;
		}
		report_delivery(a, est, D, Db, &sum, &sp);
		shift_instances(c, p, S, 0);
		for (size_t i = 0; i < t->nthreads; i++)
			if (S[i]) {
				shift_thread(t, &t->threads[i], fallback[i], S[i], B[i]);
				comp += t->threads[i].nsmp;
			}
		rc = 0;
	fail:
		for (size_t i = 0; i < t->nthreads; i++) {
			free(S ? S[i] : NULL);
			free(B ? B[i] : NULL);
		}
		free(S);
		free(B);
		free(fallback);
		if (rc)
			return rc;
	}
	a->samples_compensated = comp;
	a->sample_handler_ns = hn ? hsum / (double)hn : 0;
	return 0;
}
