/* prog_coro.c: fold's handlers must not use the program's stack, and the
 * program's own sigaltstack works and reads back as it set it.
 *
 *   prog_coro coro       coroutines (makecontext) on 4 KiB and 8 KiB stacks
 *                        work for ~600 ms of CPU while sampled; guard zones
 *                        below and above every stack must stay untouched
 *   prog_coro altstack   sigaltstack queries before/after setting its own,
 *                        an SA_ONSTACK handler runs on the program's stack
 *                        and sees SS_ONSTACK, a handler without SA_ONSTACK
 *                        runs on the thread's stack, then work while sampled
 * Prints what the program saw; run.sh compares it with a run without fold.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ucontext.h>

#define GUARD 65536
#define NCORO 4

static ucontext_t main_ctx, coro_ctx[NCORO];
static unsigned char *region[NCORO];
static size_t stack_size[NCORO];
static volatile double sink;

static double cpu_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

__attribute__((noinline)) static double leaf(double x, int n)
{
	for (int i = 0; i < n; i++)
		x = x * 0.9999999 + 1e-7;
	return x;
}

static void coro_main(int idx)
{
	double x = idx;
	for (;;) {
		x = leaf(x, 20000);
		sink = x;
		swapcontext(&coro_ctx[idx], &main_ctx);
	}
}

static void test_coro(void)
{
	for (int i = 0; i < NCORO; i++) {
		stack_size[i] = i % 2 ? 8192 : 4096;
		region[i] = malloc(GUARD + stack_size[i] + GUARD);
		memset(region[i], 0xa5, GUARD + stack_size[i] + GUARD);
		getcontext(&coro_ctx[i]);
		coro_ctx[i].uc_stack.ss_sp = region[i] + GUARD;
		coro_ctx[i].uc_stack.ss_size = stack_size[i];
		coro_ctx[i].uc_link = &main_ctx;
		makecontext(&coro_ctx[i], (void (*)(void))coro_main, 1, i);
	}
	double t0 = cpu_ms();
	long switches = 0;
	while (cpu_ms() - t0 < 600)
		for (int i = 0; i < NCORO; i++, switches++)
			swapcontext(&main_ctx, &coro_ctx[i]);
	int bad = 0;
	for (int i = 0; i < NCORO; i++) {
		for (size_t b = 0; b < GUARD; b++)
			if (region[i][b] != 0xa5 || region[i][GUARD + stack_size[i] + b] != 0xa5) {
				bad++;
				break;
			}
		free(region[i]);
	}
	/* The heap is intact if malloc still works on it. */
	for (int i = 0; i < 1000; i++)
		free(malloc((size_t)(i * 37 % 4000 + 1)));
	printf("coroutines: %d stacks, %d guard zones touched, %s\n", NCORO, bad,
	       switches > 1000 ? "many switches" : "few switches");
}

static unsigned char my_stack[64 * 1024];
static volatile int on_mine, saw_onstack, plain_on_mine;

static void onstack_handler(int sig)
{
	(void)sig;
	int local;
	uintptr_t p = (uintptr_t)&local;
	on_mine = p >= (uintptr_t)my_stack && p < (uintptr_t)my_stack + sizeof my_stack;
	stack_t cur;
	sigaltstack(NULL, &cur);
	saw_onstack = (cur.ss_flags & SS_ONSTACK) != 0;
}

static void plain_handler(int sig)
{
	(void)sig;
	int local;
	uintptr_t p = (uintptr_t)&local;
	plain_on_mine = p >= (uintptr_t)my_stack && p < (uintptr_t)my_stack + sizeof my_stack;
}

static void show(const char *what, const stack_t *s)
{
	printf("%s: flags=%d size=%zu sp=%s\n", what, s->ss_flags, s->ss_size,
	       s->ss_sp == my_stack ? "mine"
	       : s->ss_sp           ? "other"
	                            : "null");
}

static void test_altstack(void)
{
	stack_t cur, ss;
	sigaltstack(NULL, &cur);
	show("initial", &cur);
	ss.ss_sp = my_stack;
	ss.ss_size = sizeof my_stack;
	ss.ss_flags = 0;
	int rc = sigaltstack(&ss, &cur);
	printf("set rc=%d\n", rc);
	show("old", &cur);
	sigaltstack(NULL, &cur);
	show("now", &cur);
	ss.ss_size = 1000;
	rc = sigaltstack(&ss, NULL);
	printf("too small rc=%d\n", rc);
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = onstack_handler;
	sa.sa_flags = SA_ONSTACK;
	sigaction(SIGUSR1, &sa, NULL);
	raise(SIGUSR1);
	printf("SA_ONSTACK handler on my stack: %d, saw SS_ONSTACK: %d\n", on_mine, saw_onstack);
	sa.sa_handler = plain_handler;
	sa.sa_flags = 0;
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	printf("plain handler on my stack: %d\n", plain_on_mine);
	double t0 = cpu_ms();
	while (cpu_ms() - t0 < 300)
		sink = leaf(sink, 20000);
	ss.ss_flags = SS_DISABLE;
	rc = sigaltstack(&ss, &cur);
	printf("disable rc=%d\n", rc);
	show("old", &cur);
	sigaltstack(NULL, &cur);
	show("after disable", &cur);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	if (!strcmp(mode, "coro"))
		test_coro();
	else if (!strcmp(mode, "altstack"))
		test_altstack();
	else {
		fprintf(stderr, "usage: prog_coro coro|altstack\n");
		return 2;
	}
	return 0;
}
