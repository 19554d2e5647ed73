/* exec_chain: the program execs itself three times (execv, execvp through
 * PATH, execl), computing in each image: one process, four images, the
 * output of each; fold writes one trace per image.
 *
 * diff: expect-status=exit 0
 * diff: traces=4
 * diff: env=PATH={helpers}/..:/usr/bin:/bin
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int main(int argc, char **argv)
{
	int gen = argc > 1 ? atoi(argv[1]) : 0;
	burn_ms(30);
	printf("image %d (pid unchanged: %s)\n", gen,
	       gen == 0 || (argc > 2 && atoi(argv[2]) == (int)getpid()) ? "yes" : "no");
	fflush(stdout);
	char next[16], pid[16];
	snprintf(next, sizeof next, "%d", gen + 1);
	snprintf(pid, sizeof pid, "%d", (int)getpid());
	char *args[] = {"exec_chain", next, pid, NULL};
	if (gen == 0)
		execv("/proc/self/exe", args);
	else if (gen == 1)
		execvp("exec_chain", args);
	else if (gen == 2)
		execl("/proc/self/exe", "exec_chain", next, pid, (char *)NULL);
	return 0;
}
