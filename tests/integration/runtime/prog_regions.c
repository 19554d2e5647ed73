/* prog_regions.c: a known number of region instances and counted work.
 * Usage: prog_regions ITERATIONS. Each iteration enters "outer", runs three
 * "inner" instances of ~0.5 ms of arithmetic, counts 7 "items" per inner,
 * and exits "outer". Totals: ITERATIONS outer, 3*ITERATIONS inner, 21*ITERATIONS items. */
#include <fold.h>
#include <stdio.h>
#include <stdlib.h>

__attribute__((noinline)) static double spin(double x, long n)
{
	for (long i = 0; i < n; i++)
		x = x * 0.9999999 + 1e-7;
	return x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100;
	uint32_t outer = fold_region("outer");
	uint32_t inner = fold_region("inner");
	uint32_t items = fold_counter("items");
	if (fold_region("outer") != outer || fold_counter("items") != items) {
		fprintf(stderr, "ids are not idempotent\n");
		return 1;
	}
	double x = 1;
	for (long i = 0; i < n; i++) {
		fold_enter(outer);
		for (int k = 0; k < 3; k++) {
			fold_enter(inner);
			x = spin(x, 300000);
			fold_count(items, 7);
			fold_exit(inner);
		}
		fold_exit(outer);
	}
	printf("%g\n", x);
	return 0;
}
