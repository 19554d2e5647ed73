/* signalfd_all: every signal blocked and read through a signalfd of the full
 * set: the program queues its own signals with values and reads them back in
 * the order the kernel delivers them; fold's sampling signal never shows up.
 *
 * diff: expect-status=exit 0
 */
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>
#include "common.h"

int main(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	int fd = signalfd(-1, &all, SFD_CLOEXEC);
	if (fd < 0)
		return perror("signalfd"), 1;
	int sigs[] = {SIGUSR1, SIGRTMIN + 1, SIGHUP, SIGRTMIN + 5, SIGRTMIN + 1};
	for (int i = 0; i < 5; i++) {
		union sigval v = {.sival_int = 100 + i};
		sigqueue(getpid(), sigs[i], v);
	}
	burn_ms(200);
	struct signalfd_siginfo si;
	struct pollfd p = {.fd = fd, .events = POLLIN};
	while (poll(&p, 1, 0) == 1 && read(fd, &si, sizeof si) == sizeof si)
		printf("signal %u value %d\n", si.ssi_signo, si.ssi_int);
	return 0;
}
