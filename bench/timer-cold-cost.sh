#!/bin/sh
# timer-cold-cost.sh [N] [CALLS]: what an application's own timer adds to the
# calls it times, without fold. A WAXPBY over three arrays of N doubles
# (default 884736: miniFE's 96^3 vectors, 21 MB) is timed CALLS times by a
# gettimeofday timer in its own compilation unit (as miniFE's mytimer) and
# by the TSC read right inside it; the difference per interval is the
# timer's own cost: its return after the first clock read and, after a
# kernel that streamed past the caches and TLBs, its cold call before the
# second. Then the same with 16 doubles (everything warm). Why it matters:
# a 0.05% comparison needs a reference better than 0.05%
# (docs/validation.md, "The app's timer as a reference").
#   sh bench/timer-cold-cost.sh
set -eu
n=${1:-884736}
calls=${2:-600}
[ "$(uname -m)" = x86_64 ] || { echo "the reference reads the TSC (x86_64 only)"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/timer.c" <<'C'
#include <sys/time.h>
double app_timer(void);
double app_timer(void)
{
	struct timeval tv;
	gettimeofday(&tv, 0);
	return (double)tv.tv_sec + tv.tv_usec / 1000000.0;
}
C
cat >"$tmp/kernel.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
double app_timer(void);
static double *a, *b, *c;
__attribute__((noinline)) static void waxpby(double alpha, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		c[i] = a[i] + alpha * b[i];
}
int main(int argc, char **argv)
{
	unsigned n = (unsigned)atoi(argv[1]);
	int calls = atoi(argv[2]);
	a = malloc(n * 8.0), b = malloc(n * 8.0), c = malloc(n * 8.0);
	for (unsigned i = 0; i < n; i++)
		a[i] = b[i] = c[i] = i;
	double w0 = app_timer(), w;
	uint64_t t0 = __builtin_ia32_rdtsc();
	while ((w = app_timer()) - w0 < 0.5)
		;
	double hz = (double)(__builtin_ia32_rdtsc() - t0) / (w - w0);
	double app = 0;
	uint64_t tsc = 0;
	for (int k = 0; k < calls; k++) {
		double s = app_timer();
		uint64_t r0 = __builtin_ia32_rdtsc();
		waxpby(0.5, n);
		uint64_t r1 = __builtin_ia32_rdtsc();
		app += app_timer() - s;
		tsc += r1 - r0;
	}
	double in = (double)tsc / hz;
	printf("%u doubles: %.3f us per call by the TSC inside; the app's timer %+.3f us per interval over it (%+.3f%%)\n",
	       n, 1e6 * in / calls, 1e6 * (app - in) / calls, 100 * (app - in) / in);
	return 0;
}
C
cc -O3 -o "$tmp/timer-cold" "$tmp/kernel.c" "$tmp/timer.c"
"$tmp/timer-cold" "$n" "$calls"
"$tmp/timer-cold" 16 100000
echo "reproduce: sh bench/timer-cold-cost.sh $n $calls"
