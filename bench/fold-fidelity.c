/* fold-fidelity.c: how well folding recovers a known truth.
 *
 * Synthetic region: two phases split at 0.37, app counter at 1e9/s then
 * 3e8/s, CPU 1.0 then 0.5; 1 ms instances with 2% duration jitter, 2% counter
 * noise per increment, 2% stalled outliers (x3), sampling jitter +-50%.
 * For samples per instance x instances it reports the folded samples, the
 * phase-boundary error (share of the instance), the mean absolute phase-rate
 * error of the piecewise-linear fit, and the Kriging curve's mean absolute
 * rate error away from the break (+-0.05), each as a share of the truth.
 * Baseline: fine sampling of ONE instance with the same number of samples,
 * fitted the same way (no folding). Then a grouping-accuracy run.
 * Usage: fold-bench-fidelity [DIR]
 */
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze.h"
#include "synth.h"

static void quiet(void *arg, const char *msg)
{
	(void)arg;
	(void)msg;
}

static const double BREAK = 0.37, R0 = 1e9, R1 = 3e8;

typedef struct result {
	unsigned long folded;
	size_t nphases, ngroups;
	double boundary_err, rate_err, curve_err;
	double interior_err; /* worst phase-rate error at x = 0.2 and x = 0.7 (phase interiors) */
} result;

static int run(const char *path, const synth_config *c, const char *fit, unsigned min_inst, result *res)
{
	if (synth_write(c, path, NULL))
		return -1;
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	o.fit = fit;
	o.min_instances = min_inst;
	o.min_samples = 5;
	fold_analysis *a;
	char err[256];
	const char *paths[1] = {path};
	if (fold_analyze(paths, 1, &o, &a, err, sizeof err)) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	memset(res, 0, sizeof *res);
	const fold_region_result *r = &a->regions[0];
	res->folded = r->samples_folded;
	res->nphases = r->nphases;
	res->ngroups = r->ngroups;
	res->interior_err = NAN;
	res->boundary_err = NAN;
	res->rate_err = NAN;
	res->curve_err = NAN;
	if (r->folded && r->nphases >= 1) {
		/* boundary nearest to the true break */
		double be = 1;
		for (size_t p = 1; p < r->nphases; p++)
			be = fmin(be, fabs(r->phases[p].start - BREAK));
		res->boundary_err = be;
		/* rate error: each x on a fine grid gets its phase's rate */
		double sum = 0;
		int n = 0;
		for (int i = 0; i < 1000; i++) {
			double x = (i + 0.5) / 1000, truth = x < BREAK ? R0 : R1;
			size_t p = 0;
			while (p + 1 < r->nphases && x >= r->phases[p + 1].start)
				p++;
			double v = NAN;
			for (size_t k = 0; k < r->phases[p].nrates; k++)
				if (!strcmp(r->phases[p].rate_names[k], "app::work"))
					v = r->phases[p].rates[k];
			sum += fabs(v - truth) / truth;
			n++;
		}
		res->rate_err = sum / n;
		res->interior_err = 0;
		for (int q = 0; q < 2; q++) {
			double x = q ? 0.7 : 0.2, truth = q ? R1 : R0;
			size_t p = 0;
			while (p + 1 < r->nphases && x >= r->phases[p + 1].start)
				p++;
			for (size_t k = 0; k < r->phases[p].nrates; k++)
				if (!strcmp(r->phases[p].rate_names[k], "app::work"))
					res->interior_err = fmax(res->interior_err,
					                         fabs(r->phases[p].rates[k] - truth) / truth);
		}
		const fold_series *s = &r->series[0];
		sum = 0;
		n = 0;
		for (size_t i = 0; i < s->fit.n; i++) {
			double x = s->fit.x[i];
			if (fabs(x - BREAK) < 0.05 || x < 0.01 || x > 0.99)
				continue;
			double truth = x < BREAK ? R0 : R1;
			sum += fabs(s->fit.value[i] - truth) / truth;
			n++;
		}
		res->curve_err = n ? sum / n : NAN;
	}
	fold_analysis_free(a);
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	char path[512];
	snprintf(path, sizeof path, "%s/fold-fidelity-%d.trc", dir, (int)getpid());
	gsl_set_error_handler_off();
	const double spi[] = {2, 5, 10, 20, 50};
	const unsigned insts[] = {50, 200, 1000};
	printf("%-6s %-6s %9s %7s | %-28s | %-28s\n", "s/inst", "inst", "folded", "phases",
	       "folding: boundary rate curve", "fine, 1 instance: bnd rate");
	for (size_t i = 0; i < sizeof spi / sizeof *spi; i++)
		for (size_t j = 0; j < sizeof insts / sizeof *insts; j++) {
			synth_config c;
			synth_config_init(&c);
			c.instances = insts[j];
			c.period_ns = 1e6 / spi[i];
			c.noise = 0.02;
			c.outliers = 0.02;
			c.seed = 1000 + i * 10 + j;
			result f, b;
			if (run(path, &c, "kriging", 3, &f))
				return 1;
			/* baseline: one instance, same number of samples, no folding */
			synth_config one = c;
			one.instances = 1;
			one.outliers = 0;
			one.period_ns = 1e6 / (double)(f.folded ? f.folded : 1);
			if (run(path, &one, "kriging", 1, &b))
				return 1;
			printf("%-6g %-6u %9lu %7zu | %8.3f%% %8.3f%% %8.3f%% | %8.3f%% %8.3f%%\n", spi[i],
			       insts[j], f.folded, f.nphases, 100 * f.boundary_err, 100 * f.rate_err,
			       100 * f.curve_err, 100 * b.boundary_err, 100 * b.rate_err);
		}
	/* Noisy runs, as on a loaded machine: 30% of the instances preempted once
	 * (exponential, mean 30% of the instance: a tail of stretched durations
	 * and flat stretches in every counter), the second phase's length varies
	 * by 16% (the instance's by 10%: the switch smears), an extra app counter
	 * with 50% noise, 2% counter noise. Phase rates read at x = 0.2 and 0.7. */
	printf("\nnoisy runs: 30%% preempted (exp. tail), 16%% phase-length jitter, a 50%%-noise extra "
	       "counter\n");
	printf("%-6s %-6s %9s %7s %7s | %-9s %-9s\n", "s/inst", "inst", "folded", "groups", "phases",
	       "boundary", "rates");
	const double nspi[] = {5, 20};
	const unsigned ninsts[] = {200, 1000};
	for (size_t i = 0; i < 2; i++)
		for (size_t j = 0; j < 2; j++) {
			synth_config c;
			synth_config_init(&c);
			c.instances = ninsts[j];
			c.period_ns = 1e6 / nspi[i];
			c.noise = 0.02;
			c.duration_jitter = 0;
			c.phase_jitter = 0.16;
			c.jitter_phase = 1;
			c.preempt = 0.3;
			c.preempt_mean_ns = 3e5;
			c.ncounters = 2;
			c.counters[1] = (synth_counter){"app::noisy", 3, {5e8, 5e8}, 0};
			c.counter_noise[1] = 0.5;
			c.seed = 2000 + i * 10 + j;
			result f;
			if (run(path, &c, "pwlr", 3, &f))
				return 1;
			printf("%-6g %-6u %9lu %7zu %7zu | %8.3f%% %8.3f%%\n", nspi[i], ninsts[j], f.folded,
			       f.ngroups, f.nphases, 100 * f.boundary_err, 100 * f.interior_err);
		}
	/* Grouping: 1 ms (2/3) and 3 ms (1/3) instances, 4% stalled x5. */
	synth_config c;
	synth_config_init(&c);
	c.instances = 600;
	c.ngroups = 2;
	c.groups[0] = (synth_group){1e6, 2, 1};
	c.groups[1] = (synth_group){3e6, 1, 1};
	c.outliers = 0.04;
	c.outlier_factor = 5;
	c.noise = 0.02;
	if (synth_write(&c, path, NULL))
		return 1;
	fold_options o;
	fold_options_init(&o);
	o.diag = quiet;
	fold_analysis *a;
	char err[256];
	const char *paths[1] = {path};
	if (fold_analyze(paths, 1, &o, &a, err, sizeof err))
		return 1;
	const fold_region_result *r = &a->regions[0];
	unsigned long right = 0;
	for (size_t k = 0; k < r->ninst; k++) {
		/* truth: the folded (3 ms) group without its stalled instances */
		int truth = fabs(r->inst[k].duration_ns / 3e6 - 1) < 0.2;
		right += truth == (r->inst[k].used != 0);
	}
	printf("grouping: %zu groups found (truth 2 + stalled), folded group median %.3f ms, "
	       "%lu of %zu instances classified right (%.2f%%)\n",
	       r->ngroups, r->groups[r->selected_group].median_duration_ns / 1e6, right, r->ninst,
	       100.0 * right / r->ninst);
	fold_analysis_free(a);
	/* Grouping: 5 ms instances, 60% of them preempted (exponential, mean
	 * 5 ms): one mode and a long tail, no second mode. */
	synth_config_init(&c);
	c.instances = 400;
	c.groups[0] = (synth_group){5e6, 1, 1};
	c.duration_jitter = 0.002;
	c.preempt = 0.6;
	c.preempt_mean_ns = 5e6;
	c.period_ns = 1e6;
	c.sample_jitter = 0.1;
	c.noise = 0.02;
	result f;
	if (run(path, &c, "pwlr", 3, &f))
		return 1;
	if (fold_analyze(paths, 1, &o, &a, err, sizeof err))
		return 1;
	r = &a->regions[0];
	right = 0;
	for (size_t k = 0; k < r->ninst; k++) {
		int truth = r->inst[k].duration_ns < 5.1e6; /* not stretched (by more than 2%) */
		right += truth == (r->inst[k].used != 0);
	}
	printf(
	    "grouping, preemption tail: %zu group(s) found (truth 1), folded group centre %.3f ms (truth 5), "
	    "%lu of %zu instances classified right (%.2f%%); phases %zu, rates off by %.2f%%\n",
	    r->ngroups, r->groups[r->selected_group].median_duration_ns / 1e6, right, r->ninst,
	    100.0 * right / r->ninst, f.nphases, 100 * f.interior_err);
	fold_analysis_free(a);
	unlink(path);
	printf("command: %s %s\n", argv[0], dir);
	return 0;
}
