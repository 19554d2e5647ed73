/* exec_null_args: execve with a NULL argv and a NULL envp (Linux runs the
 * program with empty ones), and execve of a path that does not exist with
 * them, from forked children: exec wrappers must not dereference them.
 *
 * diff: args={helpers}
 * diff: expect-status=exit 0
 * diff: traces=any
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static void run(const char *path)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		burn_ms(10);
		execve(path, NULL, NULL);
		printf("execve %s: %s\n", strrchr(path, '/') + 1, strerror(errno));
		fflush(stdout);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	if (WIFSIGNALED(st))
		printf("child killed by signal %d\n", WTERMSIG(st));
	else
		printf("child exited %d\n", WEXITSTATUS(st));
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/showstate", argv[1]);
	run(path);
	run("/nonexistent/program");
	return 0;
}
