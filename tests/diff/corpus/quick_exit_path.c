/* quick_exit_path: at_quick_exit handlers, then quick_exit(6) after 100
 * regions: the handlers run, atexit's do not, and fold's trace keeps all of
 * the program's regions and ends as a normal exit.
 *
 * diff: build={stub}
 * diff: expect-status=exit 6
 * diff: trace-check=--regions step=100
 * diff: summary-not=did not end normally|killed|died of
 */
#include <stdio.h>
#include <stdlib.h>
#include "fold.h"
#include "common.h"

static void quick(void)
{
	printf("at_quick_exit handler\n");
	fflush(stdout);
}

static void normal(void)
{
	printf("atexit handler (must not run)\n");
}

int main(void)
{
	at_quick_exit(quick);
	atexit(normal);
	uint32_t r = fold_region("step");
	for (int i = 0; i < 100; i++) {
		fold_enter(r);
		burn_ms(2);
		fold_exit(r);
	}
	quick_exit(6);
}
