/* clone_thread_raw: a thread made with the raw clone system call
 * (CLONE_VM|CLONE_THREAD|..., no pthread_create, no TLS of its own: some
 * language runtimes do this) computes while the main thread is sampled, and
 * receives the program's own process-directed SIGALRMs; it tells main it is
 * done through memory and exits with the raw exit call.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^raw thread done, alarms handled$
 */
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include "common.h"

static volatile int done;
static volatile sig_atomic_t alarms;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static int raw_thread(void *arg)
{
	(void)arg;
	volatile uint64_t x = 1;
	for (uint64_t i = 0; i < 200000000ULL && alarms < 20; i++)
		x = x * 6364136223846793005u + 1;
	__atomic_store_n(&done, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_exit, 0);
	return 0;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	size_t size = 1 << 20;
	char *stack = malloc(size);
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | CLONE_THREAD | CLONE_SYSVSEM;
	if (clone(raw_thread, stack + size, flags, NULL) < 0)
		return perror("clone"), 1;
	struct itimerval it = {{0, 5000}, {0, 5000}};
	setitimer(ITIMER_REAL, &it, NULL);
	double end = now_s() + 20;
	while (!__atomic_load_n(&done, __ATOMIC_SEQ_CST) && now_s() < end)
		work_n(10000);
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	usleep(10000); /* let the raw thread's exit complete */
	printf("raw thread %s, alarms %s\n", done ? "done" : "not done",
	       alarms >= 20 ? "handled" : "missing");
	return 0;
}
