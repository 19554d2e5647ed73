/* d01_altstack_long: its own sigaltstack and an SA_ONSTACK handler that runs
 * ~10 ms on it, 50 times a second (issue 28 defect 1; Go's SIGURG path).
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^handled on my stack: yes$
 * diff: timeout=20
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "common.h"

static volatile sig_atomic_t handled, on_stack;
static char *stack_lo, *stack_hi;

static void on_alarm(int sig)
{
	(void)sig;
	char here;
	if (&here >= stack_lo && &here < stack_hi)
		on_stack++;
	spin_ms(10);
	handled++;
}

int main(void)
{
	size_t size = 256 * 1024;
	stack_t ss = {.ss_sp = malloc(size), .ss_size = size, .ss_flags = 0};
	stack_lo = ss.ss_sp;
	stack_hi = stack_lo + size;
	if (!ss.ss_sp || sigaltstack(&ss, NULL))
		return perror("sigaltstack"), 1;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_ONSTACK | SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 20000}, {0, 20000}};
	setitimer(ITIMER_REAL, &it, NULL);
	double end = now_s() + 1.5;
	while (handled < 40 && now_s() < end + 10)
		work_n(100000);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("handled on my stack: %s\n", on_stack == handled && handled >= 40 ? "yes" : "no");
	return 0;
}
