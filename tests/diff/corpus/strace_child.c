/* strace_child: the program run under strace -f (a tracer sees every signal
 * its tracee receives): strace's own report of signals and exit must be the
 * same with fold as without.
 *
 * diff: needs=strace
 * diff: cmd=strace -f -qq -e trace=exit_group -e signal=all {fold} {exe}
 * diff: expect-status=exit 0
 * diff: normalize=pids
 * diff: sub=/(?m)^\[pid +\d+\] /[pid N] /
 * diff: sub=/(?m)^exit_group\(0\) += \?\n$//
 * diff: compare=status,stdout,stderr,files
 * diff: runs=1
 */
#include <signal.h>
#include <stdio.h>
#include "common.h"

int main(void)
{
	burn_ms(100);
	raise(SIGCHLD);
	printf("done\n");
	return 0;
}
