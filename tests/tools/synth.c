/* synth.c: synthetic trace generator (see synth.h).
 *
 * Per thread: a sequence of instances separated by gaps, and an independent
 * jittered sampling clock. Records (enter, samples, exit) are produced in
 * time order; between consecutive records every counter advances by the
 * integral of its piecewise-constant rate, times (1 + noise * N(0,1))
 * clipped at 0, so every recorded value lies on one monotone path.
 * Everything is generated in the program's own time; with a sample cost,
 * written timestamps add the time stolen by the samples so far. An
 * instance's phases occupy slots in time order: slot q holds phase q, or
 * phase nphases-1-q in an instance of a reversed group.
 */
#include "synth.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_format.h"
#include "trace_writer.h"

void synth_config_init(synth_config *c)
{
	memset(c, 0, sizeof *c);
	c->seed = 42;
	c->threads = 1;
	c->instances = 200;
	c->nphases = 2;
	c->bounds[0] = 0;
	c->bounds[1] = 0.37;
	c->bounds[2] = 1;
	c->cpu[0] = 1.0;
	c->cpu[1] = 0.5;
	c->ncounters = 1;
	c->counters[0] = (synth_counter){"app::work", TRACE_COUNTER_APP, {1e9, 3e8}, 0};
	c->ngroups = 1;
	c->groups[0] = (synth_group){1e6, 1, 1};
	c->duration_jitter = 0.02;
	c->gap_ns = 1e5;
	c->period_ns = 5e4;
	c->sample_jitter = 0.5;
	c->noise = 0;
	c->outliers = 0;
	c->outlier_factor = 3;
	c->jitter_phase = 1;
	c->preempt_mean_ns = 1e6;
	c->boundary_counters = 1;
	c->stacks = 1;
	c->region_name = "iteration";
}

uint64_t synth_phase_address(unsigned p)
{
	return 0x401100 + 0x100 * (uint64_t)p;
}

typedef struct rng {
	uint64_t s;
} rng;

static uint64_t next_u64(rng *r)
{
	uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double uniform(rng *r)
{
	return ((double)(next_u64(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double gauss(rng *r)
{
	double u = uniform(r), v = uniform(r);
	return sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

typedef struct inst {
	double start, dur;              /* absolute start, duration including the pause */
	double act;                     /* active (counting) duration */
	double pause_at, pause_len;     /* absolute start and length of the preemption (0: none) */
	double b[SYNTH_MAX_PHASES + 1]; /* slot bounds as shares of the active duration */
	unsigned group;
	double rate_mul; /* group scale / outlier factor */
	int no_boundary; /* its enter/exit carry no counter values */
	int rev;         /* its phases run in the opposite order */
	int outlier;
} inst;

/* The phase that runs in slot q of instance in. */
static unsigned slot_phase(const synth_config *c, const inst *in, unsigned q)
{
	return in->rev ? c->nphases - 1 - q : q;
}

double synth_shape_at(const synth_config *c, double x)
{
	if (c->shape == SYNTH_SHAPE_SINE)
		return 1 + c->shape_amp * sin(2 * M_PI * c->shape_freq * x + c->shape_phi);
	if (c->shape == SYNTH_SHAPE_RAMP)
		return 1 + c->shape_amp * (2 * x - 1);
	return 1;
}

/* The integral of synth_shape_at over [x0, x1]. */
static double shape_integral(const synth_config *c, double x0, double x1)
{
	double w = 2 * M_PI * c->shape_freq;
	if (c->shape == SYNTH_SHAPE_SINE && w > 0)
		return x1 - x0 - c->shape_amp / w * (cos(w * x1 + c->shape_phi) - cos(w * x0 + c->shape_phi));
	if (c->shape == SYNTH_SHAPE_RAMP)
		return x1 - x0 + c->shape_amp * ((x1 * x1 - x0 * x0) - (x1 - x0));
	return x1 - x0;
}

/* Active (counting) time of instance in between its start and t. */
static double active_time(const inst *in, double t)
{
	double a = t - in->start;
	a = a < 0 ? 0 : a > in->dur ? in->dur : a;
	if (in->pause_len > 0 && t > in->pause_at) {
		double e = t < in->pause_at + in->pause_len ? t : in->pause_at + in->pause_len;
		a -= e - in->pause_at;
	}
	return a < 0 ? 0 : a > in->act ? in->act : a;
}

/* Integral over [a, b] (inside instance in, or a gap when in is NULL) of
 * counter k's rate (k = ncounters: CPU utilisation). */
static double integral(const synth_config *c, const inst *in, unsigned k, double a, double b)
{
	if (b <= a)
		return 0;
	if (!in)
		return (k < c->ncounters ? c->counters[k].gap_rate : 1.0) * (b - a) * 1e-9 *
		       (k < c->ncounters ? 1 : 1e9);
	double aa = active_time(in, a), ab = active_time(in, b);
	double sum = 0;
	for (unsigned q = 0; q < c->nphases; q++) {
		double pa = in->b[q] * in->act, pb = in->b[q + 1] * in->act;
		double lo = aa > pa ? aa : pa, hi = ab < pb ? ab : pb;
		if (hi <= lo)
			continue;
		unsigned p = slot_phase(c, in, q);
		if (k < c->ncounters && c->shape != SYNTH_SHAPE_NONE)
			sum += c->counters[k].rate[p] * in->rate_mul * in->act * 1e-9 *
			       shape_integral(c, lo / in->act, hi / in->act);
		else if (k < c->ncounters)
			sum += c->counters[k].rate[p] * in->rate_mul * (hi - lo) * 1e-9;
		else
			sum += c->cpu[p] * (hi - lo); /* CPU ns */
	}
	if (k >= c->ncounters && c->preempt_on_cpu && in->pause_len > 0) {
		double lo = a > in->pause_at ? a : in->pause_at;
		double hi = b < in->pause_at + in->pause_len ? b : in->pause_at + in->pause_len;
		if (hi > lo)
			sum += hi - lo; /* the clock ran through the stop */
	}
	return sum;
}

/* When, in (a, b], the CPU time since a reaches need ns (inside instance in,
 * or a gap when in is NULL); b + 1 when it does not. */
static double cpu_time_reached(const synth_config *c, const inst *in, double a, double b, double need)
{
	if (need <= 0)
		return a;
	if (integral(c, in, c->ncounters, a, b) < need)
		return b + 1;
	double lo = a, hi = b;
	for (int it = 0; it < 60 && hi - lo > 0.5; it++) {
		double mid = 0.5 * (lo + hi);
		if (integral(c, in, c->ncounters, a, mid) >= need)
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

static unsigned phase_at(const synth_config *c, const inst *in, double t)
{
	double x = active_time(in, t) / in->act;
	unsigned q = 0;
	while (q + 1 < c->nphases && x >= in->b[q + 1])
		q++;
	return slot_phase(c, in, q);
}

/* The group of instance i of a thread: drawn by weight, or (groups_regular)
 * the one furthest behind its share so far (count: per group so far). */
static unsigned pick_group(const synth_config *c, rng *R, unsigned i, double wsum, unsigned *count)
{
	unsigned g = 0;
	if (c->groups_regular) {
		double behind = -1e300;
		for (unsigned k = 0; k < c->ngroups; k++) {
			double b = (i + 1) * c->groups[k].weight / wsum - count[k];
			if (b > behind) {
				behind = b;
				g = k;
			}
		}
		count[g]++;
		return g;
	}
	double u = uniform(R) * wsum, acc = 0;
	for (g = 0; g + 1 < c->ngroups; g++) {
		acc += c->groups[g].weight;
		if (u < acc)
			break;
	}
	return g;
}

/* Every inner bound of in moves by a uniform +-bound_jitter, kept in order. */
static void jitter_bounds(const synth_config *c, rng *R, inst *in)
{
	if (c->bound_jitter <= 0)
		return;
	for (unsigned q = 1; q < c->nphases; q++)
		in->b[q] += c->bound_jitter * (2 * uniform(R) - 1);
	for (unsigned q = 1; q < c->nphases; q++)
		in->b[q] = fmin(fmax(in->b[q], in->b[q - 1]), 1);
}

int synth_write(const synth_config *c, const char *path, synth_truth *truth)
{
	return synth_write_instances(c, path, truth, NULL, 0);
}

int synth_write_instances(const synth_config *c, const char *path, synth_truth *truth, synth_instance *out,
                          size_t cap)
{
	trace_writer *w;
	int rc = trace_writer_open(&w, path, 0, 1, 1 << 16);
	if (rc)
		return rc;
	rng R = {c->seed * 0x2545f4914f6cdd1dull + 1};
	char buf[64];
	const double t0 = 1e9;
	synth_truth tr = {0};
	TRACE_PUT(rc, w, 0, trace_enc_info, "fold.version", "synth");
	TRACE_PUT(rc, w, 0, trace_enc_info, "host", "synthetic");
	TRACE_PUT(rc, w, 0, trace_enc_info, "pid", "4242");
	TRACE_PUT(rc, w, 0, trace_enc_info, "exe", "/synthetic/app");
	TRACE_PUT(rc, w, 0, trace_enc_info, "cmdline", "/synthetic/app --synthetic");
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.source", "monotonic");
	TRACE_PUT(rc, w, 0, trace_enc_info, "clock.tick_hz", "1000000000");
	if (c->cputime_sampling && c->sample_cost_ns > 0) {
		trace_writer_close(w);
		return -EINVAL;
	}
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.source", c->cputime_sampling ? "cputime" : "time");
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.event",
	          c->cputime_sampling ? "CLOCK_THREAD_CPUTIME_ID" : "CLOCK_MONOTONIC");
	snprintf(buf, sizeof buf, "%.0f", c->period_ns);
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.period", buf);
	snprintf(buf, sizeof buf, "%g", c->sample_jitter);
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.jitter", buf);
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)c->seed);
	TRACE_PUT(rc, w, 0, trace_enc_info, "sample.seed", buf);
	TRACE_PUT(rc, w, 0, trace_enc_info, "counters.mode", "software");
	if (c->sample_stop_probe) {
		snprintf(buf, sizeof buf, "%.0f", c->sample_stop_onset_ns);
		TRACE_PUT(rc, w, 0, trace_enc_info, "sample.stop_onset_ns", buf);
		snprintf(buf, sizeof buf, "%.0f", c->sample_after_ns);
		TRACE_PUT(rc, w, 0, trace_enc_info, "sample.return_ns", buf);
	}
	TRACE_PUT(rc, w, 0, trace_enc_clock, (uint64_t)t0, (uint64_t)t0, 1700000000000000000ull);
	for (unsigned k = 0; k < c->ncounters; k++)
		TRACE_PUT(rc, w, 0, trace_enc_counter_def, k + 1, c->counters[k].kind, c->counters[k].name);
	if (c->cpu_clock_counter)
		TRACE_PUT(rc, w, 0, trace_enc_counter_def, c->ncounters + 1, TRACE_COUNTER_SOFTWARE,
		          "perf::TASK-CLOCK");
	if (c->stack_module) {
		const trace_segment seg = {0x400000, 0x10000, 5};
		TRACE_PUT(rc, w, 0, trace_enc_module_load, 1, (uint64_t)t0, 0, NULL, 0, c->stack_module, &seg,
		          1);
	}
	TRACE_PUT(rc, w, 0, trace_enc_region_def, 1, TRACE_REGION_API, 0,
	          c->region_name ? c->region_name : "iteration");
	if (c->inner_call_ns > 0)
		TRACE_PUT(rc, w, 0, trace_enc_region_def, 2, TRACE_REGION_FUNCTION, 0x401800, "inner");
	if (rc)
		goto fail;
	double tmax = t0;
	unsigned nthreads = c->threads ? c->threads : 1;
	double wsum = 0;
	for (unsigned g = 0; g < c->ngroups; g++)
		wsum += c->groups[g].weight;
	inst *I = calloc(c->instances + 1, sizeof *I);
	if (!I) {
		rc = -ENOMEM;
		goto fail;
	}
	for (unsigned th = 0; th < nthreads; th++) {
		uint32_t stream = th + 1;
		unsigned nctr = c->rotate_sets && (th % 2) ? 1 : c->ncounters;
		uint32_t ids[SYNTH_MAX_COUNTERS + 1];
		for (unsigned k = 0; k < nctr; k++)
			ids[k] = k + 1;
		unsigned nset = nctr; /* the counter set: nctr counters, then TASK-CLOCK */
		if (c->cpu_clock_counter)
			ids[nset++] = c->ncounters + 1;
		/* instances */
		double t = t0 + 1e4 * (th + 1);
		unsigned gcount[SYNTH_MAX_GROUPS] = {0};
		for (unsigned i = 0; i < c->instances; i++) {
			unsigned g = pick_group(c, &R, i, wsum, gcount);
			double d = c->groups[g].duration_ns * (1 + c->duration_jitter * gauss(&R));
			if (d < c->groups[g].duration_ns * 0.1)
				d = c->groups[g].duration_ns * 0.1;
			double mul = c->groups[g].rate_scale > 0 ? c->groups[g].rate_scale : 1;
			inst *in = &I[i];
			memset(in, 0, sizeof *in);
			if (c->outliers > 0 && uniform(&R) < c->outliers) {
				d *= c->outlier_factor;
				mul /= c->outlier_factor;
				tr.outliers++;
				in->outlier = 1;
			}
			in->rev = c->group_reversed[g];
			/* Slot lengths; one phase may vary on its own (moves the switch). */
			double len[SYNTH_MAX_PHASES], act = 0;
			for (unsigned q = 0; q < c->nphases; q++) {
				unsigned p = slot_phase(c, in, q);
				len[q] = (c->bounds[p + 1] - c->bounds[p]) * d;
				if (c->phase_jitter > 0 && p == c->jitter_phase) {
					double f = 1 + c->phase_jitter * gauss(&R);
					len[q] *= f < 0.1 ? 0.1 : f;
				}
				act += len[q];
			}
			in->b[0] = 0;
			for (unsigned q = 0; q < c->nphases; q++)
				in->b[q + 1] = in->b[q] + len[q] / act;
			in->b[c->nphases] = 1;
			if (c->odd_shift != 0 && (i % 2) && c->nphases > 1)
				in->b[1] = fmin(fmax(in->b[1] + c->odd_shift, 0.01), in->b[2] - 0.01);
			jitter_bounds(c, &R, in);
			in->start = t;
			in->act = act;
			in->dur = act;
			if (c->preempt > 0 && uniform(&R) < c->preempt) {
				double draw = uniform(&R);
				in->pause_len =
				    c->preempt_fixed ? c->preempt_mean_ns : -c->preempt_mean_ns * log(draw);
				double at = uniform(&R); /* drawn either way: the same trace for a seed */
				in->pause_at = t + act * (c->preempt_at > 0 ? c->preempt_at : at);
				in->dur += in->pause_len;
			}
			in->group = g;
			in->rate_mul = mul;
			in->no_boundary = c->boundary_missing > 0 && uniform(&R) < c->boundary_missing;
			t += in->dur + c->gap_ns;
		}
		double tend = t;
		TRACE_PUT(rc, w, stream, trace_enc_thread_start, 1000 + th, 0, (uint64_t)t0,
		          th ? "worker" : "main");
		TRACE_PUT(rc, w, stream, trace_enc_counter_set, ids, nset);
		if (rc)
			goto fail_free;
		double val[SYNTH_MAX_COUNTERS + 1] = {0};
		uint64_t v64[SYNTH_MAX_COUNTERS + 1];
		double tprev = t0, cpu_since = 0, steal = 0, cpu_carry = 0;
		double cpu_prog = 0; /* the program's own CPU ns so far; steal is the samples' */
		const double cost = c->sample_cost_ns > 0 ? c->sample_cost_ns : 0;
		const double hand = cost > 0 ? fmin(c->sample_handler_ns, cost) : 0;
		const double after = cost > 0 ? fmin(c->sample_after_ns, cost - hand) : 0;
		const double deliver =
		    cost - hand - after; /* before the handler's entry; after: its return */
		double ts = t0 + c->period_ns * uniform(&R);
		/* cputime_sampling: the cpu_prog of the next sample (no draw otherwise,
		 * so wall-time traces stay the same for a seed) */
		double cpu_next = c->cputime_sampling ? c->period_ns * uniform(&R) : 0;
		unsigned i = 0;
		int inside = 0, in_call = 0;
		double te = -1; /* the next nested call's enter or exit (inner_call_ns) */
		/* Advance the counters (and CPU) from tprev to tn inside the current segment. */
#define ADVANCE(tn)                                                                                          \
	do {                                                                                                 \
		const inst *seg_ = inside ? &I[i] : NULL;                                                    \
		for (unsigned k_ = 0; k_ <= c->ncounters; k_++) {                                            \
			double inc_ = integral(c, seg_, k_, tprev, (tn));                                    \
			if (k_ < c->ncounters && (c->noise > 0 || c->counter_noise[k_] > 0)) {               \
				inc_ *= 1 + (c->noise + c->counter_noise[k_]) * gauss(&R);                   \
				if (inc_ < 0)                                                                \
					inc_ = 0;                                                            \
			}                                                                                    \
			if (k_ < c->ncounters)                                                               \
				val[k_] += inc_;                                                             \
			else {                                                                               \
				cpu_since += inc_;                                                           \
				cpu_prog += inc_;                                                            \
			}                                                                                    \
		}                                                                                            \
		tprev = (tn);                                                                                \
		for (unsigned k_ = 0; k_ < nctr; k_++)                                                       \
			v64[k_] = (uint64_t)llround(val[k_]);                                                \
		v64[nctr] = (uint64_t)llround(cpu_prog + steal);                                             \
	} while (0)
		while (i < c->instances) {
			double tb = inside ? I[i].start + I[i].dur : I[i].start;
			if (c->cputime_sampling)
				ts = cpu_time_reached(c, inside ? &I[i] : NULL, tprev, tb,
				                      cpu_next - cpu_prog);
			if (inside && te >= 0 && te < tb && te <= ts) {
				ADVANCE(te);
				if (in_call)
					TRACE_PUT(rc, w, stream, trace_enc_exit,
					          (uint64_t)llround(te + steal), 2, NULL);
				else
					TRACE_PUT(rc, w, stream, trace_enc_enter,
					          (uint64_t)llround(te + steal), 2, NULL);
				if (rc)
					goto fail_free;
				in_call = !in_call;
				te += 0.5 * c->inner_call_ns;
				continue;
			}
			if (ts < tb) {
				/* ts: the program's stop; its timer's deadline was
				 * sample_stop_onset_ns before it (after, negative) */
				double wait = 0;
				if (c->sample_deferred && inside && I[i].pause_len > 0 &&
				    ts >= I[i].pause_at && ts < I[i].pause_at + I[i].pause_len) {
					wait = I[i].pause_at + I[i].pause_len - ts;
					ts += wait;
				}
				ADVANCE(ts);
				uint64_t frames[3] = {0x402000, 0x401000, 0x400500};
				if (inside)
					frames[0] = synth_phase_address(phase_at(c, &I[i], ts));
				unsigned nframes = c->stacks ? 3 : 0;
				if (c->stacks && c->stack_not_unwound) {
					frames[1] = c->stack_not_unwound;
					nframes = 2;
				}
				/* CPU: the rest of the previous sample's cost, then this
				 * one's delivery and the handler up to its read */
				double lag = cost > 0 ? fmin(c->sample_lag_ns, hand) : 0;
				double rd = c->sample_read_offset_ns; /* the read after the timestamp */
				double dk = deliver, ck = cost;
				if (c->sample_delivery_share > 0 && cost > 0 &&
				    uniform(&R) < c->sample_delivery_share) {
					dk *= c->sample_delivery_factor;
					ck = dk + hand + after;
				}
				uint64_t cpu =
				    (uint64_t)llround(fmax(cpu_since + cpu_carry + dk + lag + rd, 0));
				cpu_since = 0;
				cpu_carry = ck - dk - lag - rd;
				v64[nctr] = (uint64_t)llround(fmax(cpu_prog + steal + dk + lag + rd, 0));
				TRACE_PUT(rc, w, stream, trace_enc_sample,
				          (uint64_t)llround(ts + steal + dk + lag), frames, nframes, cpu,
				          v64);
				if (!rc && cost > 0)
					TRACE_PUT(rc, w, stream, trace_enc_sample_cost,
					          (uint64_t)llround(hand), (uint64_t)llround(lag),
					          c->sample_delivery_recorded
					              ? (uint64_t)llround(
					                    fmax(0, wait + dk + c->sample_stop_onset_ns))
					              : TRACE_UNKNOWN);
				if (rc)
					goto fail_free;
				if (inside)
					tr.samples_in_instances++;
				if (c->cputime_sampling) {
					cpu_next +=
					    c->period_ns * (1 + c->sample_jitter * (2 * uniform(&R) - 1));
					continue;
				}
				/* the timer runs on wall time: the program sees less of the period */
				double next =
				    c->period_ns * (1 + c->sample_jitter * (2 * uniform(&R) - 1)) - ck;
				steal += ck;
				ts += next > 0.05 * c->period_ns ? next : 0.05 * c->period_ns;
				continue;
			}
			ADVANCE(tb);
			size_t slot = (size_t)th * c->instances + i;
			if (out && slot < cap) {
				synth_instance *o = &out[slot];
				double at = (double)llround(tb + steal);
				if (!inside)
					*o = (synth_instance){
					    stream,       I[i].group, I[i].rev, I[i].pause_len > 0,
					    I[i].outlier, at,         0};
				else
					o->duration_ns = at - o->start_ns;
			}
			if (!inside) {
				TRACE_PUT(rc, w, stream, trace_enc_enter, (uint64_t)llround(tb + steal), 1,
				          c->boundary_counters && !I[i].no_boundary ? v64 : NULL);
				inside = 1;
				te = c->inner_call_ns > 0 ? tb + 0.25 * c->inner_call_ns : -1;
			} else {
				if (in_call)
					TRACE_PUT(rc, w, stream, trace_enc_exit,
					          (uint64_t)llround(tb + steal), 2, NULL);
				in_call = 0;
				te = -1;
				TRACE_PUT(rc, w, stream, trace_enc_exit, (uint64_t)llround(tb + steal), 1,
				          c->boundary_counters && !I[i].no_boundary ? v64 : NULL);
				inside = 0;
				i++;
				tr.instances++;
			}
			if (rc)
				goto fail_free;
		}
#undef ADVANCE
		tend += steal;
		TRACE_PUT(rc, w, stream, trace_enc_thread_end, (uint64_t)llround(tend));
		if (rc)
			goto fail_free;
		if (tend > tmax)
			tmax = tend;
	}
	free(I);
	TRACE_PUT(rc, w, 0, trace_enc_clock, (uint64_t)llround(tmax), (uint64_t)llround(tmax),
	          1700000000000000000ull + (uint64_t)llround(tmax - t0));
	snprintf(buf, sizeof buf, "%u", nthreads);
	TRACE_PUT(rc, w, 0, trace_enc_stat, "threads", nthreads);
	if (rc)
		goto fail;
	if (truth)
		*truth = tr;
	return trace_writer_close(w);
fail_free:
	free(I);
fail:
	trace_writer_close(w);
	return rc;
}
