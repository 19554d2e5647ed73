/* prog_unbalanced.c: every misuse of the region API, none may crash:
 * exit without enter, exit skipping an inner region, exit of a region that is
 * not open, longjmp out of a region, a thread ending inside a region, an
 * unknown region id, and pause/resume ("quiet" is entered and left while
 * paused and is not recorded; "after" once after resume). */
#include <fold.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>

#include "prog_common.h"

static jmp_buf env;
static uint32_t a, b, c;

static void *ends_inside(void *arg)
{
	(void)arg;
	fold_enter(a);
	return NULL;
}

__attribute__((noinline)) static void jump_out(void)
{
	fold_enter(c);
	longjmp(env, 1);
}

int main(void)
{
	a = fold_region("a");
	b = fold_region("b");
	c = fold_region("c");
	uint32_t quiet = fold_region("quiet"), after = fold_region("after");
	fold_exit(a);              /* exit without enter */
	fold_enter(a);
	fold_enter(b);
	fold_exit(a);              /* skips b */
	fold_enter(a);
	fold_exit(c);              /* not open */
	fold_exit(a);
	fold_enter(b);
	if (!setjmp(env))
		jump_out();        /* c stays open */
	fold_exit(b);              /* skips c */
	fold_enter(123456);        /* unknown id */
	fold_exit(123456);
	pthread_t th;
	pthread_create(&th, NULL, ends_inside, NULL);
	pthread_join(th, NULL);
	fold_pause();
	fold_enter(quiet);
	burn_ms(100);
	fold_exit(quiet);
	fold_resume();
	fold_enter(after);
	burn_ms(20);
	fold_exit(after);
	puts("ok");
	return 0;
}
