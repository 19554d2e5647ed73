/* timer_sigev_thread: a POSIX timer with SIGEV_THREAD: the C library runs
 * each expiry's callback in a helper thread it creates itself (not through
 * pthread_create), with every signal blocked; the callbacks enter and exit
 * a region, which fold must record from a thread it did not see start.
 *
 * diff: build={stub} -lrt -pthread
 * diff: expect-status=exit 0
 * diff: expect-stdout=^callbacks: 20$
 * diff: trace-check=--regions tick=20
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fold.h"
#include "common.h"

static volatile int ticks, claimed;
static uint32_t region;

static void tick(union sigval v)
{
	(void)v;
	if (__atomic_fetch_add(&claimed, 1, __ATOMIC_SEQ_CST) >= 20)
		return;
	fold_enter(region);
	burn_ms(1);
	fold_exit(region);
	__atomic_add_fetch(&ticks, 1, __ATOMIC_SEQ_CST);
}

int main(void)
{
	region = fold_region("tick");
	struct sigevent ev;
	memset(&ev, 0, sizeof ev);
	ev.sigev_notify = SIGEV_THREAD;
	ev.sigev_notify_function = tick;
	timer_t t;
	if (timer_create(CLOCK_MONOTONIC, &ev, &t))
		return perror("timer_create"), 1;
	struct itimerspec its = {{0, 5000000}, {0, 5000000}};
	timer_settime(t, 0, &its, NULL);
	double end = now_s() + 10;
	while (__atomic_load_n(&ticks, __ATOMIC_SEQ_CST) < 20 && now_s() < end)
		spin_ms(5);
	timer_delete(t);
	usleep(20000);
	printf("callbacks: %d\n", ticks);
	return 0;
}
