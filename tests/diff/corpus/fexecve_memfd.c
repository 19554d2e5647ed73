/* fexecve_memfd: the program copies a helper into a memfd and fexecve()s it
 * (and execveat with AT_EMPTY_PATH) from forked children, passing an explicit
 * environment: the helper reports what it received.
 *
 * diff: args={helpers}
 * diff: expect-status=exit 0
 * diff: traces=any
 */
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static int copy_to_memfd(const char *path)
{
	int in = open(path, O_RDONLY);
	int fd = memfd_create("helper", MFD_CLOEXEC);
	char buf[65536];
	ssize_t n;
	while (in >= 0 && (n = read(in, buf, sizeof buf)) > 0)
		if (write(fd, buf, (size_t)n) != n)
			return -1;
	close(in);
	return fd;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char path[4096];
	snprintf(path, sizeof path, "%s/showstate", argv[1]);
	int fd = copy_to_memfd(path);
	burn_ms(30);
	for (int how = 0; how < 2; how++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			char *args[] = {"showstate", how ? "execveat" : "fexecve", NULL};
			char *env[] = {"ONLY=me", NULL};
			if (how)
				syscall(SYS_execveat, fd, "", args, env, AT_EMPTY_PATH);
			else
				fexecve(fd, args, env);
			_exit(127);
		}
		int st;
		waitpid(pid, &st, 0);
		printf("%s: exit %d\n", how ? "execveat" : "fexecve", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
	return 0;
}
