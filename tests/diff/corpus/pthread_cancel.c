/* pthread_cancel: threads cancelled while blocked in a cancellation point
 * (sleep, read, pthread_cond_wait) and one cancelled asynchronously in the
 * middle of computing, all while sampled at 1 ms; cleanup handlers run.
 *
 * diff: build=-pthread
 * diff: expect-status=exit 0
 * diff: trace-check=--min-threads 5
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include "common.h"

static volatile int cleaned[4];
static int ready;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t c = PTHREAD_COND_INITIALIZER;
static int fds[2];

static void cleanup(void *arg)
{
	cleaned[(long)arg] = 1;
}

static void *sleeper(void *arg)
{
	pthread_cleanup_push(cleanup, arg);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		sleep(10);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *reader(void *arg)
{
	char b;
	pthread_cleanup_push(cleanup, arg);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		if (read(fds[0], &b, 1) < 0)
			break;
	pthread_cleanup_pop(0);
	return NULL;
}

static void *waiter(void *arg)
{
	pthread_mutex_lock(&m);
	pthread_cleanup_push(cleanup, arg);
	pthread_cleanup_push((void (*)(void *))pthread_mutex_unlock, &m);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		pthread_cond_wait(&c, &m);
	pthread_cleanup_pop(1);
	pthread_cleanup_pop(0);
	return NULL;
}

static void *computer(void *arg)
{
	pthread_cleanup_push(cleanup, arg);
	pthread_setcanceltype(PTHREAD_CANCEL_ASYNCHRONOUS, NULL);
	__atomic_add_fetch(&ready, 1, __ATOMIC_SEQ_CST);
	for (;;)
		work_n(1000);
	pthread_cleanup_pop(0);
	return NULL;
}

int main(void)
{
	void *(*fn[4])(void *) = {sleeper, reader, waiter, computer};
	pthread_t t[4];
	if (pipe(fds))
		return 1;
	for (long round = 0; round < 5; round++) {
		__atomic_store_n(&ready, 0, __ATOMIC_SEQ_CST);
		for (long i = 0; i < 4; i++)
			pthread_create(&t[i], NULL, fn[i], (void *)i);
		/* Each thread has pushed its cleanup handler before it is
		 * cancelled (on a loaded machine a thread may not have run yet). */
		while (__atomic_load_n(&ready, __ATOMIC_SEQ_CST) < 4)
			sched_yield();
		spin_ms(20);
		int canceled = 0;
		for (int i = 0; i < 4; i++) {
			void *ret;
			pthread_cancel(t[i]);
			pthread_join(t[i], &ret);
			canceled += ret == PTHREAD_CANCELED;
		}
		printf("round %ld: %d canceled, cleanups %d%d%d%d\n", round, canceled, cleaned[0], cleaned[1],
		       cleaned[2], cleaned[3]);
		for (int i = 0; i < 4; i++)
			cleaned[i] = 0;
	}
	return 0;
}
