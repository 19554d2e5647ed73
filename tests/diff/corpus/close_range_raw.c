/* close_range_raw: the raw close_range system call (not the C library's, so
 * no wrapper sees it) closes every descriptor from 3, then the program
 * fills its descriptor table (soft RLIMIT_NOFILE 64, the hard limit
 * untouched, as `ulimit -Sn 64`) with files of its own, writes to each and
 * exits: nothing of fold's may land in the program's files. It leaves
 * fold's budget (1/8 of the limit, docs/configuration.md) free, so that
 * it opens as many with fold as without (at other numbers: fold keeps its
 * own just under the limit, so the descriptor listing is not compared).
 *
 * diff: limits=nofile=64
 * diff: compare=status,stdout,stderr,files
 * diff: expect-status=exit 0
 * diff: traces=any
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	if (syscall(SYS_close_range, 3, ~0U, 0))
		return perror("close_range"), 1;
	int n = 0, fds[64], most = 64 - 3 - 64 / 8;
	while (n < most) {
		char name[32];
		snprintf(name, sizeof name, "f%02d.txt", n);
		int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			break;
		fds[n++] = fd;
	}
	printf("opened %d files (%s)\n", n, strerror(errno));
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < n; i++) {
			char line[64];
			int len = snprintf(line, sizeof line, "round %d\n", round);
			if (write(fds[i], line, (size_t)len) != len)
				return 1;
		}
		burn_ms(10);
	}
	/* Left open: they are closed by the exit, after fold's last writes. */
	return 0;
}
