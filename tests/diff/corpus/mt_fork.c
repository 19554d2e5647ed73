/* mt_fork: two threads compute (sampled at 1 ms) while the main thread
 * forks 30 children, each of which computes a little and exits: no child
 * may hang on a lock another thread held at the fork.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: timeout=40
 * diff: traces=>=31
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static volatile int stop;

static void *spinner(void *arg)
{
	uint64_t x = 0;
	while (!stop) {
		void *p = malloc(64);
		x += work_n(5000) + (uintptr_t)p % 2;
		free(p);
	}
	return (void *)(uintptr_t)x;
}

int main(void)
{
	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, spinner, NULL);
	int ok = 0;
	for (int i = 0; i < 30; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			void *p = malloc(100);
			burn_ms(1);
			free(p);
			_exit(i % 3);
		}
		int st;
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == i % 3)
			ok++;
	}
	stop = 1;
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	printf("%d children exited as expected\n", ok);
	return 0;
}
