/* stack_overflow_handler: a program with its own alternate stack catches the
 * SIGSEGV of a runaway recursion (as language runtimes do), reports it from
 * its handler on its own stack and exits 3.
 *
 * diff: limits=stack=1048576
 * diff: expect-status=exit 3
 * diff: expect-stdout=^overflow caught on my stack: yes$
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static char *alt;
static size_t altsz = 1 << 16;

static void on_segv(int sig)
{
	(void)sig;
	char here;
	const char *msg = &here >= alt && &here < alt + altsz ? "overflow caught on my stack: yes\n"
	                                                      : "overflow caught on my stack: no\n";
	write(1, msg, strlen(msg));
	_exit(3);
}

__attribute__((noinline)) static long recurse(long n)
{
	volatile char pad[256];
	pad[0] = (char)n;
	return recurse(n + 1) + pad[0];
}

int main(void)
{
	alt = malloc(altsz);
	stack_t ss = {.ss_sp = alt, .ss_size = altsz, .ss_flags = 0};
	sigaltstack(&ss, NULL);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_segv;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGSEGV, &sa, NULL);
	burn_ms(50);
	return (int)recurse(0);
}
