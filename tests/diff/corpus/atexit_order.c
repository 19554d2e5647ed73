/* atexit_order: atexit, on_exit (with the status), C destructors and stdio
 * buffers flushed at exit, in their order: a handler registered from a
 * handler, output left unflushed in stdout's buffer, exit(5) from main.
 *
 * diff: expect-status=exit 5
 * diff: hostile=yes
 * diff: dump-has=thread_end
 */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

static void late(void)
{
	printf("late handler (registered by a handler)\n");
}

static void first(void)
{
	printf("atexit 1 (runs last)\n");
}

static void second(void)
{
	printf("atexit 2\n");
	atexit(late);
}

static void with_status(int status, void *arg)
{
	printf("on_exit status %d arg %s\n", status, (const char *)arg);
}

__attribute__((destructor)) static void dtor(void)
{
	printf("destructor\n");
}

int main(void)
{
	atexit(first);
	on_exit(with_status, "x");
	atexit(second);
	burn_ms(100);
	printf("unflushed line");
	exit(5);
}
