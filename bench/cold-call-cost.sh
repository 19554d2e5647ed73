#!/bin/sh
# cold-call-cost.sh [MB...]: what calling a function costs when the code it
# runs was evicted, in a program without fold. A loop streams MB megabytes
# (default 8, 64 and 300: a solver's vectors to its matrix), then times a
# call of an empty function in a page of its own with the TSC right around
# it (fenced), 200 times; the same call right after is the warm figure.
# Prints the medians per size. Why it matters: -finstrument-functions puts
# the hooks' clocks inside the function, after its entry and before its
# return, so a cold call's own entry and return are in a program's timer
# around the call and outside the hooks' clocks. The exit hook of a cold
# call reads the caller's code at the return address to move the return
# into the call (docs/regions.md, "Cold returns"); the entry stays outside
# every time fold measures (docs/validation.md).
#   sh bench/cold-call-cost.sh
set -eu
[ "$(uname -m)" = x86_64 ] || { echo "the reference reads the TSC (x86_64 only)"; exit 2; }
[ $# -gt 0 ] || set -- 8 64 300
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/cold_call.c" <<'C'
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
static inline uint64_t tsc(void)
{
	__builtin_ia32_lfence();
	uint64_t t = __builtin_ia32_rdtsc();
	__builtin_ia32_lfence();
	return t;
}
__attribute__((noinline, aligned(4096))) double leaf(long n)
{
	__asm__ volatile("");
	return (double)n;
}
static int cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}
int main(int argc, char **argv)
{
	enum { REPS = 200 };
	long bytes = atol(argv[1]) << 20;
	double *buf = malloc(bytes);
	if (!buf)
		return 1;
	memset(buf, 1, bytes);
	struct timeval a, b;
	gettimeofday(&a, 0);
	uint64_t c0 = tsc();
	do
		gettimeofday(&b, 0);
	while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_usec - a.tv_usec) < 200000);
	double ns_per_tick = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_usec - a.tv_usec) * 1e3) / (double)(tsc() - c0);
	static uint64_t cold[REPS], warm[REPS], empty[REPS];
	volatile double sink = 0;
	for (int r = 0; r < REPS; r++) {
		for (long i = 0; i < bytes / 8; i += 8)
			sink += buf[i];
		uint64_t t0 = tsc();
		sink += leaf(1);
		uint64_t t1 = tsc();
		sink += leaf(2);
		uint64_t t2 = tsc();
		uint64_t t3 = tsc();
		cold[r] = t1 - t0, warm[r] = t2 - t1, empty[r] = t3 - t2;
	}
	qsort(cold, REPS, 8, cmp), qsort(warm, REPS, 8, cmp), qsort(empty, REPS, 8, cmp);
	printf("%5ld MB streamed before: cold call %4.0f ns, warm %3.0f ns, the timer alone %3.0f ns (medians of %d)\n",
	       bytes >> 20, cold[REPS / 2] * ns_per_tick, warm[REPS / 2] * ns_per_tick,
	       empty[REPS / 2] * ns_per_tick, REPS);
	return 0;
}
C
cc -O2 -o "$tmp/cold_call" "$tmp/cold_call.c"
for mb in "$@"; do
	"$tmp/cold_call" "$mb"
done
echo "reproduce: sh bench/cold-call-cost.sh $*"
