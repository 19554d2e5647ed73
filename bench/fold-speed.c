/* fold-speed.c: ingest rate and fold + fit time of the folding engine.
 *
 * 1. Writes a synthetic trace of about 4 M samples and loads it with one
 *    thread (samples/s per core), then two copies with two threads.
 * 2. A region with 100 k folded samples: time of folding + piecewise-linear
 *    phases + Kriging (fold_analyze minus loading), and of each fit alone.
 * Usage: fold-bench-speed [DIR]   (DIR for the temporary traces, default /tmp)
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze.h"
#include "fit.h"
#include "ingest.h"
#include "kriging.h"
#include "pwlr.h"
#include "synth.h"

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* CPU time of the process: per-core figures that other load on the machine does not distort. */
static double cpu(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static unsigned long count_samples(ingest__trace *t)
{
	unsigned long n = 0;
	for (size_t i = 0; i < t->nthreads; i++)
		n += t->threads[i].nsmp;
	return n;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	char big[512], big2[512], mid[512], err[512];
	snprintf(big, sizeof big, "%s/fold-bench-big-%d.trc", dir, (int)getpid());
	snprintf(big2, sizeof big2, "%s/fold-bench-big2-%d.trc", dir, (int)getpid());
	snprintf(mid, sizeof mid, "%s/fold-bench-100k-%d.trc", dir, (int)getpid());
	gsl_set_error_handler_off();

	/* 1. ingest */
	synth_config c;
	synth_config_init(&c);
	c.instances = 20000;
	c.period_ns = 5000; /* ~200 samples per 1 ms instance: 4 M samples */
	c.sample_jitter = 0.5;
	c.noise = 0.02;
	synth_truth tr;
	if (synth_write(&c, big, &tr) || synth_write(&c, big2, NULL)) {
		fprintf(stderr, "cannot write %s\n", big);
		return 1;
	}
	ingest__trace *t = NULL;
	double best = 1e30, best_wall = 1e30;
	unsigned long ns = 0;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = cpu(), w0 = now();
		if (ingest__trace_load(big, &t, quiet, NULL, err, sizeof err)) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		double dt = cpu() - t0, dw = now() - w0;
		ns = count_samples(t);
		ingest__trace_free(t);
		if (dt < best)
			best = dt;
		if (dw < best_wall)
			best_wall = dw;
	}
	printf("ingest, 1 file:  %lu samples in %.3f s CPU = %.1f M samples/s per core; %.3f s wall = %.1f M "
	       "samples/s (inflating on a second thread)\n",
	       ns, best, ns / best / 1e6, best_wall, ns / best_wall / 1e6);
	const char *two[2] = {big, big2};
	ingest__trace **tt = NULL;
	best = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now();
		if (ingest__trace_load_many(two, 2, 2, &tt, quiet, NULL, err, sizeof err)) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		double dt = now() - t0;
		ingest__trace_free(tt[0]);
		ingest__trace_free(tt[1]);
		free(tt);
		if (dt < best)
			best = dt;
	}
	printf("ingest, 2 files on 2 threads: %lu samples in %.3f s wall = %.1f M samples/s\n", 2 * ns, best,
	       2 * ns / best / 1e6);

	/* 2. one region with 100 k folded samples */
	synth_config_init(&c);
	c.instances = 1000;
	c.period_ns = 10000; /* 100 samples per instance */
	c.noise = 0.02;
	if (synth_write(&c, mid, &tr))
		return 1;
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	o.threads = 1;
	const char *paths[1] = {mid};
	double tload = 1e30, tall = 1e30;
	for (int rep = 0; rep < 3; rep++) {
		double t0 = now();
		if (ingest__trace_load(mid, &t, quiet, NULL, err, sizeof err))
			return 1;
		double t1 = now();
		ingest__trace_free(t);
		fold_analysis *a;
		double t2 = now();
		if (fold_analyze(paths, 1, &o, &a, err, sizeof err)) {
			fprintf(stderr, "%s\n", err);
			return 1;
		}
		double t3 = now();
		if (rep == 2) {
			printf("region with %lu folded samples, %zu series (app counter, CPU time)\n",
			       a->regions[0].samples_folded, a->regions[0].nseries);
			/* fits alone, on the first series' points */
			const fold_series *s = &a->regions[0].series[0];
			pwlr__series ps = {s->px, s->py, s->npoints, NULL, 0};
			pwlr__opts po;
			pwlr__opts_init(&po);
			pwlr__result pr;
			double f0 = now();
			pwlr__fit(&ps, 1, &po, &pr);
			double f1 = now();
			kriging__opts ko;
			kriging__opts_init(&ko);
			kriging__result kr;
			kriging__fit(s->px, s->py, s->npoints, &ko, s->fit.x, s->fit.n, &kr);
			double f2 = now();
			/* as the analysis runs it: around the phase fit, 5-fold CV over
			 * instances (ids stand in for the instances: same cost) */
			uint32_t *ids = malloc(s->npoints * sizeof *ids);
			double *cum = malloc(3 * s->fit.n * sizeof *cum), *val = cum + s->fit.n,
			       *band = val + s->fit.n;
			if (!ids || !cum)
				return 1;
			for (size_t i = 0; i < s->npoints; i++)
				ids[i] = (uint32_t)(i * 1000 / s->npoints);
			fold_curve fc = {s->fit.n, s->fit.x, cum, val, band, band};
			fit_input in = {s->px, s->py, ids, s->npoints, 1, 1, INFINITY, &pr, 0, 1, NULL};
			double rms, f3 = now();
			fit__kriging.fit(&in, &fc, &rms, NULL);
			double f4 = now();
			printf("  pwlr alone %.3f s, Kriging alone %.3f s (likelihood around y = x), %.3f s "
			       "as the "
			       "analysis runs it (around the phase fit, 5-fold CV over 1000 instances); one "
			       "series "
			       "of %zu points\n",
			       f1 - f0, f2 - f1, f4 - f3, s->npoints);
			free(ids);
			free(cum);
			pwlr__result_free(&pr);
			kriging__result_free(&kr);
		}
		fold_analysis_free(a);
		if (t1 - t0 < tload)
			tload = t1 - t0;
		if (t3 - t2 < tall)
			tall = t3 - t2;
	}
	printf("  fold_analyze %.3f s, of which loading %.3f s: fold + both fits + models + attribution %.3f "
	       "s\n",
	       tall, tload, tall - tload);
	printf("command: %s %s\n", argv[0], dir);
	unlink(big);
	unlink(big2);
	unlink(mid);
	return 0;
}
