/* d12_nofile16: under ulimit -n 16 the program opens files until EMFILE
 * (issue 28 defect 12: it opened 8 files instead of 12 under fold; the docs
 * promise fold at most 1/8 of the limit).
 *
 * diff: limits=nofile=16
 * diff: expect-status=exit 0
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	burn_ms(50);
	int n = 0, fds[64];
	while (n < 64 && (fds[n] = open("/dev/null", O_RDONLY)) >= 0)
		n++;
	printf("opened %d files, then %s\n", n, strerror(errno));
	while (n > 0)
		close(fds[--n]);
	return 0;
}
