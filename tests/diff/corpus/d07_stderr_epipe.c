/* d07_stderr_epipe: stderr is a pipe whose reader has gone; the program never
 * writes to it (issue 28 defect 7: fold's start-up notice raised SIGPIPE and
 * killed the program before main).
 *
 * diff: stderr=brokenpipe
 * diff: expect-status=exit 0
 * diff: expect-stdout=^computed$
 */
#include <stdio.h>
#include "common.h"

int main(void)
{
	burn_ms(100);
	printf("computed\n");
	return 0;
}
