/* dup2_over_top: under ulimit -n 64, dup2 of stdout onto every number from
 * 32 to 63 (where fold keeps its descriptors) and F_DUPFD to the top, each
 * written to while sampled: the program sees what it sees without fold.
 *
 * diff: limits=nofile=64
 * diff: expect-status=exit 0
 * diff: trace-check=--min-samples 1
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int ok = 0;
	for (int fd = 32; fd < 64; fd++) {
		if (dup2(1, fd) != fd) {
			printf("dup2 onto %d: %s\n", fd, strerror(errno));
			continue;
		}
		char line[32];
		int n = snprintf(line, sizeof line, "via %d\n", fd);
		if (write(fd, line, (size_t)n) == n)
			ok++;
		burn_ms(3);
	}
	printf("dup2 onto 32..63: %d written\n", ok);
	for (int fd = 32; fd < 64; fd++)
		close(fd);
	int top = fcntl(1, F_DUPFD, 60);
	printf("F_DUPFD 60 -> %d\n", top);
	printf("close of a number never opened: %s\n", close(50) ? strerror(errno) : "ok");
	burn_ms(50);
	return 0;
}
