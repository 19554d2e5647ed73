/* ld_preload_children: the program runs other programs (a shell pipeline of
 * sort, wc and sed, and ls) that inherit LD_PRELOAD: they are measured too,
 * and each must behave exactly as without fold.
 *
 * diff: expect-status=exit 0
 * diff: traces=>=5
 */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

int main(void)
{
	FILE *f = fopen("words.txt", "w");
	const char *w[] = {"pear", "apple", "fig", "apple", "kiwi", "fig", "date"};
	for (int i = 0; i < 700; i++)
		fprintf(f, "%s\n", w[i % 7]);
	fclose(f);
	burn_ms(20);
	fflush(stdout);
	int a = system("sort words.txt | uniq -c | sed 's/^ *//' > counts.txt");
	int b = system("wc -l < words.txt");
	int c = system("ls -1 | sort");
	printf("statuses %d %d %d\n", a, b, c);
	return 0;
}
