/* daemonize: the classic daemon start: fork, setsid, fork again, chdir /,
 * umask 0, close every descriptor and reopen /dev/null; the daemon writes a
 * file (by absolute path) and tells the original process through a pipe
 * before it exits.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^daemon says: sid=pid 0, pgrp=pid 0, fds 0-2 null, cwd /$
 * diff: traces=>=1
 */
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	int p[2];
	char here[PATH_MAX], path[PATH_MAX + 16];
	if (pipe(p) || !getcwd(here, sizeof here))
		return 1;
	snprintf(path, sizeof path, "%s/daemon.out", here);
	fflush(stdout);
	pid_t first = fork();
	if (first == 0) {
		setsid();
		if (fork() != 0)
			_exit(0);
		if (chdir("/"))
			_exit(1);
		umask(0);
		int keep = p[1];
		for (int fd = 0; fd < 1024; fd++)
			if (fd != keep)
				close(fd);
		open("/dev/null", O_RDWR);
		dup(0);
		dup(0);
		burn_ms(100);
		struct stat a, b;
		stat("/dev/null", &a);
		int null = 1;
		for (int fd = 0; fd < 3; fd++)
			if (fstat(fd, &b) || b.st_rdev != a.st_rdev)
				null = 0;
		char cwd[64] = "";
		if (!getcwd(cwd, sizeof cwd))
			cwd[0] = '?';
		char msg[256];
		int n =
		    snprintf(msg, sizeof msg, "sid=pid %d, pgrp=pid %d, fds 0-2 %s, cwd %s\n",
		             getsid(0) == getpid(), getpgrp() == getpid(), null ? "null" : "not null", cwd);
		int f = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (f >= 0) {
			write(f, msg, (size_t)n);
			close(f);
		}
		write(keep, msg, (size_t)n);
		_exit(0);
	}
	close(p[1]);
	waitpid(first, NULL, 0);
	char buf[256];
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("daemon says: %s", buf);
	return 0;
}
