/* d11_gdb: the program run under gdb -batch -ex run: gdb must see it run to
 * its end (issue 28 defect 11: gdb stopped at fold's first sample and the
 * session ended).
 *
 * diff: needs=gdb
 * diff: cmd=gdb -nx -batch -ex run --args {fold} {exe}
 * diff: expect-stdout=exited with code 03
 * diff: normalize=pids
 * diff: sub=/\[Inferior 1 \(process <PID>\)/[Inferior 1 (process P)/
 * diff: sub=/(?m)^process (\d+|<PID>) is executing new program: .*\n//
 * diff: sub=/(?m)^\[(New|Thread) .*\n//
 * diff: sub=/(?m)^Using host libthread_db.*\n//
 * diff: compare=status,stdout,stderr,files
 * diff: timeout=60
 * diff: runs=1
 */
#include <stdio.h>
#include "common.h"

int main(void)
{
	burn_ms(300);
	printf("finished the work\n");
	return 3;
}
