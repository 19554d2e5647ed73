/* sigpipe_modes: writes to a pipe without a reader with SIGPIPE ignored
 * (EPIPE), handled (the handler runs, then EPIPE) and at its default (the
 * writer dies of SIGPIPE), each in a child; the parent reports how each
 * ended.
 *
 * diff: expect-status=exit 0
 * diff: hostile=yes
 * diff: traces=>=1
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static volatile sig_atomic_t handled;

static void on_pipe(int sig)
{
	(void)sig;
	handled++;
}

static void child(int mode)
{
	int p[2];
	if (pipe(p))
		_exit(90);
	close(p[0]);
	if (mode == 0)
		signal(SIGPIPE, SIG_IGN);
	else if (mode == 1)
		signal(SIGPIPE, on_pipe);
	burn_ms(20);
	ssize_t r = write(p[1], "x", 1);
	printf("mode %d: write %zd (%s), handled %d\n", mode, r, r < 0 ? strerror(errno) : "ok",
	       (int)handled);
	fflush(stdout);
	_exit(0);
}

int main(void)
{
	for (int mode = 0; mode < 3; mode++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			child(mode);
		int st;
		waitpid(pid, &st, 0);
		if (WIFSIGNALED(st))
			printf("mode %d: child killed by signal %d\n", mode, WTERMSIG(st));
		else
			printf("mode %d: child exited %d\n", mode, WEXITSTATUS(st));
	}
	return 0;
}
