/* fork_child_exit: children that end in each way a child ends: _exit(7)
 * with stdio output left in the parent's copied buffer (must not be written
 * twice), exit(8) (which flushes it), return through a signal, and _Exit;
 * each writes a trace of its own.
 *
 * diff: expect-status=exit 0
 * diff: hostile=yes
 * diff: traces=5
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	printf("parent's unflushed line\n");
	for (int how = 0; how < 4; how++) {
		pid_t pid = fork();
		if (pid == 0) {
			burn_ms(20);
			if (how == 0)
				_exit(7);
			if (how == 1)
				exit(8);
			if (how == 2)
				raise(SIGTERM);
			_Exit(9);
		}
		int st;
		waitpid(pid, &st, 0);
		fprintf(stderr, "child %d: %s %d\n", how, WIFSIGNALED(st) ? "signal" : "exit",
		        WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	}
	return 0;
}
