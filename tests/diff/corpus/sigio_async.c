/* sigio_async: signal-driven I/O: O_ASYNC on a pipe with F_SETOWN and F_SETSIG
 * (SIGRTMIN+1, with si_fd and si_band), a child writing 50 messages: the
 * handler is told of each readiness and the program reads every message.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^read 50 messages, notified: yes, si_fd ok: yes$
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static volatile sig_atomic_t notes, fd_ok = 1;
static int rd;

static void on_io(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	notes++;
	if (si->si_fd != rd)
		fd_ok = 0;
}

int main(void)
{
	int p[2];
	if (pipe(p))
		return 1;
	rd = p[0];
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_io;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	fcntl(rd, F_SETOWN, getpid());
	fcntl(rd, F_SETSIG, SIGRTMIN + 1);
	fcntl(rd, F_SETFL, fcntl(rd, F_GETFL) | O_ASYNC | O_NONBLOCK);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(rd);
		for (int i = 0; i < 50; i++) {
			char m[16];
			int n = snprintf(m, sizeof m, "m%02d;", i);
			write(p[1], m, (size_t)n);
			spin_ms(4);
		}
		_exit(0);
	}
	close(p[1]);
	int got = 0;
	char buf[4096];
	for (;;) {
		ssize_t n = read(rd, buf, sizeof buf);
		if (n == 0)
			break;
		if (n > 0) {
			for (ssize_t i = 0; i < n; i++)
				got += buf[i] == ';';
			continue;
		}
		spin_ms(1);
	}
	waitpid(pid, NULL, 0);
	printf("read %d messages, notified: %s, si_fd ok: %s\n", got, notes > 0 ? "yes" : "no",
	       fd_ok ? "yes" : "no");
	return 0;
}
