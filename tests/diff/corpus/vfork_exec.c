/* vfork_exec: vfork() then execve of /bin/echo and of a missing program,
 * 50 times, while sampled: the parent's memory and descriptors are shared
 * with the child until its exec (fold must not touch the child).
 *
 * diff: expect-status=exit 0
 * diff: hostile=yes
 * diff: traces=>=1
 */
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

extern char **environ;

int main(void)
{
	int ok = 0, missing = 0;
	for (int i = 0; i < 50; i++) {
		fflush(stdout);
		pid_t pid = vfork();
		if (pid == 0) {
			char *argv[] = {"echo", "-n", "", NULL};
			execve(i % 5 ? "/bin/echo" : "/nonexistent/program", argv, environ);
			_exit(127);
		}
		int st;
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st))
			WEXITSTATUS(st) == 127 ? missing++ : ok++;
		burn_ms(2);
	}
	printf("vfork: %d ran, %d missing\n", ok, missing);
	return 0;
}
