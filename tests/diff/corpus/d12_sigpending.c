/* d12_sigpending: under RLIMIT_SIGPENDING 16 (a user of its own, so that no
 * other process shares the count) the program creates POSIX timers until
 * EAGAIN, then queues signals until EAGAIN (issue 28 defect 12: fold held
 * slots of the program's limit). What it may see is fold's promise: at
 * most 16/8 = 2 slots fewer than alone (the counts go to stderr).
 *
 * diff: needs=root
 * diff: run-as=nobody
 * diff: limits=sigpending=16
 * diff: compare=status,stdout,files,probe
 * diff: build=-lrt
 * diff: expect-status=exit 0
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>
#include <time.h>
#include "common.h"

int main(void)
{
	burn_ms(50);
	timer_t t[64];
	int ntimers = 0;
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_SIGNAL;
	ev.sigev_signo = SIGRTMIN + 1;
	while (ntimers < 64 && timer_create(CLOCK_MONOTONIC, &ev, &t[ntimers]) == 0)
		ntimers++;
	int err = errno;
	struct rlimit rl;
	getrlimit(RLIMIT_SIGPENDING, &rl);
	int limit = (int)rl.rlim_cur, budget = limit / 8;
	printf("timers created: all but at most 1/8 of the limit: %s (%s)\n",
	       ntimers >= limit - budget && ntimers <= limit ? "yes" : "no", strerror(err));
	fprintf(stderr, "timers created: %d\n", ntimers);
	for (int i = 0; i < ntimers; i++)
		timer_delete(t[i]);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 2);
	sigprocmask(SIG_BLOCK, &set, NULL);
	int queued = 0;
	union sigval v = {.sival_int = 0};
	while (queued < 64 && sigqueue(getpid(), SIGRTMIN + 2, v) == 0)
		queued++;
	printf("signals queued: all but at most 1/8 of the limit: %s (%s)\n",
	       queued >= limit - budget && queued <= limit ? "yes" : "no", strerror(errno));
	fprintf(stderr, "signals queued: %d\n", queued);
	int got = 0;
	struct timespec zero = {0, 0};
	while (sigtimedwait(&set, NULL, &zero) > 0)
		got++;
	printf("signals received: as queued: %s\n", got == queued ? "yes" : "no");
	return 0;
}
