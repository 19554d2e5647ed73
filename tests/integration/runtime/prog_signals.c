/* prog_signals.c: the program's own signal handling must keep working.
 * Installs its own SIGPROF handler with an ITIMER_PROF timer, a SIGUSR1
 * handler through signal(), and a handler for fold's sampling signal
 * (SIGRTMIN+4) that it raises itself; exits 0 only if every handler ran. */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "prog_common.h"

static volatile sig_atomic_t prof_ticks, usr1, rt;

static void on_prof(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)si;
	(void)uc;
	prof_ticks++;
}
static void on_usr1(int sig) { (void)sig; usr1++; }
static void on_rt(int sig) { (void)sig; rt++; }

int main(void)
{
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_prof;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGPROF, &sa, NULL))
		return 1;
	signal(SIGUSR1, on_usr1);
	struct sigaction rta;
	memset(&rta, 0, sizeof rta);
	rta.sa_handler = on_rt;
	sigemptyset(&rta.sa_mask);
	if (sigaction(SIGRTMIN + 4, &rta, &old))
		return 1;
	struct itimerval it = {{0, 4000}, {0, 4000}};
	setitimer(ITIMER_PROF, &it, NULL);
	burn_ms(300);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_PROF, &off, NULL);
	raise(SIGUSR1);
	raise(SIGRTMIN + 4);
	/* What we installed is what we read back. */
	struct sigaction now;
	sigaction(SIGRTMIN + 4, NULL, &now);
	int same = now.sa_handler == on_rt;
	printf("prof=%d usr1=%d rt=%d same=%d\n", (int)prof_ticks, (int)usr1, (int)rt, same);
	return prof_ticks >= 20 && usr1 == 1 && rt == 1 && same ? 0 : 1;
}
