/* threads_class.c: what each thread did, and where the CPUs worked.
 *
 * Owns a->threads (every thread with its samples, CPU time, wall time,
 * class and top functions), a->hot_cpu and a->hot_wall (functions by CPU
 * time and by wall samples over the threads that are not idle helpers).
 *
 * A thread is classed:
 *  - OpenMP worker when it is not the main thread and one of its samples
 *    runs below an outlined parallel
 *    region or in the OpenMP runtime (._omp_fn., GOMP_, __kmp, libgomp);
 *  - idle runtime helper when it is not its process' main thread and at
 *    least 90% of its samples are in a kernel wait (epoll_wait, poll,
 *    select, futex, nanosleep, condition variables...): the progress
 *    threads of MPI libraries and similar, which a wall-time sampler sees
 *    as busy as the application (and a thread other than the first
 *    that no sample caught, which did nothing a profile can show); and
 *    every thread of a process that is not an MPI rank in a run of ranks
 *    (a launcher's daemon such as Open MPI's orted, traced with them);
 *  - application otherwise (a process' main thread always: the thread
 *    whose id is the pid, else the first to appear).
 *
 * Invariants: a sample's weight in the CPU view is the CPU time it
 * measured (cpu_ns); its off-CPU time is the wall time since the thread's
 * previous sample (or its start) minus that CPU time, never negative.
 * Except a sample in a kernel wait that found its thread blocked there
 * (off the CPU for a tenth of the time since its previous sample or until
 * its next, see blocked_in_wait):
 * its CPU time ran before the wait began, in code no sample caught, and
 * goes to the CPU view's row FOLD_BEFORE_WAIT_FUNCTION, not to the wait
 * (Open MPI's clock_nanosleep loop in MPI_Init read 18.6 ms, 5.6% of a
 * run's CPU; a thread computing 1 ms and sleeping 3 ms had 29% of its CPU
 * in the sleep). A wait that polls without blocking, on the CPU
 * throughout, keeps it. The wall view is not changed. Each thread's list
 * has its own such row. The views' shares are of a->hot_cpu_total_ns and
 * a->hot_samples_total (a thread's, of its cpu_ns and samples), which the
 * rows kept need not add up to.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"
#include "threads_class.h"

#define IDLE_SHARE 0.9

/* the dropped samples' row (one object, so the row is found by its address) */
static const char dropped_function[] = FOLD_DROPPED_FUNCTION;
static const char before_wait_function[] = FOLD_BEFORE_WAIT_FUNCTION;

/* The CPU time of a thread's samples in waits that ran before the wait
 * (see the invariants), and the waits they were in. */
typedef struct before_waits {
	double cpu_ns;
	unsigned long samples;
	struct {
		const char *wait;
		unsigned long n;
	} by[6];
	size_t nby;
} before_waits;

/* Whether sample k of th, in a call that can block, found its thread blocked
 * there: it was off the CPU for a tenth of the time since the previous
 * sample, or will be until the next (a wait that had just begun). A wait
 * that polls without blocking runs on the CPU throughout. */
static int blocked_in_wait(const ingest__trace *t, const ingest__thread *th, size_t k, double cpu, double off)
{
	if (off > 0.1 * (cpu + off))
		return 1;
	if (k + 1 >= th->nsmp || !th->cpu_cum)
		return 0;
	const ingest__sample *s = &th->smp[k], *n = &th->smp[k + 1];
	double wall = n->tick > s->tick ? (double)(n->tick - s->tick) * t->ns_per_tick : 0;
	return wall > 0 && (double)n->cpu_ns < 0.9 * wall;
}

static const char *libc_name(const char *fn);

static void before_waits_add(before_waits *b, const char *wait, double cpu, unsigned long n)
{
	wait = libc_name(wait);
	b->cpu_ns += cpu;
	b->samples += n;
	size_t j = 0;
	while (j < b->nby && strcmp(b->by[j].wait, wait))
		j++;
	if (j == b->nby && b->nby < sizeof b->by / sizeof *b->by) {
		b->by[j].wait = wait;
		b->by[j].n = 0;
		b->nby++;
	}
	if (j < b->nby)
		b->by[j].n += n;
}
#define TOP_PER_THREAD 15
#define TOP_GLOBAL 40

/* The kernel waits a helper thread sits in, by their C library names
 * (leading underscores, __GI_/__libc_ prefixes and _nocancel dropped). */
static const char *const waits[] = {
    "epoll_wait",
    "epoll_pwait",
    "epoll_pwait2",
    "poll",
    "ppoll",
    "select",
    "pselect",
    "pselect6",
    "nanosleep",
    "clock_nanosleep",
    "usleep",
    "sleep",
    "pause",
    "sigsuspend",
    "sigwait",
    "sigtimedwait",
    "sigwaitinfo",
    "pthread_cond_wait",
    "pthread_cond_timedwait",
    "pthread_cond_clockwait",
    "sem_wait",
    "sem_timedwait",
    "sem_clockwait",
    "read",
    "recv",
    "recvmsg",
    "recvfrom",
    "accept",
    "accept4",
    "waitpid",
    "wait4",
    "waitid",
    "msgrcv",
    "pthread_join",
    "lll_lock_wait",
    "futex_abstimed_wait",
    "futex_abstimed_wait_common",
    "futex_abstimed_wait_common64",
    "futex_wait",
    "futex_wait_cancelable",
    "syscall_cancel_arch",
    "io_getevents",
    "io_uring_enter",
};

/* fn without leading underscores and __GI_/__libc_ prefixes
 * ("__GI___clock_nanosleep": "clock_nanosleep", "__GI___libc_read":
 * "read"). */
static const char *libc_name(const char *fn)
{
	for (;;) {
		while (*fn == '_')
			fn++;
		if (!strncmp(fn, "GI_", 3))
			fn += 3;
		else if (!strncmp(fn, "libc_", 5) && fn[5])
			fn += 5;
		else
			return fn;
	}
}

static int in_list(const char *fn, const char *const *list, size_t n)
{
	if (!fn)
		return 0;
	fn = libc_name(fn);
	size_t len = strcspn(fn, "@(");
	if (len > 9 && !strncmp(fn + len - 9, "_nocancel", 9))
		len -= 9;
	for (size_t i = 0; i < n; i++)
		if (strlen(list[i]) == len && !strncmp(fn, list[i], len))
			return 1;
	return 0;
}

int threads__is_kernel_wait(const char *fn)
{
	return in_list(fn, waits, sizeof waits / sizeof *waits);
}

/* Calls that block on a descriptor when it has nothing to give (a pipe, a
 * socket): not a helper's idle wait (a read from the page cache computes),
 * but where a thread found blocked waited (see blocked_in_wait). */
static const char *const io_waits[] = {"read",     "readv",   "pread",  "pread64", "recv",
                                       "recvfrom", "recvmsg", "accept", "accept4", "connect"};

static int is_blocking_call(const char *fn)
{
	return threads__is_kernel_wait(fn) || in_list(fn, io_waits, sizeof io_waits / sizeof *io_waits);
}

int threads__is_openmp_frame(const char *fn)
{
	return fn && (strstr(fn, "._omp_fn.") || !strncmp(fn, "GOMP_", 5) || !strncmp(fn, "gomp_", 5) ||
	              !strncmp(fn, "__kmp", 5) || !strncmp(fn, "__kmpc", 6) || strstr(fn, "libgomp") ||
	              strstr(fn, "libomp.so") || strstr(fn, "libiomp"));
}

/* One distinct leaf (function, file, line) with its weights. */
typedef struct leaf_w {
	const char *function, *file;
	unsigned line;
	uint32_t stack; /* the call stack it stands for, per thread */
	int wait;       /* its leaf is a kernel wait */
	int blocking;   /* ... or another call that blocks (is_blocking_call) */
	const char *module;
	unsigned long samples;
	double cpu_ns, off_ns;
	double cpu_before; /* of cpu_ns, what ran before the wait (see the invariants) */
} leaf_w;

static int cmp_str(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "");
}

static int cmp_leaf(const void *p, const void *q)
{
	const leaf_w *a = p, *b = q;
	int c = cmp_str(a->function, b->function);
	if (c)
		return c;
	if ((c = cmp_str(a->file, b->file)))
		return c;
	return a->line < b->line ? -1 : a->line > b->line;
}

typedef struct leaves {
	leaf_w *v;
	size_t n, cap;
} leaves;

static int leaves_add(leaves *l, const attribution__frame *f, const char *module, double cpu, double off)
{
	if (util_grow((void **)&l->v, &l->cap, l->n + 1, sizeof *l->v))
		return -ENOMEM;
	/* a module without symbols is one function already ("libgomp (no
	 * symbols)", attribution.c) */
	const char *fn = f->function;
	/* a sample inside libfold.so (a region hook, the MPI or OpenMP
	 * wrappers) is the measurement's own time, not the program's code */
	const char *base = module ? strrchr(module, '/') : NULL;
	base = base ? base + 1 : module;
	if (base && !strncmp(base, "libfold.so", 10))
		fn = FOLD_MEASUREMENT_FUNCTION;
	l->v[l->n++] = (leaf_w){.function = fn,
	                        .file = fn == f->function ? f->file : NULL,
	                        .line = fn == f->function ? f->line : 0,
	                        .module = module,
	                        .samples = 1,
	                        .cpu_ns = cpu,
	                        .off_ns = off};
	return 0;
}

static int cmp_hot_cpu(const void *p, const void *q)
{
	const fold_hot_function *a = p, *b = q;
	if (a->cpu_ns != b->cpu_ns)
		return a->cpu_ns < b->cpu_ns ? 1 : -1;
	return a->samples < b->samples ? 1 : a->samples > b->samples ? -1 : cmp_str(a->function, b->function);
}

static int cmp_hot_samples(const void *p, const void *q)
{
	const fold_hot_function *a = p, *b = q;
	if (a->samples != b->samples)
		return a->samples < b->samples ? 1 : -1;
	return cmp_hot_cpu(p, q);
}

static char *dup0(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Merges leaves into one row per function (its most-sampled line kept),
 * sorted by CPU time (by_cpu) or samples, at most max rows. */
static int functions_of(leaves *l, int by_cpu, size_t max, fold_hot_function **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (!l->n)
		return 0;
	qsort(l->v, l->n, sizeof *l->v, cmp_leaf);
	fold_hot_function *h = calloc(l->n, sizeof *h);
	if (!h)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < l->n;) {
		size_t j = i;
		fold_hot_function acc = {0};
		const leaf_w *best = NULL;
		unsigned long best_n = 0;
		while (j < l->n && !cmp_str(l->v[j].function, l->v[i].function)) {
			/* one (file, line) run */
			size_t k = j;
			unsigned long n = 0;
			while (k < l->n && !cmp_leaf(&l->v[k], &l->v[j])) {
				n += l->v[k].samples;
				acc.cpu_ns += by_cpu ? l->v[k].cpu_ns - l->v[k].cpu_before : l->v[k].cpu_ns;
				acc.off_cpu_ns += l->v[k].off_ns;
				k++;
			}
			acc.samples += n;
			if (n > best_n) {
				best_n = n;
				best = &l->v[j];
			}
			j = k;
		}
		fold_hot_function *o = &h[m++];
		*o = acc;
		o->function = dup0(best->function ? best->function : "[unknown]");
		o->module = dup0(best->module);
		o->file = dup0(best->file);
		o->line = best->line;
		o->line_samples = best_n;
		if (!o->function) {
			*out = h;
			*nout = m;
			return -ENOMEM;
		}
		i = j;
	}
	qsort(h, m, sizeof *h, by_cpu ? cmp_hot_cpu : cmp_hot_samples);
	for (size_t i = max; i < m; i++) {
		free(h[i].function);
		free(h[i].module);
		free(h[i].file);
	}
	*out = h;
	*nout = m < max ? m : max;
	return 0;
}

typedef struct stack_key {
	const leaves *l;
	uint32_t stack;
} stack_key;

static int same_stack(const void *arg, size_t value)
{
	const stack_key *k = arg;
	return k->l->v[value].stack == k->stack;
}

/* The leaves of thread th, one per distinct call stack with its samples,
 * CPU and off-CPU time; counts its waits and whether it ran OpenMP code.
 * Stacks are looked at once each, not once per sample. */
static int thread_leaves(attribution__ctx *at, const ingest__trace *t, unsigned proc,
                         const ingest__thread *th, leaves *l, fold_thread_summary *ts, int *omp,
                         before_waits *bw)
{
	util_hmap map = {0};
	int rc = 0;
	uint64_t prev = th->start_tick;
	for (size_t k = 0; k < th->nsmp && !rc; k++) {
		const ingest__sample *s = &th->smp[k];
		double wall = s->tick > prev ? (double)(s->tick - prev) * t->ns_per_tick : 0;
		prev = s->tick;
		double cpu = th->cpu_cum ? (double)s->cpu_ns : 0;
		double off = wall > cpu ? wall - cpu : 0;
		ts->cpu_ns += cpu;
		stack_key key = {l, s->stack};
		uint64_t h = util_hash_mix(s->stack, 0x9e3779b97f4a7c15ull);
		size_t *at_idx = util_hmap_find(&map, h, same_stack, &key);
		if (at_idx) {
			leaf_w *w = &l->v[*at_idx];
			w->samples++;
			if (w->blocking && blocked_in_wait(t, th, k, cpu, off)) {
				before_waits_add(bw, w->function, cpu, 1);
				w->cpu_before += cpu;
			}
			w->cpu_ns += cpu;
			w->off_ns += off;
			ts->wait_samples += w->wait;
			continue;
		}
		unsigned n = 0;
		const char *mod = NULL;
		const attribution__frame *fr = attribution__stack(at, proc, s->stack, &n, &mod);
		if (!fr || !n)
			continue;
		for (unsigned d = 0; d < n && !*omp; d++)
			*omp = threads__is_openmp_frame(fr[d].function);
		if (!*omp && mod && (strstr(mod, "libgomp") || strstr(mod, "libomp.so")))
			*omp = 1;
		if ((rc = leaves_add(l, &fr[n - 1], mod, cpu, off)))
			break;
		leaf_w *w = &l->v[l->n - 1];
		w->blocking = is_blocking_call(fr[n - 1].function);
		if (w->blocking && blocked_in_wait(t, th, k, cpu, off)) {
			before_waits_add(bw, w->function, cpu, 1);
			w->cpu_before = cpu;
		}
		w->stack = s->stack;
		w->wait = threads__is_kernel_wait(fr[n - 1].function);
		ts->wait_samples += w->wait;
		rc = util_hmap_insert(&map, h, l->n - 1);
	}
	util_hmap_free(&map);
	return rc;
}

static int cmp_thread(const void *p, const void *q)
{
	const fold_thread_summary *a = p, *b = q;
	if (a->proc != b->proc)
		return a->proc < b->proc ? -1 : 1;
	return a->index < b->index ? -1 : a->index > b->index;
}

/* The CPU time of the samples the runtime dropped (its next sample no
 * longer carries it), one row of the CPU view in mine whose "hottest line"
 * (why, its text) says why they were dropped: a pause is not the program's
 * time to show. Sums a->dropped_cpu_ns and a->dropped_cpu_samples. */
static int dropped_row(ingest__trace *const *tr, size_t ntr, fold_analysis *a, leaves *mine, char *why,
                       size_t whylen)
{
	struct drop_reason {
		const char *reason;
		unsigned long n;
	} by[8];
	size_t nby = 0;
	for (size_t p = 0; p < ntr; p++)
		for (size_t k = 0; k < tr[p]->nstats; k++) {
			const char *key = tr[p]->stats[k].key;
			if (!key || strncmp(key, "samples.dropped_cpu_ns.", 23) ||
			    !strcmp(key + 23, "paused"))
				continue;
			char nkey[96];
			uint64_t n = 0;
			snprintf(nkey, sizeof nkey, "samples.dropped.%s", key + 23);
			(void)ingest__trace_stat(tr[p], nkey, &n);
			a->dropped_cpu_ns += (double)tr[p]->stats[k].value;
			a->dropped_cpu_samples += (unsigned long)n;
			size_t j = 0;
			while (j < nby && strcmp(by[j].reason, key + 23))
				j++;
			if (j == nby && nby < sizeof by / sizeof *by)
				by[nby++] = (struct drop_reason){key + 23, 0};
			if (j < nby)
				by[j].n += (unsigned long)n;
		}
	for (size_t j = 0, o = 0; j < nby && o < whylen; j++)
		o += (size_t)snprintf(why + o, whylen - o, "%s%s %lu", j ? ", " : "dropped: ", by[j].reason,
		                      by[j].n);
	if (!(a->dropped_cpu_ns > 0))
		return 0;
	if (util_grow((void **)&mine->v, &mine->cap, mine->n + 1, sizeof *mine->v))
		return -ENOMEM;
	mine->v[mine->n++] = (leaf_w){.function = dropped_function,
	                              .module = why,
	                              .samples = a->dropped_cpu_samples,
	                              .cpu_ns = a->dropped_cpu_ns};
	return 0;
}

/* The CPU time that ran before waits, in code no sample caught: one row of
 * the CPU view in mine, whose "hottest line" (text, its buffer) names the
 * waits, the most frequent first. */
static int before_waits_row(before_waits *w, leaves *mine, char *text, size_t textlen)
{
	for (size_t j = 1; j < w->nby; j++)
		for (size_t k = j; k > 0 && w->by[k].n > w->by[k - 1].n; k--) {
			__typeof__(w->by[0]) x = w->by[k];
			w->by[k] = w->by[k - 1];
			w->by[k - 1] = x;
		}
	for (size_t j = 0, o = 0; j < w->nby && o < textlen; j++)
		o += (size_t)snprintf(text + o, textlen - o, "%s%s %lu", j ? ", " : "before: ", w->by[j].wait,
		                      w->by[j].n);
	if (util_grow((void **)&mine->v, &mine->cap, mine->n + 1, sizeof *mine->v))
		return -ENOMEM;
	mine->v[mine->n++] = (leaf_w){
	    .function = before_wait_function, .module = text, .samples = w->samples, .cpu_ns = w->cpu_ns};
	return 0;
}

/* Thread ts's rows (ts->top, ts->top_function) from its n leaves at v
 * (left as they are), with a row for its CPU time before waits (w). */
static int thread_top(fold_thread_summary *ts, const leaf_w *v, size_t n, before_waits *w)
{
	leaves one = {0};
	char before[160] = "";
	int rc = 0;
	if (n && util_grow((void **)&one.v, &one.cap, n + 1, sizeof *one.v))
		return -ENOMEM;
	if (n)
		memcpy(one.v, v, n * sizeof *v);
	one.n = n;
	if (ts->cpu_known && w->cpu_ns > 0)
		rc = before_waits_row(w, &one, before, sizeof before);
	if (!rc)
		rc = functions_of(&one, ts->cpu_known, TOP_PER_THREAD, &ts->top, &ts->ntop);
	for (size_t i = 0; i < ts->ntop && !rc && !ts->top_function; i++)
		if (strcmp(ts->top[i].function, FOLD_BEFORE_WAIT_FUNCTION))
			ts->top_function = ts->top[i].function;
	free(one.v);
	return rc;
}

int threads__classify(attribution__ctx *at, ingest__trace *const *tr, size_t ntr, fold_analysis *a)
{
	size_t total = 0;
	for (size_t p = 0; p < ntr; p++)
		total += tr[p]->nthreads;
	a->threads = calloc(total + 1, sizeof *a->threads);
	if (!a->threads)
		return -ENOMEM;
	leaves all = {0}, mine = {0};
	before_waits waits_all = {0};                     /* over the threads that are not idle helpers */
	size_t *first = calloc(total + 1, sizeof *first); /* each thread's first leaf in all */
	before_waits *thread_waits = calloc(total + 1, sizeof *thread_waits); /* each thread's */
	int rc = first && thread_waits ? 0 : -ENOMEM;
	int cpu_everywhere = 1, any_busy = 0, any_rank = 0;
	for (size_t p = 0; p < a->nprocs; p++)
		any_rank |= a->procs[p].rank >= 0;
	for (size_t p = 0; p < ntr && !rc; p++) {
		const ingest__trace *t = tr[p];
		/* a process that is not an MPI rank in a run of ranks (a
		 * launcher's daemon, Open MPI's orted, traced with them) did none
		 * of the program's work: all its threads are helpers */
		int helper_process = any_rank && p < a->nprocs && a->procs[p].rank < 0;
		for (size_t i = 0; i < t->nthreads && !rc; i++) {
			const ingest__thread *th = &t->threads[i];
			fold_thread_summary *ts = &a->threads[a->nthreads];
			first[a->nthreads++] = all.n;
			ts->proc = (unsigned)p;
			ts->rank = p < a->nprocs ? a->procs[p].rank : -1;
			ts->stream = th->stream;
			ts->index = ingest__thread_number(t, i);
			ts->name = th->name && *th->name ? strdup(th->name) : NULL;
			ts->samples = th->nsmp;
			ts->cpu_known = th->cpu_cum != NULL;
			uint64_t end = th->end_tick > th->last_tick ? th->end_tick : th->last_tick;
			ts->wall_ns =
			    end > th->start_tick ? (double)(end - th->start_tick) * t->ns_per_tick : 0;
			int omp = 0;
			before_waits *bw = &thread_waits[a->nthreads - 1];
			rc = thread_leaves(at, t, (unsigned)p, th, &all, ts, &omp, bw);
			if (helper_process)
				ts->klass = FOLD_THREAD_RUNTIME_IDLE;
			else if (omp && ts->index > 0)
				ts->klass = FOLD_THREAD_OPENMP;
			else if (ts->index > 0 && ts->wait_samples >= IDLE_SHARE * (double)ts->samples)
				ts->klass = FOLD_THREAD_RUNTIME_IDLE;
			else
				ts->klass = FOLD_THREAD_APP;
			if (ts->klass != FOLD_THREAD_RUNTIME_IDLE && ts->samples) {
				any_busy = 1;
				cpu_everywhere &= ts->cpu_known;
				for (size_t j = 0; j < bw->nby; j++)
					before_waits_add(&waits_all, bw->by[j].wait, 0, bw->by[j].n);
				waits_all.cpu_ns += bw->cpu_ns;
				a->hot_cpu_total_ns += ts->cpu_ns;
				a->hot_samples_total += ts->samples;
			}
		}
	}
	first[a->nthreads] = all.n;
	a->cpu_weighted = any_busy && cpu_everywhere;
	/* Per thread top functions, and the leaves of the busy threads. */
	for (size_t k = 0; k < a->nthreads && !rc; k++) {
		fold_thread_summary *ts = &a->threads[k];
		/* no pointer arithmetic on an empty (NULL) list */
		rc = thread_top(ts, all.v ? all.v + first[k] : NULL, first[k + 1] - first[k], &thread_waits[k]);
		if (rc || ts->klass == FOLD_THREAD_RUNTIME_IDLE)
			continue;
		for (size_t i = first[k]; i < first[k + 1] && !rc; i++) {
			if (util_grow((void **)&mine.v, &mine.cap, mine.n + 1, sizeof *mine.v))
				rc = -ENOMEM;
			else
				mine.v[mine.n++] = all.v[i];
		}
	}
	char why[160] = "", before[160] = "";
	if (!rc && a->cpu_weighted)
		rc = dropped_row(tr, ntr, a, &mine, why, sizeof why);
	a->hot_cpu_total_ns += a->dropped_cpu_ns;
	if (!rc && a->cpu_weighted && waits_all.cpu_ns > 0)
		rc = before_waits_row(&waits_all, &mine, before, sizeof before);
	if (!rc)
		rc = functions_of(&mine, a->cpu_weighted, TOP_GLOBAL, &a->hot_cpu, &a->nhot_cpu);
	if (!rc) {
		/* the same rows again, by samples (functions_of sorts mine in place:
		 * harmless), without the dropped samples' row: where they were
		 * is not known, nor whether their thread was running */
		size_t keep = 0;
		for (size_t i = 0; i < mine.n; i++)
			if (mine.v[i].function != dropped_function &&
			    mine.v[i].function != before_wait_function)
				mine.v[keep++] = mine.v[i];
		mine.n = keep;
		rc = functions_of(&mine, 0, TOP_GLOBAL, &a->hot_wall, &a->nhot_wall);
	}
	/* Main thread first in each process. */
	qsort(a->threads, a->nthreads, sizeof *a->threads, cmp_thread);
	free(first);
	free(thread_waits);
	free(all.v);
	free(mine.v);
	return rc;
}
