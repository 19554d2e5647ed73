/* attribution.c: source attribution of folded samples (see attribution.h).
 *
 * Every distinct call stack of a process is symbolised once into "logical
 * frames" (outermost first, each physical frame expanded into its inline
 * chain: containing function, then the inlined calls). Per-phase tops
 * aggregate the innermost logical frame (function, file, line); the
 * timeline and the call tree walk logical frames from the outside in.
 *
 * Timeline (a simplified multiple-sequence alignment): samples are aligned
 * at the region's own frame when >= 90% of them have one; the common outer
 * frames are the longest prefix of logical frames shared by >= 97% of the
 * folded samples (ending at the region's own function when it has one); below it, at each of up to
 * FOLD__TIMELINE_LEVELS depths, the normalised time axis is cut into bins, each bin takes the function most
 * of its samples run at that depth, and equal neighbours merge into spans.
 */
#define _GNU_SOURCE
#include "attribution.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"
#include "util.h"

#define FOLD__TOP_PER_PHASE 10
#define FOLD__TIMELINE_LEVELS 4

typedef attribution__frame lframe;

typedef struct stk_info {
	int done;
	unsigned nlog;
	lframe *log;               /* outermost first */
	const symtab_result *leaf; /* symbolisation of the interrupted PC (may be NULL) */
	const char *outer;         /* the leaf's out-of-line function (no_symbols_name), or NULL */
} stk_info;

typedef struct proc_cache {
	stk_info *stk; /* indexed by stack id */
	size_t n;
} proc_cache;

struct attribution__ctx {
	symtab *st;
	pthread_mutex_t lock;
	ingest__trace *const *tr;
	proc_cache *pc;
	size_t ntr;
	char **owned; /* fallback names */
	size_t nowned, cap_owned;
	char **nosym; /* "M (no symbols)" names (see no_symbols_name), one per module */
	size_t nnosym, cap_nosym;
};

static const char *own(attribution__ctx *a, char *s)
{
	if (!s)
		return "[unknown]";
	if (util_grow((void **)&a->owned, &a->cap_owned, a->nowned + 1, sizeof *a->owned)) {
		free(s);
		return "[unknown]";
	}
	a->owned[a->nowned++] = s;
	return s;
}

int attribution__new(attribution__ctx **out, ingest__trace *const *tr, size_t ntr, trace_diag_fn diag,
                     void *diag_arg)
{
	attribution__ctx *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	a->tr = tr;
	a->ntr = ntr;
	a->pc = calloc(ntr + 1, sizeof *a->pc);
	if (!a->pc) {
		attribution__free(a);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ntr; i++) {
		a->pc[i].n = tr[i]->nstacks + 1;
		a->pc[i].stk = calloc(a->pc[i].n, sizeof *a->pc[i].stk);
		if (!a->pc[i].stk) {
			attribution__free(a);
			return -ENOMEM;
		}
	}
	int rc = symbols__new(&a->st, diag, diag_arg);
	if (rc) {
		attribution__free(a);
		return rc;
	}
	for (size_t i = 0; i < ntr; i++)
		for (size_t k = 0; k < tr[i]->nmod; k++) {
			const ingest__module *m = &tr[i]->mod[k];
			symbols__add_module(
			    a->st, (unsigned)i,
			    &(symbols__module){m->id, m->path, m->build_id_len ? m->build_id : NULL,
			                       m->build_id_len, m->load_bias, m->segs, m->nseg});
		}
	*out = a;
	return 0;
}

void attribution__free(attribution__ctx *a)
{
	if (!a)
		return;
	if (a->pc)
		for (size_t i = 0; i < a->ntr; i++) {
			for (size_t k = 0; a->pc[i].stk && k < a->pc[i].n; k++)
				free(a->pc[i].stk[k].log);
			free(a->pc[i].stk);
		}
	free(a->pc);
	for (size_t i = 0; i < a->nowned; i++)
		free(a->owned[i]);
	free(a->owned);
	for (size_t i = 0; i < a->nnosym; i++)
		free(a->nosym[i]);
	free(a->nosym);
	symbols__free(a->st);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

const char *attribution__function_name(attribution__ctx *a, unsigned proc, uint64_t address, char *buf,
                                       size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, address);
	if (!a || !a->st)
		return buf;
	const char *name = NULL;
	pthread_mutex_lock(&a->lock);
	int rc = symbols__function_name(a->st, proc, address, &name);
	pthread_mutex_unlock(&a->lock);
	/* Without a module the fallback "[unknown]" would merge every such
	 * function into one region: keep the address instead. */
	if (rc == 0 && name && *name)
		return name;
	return buf;
}

const char *attribution__call_site(attribution__ctx *a, unsigned proc, uint64_t ret, char *buf, size_t len)
{
	if (!a || !a->st || !ret)
		return NULL;
	const symtab_result *res = NULL;
	pthread_mutex_lock(&a->lock);
	int rc = symbols__lookup(a->st, proc, ret, 1, &res);
	const char *out = NULL;
	if (rc == 0 && res && res->module && res->nframes && res->frames[0].function &&
	    res->frames[0].function[0] != '[' && strncmp(res->frames[0].function, "0x", 2)) {
		if (res->frames[0].line)
			snprintf(buf, len, "%s:%u", res->frames[0].function, res->frames[0].line);
		else
			snprintf(buf, len, "%s", res->frames[0].function);
		out = buf;
	}
	pthread_mutex_unlock(&a->lock);
	return out;
}

/* Is module libfold.so (fold's runtime, whatever its version suffix)? */
static int in_libfold(const char *module)
{
	const char *base = module ? strrchr(module, '/') : NULL;
	base = base ? base + 1 : module;
	return base && !strncmp(base, "libfold.so", 10);
}

/* Is module zlib (which fold's runtime calls to write its trace)? */
static int in_zlib(const char *module)
{
	const char *base = module ? strrchr(module, '/') : NULL;
	base = base ? base + 1 : module;
	return base && !strncmp(base, "libz.so", 7);
}

/* Where fold's own work begins in a stack of depth frames fr (innermost
 * first): the outermost of the runtime's entry points (measurement_entry),
 * else the outermost frame of the run of frames in libfold.so that reaches
 * the leaf, zlib's allowed below it (the trace writing's deflate).
 * UINT_MAX when the leaf is not fold's: a wrapper that passes into libc (a
 * sleep, an MPI call) or into the program (a thread's start) is the
 * program's time. */
/* The runtime's entry points that are fold's work wherever they lead (the
 * dynamic linker's binding, libc, libdwarf below them included): the
 * compiler hooks and their tail-called halves, the C/Fortran API, the
 * start-up. Every other exported function of libfold.so wraps a call of
 * the program's (a sleep, an MPI call, a thread's start). */
static int measurement_entry(const char *fn)
{
	static const char *const names[] = {
	    "__cyg_profile_func_enter", "__cyg_profile_func_exit", "enter_hot",      "enter_slow",
	    "exit_top",                 "exit_slow",               "fold_enter",     "fold_exit",
	    "fold_count",               "fold_counter",            "fold_region",    "fold_pause",
	    "fold_resume",              "rt_constructor",          "rt__init",       "rt__thread",
	};
	for (size_t i = 0; fn && i < sizeof names / sizeof *names; i++)
		if (!strcmp(fn, names[i]))
			return 1;
	return 0;
}

/* Is fn the PLT stub of one of those entry points ("__cyg_profile_func_enter@plt")?
 * A sample there is on its way into the hook: fold's work too. */
static int measurement_stub(const char *fn)
{
	size_t n = fn ? strlen(fn) : 0;
	if (n <= 4 || strcmp(fn + n - 4, "@plt"))
		return 0;
	char name[64];
	if (n - 4 >= sizeof name)
		return 0;
	memcpy(name, fn, n - 4);
	name[n - 4] = 0;
	return measurement_entry(name);
}

static unsigned measurement_start(attribution__ctx *a, unsigned proc, const uint64_t *fr, unsigned depth)
{
	if (depth) { /* the leaf in a hook's PLT stub, in the program's module */
		const symtab_result *res = NULL;
		int rc = symbols__lookup(a->st, proc, fr[0], 0, &res);
		if (res && rc != -ENOENT && res->nframes &&
		    measurement_stub(res->frames[res->nframes - 1].function))
			return 0;
	}
	for (unsigned d = depth; d-- > 0;) { /* the outermost entry point */
		const symtab_result *res = NULL;
		int rc = symbols__lookup(a->st, proc, fr[d], d > 0, &res);
		if (res && rc != -ENOENT && res->nframes && in_libfold(res->module) &&
		    measurement_entry(res->frames[res->nframes - 1].function))
			return d;
	}
	unsigned cut = UINT_MAX;
	for (unsigned d = 0; d < depth; d++) {
		const symtab_result *res = NULL;
		int rc = symbols__lookup(a->st, proc, fr[d], d > 0, &res);
		if (!res || rc == -ENOENT || !res->nframes)
			break;
		if (in_libfold(res->module))
			cut = d;
		else if (!in_zlib(res->module))
			break;
	}
	return cut;
}

/* A function in a module without symbols ("[libgomp.so.1+0x1f6a7]", see
 * symbols.c) as the module ("libgomp (no symbols)"): its addresses are
 * one place for a reader, not hundreds, in the phases' top lines, the
 * timeline and the call tree as in the hot views (threads_class.c). Other
 * names are returned as they are. */
static const char *no_symbols_name(attribution__ctx *a, const char *fn)
{
	size_t n = fn ? strlen(fn) : 0;
	const char *plus = n > 4 && fn[0] == '[' && fn[n - 1] == ']' ? strstr(fn, "+0x") : NULL;
	if (!plus)
		return fn;
	const char *so = strstr(fn, ".so"); /* "libgomp.so.1" -> "libgomp" */
	const char *end = so && so < plus ? so : plus;
	char buf[512];
	snprintf(buf, sizeof buf, "%.*s (no symbols)", (int)(end - fn - 1), fn + 1);
	for (size_t i = 0; i < a->nnosym; i++)
		if (!strcmp(a->nosym[i], buf))
			return a->nosym[i];
	char *d = strdup(buf);
	if (!d || util_grow((void **)&a->nosym, &a->cap_nosym, a->nnosym + 1, sizeof *a->nosym)) {
		free(d);
		return fn;
	}
	return a->nosym[a->nnosym++] = d;
}

/* Is fn one of the runtime's MPI wrappers (C or Fortran)? The program
 * called it by that name: the frame stays, PMPI below it. */
static int mpi_wrapper(const char *fn)
{
	return fn && (!strncmp(fn, "MPI_", 4) || !strncmp(fn, "mpi_", 4) || !strncmp(fn, "PMPI_", 5));
}

/* Symbolises stack id of proc into logical frames; caller holds the lock.
 * The runtime's other frames between the program's are left out: its
 * thread and OpenMP trampolines ("trampoline", "omp_trampoline") and the
 * wrappers it interposes on a library's functions (GOMP_parallel over
 * libgomp's GOMP_parallel, a wait over libc's) are not calls the program
 * made; the call tree and the timelines showed them between a thread's
 * start and its function. fold's own work (measurement_start: a hook,
 * the first call's decision, the trace writing) is one leaf frame,
 * FOLD_MEASUREMENT_FUNCTION. */
static stk_info *resolve_stack(attribution__ctx *a, unsigned proc, uint32_t id)
{
	if (proc >= a->ntr || !id || id >= a->pc[proc].n)
		return NULL;
	stk_info *si = &a->pc[proc].stk[id];
	if (si->done)
		return si;
	si->done = 1;
	const ingest__trace *t = a->tr[proc];
	unsigned depth = t->stk_depth[id];
	const uint64_t *fr = t->frames + t->stk_off[id];
	size_t cap = (size_t)depth * 2 + 4, n = 0;
	lframe *log = malloc(cap * sizeof *log);
	if (!log)
		return si;
	/* a stack the runtime did not unwind past its leaf: a root that says so */
	if (depth > 1 && fr[depth - 1] >= TRACE_FRAME_NOT_UNWOUND_LOADER &&
	    fr[depth - 1] <= TRACE_FRAME_NOT_UNWOUND_FAILED) {
		log[n++] = (lframe){fr[depth - 1] == TRACE_FRAME_NOT_UNWOUND_LOADER ? FOLD_NOT_UNWOUND_LOADER
		                                                                    : FOLD_NOT_UNWOUND_FAILED,
		                    NULL, 0};
		depth--;
	}
	unsigned cut = measurement_start(a, proc, fr, depth);
	for (unsigned d = depth; d-- > 0;) { /* outermost physical frame first */
		const symtab_result *res = NULL;
		int rc = symbols__lookup(a->st, proc, fr[d], d > 0, &res);
		if (d == 0)
			si->leaf = res;
		if (!res || rc == -ENOENT || !res->nframes) {
			char *nm = NULL;
			if (asprintf(&nm, "0x%" PRIx64, fr[d]) < 0)
				nm = NULL;
			if (n + 1 > cap)
				break;
			log[n++] = (lframe){own(a, nm), NULL, 0};
			if (d == 0)
				si->leaf = NULL;
			continue;
		}
		if (d == cut) {
			/* a sample inside fold's own runtime (a region hook, a
			 * wrapper's own work, the trace writing): the measurement's
			 * cost, one name, neither fold's functions nor its source
			 * lines among the program's */
			si->leaf = res;
			if (!util_grow((void **)&log, &cap, n + 1, sizeof *log))
				log[n++] = (lframe){FOLD_MEASUREMENT_FUNCTION, NULL, 0};
			break;
		}
		if (d > 0 && in_libfold(res->module) && !mpi_wrapper(res->frames[res->nframes - 1].function))
			continue; /* fold's interposition, not the program's call */
		for (unsigned k = res->nframes; k-- > 0;) {
			const char *fn = no_symbols_name(a, res->frames[k].function);
			if (fn != res->frames[k].function) {
				/* consecutive frames in one such module: one frame */
				if (n && log[n - 1].function == fn)
					continue;
				if (util_grow((void **)&log, &cap, n + 1, sizeof *log))
					break;
				log[n++] = (lframe){fn, NULL, 0};
				continue;
			}
			if (util_grow((void **)&log, &cap, n + 1, sizeof *log))
				break;
			log[n++] =
			    (lframe){res->frames[k].function, res->frames[k].file, res->frames[k].line};
		}
	}
	si->log = log;
	si->nlog = (unsigned)n;
	if (si->leaf && si->leaf->nframes)
		si->outer = no_symbols_name(a, si->leaf->frames[si->leaf->nframes - 1].function);
	return si;
}

static stk_info *stack_of(attribution__ctx *a, unsigned proc, uint32_t id)
{
	pthread_mutex_lock(&a->lock);
	stk_info *si = resolve_stack(a, proc, id);
	pthread_mutex_unlock(&a->lock);
	return si && si->nlog ? si : NULL;
}

const attribution__frame *attribution__stack(attribution__ctx *a, unsigned proc, uint32_t id, unsigned *n,
                                             const char **leaf_module)
{
	*n = 0;
	if (leaf_module)
		*leaf_module = NULL;
	stk_info *si = a ? stack_of(a, proc, id) : NULL;
	if (!si)
		return NULL;
	*n = si->nlog;
	if (leaf_module && si->leaf)
		*leaf_module = si->leaf->module;
	return si->log;
}

static int same_str(const char *x, const char *y)
{
	if (x == y)
		return 1;
	if (!x || !y)
		return 0;
	return !strcmp(x, y);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* --- per-phase tops --- */

typedef struct hit {
	unsigned phase;
	double x;
	const stk_info *si;
	unsigned base; /* timeline: the sample's depth of the region's own frame (0: none) */
} hit;

/* The frame at depth d below the timeline's base of hit, or NULL. */
static const lframe *tl_frame(const hit *h, unsigned d)
{
	return h->base + d < h->si->nlog ? &h->si->log[h->base + d] : NULL;
}

/* The out-of-line function a sample's leaf line belongs to: a line inlined
 * into two functions is two places in the program, not one. */
static const char *outer_function(const stk_info *si)
{
	return si->outer;
}

static int cmp_outer(const stk_info *a, const stk_info *b)
{
	const char *x = outer_function(a), *y = outer_function(b);
	return strcmp(x ? x : "", y ? y : "");
}

static int cmp_hit_leaf(const void *p, const void *q)
{
	const hit *a = p, *b = q;
	if (a->phase != b->phase)
		return a->phase < b->phase ? -1 : 1;
	const lframe *la = &a->si->log[a->si->nlog - 1], *lb = &b->si->log[b->si->nlog - 1];
	int c = strcmp(la->function ? la->function : "", lb->function ? lb->function : "");
	if (c)
		return c;
	c = strcmp(la->file ? la->file : "", lb->file ? lb->file : "");
	if (c)
		return c;
	if (la->line != lb->line)
		return la->line < lb->line ? -1 : 1;
	return cmp_outer(a->si, b->si);
}

static int cmp_hit_x(const void *p, const void *q)
{
	const hit *a = p, *b = q;
	return a->x < b->x ? -1 : a->x > b->x;
}

typedef struct run {
	size_t first, count;
} run;

static int cmp_run(const void *p, const void *q)
{
	const run *a = p, *b = q;
	if (a->count != b->count)
		return a->count > b->count ? -1 : 1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int fill_inline(fold_attribution *o, const symtab_result *res)
{
	if (!res || res->nframes < 2)
		return 0;
	o->inline_chain = calloc(res->nframes, sizeof *o->inline_chain);
	if (!o->inline_chain)
		return -ENOMEM;
	for (unsigned i = 0; i < res->nframes; i++) {
		fold_source_frame *f = &o->inline_chain[i];
		f->function = dup_or_null(res->frames[i].function);
		f->file = dup_or_null(res->frames[i].file);
		f->line = res->frames[i].line;
		if (i + 1 < res->nframes) {
			f->call_line = res->frames[i + 1].line;
			f->call_file = dup_or_null(res->frames[i + 1].file);
		}
		o->ninline++;
	}
	return 0;
}

static int phase_tops(hit *h, size_t n, fold_region_result *r)
{
	qsort(h, n, sizeof *h, cmp_hit_leaf);
	run *runs = malloc((n + 1) * sizeof *runs);
	if (!runs)
		return -ENOMEM;
	size_t i = 0;
	while (i < n) {
		unsigned p = h[i].phase;
		size_t nr = 0, total = 0, j = i;
		while (j < n && h[j].phase == p) {
			size_t k = j;
			while (k < n && h[k].phase == p && !cmp_hit_leaf(&h[j], &h[k]))
				k++;
			runs[nr++] = (run){j, k - j};
			total += k - j;
			j = k;
		}
		qsort(runs, nr, sizeof *runs, cmp_run);
		fold_phase_result *ph = &r->phases[p];
		size_t keep = nr < FOLD__TOP_PER_PHASE ? nr : FOLD__TOP_PER_PHASE;
		ph->top = calloc(keep + 1, sizeof *ph->top);
		if (!ph->top) {
			free(runs);
			return -ENOMEM;
		}
		for (size_t q = 0; q < keep; q++) {
			const stk_info *si = h[runs[q].first].si;
			const lframe *lf = &si->log[si->nlog - 1];
			fold_attribution *o = &ph->top[ph->ntop++];
			o->function = dup_or_null(lf->function);
			o->file = dup_or_null(lf->file);
			o->line = lf->line;
			o->module = si->leaf ? dup_or_null(si->leaf->module) : NULL;
			o->samples = runs[q].count;
			o->share = (double)runs[q].count / (double)total;
			if (!in_libfold(o->module) && fill_inline(o, si->leaf)) {
				free(runs);
				return -ENOMEM;
			}
		}
		i = j;
	}
	free(runs);
	return 0;
}

/* --- timeline --- */

typedef struct tally {
	const char *key;
	size_t count;
} tally;

/* Bins without any sample say nothing, and left empty they would cut the
 * strip into pieces wherever sampling was sparse. A run of sample-less bins
 * takes its neighbours' routine: all of it when both sides agree, else the
 * left half from the left and the right half from the right (at the ends,
 * the one neighbour). Bins that have samples but no routine at this depth
 * stay empty: that is information. */
static void fill_empty_bins(const char **binfn, const size_t *edge, size_t bins)
{
	for (size_t b = 0; b < bins;) {
		if (edge[b + 1] != edge[b]) {
			b++;
			continue;
		}
		size_t e = b;
		while (e < bins && edge[e + 1] == edge[e])
			e++;
		const char *left = b > 0 ? binfn[b - 1] : NULL;
		const char *right = e < bins ? binfn[e] : NULL;
		if (b == 0)
			left = right;
		if (e == bins)
			right = left;
		size_t mid = same_str(left, right) ? e : b + (e - b + 1) / 2;
		for (size_t k = b; k < e; k++)
			binfn[k] = k < mid ? left : right;
		b = e;
	}
}

/* Most frequent function among samples at logical depth d (samples shallower are skipped). */
static const char *majority(const hit *h, size_t a, size_t b, unsigned d, size_t *count, size_t *present,
                            tally *t, size_t tcap)
{
	size_t nt = 0;
	*present = 0;
	for (size_t i = a; i < b; i++) {
		const lframe *f = tl_frame(&h[i], d);
		if (!f)
			continue;
		(*present)++;
		const char *fn = f->function;
		size_t k;
		for (k = 0; k < nt; k++)
			if (same_str(t[k].key, fn))
				break;
		if (k == nt) {
			if (nt == tcap)
				continue;
			t[nt++] = (tally){fn, 0};
		}
		t[k].count++;
	}
	const char *best = NULL;
	*count = 0;
	for (size_t k = 0; k < nt; k++)
		if (t[k].count > *count) {
			*count = t[k].count;
			best = t[k].key;
		}
	return best;
}

/* Whether si holds a frame of function fn; its outermost depth in *at. */
static int holds_function(const stk_info *si, const char *fn, unsigned *at)
{
	for (unsigned d = 0; d < si->nlog; d++)
		if (same_str(si->log[d].function, fn)) {
			*at = d;
			return 1;
		}
	return 0;
}

/* A region that no frame is named after (an API region, a burst) is
 * aligned at the outermost function that at least 97% of its samples hold:
 * the code all its instances run in, below whatever roots their threads
 * have. An API region entered inside a parallel region had its timeline
 * start at "clone3" and "_start", the roots of the workers and of the main
 * thread, one or the other from bin to bin; it now starts below the
 * outlined function. On one thread that function is the root, as before.
 * Samples without it keep their root (base 0). */
static void align_at_common_frame(hit *h, size_t n)
{
	for (size_t i = 0; i < n; i++)
		h[i].base = 0;
	/* the candidates: a few samples' frames, outermost first (they lie on
	 * one chain when the 97% hold them, so any sample that holds it finds it) */
	const size_t probes[] = {0, n / 2, n - 1};
	for (size_t q = 0; q < sizeof probes / sizeof probes[0]; q++) {
		const stk_info *si = h[probes[q]].si;
		for (unsigned d = 0; d < si->nlog; d++) {
			const char *fn = si->log[d].function;
			if (!fn)
				continue;
			size_t lack = 0, most = (size_t)(0.03 * (double)n);
			unsigned at;
			for (size_t i = 0; i < n && lack <= most; i++)
				lack += !holds_function(h[i].si, fn, &at);
			if (lack > most)
				continue;
			for (size_t i = 0; i < n; i++)
				if (holds_function(h[i].si, fn, &at))
					h[i].base = at;
			return;
		}
	}
}

/* Aligns samples whose stacks hold a frame named like the region (a
 * function or an OpenMP region's outlined function) at it: threads that
 * reach one parallel region from different roots (the main thread from
 * main, workers from the runtime's thread start) then share their frames
 * below it, and the timeline starts at the region's own code, not at the
 * thread roots. Under 90% of them: at the common frame instead. */
static void align_at_region_frame(hit *h, size_t n, const char *name)
{
	size_t own = 0;
	for (size_t i = 0; i < n; i++)
		for (unsigned d = 0; d < h[i].si->nlog; d++)
			if (same_str(h[i].si->log[d].function, name)) {
				h[i].base = d;
				own++;
				break;
			}
	if ((double)own < 0.9 * (double)n)
		align_at_common_frame(h, n);
}

/* Common outer frames: extend while >= 97% of samples agree, and stop
 * below a frame named like the region (a function region's own frame).
 * A frame the region's code runs in is there from its enter to its exit:
 * one also held by the samples of the instances' first and last 5% (90% of
 * them). A callee that holds 97% of the time is not: miniMD's step region
 * (ForceLJ::compute, 97%) had a timeline that started below the force
 * kernel, empty but for one slice. h sorted by position; t: 256 tallies. */
static unsigned common_prefix(hit *h, size_t n, const char *name, tally *t)
{
	unsigned prefix = 0;
	size_t ends = n / 20 > 10 ? n / 20 : n < 10 ? n : 10;
	for (unsigned d = 0; d < 512; d++) {
		size_t cnt, present, ecnt;
		const char *fn = majority(h, 0, n, d, &cnt, &present, t, 256);
		if (!fn || (double)cnt < 0.97 * (double)n)
			break;
		const char *head = majority(h, 0, ends, d, &ecnt, &present, t, 256);
		if (!same_str(head, fn) || (double)ecnt < 0.9 * (double)ends)
			break;
		const char *tail = majority(h, n - ends, n, d, &ecnt, &present, t, 256);
		if (!same_str(tail, fn) || (double)ecnt < 0.9 * (double)ends)
			break;
		prefix = d + 1;
		if (same_str(fn, name))
			break;
	}
	return prefix;
}

/* The span's file and its most frequent line: those of function fn at
 * depth d in samples [from, to). */
static void span_source(const hit *h, size_t from, size_t to, unsigned d, const char *fn,
                        fold_timeline_span *sp)
{
	size_t nt = 0, best = 0;
	const char *file = NULL;
	unsigned best_line = 0;
	unsigned *lines = malloc((to - from + 1) * sizeof *lines);
	if (lines) {
		for (size_t i = from; i < to; i++)
			if (tl_frame(&h[i], d) && same_str(tl_frame(&h[i], d)->function, fn))
				lines[nt++] = tl_frame(&h[i], d)->line;
		for (size_t i = 0; i < nt; i++) {
			size_t c = 0;
			for (size_t k = 0; k < nt && nt < 2000; k++)
				c += lines[k] == lines[i];
			if (c > best) {
				best = c;
				best_line = lines[i];
			}
		}
		free(lines);
	}
	for (size_t i = from; i < to && !file; i++)
		if (tl_frame(&h[i], d) && same_str(tl_frame(&h[i], d)->function, fn))
			file = tl_frame(&h[i], d)->file;
	sp->file = dup_or_null(file);
	sp->line = best_line;
}

static int timeline(hit *h, size_t n, fold_region_result *r)
{
	if (n < 10)
		return 0;
	qsort(h, n, sizeof *h, cmp_hit_x);
	tally *t = malloc(256 * sizeof *t);
	if (!t)
		return -ENOMEM;
	align_at_region_frame(h, n, r->name);
	unsigned prefix = common_prefix(h, n, r->name, t);
	/* The region's own function is the last common frame: levels start below it. */
	size_t bins = n / 8;
	if (bins > 100)
		bins = 100;
	if (bins < 4)
		bins = 4;
	r->timeline = calloc(FOLD__TIMELINE_LEVELS, sizeof *r->timeline);
	const char **binfn = malloc(bins * sizeof *binfn);
	size_t *edge = malloc((bins + 1) * sizeof *edge);
	if (!r->timeline || !binfn || !edge) {
		free(t);
		free(binfn);
		free(edge);
		return -ENOMEM;
	}
	/* sample index ranges of the bins */
	for (size_t b = 0, i = 0; b <= bins; b++) {
		double xb = (double)b / (double)bins;
		while (i < n && h[i].x < xb)
			i++;
		edge[b] = b == bins ? n : i;
	}
	int rc = 0;
	for (unsigned l = 0; l < FOLD__TIMELINE_LEVELS; l++) {
		unsigned d = prefix + l;
		int any = 0;
		for (size_t b = 0; b < bins; b++) {
			size_t cnt, present;
			binfn[b] = majority(h, edge[b], edge[b + 1], d, &cnt, &present, t, 256);
			/* a bin where most samples are shallower than d has no routine at this depth */
			if (edge[b + 1] - edge[b] == 0 || 2 * present < edge[b + 1] - edge[b])
				binfn[b] = NULL;
			any |= binfn[b] != NULL;
		}
		if (!any)
			break;
		fill_empty_bins(binfn, edge, bins);
		fold_timeline_level *lv = &r->timeline[r->ntimeline];
		lv->depth = l;
		lv->spans = calloc(bins, sizeof *lv->spans);
		if (!lv->spans) {
			rc = -ENOMEM;
			break;
		}
		r->ntimeline++;
		for (size_t b = 0; b < bins;) {
			size_t e = b + 1;
			while (e < bins && same_str(binfn[e], binfn[b]))
				e++;
			if (binfn[b]) {
				fold_timeline_span *sp = &lv->spans[lv->nspans++];
				sp->start = (double)b / (double)bins;
				sp->end = (double)e / (double)bins;
				sp->function = strdup(binfn[b]);
				span_source(h, edge[b], edge[e], d, binfn[b], sp);
				if (!sp->function) {
					rc = -ENOMEM;
					break;
				}
			}
			b = e;
		}
		if (rc)
			break;
	}
	free(t);
	free(binfn);
	free(edge);
	return rc;
}

int attribution__region(attribution__ctx *a, ingest__trace *const *tr, const instances__instance *inst,
                        size_t ninst, fold_region_result *r)
{
	if (!a || !r->nphases)
		return 0;
	size_t cap = 0;
	for (size_t i = 0; i < ninst; i++)
		if (inst[i].used)
			cap += inst[i].se - inst[i].sb;
	if (!cap)
		return 0;
	hit *h = malloc(cap * sizeof *h);
	if (!h)
		return -ENOMEM;
	size_t n = 0;
	for (size_t i = 0; i < ninst; i++) {
		const instances__instance *in = &inst[i];
		if (!in->used || in->t1 <= in->t0)
			continue;
		const ingest__thread *th = &tr[in->proc]->threads[in->thread];
		double span = (double)(in->t1 - in->t0);
		for (size_t k = in->sb; k < in->se; k++) {
			if (!th->smp[k].stack)
				continue;
			stk_info *si = stack_of(a, in->proc, th->smp[k].stack);
			if (!si)
				continue;
			double x = ((double)th->smp[k].tick - (double)in->t0) / span;
			unsigned p = 0;
			while (p + 1 < r->nphases && x >= r->phases[p + 1].start)
				p++;
			h[n++] = (hit){p, x, si, 0};
		}
	}
	int rc = 0;
	if (n) {
		rc = phase_tops(h, n, r);
		if (!rc)
			rc = timeline(h, n, r);
	}
	free(h);
	return rc;
}

/* --- sampled call tree --- */

typedef struct cct_build {
	fold_cct_node *nodes;
	size_t n, cap;
} cct_build;

static size_t child_of(cct_build *b, size_t parent, const lframe *f)
{
	size_t first = parent == SIZE_MAX ? (b->n ? 0 : SIZE_MAX) : b->nodes[parent].first_child;
	size_t last = SIZE_MAX;
	for (size_t c = first; c != SIZE_MAX; c = b->nodes[c].next_sibling) {
		if (same_str(b->nodes[c].function, f->function))
			return c;
		last = c;
	}
	if (util_grow((void **)&b->nodes, &b->cap, b->n + 1, sizeof *b->nodes))
		return SIZE_MAX;
	size_t id = b->n++;
	fold_cct_node *o = &b->nodes[id];
	memset(o, 0, sizeof *o);
	o->function = strdup(f->function ? f->function : "[unknown]");
	o->file = dup_or_null(f->file);
	o->line = 0;
	o->parent = parent;
	o->first_child = SIZE_MAX;
	o->next_sibling = SIZE_MAX;
	if (!o->function) {
		b->n--;
		return SIZE_MAX;
	}
	if (last != SIZE_MAX)
		b->nodes[last].next_sibling = id;
	else if (parent != SIZE_MAX)
		b->nodes[parent].first_child = id;
	return id;
}

/* --- flat profile by line --- */

typedef struct leaf_count {
	const stk_info *si;
	unsigned long count;
} leaf_count;

static int cmp_leaf_line(const void *p, const void *q)
{
	const stk_info *sa = ((const leaf_count *)p)->si, *sb = ((const leaf_count *)q)->si;
	const lframe *a = &sa->log[sa->nlog - 1], *b = &sb->log[sb->nlog - 1];
	int c = strcmp(a->function ? a->function : "", b->function ? b->function : "");
	if (c)
		return c;
	c = strcmp(a->file ? a->file : "", b->file ? b->file : "");
	if (c)
		return c;
	if (a->line != b->line)
		return a->line < b->line ? -1 : 1;
	return cmp_outer(sa, sb);
}

static int cmp_attribution_samples(const void *p, const void *q)
{
	const fold_attribution *a = p, *b = q;
	return a->samples < b->samples ? 1 : a->samples > b->samples ? -1 : 0;
}

/* Merges the leaves (one entry per distinct stack) into one row per
 * (function, file, line), largest first. */
static int flat_lines(leaf_count *lc, size_t n, fold_analysis *an)
{
	unsigned long total = 0;
	for (size_t i = 0; i < n; i++)
		total += lc[i].count;
	if (!n || !total)
		return 0;
	qsort(lc, n, sizeof *lc, cmp_leaf_line);
	fold_attribution *out = calloc(n, sizeof *out);
	if (!out)
		return -ENOMEM;
	size_t m = 0;
	for (size_t i = 0; i < n;) {
		size_t j = i;
		unsigned long c = 0;
		for (; j < n && !cmp_leaf_line(&lc[i], &lc[j]); j++)
			c += lc[j].count;
		const stk_info *si = lc[i].si;
		const lframe *lf = &si->log[si->nlog - 1];
		fold_attribution *o = &out[m++];
		o->function = dup_or_null(lf->function);
		o->file = dup_or_null(lf->file);
		o->line = lf->line;
		o->module = si->leaf ? dup_or_null(si->leaf->module) : NULL;
		o->samples = c;
		o->share = (double)c / (double)total;
		if (!in_libfold(o->module) && fill_inline(o, si->leaf)) {
			an->lines = out;
			an->nlines = m;
			return -ENOMEM;
		}
		i = j;
	}
	qsort(out, m, sizeof *out, cmp_attribution_samples);
	an->lines = out;
	an->nlines = m;
	return 0;
}

int attribution__global(attribution__ctx *a, ingest__trace *const *tr, size_t ntr, fold_analysis *an)
{
	if (!a)
		return 0;
	cct_build b = {0};
	int rc = 0;
	leaf_count *leaves = NULL;
	size_t nleaves = 0, cap_leaves = 0;
	for (size_t p = 0; p < ntr && !rc; p++) {
		const ingest__trace *t = tr[p];
		unsigned long *count = calloc(t->nstacks + 1, sizeof *count);
		if (!count)
			return -ENOMEM;
		for (size_t th = 0; th < t->nthreads; th++)
			for (size_t k = 0; k < t->threads[th].nsmp; k++)
				count[t->threads[th].smp[k].stack]++;
		for (uint32_t id = 1; id <= t->nstacks && !rc; id++) {
			if (!count[id])
				continue;
			stk_info *si = stack_of(a, (unsigned)p, id);
			if (!si)
				continue;
			if (si->nlog) {
				if (util_grow((void **)&leaves, &cap_leaves, nleaves + 1, sizeof *leaves)) {
					rc = -ENOMEM;
					break;
				}
				leaves[nleaves++] = (leaf_count){si, count[id]};
			}
			size_t node = SIZE_MAX;
			for (unsigned d = 0; d < si->nlog; d++) {
				size_t c = child_of(&b, node, &si->log[d]);
				if (c == SIZE_MAX) {
					rc = -ENOMEM;
					break;
				}
				b.nodes[c].total_samples += count[id];
				node = c;
			}
			if (node != SIZE_MAX && !rc)
				b.nodes[node].self_samples += count[id];
		}
		free(count);
	}
	if (!rc)
		rc = flat_lines(leaves, nleaves, an);
	free(leaves);
	if (rc) {
		for (size_t i = 0; i < b.n; i++) {
			free(b.nodes[i].function);
			free(b.nodes[i].file);
		}
		free(b.nodes);
		return rc;
	}
	an->cct = b.nodes;
	an->ncct = b.n;
	return 0;
}

int attribution__sampled_inclusive(attribution__ctx *a, ingest__trace *const *tr, size_t ntr,
                                   const char *name, double *ns, unsigned long *n)
{
	*ns = 0;
	*n = 0;
	if (!a)
		return 0;
	for (size_t p = 0; p < ntr; p++) {
		const ingest__trace *t = tr[p];
		uint8_t *holds = calloc(t->nstacks + 1, 1); /* 0 unknown, 1 no, 2 yes */
		if (!holds)
			return -ENOMEM;
		for (size_t th = 0; th < t->nthreads; th++) {
			const ingest__thread *T = &t->threads[th];
			if (!T->nsmp || T->end_tick <= T->start_tick)
				continue;
			double cap = 10.0 * (double)(T->end_tick - T->start_tick) / (double)T->nsmp;
			uint64_t prev = T->start_tick;
			for (size_t k = 0; k < T->nsmp; k++) {
				const ingest__sample *sm = &T->smp[k];
				double gap = sm->tick > prev ? (double)(sm->tick - prev) : 0;
				prev = sm->tick;
				uint32_t id = sm->stack;
				if (!id || id > t->nstacks)
					continue;
				if (!holds[id]) {
					const stk_info *si = stack_of(a, (unsigned)p, id);
					holds[id] = 1;
					for (unsigned d = 0; si && d < si->nlog && holds[id] == 1; d++)
						if (si->log[d].function && !strcmp(si->log[d].function, name))
							holds[id] = 2;
				}
				if (holds[id] == 2) {
					*ns += (gap < cap ? gap : cap) * t->ns_per_tick;
					(*n)++;
				}
			}
		}
		free(holds);
	}
	return 0;
}
