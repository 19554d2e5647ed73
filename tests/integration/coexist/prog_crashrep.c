/* prog_crashrep.c: a program with its own crash reporter.
 *
 *   prog_crashrep reraise   SIGSEGV handler (sigaction, SA_SIGINFO |
 *                           SA_RESETHAND) prints a report and returns: the
 *                           fault repeats with the default action (139)
 *   prog_crashrep exit      the handler prints and calls _exit(42)
 *   prog_crashrep abort     a SIGABRT handler prints; abort() then ends
 *                           the process (134)
 * Each works ~300 ms first. run.sh compares status and output with a run
 * without fold, and checks that the trace was flushed before the handler.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../runtime/prog_common.h"

static int exit_mode;

static void reporter(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	char line[128];
	int n = snprintf(line, sizeof line, "reporter: signal %d code %s\n", sig,
	                 si->si_code > 0 ? "kernel" : "user");
	if (write(1, line, (size_t)n) < 0)
		_exit(99);
	if (exit_mode)
		_exit(42);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = reporter;
	sa.sa_flags = SA_SIGINFO | SA_RESETHAND;
	sigemptyset(&sa.sa_mask);
	int sig = !strcmp(mode, "abort") ? SIGABRT : SIGSEGV;
	exit_mode = !strcmp(mode, "exit");
	sigaction(sig, &sa, NULL);
	burn_ms(300);
	printf("crashing\n");
	fflush(stdout);
	if (sig == SIGABRT)
		abort();
	volatile int *p = (volatile int *)(uintptr_t)(argc > 100 ? 4096 : 16);
	*p = 1;
	return 0;
}
