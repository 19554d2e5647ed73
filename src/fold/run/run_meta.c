/* run_meta.c: the run's metadata in the analysis: one fold_process per
 * trace (INFO, STAT, salvage messages, rank, duration, and warnings for
 * dropped samples, damage and a missing clock), the sampling configuration,
 * and the counters and missing counters of every process, once per name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze_ctx.h"

/* "wall-clock timer every 10 ms, jitter 10%", "CPU-time timer every 1 ms",
 * "PAPI_TOT_CYC every 2000000 events", "off": the sampling a user set, with
 * units; NULL for an unknown mode (the trace does not say). */
char *analyze__sampling_text(const fold_sampling *s)
{
	char period[64] = "", jitter[48] = "";
	double p = s->period;
	int timer = s->mode == FOLD_SAMPLING_WALL_TIMER || s->mode == FOLD_SAMPLING_CPU_TIMER;
	if (s->mode == FOLD_SAMPLING_UNKNOWN)
		return NULL;
	if (s->mode == FOLD_SAMPLING_OFF)
		return util_strdup("off");
	if (p > 0 && timer) {
		/* The period of a timer is in nanoseconds. */
		if (p >= 1e9)
			snprintf(period, sizeof period, " every %.3g s", p / 1e9);
		else if (p >= 1e6)
			snprintf(period, sizeof period, " every %.3g ms", p / 1e6);
		else if (p >= 1e3)
			snprintf(period, sizeof period, " every %.3g us", p / 1e3);
		else
			snprintf(period, sizeof period, " every %.0f ns", p);
	} else if (p > 0) {
		snprintf(period, sizeof period, " every %.0f events", p);
	}
	if (s->jitter > 0)
		snprintf(jitter, sizeof jitter, ", jitter %.3g%%", 100 * s->jitter);
	if (timer)
		return util_asprintf(
		    "%s%s%s", s->mode == FOLD_SAMPLING_CPU_TIMER ? "CPU-time timer" : "wall-clock timer",
		    period, jitter);
	return util_asprintf("%s%s%s", s->event && *s->event ? s->event : s->source, period, jitter);
}

const fold_sampling *analyze__run_sampling(const analyze_ctx *c)
{
	for (size_t i = 0; i < c->ntr; i++)
		if (c->tr[i]->facts.sampling.mode != FOLD_SAMPLING_UNKNOWN)
			return &c->tr[i]->facts.sampling;
	return NULL;
}

/* p: the copy of trace t's records (info, stats, salvage messages) and
 * facts. 0 or -ENOMEM. */
static int copy_process(const ingest__trace *t, fold_process *p)
{
	p->trace_path = util_strdup(t->path);
	p->info = calloc(t->ninfo + 1, sizeof *p->info);
	p->stats = calloc(t->nstats + 1, sizeof *p->stats);
	p->salvage_messages = calloc(t->nsalvage + 1, sizeof *p->salvage_messages);
	if (!p->trace_path || !p->info || !p->stats || !p->salvage_messages)
		return -ENOMEM;
	for (size_t k = 0; k < t->ninfo; k++) {
		p->info[k].key = util_strdup(t->info[k].key);
		p->info[k].value = util_strdup(t->info[k].value);
		p->ninfo++;
	}
	for (size_t k = 0; k < t->nstats; k++) {
		p->stats[k].key = util_strdup(t->stats[k].key);
		p->stats[k].value = util_asprintf("%llu", (unsigned long long)t->stats[k].value);
		p->nstats++;
	}
	for (size_t k = 0; k < t->nsalvage; k++)
		p->salvage_messages[p->nsalvage++] = util_strdup(t->salvage[k]);
	/* host/exe/cmdline point into info: the copies of the trace's
	 * records its facts point to (the last value of each key). */
	for (size_t k = 0; k < p->ninfo; k++) {
		const char *v = t->info[k].value;
		if (v == t->facts.host)
			p->host = p->info[k].value;
		if (v == t->facts.exe)
			p->exe = p->info[k].value;
		if (v == t->facts.cmdline)
			p->cmdline = p->info[k].value;
	}
	p->pid = t->facts.pid;
	p->rank = t->facts.rank;
	p->size = t->facts.size;
	p->nthreads = (unsigned)t->nthreads;
	p->duration_ns = ingest__tick_ns(t, t->max_tick);
	if (p->duration_ns < 0)
		p->duration_ns = 0;
	return 0;
}

/* How process i (p, from trace c->tr[i]) ended, and the diagnostics of what
 * its trace lost or lacks. */
static void note_process_end(analyze_ctx *c, size_t i, fold_process *p)
{
	const ingest__trace *t = c->tr[i];
	fold_diag_subject ps = analyze__subject_process(c, i);
	for (size_t k = 0; k < t->nstats; k++)
		if (!strncmp(t->stats[k].key, "samples.dropped.", 16) && t->stats[k].value)
			analyze__diag(c, FOLD_DIAG_SAMPLES_DROPPED, &ps,
			              ANALYZE_VALUES({"samples", "count", (double)t->stats[k].value}),
			              t->stats[k].key + 16, "%s: %llu samples dropped (%s)", t->path,
			              (unsigned long long)t->stats[k].value, t->stats[k].key + 16);
	uint64_t sv;
	if (ingest__trace_stat(t, "regions.events_lost", &sv) && sv)
		analyze__diag(c, FOLD_DIAG_REGION_EVENTS_LOST, &ps,
		              ANALYZE_VALUES({"events", "count", (double)sv}), NULL,
		              "%s: %llu API region event(s) lost while the runtime was stopped for a "
		              "moment (another thread's fork or exec, or no free buffer): instances "
		              "wholly inside the stop are missing, the others are kept balanced",
		              t->path, (unsigned long long)sv);
	/* The runtime writes these statistics in its final flush (and the
	 * crash path "threads" and "exit.signal"): without them the process
	 * never got there. */
	if (ingest__trace_stat(t, "exit.signal", &sv)) {
		p->end = FOLD_END_SIGNAL;
		p->end_signal = (int)sv;
	} else if (!ingest__trace_stat(t, "threads", &sv)) {
		p->end = FOLD_END_CUT;
		p->chunks_recovered = t->rstats.chunks_recovered;
		if (p->chunks_recovered)
			analyze__diag(c, FOLD_DIAG_CUT_RECOVERED, &ps,
			              ANALYZE_VALUES({"chunks", "count", (double)p->chunks_recovered}), NULL,
			              "%s: the process ended without fold's final flush (killed, by "
			              "SIGKILL or the OOM killer, or an exit through the exit_group "
			              "system call, as Go programs exit); what it recorded up to its end "
			              "was recovered from its live file (%llu chunk(s))",
			              t->path, (unsigned long long)p->chunks_recovered);
		else
			analyze__diag(c, FOLD_DIAG_CUT, &ps, NULL, NULL,
			              "%s: the run was cut: no end records (the process ended before "
			              "fold's final "
			              "flush: killed, by SIGKILL or the OOM killer, or an exit "
			              "through the exit_group "
			              "system call) and left no live file; it holds what was flushed "
			              "until then "
			              "(FOLD_FLUSH_INTERVAL)",
			              t->path);
	}
	if (ingest__trace_stat(t, "chunks.lost", &sv) && sv) {
		uint64_t ls = 0;
		ingest__trace_stat(t, "samples.lost_writing", &ls);
		analyze__diag(
		    c, FOLD_DIAG_CHUNKS_LOST, &ps,
		    ANALYZE_VALUES({"chunks", "count", (double)sv}, {"samples", "count", (double)ls}), NULL,
		    "%s: %llu chunk(s) with %llu samples could not be written (disk full "
		    "or write error)",
		    t->path, (unsigned long long)sv, (unsigned long long)ls);
	}
	if (t->nsalvage)
		analyze__diag(c, FOLD_DIAG_TRACE_DAMAGED, &ps,
		              ANALYZE_VALUES({"problems", "count", (double)t->nsalvage}), NULL,
		              "%s: the trace was damaged; %zu problem(s) while reading it (see the run "
		              "section)",
		              t->path, t->nsalvage);
	if (t->nclock < 2 && !(t->facts.tick_hz > 0) && t->nthreads)
		analyze__diag(c, FOLD_DIAG_CLOCK_UNKNOWN, &ps, NULL, NULL,
		              "%s: fewer than two CLOCK records and no clock.tick_hz; ticks taken as "
		              "nanoseconds",
		              t->path);
}

int analyze__fill_processes(analyze_ctx *c)
{
	fold_analysis *a = c->a;
	a->procs = calloc(c->ntr, sizeof *a->procs);
	if (!a->procs)
		return -ENOMEM;
	a->nprocs = c->ntr;
	for (size_t i = 0; i < c->ntr; i++) {
		const ingest__trace *t = c->tr[i];
		fold_process *p = &a->procs[i];
		if (copy_process(t, p))
			return -ENOMEM;
		note_process_end(c, i, p);
	}
	/* Images a later exec replaced: the same host and pid one generation
	 * on. The pids are compared first: a run of thousands of ranks has
	 * millions of pairs, and almost none share a pid. */
	for (size_t i = 0; i < c->ntr; i++)
		for (size_t k = 0; k < c->ntr; k++) {
			const fold_process *pi = &a->procs[i], *pk = &a->procs[k];
			if (k == i || pi->pid < 0 || pi->pid != pk->pid ||
			    (pi->host && pk->host && strcmp(pi->host, pk->host)))
				continue;
			long gi = c->tr[i]->facts.exec_generation, gk = c->tr[k]->facts.exec_generation;
			if (gi >= 0 && gk == gi + 1)
				a->procs[i].exec_replaced = 1;
		}
	/* Sampling configuration, from the first trace that says. */
	const fold_sampling *s = analyze__run_sampling(c);
	if (s && !(a->sample_config = analyze__sampling_text(s)))
		return -ENOMEM;
	return 0;
}

int analyze__check_recovered(const analyze_ctx *c, char *err, size_t errlen)
{
	size_t records = 0;
	for (size_t i = 0; i < c->ntr; i++) {
		if (c->a->procs[i].end != FOLD_END_CUT)
			return 0;
		for (size_t th = 0; th < c->tr[i]->nthreads; th++)
			records += c->tr[i]->threads[th].nsmp + c->tr[i]->threads[th].nev;
	}
	if (records)
		return 0;
	snprintf(err, errlen,
	         "%s%s: nothing to analyse: the run was cut (no end records) before any sample or region "
	         "event was written (a process killed within FOLD_FLUSH_INTERVAL, 1s by default, of its "
	         "start keeps only its header)",
	         c->ntr > 1 ? "every trace, e.g. " : "", c->tr[0]->path);
	return -ENODATA;
}

typedef struct name_probe {
	const fold_analysis *a;
	const char *name;
	int missing;
} name_probe;

static int same_counter_name(const void *arg, size_t k)
{
	const name_probe *q = arg;
	return !strcmp(q->missing ? q->a->missing[k].name : q->a->counters[k].name, q->name);
}

/* The run's counter of this name: its index in a->counters, added when
 * new (-ENOSPC beyond FOLD__MAX_COUNTERS), or a negative errno. */
static long counter_index(analyze_ctx *c, util_hmap *by_name, size_t *cap, const ingest__counter_def *d)
{
	fold_analysis *a = c->a;
	name_probe q = {a, d->name, 0};
	uint64_t h = util_hash_str(d->name);
	const size_t *k = util_hmap_find(by_name, h, same_counter_name, &q);
	if (k)
		return (long)*k;
	if (a->ncounters >= FOLD__MAX_COUNTERS)
		return -ENOSPC;
	if (util_grow((void **)&a->counters, cap, a->ncounters + 1, sizeof *a->counters) ||
	    util_hmap_insert(by_name, h, a->ncounters))
		return -ENOMEM;
	a->counters[a->ncounters].name = util_strdup(d->name);
	a->counters[a->ncounters].kind = d->kind;
	if (!a->counters[a->ncounters].name)
		return -ENOMEM;
	return (long)a->ncounters++;
}

/* The counters the traces carry (in a counter set: a definition alone
 * carries no value), one per name, at most FOLD__MAX_COUNTERS (the runtime
 * records at most TRACE_MAX_COUNTERS per process; more is a damaged or
 * hand-made trace, and each is folded in every region). */
static int same_used_id(const void *arg, size_t id)
{
	return *(const uint32_t *)arg == (uint32_t)id;
}

static int fill_used_counters(analyze_ctx *c, util_hmap *by_name)
{
	size_t cap = 0, dropped = 0;
	util_hmap used = {0};
	int rc = 0;
	for (size_t i = 0; i < c->ntr && !rc; i++) {
		const ingest__trace *t = c->tr[i];
		util_hmap_clear(&used);
		for (size_t s = 1; s < t->ncsets && !rc; s++)
			for (unsigned j = 0; j < t->csets[s].n && !rc; j++) {
				uint32_t id = t->csets[s].ids[j];
				if (!util_hmap_find(&used, util_hash_mix(id, 1), same_used_id, &id))
					rc = util_hmap_insert(&used, util_hash_mix(id, 1), id);
			}
		/* in the order of their definitions */
		for (size_t j = 0; j < t->nctr && !rc; j++) {
			const ingest__counter_def *d = &t->ctr[j];
			if (!util_hmap_find(&used, util_hash_mix(d->id, 1), same_used_id, &d->id))
				continue;
			long k = counter_index(c, by_name, &cap, d);
			if (k == -ENOSPC)
				dropped++;
			else if (k < 0)
				rc = (int)k;
		}
	}
	util_hmap_free(&used);
	if (rc)
		return rc;
	if (dropped)
		analyze__diag(c, FOLD_DIAG_COUNTERS_DROPPED, NULL,
		              ANALYZE_VALUES({"counters", "count", (double)dropped},
		                             {"limit", "count", FOLD__MAX_COUNTERS},
		                             {"per_process", "count", TRACE_MAX_COUNTERS}),
		              NULL,
		              "the traces carry %zu counters beyond the first %d, which are all the analysis "
		              "folds (a process records at most %d): those are not analysed",
		              dropped, FOLD__MAX_COUNTERS, TRACE_MAX_COUNTERS);
	c->ctr_ids = malloc((c->c_ncounters = c->a->ncounters) * c->ntr * sizeof *c->ctr_ids + 1);
	if (!c->ctr_ids)
		return -ENOMEM;
	for (size_t k = 0; k < c->a->ncounters * c->ntr; k++)
		c->ctr_ids[k] = -1;
	for (size_t i = 0; i < c->ntr; i++)
		for (size_t j = 0; j < c->tr[i]->nctr; j++) {
			const ingest__counter_def *d = &c->tr[i]->ctr[j];
			name_probe q = {c->a, d->name, 0};
			const size_t *k =
			    util_hmap_find(by_name, util_hash_str(d->name), same_counter_name, &q);
			if (k)
				c->ctr_ids[*k * c->ntr + i] = d->id;
		}
	return 0;
}

int analyze__fill_counters(analyze_ctx *c)
{
	fold_analysis *a = c->a;
	util_hmap by_name = {0}, missing_by_name = {0};
	size_t capm = 0;
	int rc = fill_used_counters(c, &by_name);
	for (size_t i = 0; i < c->ntr && !rc; i++) {
		const ingest__trace *t = c->tr[i];
		for (size_t k = 0; k < t->nmissing && !rc; k++) {
			name_probe q = {a, t->missing[k].key, 1};
			uint64_t h = util_hash_str(q.name);
			if (util_hmap_find(&missing_by_name, h, same_counter_name, &q))
				continue;
			if (util_grow((void **)&a->missing, &capm, a->nmissing + 1, sizeof *a->missing) ||
			    util_hmap_insert(&missing_by_name, h, a->nmissing)) {
				rc = -ENOMEM;
				break;
			}
			a->missing[a->nmissing].name = util_strdup(t->missing[k].key);
			a->missing[a->nmissing].reason = util_strdup(t->missing[k].value);
			a->nmissing++;
		}
	}
	util_hmap_free(&by_name);
	util_hmap_free(&missing_by_name);
	return rc;
}
