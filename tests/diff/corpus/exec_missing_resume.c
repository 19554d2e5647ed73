/* exec_missing_resume: execv of a program that does not exist and of a file
 * that is not executable both fail; the program carries on with 100 regions:
 * fold resumes measuring after the failed execs (the regions are in the
 * trace, which is the only one).
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: traces=1
 * diff: trace-check=--regions after=100 --min-samples 10
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fold.h"
#include "common.h"

int main(void)
{
	char *args[] = {"x", NULL};
	burn_ms(20);
	execv("/nonexistent/program", args);
	printf("missing: %s\n", strerror(errno));
	FILE *f = fopen("not_executable", "w");
	fclose(f);
	execv("./not_executable", args);
	printf("not executable: %s\n", strerror(errno));
	execvp("no-such-program-anywhere", args);
	printf("not on PATH: %s\n", strerror(errno));
	uint32_t r = fold_region("after");
	for (int i = 0; i < 100; i++) {
		fold_enter(r);
		burn_ms(1);
		fold_exit(r);
	}
	return 0;
}
