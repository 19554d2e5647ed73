/* unshare_pid: unshare(CLONE_NEWPID) then fork: the child is pid 1 of a new
 * namespace (it ignores signals it has no handler for), computes while
 * sampled, forks a grandchild of its own, and exits with a code.
 *
 * diff: needs=root
 * diff: expect-status=exit 0
 * diff: expect-stdout=^child: pid 1, grandchild pid 2 exited 5$
 * diff: traces=>=2
 */
#include <sched.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	if (unshare(CLONE_NEWPID))
		return perror("unshare"), 1;
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		burn_ms(100);
		fflush(stdout);
		pid_t gc = fork();
		if (gc == 0) {
			burn_ms(30);
			_exit(5);
		}
		int st;
		waitpid(gc, &st, 0);
		printf("child: pid %d, grandchild pid %d exited %d\n", (int)getpid(), (int)gc,
		       WIFEXITED(st) ? WEXITSTATUS(st) : -1);
		return 4;
	}
	int st;
	waitpid(pid, &st, 0);
	printf("namespace init exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
