/* prog_exec.c: an exec chain.
 *   prog_exec K: 5 "step" instances, then re-executes itself with K-1 (by
 *   execv, execvp or execl in turn) until K is 0; the last image also runs
 *   system("exit 0") and posix_spawn(/bin/true).
 *   prog_exec clean N: N times: sample hard for 30 ms, fork, and exec a
 *   program without LD_PRELOAD in the child; every child must exit 0 (a
 *   pending sampling signal reaching it would kill it). */
#include <fold.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "prog_common.h"

extern char **environ;

static int clean_children(int n)
{
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	for (int i = 0; i < n; i++) {
		burn_ms(30);
		pid_t pid = fork();
		if (pid == 0) {
			burn_ms(5);
			char *argv[] = {"sh", "-c", "i=0; while [ $i -lt 2000 ]; do i=$((i+1)); done", NULL};
			execve("/bin/sh", argv, env);
			_exit(127);
		}
		int status;
		waitpid(pid, &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "child %d: status %#x\n", i, status);
			return 1;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 2 && !strcmp(argv[1], "clean"))
		return clean_children(atoi(argv[2]));
	int k = argc > 1 ? atoi(argv[1]) : 0;
	uint32_t step = fold_region("step");
	for (int i = 0; i < 5; i++) {
		fold_enter(step);
		burn_ms(5);
		fold_exit(step);
	}
	char next[16];
	snprintf(next, sizeof next, "%d", k - 1);
	if (k > 0) {
		char *args[] = {argv[0], next, NULL};
		switch (k % 3) {
		case 0: execv("/proc/self/exe", args); break;
		case 1: execvp(argv[0], args); break;
		default: execl("/proc/self/exe", argv[0], next, (char *)NULL); break;
		}
		perror("exec");
		return 1;
	}
	if (system("exit 0") != 0)
		return 1;
	pid_t pid;
	char *targs[] = {"true", NULL};
	if (posix_spawn(&pid, "/bin/true", NULL, NULL, targs, environ))
		return 1;
	int status;
	waitpid(pid, &status, 0);
	/* An exec that fails must leave us measuring. */
	char *bad[] = {"/nonexistent", NULL};
	execv("/nonexistent/program", bad);
	fold_enter(step);
	burn_ms(5);
	fold_exit(step);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
