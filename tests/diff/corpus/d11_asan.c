/* d11_asan: an AddressSanitizer-built program run through foldrun, which must
 * order the preloads so that ASan's runtime comes first (issue 28 defect 11:
 * "ASan runtime does not come first", the program aborted).
 *
 * diff: build=-fsanitize=address -fno-omit-frame-pointer
 * diff: modes=plain,foldrun
 * diff: env=ASAN_OPTIONS=detect_leaks=0
 * diff: expect-status=exit 0
 * diff: expect-stdout=^sum
 */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

int main(void)
{
	long sum = 0;
	for (int i = 0; i < 1000; i++) {
		int *p = malloc(100 * sizeof *p);
		for (int j = 0; j < 100; j++)
			p[j] = i + j;
		sum += p[i % 100];
		free(p);
	}
	burn_ms(200);
	printf("sum %ld\n", sum);
	return 0;
}
