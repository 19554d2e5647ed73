/* san_heap.c: two threads of work, then (with an argument) a heap buffer
 * overflow AddressSanitizer reports: for foldrun under sanitizers. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

static void *work(void *arg)
{
	volatile double s = 0;
	for (long i = 0; i < 20000000; i++)
		s += (double)i * 0.5;
	*(double *)arg = s;
	return NULL;
}

int main(int argc, char **argv)
{
	(void)argv;
	double r[2];
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, work, &r[i]);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("work %g\n", r[0] + r[1]);
	fflush(stdout); /* ASan ends the program with _exit */
	volatile char *p = malloc(8);
	if (argc > 1)
		p[argc + 8] = 1; /* planted: 2 bytes past the end */
	free((void *)p);
	return 0;
}
