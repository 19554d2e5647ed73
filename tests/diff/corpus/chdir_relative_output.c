/* chdir_relative_output: FOLD_OUTPUT is relative (the way users write it);
 * the program makes a directory, chdir()s into it, works, forks a child
 * that works too, and exits there: the traces land where the relative path
 * pointed at start, and the program's directory holds only its own files.
 *
 * diff: fold-env=FOLD_OUTPUT=fold.%e.%p.trace
 * diff: ignore-files=fold.*.trace
 * diff: expect-status=exit 0
 * diff: traces=2
 * diff: check=[ $MODE = plain ] || [ $(ls $SCRATCH/fold.*.trace | wc -l) = 2 ] || \
 *       { echo "traces not in the start directory:"; find $SCRATCH; exit 1; }
 */
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	if (mkdir("work", 0755) || chdir("work"))
		return perror("work"), 1;
	FILE *f = fopen("result.txt", "w");
	fprintf(f, "%d\n", burn_ms(50) != 0);
	fclose(f);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		burn_ms(30);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
