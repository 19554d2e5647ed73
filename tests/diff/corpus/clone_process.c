/* clone_process: clone() without CLONE_THREAD (a process on a stack of its
 * own, the way container runtimes start one), then CLONE_VM|CLONE_VFORK:
 * each child computes, writes a file and exits with its code.
 *
 * diff: expect-status=exit 0
 * diff: traces=>=1
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static int child(void *arg)
{
	burn_ms(50);
	FILE *f = fopen((const char *)arg, "w");
	if (f) {
		fprintf(f, "child of clone\n");
		fclose(f);
	}
	return 7;
}

static int vm_child(void *arg)
{
	*(volatile int *)arg = 42;
	_exit(9);
}

int main(void)
{
	size_t size = 1 << 20;
	char *stack = malloc(size);
	pid_t pid = clone(child, stack + size, SIGCHLD, "clone.txt");
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return perror("clone"), 1;
	printf("clone child exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	volatile int shared = 0;
	pid = clone(vm_child, stack + size, CLONE_VM | CLONE_VFORK | SIGCHLD, (void *)&shared);
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return perror("clone vm"), 1;
	printf("vm child exited %d, wrote %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1, shared);
	burn_ms(50);
	return 0;
}
