/* d14_exit_group: 100 regions of 4 ms, then the raw exit_group system call
 * (every Go program ends so): the trace keeps everything and the run is not
 * reported as killed (issue 28 defect 14).
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: trace-check=--regions work=100
 * diff: summary-not=did not end normally|died of|killed
 * diff: dump-has=thread_end
 */
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "fold.h"
#include "common.h"

int main(void)
{
	uint32_t r = fold_region("work");
	for (int i = 0; i < 100; i++) {
		fold_enter(r);
		burn_ms(4);
		fold_exit(r);
	}
	printf("done\n");
	fflush(stdout);
	syscall(SYS_exit_group, 0);
	return 1;
}
