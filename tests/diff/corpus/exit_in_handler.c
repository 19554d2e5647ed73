/* exit_in_handler: 40 children each enter and exit regions in a tight loop
 * until their own SIGALRM handler calls exit(3) (not async-signal-safe, but
 * common): the handler may interrupt fold's region hooks, and every child
 * must still end with status 3, its atexit handler run, and its trace.
 * Level 19 compression keeps fold's chunk writes long, so that the signal
 * lands in one on a loaded machine too.
 *
 * diff: build={stub}
 * diff: fold-env=FOLD_COMPRESS=zstd:19
 * diff: expect-status=exit 0
 * diff: expect-stdout=^40 children exited 3$
 * diff: traces=41
 * diff: timeout=12
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fold.h"
#include "common.h"

static void on_alarm(int sig)
{
	(void)sig;
	exit(3);
}

static void bye(void)
{
	static const char msg[] = "atexit\n";
	write(2, msg, sizeof msg - 1);
}

static void child(int i)
{
	atexit(bye);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 0}, {0, 10000 + 500 * i}};
	setitimer(ITIMER_REAL, &it, NULL);
	uint32_t r = fold_region("tight");
	for (;;) {
		fold_enter(r);
		fold_exit(r);
	}
}

int main(void)
{
	int ok = 0;
	for (int i = 0; i < 40; i++) {
		fflush(stdout);
		pid_t pid = fork();
		if (pid == 0)
			child(i);
		int st;
		if (waitpid(pid, &st, 0) == pid && WIFEXITED(st) && WEXITSTATUS(st) == 3)
			ok++;
	}
	printf("%d children exited 3\n", ok);
	return 0;
}
