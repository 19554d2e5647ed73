/* sigdefault_all: for every signal a program may leave at SIG_DFL (1-64 but
 * SIGKILL, SIGSTOP, the C library's two and SIGRTMIN+4, which d10 covers),
 * a child left at the defaults computes until its parent sends it that
 * signal; the parent prints how each child ended (signal and core flag, or
 * exit): exactly the kernel's default actions.
 *
 * diff: expect-status=exit 0
 * diff: traces=>=1
 * diff: timeout=60
 * diff: runs=1
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig == SIGKILL || sig == SIGSTOP || sig == SIGRTMIN + 4 || (sig > 31 && sig < SIGRTMIN))
			continue;
		int p[2];
		if (pipe(p))
			return 1;
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0) {
			close(p[0]);
			write(p[1], "r", 1);
			for (int i = 0; i < 100; i++)
				spin_ms(5);
			_exit(100);
		}
		close(p[1]);
		char c;
		read(p[0], &c, 1);
		close(p[0]);
		spin_ms(5);
		kill(pid, sig);
		if (sig == SIGTSTP || sig == SIGTTIN || sig == SIGTTOU) {
			int st;
			waitpid(pid, &st, WUNTRACED);
			printf("%2d: %s\n", sig, WIFSTOPPED(st) ? "stopped" : "not stopped");
			kill(pid, SIGKILL);
		}
		int st;
		waitpid(pid, &st, 0);
		if (WIFSIGNALED(st))
			printf("%2d: killed by %d%s\n", sig, WTERMSIG(st), WCOREDUMP(st) ? " (core)" : "");
		else
			printf("%2d: exited %d\n", sig, WEXITSTATUS(st));
	}
	return 0;
}
