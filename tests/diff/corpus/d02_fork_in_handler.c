/* d02_fork_in_handler: fork() from a SIGALRM handler, 500 times a second,
 * while the interrupted code defines regions and counters and enters them
 * (issue 28 defect 2: fold's atfork handler waited on a lock the interrupted
 * code held). Up to 400 forks or 8 s, the handler included: a fork costs
 * more under fold (a child writes its trace), 50 ms on a loaded machine, and
 * 400 of them back to back would starve the loop and pass the timeout
 * without any lock held; 20 forks in 8 s (each at a random point of the
 * loop's region calls) are what a loaded machine still gives, and the
 * deadlock showed in 5 runs of 5. The loop allocates nothing itself:
 * without fold, a fork from a handler that interrupted malloc or
 * pthread_create can block in glibc.
 *
 * diff: build={stub}
 * diff: expect-status=exit 0
 * diff: expect-stdout=^forks >= 20: yes, failed: 0$
 * diff: timeout=12
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "fold.h"
#include "common.h"

static volatile sig_atomic_t forks, failed;
static double end;

static void timer_off(void)
{
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
}

static void on_alarm(int sig)
{
	(void)sig;
	int saved = errno;
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	if (pid < 0 || waitpid(pid, NULL, 0) != pid)
		failed++;
	else
		++forks;
	/* Enough: the loop below must get the CPU back on a busy machine. */
	if (forks >= 400 || now_s() >= end)
		timer_off();
	errno = saved;
}

int main(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	end = now_s() + 8;
	struct itimerval it = {{0, 2000}, {0, 2000}};
	setitimer(ITIMER_REAL, &it, NULL);
	unsigned i = 0;
	/* Long names: looking one up takes a while, all of it under the lock
	 * that fold_region takes. */
	static char name[16384];
	memset(name, 'x', sizeof name - 1);
	while (forks < 400 && now_s() < end) {
		snprintf(name, 16, "r%04u", i++ % 64);
		name[5] = 'x';
		uint32_t r = fold_region(name);
		fold_count(fold_counter(name), 1);
		fold_enter(r);
		work_n(100);
		fold_exit(r);
	}
	timer_off();
	printf("forks >= 20: %s, failed: %d\n", forks >= 20 ? "yes" : "no", (int)failed);
	return 0;
}
