/* exec_static_setuid: the program execs a static program and a setuid one
 * (a copy of a helper owned by nobody, mode 4755), each from a forked child
 * with the inherited environment: neither can load fold, and each must see
 * the signals, mask and descriptors the kernel gives it without fold.
 *
 * diff: needs=root
 * diff: args={helpers}
 * diff: expect-status=exit 0
 * diff: expect-stdout=euid 65534 secure 1
 * diff: traces=any
 * diff: ignore-files=suid_showstate
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

extern char **environ;

static void run(const char *path)
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {"showstate", "x", NULL};
		execve(path, argv, environ);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("%s: status %d\n", strrchr(path, '/') + 1, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char cmd[4096];
	snprintf(cmd, sizeof cmd, "cp %s/showstate suid_showstate", argv[1]);
	if (system(cmd) || chown("suid_showstate", 65534, 65534) || chmod("suid_showstate", 04755))
		return perror("suid copy"), 1;
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGUSR2, SIG_IGN);
	burn_ms(30);
	snprintf(cmd, sizeof cmd, "%s/showstate_static", argv[1]);
	run(cmd);
	run("./suid_showstate");
	return 0;
}
