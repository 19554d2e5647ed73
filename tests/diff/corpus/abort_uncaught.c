/* abort_uncaught: a failed assert() (abort, no handler) after 50 regions:
 * the program dies of SIGABRT as without fold, with the assertion message,
 * and the trace keeps the regions and says how the program ended.
 *
 * diff: build={stub}
 * diff: expect-status=signal SIGABRT
 * diff: normalize=pids
 * diff: trace-check=--regions step=50 --stat exit.signal=6
 * diff: summary-has=died of SIGABRT
 */
#include <assert.h>
#include <stdio.h>
#include "fold.h"
#include "common.h"

int main(void)
{
	uint32_t r = fold_region("step");
	int i;
	for (i = 0; i < 50; i++) {
		fold_enter(r);
		burn_ms(2);
		fold_exit(r);
	}
	printf("about to fail\n");
	fflush(stdout);
	assert(i == 0);
	return 0;
}
