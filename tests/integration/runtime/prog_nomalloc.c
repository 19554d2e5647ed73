/* prog_nomalloc.c: proves fold's sample handler never allocates.
 *
 * This program defines malloc/calloc/realloc/free/aligned_alloc/memalign/
 * posix_memalign (forwarding to glibc's __libc_* versions), so they are the
 * allocator of the whole process, libfold.so included. An allocation made
 * while fold's sampling signal (SIGRTMIN+4, the default) is blocked in the
 * calling thread (which is the case exactly while its handler runs: this
 * program never blocks it; fold's flusher thread, which blocks every signal,
 * is told apart by SIGUSR2) is a violation: counted, and the exit status is 1.
 * Meanwhile three threads record regions and app counters at the sampling
 * floor (time@100us), a new counter is registered mid-run, so the handler
 * swaps buffers and re-emits counter sets. */
#include <fold.h>
#include <malloc.h>
#include <stdlib.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "prog_common.h"

void *__libc_malloc(size_t);
void *__libc_calloc(size_t, size_t);
void *__libc_realloc(void *, size_t);
void __libc_free(void *);
void *__libc_memalign(size_t, size_t);

static volatile int violations;

static void check(void)
{
	sigset_t cur;
	/* In the handler exactly the sampling signal is blocked on top of the
	 * program's mask (which blocks nothing); a thread of fold's own that
	 * blocks every signal (the flusher) is not in the handler. */
	if (pthread_sigmask(SIG_BLOCK, NULL, &cur) == 0 && sigismember(&cur, SIGRTMIN + 4) &&
	    !sigismember(&cur, SIGUSR2)) {
		violations++;
		static const char msg[] = "prog_nomalloc: allocation inside the sample handler\n";
		write(2, msg, sizeof msg - 1);
	}
}

void *malloc(size_t n)
{
	check();
	return __libc_malloc(n);
}
void *calloc(size_t a, size_t b)
{
	check();
	return __libc_calloc(a, b);
}
void *realloc(void *p, size_t n)
{
	check();
	return __libc_realloc(p, n);
}
void free(void *p)
{
	if (p)
		check();
	__libc_free(p);
}
void *memalign(size_t a, size_t n)
{
	check();
	return __libc_memalign(a, n);
}
void *aligned_alloc(size_t a, size_t n)
{
	check();
	return __libc_memalign(a, n);
}
int posix_memalign(void **out, size_t a, size_t n)
{
	check();
	*out = __libc_memalign(a, n);
	return *out ? 0 : 12;
}

static uint32_t region, items;

static void *worker(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100; i++) {
		fold_enter(region);
		burn_ms(2);
		fold_count(items, 1);
		fold_exit(region);
		if (i == 50)
			fold_count(fold_counter("late"), 1);
	}
	return NULL;
}

int main(void)
{
	region = fold_region("work");
	items = fold_counter("items");
	pthread_t th[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, worker, NULL);
	worker(NULL);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("violations=%d\n", violations);
	return violations ? 1 : 0;
}
