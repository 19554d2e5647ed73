/* chroot_exit: the program chroot()s into a directory of its own (where the
 * trace's path does not exist), works and exits there: fold's trace is
 * complete all the same (or fold says why not), and the program's files are
 * its own.
 *
 * diff: needs=root
 * diff: expect-status=exit 0
 * diff: probe=no
 * diff: summary-not=did not end normally|killed
 */
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	if (mkdir("jail", 0755) || chroot("jail") || chdir("/"))
		return perror("chroot"), 1;
	burn_ms(150);
	FILE *f = fopen("/inside.txt", "w");
	if (!f)
		return 1;
	fprintf(f, "written inside the jail\n");
	fclose(f);
	printf("done in the jail\n");
	return 0;
}
