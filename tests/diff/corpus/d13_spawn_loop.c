/* d13_spawn_loop: 100 posix_spawn()s of /bin/true, each waited for: every
 * process may cost at most 1 ms more under fold (issue 28 defect 13: 2.3-5 ms
 * more each, loops of spawns 3-6 times slower).
 *
 * diff: expect-status=exit 0
 * diff: time=1.0+100ms
 * diff: traces=>=101
 * diff: runs=2
 */
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>

extern char **environ;

int main(void)
{
	int bad = 0;
	for (int i = 0; i < 100; i++) {
		pid_t pid;
		char *argv[] = {"true", NULL};
		int st;
		if (posix_spawn(&pid, "/bin/true", NULL, NULL, argv, environ) ||
		    waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st))
			bad++;
	}
	printf("100 spawns, %d failed\n", bad);
	return 0;
}
