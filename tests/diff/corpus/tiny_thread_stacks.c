/* tiny_thread_stacks: 8 threads on 16 KiB stacks (PTHREAD_STACK_MIN) compute
 * with deep-ish calls while sampled at 1 ms: fold's handler must not run on
 * (or overflow) these stacks.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: trace-check=--threads 9
 */
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include "common.h"

static uint64_t rec(int d)
{
	volatile char pad[64];
	pad[0] = (char)d;
	if (d == 0)
		return work_n(20000) + (uint64_t)pad[0];
	return rec(d - 1) + (uint64_t)pad[0];
}

static void *worker(void *arg)
{
	uint64_t s = 0;
	double end = cpu_s() + 0.1;
	while (cpu_s() < end)
		s += rec(20);
	return (void *)(uintptr_t)(s != 0) + (uintptr_t)arg * 0;
}

int main(void)
{
	pthread_attr_t a;
	pthread_attr_init(&a);
	pthread_attr_setstacksize(&a, PTHREAD_STACK_MIN);
	pthread_t t[8];
	int ok = 0;
	for (int i = 0; i < 8; i++)
		ok += pthread_create(&t[i], &a, worker, NULL) == 0;
	int done = 0;
	for (int i = 0; i < 8; i++) {
		void *r;
		pthread_join(t[i], &r);
		done += r != NULL;
	}
	printf("%d threads started, %d done\n", ok, done);
	return 0;
}
