/* itimer_prof: the program's own profiler: setitimer(ITIMER_PROF) at 1 ms
 * with a SIGPROF handler counting ticks over 300 ms of CPU: it gets its
 * ticks beside fold's timers.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^profiler ticks: enough$
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include "common.h"

static volatile sig_atomic_t ticks;

static void on_prof(int sig)
{
	(void)sig;
	ticks++;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_prof;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGPROF, &sa, NULL);
	struct itimerval it = {{0, 1000}, {0, 1000}};
	setitimer(ITIMER_PROF, &it, NULL);
	burn_ms(300);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	/* The kernel checks ITIMER_PROF at its tick (250 Hz here) when the
	 * process is running then, and expiries between deliveries merge: up
	 * to 75 in 300 ms of CPU, far fewer when other work shares the CPU. */
	printf("profiler ticks: %s\n", ticks >= 3 ? "enough" : "too few");
	return 0;
}
