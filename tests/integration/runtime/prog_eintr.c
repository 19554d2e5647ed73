/* prog_eintr.c: fold's sampling signal must not change what blocking calls do.
 *
 *   prog_eintr calls   every call Linux never restarts, with a 300 ms timeout
 *                      on something idle; prints one line per call (name, return
 *                      value, errno, whether it lasted its full timeout) and
 *                      exits 1 if any call ended early. run.sh compares the
 *                      lines with those of a run without fold.
 *   prog_eintr own     the program's own signals still interrupt: handlers
 *                      installed with sigaction (SA_RESTART), signal(), for a
 *                      fatal signal fold takes over (SIGTERM) and for fold's
 *                      sampling signal, each sent by another thread while the
 *                      main thread waits 5 s; every wait must end early with
 *                      EINTR. Also: SA_RESETHAND reads back SIG_DFL after the
 *                      first delivery.
 */
#define _GNU_SOURCE /* ppoll, semtimedop */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ipc.h>
#include <sys/select.h>
#include <sys/sem.h>
#include <sys/time.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int failures;

/* Prints the outcome of one call that should have lasted want_ms. */
static void report(const char *name, long rc, int err, double t0, double want_ms)
{
	double took = now_ms() - t0;
	int full = took >= want_ms;
	printf("%-16s rc=%ld errno=%s full=%d\n", name, rc, rc < 0 ? strerror(err) : "-", full);
	fprintf(stderr, "%-16s %.1f ms\n", name, took);
	if (!full)
		failures++;
}

#define TIMED(name, want_ms, call)                                                                           \
	do {                                                                                                 \
		double t0_ = now_ms();                                                                       \
		errno = 0;                                                                                   \
		long rc_ = (long)(call);                                                                     \
		report(name, rc_, errno, t0_, want_ms);                                                      \
	} while (0)

static volatile sig_atomic_t alarms;
static void on_alarm(int sig)
{
	(void)sig;
	alarms++;
}

static int calls(void)
{
	int p[2];
	if (pipe(p))
		return 1;
	struct pollfd pfd = {.fd = p[0], .events = POLLIN};
	const struct timespec t300 = {0, 300000000};
	struct timespec rem;

	TIMED("sleep", 1000, sleep(1));
	TIMED("usleep", 300, usleep(300000));
	TIMED("nanosleep", 300, nanosleep(&t300, &rem));
	TIMED("clock_nanosleep", 300, clock_nanosleep(CLOCK_MONOTONIC, 0, &t300, &rem));
	struct timespec abs;
	clock_gettime(CLOCK_MONOTONIC, &abs);
	abs.tv_nsec += 300000000;
	if (abs.tv_nsec >= 1000000000) {
		abs.tv_sec++;
		abs.tv_nsec -= 1000000000;
	}
	/* The deadline (and below, the alarm) starts a moment before the
	 * timing does: 299 ms. */
	TIMED("clock_nanosleep+", 299, clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &abs, NULL));
	TIMED("thrd_sleep", 300, thrd_sleep(&t300, &rem));
	TIMED("poll", 300, poll(&pfd, 1, 300));
	TIMED("ppoll", 300, ppoll(&pfd, 1, &t300, NULL));
	fd_set rd;
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	struct timeval tv = {0, 300000};
	TIMED("select", 300, select(p[0] + 1, &rd, NULL, NULL, &tv));
	printf("select left %ld.%06ld s, fd set %d\n", (long)tv.tv_sec, (long)tv.tv_usec,
	       FD_ISSET(p[0], &rd));
	FD_ZERO(&rd);
	FD_SET(p[0], &rd);
	TIMED("pselect", 300, pselect(p[0] + 1, &rd, NULL, NULL, &t300, NULL));
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, p[0], &ev);
	TIMED("epoll_wait", 300, epoll_wait(ep, &out, 1, 300));
	TIMED("epoll_pwait", 300, epoll_pwait(ep, &out, 1, 300, NULL));
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &usr2, NULL);
	TIMED("sigtimedwait", 300, sigtimedwait(&usr2, NULL, &t300));
	int sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	if (sem >= 0) {
		struct sembuf op = {0, -1, 0};
		TIMED("semtimedop", 300, semtimedop(sem, &op, 1, &t300));
		semctl(sem, 0, IPC_RMID);
	}
	/* pause() ends with the program's own SIGALRM, not before. */
	signal(SIGALRM, on_alarm);
	struct itimerval it = {{0, 0}, {0, 300000}};
	setitimer(ITIMER_REAL, &it, NULL);
	TIMED("pause", 299, pause());
	printf("alarms %d\n", (int)alarms);
	return failures ? 1 : 0;
}

/* ---------------------------------------------------------------- own */

static volatile sig_atomic_t got[NSIG];
static void on_own(int sig)
{
	got[sig]++;
}

struct sender {
	pthread_t target;
	int sig;
};

static void *send_later(void *arg)
{
	struct sender *s = arg;
	usleep(100000);
	pthread_kill(s->target, s->sig);
	return NULL;
}

/* Waits up to 5 s in `what` while another thread sends sig after 100 ms:
 * the wait must end early with EINTR and the handler must have run. */
static int interrupted(const char *what, int sig, int (*wait)(int fd))
{
	int p[2];
	if (pipe(p))
		return 1;
	struct sender s = {pthread_self(), sig};
	pthread_t th;
	int before = got[sig];
	double t0 = now_ms();
	pthread_create(&th, NULL, send_later, &s);
	errno = 0;
	int rc = wait(p[0]);
	int err = errno;
	double took = now_ms() - t0;
	pthread_join(th, NULL);
	close(p[0]);
	close(p[1]);
	int ok = rc == -1 && err == EINTR && took < 4000 && got[sig] == before + 1;
	printf("%-12s signal %2d: rc=%d errno=%s after %.0f ms, handler ran %d time(s): %s\n", what, sig, rc,
	       rc < 0 ? strerror(err) : "-", took, got[sig] - before, ok ? "ok" : "WRONG");
	return ok ? 0 : 1;
}

static int wait_nanosleep(int fd)
{
	(void)fd;
	struct timespec t = {5, 0}, rem = {0, 0};
	int rc = nanosleep(&t, &rem);
	if (rc == -1 && rem.tv_sec < 1)
		return -2; /* rem must say what was left (~4.9 s) */
	return rc;
}
static int wait_poll(int fd)
{
	struct pollfd pfd = {.fd = fd, .events = POLLIN};
	return poll(&pfd, 1, 5000);
}
static int wait_epoll(int fd)
{
	int ep = epoll_create1(0);
	struct epoll_event ev = {.events = EPOLLIN}, out;
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	int rc = epoll_wait(ep, &out, 1, 5000);
	int err = errno;
	close(ep);
	errno = err;
	return rc;
}
static int wait_pause(int fd)
{
	(void)fd;
	return pause();
}

static int own(void)
{
	int bad = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_own;
	sa.sa_flags = SA_RESTART; /* these calls are never restarted anyway */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGRTMIN + 4, &sa, NULL); /* fold's sampling signal */
	signal(SIGUSR2, on_own);
	bad |= interrupted("nanosleep", SIGUSR1, wait_nanosleep);
	bad |= interrupted("poll", SIGUSR2, wait_poll);
	bad |= interrupted("epoll_wait", SIGTERM, wait_epoll);
	bad |= interrupted("pause", SIGRTMIN + 4, wait_pause);

	/* SA_RESETHAND: one delivery, then the disposition reads back SIG_DFL. */
	sa.sa_flags = SA_RESETHAND;
	sigaction(SIGUSR1, &sa, NULL);
	int before = got[SIGUSR1];
	raise(SIGUSR1);
	struct sigaction now;
	sigaction(SIGUSR1, NULL, &now);
	int reset = got[SIGUSR1] == before + 1 && now.sa_handler == SIG_DFL;
	printf("SA_RESETHAND: %s\n", reset ? "ok" : "WRONG");
	bad |= !reset;
	return bad;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc > 1 && !strcmp(argv[1], "calls"))
		return calls();
	if (argc > 1 && !strcmp(argv[1], "own"))
		return own();
	fprintf(stderr, "usage: prog_eintr calls|own\n");
	return 2;
}
