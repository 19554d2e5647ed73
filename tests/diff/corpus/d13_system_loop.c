/* d13_system_loop: 50 system() calls (each a shell, which runs its
 * built-in): every process may cost at most 1 ms more under fold (issue 28
 * defect 13).
 *
 * diff: expect-status=exit 0
 * diff: time=1.0+50ms
 * diff: runs=2
 * diff: traces=>=51
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

int main(void)
{
	int sum = 0;
	for (int i = 0; i < 50; i++) {
		int st = system(i % 2 ? "exit 3" : "true");
		sum += WIFEXITED(st) ? WEXITSTATUS(st) : 100;
	}
	printf("exit codes add up to %d\n", sum);
	return 0;
}
