/* timers_heavy: 100 POSIX timers of the program's own on SIGRTMIN+1, each
 * firing every 2-5 ms for 300 ms, counted in a handler, with overruns: every
 * timer fires and the program's counts stay its own.
 *
 * diff: build=-lrt
 * diff: expect-status=exit 0
 * diff: expect-stdout=^all 100 timers fired: yes$
 * diff: hostile=yes
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "common.h"

static volatile sig_atomic_t fired[100];

static void on_timer(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	int i = si->si_value.sival_int;
	if (i >= 0 && i < 100)
		fired[i]++;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_timer;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGRTMIN + 1, &sa, NULL);
	timer_t t[100];
	for (int i = 0; i < 100; i++) {
		struct sigevent ev;
		memset(&ev, 0, sizeof ev);
		ev.sigev_notify = SIGEV_SIGNAL;
		ev.sigev_signo = SIGRTMIN + 1;
		ev.sigev_value.sival_int = i;
		if (timer_create(CLOCK_MONOTONIC, &ev, &t[i]))
			return perror("timer_create"), 1;
		long ns = (2 + i % 4) * 1000000L;
		struct itimerspec its = {{0, ns}, {0, ns}};
		timer_settime(t[i], 0, &its, NULL);
	}
	spin_ms(300);
	int all = 1;
	for (int i = 0; i < 100; i++) {
		timer_delete(t[i]);
		if (!fired[i])
			all = 0;
	}
	printf("all 100 timers fired: %s\n", all ? "yes" : "no");
	return 0;
}
