/* sigmask_exec: the program blocks SIGUSR1 and SIGRTMIN+1, ignores SIGUSR2
 * and SIGINT, catches SIGHUP, then execs a helper without fold (explicit
 * environment): the kernel's view of the new image (blocked, ignored,
 * caught, descriptors) is the program's, with nothing of fold's.
 *
 * diff: args={helpers}
 * diff: expect-status=exit 0
 */
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "common.h"

static void on_hup(int sig)
{
	(void)sig;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGRTMIN + 1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGUSR2, SIG_IGN);
	signal(SIGINT, SIG_IGN);
	signal(SIGHUP, on_hup);
	burn_ms(50);
	char path[4096];
	snprintf(path, sizeof path, "%s/showstate", argv[1]);
	char *args[] = {"showstate", "after-exec", NULL};
	char *env[] = {"PATH=/usr/bin:/bin", NULL};
	fflush(stdout);
	execve(path, args, env);
	return 1;
}
