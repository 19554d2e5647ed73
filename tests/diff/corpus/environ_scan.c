/* environ_scan: a program that checks its environment holds only what it
 * was given (some launchers and test frameworks do), at start, in a child
 * that execs itself with the inherited environment, and through system():
 * the runner's own settings (LD_PRELOAD, FOLD_SAMPLE, FOLD_OUTPUT) are
 * removed before comparing; anything else fold adds shows.
 *
 * diff: expect-status=exit 0
 * diff: sub=/(?m)^(\w+: )(LD_PRELOAD|FOLD_SAMPLE|FOLD_OUTPUT)=.*\n//
 * diff: traces=any
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void show(const char *who)
{
	size_t n = 0;
	while (environ[n])
		n++;
	qsort(environ, n, sizeof *environ, cmp);
	for (size_t i = 0; i < n; i++)
		printf("%s: %s\n", who, environ[i]);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	if (argc > 1) {
		show(argv[1]);
		return 0;
	}
	show("main");
	pid_t pid = fork();
	if (pid == 0) {
		char *args[] = {argv[0], "exec", NULL};
		execv("/proc/self/exe", args);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	fflush(stdout);
	if (system("env | LC_ALL=C sort | sed 's/^/system: /'") != 0)
		return 1;
	return 0;
}
