/* d08_fd2_reused: the program closes fd 2 and its next file gets that
 * number: a data file (issue 28 defect 8: fold's "wrote ..." line was
 * appended to it).
 *
 * diff: expect-status=exit 0
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	close(2);
	int fd = open("data.txt", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd != 2)
		return printf("data file got fd %d\n", fd), 1;
	for (int i = 0; i < 50; i++) {
		char line[64];
		int n = snprintf(line, sizeof line, "record %d\n", i);
		if (write(fd, line, (size_t)n) != n)
			return 1;
		burn_ms(4);
	}
	printf("data file on fd 2\n");
	return 0;
}
