/* export_chrome.c: Chrome trace-event JSON (chrome://tracing, Perfetto UI,
 * speedscope) with one track per thread: region enter/exit as B/E events and
 * samples as complete slices carrying their stack, one per run of
 * consecutive samples with the same symbolised stack (so the output stays
 * proportional to the trace); past export_ctx.max_size, shared out over the
 * threads by their records, a thread's rest is left out and counted.
 *
 * Invariant: B and E events are balanced and properly nested per thread,
 * whatever the trace holds. Regions still open where the output stops (end
 * of the --to window, end of a --region instance, thread end) are closed
 * there; regions already open where it starts (the --from window, entry
 * into a --region instance) are opened there, marked "clipped"; an exit with
 * no matching enter is dropped. Timestamps are microseconds on the common
 * timeline (export.h). Viewers slow down beyond ~1e6 events: use --from/--to
 * and --region to cut the file (docs/report.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"

typedef struct open_region {
	uint32_t region;
	int emitted; /* a B event for it is in the output */
} open_region;

/* Consecutive samples of a thread with one stack, written as one slice. */
typedef struct sample_run {
	int on;
	uint32_t stack;
	const char *stack_str;
	double t0, t_last;
	unsigned long n;
	unsigned long long cpu_ns;
} sample_run;

typedef struct chrome_state {
	export_ctx *c;
	util_buf *out;
	export_stats *st;
	long pid, tid;
	size_t proc;
	open_region *stack;
	size_t depth, cap;
	int active;
	int first_event;
	util_buf scratch;
	export_map stack_strings; /* (proc, stack) -> index + 1 into strings */
	char **strings;
	size_t nstrings, capstrings;
	sample_run run;
	double period_ns; /* the process' sampling period in ns (0: not a timer) */
	size_t limit;     /* output length at which the current thread is cut (0: none) */
	int cut;          /* the current thread is cut: nothing new is written for it */
	int any_cut;
} chrome_state;

/* Past the size limit the current thread is cut: nothing new is written
 * for it (what is open still closes, so B/E stay balanced). */
static int over_limit(chrome_state *s, double t_ns)
{
	if (s->cut)
		return 1;
	if (!s->limit || s->out->len < s->limit)
		return 0;
	s->cut = 1;
	if (!s->any_cut || t_ns / 1e9 < s->st->cut_s)
		s->st->cut_s = t_ns / 1e9;
	s->any_cut = 1;
	return 1;
}

static void event_head(chrome_state *s, const char *name, const char *cat, const char *ph, double t_ns)
{
	util_buf_puts(s->out, s->first_event ? "\n" : ",\n");
	s->first_event = 0;
	util_buf_puts(s->out, "{\"name\":");
	report_esc_json(s->out, name);
	util_buf_printf(s->out, ",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":%.3f,\"pid\":%ld,\"tid\":%ld", cat, ph,
	                t_ns / 1e3, s->pid, s->tid);
}

static void emit_begin(chrome_state *s, open_region *o, double t_ns, int clipped)
{
	if (over_limit(s, t_ns)) {
		o->emitted = 0;
		s->st->regions_dropped++;
		return;
	}
	const char *name = fold_export_region_name(s->c->x, s->proc, o->region);
	event_head(s, name, "region", "B", t_ns);
	util_buf_puts(s->out, clipped ? ",\"args\":{\"clipped\":true}}" : "}");
	o->emitted = 1;
	s->st->events++;
}

static void emit_end(chrome_state *s, open_region *o, double t_ns)
{
	event_head(s, fold_export_region_name(s->c->x, s->proc, o->region), "region", "E", t_ns);
	util_buf_puts(s->out, "}");
	o->emitted = 0;
	s->st->events++;
}

/* Output starts: open every region already entered, outermost first. */
static void activate(chrome_state *s, double t_ns)
{
	if (s->active)
		return;
	s->active = 1;
	for (size_t i = 0; i < s->depth; i++)
		if (!s->stack[i].emitted)
			emit_begin(s, &s->stack[i], t_ns, 1);
}

static void flush_run(chrome_state *s, double t_end);

/* Output stops: close what is open, innermost first. */
static void deactivate(chrome_state *s, double t_ns)
{
	if (!s->active)
		return;
	if (s->c->opt->to_s >= 0 && t_ns > s->c->opt->to_s * 1e9)
		t_ns = s->c->opt->to_s * 1e9;
	flush_run(s, t_ns);
	s->active = 0;
	for (size_t i = s->depth; i-- > 0;)
		if (s->stack[i].emitted)
			emit_end(s, &s->stack[i], t_ns);
}

static int region_matches(const chrome_state *s, uint32_t region)
{
	return fold_export_region_selected(s->c->x, s->proc, region);
}

static int filter_depth(const chrome_state *s)
{
	int d = 0;
	for (size_t i = 0; i < s->depth; i++)
		d += region_matches(s, s->stack[i].region);
	return d;
}

/* Should output be on at time t with the current stack? */
static int wanted(const chrome_state *s, double t_ns)
{
	if (!fold_export_in_window(s->c->x, t_ns))
		return 0;
	return !s->c->opt->region || filter_depth(s) > 0;
}

static const char *stack_string(chrome_state *s, uint32_t stack)
{
	int added;
	uint64_t *v = export_map_get(&s->stack_strings, s->proc, stack, 0, &added);
	if (!v)
		return NULL;
	if (added) {
		if (util_grow((void **)&s->strings, &s->capstrings, s->nstrings + 1, sizeof *s->strings))
			return NULL;
		util_buf b;
		util_buf_init(&b);
		if (export_stack_string(s->c, s->proc, stack, &b, ';') || b.oom || !b.data) {
			util_buf_free(&b);
			return NULL;
		}
		s->strings[s->nstrings] = b.data;
		*v = ++s->nstrings;
	}
	return s->strings[*v - 1];
}

/* Writes the pending run of samples as one complete slice from its first
 * sample to t_end: the next sample, region event or cut, but at most one
 * sampling period (or the run's mean gap) after its last sample. */
static void flush_run(chrome_state *s, double t_end)
{
	sample_run *r = &s->run;
	if (!r->on)
		return;
	r->on = 0;
	double gap = s->period_ns > 0 ? s->period_ns
	             : r->n > 1       ? (r->t_last - r->t0) / (double)(r->n - 1)
	                              : 0;
	double end = t_end < r->t_last + gap ? t_end : r->t_last + gap;
	if (s->c->opt->to_s >= 0 && end > s->c->opt->to_s * 1e9)
		end = s->c->opt->to_s * 1e9;
	if (end < r->t_last)
		end = r->t_last;
	if (over_limit(s, r->t0)) {
		s->st->samples_dropped += r->n;
		return;
	}
	event_head(s, export_stack_leaf(s->c, s->proc, r->stack), "sample", "X", r->t0);
	util_buf_printf(s->out, ",\"dur\":%.3f,\"args\":{\"stack\":", (end - r->t0) / 1e3);
	report_esc_json(s->out, r->stack_str);
	util_buf_printf(s->out, ",\"samples\":%lu,\"cpu_ns\":%llu}}", r->n, r->cpu_ns);
	s->st->samples += r->n;
	s->st->slices++;
}

/* Samples extend the pending run while their symbolised stack (function
 * names, as written) is the same: the interrupted addresses differ from
 * sample to sample, the functions mostly do not. */
static int emit_sample(chrome_state *s, const fold_export_sample *smp, double t_ns)
{
	sample_run *r = &s->run;
	const char *stack = stack_string(s, smp->stack);
	if (!stack)
		return -ENOMEM;
	if (r->on && (r->stack == smp->stack || !strcmp(r->stack_str, stack))) {
		r->n++;
		r->cpu_ns += smp->cpu_ns;
		r->t_last = t_ns;
		return 0;
	}
	flush_run(s, t_ns);
	*r = (sample_run){1, smp->stack, stack, t_ns, t_ns, 1, smp->cpu_ns};
	return 0;
}

static int push(chrome_state *s, uint32_t region)
{
	if (util_grow((void **)&s->stack, &s->cap, s->depth + 1, sizeof *s->stack))
		return -ENOMEM;
	s->stack[s->depth++] = (open_region){region, 0};
	return 0;
}

static int on_enter(chrome_state *s, uint32_t region, double t_ns)
{
	flush_run(s, t_ns); /* a slice never crosses a region boundary */
	if (push(s, region))
		return -ENOMEM;
	if (wanted(s, t_ns)) {
		open_region *top = &s->stack[s->depth - 1];
		top->emitted = 1; /* opened below, not as clipped */
		activate(s, t_ns);
		emit_begin(s, top, t_ns, 0);
	} else if (s->active) {
		deactivate(s, t_ns);
	}
	return 0;
}

static void on_exit_event(chrome_state *s, uint32_t region, double t_ns)
{
	size_t i = s->depth;
	while (i > 0 && s->stack[i - 1].region != region)
		i--;
	if (i == 0)
		return; /* exit without enter */
	if (s->active && !fold_export_in_window(s->c->x, t_ns))
		deactivate(s, t_ns); /* the window ended before this exit */
	flush_run(s, t_ns);          /* a slice never crosses a region boundary */
	/* Close the matching region and anything left open inside it. */
	while (s->depth >= i) {
		open_region *o = &s->stack[s->depth - 1];
		if (o->emitted)
			emit_end(s, o, t_ns);
		s->depth--;
	}
	if (s->active && !wanted(s, t_ns))
		deactivate(s, t_ns);
}

static int on_item(void *arg, const fold_export_item *it)
{
	chrome_state *s = arg;
	switch (it->kind) {
	case FOLD_EXPORT_ENTER: return on_enter(s, it->region, it->t_ns);
	case FOLD_EXPORT_EXIT: on_exit_event(s, it->region, it->t_ns); return 0;
	case FOLD_EXPORT_SAMPLE:
		if (wanted(s, it->t_ns)) {
			activate(s, it->t_ns);
			if (s->c->opt->with_samples && emit_sample(s, &it->sample, it->t_ns))
				return -ENOMEM;
		} else if (s->active) {
			deactivate(s, it->t_ns);
		}
		return 0;
	}
	return 0;
}

/* A thread's regions and samples; it ends with regions open (crash, exit
 * inside a region): close them there. */
static int thread_events(chrome_state *s, size_t t, double end_ns)
{
	s->depth = 0;
	s->active = 0;
	s->cut = 0;
	s->run.on = 0;
	int rc = fold_export_thread_each(s->c->x, s->proc, t, on_item, s);
	if (!rc)
		deactivate(s, end_ns);
	return rc;
}

int export_chrome(export_ctx *c, util_buf *out, export_stats *st, char *err, size_t errlen)
{
	chrome_state s;
	memset(&s, 0, sizeof s);
	s.c = c;
	s.out = out;
	s.st = st;
	s.first_event = 1;
	int rc = 0;
	util_buf_puts(out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"generator\":\"fold export\"},"
	                   "\"traceEvents\":[");
	/* The size limit is shared out over the threads by their records: each
	 * keeps its beginning, and what one leaves unused goes to the next. */
	size_t total_items = 0, items = 0;
	for (size_t p = 0; p < fold_export_nprocs(c->x); p++)
		for (size_t ti = 0; ti < fold_export_nthreads(c->x, p); ti++) {
			fold_export_thread th;
			fold_export_thread_get(c->x, p, ti, &th);
			total_items += th.nitems;
		}
	for (size_t p = 0; p < fold_export_nprocs(c->x) && !rc; p++) {
		const fold_facts *f = fold_export_facts(c->x, p);
		const char *host = f->host, *exe = f->exe;
		s.proc = p;
		s.pid = f->pid >= 0 ? f->pid : (long)p + 1;
		/* a timer's period (wall or CPU time) bounds a run's last slice; an
		 * overflow's counts events, so the run's mean gap does */
		s.period_ns = fold_sampling_period_ns(&f->sampling);
		s.tid = 0;
		util_buf name;
		util_buf_init(&name);
		if (f->rank >= 0)
			util_buf_printf(&name, "rank %ld ", f->rank);
		util_buf_printf(&name, "%s",
		                exe ? (strrchr(exe, '/') ? strrchr(exe, '/') + 1 : exe) : "process");
		util_buf_printf(&name, " (pid %ld%s%s)", s.pid, host ? " on " : "", host ? host : "");
		event_head(&s, "process_name", "__metadata", "M", 0);
		util_buf_puts(out, ",\"args\":{\"name\":");
		report_esc_json(out, name.data);
		util_buf_puts(out, "}}");
		util_buf_free(&name);
		for (size_t ti = 0; ti < fold_export_nthreads(c->x, p) && !rc; ti++) {
			fold_export_thread thread, *th = &thread;
			fold_export_thread_get(c->x, p, ti, th);
			s.tid = th->os_tid ? (long)th->os_tid : (long)th->stream;
			event_head(&s, "thread_name", "__metadata", "M", 0);
			util_buf_puts(out, ",\"args\":{\"name\":");
			/* numbered as the reports number threads (main thread #0) */
			util_buf tn;
			util_buf_init(&tn);
			if (th->name && *th->name)
				util_buf_printf(&tn, "%s (thread #%u)", th->name, th->number);
			else
				util_buf_printf(&tn, "thread #%u", th->number);
			report_esc_json(out, tn.oom ? "thread" : tn.data);
			util_buf_free(&tn);
			util_buf_puts(out, "}}");
			event_head(&s, "thread_sort_index", "__metadata", "M", 0);
			util_buf_printf(out, ",\"args\":{\"sort_index\":%u}}", th->number);
			items += th->nitems;
			s.limit = c->max_size && total_items
			              ? (size_t)((double)c->max_size * (double)items / (double)total_items)
			              : 0;
			if (s.limit == 0 && c->max_size)
				s.limit = 1; /* a thread without records gets nothing */
			rc = thread_events(&s, ti, th->end_ns);
		}
	}
	util_buf_puts(out, "\n]}\n");
	if (!rc && out->oom)
		rc = -ENOMEM;
	if (rc)
		snprintf(err, errlen, "chrome export: %s", strerror(-rc));
	for (size_t i = 0; i < s.nstrings; i++)
		free(s.strings[i]);
	free(s.strings);
	free(s.stack);
	export_map_free(&s.stack_strings);
	return rc;
}
