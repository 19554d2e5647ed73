/* sigstop_cont: job control: the program stops itself with SIGSTOP and with
 * SIGTSTP at its default, a child continues it with SIGCONT each time;
 * SIGWINCH, SIGURG and SIGCHLD at their defaults are ignored.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^continued twice, still here$
 * diff: traces=>=1
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static void stop_and_resume(int sig)
{
	pid_t me = getpid();
	fflush(stdout);
	pid_t helper = fork();
	if (helper == 0) {
		/* Wait until the parent is stopped, then continue it. */
		char path[64], state = 0;
		snprintf(path, sizeof path, "/proc/%d/stat", (int)me);
		for (int i = 0; i < 5000 && state != 'T'; i++) {
			FILE *f = fopen(path, "r");
			if (f) {
				if (fscanf(f, "%*d (%*[^)]) %c", &state) != 1)
					state = 0;
				fclose(f);
			}
			usleep(1000);
		}
		kill(me, SIGCONT);
		_exit(state == 'T' ? 0 : 1);
	}
	kill(me, sig);
	int st;
	waitpid(helper, &st, 0);
	printf("after %s: helper saw it stopped: %s\n", sig == SIGSTOP ? "SIGSTOP" : "SIGTSTP",
	       WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "yes" : "no");
}

int main(void)
{
	burn_ms(30);
	stop_and_resume(SIGSTOP);
	burn_ms(30);
	stop_and_resume(SIGTSTP);
	raise(SIGWINCH);
	raise(SIGURG);
	raise(SIGCHLD);
	burn_ms(30);
	printf("continued twice, still here\n");
	return 0;
}
