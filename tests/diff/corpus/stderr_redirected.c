/* stderr_redirected: the program sends its stderr to a log file of its own
 * (dup2 onto fd 2, as daemons and batch scripts' wrappers do) and logs
 * there: the log holds the program's lines only (fold's diagnostics belong
 * on a descriptor of fold's own).
 *
 * diff: expect-status=exit 0
 */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	int log = open("program.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (log < 0 || dup2(log, 2) != 2)
		return 1;
	close(log);
	for (int i = 0; i < 20; i++) {
		fprintf(stderr, "log line %d\n", i);
		burn_ms(5);
	}
	printf("logged to program.log\n");
	return 0;
}
