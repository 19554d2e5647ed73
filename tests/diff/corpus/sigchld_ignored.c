/* sigchld_ignored: SIGCHLD set to SIG_IGN (children are reaped by the
 * kernel): waitpid then fails with ECHILD once they are gone, and SA_NOCLDWAIT
 * does the same; system() still returns its child's status.
 *
 * diff: expect-status=exit 0
 * diff: traces=>=1
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static void children(const char *how)
{
	for (int i = 0; i < 10; i++) {
		fflush(stdout);
		if (fork() == 0) {
			burn_ms(5);
			_exit(i);
		}
	}
	int st, n = 0;
	pid_t r;
	while ((r = waitpid(-1, &st, 0)) > 0)
		n++;
	printf("%s: waitpid reaped %d, then %s\n", how, n, strerror(errno));
}

int main(void)
{
	signal(SIGCHLD, SIG_IGN);
	children("SIG_IGN");
	int st = system("exit 3");
	printf("system under SIG_IGN: %d\n", st);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = SIG_DFL;
	sa.sa_flags = SA_NOCLDWAIT;
	sigaction(SIGCHLD, &sa, NULL);
	children("SA_NOCLDWAIT");
	signal(SIGCHLD, SIG_DFL);
	children("SIG_DFL");
	return 0;
}
