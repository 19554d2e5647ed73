/* stdin_copy: the program copies its standard input (a file, read 200 times
 * over, rewinding) to a file in small reads while sampled: fold never reads
 * or consumes the program's input.
 *
 * diff: stdin=file:{tools}/corpus/stdin_copy.c
 * diff: expect-status=exit 0
 */
#include <stdio.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	char buf[97];
	ssize_t n;
	long total = 0;
	FILE *out = fopen("copy.txt", "w");
	for (int round = 0; round < 200; round++) {
		while ((n = read(0, buf, sizeof buf)) > 0) {
			fwrite(buf, 1, (size_t)n, out);
			total += n;
			burn_ms(0.05);
		}
		if (lseek(0, 0, SEEK_SET) < 0)
			break;
	}
	fclose(out);
	printf("copied %ld bytes\n", total);
	return 0;
}
