/* exec_from_thread: a second thread calls execv while the main thread and a
 * third one compute (the kernel ends the other threads): the new image runs
 * with the same pid and prints, and each image leaves its trace.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: expect-stdout=^new image after exec from a thread$
 * diff: traces=2
 */
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static char *self;

static void *execer(void *arg)
{
	(void)arg;
	burn_ms(80);
	char *args[] = {self, "image2", NULL};
	fflush(stdout);
	execv("/proc/self/exe", args);
	return NULL;
}

static void *spinner(void *arg)
{
	for (;;)
		work_n(10000);
	return arg;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "image2")) {
		burn_ms(30);
		printf("new image after exec from a thread\n");
		return 0;
	}
	self = argv[0];
	printf("first image\n");
	pthread_t a, b;
	pthread_create(&b, NULL, spinner, NULL);
	pthread_create(&a, NULL, execer, NULL);
	for (;;)
		work_n(10000);
}
