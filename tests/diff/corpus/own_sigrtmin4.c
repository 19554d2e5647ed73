/* own_sigrtmin4: the program uses SIGRTMIN+4 (fold's default sampling
 * signal) itself: a SA_SIGINFO handler, 200 sigqueue()s to itself with
 * values, then 50 blocked while pending, released by sigprocmask: the
 * handler sees each of its own signals once, with its value, and none of
 * fold's; while blocked, none arrives and sigpending shows it.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^while blocked: 0 handled, pending yes$
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

static volatile sig_atomic_t runs, bad;
static volatile int expect_value;

static void on_sig(int sig, siginfo_t *si, void *ctx)
{
	(void)sig;
	(void)ctx;
	if (si->si_code != SI_QUEUE || si->si_value.sival_int != expect_value)
		bad++;
	else
		expect_value++;
	runs++;
}

int main(void)
{
	int sig = SIGRTMIN + 4;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sig;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(sig, &sa, NULL);
	for (int i = 0; i < 200; i++) {
		union sigval v = {.sival_int = i};
		sigqueue(getpid(), sig, v);
		burn_ms(1);
	}
	printf("queued 200: %d handled, %d not ours\n", (int)runs, (int)bad);
	sigset_t set, pend;
	sigemptyset(&set);
	sigaddset(&set, sig);
	sigprocmask(SIG_BLOCK, &set, NULL);
	runs = 0;
	for (int i = 0; i < 50; i++) {
		union sigval v = {.sival_int = 200 + i};
		sigqueue(getpid(), sig, v);
	}
	burn_ms(100);
	sigpending(&pend);
	printf("while blocked: %d handled, pending %s\n", (int)runs, sigismember(&pend, sig) ? "yes" : "no");
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	burn_ms(20);
	printf("after unblock: %d handled, %d not ours\n", (int)runs, (int)bad);
	return 0;
}
