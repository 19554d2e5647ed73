/* instances.c: region instances and exact profile from enter/exit events
 * (see instances.h). One stack walk per thread. */
#include "instances.h"
#include "util.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct frame {
	uint32_t g;         /* global region */
	uint32_t ev;        /* enter event index */
	double child_ns;    /* summed durations of direct children */
	uint64_t desc;      /* descendant instances */
	uint64_t nchild;    /* direct children */
	double cold_own;    /* own cold enter's surplus (inside the call) */
	double cold_before; /* own armed enter's surplus before its timestamp (outside) */
	double cold_desc;   /* descendants' cold surpluses (inside the call) */
	double cold_child;  /* direct children's cold exits' surpluses */
	double hooks_own;   /* own hooks so far: P, own cold enter, first-call work */
	double hooks_first; /* of which the first call's one-time work */
} frame;

/* The cold surpluses of an instrumented function's event e (instances.h,
 * "Overhead compensation"), by its gap after prev (the thread's previous
 * function event; in traces of older runtimes its previous record, event or
 * sample): after its timestamp (Ce or Cx) and, for an enter
 * following a measured event (armed), before it (Cb). An event the runtime
 * measured one by one (hc, its hook_cost record; NULL: none) gets its own
 * measurement over the warm value; the others their bin's mean, which mixes
 * functions whose hooks find different caches. Returns whether the event
 * was measured (and so arms the next enter). */
typedef struct cold_cost {
	double after;  /* after the event's timestamp */
	double before; /* before it (an enter after a measured event) */
} cold_cost;

static int cold_surplus(const ingest__trace *t, const ingest__thread *th, size_t e, uint64_t prev, int armed,
                        const instances__hook_cost *h, const ingest__hook_cost *hc, cold_cost *out)
{
	double *after = &out->after, *before = &out->before;
	const ingest__event *ev = &th->ev[e];
	*after = *before = 0;
	if (h->nbins < 2)
		return 0;
	int enter = ev->kind == INGEST__EV_ENTER;
	/* an event's own measurement lies between the thread's neighbouring
	 * events (a damaged value: the bin's mean) */
	uint64_t next = e + 1 < th->nev ? th->ev[e + 1].tick : th->ended ? th->end_tick : UINT64_MAX;
	uint64_t last = e ? th->ev[e - 1].tick : th->start_tick;
	double own_after = hc && next >= ev->tick && hc->after_ticks <= (double)(next - ev->tick)
	                       ? hc->after_ticks * t->ns_per_tick
	                       : NAN;
	double own_before = hc && enter && ev->tick >= last && hc->before_ticks <= (double)(ev->tick - last)
	                        ? hc->before_ticks * t->ns_per_tick
	                        : NAN;
	if (!h->gap_from_function && ev->nsamples > 0 && th->smp[ev->nsamples - 1].tick > prev)
		prev = th->smp[ev->nsamples - 1].tick;
	double gap = ev->tick < prev ? 0 : (double)(ev->tick - prev) * t->ns_per_tick;
	unsigned b = 0;
	while (b + 1 < h->nbins && gap >= h->bin_lo_ns[b + 1])
		b++;
	if (own_before >= 0)
		*before = own_before - h->before_warm_ns + h->measure_before_ns;
	else if (enter && armed)
		*before = h->before_ns[b];
	if (own_after >= 0) {
		*after = own_after - (enter ? h->enter_after_ns : h->exit_after_ns) + h->measure_after_ns;
		return 1;
	}
	if (b == 0)
		return 0;
	*after = enter ? h->enter_ns[b] : h->exit_ns[b];
	return 1;
}

/* The hook_cost record of event e, if it has one: *hi walks th's records
 * in step with the events. */
static const ingest__hook_cost *hook_cost_of(const ingest__thread *th, size_t *hi, size_t e)
{
	while (*hi < th->nhook_cost && th->hook_cost[*hi].ev < e)
		(*hi)++;
	return *hi < th->nhook_cost && th->hook_cost[*hi].ev == e ? &th->hook_cost[*hi] : NULL;
}

typedef struct pair_probe {
	const instances__callpairs *p;
	uint64_t key;
} pair_probe;

static int same_key(const void *arg, size_t value)
{
	const pair_probe *q = arg;
	return q->p->e[value].key == q->key;
}

static int pairs_add(instances__callpairs *p, uint32_t caller, uint32_t callee, double incl)
{
	uint64_t key = ((uint64_t)(caller + 1) << 32) | (uint64_t)(callee + 1);
	uint64_t h = util_hash_mix(key, 0);
	pair_probe probe = {p, key};
	size_t *found = util_hmap_find(&p->by_key, h, same_key, &probe);
	size_t i = found ? *found : p->n;
	if (!found) {
		if (util_grow((void **)&p->e, &p->cap, p->n + 1, sizeof *p->e) ||
		    util_hmap_insert(&p->by_key, h, p->n))
			return -ENOMEM;
		p->e[p->n++] = (instances__callpair_acc){key, 0, 0};
	}
	p->e[i].calls++;
	p->e[i].incl += incl;
	return 0;
}

instances__instance *instances__instance_pieces(const instances__instance *inst, size_t n, size_t *npieces)
{
	instances__instance *p = malloc((2 * n + 1) * sizeof *p);
	size_t m = 0;
	if (!p)
		return NULL;
	for (size_t i = 0; i < n; i++) {
		const instances__instance *in = &inst[i];
		instances__instance base = *in;
		base.id = (uint32_t)i;
		base.isb = in->sb;
		base.ise = in->se;
		base.cont = 0;
		uint32_t cur = in->sb;
		/* Directly nested instances of the same region follow it in sorted order. */
		for (size_t j = i + 1; j < n; j++) {
			const instances__instance *c = &inst[j];
			if (c->proc != in->proc || c->thread != in->thread || c->t0 >= in->t1)
				break;
			if (c->nested_same != in->nested_same + 1 || c->t1 > in->t1 || c->sb < cur)
				continue;
			if (!base.cont || c->sb > cur) {
				p[m] = base;
				p[m].sb = cur;
				p[m].se = c->sb;
				m++;
				base.cont = 1;
			}
			cur = c->se;
		}
		if (!base.cont || in->se > cur) {
			p[m] = base;
			p[m].sb = cur;
			p[m].se = in->se;
			m++;
		}
	}
	*npieces = m;
	return p;
}

void instances__region_acc_free(instances__region_acc *a)
{
	free(a->inst);
	free(a->pt);
	memset(a, 0, sizeof *a);
}

void instances__callpairs_free(instances__callpairs *p)
{
	free(p->e);
	util_hmap_free(&p->by_key);
	memset(p, 0, sizeof *p);
}

typedef struct thread_prof {
	uint64_t calls;
	double incl, excl, min, max, hooks, hooks_first, nested;
} thread_prof;

/* The runtime's one-time work around the timestamp of the first recorded
 * call of each function (instances.h, "Own hooks"), per trace region id,
 * and the thread and event of that call: the function's earliest enter in
 * the process. */
typedef struct first_calls {
	double *before, *after; /* ns; after: its surplus over the warm enter */
	uint32_t *thread, *ev;
} first_calls;

/* One stack of open regions: user regions, functions, MPI calls and OpenMP
 * regions nest on one; MPI computation bursts on their own (see
 * instances.h). */
typedef struct stack {
	frame *f;
	size_t n, cap;
} stack;

/* The runtime's pauses right after event e (trace writing, pause records):
 * *pi walks th's pauses in step with the events. */
static double pause_after(const ingest__thread *th, size_t *pi, size_t e)
{
	double pause = 0;
	for (; *pi < th->npause && th->pause[*pi].nev <= e + 1; (*pi)++)
		if (th->pause[*pi].nev == e + 1)
			pause += th->pause[*pi].ns;
	return pause;
}

/* A pause at a burst's event: bursts are on their own stack, so it is
 * inside the innermost open region of the main stack, in none of its
 * children. */
static void pause_in_open_region(stack *main_stack, double pause)
{
	if (!(pause > 0) || !main_stack->n)
		return;
	main_stack->f[main_stack->n - 1].cold_desc += pause;
	main_stack->f[main_stack->n - 1].cold_child += pause;
}

/* One call's times into its function's profile on this thread; outermost:
 * not inside another call of it (recursion counts once); nested: fold's
 * measurement inside it taken out besides its own hooks. */
static void account_call(thread_prof *p, double incl, double excl, int outermost, double nested)
{
	double one = incl > 0 ? incl : 0;
	if (!p->calls)
		p->min = p->max = one;
	p->calls++;
	if (outermost) {
		p->incl += incl;
		p->nested += nested;
	}
	p->excl += excl;
	if (one < p->min)
		p->min = one;
	if (one > p->max)
		p->max = one;
}

/* Regions opened after the match at k were never closed (longjmp, missing
 * exit): counted and dropped; returns the stack's new depth. */
static size_t drop_unclosed(const frame *stk, size_t nstk, size_t k, instances__region_acc *acc,
                            uint32_t *active)
{
	while (nstk > k) {
		const frame *f = &stk[--nstk];
		acc[f->g].unclosed++;
		active[f->g]--;
	}
	return nstk;
}

/* What walking one trace's threads reads and writes: the trace, its
 * regions' map to the run's and kinds, the hooks' costs, and per region of
 * the run its accumulator, call pairs, the thread's profile, how many of
 * its instances are open, and which regions the thread touched. */
typedef struct trace_walk {
	const ingest__trace *t;
	unsigned proc;
	const uint32_t *map; /* trace region -> run region */
	size_t nmap;
	const uint8_t *is_burst; /* per trace region: 1 burst, 2 an instrumented function */
	const first_calls *first;
	instances__region_acc *acc;
	size_t nacc;
	instances__hook_cost hook;
	instances__callpairs *pairs;
	thread_prof *tp;
	uint32_t *active;
	uint32_t *touched;
	size_t ntouched;
} trace_walk;

/* The exit event e of thread ti closes its innermost open instance of the
 * same region on stack S: the instance, its profile and its parent's
 * accounting. cold: the exit hook's cold surplus (and trace writing). */
static int close_instance(trace_walk *w, unsigned ti, size_t e, stack *S, int burst, double cold)
{
	const ingest__trace *t = w->t;
	const ingest__thread *th = &t->threads[ti];
	const ingest__event *ev = &th->ev[e];
	instances__region_acc *acc = w->acc;
	uint32_t *active = w->active;
	instances__hook_cost hook = w->hook;
	uint32_t g = w->map[ev->region];
	frame *stk = S->f;
	size_t nstk = S->n;
	/* Exit: find the matching enter, innermost first. */
	size_t k = nstk;
	while (k > 0 && stk[k - 1].g != g)
		k--;
	if (k == 0) {
		acc[g].stray_exit++;
		return 0;
	}
	nstk = drop_unclosed(stk, nstk, k, acc, active);
	frame f = stk[--nstk];
	S->n = nstk;
	active[g]--;
	const ingest__event *en = &th->ev[f.ev];
	double dur = (double)(ev->tick - en->tick) * t->ns_per_tick;
	if (ev->tick < en->tick)
		dur = 0;
	instances__region_acc *A = &acc[g];
	if (util_grow((void **)&A->inst, &A->cap_inst, A->ninst + 1, sizeof *A->inst)) {
		return -ENOMEM;
	}
	instances__instance *in = &A->inst[A->ninst++];
	memset(in, 0, sizeof *in);
	in->t0 = en->tick;
	in->t1 = ev->tick;
	in->start_ns = ingest__tick_ns(t, en->tick);
	in->dur_ns = dur;
	in->proc = w->proc;
	in->thread = ti;
	in->ev_enter = f.ev;
	in->ev_exit = (uint32_t)e;
	in->sb = en->nsamples;
	in->se = ev->nsamples;
	in->isb = in->sb;
	in->ise = in->se;
	in->nested_same = active[g];
	in->used = 1;

	/* see "Overhead compensation" in instances.h; a burst is not a hooked call */
	instances__hook_cost hc = burst ? (instances__hook_cost){0} : hook;
	double incl = dur - hc.inner_ns - hc.pair_ns * (double)f.desc - f.cold_own - f.cold_desc;
	double excl = dur - f.child_ns - hc.inner_ns - (hc.pair_ns - hc.inner_ns) * (double)f.nchild -
	              f.cold_own - f.cold_child;
	/* Summed as they are: a call shorter than the calibrated hook
	 * cost reads negative, and clamping each at 0 would bias the
	 * totals up (fib(27)'s 9.5 ns calls summed to an exclusive time
	 * above their inclusive one); the totals are clamped instead. */
	thread_prof *p = &w->tp[g];
	if (!p->calls)
		w->touched[w->ntouched++] = g;
	account_call(p, incl, excl, active[g] == 0, hc.pair_ns * (double)f.desc + f.cold_desc);
	if (w->is_burst[ev->region] == 2)
		p->hooks += f.hooks_own + cold;
	p->hooks_first += f.hooks_first;
	/* A burst has no parent or children: it is not nested with the
	 * other regions (it ends inside one and begins inside another). */
	if (nstk > 0 && !burst) {
		frame *parent = &stk[nstk - 1];
		parent->child_ns += dur;
		parent->desc += f.desc + 1;
		parent->nchild++;
		parent->cold_desc += f.cold_own + f.cold_desc + f.cold_before + cold;
		parent->cold_child += f.cold_before + cold;
		if (pairs_add(w->pairs, parent->g, g, incl)) {
			return -ENOMEM;
		}
	}
	return 0;
}

static int walk_thread(trace_walk *w, unsigned ti)
{
	const ingest__trace *t = w->t;
	const ingest__thread *th = &t->threads[ti];
	const uint32_t *map = w->map;
	const uint8_t *is_burst = w->is_burst;
	const first_calls *first = w->first;
	const instances__hook_cost hook = w->hook;
	size_t nmap = w->nmap, nacc = w->nacc;
	stack stacks[2] = {{0}, {0}};
	int rc = 0;
	uint64_t prev = th->start_tick, prev_fn = 0;
	int armed = 0;
	size_t pi = 0, hi = 0;
	for (size_t e = 0; e < th->nev; e++) {
		const ingest__event *ev = &th->ev[e];
		/* the trace writing right after this event is its hook's, as a
		 * cold surplus after the timestamp is */
		double pause = pause_after(th, &pi, e);
		/* is_burst: 1 burst, 2 an instrumented function (cold hooks) */
		cold_cost cc = {0, 0};
		if (ev->region < nmap && is_burst[ev->region] == 2) {
			armed = cold_surplus(t, th, e, hook.gap_from_function ? prev_fn : prev, armed, &hook,
			                     hook_cost_of(th, &hi, e), &cc);
			prev_fn = ev->tick;
		}
		double cold = cc.after, before = cc.before;
		prev = ev->tick;
		if (ev->region >= nmap)
			continue;
		uint32_t g = map[ev->region];
		if (g >= nacc)
			continue;
		int burst = is_burst[ev->region] == 1;
		stack *S = &stacks[burst];
		if (burst)
			pause_in_open_region(&stacks[0], pause);
		if (ev->kind == INGEST__EV_ENTER) {
			if (util_grow((void **)&S->f, &S->cap, S->n + 1, sizeof *S->f)) {
				rc = -ENOMEM;
				goto out;
			}
			double own = 0, once = 0;
			if (is_burst[ev->region] == 2) {
				/* a first call's hook was measured as such, not as a cold one */
				if (first->before && first->thread[ev->region] == ti &&
				    first->ev[ev->region] == e) {
					cold = first->after[ev->region];
					own = first->before[ev->region];
					once = own + cold;
					before = 0;
					armed = 0; /* the slow path measures itself */
				}
				own += hook.pair_ns + cold + before;
			}
			cold += pause;
			own += pause;
			S->f[S->n++] = (frame){g, (uint32_t)e, 0, 0, 0, cold, before, 0, 0, own, once};
			w->active[g]++;
			continue;
		}
		if ((rc = close_instance(w, ti, e, S, burst, cold + pause)))
			goto out;
	}
	for (int b = 0; b < 2; b++)
		for (size_t k = 0; k < stacks[b].n; k++) {
			w->acc[stacks[b].f[k].g].unclosed++;
			w->active[stacks[b].f[k].g]--;
		}
out:
	free(stacks[0].f);
	free(stacks[1].f);
	return rc;
}

/* The runtime's measured one-time work before each function's first
 * recorded call (STAT overhead.first_enter_{before,after}_ticks.ID) and
 * where that call is. Leaves f empty when the trace has none. Linear in
 * the stats and events: the keys name trace ids, looked up in t->reg. */
static int first_calls_find(const ingest__trace *t, size_t nmap, const uint8_t *is_burst,
                            const instances__hook_cost *h, first_calls *f)
{
	static const char before_key[] = "overhead.first_enter_before_ticks.",
	                  after_key[] = "overhead.first_enter_after_ticks.";
	int any = 0;
	for (size_t k = 0; k < t->nstats; k++)
		any |= !strncmp(t->stats[k].key, before_key, sizeof before_key - 1);
	if (!any)
		return 0;
	f->before = calloc(nmap + 1, sizeof *f->before);
	f->after = calloc(nmap + 1, sizeof *f->after);
	f->thread = malloc((nmap + 1) * sizeof *f->thread);
	f->ev = malloc((nmap + 1) * sizeof *f->ev);
	uint64_t *tick = malloc((nmap + 1) * sizeof *tick);
	if (!f->before || !f->after || !f->thread || !f->ev || !tick) {
		free(tick);
		return -ENOMEM;
	}
	for (size_t r = 0; r < nmap; r++) {
		f->thread[r] = UINT32_MAX;
		tick[r] = UINT64_MAX;
	}
	for (size_t k = 0; k < t->nstats; k++) {
		const char *key = t->stats[k].key;
		int is_before = !strncmp(key, before_key, sizeof before_key - 1);
		if (!is_before && strncmp(key, after_key, sizeof after_key - 1))
			continue;
		const char *num = key + (is_before ? sizeof before_key : sizeof after_key) - 1;
		char *end;
		unsigned long id = strtoul(num, &end, 10);
		const ingest__region_def *d =
		    *num && !*end && id <= UINT32_MAX ? ingest__trace_region(t, (uint32_t)id) : NULL;
		size_t r = d ? (size_t)(d - t->reg) : nmap;
		if (r >= nmap || is_burst[r] != 2)
			continue;
		/* the last record of a key counts, as ingest__trace_stat's */
		uint64_t v = 0;
		ingest__trace_stat(t, key, &v);
		double ns = (double)v * t->ns_per_tick;
		if (is_before)
			f->before[r] = ns;
		else
			f->after[r] = ns > h->enter_after_ns ? ns - h->enter_after_ns : 0;
	}
	for (size_t ti = 0; ti < t->nthreads; ti++) {
		const ingest__thread *th = &t->threads[ti];
		for (size_t e = 0; e < th->nev; e++) {
			const ingest__event *ev = &th->ev[e];
			if (ev->kind != INGEST__EV_ENTER || ev->region >= nmap ||
			    !(f->before[ev->region] > 0) || ev->tick >= tick[ev->region])
				continue;
			tick[ev->region] = ev->tick;
			f->thread[ev->region] = (uint32_t)ti;
			f->ev[ev->region] = (uint32_t)e;
		}
	}
	free(tick);
	return 0;
}

int instances__build(const ingest__trace *t, unsigned proc, const uint32_t *map, size_t nmap,
                     instances__region_acc *acc, size_t nacc, instances__hook_cost hook,
                     instances__callpairs *pairs)
{
	int rc = 0;
	first_calls first = {0};
	thread_prof *tp = calloc(nacc ? nacc : 1, sizeof *tp);
	uint32_t *active = calloc(nacc ? nacc : 1, sizeof *active);
	uint32_t *touched = calloc(nacc ? nacc : 1, sizeof *touched);
	uint8_t *is_burst = calloc(nmap ? nmap : 1, 1);
	if (!tp || !active || !touched || !is_burst) {
		rc = -ENOMEM;
		goto out;
	}
	for (size_t r = 0; r < t->nreg && r < nmap; r++)
		if (t->reg[r].defined && t->reg[r].kind == TRACE_REGION_BURST)
			is_burst[r] = 1;
		else if (t->reg[r].defined && t->reg[r].kind == TRACE_REGION_FUNCTION)
			is_burst[r] = 2;
	rc = first_calls_find(t, nmap, is_burst, &hook, &first);
	if (rc)
		goto out;
	for (size_t ti = 0; ti < t->nthreads; ti++) {
		size_t ntouched = 0;
		trace_walk w = {t,    proc, map,   nmap, is_burst, &first,  acc,
		                nacc, hook, pairs, tp,   active,   touched, 0};
		rc = walk_thread(&w, (unsigned)ti);
		ntouched = w.ntouched;
		for (size_t k = 0; k < ntouched && !rc; k++) {
			uint32_t g = touched[k];
			instances__region_acc *A = &acc[g];
			if (util_grow((void **)&A->pt, &A->cap_pt, A->npt + 1, sizeof *A->pt)) {
				rc = -ENOMEM;
				break;
			}
			A->pt[A->npt++] = (instances__prof_thread){
			    proc,      (uint32_t)ti, tp[g].calls, fmax(tp[g].incl, 0), fmax(tp[g].excl, 0),
			    tp[g].min, tp[g].max,    tp[g].hooks, tp[g].hooks_first,   tp[g].nested};
		}
		for (size_t k = 0; k < ntouched; k++)
			memset(&tp[touched[k]], 0, sizeof *tp);
		if (rc)
			break;
	}
out:
	free(first.before);
	free(first.after);
	free(first.thread);
	free(first.ev);
	free(tp);
	free(active);
	free(touched);
	free(is_burst);
	return rc;
}
