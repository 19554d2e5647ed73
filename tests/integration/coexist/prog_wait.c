/* prog_wait.c: blocking calls last what they last without fold.
 *
 *   prog_wait sleeps MS   nanosleep(2 s), then clock_nanosleep (relative,
 *                         CLOCK_MONOTONIC and CLOCK_REALTIME), usleep, poll,
 *                         select, epoll_wait, ppoll of MS each; prints
 *                         "NAME overshoot_us rc errno" per call
 *   prog_wait sems        sem_timedwait and sem_clockwait with a 300 ms
 *                         deadline on a semaphore nobody posts, sem_wait on
 *                         one posted after 300 ms: prints rc and errno
 * run.sh compares the overshoots with a run without fold (timing, with a
 * tolerance) and the rc/errno lines exactly.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static void line(const char *name, double t0, double want_us, long rc, int err)
{
	double over = now_us() - t0 - want_us;
	printf("%s %.0f %ld %s\n", name, over, rc, rc < 0 ? strerror(err) : "-");
}

#define TIMED(name, want_us, call)                                                                           \
	do {                                                                                                 \
		double t0_ = now_us();                                                                       \
		errno = 0;                                                                                   \
		long rc_ = (long)(call);                                                                     \
		line(name, t0_, want_us, rc_, errno);                                                        \
	} while (0)

static void sleeps(long ms)
{
	struct timespec two = {2, 0};
	TIMED("nanosleep_2s", 2e6, nanosleep(&two, NULL));
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000};
	double us = (double)ms * 1000;
	TIMED("clock_nanosleep_mono", us, clock_nanosleep(CLOCK_MONOTONIC, 0, &ts, NULL));
	TIMED("clock_nanosleep_real", us, clock_nanosleep(CLOCK_REALTIME, 0, &ts, NULL));
	TIMED("usleep", us, usleep((useconds_t)(ms * 1000)));
	TIMED("poll", us, poll(NULL, 0, (int)ms));
	struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
	TIMED("select", us, select(0, NULL, NULL, NULL, &tv));
	int ep = epoll_create1(0);
	struct epoll_event ev;
	TIMED("epoll_wait", us, epoll_wait(ep, &ev, 1, (int)ms));
	close(ep);
	TIMED("ppoll", us, ppoll(NULL, 0, &ts, NULL));
}

static sem_t later;
static void *poster(void *arg)
{
	(void)arg;
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	sem_post(&later);
	return NULL;
}

static void sems(void)
{
	sem_t never;
	sem_init(&never, 0, 0);
	struct timespec dl;
	clock_gettime(CLOCK_REALTIME, &dl);
	dl.tv_nsec += 300000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	int rc = sem_timedwait(&never, &dl);
	printf("sem_timedwait rc=%d errno=%s\n", rc, rc < 0 ? strerror(errno) : "-");
	clock_gettime(CLOCK_MONOTONIC, &dl);
	dl.tv_nsec += 300000000;
	if (dl.tv_nsec >= 1000000000) {
		dl.tv_sec++;
		dl.tv_nsec -= 1000000000;
	}
	rc = sem_clockwait(&never, CLOCK_MONOTONIC, &dl);
	printf("sem_clockwait rc=%d errno=%s\n", rc, rc < 0 ? strerror(errno) : "-");
	sem_init(&later, 0, 0);
	pthread_t th;
	pthread_create(&th, NULL, poster, NULL);
	rc = sem_wait(&later);
	printf("sem_wait rc=%d errno=%s\n", rc, rc < 0 ? strerror(errno) : "-");
	pthread_join(th, NULL);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "sleeps") && argc > 2)
		sleeps(atol(argv[2]));
	else if (!strcmp(mode, "sems"))
		sems();
	else {
		fprintf(stderr, "usage: prog_wait sleeps MS | sems\n");
		return 2;
	}
	return 0;
}
