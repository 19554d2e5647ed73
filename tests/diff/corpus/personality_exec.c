/* personality_exec: personality(ADDR_NO_RANDOMIZE) then an exec of itself:
 * the new image runs with the persona and reports it.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^exec'd image: persona 0x40000$
 * diff: traces=any
 */
#include <stdio.h>
#include <string.h>
#include <sys/personality.h>
#include <unistd.h>
#include "common.h"

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "child")) {
		burn_ms(30);
		printf("exec'd image: persona %#x\n", (unsigned)personality(0xffffffff));
		return 0;
	}
	personality(ADDR_NO_RANDOMIZE);
	burn_ms(30);
	printf("persona set %#x\n", (unsigned)personality(0xffffffff));
	fflush(stdout);
	char *args[] = {argv[0], "child", NULL};
	execv("/proc/self/exe", args);
	return 1;
}
