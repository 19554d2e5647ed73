/* folding.c: the folding arithmetic (see folding.h). */
#include "folding.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int folding__sample_value(const ingest__trace *t, const ingest__thread *th, size_t k, uint32_t id, double *v)
{
	const ingest__sample *s = &th->smp[k];
	if (!s->cset)
		return -1;
	int j = ingest__cset_find(&t->csets[s->cset], id);
	if (j < 0)
		return -1;
	*v = (double)th->vals[s->voff + (unsigned)j];
	return 0;
}

static int value_at(const ingest__trace *t, const ingest__thread *th, size_t k, uint32_t id, int cpu,
                    double *v)
{
	if (cpu) {
		if (!th->cpu_cum)
			return -1;
		*v = th->cpu_cum[k];
		return 0;
	}
	return folding__sample_value(t, th, k, id, v);
}

int folding__event_value(const ingest__trace *t, const ingest__thread *th, const ingest__event *ev,
                         uint32_t id, double *v)
{
	if (!ev->cset)
		return -1;
	int j = ingest__cset_find(&t->csets[ev->cset], id);
	if (j < 0)
		return -1;
	*v = (double)th->vals[ev->voff + (unsigned)j];
	return 0;
}

int folding__boundary_value(const ingest__trace *t, const ingest__thread *th, const folding__boundary *b,
                            uint32_t id, int cpu, double *v)
{
	const ingest__event *ev = b->ev;
	size_t sb = b->sb, se = b->se;
	int is_exit = b->is_exit;
	if (!cpu && folding__event_value(t, th, ev, id, v) == 0)
		return 0;
	/* Not measured at the boundary: estimate it from the instance's own
	 * samples only. A neighbour's samples are never interpolated across the
	 * boundary (a neighbour's page faults would leak into the instance);
	 * they only bound the estimate (the counter is cumulative). With enough
	 * samples, extrapolate the rate between the instance's first (last) two
	 * samples: the rate just inside is the one that continues to the
	 * boundary. With fewer, the instance's mean measured rate (between its
	 * first and last sample). With fewer than two samples carrying the
	 * counter nothing inside the instance measures it: -ENOENT. */
	size_t k1 = SIZE_MAX, k2 = SIZE_MAX, kf = SIZE_MAX, kl = SIZE_MAX, nc = 0;
	double v1 = 0, v2 = 0, vf = 0, vl = 0, x;
	for (size_t k = sb; k < se; k++)
		if (value_at(t, th, k, id, cpu, &x) == 0) {
			if (kf == SIZE_MAX) {
				kf = k;
				vf = x;
			}
			kl = k;
			vl = x;
			nc++;
		}
	if (nc < 2 || th->smp[kl].tick <= th->smp[kf].tick)
		return -ENOENT;
	if (nc >= FOLDING__EXTRAPOLATE_MIN) {
		if (!is_exit) {
			for (size_t k = sb; k < se && k2 == SIZE_MAX; k++)
				if (value_at(t, th, k, id, cpu, k1 == SIZE_MAX ? &v1 : &v2) == 0) {
					if (k1 == SIZE_MAX)
						k1 = k;
					else
						k2 = k;
				}
		} else {
			for (size_t k = se; k > sb && k1 == SIZE_MAX; k--)
				if (value_at(t, th, k - 1, id, cpu, k2 == SIZE_MAX ? &v2 : &v1) == 0) {
					if (k2 == SIZE_MAX)
						k2 = k - 1;
					else
						k1 = k - 1;
				}
		}
	}
	if (k1 == SIZE_MAX || k2 == SIZE_MAX || th->smp[k2].tick <= th->smp[k1].tick) {
		k1 = kf;
		k2 = kl;
		v1 = vf;
		v2 = vl;
	}
	double t1 = (double)th->smp[k1].tick, t2 = (double)th->smp[k2].tick;
	double rate = (v2 - v1) / (t2 - t1);
	if (rate < 0)
		rate = 0;
	if (!is_exit) {
		*v = vf - rate * ((double)th->smp[kf].tick - (double)ev->tick);
		/* never below what a sample before the enter already read */
		double before;
		if (ev->nsamples > 0 && value_at(t, th, ev->nsamples - 1, id, cpu, &before) == 0 &&
		    *v < before && before <= vf)
			*v = before;
	} else {
		*v = vl + rate * ((double)ev->tick - (double)th->smp[kl].tick);
		double after;
		if (ev->nsamples < th->nsmp && value_at(t, th, ev->nsamples, id, cpu, &after) == 0 &&
		    *v > after && after >= vl)
			*v = after;
	}
	return 0;
}

/* Does the event record counter id itself (an exact boundary value)? */
static int exact_at(const ingest__trace *t, const ingest__event *ev, uint32_t id)
{
	return ev->cset && ingest__cset_find(&t->csets[ev->cset], id) >= 0;
}

static int push(folding__folded *f, double x, double y, size_t inst)
{
	if (f->n == f->cap) {
		/* Three parallel arrays, one capacity: util_grow picks the same new
		 * capacity for each, and f->cap moves only when all three grew. */
		size_t cx = f->cap, cy = f->cap, ci = f->cap;
		if (util_grow((void **)&f->x, &cx, f->n + 1, sizeof *f->x) ||
		    util_grow((void **)&f->y, &cy, f->n + 1, sizeof *f->y) ||
		    util_grow((void **)&f->inst, &ci, f->n + 1, sizeof *f->inst))
			return -ENOMEM;
		f->cap = cx;
	}
	f->x[f->n] = x;
	f->y[f->n] = y;
	f->inst[f->n] = (uint32_t)inst;
	f->n++;
	return 0;
}

void folding__folded_free(folding__folded *f)
{
	free(f->x);
	free(f->y);
	free(f->inst);
	memset(f, 0, sizeof *f);
}

static int fold_instances(ingest__trace *const *tr, const instances__instance *inst, size_t ninst,
                          const folding__spec *spec, int cpu, folding__folded *out, double *irate,
                          double *idur);

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int folding__fold_series(ingest__trace *const *tr, const instances__instance *inst, size_t ninst,
                         const folding__spec *spec, folding__folded *out)
{
	memset(out, 0, sizeof *out);
	out->median_rel_se = out->mean_rel_se = NAN;
	int cpu = spec->kind == FOLD__SER_CPU;
	double *irate = malloc((ninst + 1) * sizeof *irate), *idur = malloc((ninst + 1) * sizeof *idur);
	if (!irate || !idur) {
		free(irate);
		free(idur);
		return -ENOMEM;
	}
	int rc = fold_instances(tr, inst, ninst, spec, cpu, out, irate, idur);
	size_t m = out->ninst;
	if (rc == 0 && m) {
		/* the ratio's spread, instances as clusters (before irate is sorted) */
		double R = out->sum_dur_ns > 0 ? out->sum_total / out->sum_dur_ns : 0, ss = 0;
		for (size_t i = 0; i < m; i++) {
			double e = (irate[i] - R) * idur[i];
			ss += e * e;
		}
		if (m >= 2 && R > 0)
			out->mean_rel_se = sqrt(ss * (double)m / (double)(m - 1)) / out->sum_dur_ns / R;
		qsort(irate, m, sizeof *irate, cmp_double);
		double med = m % 2 ? irate[m / 2] : 0.5 * (irate[m / 2 - 1] + irate[m / 2]);
		out->median_rate = med;
		for (size_t i = 0; i < m; i++)
			idur[i] = fabs(irate[i] - med);
		qsort(idur, m, sizeof *idur, cmp_double);
		double mad = m % 2 ? idur[m / 2] : 0.5 * (idur[m / 2 - 1] + idur[m / 2]);
		if (m >= 2 && med > 0)
			out->median_rel_se = 1.2533 * 1.4826 * mad / sqrt((double)m) / med;
	}
	free(irate);
	free(idur);
	return rc;
}

static int fold_instances(ingest__trace *const *tr, const instances__instance *inst, size_t ninst,
                          const folding__spec *spec, int cpu, folding__folded *out, double *irate,
                          double *idur)
{
	for (size_t i = 0; i < ninst; i++) {
		const instances__instance *in = &inst[i];
		if (!in->used || in->t1 <= in->t0)
			continue;
		const ingest__trace *t = tr[in->proc];
		const ingest__thread *th = &t->threads[in->thread];
		double span = (double)(in->t1 - in->t0);
		if (spec->kind == FOLD__SER_WALL) {
			if (!in->cont) {
				irate[out->ninst] = 1.0;
				idur[out->ninst] = in->dur_ns;
				out->ninst++;
				out->sum_total += in->dur_ns;
				out->sum_dur_ns += in->dur_ns;
			}
			for (size_t k = in->sb; k < in->se; k++) {
				double x = ((double)th->smp[k].tick - (double)in->t0) / span;
				if (push(out, x, x, in->id))
					return -ENOMEM;
			}
			continue;
		}
		uint32_t id = 0;
		if (!cpu) {
			if (spec->ctr_id[in->proc] < 0)
				continue;
			id = (uint32_t)spec->ctr_id[in->proc];
		} else if (!th->cpu_cum) {
			continue;
		}
		/* The instance carries the counter if one of its samples or its events does. */
		double v0, v1, v;
		int carries = 0;
		for (size_t k = in->isb; k < in->ise && !carries; k++)
			carries = cpu || folding__sample_value(t, th, k, id, &v) == 0;
		if (!carries && !cpu) {
			const ingest__event *e = &th->ev[in->ev_enter];
			carries = e->cset && ingest__cset_find(&t->csets[e->cset], id) >= 0;
		}
		if (!carries)
			continue;
		if (folding__boundary_value(t, th,
		                            &(folding__boundary){&th->ev[in->ev_enter], in->isb, in->ise, 0},
		                            id, cpu, &v0) ||
		    folding__boundary_value(t, th,
		                            &(folding__boundary){&th->ev[in->ev_exit], in->isb, in->ise, 1},
		                            id, cpu, &v1)) {
			if (!in->cont)
				out->nskipped++;
			continue;
		}
		double total = v1 - v0;
		if (!in->cont) { /* a further piece of an instance adds points only */
			irate[out->ninst] = in->dur_ns > 0 && v1 > v0 ? (v1 - v0) / in->dur_ns : 0;
			idur[out->ninst] = in->dur_ns;
			out->ninst++;
			out->sum_dur_ns += in->dur_ns;
			if (!cpu && exact_at(t, &th->ev[in->ev_enter], id) &&
			    exact_at(t, &th->ev[in->ev_exit], id))
				out->nexact++;
			if (total <= 0)
				out->nzero++;
			else
				out->sum_total += total;
		}
		if (total <= 0)
			continue;
		for (size_t k = in->sb; k < in->se; k++) {
			if (cpu)
				v = th->cpu_cum[k];
			else if (folding__sample_value(t, th, k, id, &v))
				continue;
			double x = ((double)th->smp[k].tick - (double)in->t0) / span;
			double y = (v - v0) / total;
			if (y < 0)
				y = 0;
			if (y > 1)
				y = 1;
			if (push(out, x, y, in->id))
				return -ENOMEM;
			/* a sample whose program waited off the CPU since its timer's
			 * deadline (perturb.c) read there what it read at the stop:
			 * the wait's start, a point too (one per wait: the timer
			 * is one-shot) */
			if (th->waited_ns && th->waited_ns[k] && t->ns_per_tick > 0) {
				double xw = x - (double)th->waited_ns[k] / t->ns_per_tick / span;
				if (xw > 0 && push(out, xw, y, in->id))
					return -ENOMEM;
			}
		}
	}
	return 0;
}
