/* prog_threads.c: thread shapes the runtime must survive.
 *   prog_threads many N   N short-lived threads (8 at a time), each one
 *                         "work" region instance and fold_count(items, 1)
 *   prog_threads exit N   N threads, each 20 "work" instances and 20 items,
 *                         ending with pthread_exit() from a nested call */
#include <fold.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_common.h"

static uint32_t work, items;

static void *short_lived(void *arg)
{
	(void)arg;
	fold_enter(work);
	volatile double x = 1;
	for (int i = 0; i < 2000; i++)
		x = x * 1.0000001;
	fold_count(items, 1);
	fold_exit(work);
	return NULL;
}

__attribute__((noinline)) static void leave_now(void) { pthread_exit(NULL); }

static void *exiting(void *arg)
{
	(void)arg;
	for (int i = 0; i < 20; i++) {
		fold_enter(work);
		burn_ms(2);
		fold_count(items, 1);
		fold_exit(work);
	}
	leave_now();
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long n = atol(argv[2]);
	work = fold_region("work");
	items = fold_counter("items");
	int many = !strcmp(argv[1], "many");
	pthread_t th[8];
	for (long done = 0; done < n;) {
		long batch = n - done < 8 ? n - done : 8;
		for (long i = 0; i < batch; i++)
			if (pthread_create(&th[i], NULL, many ? short_lived : exiting, NULL))
				return 1;
		for (long i = 0; i < batch; i++)
			pthread_join(th[i], NULL);
		done += batch;
	}
	return 0;
}
