/* phases.c: a repetitive region with two clearly different phases.
 *
 * Each iteration of the "timestep" region first runs a fast phase (four
 * independent multiply-add chains: many flops per second) and then a slow
 * phase (a chain of divisions: few flops per second), counting the flops it
 * does in the app-defined counter "flops". Folded by fold, the flops rate
 * over the timestep shows the two phases: high in the first half, low in the
 * second.
 *
 *   cc phases.c -o phases $(pkg-config --cflags --libs fold)
 *   foldrun ./phases            (or LD_PRELOAD=libfold.so ./phases)
 *   fold fold.phases.*.trace -o report.html
 *
 * Arguments: [iterations (default 300)] [work scale (default 1.0)].
 */
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>

/* Flops are counted every BLOCK inner iterations, so the counter rises
 * smoothly rather than once per phase. */
#define BLOCK 1000

static double fast_phase(double x, long n, uint32_t flops)
{
	double a = x, b = x + 1, c = x + 2, d = x + 3;
	for (long i = 0; i < n; i += BLOCK) {
		for (int k = 0; k < BLOCK; k++) {
			a = a * 0.999999 + 0.5;
			b = b * 0.999998 + 0.25;
			c = c * 0.999997 + 0.125;
			d = d * 0.999996 + 0.0625;
		}
		fold_count(flops, 8 * BLOCK); /* 4 chains x (mul + add) */
	}
	return a + b + c + d;
}

static double slow_phase(double x, long n, uint32_t flops)
{
	double y = x + 1;
	for (long i = 0; i < n; i += BLOCK) {
		for (int k = 0; k < BLOCK; k++)
			y = 1.0 + 1.0 / y; /* one division + one add, latency-bound */
		fold_count(flops, 2 * BLOCK);
	}
	return y;
}

int main(int argc, char **argv)
{
	long iterations = argc > 1 ? atol(argv[1]) : 300;
	double scale = argc > 2 ? atof(argv[2]) : 1.0;
	if (iterations <= 0 || scale <= 0) {
		fprintf(stderr, "usage: %s [iterations > 0] [scale > 0]\n", argv[0]);
		return 2;
	}
	uint32_t step = fold_region("timestep");
	uint32_t flops = fold_counter("flops");
	long n_fast = (long)(1500000 * scale) / BLOCK * BLOCK;
	long n_slow = (long)(600000 * scale) / BLOCK * BLOCK;
	double acc = 0;
	for (long it = 0; it < iterations; it++) {
		fold_enter(step);
		acc += fast_phase(acc * 1e-300, n_fast, flops);
		acc += slow_phase(acc * 1e-300, n_slow, flops);
		fold_exit(step);
	}
	printf("%ld timesteps, %ld flops per timestep, checksum %.6g\n", iterations, 8 * n_fast + 2 * n_slow,
	       acc);
	return 0;
}
