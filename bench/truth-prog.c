/* truth-prog.c: the real-run half of the randomized truth bench (issue 30).
 *
 * A program that draws a region structure from a seed, runs it as region
 * "truth" with an app counter "work", and records its own truth at every
 * phase boundary: CLOCK_MONOTONIC, the counter and its thread's CPU time.
 * bench/truth-run.sh runs it under foldrun and bench/truth_check.py compares
 * fold's JSON with the truth it writes.
 *
 * Drawn from the seed (scenario_draw): 1-4 phases with random shares; each
 * phase computes (spins, counting "work" at 1-16 events per microsecond of
 * its own work) or waits (sleeps to an absolute deadline: CPU about 0, no
 * events); instances of 50 us to 100 ms, log-uniform, back to back for
 * 1-3 s (at least 30 instances); sometimes boundaries that jitter from
 * instance to instance (up to +-10% of the instance), sometimes a second
 * population of instances (every other one, or a random share) whose
 * compute phases count 2-4 times faster or slower for the same time; and
 * the sampling period the harness should use (1-5 ms or fold's default).
 *
 * What fold measures, the program measures: fold takes its samples' cost
 * out of an instance (the time a sample stopped the program) and keeps the
 * time the program did not run for other reasons (preemption by other
 * processes, the host's stops of the VM: the program's time, issue 30). A
 * compute phase lasts a fixed amount of its own work, as real code does: a
 * step of its loop (one clock read) that took longer than GAP_NS was an
 * interruption. The thread's CPU clock tells its on-CPU part (a sample's
 * delivery and handler, or a stop of the host's, which the guest counts as
 * running) from its off-CPU part (preempted), and the thread's read(2)
 * count (syscr in /proc/thread-self/io) tells a sample (fold's handler
 * reads its counters) from the host's stops. Each phase records its wall
 * time, its "program time" (wall time less the on-CPU part of the
 * interruptions that held a sample), its events and its CPU time less that
 * part. A wait phase's time is its wall time: a sample during a sleep does
 * not move its deadline. The region's total by the program's own timer is
 * the plain wall time between fold_enter's return and fold_exit's call, as
 * an application's timer sees it. Without /proc/thread-self/io every
 * on-CPU interruption counts as a sample ("samples_told_apart": false).
 *
 * Output (--out, default truth.json): the scenario, per-phase aggregates
 * (all instances, and per population) and one row per instance with its
 * per-phase figures; truth_check.py derives positions and rates from the
 * rows (docs/validation.md, "The randomized truth bench on real runs").
 *
 * Usage: truth-prog --seed S [--out FILE] [--seconds T] [--describe]
 *   --seconds T  run for about T s instead of the drawn 1-3 s (>= 30
 *                instances still); --describe prints the scenario and exits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <fold.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#define MAX_PHASES 4
#define MIN_INSTANCES 30
/* A loop step (a clock read and a thread-local add, tens of ns) longer
 * than this was an interruption (unless the probe's reads are slower:
 * probe_calibrate). */
#define GAP_NS 8000
/* A wait phase sleeps; shorter than this, a sleep's wake-up latency (tens
 * of us on a VM) would be most of it. */
#define MIN_WAIT_NS 500000.0

struct phase_spec {
	int wait;      /* 1: sleeps, 0: computes */
	double share;  /* nominal share of the instance */
	double per_us; /* events per us of work (population A) */
};

struct scenario {
	uint64_t seed;
	int nphases;
	struct phase_spec ph[MAX_PHASES];
	double inst_ns; /* nominal instance length */
	long ninst;
	double seconds;
	double jitter;    /* boundary jitter amplitude, share of the instance */
	const char *pop;  /* "none", "alternate", "random" */
	double pop_share; /* share of instances in population B */
	double pop_scale; /* B's compute rates over A's */
	int sample_ms;    /* 0: fold's default */
};

/* splitmix64: small, seedable, the same sequence everywhere. */
static uint64_t rng_next(uint64_t *s)
{
	uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static double rng_unit(uint64_t *s)
{
	return (double)(rng_next(s) >> 11) * 0x1.0p-53;
}

static double rng_range(uint64_t *s, double lo, double hi)
{
	return lo + (hi - lo) * rng_unit(s);
}

static double rng_logrange(uint64_t *s, double lo, double hi)
{
	return exp(rng_range(s, log(lo), log(hi)));
}

/* Compute phases at 1-16 events/us, each at least 1.6x from its compute
 * neighbour (a rate step fold can see); waits only where long enough, never
 * two in a row, never all of the instance. */
static void draw_phases(struct scenario *sc, uint64_t *rng)
{
	double sum = 0;
	for (int k = 0; k < sc->nphases; k++)
		sum += sc->ph[k].share = rng_range(rng, 0.15, 1.0);
	int computes = 0;
	for (int k = 0; k < sc->nphases; k++) {
		struct phase_spec *p = &sc->ph[k];
		p->share /= sum;
		int prev_wait = k > 0 && sc->ph[k - 1].wait;
		p->wait = !prev_wait && p->share * sc->inst_ns >= MIN_WAIT_NS && rng_unit(rng) < 0.3;
		if (p->wait) {
			p->per_us = 0;
			continue;
		}
		computes++;
		do
			p->per_us = rng_logrange(rng, 1.0, 16.0);
		while (k > 0 && !prev_wait && fabs(log(p->per_us / sc->ph[k - 1].per_us)) < log(1.6));
	}
	if (!computes) { /* a single wait phase: make it compute */
		sc->ph[0].wait = 0;
		sc->ph[0].per_us = rng_logrange(rng, 1.0, 16.0);
	}
}

static void scenario_draw(struct scenario *sc, uint64_t seed, double seconds)
{
	uint64_t rng = seed;
	memset(sc, 0, sizeof *sc);
	sc->seed = seed;
	sc->nphases = 1 + (int)(rng_next(&rng) % MAX_PHASES);
	sc->inst_ns = rng_logrange(&rng, 50e3, 100e6);
	sc->seconds = rng_range(&rng, 1.0, 3.0);
	if (seconds > 0)
		sc->seconds = seconds;
	draw_phases(sc, &rng);
	sc->jitter = sc->nphases > 1 && rng_unit(&rng) < 0.3 ? rng_range(&rng, 0.02, 0.10) : 0;
	double u = rng_unit(&rng);
	sc->pop = u < 0.125 ? "alternate" : u < 0.25 ? "random" : "none";
	sc->pop_share = !strcmp(sc->pop, "random")      ? rng_range(&rng, 0.3, 0.7)
	                : !strcmp(sc->pop, "alternate") ? 0.5
	                                                : 0;
	double f = rng_range(&rng, 2.0, 4.0);
	sc->pop_scale = strcmp(sc->pop, "none") ? (rng_unit(&rng) < 0.5 ? f : 1 / f) : 1;
	int s = (int)(rng_next(&rng) % 6);
	sc->sample_ms = s; /* 0: the default, else 1-5 ms */
	sc->ninst = (long)(sc->seconds * 1e9 / sc->inst_ns);
	if (sc->ninst < MIN_INSTANCES)
		sc->ninst = MIN_INSTANCES;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* One phase of one instance, as measured. */
struct phase_rec {
	uint64_t events, prog_ns, wall_ns, cpu_ns;
};

/* Interruptions seen by compute phases. */
struct gaps {
	uint64_t sample_ns; /* on the CPU in those that held a sample of fold's */
	uint64_t hidden_ns; /* on the CPU in the others (the host's stops) */
	uint64_t off_ns;    /* off the CPU (preempted) */
	uint64_t samples, count;
};

/* What the program knows of its own progress since a mark: its thread's
 * read(2) calls (syscr of /proc/thread-self/io: fold's sample handler
 * reads its counters, this program reads only that file) and CPU clock. */
struct probe {
	int io_fd;       /* -1: samples not told from other on-CPU stops */
	long reads;      /* syscr at the mark (its own read not yet counted) */
	uint64_t cpu;    /* thread CPU clock at the mark */
	uint64_t worked; /* own work since the mark */
	uint64_t gap_ns; /* a step longer than this was an interruption */
};

static long probe_reads(const struct probe *pr)
{
	char buf[512];
	if (pr->io_fd < 0)
		return -1;
	ssize_t n = pread(pr->io_fd, buf, sizeof buf - 1, 0);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	const char *p = strstr(buf, "syscr:");
	return p ? atol(p + 6) : -1;
}

/* The interruption threshold: GAP_NS, or three times what the probe's own
 * reads take where they are slower (the loop must make progress between
 * them). */
static void probe_calibrate(struct probe *pr)
{
	uint64_t best = UINT64_MAX;
	for (int i = 0; i < 20; i++) {
		uint64_t t = now_ns();
		(void)cpu_ns();
		(void)probe_reads(pr);
		uint64_t d = now_ns() - t;
		best = d < best ? d : best;
	}
	pr->gap_ns = 3 * best > GAP_NS ? 3 * best : GAP_NS;
}

static void probe_mark(struct probe *pr)
{
	pr->cpu = cpu_ns();
	pr->reads = probe_reads(pr);
	pr->worked = 0;
}

struct counter_state {
	uint32_t id;
	double owed; /* events due but not yet counted (a fraction of one) */
};

static void count_work(struct counter_state *cs, uint64_t ns, double per_ns, uint64_t *events)
{
	cs->owed += (double)ns * per_ns;
	uint64_t n = (uint64_t)cs->owed;
	cs->owed -= (double)n;
	if (n) {
		fold_count(cs->id, n);
		*events += n;
	}
}

/* One interruption of `dt` ns that ended just now: its on-CPU part is the
 * CPU time beyond the work since the mark; it held a sample when the
 * thread's reads grew by more than the probe's own. Marks anew and returns
 * the time of the mark: the probe's reads come after it, in the loop's
 * next step (a preemption at their return is an interruption too). */
static uint64_t gap_account(struct probe *pr, uint64_t dt, struct gaps *g)
{
	uint64_t t_mark = now_ns(), c = cpu_ns(), ran = c - pr->cpu;
	long reads = probe_reads(pr);
	uint64_t on = ran > pr->worked ? ran - pr->worked : 0;
	if (on > dt)
		on = dt;
	int sample = reads < 0 || pr->reads < 0 || reads - pr->reads > 1;
	if (sample) {
		g->sample_ns += on;
		g->samples++;
	} else {
		g->hidden_ns += on;
	}
	g->off_ns += dt - on;
	g->count++;
	pr->reads = reads;
	pr->cpu = c;
	pr->worked = 0;
	return t_mark;
}

/* Computes for `work_ns` of the program's own work from `t0`, counting
 * `per_us` events per us of it (into *events). A step longer than
 * pr->gap_ns is an interruption, not work: it goes to *g. Returns the end
 * time. */
static uint64_t compute(struct counter_state *cs, struct probe *pr, uint64_t t0, uint64_t work_ns,
                        double per_us, struct gaps *g, uint64_t *events)
{
	uint64_t last = t0, worked = 0;
	double per_ns = per_us / 1000.0;
	while (worked < work_ns) {
		uint64_t t = now_ns(), dt = t - last;
		if (dt > pr->gap_ns) {
			last = gap_account(pr, dt, g);
			continue;
		}
		last = t;
		pr->worked += dt;
		worked += dt;
		count_work(cs, dt, per_ns, events);
	}
	return last;
}

/* Sleeps until `deadline` (absolute CLOCK_MONOTONIC); a signal (a sample)
 * does not move it. */
static uint64_t wait_until(uint64_t deadline)
{
	struct timespec ts = {(time_t)(deadline / 1000000000ull), (long)(deadline % 1000000000ull)};
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return now_ns();
}

/* This instance's phase lengths: the nominal shares with each inner
 * boundary moved by up to +-jitter of the instance, each phase keeping at
 * least 40% of its nominal length. */
static void instance_lengths(const struct scenario *sc, uint64_t *rng, double *len)
{
	double b[MAX_PHASES + 1], acc = 0;
	b[0] = 0;
	for (int k = 0; k < sc->nphases; k++)
		b[k + 1] = acc += sc->ph[k].share;
	b[sc->nphases] = 1;
	for (int k = 1; k < sc->nphases && sc->jitter > 0; k++) {
		double lo = b[k - 1] + 0.4 * sc->ph[k - 1].share;
		double hi = b[k] + 0.6 * sc->ph[k].share;
		double v = b[k] + rng_range(rng, -sc->jitter, sc->jitter);
		b[k] = v < lo ? lo : v > hi ? hi : v;
	}
	for (int k = 0; k < sc->nphases; k++)
		len[k] = (b[k + 1] - b[k]) * sc->inst_ns;
}

struct run_totals {
	struct gaps gaps;
	int samples_told;                   /* 1: samples told apart by the thread's reads */
	uint64_t gap_ns;                    /* the probe's interruption threshold */
	uint64_t timer_ns;                  /* the program's own timer over all instances */
	uint64_t compute_wall, compute_cpu; /* for the CPU share it got */
	uint64_t wall_ns;                   /* first enter to last exit */
};

/* Runs instance `i`, filling its rows of `rec` (nphases each). Returns its
 * population (0 A, 1 B). */
static int run_instance(const struct scenario *sc, long i, uint64_t *rng, struct counter_state *cs,
                        struct probe *pr, uint32_t region, struct phase_rec *rec, struct run_totals *tot)
{
	double len[MAX_PHASES];
	instance_lengths(sc, rng, len);
	int pop = !strcmp(sc->pop, "alternate") ? (int)(i & 1)
	          : !strcmp(sc->pop, "random")  ? rng_unit(rng) < sc->pop_share
	                                        : 0;
	fold_enter(region);
	uint64_t t = now_ns(), c = cpu_ns(), t_enter = t;
	for (int k = 0; k < sc->nphases; k++) {
		const struct phase_spec *p = &sc->ph[k];
		struct gaps g = {0, 0, 0, 0, 0};
		uint64_t events = 0, t_end;
		if (p->wait) {
			t_end = wait_until(t + (uint64_t)len[k]);
		} else {
			/* fold's hooks and a wait's samples read too: mark after them */
			if (k == 0 || sc->ph[k - 1].wait)
				probe_mark(pr);
			t_end = compute(cs, pr, t, (uint64_t)len[k], p->per_us * (pop ? sc->pop_scale : 1.0),
			                &g, &events);
		}
		uint64_t c_end = cpu_ns();
		struct phase_rec *r = &rec[k];
		r->events = events;
		r->wall_ns = t_end - t;
		r->prog_ns = r->wall_ns - g.sample_ns;
		r->cpu_ns = c_end - c > g.sample_ns ? c_end - c - g.sample_ns : 0;
		if (!p->wait) {
			tot->compute_wall += r->wall_ns;
			tot->compute_cpu += c_end - c;
		}
		tot->gaps.sample_ns += g.sample_ns;
		tot->gaps.hidden_ns += g.hidden_ns;
		tot->gaps.off_ns += g.off_ns;
		tot->gaps.samples += g.samples;
		tot->gaps.count += g.count;
		t = t_end;
		c = c_end;
	}
	uint64_t t_exit = now_ns();
	fold_exit(region);
	/* The last CPU read lies inside the instance: the last phase's. */
	rec[sc->nphases - 1].wall_ns += t_exit - t;
	rec[sc->nphases - 1].prog_ns += t_exit - t;
	tot->timer_ns += t_exit - t_enter;
	return pop;
}

static void scenario_json(FILE *f, const struct scenario *sc)
{
	fprintf(f, "{\"phases\": %d, \"instance_ns\": %.0f, \"instances\": %ld, \"seconds\": %.3f, ",
	        sc->nphases, sc->inst_ns, sc->ninst, sc->seconds);
	fprintf(f, "\"jitter\": %.4f, \"populations\": \"%s\", \"population_b_share\": %.4f, ", sc->jitter,
	        sc->pop, sc->pop_share);
	fprintf(f, "\"population_b_scale\": %.4f, \"sample\": \"%s%.0d%s\", \"phase_specs\": [",
	        sc->pop_scale, sc->sample_ms ? "time@" : "default", sc->sample_ms, sc->sample_ms ? "ms" : "");
	for (int k = 0; k < sc->nphases; k++)
		fprintf(f, "%s{\"kind\": \"%s\", \"share\": %.4f, \"per_us\": %.4f}", k ? ", " : "",
		        sc->ph[k].wait ? "wait" : "compute", sc->ph[k].share, sc->ph[k].per_us);
	fprintf(f, "]}");
}

/* Phase k's truth over the instances of population `pop` (-1: all): mean
 * start position in program time, rate (events per s of program time),
 * CPU (s per s of program time). */
static void phase_truth_json(FILE *f, const struct scenario *sc, const struct phase_rec *rec, const int *pops,
                             int k, int pop)
{
	double ev = 0, prog = 0, cpu = 0, pos = 0;
	long n = 0;
	for (long i = 0; i < sc->ninst; i++) {
		if (pop >= 0 && pops[i] != pop)
			continue;
		const struct phase_rec *r = &rec[i * sc->nphases];
		double before = 0, all = 0;
		for (int j = 0; j < sc->nphases; j++) {
			all += (double)r[j].prog_ns;
			if (j < k)
				before += (double)r[j].prog_ns;
		}
		pos += all > 0 ? before / all : 0;
		ev += (double)r[k].events;
		prog += (double)r[k].prog_ns;
		cpu += (double)r[k].cpu_ns;
		n++;
	}
	if (!n) {
		fprintf(f, "null");
		return;
	}
	fprintf(f, "{\"instances\": %ld, \"start\": %.6f, \"rate\": %.6g, \"cpu\": %.5f}", n, pos / (double)n,
	        prog > 0 ? ev / prog * 1e9 : 0, prog > 0 ? cpu / prog : 0);
}

static void phases_json(FILE *f, const struct scenario *sc, const struct phase_rec *rec, const int *pops)
{
	fprintf(f, "[");
	for (int k = 0; k < sc->nphases; k++) {
		fprintf(f, "%s\n  {\"kind\": \"%s\", \"all\": ", k ? "," : "",
		        sc->ph[k].wait ? "wait" : "compute");
		phase_truth_json(f, sc, rec, pops, k, -1);
		fprintf(f, ", \"population_a\": ");
		phase_truth_json(f, sc, rec, pops, k, 0);
		fprintf(f, ", \"population_b\": ");
		phase_truth_json(f, sc, rec, pops, k, 1);
		fprintf(f, "}");
	}
	fprintf(f, "]");
}

static int write_truth(const char *path, const struct scenario *sc, const struct phase_rec *rec,
                       const int *pops, const uint64_t *enter, const struct run_totals *tot)
{
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f) {
		fprintf(stderr, "truth-prog: cannot write %s: %s\n", tmp, strerror(errno));
		return -1;
	}
	fprintf(f, "{\"format\": \"fold-truth\", \"version\": 1, \"seed\": %" PRIu64, sc->seed);
	fprintf(f, ", \"region\": \"truth\", \"counter\": \"work\",\n\"scenario\": ");
	scenario_json(f, sc);
	fprintf(f, ",\n\"run\": {\"instances\": %ld, \"wall_ns\": %" PRIu64 ", \"timer_ns\": %" PRIu64,
	        sc->ninst, tot->wall_ns, tot->timer_ns);
	fprintf(f,
	        ", \"compute_cpu_share\": %.4f, \"compute_wall_ns\": %" PRIu64
	        ", \"compute_cpu_ns\": %" PRIu64,
	        tot->compute_wall ? (double)tot->compute_cpu / (double)tot->compute_wall : 1.0,
	        tot->compute_wall, tot->compute_cpu);
	fprintf(f, ", \"gap_ns\": %" PRIu64, tot->gap_ns);
	fprintf(f, ", \"samples_told_apart\": %s, \"gaps\": %" PRIu64 ", \"gaps_with_sample\": %" PRIu64,
	        tot->samples_told ? "true" : "false", tot->gaps.count, tot->gaps.samples);
	fprintf(f,
	        ", \"sample_ns\": %" PRIu64 ", \"hidden_stop_ns\": %" PRIu64 ", \"off_cpu_ns\": %" PRIu64
	        "},\n",
	        tot->gaps.sample_ns, tot->gaps.hidden_ns, tot->gaps.off_ns);
	fprintf(f, "\"phases\": ");
	phases_json(f, sc, rec, pops);
	fprintf(f, ",\n\"columns\": [\"population\", \"enter_ns\"");
	for (int k = 0; k < sc->nphases; k++)
		fprintf(f, ", \"events_%d\", \"prog_ns_%d\", \"wall_ns_%d\", \"cpu_ns_%d\"", k, k, k, k);
	fprintf(f, "],\n\"instances\": [");
	for (long i = 0; i < sc->ninst; i++) {
		fprintf(f, "%s\n[%d,%" PRIu64, i ? "," : "", pops[i], enter[i] - enter[0]);
		for (int k = 0; k < sc->nphases; k++) {
			const struct phase_rec *r = &rec[i * sc->nphases + k];
			fprintf(f, ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64, r->events, r->prog_ns,
			        r->wall_ns, r->cpu_ns);
		}
		fprintf(f, "]");
	}
	fprintf(f, "]}\n");
	int bad = ferror(f);
	if (fclose(f) || bad || rename(tmp, path)) {
		fprintf(stderr, "truth-prog: cannot write %s\n", path);
		remove(tmp);
		return -1;
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: truth-prog --seed S [--out FILE] [--seconds T] [--describe]\n");
	return 2;
}

int main(int argc, char **argv)
{
	const char *out = "truth.json";
	uint64_t seed = 0;
	double seconds = 0;
	int have_seed = 0, describe = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
			char *end;
			seed = strtoull(argv[++i], &end, 10);
			if (*end)
				return usage();
			have_seed = 1;
		} else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) {
			seconds = atof(argv[++i]);
		} else if (!strcmp(argv[i], "--describe")) {
			describe = 1;
		} else {
			return usage();
		}
	}
	if (!have_seed)
		return usage();
	struct scenario sc;
	scenario_draw(&sc, seed, seconds);
	if (describe) {
		scenario_json(stdout, &sc);
		printf("\n");
		return 0;
	}
	struct phase_rec *rec = calloc((size_t)sc.ninst * (size_t)sc.nphases, sizeof *rec);
	int *pops = calloc((size_t)sc.ninst, sizeof *pops);
	uint64_t *enter = calloc((size_t)sc.ninst, sizeof *enter);
	if (!rec || !pops || !enter) {
		fprintf(stderr, "truth-prog: out of memory for %ld instances\n", sc.ninst);
		return 1;
	}
	/* Sleeps end at their deadline, not up to 50 us later. */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	struct probe pr = {open("/proc/thread-self/io", O_RDONLY | O_CLOEXEC), -1, 0, 0, GAP_NS};
	probe_calibrate(&pr);
	uint32_t region = fold_region("truth");
	struct counter_state cs = {fold_counter("work"), 0};
	struct run_totals tot;
	memset(&tot, 0, sizeof tot);
	tot.samples_told = probe_reads(&pr) >= 0;
	tot.gap_ns = pr.gap_ns;
	uint64_t rng = seed ^ 0x5eed5eed5eed5eedull, t0 = now_ns();
	for (long i = 0; i < sc.ninst; i++) {
		enter[i] = now_ns();
		pops[i] = run_instance(&sc, i, &rng, &cs, &pr, region, &rec[i * sc.nphases], &tot);
	}
	tot.wall_ns = now_ns() - t0;
	int rc = write_truth(out, &sc, rec, pops, enter, &tot);
	printf("truth-prog: seed %" PRIu64
	       ", %d phase(s), %ld instances of %.0f us, %.2f s, CPU share %.2f in "
	       "compute\n",
	       seed, sc.nphases, sc.ninst, sc.inst_ns / 1e3, (double)tot.wall_ns / 1e9,
	       tot.compute_wall ? (double)tot.compute_cpu / (double)tot.compute_wall : 1.0);
	if (pr.io_fd >= 0)
		close(pr.io_fd);
	free(rec);
	free(pops);
	free(enter);
	return rc ? 1 : 0;
}
