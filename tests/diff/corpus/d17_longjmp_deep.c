/* d17_longjmp_deep: longjmp out of 70,000 nested -finstrument-functions
 * calls back to main, which then works and returns: the exact profile shows
 * main called once and no exclusive time above its inclusive time (issue 28
 * defect 17: main showed 0 calls).
 *
 * diff: build=-finstrument-functions
 * diff: limits=stack=67108864
 * diff: expect-status=exit 0
 * diff: check=[ $MODE = plain ] || \
 *       python3 {tools}/profile_check.py $FOLD $TRACE --calls main=1 --calls work=1
 */
#include <setjmp.h>
#include <stdio.h>
#include "common.h"

static jmp_buf env;

__attribute__((noinline)) static void dive(int depth)
{
	if (depth >= 70000)
		longjmp(env, 1);
	dive(depth + 1);
	__asm__ volatile("");
}

__attribute__((noinline)) static uint64_t work(void)
{
	return burn_ms(30);
}

int main(void)
{
	if (!setjmp(env))
		dive(0);
	printf("back in main %d\n", work() != 0);
	return 0;
}
