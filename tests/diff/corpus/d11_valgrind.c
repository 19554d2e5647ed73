/* d11_valgrind: the program run under valgrind memcheck with
 * --error-exitcode=99: no error of fold's own may appear, and the exit code
 * stays the program's (issue 28 defect 11: 3 errors from libunwind's
 * validation write, exit code 99).
 *
 * diff: needs=valgrind
 * diff: cmd={fold} valgrind -q --error-exitcode=99 {exe}
 * diff: expect-status=exit 0
 * diff: normalize=pids
 * diff: compare=status,stdout,stderr,files
 * diff: traces=any
 * diff: timeout=90
 * diff: runs=1
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "common.h"

int main(void)
{
	unsigned long sum = 0;
	for (int i = 0; i < 2000; i++) {
		char *p = malloc(64 + (size_t)i);
		memset(p, i & 0xff, 64 + (size_t)i);
		sum += (unsigned char)p[i / 2];
		free(p);
	}
	spin_ms(200);
	printf("sum %lu\n", sum);
	return 0;
}
