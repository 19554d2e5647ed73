/* popen_pclose: popen() for writing (sort reads the program's lines) and for
 * reading (seq), 8 times each, with pclose's statuses, while sampled.
 *
 * diff: expect-status=exit 0
 * diff: hostile=yes
 * diff: traces=>=1
 */
#include <stdio.h>
#include <sys/wait.h>
#include "common.h"

int main(void)
{
	long total = 0;
	int statuses = 0;
	for (int round = 0; round < 8; round++) {
		FILE *w = popen("sort -n > /dev/null", "w");
		for (int i = 0; i < 100; i++)
			fprintf(w, "%d\n", (i * 37) % 100);
		statuses += WEXITSTATUS(pclose(w));
		FILE *r = popen(round % 4 ? "seq 1 100" : "seq 1 100; exit 2", "r");
		long x;
		while (fscanf(r, "%ld", &x) == 1)
			total += x;
		statuses += WEXITSTATUS(pclose(r));
		burn_ms(2);
	}
	printf("sum %ld, statuses %d\n", total, statuses);
	return 0;
}
