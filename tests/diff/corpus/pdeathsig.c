/* pdeathsig: a grandchild asks for SIGTERM when its parent dies
 * (PR_SET_PDEATHSIG), its parent exits, and its handler writes a file the
 * original process then reads: the signal must arrive as without fold.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^grandchild got SIGTERM after its parent died$
 * diff: traces=any
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static int out;

static void on_term(int sig)
{
	(void)sig;
	static const char msg[] = "grandchild got SIGTERM after its parent died\n";
	write(out, msg, sizeof msg - 1);
	_exit(0);
}

int main(void)
{
	int p[2], ready[2];
	if (pipe(p) || pipe(ready))
		return 1;
	fflush(stdout);
	pid_t mid = fork();
	if (mid == 0) {
		pid_t gc = fork();
		if (gc == 0) {
			out = p[1];
			signal(SIGTERM, on_term);
			prctl(PR_SET_PDEATHSIG, SIGTERM);
			write(ready[1], "r", 1);
			for (int i = 0; i < 500; i++)
				spin_ms(10);
			_exit(3);
		}
		char c;
		read(ready[0], &c, 1);
		burn_ms(30);
		_exit(0);
	}
	close(p[1]);
	waitpid(mid, NULL, 0);
	char buf[128];
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	printf("%s", n > 0 ? buf : "no message from the grandchild\n");
	return 0;
}
