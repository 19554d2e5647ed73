/* prog_sigmask.c: fold's sampling signal is never blocked, waited for or
 * seen by the program, and the program reads back its masks as it set them.
 *
 *   prog_sigmask sigwait    a thread blocks every signal, works 300 ms, then
 *                           sigwait(&all) and sigtimedwait(&all, 200 ms):
 *                           it must get the SIGUSR1 main sends it, then EAGAIN
 *   prog_sigmask signalfd   a signalfd over every signal (all blocked), 300 ms
 *                           of work, then SIGUSR1 to itself: the first read
 *                           is SIGUSR1
 *   prog_sigmask mask       sigprocmask/pthread_sigmask queries round-trip
 *                           (every signal, then without SIGRTMIN+4, ...), a
 *                           handler's sa_mask reads back, a new thread sees
 *                           its creator's mask; then 300 ms of work with all
 *                           blocked (the trace must have its samples)
 *   prog_sigmask longjmp    a SIGALRM handler of the program siglongjmps out
 *                           every 200 us for 1.5 s of work: sampling goes on
 *                           (prints its CPU time, "cpu_ms N", on stderr)
 *   prog_sigmask rawblock   blocks every signal with the raw system call and
 *                           works 300 ms: the lost samples are reported
 *   prog_sigmask sigpause   sigpause(SIGUSR1) until another thread sends
 *                           SIGUSR2 after 300 ms: it must last that long
 * Prints what the program saw; run.sh compares it with a run without fold.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "../runtime/prog_common.h"

static int count(const sigset_t *s)
{
	int n = 0;
	for (int i = 1; i < 65; i++)
		n += sigismember(s, i) == 1;
	return n;
}

static void *waiter(void *arg)
{
	(void)arg;
	sigset_t all;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	burn_ms(300);
	int sig = -1;
	int rc = sigwait(&all, &sig);
	printf("sigwait rc=%d sig=%s\n", rc, sig == SIGUSR1 ? "SIGUSR1" : "other");
	if (sig != SIGUSR1)
		fprintf(stderr, "sigwait returned signal %d\n", sig);
	struct timespec ts = {0, 200000000};
	siginfo_t si;
	rc = sigtimedwait(&all, &si, &ts);
	printf("sigtimedwait rc=%d errno=%s\n", rc, rc < 0 ? strerror(errno) : "-");
	if (rc > 0)
		fprintf(stderr, "sigtimedwait returned signal %d\n", rc);
	return NULL;
}

static void test_sigwait(void)
{
	pthread_t th;
	pthread_create(&th, NULL, waiter, NULL);
	struct timespec ts = {0, 500000000};
	nanosleep(&ts, NULL);
	pthread_kill(th, SIGUSR1);
	pthread_join(th, NULL);
}

static void test_signalfd(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	int fd = signalfd(-1, &all, 0);
	burn_ms(300);
	pthread_kill(pthread_self(), SIGUSR1);
	struct signalfd_siginfo si;
	ssize_t n = read(fd, &si, sizeof si);
	printf("signalfd read=%zd first=%s\n", n, si.ssi_signo == SIGUSR1 ? "SIGUSR1" : "other");
	if (si.ssi_signo != SIGUSR1)
		fprintf(stderr, "signalfd read signal %u first\n", si.ssi_signo);
}

static volatile sig_atomic_t in_handler_count = -1;
static void usr2(int sig)
{
	(void)sig;
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	in_handler_count = count(&cur);
}

static void *show_mask(void *arg)
{
	(void)arg;
	sigset_t cur;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("thread inherits: %d signals, SIGRTMIN+4 %s\n", count(&cur),
	       sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not blocked");
	return NULL;
}

static void test_mask(void)
{
	sigset_t all, cur, set;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("start: %d signals blocked\n", count(&cur));
	sigprocmask(SIG_BLOCK, &all, &cur);
	printf("old: %d\n", count(&cur));
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("all: %d signals, SIGRTMIN+4 %s\n", count(&cur),
	       sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not blocked");
	pthread_t th;
	pthread_create(&th, NULL, show_mask, NULL);
	pthread_join(th, NULL);
	burn_ms(300); /* sampled although "everything" is blocked */
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN + 4);
	pthread_sigmask(SIG_UNBLOCK, &set, &cur);
	printf("unblock old: %d, SIGRTMIN+4 %s\n", count(&cur),
	       sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not");
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	printf("now: %d, SIGRTMIN+4 %s\n", count(&cur), sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not");
	sigprocmask(SIG_SETMASK, &set, &cur);
	printf("setmask old: %d\n", count(&cur));
	sigprocmask(SIG_SETMASK, NULL, &cur);
	printf("setmask now: %d, SIGRTMIN+4 %s\n", count(&cur),
	       sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not");
	sigemptyset(&set);
	sigprocmask(SIG_SETMASK, &set, NULL);
	/* A handler whose sa_mask is every signal sees every signal blocked. */
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = usr2;
	sigfillset(&sa.sa_mask);
	sigaction(SIGUSR2, &sa, NULL);
	raise(SIGUSR2);
	printf("in handler: %d\n", (int)in_handler_count);
	sigaction(SIGUSR2, NULL, &sa);
	printf("sa_mask reads back: %d\n", count(&sa.sa_mask));
	/* sighold/sigrelse, as the System V API (deprecated, still used). */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	sighold(SIGRTMIN + 4);
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("sighold: %s\n", sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not");
	sigrelse(SIGRTMIN + 4);
#pragma GCC diagnostic pop
	sigprocmask(SIG_BLOCK, NULL, &cur);
	printf("sigrelse: %s\n", sigismember(&cur, SIGRTMIN + 4) ? "blocked" : "not");
	sigprocmask(SIG_BLOCK, &all, NULL);
	burn_ms(100);
}

static sigjmp_buf env;
static volatile long jumps;
static void on_alarm(int sig)
{
	(void)sig;
	jumps++;
	siglongjmp(env, 1);
}

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void test_longjmp(void)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_alarm;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGALRM, &sa, NULL);
	struct itimerval it = {{0, 200}, {0, 200}};
	double t0 = now_ms();
	volatile double x = 1;
	/* The jump buffer is filled before the first tick can use it (a tick
	 * between arming and sigsetjmp jumped through garbage: SIGSEGV, with
	 * or without fold, in about one run in fifty). */
	if (sigsetjmp(env, 1) == 0)
		setitimer(ITIMER_REAL, &it, NULL);
	while (now_ms() - t0 < 1500)
		for (int i = 0; i < 1000; i++)
			x = x * 0.9999999 + 1e-7;
	struct itimerval off = {{0, 0}, {0, 0}};
	setitimer(ITIMER_REAL, &off, NULL);
	printf("longjmp: done (%s)\n", jumps > 100 ? "many jumps" : "few jumps");
	struct timespec cpu;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &cpu);
	fprintf(stderr, "%ld jumps\ncpu_ms %ld\n", (long)jumps,
	        (long)cpu.tv_sec * 1000 + cpu.tv_nsec / 1000000);
}

static void test_rawblock(void)
{
	sigset_t all;
	sigfillset(&all);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, NULL, 8);
	burn_ms(300);
	printf("rawblock: done\n");
}

static void on_usr2(int sig)
{
	(void)sig;
}

static void *send_usr2(void *arg)
{
	struct timespec ts = {0, 300000000};
	nanosleep(&ts, NULL);
	pthread_kill(*(pthread_t *)arg, SIGUSR2);
	return NULL;
}

static void test_sigpause(void)
{
	signal(SIGUSR2, on_usr2);
	pthread_t self = pthread_self(), th;
	pthread_create(&th, NULL, send_usr2, &self);
	double t0 = now_ms();
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
	int rc = sigpause(SIGUSR1);
#pragma GCC diagnostic pop
	int err = errno;
	double took = now_ms() - t0;
	pthread_join(th, NULL);
	printf("sigpause rc=%d errno=%s full=%d\n", rc, strerror(err), took >= 250);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(mode, "sigwait"))
		test_sigwait();
	else if (!strcmp(mode, "signalfd"))
		test_signalfd();
	else if (!strcmp(mode, "mask"))
		test_mask();
	else if (!strcmp(mode, "longjmp"))
		test_longjmp();
	else if (!strcmp(mode, "rawblock"))
		test_rawblock();
	else if (!strcmp(mode, "sigpause"))
		test_sigpause();
	else {
		fprintf(stderr, "usage: prog_sigmask sigwait|signalfd|mask|longjmp|rawblock\n");
		return 2;
	}
	return 0;
}
