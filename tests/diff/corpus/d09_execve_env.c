/* d09_execve_env: execve with an explicit environment, an empty one, and a
 * copy of environ plus one variable; each new image prints what it got
 * (issue 28 defect 9: fold injected FOLD_EXEC_GENERATION).
 *
 * diff: expect-status=exit 0
 * diff: sub=/(?m)^  (LD_PRELOAD|FOLD_SAMPLE|FOLD_OUTPUT)=.*\n//
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

static void run(const char *label, char *const envp[])
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		char *argv[] = {"d09_execve_env", "print", (char *)label, NULL};
		execve("/proc/self/exe", argv, envp);
		_exit(127);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("%s: status %d\n", label, WIFEXITED(st) ? WEXITSTATUS(st) : -1);
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "print")) {
		size_t n = 0;
		while (environ[n])
			n++;
		qsort(environ, n, sizeof *environ, cmp);
		printf("%s sees:\n", argv[2]);
		for (size_t i = 0; i < n; i++)
			printf("  %s\n", environ[i]);
		return 0;
	}
	char *explicit[] = {"A=1", "B=two", NULL};
	char *empty[] = {NULL};
	run("explicit", explicit);
	run("empty", empty);
	size_t n = 0;
	while (environ[n])
		n++;
	char **copy = calloc(n + 2, sizeof *copy);
	memcpy(copy, environ, n * sizeof *copy);
	copy[n] = "ADDED=yes";
	run("copy", copy);
	return 0;
}
