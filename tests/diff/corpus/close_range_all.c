/* close_range_all: close_range(3, ~0) and closefrom(3) through the C library,
 * then 30 files opened at the numbers they get without fold, written while
 * sampled at 1 ms and read back: fold's own descriptors must survive and
 * never touch the program's.
 *
 * diff: expect-status=exit 0
 * diff: trace-check=--min-samples 1
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	if (close_range(3, ~0U, 0))
		return perror("close_range"), 1;
	closefrom(3);
	int fds[30];
	for (int i = 0; i < 30; i++) {
		char name[32];
		snprintf(name, sizeof name, "f%02d.txt", i);
		fds[i] = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
		printf("%s -> fd %d\n", name, fds[i]);
	}
	for (int round = 0; round < 20; round++) {
		for (int i = 0; i < 30; i++) {
			char line[64];
			int n = snprintf(line, sizeof line, "round %d file %d\n", round, i);
			if (write(fds[i], line, (size_t)n) != n)
				return 1;
		}
		burn_ms(5);
	}
	for (int i = 0; i < 30; i++)
		close(fds[i]);
	return 0;
}
