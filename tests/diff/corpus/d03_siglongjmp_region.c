/* d03_siglongjmp_region: a SIGALRM handler siglongjmps out every 200 us while
 * the loop enters and exits regions (issue 28 defect 3: the jump could land
 * inside fold_enter/fold_exit and the program hung).
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: expect-stdout=^jumps >= 1000: yes$
 * diff: timeout=8
 */
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include "fold.h"
#include "common.h"

static sigjmp_buf env;
static volatile sig_atomic_t jumps;

static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(env, 1);
}

int main(void)
{
	uint32_t r = fold_region("step");
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	setitimer(ITIMER_REAL, &it, NULL);
	volatile double end = now_s() + 2.0;
	sigsetjmp(env, 1);
	while (now_s() < end) {
		fold_enter(r);
		work_n(200);
		fold_exit(r);
	}
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("jumps >= 1000: %s\n", jumps >= 1000 ? "yes" : "no");
	return 0;
}
