/* prog_fork.c: fork with another thread running.
 *   prog_fork exit|_exit: the parent runs 10 "parent" instances, starts a
 *   spinning thread, forks; the child runs 5 "child" instances (5 items) and
 *   ends with exit() or _exit(); the parent waits, then 10 more "parent". */
#include <fold.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog_common.h"

static volatile int stop;

static void *spinner(void *arg)
{
	(void)arg;
	while (!stop)
		burn_ms(1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	uint32_t parent = fold_region("parent"), child = fold_region("child");
	uint32_t items = fold_counter("items");
	for (int i = 0; i < 10; i++) {
		fold_enter(parent);
		burn_ms(2);
		fold_exit(parent);
	}
	pthread_t th;
	pthread_create(&th, NULL, spinner, NULL);
	pid_t pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 5; i++) {
			fold_enter(child);
			burn_ms(10);
			fold_count(items, 1);
			fold_exit(child);
		}
		if (!strcmp(argv[1], "_exit"))
			_exit(0);
		exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	for (int i = 0; i < 10; i++) {
		fold_enter(parent);
		burn_ms(2);
		fold_exit(parent);
	}
	stop = 1;
	pthread_join(th, NULL);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
