/* vfork_signal_child: the way busybox's shells start a command: vfork, then in
 * the child (which shares the parent's memory) reset dispositions and the
 * mask with signal() and sigprocmask() before execve. The parent's own
 * SIGUSR1 handler, SIGUSR2 ignore and mask must be as they were: it then
 * raises both signals and reports.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^parent after 20 vforks: handler ran 20 times, SIGUSR2 ignored, mask kept$
 * diff: traces=>=1
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

extern char **environ;
static volatile sig_atomic_t runs;

static void on_usr1(int sig)
{
	(void)sig;
	runs++;
}

int main(void)
{
	signal(SIGUSR1, on_usr1);
	signal(SIGUSR2, SIG_IGN);
	sigset_t hup, none, now;
	sigemptyset(&hup);
	sigaddset(&hup, SIGHUP);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &hup, NULL);
	for (int i = 0; i < 20; i++) {
		pid_t pid = vfork();
		if (pid == 0) {
			signal(SIGUSR1, SIG_DFL);
			signal(SIGUSR2, SIG_DFL);
			sigprocmask(SIG_SETMASK, &none, NULL);
			char *argv[] = {"true", NULL};
			execve("/bin/true", argv, environ);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
		burn_ms(3);
		raise(SIGUSR1);
		raise(SIGUSR2);
	}
	sigprocmask(SIG_BLOCK, NULL, &now);
	printf("parent after 20 vforks: handler ran %d times, SIGUSR2 %s, mask %s\n", (int)runs,
	       signal(SIGUSR2, SIG_IGN) == SIG_IGN ? "ignored" : "not ignored",
	       sigismember(&now, SIGHUP) ? "kept" : "lost");
	return 0;
}
