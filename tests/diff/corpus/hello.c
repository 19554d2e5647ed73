/* hello: prints, burns 200 ms of CPU, writes a file and exits 3: the
 * smallest program every difference would show in.
 *
 * diff: expect-status=exit 3
 * diff: hostile=yes
 * diff: dump-has=thread_end
 */
#include <stdio.h>
#include "common.h"

int main(void)
{
	printf("hello\n");
	fflush(stdout);
	burn_ms(200);
	FILE *f = fopen("out.txt", "w");
	if (!f)
		return 1;
	fprintf(f, "written\n");
	fclose(f);
	fprintf(stderr, "bye\n");
	return 3;
}
