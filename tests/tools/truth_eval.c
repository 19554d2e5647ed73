/* truth_eval.c: draw, fold and judge random scenarios (see truth_eval.h).
 *
 * The draw: half of the scenarios are easy (one population of stepped
 * phases, no position jitter, no waits, no competitors, instances of at
 * least 100 us and one sampling period); the others draw each difficulty
 * on its own. Judging follows docs/validation.md: a truth phase whose
 * expected samples over the folded population's instances are fewer than
 * TRUTH_RESOLVE_SAMPLES cannot be placed; an answer that misses only such
 * phases is judged against the truth without them and counted apart.
 */
#include "truth_eval.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "analyze.h"
#include "trace_format.h"

#define TRUTH_RESOLVE_SAMPLES 3.0 /* fewer expected samples in a phase: not resolvable */
#define TRUTH_BOUNDARY_TOL 0.02   /* share of the instance */
#define TRUTH_RATE_TOL 0.05       /* share of the truth */
#define TRUTH_CPU_TOL 0.05        /* CPUs */
#define TRUTH_RATE_FLOOR 0.01     /* a rate's error is judged against at least this share of the largest */
#define TRUTH_MIXED_SHARE 0.05    /* folded instances from the other population beyond this: mixed */
#define TRUTH_EDGE 0.05           /* smooth curves are judged on [EDGE, 1 - EDGE] */

static const char *const family_names[TRUTH_NFAMILIES] = {"clean", "populations", "order", "smooth", "jitter",
                                                          "waits", "short",       "load",  "coarse"};

const char *truth_family_name(unsigned bit_index)
{
	return bit_index < TRUTH_NFAMILIES ? family_names[bit_index] : "?";
}

typedef struct trng {
	uint64_t s;
} trng;

static uint64_t tnext(trng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double tu(trng *r)
{
	return ((double)(tnext(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double tuni(trng *r, double lo, double hi)
{
	return lo + (hi - lo) * tu(r);
}

static double tlogu(trng *r, double lo, double hi)
{
	return lo * exp(log(hi / lo) * tu(r));
}

/* K shares of at least 2% each (the rest split as a flat Dirichlet). */
static void draw_shares(trng *r, unsigned K, double *bounds)
{
	double w[SYNTH_MAX_PHASES], sum = 0;
	for (unsigned p = 0; p < K; p++)
		sum += w[p] = -log(tu(r));
	double rest = 1 - 0.02 * K;
	bounds[0] = 0;
	for (unsigned p = 0; p < K; p++)
		bounds[p + 1] = bounds[p] + 0.02 + rest * w[p] / sum;
	bounds[K] = 1;
}

/* Rates of adjacent phases differ by at least 1.3x; CPU mostly 1. With
 * waits: up to two non-adjacent phases wait (CPU 0.01-0.05, the counter
 * at most 0.3% of the largest rate). */
static unsigned draw_rates(trng *r, synth_config *c, int waits)
{
	unsigned K = c->nphases;
	double maxr = 0;
	for (unsigned p = 0; p < K; p++) {
		double v;
		int tries = 0;
		do
			v = tlogu(r, 1e7, 3e9);
		while (p > 0 &&
		       fmax(v, c->counters[0].rate[p - 1]) / fmin(v, c->counters[0].rate[p - 1]) < 1.3 &&
		       ++tries < 100);
		c->counters[0].rate[p] = v;
		c->cpu[p] = tu(r) < 0.7 ? 1.0 : tuni(r, 0.3, 1.0);
		maxr = fmax(maxr, v);
	}
	if (!waits || K < 2)
		return 0;
	unsigned want = 1 + (K >= 4 && tu(r) < 0.3), n = 0;
	int is_wait[SYNTH_MAX_PHASES] = {0};
	for (int tries = 0; tries < 20 && n < want; tries++) {
		unsigned p = (unsigned)(tu(r) * K);
		if (is_wait[p] || (p > 0 && is_wait[p - 1]) || (p + 1 < K && is_wait[p + 1]))
			continue;
		is_wait[p] = 1;
		c->counters[0].rate[p] = maxr * tuni(r, 0, 0.003);
		c->cpu[p] = tuni(r, 0.01, 0.05);
		n++;
	}
	return n;
}

/* The difficulties of a hard scenario. */
typedef struct hard {
	int pop, smooth, wait, jitter, load;
} hard;

static void draw_population(trng *r, truth_scenario *s, int pop, double d)
{
	synth_config *c = &s->cfg;
	double m = tuni(r, 0.2, 0.5), scale = tlogu(r, 1.5, 4);
	if (tu(r) < 0.5)
		scale = 1 / scale;
	c->ngroups = 2;
	c->groups[0] = (synth_group){d, 1 - m, 1};
	c->groups[1] = (synth_group){d, m, pop == 1 ? scale : 1};
	c->group_reversed[1] = pop == 2;
	s->regular = tu(r) < 0.5;
	c->groups_regular = s->regular;
}

static void draw_shape(trng *r, truth_scenario *s)
{
	synth_config *c = &s->cfg;
	if (tu(r) < 0.6) {
		c->shape = SYNTH_SHAPE_SINE;
		c->shape_amp = tuni(r, 0.1, 0.5);
		c->shape_freq = tuni(r, 0.5, 2);
		c->shape_phi = tuni(r, 0, 2 * M_PI);
		snprintf(s->shape_desc, sizeof s->shape_desc, "sine:a=%.2f:f=%.2f:phi=%.2f", c->shape_amp,
		         c->shape_freq, c->shape_phi);
	} else {
		c->shape = SYNTH_SHAPE_RAMP;
		c->shape_amp = tuni(r, 0.2, 0.8) * (tu(r) < 0.5 ? -1 : 1);
		snprintf(s->shape_desc, sizeof s->shape_desc, "ramp:a=%.2f", c->shape_amp);
	}
}

/* Position jitter up to 10% of the instance, at most 0.4 of the shorter
 * phase beside each boundary (so that the phases keep their order). */
static void draw_jitter(trng *r, synth_config *c)
{
	double cap = 0.10;
	for (unsigned p = 1; p < c->nphases; p++)
		cap = fmin(cap, 0.4 * fmin(c->bounds[p] - c->bounds[p - 1], c->bounds[p + 1] - c->bounds[p]));
	c->bound_jitter = cap * tu(r);
}

/* What the run is like besides the region's structure: threads, nested
 * calls, the sample's cost, a CPU clock counter, noise, competitors. */
static void draw_run(trng *r, synth_config *c, double d, int load)
{
	c->threads = tu(r) < 0.3 ? 2 : 1;
	if (d >= 5e4 && tu(r) < 0.3)
		c->inner_call_ns = d / tuni(r, 3, 30);
	if (tu(r) < 0.5) {
		c->sample_cost_ns = tuni(r, 5e3, 30e3);
		c->sample_handler_ns = c->sample_cost_ns * tuni(r, 0.2, 0.5);
		c->sample_lag_ns = fmin(2e3, 0.3 * c->sample_handler_ns);
		c->sample_after_ns = c->sample_cost_ns * tuni(r, 0, 0.2);
		c->sample_delivery_recorded = tu(r) < 0.85; /* the runtime records it (format 1.2) */
	}
	c->cpu_clock_counter = tu(r) < 0.7;
	c->noise = tuni(r, 0, 0.02);
	c->sample_jitter = tuni(r, 0.05, 0.5);
	c->gap_ns = d * tuni(r, 0.02, 0.3);
	c->counters[0].gap_rate = tlogu(r, 1e7, 1e9);
	if (load) {
		c->preempt = tuni(r, 0.05, 0.5);
		c->preempt_mean_ns = d * tlogu(r, 0.05, 2);
		c->preempt_on_cpu = 0;
		c->sample_deferred = 1;
	}
}

static unsigned families_of(const truth_scenario *s, const hard *h)
{
	const synth_config *c = &s->cfg;
	unsigned f = 0;
	if (s->pop == 1)
		f |= TRUTH_POP;
	if (s->pop == 2)
		f |= TRUTH_ORDER;
	if (h->smooth)
		f |= TRUTH_SMOOTH;
	if (c->bound_jitter > 0)
		f |= TRUTH_JITTER;
	if (s->waits)
		f |= TRUTH_WAIT;
	if (c->groups[0].duration_ns < 1e5)
		f |= TRUTH_SHORT;
	if (c->preempt > 0)
		f |= TRUTH_LOAD;
	if (s->spi < 1)
		f |= TRUTH_COARSE;
	return f ? f : TRUTH_CLEAN;
}

void truth_draw(uint64_t seed, unsigned index, truth_scenario *s)
{
	memset(s, 0, sizeof *s);
	trng r = {seed * 0x2545f4914f6cdd1dull + (uint64_t)index * 0x9e3779b97f4a7c15ull + 1};
	tnext(&r);
	s->seed = seed;
	s->index = index;
	synth_config *c = &s->cfg;
	synth_config_init(c);
	c->seed = tnext(&r);
	c->region_name = "iteration";
	int easy = tu(&r) < 0.5;
	double period = tlogu(&r, 1e5, 1e7);
	double d = easy ? tlogu(&r, fmax(1e5, period), 1e9) : tlogu(&r, 1e4, 1e9);
	hard h = {0};
	if (!easy) {
		double u = tu(&r);
		h.pop = u < 0.15 ? 1 : u < 0.27 ? 2 : 0;
		h.smooth = !h.pop && tu(&r) < 0.25;
		h.wait = !h.smooth && tu(&r) < 0.3;
		h.jitter = !h.smooth && tu(&r) < 0.35;
		h.load = tu(&r) < 0.3;
	}
	unsigned K = 1 + (unsigned)(tu(&r) * 5);
	if (h.smooth)
		K = 1;
	else if ((h.pop == 2 || h.wait || h.jitter) && K < 2)
		K = 2 + (unsigned)(tu(&r) * 4);
	c->nphases = K;
	draw_shares(&r, K, c->bounds);
	c->ncounters = 1;
	c->counters[0] = (synth_counter){"app::work", TRACE_COUNTER_APP, {0}, 0};
	s->waits = draw_rates(&r, c, h.wait);
	c->ngroups = 1;
	c->groups[0] = (synth_group){d, 1, 1};
	s->pop = h.pop;
	if (h.pop)
		draw_population(&r, s, h.pop, d);
	if (h.smooth)
		draw_shape(&r, s);
	if (h.jitter)
		draw_jitter(&r, c);
	c->duration_jitter = easy ? tuni(&r, 0.005, 0.03) : tuni(&r, 0.005, 0.1);
	draw_run(&r, c, d, h.load);
	c->period_ns = period;
	s->spi = d / period;
	/* 2,000-30,000 samples in instances from 10-20,000 instances (fewer
	 * samples where 20,000 instances hold fewer; at most 30,000 samples
	 * unless 8 instances hold more) */
	double n = tlogu(&r, 2000, 30000) / s->spi;
	n = fmin(fmax(n, 10), 20000);
	n = fmin(n, fmax(8, 30000 / s->spi));
	c->instances = (unsigned)ceil(n / c->threads);
	s->families = families_of(s, &h);
}

void truth_describe(const truth_scenario *s, char *buf, size_t len)
{
	const synth_config *c = &s->cfg;
	size_t o = 0;
#define PUT(...)                                                                                             \
	do {                                                                                                 \
		if (o < len)                                                                                 \
			o += (size_t)snprintf(buf + o, len - o, __VA_ARGS__);                                \
	} while (0)
	PUT("K=%u shares=", c->nphases);
	for (unsigned p = 0; p < c->nphases; p++)
		PUT("%s%.3f", p ? "/" : "", c->bounds[p + 1] - c->bounds[p]);
	PUT(" app=");
	for (unsigned p = 0; p < c->nphases; p++)
		PUT("%s%.3g", p ? "/" : "", c->counters[0].rate[p]);
	PUT(" cpu=");
	for (unsigned p = 0; p < c->nphases; p++)
		PUT("%s%.2f", p ? "/" : "", c->cpu[p]);
	PUT(" dur=%.4gus period=%.4gus spi=%.3g inst=%ux%u djit=%.3f", c->groups[0].duration_ns / 1e3,
	    c->period_ns / 1e3, s->spi, c->instances, c->threads, c->duration_jitter);
	if (s->pop)
		PUT(" pop=%s:minority=%.2f:scale=%.3g:%s", s->pop == 1 ? "rate" : "order",
		    c->groups[1].weight, c->groups[1].rate_scale, s->regular ? "regular" : "random");
	if (c->shape)
		PUT(" shape=%s", s->shape_desc);
	if (c->bound_jitter > 0)
		PUT(" bjit=%.3f", c->bound_jitter);
	if (c->preempt > 0)
		PUT(" preempt=%.2f:mean=%.3gus", c->preempt, c->preempt_mean_ns / 1e3);
	if (c->inner_call_ns > 0)
		PUT(" inner=%.3gus", c->inner_call_ns / 1e3);
	if (c->sample_cost_ns > 0)
		PUT(" cost=%.3gus:handler=%.3gus:delivery-recorded=%d", c->sample_cost_ns / 1e3,
		    c->sample_handler_ns / 1e3, c->sample_delivery_recorded);
	PUT(" taskclock=%d noise=%.3f", c->cpu_clock_counter, c->noise);
#undef PUT
}

/* ---- the truth --------------------------------------------------------- */

static double shape_mean(const synth_config *c)
{
	double sum = 0;
	for (int i = 0; i < 1000; i++)
		sum += synth_shape_at(c, (i + 0.5) / 1000);
	return sum / 1000;
}

static int same_rates(double r0, double r1, double c0, double c1, double floor)
{
	return fabs(r0 - r1) <= 0.01 * fmax(fmax(r0, r1), floor) && fabs(c0 - c1) <= 0.01;
}

void truth_phases_of(const truth_scenario *s, unsigned g, double samples, truth_phases *t)
{
	const synth_config *c = &s->cfg;
	memset(t, 0, sizeof *t);
	double wsum = 0;
	for (unsigned k = 0; k < c->ngroups; k++)
		wsum += c->groups[k].weight;
	double scale = c->groups[g].rate_scale > 0 ? c->groups[g].rate_scale : 1;
	double pop_samples = samples * c->groups[g].weight / wsum;
	double floor = 0;
	for (unsigned p = 0; p < c->nphases; p++)
		floor = fmax(floor, TRUTH_RATE_FLOOR * c->counters[0].rate[p] * scale);
	double mean = c->shape ? shape_mean(c) : 1;
	t->bounds[0] = 0;
	for (unsigned q = 0; q < c->nphases; q++) {
		unsigned p = c->group_reversed[g] ? c->nphases - 1 - q : q;
		double share = c->bounds[p + 1] - c->bounds[p];
		double rate = c->counters[0].rate[p] * scale * mean;
		if (t->n > 0 && same_rates(t->rate[t->n - 1], rate, t->cpu[t->n - 1], c->cpu[p], floor)) {
			double s0 = t->bounds[t->n] - t->bounds[t->n - 1];
			t->rate[t->n - 1] = (t->rate[t->n - 1] * s0 + rate * share) / (s0 + share);
			t->cpu[t->n - 1] = (t->cpu[t->n - 1] * s0 + c->cpu[p] * share) / (s0 + share);
			t->bounds[t->n] += share;
			continue;
		}
		t->rate[t->n] = rate;
		t->cpu[t->n] = c->cpu[p];
		t->bounds[t->n + 1] = t->bounds[t->n] + share;
		t->n++;
	}
	t->bounds[t->n] = 1;
	for (unsigned q = 0; q < t->n; q++) {
		t->samples[q] = pop_samples * (t->bounds[q + 1] - t->bounds[q]);
		t->resolvable[q] = t->samples[q] >= TRUTH_RESOLVE_SAMPLES;
	}
}

/* Removes phase q: a first or last phase goes to its neighbour, an inner
 * one to both, split at its middle. */
static void merge_away(truth_phases *t, unsigned q)
{
	double sq = t->bounds[q + 1] - t->bounds[q];
	double mid = 0.5 * (t->bounds[q] + t->bounds[q + 1]);
	for (int side = -1; side <= 1; side += 2) {
		if ((side < 0 && q == 0) || (side > 0 && q + 1 == t->n))
			continue;
		unsigned n = q + side;
		double part = (q == 0 || q + 1 == t->n) ? sq : 0.5 * sq;
		double sn = t->bounds[n + 1] - t->bounds[n];
		t->rate[n] = (t->rate[n] * sn + t->rate[q] * part) / (sn + part);
		t->cpu[n] = (t->cpu[n] * sn + t->cpu[q] * part) / (sn + part);
		t->samples[n] += t->samples[q] * part / sq;
	}
	double nb[SYNTH_MAX_PHASES + 1];
	unsigned m = 0;
	for (unsigned k = 0; k <= t->n; k++) {
		if (k == q && q > 0 && q + 1 < t->n)
			nb[m++] = mid;
		else if (k != q && k != q + 1)
			nb[m++] = t->bounds[k];
		else if (k == q + 1 && q + 1 == t->n)
			nb[m++] = 1;
		else if (k == q && q == 0)
			nb[m++] = 0;
	}
	for (unsigned k = q; k + 1 < t->n; k++) {
		t->rate[k] = t->rate[k + 1];
		t->cpu[k] = t->cpu[k + 1];
		t->samples[k] = t->samples[k + 1];
		t->resolvable[k] = t->resolvable[k + 1];
	}
	t->n--;
	memcpy(t->bounds, nb, sizeof(double) * (t->n + 1));
}

/* The truth without its unresolvable phases (the fewest samples first). */
static void merge_unresolvable(truth_phases *t)
{
	while (t->n > 1) {
		unsigned worst = t->n;
		for (unsigned q = 0; q < t->n; q++)
			if (!t->resolvable[q] && (worst == t->n || t->samples[q] < t->samples[worst]))
				worst = q;
		if (worst == t->n)
			return;
		merge_away(t, worst);
	}
}

/* ---- fold's answer ----------------------------------------------------- */

/* A phase's rate of series name (times mul), with its interval. */
static double phase_value(const fold_phase_result *ph, const char *name, double mul, double *lo, double *hi)
{
	*lo = *hi = NAN;
	for (size_t k = 0; k < ph->nrates; k++)
		if (ph->rate_names[k] && !strcmp(ph->rate_names[k], name)) {
			if (k < ph->nrate_ci && ph->rate_lo && ph->rate_hi) {
				*lo = ph->rate_lo[k] * mul;
				*hi = ph->rate_hi[k] * mul;
			}
			return ph->rates[k] * mul;
		}
	return NAN;
}

static void cover(double truth, double lo, double hi, unsigned *n, unsigned *in, unsigned *none)
{
	(*n)++;
	if (isnan(lo) || isnan(hi))
		(*none)++;
	else if (lo <= truth && truth <= hi)
		(*in)++;
}

static void judge_cpu(const fold_phase_result *ph, double truth, truth_verdict *v)
{
	static const char *const names[2] = {"cpu_time", "perf::TASK-CLOCK"};
	static const double mul[2] = {1, 1e-9};
	for (int k = 0; k < 2; k++) {
		double lo, hi, x = phase_value(ph, names[k], mul[k], &lo, &hi);
		if (isnan(x))
			continue;
		double e = fabs(x - truth);
		v->worst_cpu = isnan(v->worst_cpu) ? e : fmax(v->worst_cpu, e);
		if (e > TRUTH_CPU_TOL)
			v->why |= TRUTH_WRONG_CPU;
		cover(truth, lo, hi, &v->cpu_n, &v->cpu_in, &v->cpu_none);
	}
}

static void judge_rate(const fold_phase_result *ph, double truth, double floor, truth_verdict *v)
{
	double lo, hi, x = phase_value(ph, "app::work", 1, &lo, &hi);
	if (isnan(x)) {
		v->rates_withheld++;
	} else {
		double e = fabs(x - truth) / fmax(truth, floor);
		v->worst_rate = isnan(v->worst_rate) ? e : fmax(v->worst_rate, e);
		if (e > TRUTH_RATE_TOL)
			v->why |= TRUTH_WRONG_RATE;
	}
	cover(truth, lo, hi, &v->rate_n, &v->rate_in, &v->rate_none);
}

static double max_rate(const truth_phases *t)
{
	double m = 0;
	for (unsigned q = 0; q < t->n; q++)
		m = fmax(m, t->rate[q]);
	return m;
}

static void judge_steps(const fold_region_result *r, const truth_phases *truth, truth_verdict *v)
{
	truth_phases t = *truth;
	unsigned nres = 0;
	for (unsigned q = 0; q < t.n; q++)
		nres += t.resolvable[q] != 0;
	if (r->nphases != t.n) {
		if (nres < t.n && nres >= 1 && r->nphases == nres) {
			merge_unresolvable(&t);
			v->missed_unresolvable = 1;
		} else {
			v->why |= TRUTH_WRONG_COUNT;
			return;
		}
	}
	double floor = TRUTH_RATE_FLOOR * max_rate(&t);
	v->worst_boundary = 0;
	for (unsigned q = 0; q < t.n; q++) {
		const fold_phase_result *ph = &r->phases[q];
		if (q > 0) {
			double e = fabs(ph->start - t.bounds[q]);
			v->worst_boundary = fmax(v->worst_boundary, e);
			if (e > TRUTH_BOUNDARY_TOL)
				v->why |= TRUTH_WRONG_BOUNDARY;
			cover(t.bounds[q], ph->start_lo, ph->start_hi, &v->bnd_n, &v->bnd_in, &v->bnd_none);
		}
		judge_rate(ph, t.rate[q], floor, v);
		judge_cpu(ph, t.cpu[q], v);
	}
}

static const fold_series *series_named(const fold_region_result *r, const char *name)
{
	for (size_t k = 0; k < r->nseries; k++)
		if (r->series[k].name && !strcmp(r->series[k].name, name))
			return &r->series[k];
	return NULL;
}

/* A smooth truth: one phase (gradual or not) whose curve, or whose
 * gradual line, lies within 5% of the truth on [EDGE, 1 - EDGE]. */
static void judge_smooth(const truth_scenario *s, const fold_region_result *r, const truth_phases *t,
                         unsigned g, truth_verdict *v)
{
	const synth_config *c = &s->cfg;
	double r0 = c->counters[0].rate[0] * (c->groups[g].rate_scale > 0 ? c->groups[g].rate_scale : 1);
	const fold_series *se = series_named(r, "app::work");
	double curve = NAN, line = NAN;
	if (se)
		for (size_t i = 0; i < se->fit.n; i++) {
			double x = se->fit.x[i];
			if (x < TRUTH_EDGE || x > 1 - TRUTH_EDGE)
				continue;
			double truth = r0 * synth_shape_at(c, x);
			double e = fabs(se->fit.value[i] - truth) / truth;
			curve = isnan(curve) ? e : fmax(curve, e);
			if (se->fit.lo && se->fit.hi) {
				v->band_n++;
				v->band_in += se->fit.lo[i] <= truth && truth <= se->fit.hi[i];
			}
		}
	v->curve_err = curve;
	if (r->nphases != 1) {
		v->why |= TRUTH_WRONG_COUNT;
		return;
	}
	const fold_phase_result *ph = &r->phases[0];
	for (size_t k = 0; ph->gradual && k < ph->nrange && k < ph->nrates; k++) {
		if (strcmp(ph->rate_names[k], "app::work"))
			continue;
		line = 0;
		for (int i = 1; i < 100; i++) {
			double x = i / 100.0;
			if (x < TRUTH_EDGE || x > 1 - TRUTH_EDGE)
				continue;
			double truth = r0 * synth_shape_at(c, x);
			double f = ph->rate_from[k] + (ph->rate_to[k] - ph->rate_from[k]) * x;
			line = fmax(line, fabs(f - truth) / truth);
		}
	}
	int curve_ok = !isnan(curve) && curve <= TRUTH_RATE_TOL;
	int line_ok = !isnan(line) && line <= TRUTH_RATE_TOL;
	if (!curve_ok && !line_ok)
		v->why |= TRUTH_WRONG_CURVE;
	v->worst_boundary = 0;
	judge_rate(ph, t->rate[0], 0, v);
	judge_cpu(ph, t->cpu[0], v);
}

typedef struct inst_ref {
	unsigned thread;
	double start;
	size_t k;
} inst_ref;

static int by_thread_start(const void *a, const void *b)
{
	const inst_ref *x = a, *y = b;
	if (x->thread != y->thread)
		return x->thread < y->thread ? -1 : 1;
	return x->start < y->start ? -1 : x->start > y->start;
}

/* Which population each of fold's instances is (pop_of[k]); 0 when fold's
 * instances do not pair with the written ones one to one. */
static int match_instances(const fold_region_result *r, const synth_instance *ins, size_t n, unsigned *pop_of)
{
	if (r->ninst != n || n == 0)
		return 0;
	inst_ref *ref = malloc(n * sizeof *ref);
	if (!ref)
		return 0;
	for (size_t k = 0; k < n; k++)
		ref[k] = (inst_ref){r->inst[k].thread, r->inst[k].start_ns, k};
	qsort(ref, n, sizeof *ref, by_thread_start);
	int ok = 1;
	for (size_t j = 0; j < n && ok; j++) {
		ok = ref[j].thread == ins[j].thread;
		pop_of[ref[j].k] = ins[j].group;
	}
	free(ref);
	return ok;
}

/* Which population fold folded, whether it mixed them, whether its groups
 * split them. */
static void judge_populations(const truth_scenario *s, const fold_region_result *r, const synth_instance *ins,
                              size_t n, truth_verdict *v)
{
	unsigned *pop_of = calloc(n ? n : 1, sizeof *pop_of);
	v->other_share = NAN;
	if (!pop_of || !(v->matched = match_instances(r, ins, n, pop_of))) {
		free(pop_of);
		return;
	}
	unsigned long used[2] = {0, 0}, total = 0;
	for (size_t k = 0; k < n; k++)
		if (r->inst[k].used && pop_of[k] < 2) {
			used[pop_of[k]]++;
			total++;
		}
	v->used_share = (double)total / (double)n;
	v->folded_pop = used[1] > used[0];
	v->other_share = total ? (double)used[!v->folded_pop] / (double)total : NAN;
	v->mixed = s->pop && total && v->other_share >= TRUTH_MIXED_SHARE;
	/* a split: one of fold's groups >= 90% of one population, another of the other */
	int pure[2] = {0, 0};
	for (size_t g = 0; g < r->ngroups; g++) {
		unsigned long c[2] = {0, 0};
		for (size_t k = 0; k < n; k++)
			if (r->inst[k].group == r->groups[g].id && pop_of[k] < 2)
				c[pop_of[k]]++;
		for (int p = 0; p < 2; p++)
			if (c[p] + c[!p] > 0 && c[p] >= 0.9 * (double)(c[p] + c[!p]))
				pure[p] = 1;
	}
	v->split = s->pop && pure[0] && pure[1];
	free(pop_of);
}

static void text_answer(const fold_region_result *r, truth_verdict *v)
{
	size_t o = 0;
	for (size_t p = 0; p < r->nphases && o < sizeof v->answer; p++) {
		const fold_phase_result *ph = &r->phases[p];
		double lo, hi, a = phase_value(ph, "app::work", 1, &lo, &hi);
		double cpu = phase_value(ph, "cpu_time", 1, &lo, &hi);
		double tc = phase_value(ph, "perf::TASK-CLOCK", 1e-9, &lo, &hi);
		o += (size_t)snprintf(v->answer + o, sizeof v->answer - o, "%s%.4f:%.4g:%.3g:%.3g%s",
		                      p ? " " : "", ph->start, a, cpu, tc, ph->gradual ? ":gradual" : "");
	}
}

static void text_truth(const truth_phases *t, truth_verdict *v)
{
	size_t o = 0;
	for (unsigned q = 0; q < t->n && o < sizeof v->truth; q++)
		o += (size_t)snprintf(v->truth + o, sizeof v->truth - o, "%s%.4f:%.4g:%.3g%s", q ? " " : "",
		                      t->bounds[q], t->rate[q], t->cpu[q],
		                      t->resolvable[q] ? "" : ":unresolvable");
}

static void text_flags(truth_verdict *v)
{
	static const char *const verdicts[] = {"unchecked", "consistent", "not-informative", "suspect"};
	static const char *const whys[TRUTH_NWHY] = {"count", "boundary", "rate", "cpu", "curve", "mixture"};
	size_t o = (size_t)snprintf(v->reasons_text, sizeof v->reasons_text, "%s",
	                            v->verdict < 4 ? verdicts[v->verdict] : "?");
	for (unsigned b = 0; b < 32 && o < sizeof v->reasons_text; b++)
		if (v->reasons & (1u << b))
			o += b == 0 ? (size_t)snprintf(v->reasons_text + o, sizeof v->reasons_text - o,
			                               "+halves")
			            : (size_t)snprintf(v->reasons_text + o, sizeof v->reasons_text - o,
			                               "+bit%u", b);
	o = 0;
	v->why_text[0] = 0;
	for (unsigned b = 0; b < TRUTH_NWHY && o < sizeof v->why_text; b++)
		if (v->why & (1u << b))
			o += (size_t)snprintf(v->why_text + o, sizeof v->why_text - o, "%s%s", o ? "+" : "",
			                      whys[b]);
	if (v->missed_unresolvable && o < sizeof v->why_text)
		snprintf(v->why_text + o, sizeof v->why_text - o, "%sunresolvable-missed", o ? "+" : "");
}

static void judge(const truth_scenario *s, const synth_truth *st, const synth_instance *ins, size_t n,
                  const fold_region_result *r, truth_verdict *v)
{
	v->verdict = r->fidelity.verdict;
	v->reasons = r->fidelity.reasons;
	v->flagged = r->fidelity.verdict != FOLD_FIDELITY_CONSISTENT;
	v->folded = r->folded && r->nphases >= 1;
	v->nphases = r->folded ? r->nphases : 0;
	judge_populations(s, r, ins, n, v);
	v->silent_mixture = v->folded && v->mixed && !v->flagged && !v->split;
	truth_phases t;
	truth_phases_of(s, (unsigned)v->folded_pop, (double)st->samples_in_instances, &t);
	v->truth_n = t.n;
	text_truth(&t, v);
	if (v->folded) {
		text_answer(r, v);
		if (s->cfg.shape)
			judge_smooth(s, r, &t, (unsigned)v->folded_pop, v);
		else
			judge_steps(r, &t, v);
		if (v->mixed)
			v->why |= TRUTH_WRONG_MIXTURE;
		v->wrong = v->why != 0;
	}
	text_flags(v);
}

static double seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

int truth_run(const truth_scenario *s, const char *path, truth_verdict *v, char *err, size_t errlen)
{
	memset(v, 0, sizeof *v);
	v->worst_boundary = v->worst_rate = v->worst_cpu = v->curve_err = v->other_share = NAN;
	size_t n = (size_t)s->cfg.instances * (s->cfg.threads ? s->cfg.threads : 1);
	synth_instance *ins = calloc(n, sizeof *ins);
	if (!ins)
		return -ENOMEM;
	synth_truth st;
	double t0 = seconds();
	int rc = synth_write_instances(&s->cfg, path, &st, ins, n);
	v->write_s = seconds() - t0;
	if (rc) {
		snprintf(err, errlen, "writing %s: %s", path, strerror(-rc));
		free(ins);
		return rc;
	}
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a = NULL;
	const char *paths[1] = {path};
	t0 = seconds();
	rc = fold_analyze(paths, 1, &o, &a, err, errlen);
	v->fold_s = seconds() - t0;
	if (rc) {
		free(ins);
		return rc;
	}
	const fold_region_result *r = NULL;
	for (size_t k = 0; k < a->nregions && !r; k++)
		if (a->regions[k].name && !strcmp(a->regions[k].name, "iteration"))
			r = &a->regions[k];
	if (!r) {
		snprintf(err, errlen, "%s: no region \"iteration\" in fold's result", path);
		rc = -ENOENT;
	} else {
		judge(s, &st, ins, n, r, v);
	}
	fold_analysis_free(a);
	free(ins);
	return rc;
}
