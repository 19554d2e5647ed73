/* prctl_state: the program sets no_new_privs, dumpable 0, a parent-death
 * signal, its name and timer slack, then reads them back, and a forked child
 * execs a helper that reports what it inherited.
 *
 * diff: args={helpers}
 * diff: expect-status=exit 0
 * diff: traces=any
 */
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	prctl(PR_SET_DUMPABLE, 0);
	prctl(PR_SET_PDEATHSIG, SIGUSR2);
	prctl(PR_SET_NAME, "renamed");
	prctl(PR_SET_TIMERSLACK, 123456);
	burn_ms(50);
	int pd = 0;
	char name[17] = "";
	prctl(PR_GET_PDEATHSIG, &pd);
	prctl(PR_GET_NAME, name);
	printf("no_new_privs %d dumpable %d pdeathsig %d name %s slack %d\n",
	       prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0), prctl(PR_GET_DUMPABLE), pd, name,
	       prctl(PR_GET_TIMERSLACK));
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char path[4096];
		snprintf(path, sizeof path, "%s/showstate", argv[1]);
		char *args[] = {"showstate", NULL};
		char *env[] = {NULL};
		execve(path, args, env);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
