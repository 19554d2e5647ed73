/* alarm_pause: alarm() and pause() with a SIGALRM handler, 20 times, and
 * sleep() interrupted by the program's own SIGUSR1 from a child: pause
 * returns only for the program's signals, sleep returns the seconds left.
 *
 * diff: expect-status=exit 0
 * diff: expect-stdout=^pause returned 20 times for SIGALRM$
 * diff: timeout=40
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static volatile sig_atomic_t alarms, usr1;

static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static void on_usr1(int sig)
{
	(void)sig;
	usr1++;
}

int main(void)
{
	signal(SIGALRM, on_alarm);
	signal(SIGUSR1, on_usr1);
	int returned = 0;
	for (int i = 0; i < 20; i++) {
		struct itimerval it = {{0, 0}, {0, 10000}};
		setitimer(ITIMER_REAL, &it, NULL);
		if (pause() == -1 && errno == EINTR)
			returned++;
	}
	printf("pause returned %d times for SIGALRM\n", returned);
	fflush(stdout);
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		spin_ms(300);
		kill(parent, SIGUSR1);
		_exit(0);
	}
	unsigned left = sleep(5);
	waitpid(pid, NULL, 0);
	printf("sleep(5) interrupted by SIGUSR1: %s (left %s)\n", usr1 ? "yes" : "no",
	       left >= 3 && left <= 5 ? "3-5 s" : "other");
	return 0;
}
