/* san_race.c: work, then a data race ThreadSanitizer reports every time:
 * the two writes are ordered only by a relaxed atomic flag, which is no
 * synchronisation to TSan. */
#include <pthread.h>
#include <stdio.h>

static int shared, flag;

static void *writer(void *arg)
{
	(void)arg;
	shared = 1;
	__atomic_store_n(&flag, 1, __ATOMIC_RELAXED);
	return NULL;
}

static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&flag, __ATOMIC_RELAXED))
		;
	shared = 2;
	return NULL;
}

int main(void)
{
	volatile double s = 0;
	for (long i = 0; i < 20000000; i++)
		s += (double)i * 0.5;
	pthread_t a, b;
	pthread_create(&b, NULL, reader, NULL);
	pthread_create(&a, NULL, writer, NULL);
	pthread_join(a, NULL);
	pthread_join(b, NULL);
	printf("%d %g\n", shared, s);
	return 0;
}
