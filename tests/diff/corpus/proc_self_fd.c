/* proc_self_fd: the program counts its open descriptors through
 * /proc/self/fd (daemons and test frameworks check for leaks this way)
 * before and after its own work.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^leaked: 0$
 */
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "common.h"

static int count(void)
{
	DIR *d = opendir("/proc/self/fd");
	int n = 0;
	struct dirent *e;
	while (d && (e = readdir(d)))
		n += e->d_name[0] != '.';
	if (d)
		closedir(d);
	return n - 1; /* the directory's own */
}

int main(void)
{
	int before = count();
	int fd = open("/dev/null", O_RDONLY);
	burn_ms(50);
	close(fd);
	printf("open at start: %d\n", before);
	printf("leaked: %d\n", count() - before);
	return 0;
}
