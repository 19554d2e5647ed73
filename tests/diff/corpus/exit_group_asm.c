/* exit_group_asm: 100 regions of 4 ms, then exit_group by a system call
 * instruction of the program's own, as Go's runtime ends every program: no
 * function, so nothing of fold's runs at the end. The trace keeps every
 * region all the same (its live file holds what was not written), and
 * fold says the process ended without its final flush and what it
 * recovered.
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: trace-check=--regions work=100
 * diff: summary-has=ended without fold's final flush
 * diff: summary-has=recovered from its live file
 * diff: ignore-files=*.live
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
	long nr = SYS_exit_group, code = 0, ret;
	__asm__ volatile("syscall" : "=a"(ret) : "0"(nr), "D"(code) : "rcx", "r11", "memory");
	return 1;
}
