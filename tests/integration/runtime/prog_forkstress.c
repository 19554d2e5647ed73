/* prog_forkstress.c: fork while other threads are inside the runtime.
 *
 *   prog_forkstress FORKS
 *
 * Three threads call fold_counter and fold_region in a tight loop (each
 * takes a runtime lock), with a region instance now and then, while the
 * main thread forks FORKS times. Each child uses the same API once more and
 * exits (half with exit, half with _exit). A child that has not finished
 * after 5 s is deadlocked on a lock its parent's other threads held at the
 * fork: it is killed and the program exits 1. */
#include <fold.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int stop;

static void *hammer(void *arg)
{
	long id = (long)arg;
	static const char *const names[] = {"a", "b", "c", "d", "e", "f"};
	unsigned long n = 0;
	while (!stop) {
		const char *name = names[(n + (unsigned long)id) % 6];
		/* Mostly registrations (lock held nearly all the time), now and
		 * then a region instance (counter reads, the thread's buffer). */
		uint32_t c = fold_counter(name);
		uint32_t r = fold_region(name);
		if (n % 64 == 0) {
			fold_enter(r);
			fold_count(c, 1);
			fold_exit(r);
		}
		n++;
	}
	return NULL;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int forks = argc > 1 ? atoi(argv[1]) : 40;
	pthread_t th[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], NULL, hammer, (void *)i);
	int stuck = 0;
	for (int k = 0; k < forks && !stuck; k++) {
		struct timespec pause = {0, 2000000};
		nanosleep(&pause, NULL);
		pid_t pid = fork();
		if (pid == 0) {
			uint32_t c = fold_counter("child");
			uint32_t r = fold_region("child");
			fold_enter(r);
			fold_count(c, 1);
			fold_exit(r);
			if (k % 2)
				_exit(0);
			exit(0);
		}
		if (pid < 0) {
			perror("fork");
			break;
		}
		int status = 0;
		double t0 = now_s();
		while (waitpid(pid, &status, WNOHANG) == 0) {
			if (now_s() - t0 > 5) {
				fprintf(stderr, "prog_forkstress: child %d of fork %d is stuck (deadlock)\n",
				        (int)pid, k);
				kill(pid, SIGKILL);
				waitpid(pid, &status, 0);
				stuck = 1;
				break;
			}
			struct timespec ts = {0, 1000000};
			nanosleep(&ts, NULL);
		}
		if (!stuck && !(WIFEXITED(status) && WEXITSTATUS(status) == 0)) {
			fprintf(stderr, "prog_forkstress: child of fork %d failed (status %d)\n", k, status);
			stuck = 1;
		}
	}
	stop = 1;
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], NULL);
	printf("%d forks, %s\n", forks, stuck ? "a child was stuck" : "all children finished");
	return stuck;
}
