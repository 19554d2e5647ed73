/* truth-bench.c: how often is fold right on code like mine? The randomized
 * truth bench.
 *
 * Draws N region structures at random from a seed (tests/tools/truth_eval.h:
 * phase counts and shares, rates and CPU, rate and phase-order
 * populations, smooth curves, boundary position jitter, waits, nested
 * calls, one or two threads, instances of 10 us to 1 s, sampling every
 * 100 us to 10 ms, CPU competitors, the sample's own cost), writes each as
 * a synthetic trace with a known truth, folds it with fold_analyze() and
 * judges the answer (definitions: docs/validation.md, "The randomized truth
 * bench"). Prints, for the whole draw and for each family of scenarios,
 * how many answers were right and wrong, how many of each the fidelity
 * verdict flagged, how often fold's 90% intervals hold the truth, and the
 * population mixtures nobody was told about; then the command that draws
 * the same scenarios again.
 *
 * Usage: fold-bench-truth [--seed S] [--n N] [--family F[,F...]] [--csv FILE]
 *                         [--only I] [--keep DIR] [--verbose] [--check]
 *   --seed S    the draw (default: a new one each run, printed)
 *   --n N       scenarios (default 1000)
 *   --family F  only scenarios of these families (clean, populations,
 *               order, smooth, jitter, waits, short, load, coarse): the
 *               draw's scenarios of them, by their index in the whole draw
 *   --csv FILE  one line per scenario: parameters, truth, fold's answer,
 *               wrong and why, flagged and its reasons
 *   --only I    run scenario I of the draw alone, verbosely
 *   --keep DIR  keep the traces in DIR (scenario-I.trace), to run fold on
 *   --verbose   one line per scenario
 *   --check     exit 1 on a defect of the bench itself (a scenario that
 *               could not be written or folded, a figure that is not a
 *               number); never on fold's figures
 */
#include <errno.h>
#include <gsl/gsl_errno.h>
#include <inttypes.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "truth_eval.h"

typedef struct tally {
	unsigned long n, declined, right, wrong, flagged_right, flagged_wrong, missed_unres;
	unsigned long why[TRUTH_NWHY];
	double write_s, fold_s;
	unsigned long bnd_n, bnd_in, bnd_none, rate_n, rate_in, rate_none, cpu_n, cpu_in, cpu_none;
	unsigned long band_n, band_in;
	unsigned long pops, mixed, silent, unmatched, withheld;
} tally;

static void add(tally *t, const truth_verdict *v, int pop)
{
	t->n++;
	t->write_s += v->write_s;
	t->fold_s += v->fold_s;
	if (!v->folded) {
		t->declined++;
	} else if (v->wrong) {
		t->wrong++;
		t->flagged_wrong += v->flagged != 0;
		for (int b = 0; b < TRUTH_NWHY; b++)
			t->why[b] += (v->why >> b) & 1;
	} else {
		t->right++;
		t->flagged_right += v->flagged != 0;
		t->missed_unres += v->missed_unresolvable != 0;
	}
	t->bnd_n += v->bnd_n;
	t->bnd_in += v->bnd_in;
	t->bnd_none += v->bnd_none;
	t->rate_n += v->rate_n;
	t->rate_in += v->rate_in;
	t->rate_none += v->rate_none;
	t->cpu_n += v->cpu_n;
	t->cpu_in += v->cpu_in;
	t->cpu_none += v->cpu_none;
	t->band_n += v->band_n;
	t->band_in += v->band_in;
	t->pops += pop != 0;
	t->unmatched += !v->matched;
	t->withheld += v->rates_withheld;
	t->mixed += v->mixed != 0;
	t->silent += v->silent_mixture != 0;
}

static int defects; /* figures that are not numbers */

/* "87.5% (7/8)", or "-" when there is nothing to count. */
static const char *share(char *buf, size_t len, unsigned long k, unsigned long n)
{
	if (!n) {
		snprintf(buf, len, "-");
		return buf;
	}
	double v = 100.0 * (double)k / (double)n;
	if (!isfinite(v) || k > n)
		defects++;
	snprintf(buf, len, "%.1f%% (%lu/%lu)", v, k, n);
	return buf;
}

static void print_row(const char *name, const tally *t)
{
	char a[32], b[32], c[32], d[32], e[32], f[32];
	printf("%-12s %5lu %5lu %5lu %5lu  %-17s %-17s %-17s %-17s %-17s %-17s %lu of %lu\n", name, t->n,
	       t->declined, t->right, t->wrong, share(a, sizeof a, t->flagged_wrong, t->wrong),
	       share(b, sizeof b, t->flagged_right, t->right), share(c, sizeof c, t->bnd_in, t->bnd_n),
	       share(d, sizeof d, t->rate_in, t->rate_n), share(e, sizeof e, t->cpu_in, t->cpu_n),
	       share(f, sizeof f, t->band_in, t->band_n), t->silent, t->pops);
}

static void print_table(const tally *all, const tally *fam)
{
	printf("\n%-12s %5s %5s %5s %5s  %-17s %-17s %-17s %-17s %-17s %-17s %s\n", "family", "scen", "decl",
	       "right", "wrong", "flagged|wrong", "flagged|right", "cover:boundary", "cover:app-rate",
	       "cover:cpu-rate", "cover:curve-band", "silent mixtures");
	print_row("all", all);
	for (unsigned f = 0; f < TRUTH_NFAMILIES; f++)
		print_row(truth_family_name(f), &fam[f]);
	printf("\nwrong answers by cause (one answer may have several causes)\n%-12s %5s %6s %9s %5s %4s %6s "
	       "%8s | %8s %9s\n",
	       "family", "wrong", "count", "boundary", "rate", "cpu", "curve", "mixture", "unresolv",
	       "withheld");
	for (int f = -1; f < (int)TRUTH_NFAMILIES; f++) {
		const tally *t = f < 0 ? all : &fam[f];
		printf("%-12s %5lu %6lu %9lu %5lu %4lu %6lu %8lu | %8lu %9lu\n",
		       f < 0 ? "all" : truth_family_name((unsigned)f), t->wrong, t->why[0], t->why[1],
		       t->why[2], t->why[3], t->why[4], t->why[5], t->missed_unres, t->withheld);
	}
	printf("unresolv: right once phases with under 3 expected samples are set aside (counted right); "
	       "withheld: app-counter phase rates fold did not show\n");
	printf("intervals missing (counted as not covering): boundaries %lu, app-counter rates %lu, CPU "
	       "rates %lu\n",
	       all->bnd_none, all->rate_none, all->cpu_none);
	printf("population scenarios whose folded instances mixed both populations: %lu of %lu\n", all->mixed,
	       all->pops);
	printf("targets (issue 30): coverage 85-95%%; flagged|wrong >= 90%%; flagged|right <= 5%%; no silent "
	       "mixture\n");
}

static void csv_header(FILE *f)
{
	fprintf(f, "seed,index,families,parameters,truth,answer,folded,wrong,why,flagged,verdict,"
	           "worst_boundary,worst_rate,worst_cpu,curve_err,used_share,folded_pop,other_share,mixed,"
	           "split,silent_mixture,fold_seconds,reproduce\n");
}

static void families_text(unsigned fam, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (unsigned b = 0; b < TRUTH_NFAMILIES && o < len; b++)
		if (fam & (1u << b))
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? "+" : "", truth_family_name(b));
}

static void csv_row(FILE *f, const truth_scenario *s, const truth_verdict *v, const char *argv0)
{
	char desc[1024], fam[128];
	truth_describe(s, desc, sizeof desc);
	families_text(s->families, fam, sizeof fam);
	fprintf(f,
	        "%" PRIu64
	        ",%u,%s,\"%s\",\"%s\",\"%s\",%d,%d,%s,%d,%s,%.4g,%.4g,%.4g,%.4g,%.4g,%d,%.4g,%d,%d,%d,%.3f,"
	        "\"%s --seed %" PRIu64 " --only %u\"\n",
	        s->seed, s->index, fam, desc, v->truth, v->answer, v->folded, v->wrong, v->why_text,
	        v->flagged, v->reasons_text, v->worst_boundary, v->worst_rate, v->worst_cpu, v->curve_err,
	        v->used_share, v->folded_pop, v->other_share, v->mixed, v->split, v->silent_mixture,
	        v->fold_s, argv0, s->seed, s->index);
}

static void print_one(const truth_scenario *s, const truth_verdict *v)
{
	char desc[1024], fam[128];
	truth_describe(s, desc, sizeof desc);
	families_text(s->families, fam, sizeof fam);
	printf("#%u [%s] %s\n   truth  %s\n   fold   %s\n   %s%s%s, %s; boundary %.4f rate %.4f cpu %.4f "
	       "curve %.4f; folded %.0f%% of the instances, other population %.1f%%%s\n",
	       s->index, fam, desc, v->truth, v->folded ? v->answer : "(not folded)",
	       !v->folded ? "declined"
	       : v->wrong ? "WRONG: "
	                  : "right",
	       v->wrong ? v->why_text : "", v->missed_unresolvable ? " (unresolvable phase missed)" : "",
	       v->reasons_text, v->worst_boundary, v->worst_rate, v->worst_cpu, v->curve_err,
	       100 * v->used_share, 100 * v->other_share, v->silent_mixture ? " SILENT MIXTURE" : "");
}

static uint64_t new_seed(void)
{
	uint64_t s = (uint64_t)time(NULL) * 1000003u ^ (uint64_t)getpid() * 7919u;
	FILE *f = fopen("/dev/urandom", "rb");
	if (f) {
		uint64_t u;
		if (fread(&u, sizeof u, 1, f) == 1)
			s = u;
		fclose(f);
	}
	return s % 1000000000000ull; /* short enough to type */
}

/* "populations,order" -> their TRUTH_* bits. */
static int parse_families(const char *list, unsigned *bits)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", list);
	*bits = 0;
	for (char *save = NULL, *w = strtok_r(buf, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		unsigned f = 0;
		while (f < TRUTH_NFAMILIES && strcmp(w, truth_family_name(f)))
			f++;
		if (f == TRUTH_NFAMILIES) {
			fprintf(stderr,
			        "fold-bench-truth: --family %s: expected clean, populations, order, smooth, "
			        "jitter, waits, short, load or coarse\n",
			        w);
			return -1;
		}
		*bits |= 1u << f;
	}
	return 0;
}

typedef struct opts {
	uint64_t seed;
	unsigned long n;
	long only;
	unsigned families; /* 0: every scenario */
	const char *family_arg;
	const char *csv, *keep;
	int verbose, check;
} opts;

static int parse(int argc, char **argv, opts *o)
{
	o->seed = new_seed();
	o->n = 1000;
	o->only = -1;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
		char *end = NULL;
		if (!strcmp(a, "--verbose")) {
			o->verbose = 1;
			continue;
		}
		if (!strcmp(a, "--check")) {
			o->check = 1;
			continue;
		}
		if (!val) {
			fprintf(stderr,
			        "fold-bench-truth: %s: expected an option (--seed S, --n N, --family F, "
			        "--csv FILE, --only I, --keep DIR, --verbose, --check) with its value\n",
			        a);
			return -1;
		}
		i++;
		if (!strcmp(a, "--seed"))
			o->seed = strtoull(val, &end, 10);
		else if (!strcmp(a, "--n"))
			o->n = strtoul(val, &end, 10);
		else if (!strcmp(a, "--only"))
			o->only = strtol(val, &end, 10);
		else if (!strcmp(a, "--csv"))
			o->csv = val;
		else if (!strcmp(a, "--keep"))
			o->keep = val;
		else if (!strcmp(a, "--family")) {
			o->family_arg = val;
			if (parse_families(val, &o->families))
				return -1;
		} else {
			fprintf(stderr, "fold-bench-truth: %s: unknown option\n", a);
			return -1;
		}
		if (end && (*end || end == val)) {
			fprintf(stderr, "fold-bench-truth: %s %s: expected a whole number\n", a, val);
			return -1;
		}
	}
	return 0;
}

/* A crash names the scenario it happened in and how to run it alone. */
static char crash_note[160];

static void on_crash(int sig)
{
	ssize_t ignored = write(STDERR_FILENO, crash_note, strlen(crash_note));
	(void)ignored;
	signal(sig, SIG_DFL);
	raise(sig);
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(int argc, char **argv)
{
	opts o = {0};
	if (parse(argc, argv, &o))
		return 2;
	gsl_set_error_handler_off();
	signal(SIGSEGV, on_crash);
	signal(SIGBUS, on_crash);
	signal(SIGFPE, on_crash);
	signal(SIGABRT, on_crash);
	char dir[] = "/tmp/fold-truth-XXXXXX";
	const char *tdir = o.keep;
	if (o.keep && mkdir(o.keep, 0777) && errno != EEXIST) {
		fprintf(stderr, "fold-bench-truth: %s: %s\n", o.keep, strerror(errno));
		return 2;
	}
	if (!tdir && !(tdir = mkdtemp(dir))) {
		fprintf(stderr, "fold-bench-truth: cannot make a directory for the traces: %s\n",
		        strerror(errno));
		return 2;
	}
	FILE *csv = NULL;
	if (o.csv && !(csv = fopen(o.csv, "w"))) {
		fprintf(stderr, "fold-bench-truth: %s: %s\n", o.csv, strerror(errno));
		return 2;
	}
	if (csv)
		csv_header(csv);
	printf("fold truth bench: %lu random scenarios%s%s, seed %" PRIu64
	       " (definitions: docs/validation.md)\n",
	       o.only >= 0 ? 1ul : o.n, o.families ? " of the families " : "", o.families ? o.family_arg : "",
	       o.seed);
	fflush(stdout);
	tally all = {0}, fam[TRUTH_NFAMILIES];
	memset(fam, 0, sizeof fam);
	unsigned long failures = 0;
	double t0 = now();
	unsigned long first = o.only >= 0 ? (unsigned long)o.only : 0, want = o.only >= 0 ? 1 : o.n;
	unsigned long ran = 0;
	/* with --family, the draw's scenarios of those families (at most 1000 draws per one) */
	for (unsigned long i = first; ran < want && i - first < 1000 * (want + 1); i++) {
		truth_scenario s;
		truth_draw(o.seed, (unsigned)i, &s);
		if (o.only < 0 && o.families && !(s.families & o.families))
			continue;
		ran++;
		snprintf(crash_note, sizeof crash_note,
		         "fold-bench-truth: crashed in scenario %lu; alone: %s --seed %" PRIu64
		         " --only %lu\n",
		         i, argv[0], o.seed, i);
		if (isatty(STDERR_FILENO) && ran % 100 == 0)
			fprintf(stderr, "... %lu of %lu scenarios\n", ran, want);
		char path[600], err[512];
		snprintf(path, sizeof path, "%s/scenario-%lu.trace", tdir, i);
		truth_verdict v;
		int rc = truth_run(&s, path, &v, err, sizeof err);
		if (!o.keep)
			unlink(path);
		if (rc) {
			fprintf(stderr, "fold-bench-truth: scenario %lu: %s\n", i, err);
			failures++;
			continue;
		}
		add(&all, &v, s.pop);
		for (unsigned f = 0; f < TRUTH_NFAMILIES; f++)
			if (s.families & (1u << f))
				add(&fam[f], &v, s.pop);
		if (csv) {
			csv_row(csv, &s, &v, argv[0]);
			fflush(csv); /* a run can be followed, and studied when stopped */
		}
		if (o.verbose || o.only >= 0)
			print_one(&s, &v);
	}
	double secs = now() - t0;
	if (!o.keep)
		rmdir(tdir);
	if (csv)
		fclose(csv);
	print_table(&all, fam);
	printf(
	    "speed: %lu scenarios in %.1f s (%.1f scenarios/s; writing traces %.1f s, fold_analyze %.1f s)\n",
	    ran, secs, secs > 0 ? (double)ran / secs : 0, all.write_s, all.fold_s);
	if (failures)
		printf("BENCH DEFECT: %lu scenario(s) could not be written or folded (above)\n", failures);
	if (defects)
		printf("BENCH DEFECT: %d figure(s) not a number (or a share above 100%%)\n", defects);
	if (all.unmatched)
		printf("BENCH DEFECT: in %lu scenario(s) fold's instances did not pair with the written ones "
		       "(populations not judged)\n",
		       all.unmatched),
		    defects++;
	if (all.right + all.wrong + all.declined != all.n)
		printf("BENCH DEFECT: right + wrong + declined != scenarios\n"), defects++;
	if (o.only >= 0)
		printf("reproduce: %s --seed %" PRIu64 " --only %ld\n", argv[0], o.seed, o.only);
	else
		printf("reproduce: %s --seed %" PRIu64 " --n %lu%s%s\n", argv[0], o.seed, o.n,
		       o.families ? " --family " : "", o.families ? o.family_arg : "");
	return o.check && (failures || defects) ? 1 : 0;
}
