/* d15_abort_handled: a test framework catches raise(SIGABRT) (its handler
 * returns) and abort() (its handler siglongjmps back), then 100 more regions
 * run: the trace keeps recording after the aborts and the report does not
 * say the program died (issue 28 defect 15).
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: expect-stdout=^caught 2 aborts$
 * diff: trace-check=--regions after=100
 * diff: summary-not=died of|did not end normally
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fold.h"
#include "common.h"

static sigjmp_buf env;
static volatile sig_atomic_t caught, jump;

static void on_abort(int sig)
{
	(void)sig;
	caught++;
	if (jump)
		siglongjmp(env, 1);
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_abort;
	sigaction(SIGABRT, &sa, NULL);
	burn_ms(50);
	raise(SIGABRT);
	jump = 1;
	if (!sigsetjmp(env, 1))
		abort();
	uint32_t r = fold_region("after");
	for (int i = 0; i < 100; i++) {
		fold_enter(r);
		burn_ms(3);
		fold_exit(r);
	}
	printf("caught %d aborts\n", (int)caught);
	return 0;
}
