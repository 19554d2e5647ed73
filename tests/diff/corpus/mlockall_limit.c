/* mlockall_limit: an unprivileged program (nobody, RLIMIT_MEMLOCK 8 MiB)
 * locks its memory with mlockall(MCL_CURRENT), as real-time and some HPC
 * codes do, then computes: the lock succeeds as it does without fold.
 *
 * diff: needs=root
 * diff: run-as=nobody
 * diff: limits=memlock=8388608
 * diff: expect-status=exit 0
 * diff: expect-stdout=^mlockall: ok$
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include "common.h"

int main(void)
{
	burn_ms(20);
	if (mlockall(MCL_CURRENT))
		printf("mlockall: %s\n", strerror(errno));
	else
		printf("mlockall: ok\n");
	burn_ms(50);
	munlockall();
	return 0;
}
