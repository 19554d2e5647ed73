/* prog_crash.c: dies the way programs die.
 *   prog_crash segv|abort|fpe: 50 "it" instances of 2 ms, then crashes
 *   prog_crash loop: "it" instances forever (the test sends SIGTERM/SIGINT) */
#include <fold.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prog_common.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	uint32_t it = fold_region("it");
	int forever = !strcmp(argv[1], "loop");
	for (int i = 0; forever || i < 50; i++) {
		fold_enter(it);
		burn_ms(2);
		fold_exit(it);
		if (forever && i == 0) {
			printf("ready\n");
			fflush(stdout);
		}
	}
	if (!strcmp(argv[1], "segv")) {
		volatile int *p = NULL;
		*p = 1;
	} else if (!strcmp(argv[1], "abort")) {
		abort();
	}
	return 3;
}
