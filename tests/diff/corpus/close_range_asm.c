/* close_range_asm: close_range by a system call instruction of the
 * program's own (as a runtime written in assembly or Go makes it: no
 * function, so no wrapper of fold's sees it) closes every descriptor from
 * 3; the program then opens files of its own, which get the numbers fold's
 * descriptors had, writes to each and exits. Nothing of fold's may land in
 * them: fold must find its trace descriptor is no longer its trace file
 * and open the file again by its name. It leaves fold's budget (1/8 of the
 * limit) free, so that it opens as many with fold as without.
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

static long raw3(long nr, long a, long b, long c)
{
	long ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"(nr), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
	return ret;
}

int main(void)
{
	burn_ms(50);
	if (raw3(SYS_close_range, 3, ~0U, 0))
		return fprintf(stderr, "close_range failed\n"), 1;
	int n = 0, fds[64], most = 64 - 3 - 64 / 8;
	while (n < most) {
		char name[32];
		snprintf(name, sizeof name, "f%02d.txt", n);
		int fd = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0)
			break;
		fds[n++] = fd;
	}
	printf("opened %d files (%s)\n", n, n == most ? "all" : strerror(errno));
	for (int round = 0; round < 10; round++) {
		for (int i = 0; i < n; i++) {
			char line[64];
			int len = snprintf(line, sizeof line, "round %d\n", round);
			if (write(fds[i], line, (size_t)len) != len)
				return 1;
		}
		burn_ms(20);
	}
	return 0;
}
