/* proc_self_maps: the program reads /proc/self/maps for what concerns it:
 * its own executable's mappings and their permissions, the [stack] line,
 * and whether a [heap] exists before it allocates.
 *
 * diff: expect-status=exit 0
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static void report(const char *when)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	exe[n > 0 ? n : 0] = 0;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[8192];
	int heap = 0, stack = 0, mine = 0;
	char perms[64] = "";
	while (f && fgets(line, sizeof line, f)) {
		heap += strstr(line, "[heap]") != NULL;
		stack += strstr(line, "[stack]") != NULL;
		if (strstr(line, exe)) {
			char p[8];
			sscanf(line, "%*s %7s", p);
			strncat(perms, p, sizeof perms - strlen(perms) - 2);
			strcat(perms, " ");
			mine++;
		}
	}
	if (f)
		fclose(f);
	printf("%s: exe mappings %d (%s), stack %d, heap %d\n", when, mine, perms, stack, heap);
}

int main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	report("start");
	void *p = malloc(1 << 16);
	burn_ms(50);
	report("after malloc");
	free(p);
	return 0;
}
