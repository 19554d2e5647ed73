/* sigwaitinfo_all: every signal blocked, a second thread queues SIGUSR1,
 * SIGUSR2, SIGALRM, SIGRTMIN+1..3 with values, and main collects them with
 * sigwaitinfo on the full set (fold's sampling signal must never show up).
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>
#include "common.h"

static pid_t me;

static void *sender(void *arg)
{
	(void)arg;
	int sigs[] = {SIGUSR1, SIGUSR2, SIGALRM, SIGRTMIN + 1, SIGRTMIN + 2, SIGRTMIN + 3};
	for (int round = 0; round < 5; round++)
		for (int i = 0; i < 6; i++) {
			union sigval v = {.sival_int = round * 10 + i};
			sigqueue(me, sigs[i], v);
			burn_ms(2);
		}
	return NULL;
}

int main(void)
{
	me = getpid();
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_t t;
	pthread_create(&t, NULL, sender, NULL);
	pthread_join(t, NULL);
	/* Standard signals merge; real-time ones queue. */
	siginfo_t si;
	struct timespec zero = {0, 0};
	int n = 0;
	while (sigtimedwait(&all, &si, &zero) > 0) {
		printf("signal %d value %d\n", si.si_signo, si.si_value.sival_int);
		n++;
	}
	printf("%d signals\n", n);
	return 0;
}
