/* posix_spawn_actions: posix_spawn with file actions (open a file as stdout,
 * dup2, close, chdir) and attributes (a signal mask, default dispositions,
 * a new process group), running a helper that reports what it received.
 *
 * diff: args={helpers}
 * diff: expect-status=exit 0
 * diff: traces=any
 */
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

extern char **environ;

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/showstate", argv[1]);
	signal(SIGUSR1, SIG_IGN);
	signal(SIGUSR2, SIG_IGN);
	int keep = open("/dev/null", O_RDONLY);
	burn_ms(30);
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "spawned.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	posix_spawn_file_actions_adddup2(&fa, 1, 7);
	posix_spawn_file_actions_addclose(&fa, keep);
	posix_spawnattr_t at;
	posix_spawnattr_init(&at);
	sigset_t mask, def;
	sigemptyset(&mask);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGRTMIN + 4);
	sigemptyset(&def);
	sigaddset(&def, SIGUSR2);
	posix_spawnattr_setsigmask(&at, &mask);
	posix_spawnattr_setsigdefault(&at, &def);
	posix_spawnattr_setpgroup(&at, 0);
	posix_spawnattr_setflags(&at, POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP);
	char *args[] = {"showstate", "spawned", "4", NULL};
	char *env[] = {"ONLY=this", NULL};
	pid_t pid;
	int rc = posix_spawn(&pid, path, &fa, &at, args, env);
	int st = 0;
	if (!rc)
		waitpid(pid, &st, 0);
	printf("spawn rc %d, exit %d\n", rc, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
