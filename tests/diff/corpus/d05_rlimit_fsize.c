/* d05_rlimit_fsize: under a 16 KiB RLIMIT_FSIZE the program writes a small
 * file and computes for 0.8 s (issue 28 defect 5: fold's trace writes past
 * the limit raised SIGXFSZ and killed the program).
 *
 * diff: limits=fsize=16384
 * diff: expect-status=exit 0
 * diff: fold-err-has=fold: .*(File too large|limit|RLIMIT_FSIZE)
 */
#include <stdio.h>
#include "common.h"

static uint64_t level(int depth)
{
	if (depth == 0)
		return burn_ms(1);
	return level(depth - 1) + (uint64_t)depth;
}

int main(void)
{
	FILE *f = fopen("small.txt", "w");
	if (!f)
		return 1;
	for (int i = 0; i < 100; i++)
		fprintf(f, "line %d\n", i);
	fclose(f);
	uint64_t x = 0;
	for (int i = 0; i < 800; i++)
		x += level(i % 37);
	printf("done %d\n", x != 0);
	return 0;
}
