/* fold_synth_main.c: `fold-synth`, the synthetic trace generator's command
 * line (see synth.h for the model). Prints the truth it wrote as one line. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "trace_format.h"

static void usage(FILE *f)
{
	fprintf(f, "usage: fold-synth -o TRACE [options]\n"
	           "  --seed N            random seed (42)\n"
	           "  --threads N         threads (1)\n"
	           "  --instances N       instances per thread (200)\n"
	           "  --breaks B1,B2,...  phase boundaries in (0,1) (0.37)\n"
	           "  --counter NAME=R1,R2,...  app counter with a rate per phase (events/s); repeatable\n"
	           "  --cpu U1,U2,...     CPU utilisation per phase (1,0.5)\n"
	           "  --group DUR_NS[:WEIGHT[:SCALE]]  duration group; repeatable (1000000)\n"
	           "  --dur-jitter F      relative sd of durations (0.02)\n"
	           "  --period-ns N       sampling period (50000)\n"
	           "  --sample-jitter F   uniform +- fraction of the period (0.5)\n"
	           "  --noise F           relative sd of counter increments (0)\n"
	           "  --outliers F        share of stalled instances (0)\n"
	           "  --outlier-factor F  their duration multiplier (3)\n"
	           "  --preempt F         share of instances preempted once at a random moment (0)\n"
	           "  --preempt-mean NS   mean preemption length, exponential (1000000)\n"
	           "  --preempt-fixed     every preemption lasts exactly --preempt-mean\n"
	           "  --cputime-sampling  the timer counts CPU time, not wall time (no --sample-cost)\n"
	           "  --phase-jitter F[:P]  relative sd of the length of phase P only (0; P = last)\n"
	           "  --no-boundary-counters  do not record counters at enter/exit\n"
	           "  --rotate-sets       odd threads record only the first counter\n"
	           "  --sample-cost NS[:HANDLER[:LAG]]  each sample stops the program for NS; the trace\n"
	           "                      records the handler's HANDLER ns and a LAG ns timestamp lag (0)\n");
}

static unsigned parse_list(const char *s, double *out, unsigned max)
{
	unsigned n = 0;
	char *end;
	while (*s && n < max) {
		out[n++] = strtod(s, &end);
		if (end == s)
			return 0;
		s = *end == ',' ? end + 1 : end;
	}
	return n;
}

int main(int argc, char **argv)
{
	synth_config c;
	synth_config_init(&c);
	const char *out = NULL;
	int custom_counters = 0, custom_groups = 0;
	static const struct option lo[] = {{"seed", 1, 0, 's'},
	                                   {"threads", 1, 0, 't'},
	                                   {"instances", 1, 0, 'n'},
	                                   {"breaks", 1, 0, 'b'},
	                                   {"counter", 1, 0, 'c'},
	                                   {"cpu", 1, 0, 'u'},
	                                   {"group", 1, 0, 'g'},
	                                   {"dur-jitter", 1, 0, 'd'},
	                                   {"period-ns", 1, 0, 'p'},
	                                   {"sample-jitter", 1, 0, 'j'},
	                                   {"noise", 1, 0, 'z'},
	                                   {"outliers", 1, 0, 'x'},
	                                   {"outlier-factor", 1, 0, 'f'},
	                                   {"no-boundary-counters", 0, 0, 'B'},
	                                   {"rotate-sets", 0, 0, 'R'},
	                                   {"preempt", 1, 0, 'P'},
	                                   {"preempt-mean", 1, 0, 'M'},
	                                   {"phase-jitter", 1, 0, 'J'},
	                                   {"preempt-fixed", 0, 0, 'F'},
	                                   {"sample-cost", 1, 0, 'C'},
	                                   {"cputime-sampling", 0, 0, 'T'},
	                                   {"help", 0, 0, 'h'},
	                                   {0, 0, 0, 0}};
	int ch;
	while ((ch = getopt_long(argc, argv, "o:h", lo, NULL)) != -1) {
		switch (ch) {
		case 'o': out = optarg; break;
		case 's': c.seed = strtoull(optarg, NULL, 10); break;
		case 't': c.threads = (unsigned)atoi(optarg); break;
		case 'n': c.instances = (unsigned)atoi(optarg); break;
		case 'b': {
			double b[SYNTH_MAX_PHASES];
			unsigned n = parse_list(optarg, b, SYNTH_MAX_PHASES - 1);
			c.nphases = n + 1;
			c.bounds[0] = 0;
			for (unsigned i = 0; i < n; i++)
				c.bounds[i + 1] = b[i];
			c.bounds[n + 1] = 1;
			break;
		}
		case 'c': {
			if (!custom_counters)
				c.ncounters = 0;
			custom_counters = 1;
			if (c.ncounters >= SYNTH_MAX_COUNTERS)
				break;
			char *eq = strchr(optarg, '=');
			if (!eq) {
				fprintf(stderr, "fold-synth: --counter %s: expected NAME=R1,R2,...\n",
				        optarg);
				return 2;
			}
			*eq = 0;
			synth_counter *k = &c.counters[c.ncounters++];
			memset(k, 0, sizeof *k);
			k->name = optarg;
			k->kind = TRACE_COUNTER_APP;
			parse_list(eq + 1, k->rate, SYNTH_MAX_PHASES);
			break;
		}
		case 'u': parse_list(optarg, c.cpu, SYNTH_MAX_PHASES); break;
		case 'g': {
			if (!custom_groups)
				c.ngroups = 0;
			custom_groups = 1;
			if (c.ngroups >= SYNTH_MAX_GROUPS)
				break;
			synth_group *g = &c.groups[c.ngroups++];
			char *end;
			g->duration_ns = strtod(optarg, &end);
			g->weight = *end == ':' ? strtod(end + 1, &end) : 1;
			g->rate_scale = *end == ':' ? strtod(end + 1, &end) : 1;
			break;
		}
		case 'd': c.duration_jitter = atof(optarg); break;
		case 'T': c.cputime_sampling = 1; break;
		case 'p': c.period_ns = atof(optarg); break;
		case 'j': c.sample_jitter = atof(optarg); break;
		case 'z': c.noise = atof(optarg); break;
		case 'x': c.outliers = atof(optarg); break;
		case 'f': c.outlier_factor = atof(optarg); break;
		case 'B': c.boundary_counters = 0; break;
		case 'R': c.rotate_sets = 1; break;
		case 'P': c.preempt = atof(optarg); break;
		case 'M': c.preempt_mean_ns = atof(optarg); break;
		case 'F': c.preempt_fixed = 1; break;
		case 'C': {
			char *end;
			c.sample_cost_ns = strtod(optarg, &end);
			if (*end == ':')
				c.sample_handler_ns = strtod(end + 1, &end);
			if (*end == ':')
				c.sample_lag_ns = strtod(end + 1, &end);
			break;
		}
		case 'J': {
			char *end;
			c.phase_jitter = strtod(optarg, &end);
			c.jitter_phase = *end == ':' ? (unsigned)atoi(end + 1) : SYNTH_MAX_PHASES;
			break;
		}
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (!out) {
		usage(stderr);
		return 2;
	}
	if (c.jitter_phase >= c.nphases)
		c.jitter_phase = c.nphases - 1;
	synth_truth t;
	int rc = synth_write(&c, out, &t);
	if (rc) {
		fprintf(stderr, "fold-synth: %s: cannot write the trace (error %d)\n", out, rc);
		return 1;
	}
	printf("%s: %lu instances, %lu outliers, %lu samples inside instances\n", out, t.instances,
	       t.outliers, t.samples_in_instances);
	return 0;
}
