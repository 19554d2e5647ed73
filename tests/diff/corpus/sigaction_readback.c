/* sigaction_readback: handlers installed with every combination of flags
 * (SA_SIGINFO, SA_RESTART, SA_NODEFER, SA_RESETHAND, SA_ONSTACK) and masks,
 * through sigaction, signal and sysv_signal, are read back with sigaction:
 * flags (the C library's SA_RESTORER included), mask and handler are what
 * the kernel reports without fold.
 *
 * diff: expect-status=exit 0
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include "common.h"

static void h(int sig)
{
	(void)sig;
}

static void show(int sig, const char *how)
{
	struct sigaction old;
	sigaction(sig, NULL, &old);
	printf("%-12s sig %2d flags %#010lx handler %s mask", how, sig, (unsigned long)old.sa_flags,
	       old.sa_handler == h         ? "h"
	       : old.sa_handler == SIG_DFL ? "dfl"
	       : old.sa_handler == SIG_IGN ? "ign"
	                                   : "?");
	for (int s = 1; s < 65; s++)
		if (sigismember(&old.sa_mask, s) == 1)
			printf(" %d", s);
	printf("\n");
}

int main(void)
{
	static const int flags[] = {0,
	                            SA_SIGINFO,
	                            SA_RESTART,
	                            SA_NODEFER,
	                            SA_RESETHAND,
	                            SA_ONSTACK,
	                            SA_RESTART | SA_NODEFER | SA_ONSTACK};
	int sig = SIGUSR1;
	for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof sa);
		sa.sa_handler = h;
		sa.sa_flags = flags[i];
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGTERM);
		if (i % 2)
			sigaddset(&sa.sa_mask, SIGRTMIN + 4);
		sigaction(sig, &sa, NULL);
		show(sig, "sigaction");
	}
	signal(SIGUSR2, h);
	show(SIGUSR2, "signal");
	sysv_signal(SIGHUP, h);
	show(SIGHUP, "sysv_signal");
	signal(SIGALRM, SIG_IGN);
	show(SIGALRM, "ignore");
	signal(SIGALRM, SIG_DFL);
	show(SIGALRM, "default");
	show(SIGRTMIN + 4, "untouched");
	burn_ms(50);
	return 0;
}
