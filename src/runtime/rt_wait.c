/* rt_wait.c: the program's blocking calls must not see our sampling signal.
 *
 * Linux never restarts some interrupted calls, even for a handler installed
 * with SA_RESTART (signal(7)): the sleep family, poll/select/epoll and their
 * p-variants, sigtimedwait/sigwaitinfo, pause/sigsuspend, and the System V
 * IPC calls. Without this file a `sleep(2)` under `time@` sampling returns
 * after at most one period. So every one of them is wrapped here, and when
 * it fails with EINTR while *only* fold's sampling handler ran during the
 * call, it is restarted with the time that is left; when a handler of the
 * program's own ran (or nothing of ours did: a stop signal, a handler we
 * cannot see), the EINTR goes to the program as it would without fold.
 *
 * How we know which handlers ran (rt_signal.c, invariant 9): two per-thread
 * counters, bumped by our sampling handler (rt__tls_sig_ours) and by every
 * program handler (rt__tls_sig_app; the program's handlers are installed
 * through our sigaction/signal wrappers and called from a trampoline that
 * counts them). A call snapshots both before each attempt; "restart" means
 * ours moved and app did not.
 *
 * Why restart rather than block the sampling signal around the call:
 * blocking costs two sigprocmask system calls per call (~3 us here, on every
 * poll of an event loop), and a waiting thread would get no samples during
 * its wait, only one late sample when the call returns, with the wrong
 * timestamp. Time-based folding wants the waiting phases sampled like the
 * others (a wait is where a region's wall time goes), so the signal is let
 * in, recorded with the stack inside the blocking call, and the call is
 * resumed. The cost when nothing interrupts is two thread-local reads.
 *
 * Remaining time: every restart aims at an absolute deadline taken at entry,
 * never at the kernel's `rem` (which loses the handler's time and rounds,
 * so a 2 s sleep lasted 2.17 s at 1 ms sampling): nanosleep and relative
 * clock_nanosleep resume with TIMER_ABSTIME sleeps on their clock (relative
 * CLOCK_REALTIME sleeps on CLOCK_MONOTONIC, as the kernel runs them);
 * poll/epoll/select and the others from a CLOCK_MONOTONIC deadline (the
 * clock these timeouts run on), rounded up so a call never ends before its
 * timeout; sem_timedwait/sem_clockwait carry their own absolute deadline.
 * errno is what the program would have seen: restored before each retry.
 *
 * Masks: the calls that take a signal mask or set (sigsuspend, ppoll,
 * pselect, epoll_pwait*, sigwaitinfo, sigtimedwait) get it without fold's
 * signals (rt_sigmask.c), so our signal is never blocked or waited for.
 *
 * The real functions are resolved once by rt__wait_init (from init, before
 * any sampling signal can arrive), so the wrappers are async-signal-safe
 * afterwards (the crash path calls nanosleep).
 */
#include <dlfcn.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <sys/epoll.h>
#include <sys/msg.h>
#include <sys/select.h>
#include <semaphore.h>
#include <sys/sem.h>
#include <threads.h>
#include <time.h>
#include <unistd.h>

#include "fold_rt.h"

/* The _FORTIFY_SOURCE entry points poll/ppoll compile to (declared only
 * under fortification). */
int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen);
int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask,
                size_t fdslen);

/* ---------------------------------------------------------------- real functions */

#define WAIT_FUNCS(X)                                                                                        \
	X(nanosleep, int, (const struct timespec *, struct timespec *))                                      \
	X(clock_nanosleep, int, (clockid_t, int, const struct timespec *, struct timespec *))                \
	X(poll, int, (struct pollfd *, nfds_t, int))                                                         \
	X(__poll_chk, int, (struct pollfd *, nfds_t, int, size_t))                                           \
	X(ppoll, int, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *))                  \
	X(__ppoll_chk, int, (struct pollfd *, nfds_t, const struct timespec *, const sigset_t *, size_t))    \
	X(select, int, (int, fd_set *, fd_set *, fd_set *, struct timeval *))                                \
	X(pselect, int, (int, fd_set *, fd_set *, fd_set *, const struct timespec *, const sigset_t *))      \
	X(epoll_wait, int, (int, struct epoll_event *, int, int))                                            \
	X(epoll_pwait, int, (int, struct epoll_event *, int, int, const sigset_t *))                         \
	X(epoll_pwait2, int, (int, struct epoll_event *, int, const struct timespec *, const sigset_t *))    \
	X(sigtimedwait, int, (const sigset_t *, siginfo_t *, const struct timespec *))                       \
	X(sigwaitinfo, int, (const sigset_t *, siginfo_t *))                                                 \
	X(pause, int, (void))                                                                                \
	X(sigsuspend, int, (const sigset_t *))                                                               \
	X(msgrcv, ssize_t, (int, void *, size_t, long, int))                                                 \
	X(msgsnd, int, (int, const void *, size_t, int))                                                     \
	X(semop, int, (int, struct sembuf *, size_t))                                                        \
	X(semtimedop, int, (int, struct sembuf *, size_t, const struct timespec *))                          \
	X(sem_wait, int, (sem_t *))                                                                          \
	X(sem_timedwait, int, (sem_t *, const struct timespec *))                                            \
	X(sem_clockwait, int, (sem_t *, clockid_t, const struct timespec *))

#define DECLARE_REAL(name, ret, args) static ret(*real_##name) args;
WAIT_FUNCS(DECLARE_REAL)
#undef DECLARE_REAL

void rt__wait_init(void)
{
	rt__socket_init();
#define RESOLVE(name, ret, args)                                                                             \
	if (!real_##name)                                                                                    \
		real_##name = (ret(*) args)rt__real(#name);
	WAIT_FUNCS(RESOLVE)
#undef RESOLVE
}

/* Before init (a library constructor sleeping before ours ran). */
#define REAL(name) (FOLD_UNLIKELY(!real_##name) ? (rt__wait_init(), real_##name) : real_##name)
#define NO_REAL(name)                                                                                        \
	do {                                                                                                 \
		if (!REAL(name)) {                                                                           \
			errno = ENOSYS;                                                                      \
			return -1;                                                                           \
		}                                                                                            \
	} while (0)

#include "rt_wait.h"

/* ---------------------------------------------------------------- sleeping */

/* After a first interruption by our signal alone, a sleep resumes towards
 * its absolute deadline on `clk` (relative sleeps: the deadline is taken
 * before the first attempt, so the sleep never ends early), never from the
 * kernel's `rem`, which loses the time spent in the handler and rounds: at
 * 1 ms sampling a 2 s sleep would last 2.17 s. Returns 0 or an errno value;
 * *left gets the time left when the program's own signal interrupts. */
static int sleep_until(clockid_t clk, uint64_t deadline, struct timespec *left)
{
	struct timespec dl = ns_ts(deadline);
	for (;;) {
		sig_snap s = snap();
		int e = real_clock_nanosleep(clk, TIMER_ABSTIME, &dl, NULL);
		if (e == EINTR && only_ours(s))
			continue;
		if (e == EINTR && left) {
			uint64_t now = rt__ns(clk);
			*left = ns_ts(now >= deadline ? 0 : deadline - now);
		}
		return e;
	}
}

/* nanosleep with restarts; rem (may be NULL) gets what is left when the
 * program's own signal interrupts. Linux's nanosleep runs on
 * CLOCK_MONOTONIC. */
static int sleep_rel(const struct timespec *req, struct timespec *rem)
{
	int saved = errno;
	/* Before the call: req and rem may be the same object (sleep()). */
	uint64_t deadline = mono_ns() + ts_ns(req);
	sig_snap s = snap();
	int rc = real_nanosleep(req, rem);
	if (!(rc == -1 && errno == EINTR && only_ours(s)) || !real_clock_nanosleep)
		return rc;
	int e = sleep_until(CLOCK_MONOTONIC, deadline, rem);
	if (!e) {
		errno = saved;
		return 0;
	}
	errno = e;
	return -1;
}

FOLD_EXPORT int nanosleep(const struct timespec *req, struct timespec *rem)
{
	NO_REAL(nanosleep);
	return sleep_rel(req, rem);
}

FOLD_EXPORT int clock_nanosleep(clockid_t clk, int flags, const struct timespec *req, struct timespec *rem)
{
	if (!REAL(clock_nanosleep))
		return ENOSYS;
	int abs = flags & TIMER_ABSTIME;
	/* A relative CLOCK_REALTIME sleep is not moved by clock changes: its
	 * deadline is kept on CLOCK_MONOTONIC. */
	clockid_t base = clk == CLOCK_REALTIME && !abs ? CLOCK_MONOTONIC : clk;
	uint64_t deadline = abs ? 0 : rt__ns(base) + ts_ns(req); /* req may alias rem */
	sig_snap s = snap();
	int rc = real_clock_nanosleep(clk, flags, req, rem);
	if (!(rc == EINTR && only_ours(s)))
		return rc;
	if (abs) {
		do {
			s = snap();
			rc = real_clock_nanosleep(clk, flags, req, NULL);
		} while (rc == EINTR && only_ours(s));
		return rc;
	}
	return sleep_until(base, deadline, rem);
}

/* glibc's sleep and usleep call its internal nanosleep, which we cannot
 * interpose: both are reimplemented here with glibc's semantics. */
FOLD_EXPORT unsigned int sleep(unsigned int seconds)
{
	if (!REAL(nanosleep))
		return seconds;
	int saved = errno;
	struct timespec ts = {(time_t)seconds, 0};
	if (sleep_rel(&ts, &ts) < 0)
		return (unsigned int)ts.tv_sec; /* whole seconds not slept, as glibc */
	errno = saved;
	return 0;
}

FOLD_EXPORT int usleep(useconds_t usec)
{
	NO_REAL(nanosleep);
	struct timespec ts = {(time_t)(usec / 1000000u), (long)(usec % 1000000u) * 1000};
	return sleep_rel(&ts, NULL);
}

FOLD_EXPORT int thrd_sleep(const struct timespec *req, struct timespec *rem)
{
	int rc = clock_nanosleep(CLOCK_REALTIME, 0, req, rem);
	return rc == 0 ? 0 : rc == EINTR ? -1 : -2; /* glibc's mapping */
}

FOLD_EXPORT int pause(void)
{
	NO_REAL(pause);
	int saved = errno, rc;
	sig_snap s;
	do {
		errno = saved;
		s = snap();
		rc = real_pause();
	} while (rc == -1 && errno == EINTR && only_ours(s));
	return rc;
}

FOLD_EXPORT int sigsuspend(const sigset_t *mask)
{
	NO_REAL(sigsuspend);
	int saved = errno, rc;
	sigset_t k;
	sig_snap s;
	do {
		errno = saved;
		s = snap();
		rc = real_sigsuspend(rt__strip_mask(mask, &k));
	} while (rc == -1 && errno == EINTR && only_ours(s));
	return rc;
}

/* ---------------------------------------------------------------- poll, select, epoll */

/* Restart loop for calls with a millisecond timeout (< 0: none). */
#define RESTART_MS(call_with_t, timeout)                                                                     \
	do {                                                                                                 \
		int saved = errno, t = (timeout), rc;                                                        \
		uint64_t deadline = t > 0 ? mono_ns() + (uint64_t)t * 1000000ull : 0;                        \
		for (;;) {                                                                                   \
			sig_snap s = snap();                                                                 \
			rc = (call_with_t);                                                                  \
			if (!(rc == -1 && errno == EINTR && only_ours(s)))                                   \
				return rc;                                                                   \
			errno = saved;                                                                       \
			if (t > 0)                                                                           \
				t = left_ms(deadline);                                                       \
		}                                                                                            \
	} while (0)

/* Restart loop for calls with a timespec timeout (NULL: none). `tsp` is
 * the pointer passed to the real call, updated to the time left. */
#define RESTART_TS(call_with_tsp, timeout)                                                                   \
	do {                                                                                                 \
		int saved = errno, rc;                                                                       \
		const struct timespec *tsp = (timeout);                                                      \
		struct timespec left_ts;                                                                     \
		uint64_t deadline = deadline_of(tsp);                                                        \
		for (;;) {                                                                                   \
			sig_snap s = snap();                                                                 \
			rc = (call_with_tsp);                                                                \
			if (!(rc == -1 && errno == EINTR && only_ours(s)))                                   \
				return rc;                                                                   \
			errno = saved;                                                                       \
			if (deadline) {                                                                      \
				left_ts = ns_ts(left_ns(deadline));                                          \
				tsp = &left_ts;                                                              \
			}                                                                                    \
		}                                                                                            \
	} while (0)

FOLD_EXPORT int poll(struct pollfd *fds, nfds_t n, int timeout)
{
	NO_REAL(poll);
	RESTART_MS(real_poll(fds, n, t), timeout);
}

FOLD_EXPORT int __poll_chk(struct pollfd *fds, nfds_t n, int timeout, size_t fdslen)
{
	NO_REAL(__poll_chk);
	RESTART_MS(real___poll_chk(fds, n, t, fdslen), timeout);
}

FOLD_EXPORT int ppoll(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask)
{
	NO_REAL(ppoll);
	sigset_t k;
	const sigset_t *km = rt__strip_mask(mask, &k);
	RESTART_TS(real_ppoll(fds, n, tsp, km), tmo);
}

FOLD_EXPORT int __ppoll_chk(struct pollfd *fds, nfds_t n, const struct timespec *tmo, const sigset_t *mask,
                            size_t fdslen)
{
	NO_REAL(__ppoll_chk);
	sigset_t k;
	const sigset_t *km = rt__strip_mask(mask, &k);
	RESTART_TS(real___ppoll_chk(fds, n, tsp, km, fdslen), tmo);
}

FOLD_EXPORT int select(int n, fd_set *r, fd_set *w, fd_set *e, struct timeval *tv)
{
	NO_REAL(select);
	/* On EINTR Linux leaves the sets as they were (core_sys_select copies
	 * them back only on success), so they can be passed again; *tv is the
	 * time left, as Linux's select reports it. */
	int saved = errno, rc;
	uint64_t deadline = 0;
	if (tv && tv->tv_sec >= 0 && tv->tv_usec >= 0)
		deadline = mono_ns() + (uint64_t)tv->tv_sec * 1000000000ull + (uint64_t)tv->tv_usec * 1000ull;
	for (;;) {
		sig_snap s = snap();
		rc = real_select(n, r, w, e, tv);
		if (!(rc == -1 && errno == EINTR && only_ours(s)))
			return rc;
		errno = saved;
		if (deadline) {
			uint64_t ns = left_ns(deadline);
			tv->tv_sec = (time_t)(ns / 1000000000ull);
			tv->tv_usec = (suseconds_t)((ns % 1000000000ull + 999) / 1000);
		}
	}
}

FOLD_EXPORT int pselect(int n, fd_set *r, fd_set *w, fd_set *e, const struct timespec *ts,
                        const sigset_t *mask)
{
	NO_REAL(pselect);
	sigset_t k;
	const sigset_t *km = rt__strip_mask(mask, &k);
	RESTART_TS(real_pselect(n, r, w, e, tsp, km), ts);
}

FOLD_EXPORT int epoll_wait(int epfd, struct epoll_event *ev, int max, int timeout)
{
	NO_REAL(epoll_wait);
	RESTART_MS(real_epoll_wait(epfd, ev, max, t), timeout);
}

FOLD_EXPORT int epoll_pwait(int epfd, struct epoll_event *ev, int max, int timeout, const sigset_t *mask)
{
	NO_REAL(epoll_pwait);
	sigset_t k;
	const sigset_t *km = rt__strip_mask(mask, &k);
	RESTART_MS(real_epoll_pwait(epfd, ev, max, t, km), timeout);
}

FOLD_EXPORT int epoll_pwait2(int epfd, struct epoll_event *ev, int max, const struct timespec *tmo,
                             const sigset_t *mask)
{
	NO_REAL(epoll_pwait2);
	sigset_t k;
	const sigset_t *km = rt__strip_mask(mask, &k);
	RESTART_TS(real_epoll_pwait2(epfd, ev, max, tsp, km), tmo);
}

/* ---------------------------------------------------------------- signals, System V IPC */

FOLD_EXPORT int sigtimedwait(const sigset_t *set, siginfo_t *info, const struct timespec *ts)
{
	NO_REAL(sigtimedwait);
	sigset_t k;
	const sigset_t *ks = rt__strip_mask(set, &k);
	RESTART_TS(real_sigtimedwait(ks, info, tsp), ts);
}

FOLD_EXPORT int sigwaitinfo(const sigset_t *set, siginfo_t *info)
{
	NO_REAL(sigwaitinfo);
	sigset_t k;
	const sigset_t *ks = rt__strip_mask(set, &k);
	RESTART_MS(real_sigwaitinfo(ks, info), -1);
}

FOLD_EXPORT ssize_t msgrcv(int id, void *msg, size_t size, long type, int flags)
{
	NO_REAL(msgrcv);
	int saved = errno;
	ssize_t rc;
	sig_snap s;
	do {
		errno = saved;
		s = snap();
		rc = real_msgrcv(id, msg, size, type, flags);
	} while (rc == -1 && errno == EINTR && only_ours(s));
	return rc;
}

FOLD_EXPORT int msgsnd(int id, const void *msg, size_t size, int flags)
{
	NO_REAL(msgsnd);
	RESTART_MS(real_msgsnd(id, msg, size, flags), -1);
}

FOLD_EXPORT int semop(int id, struct sembuf *ops, size_t n)
{
	NO_REAL(semop);
	RESTART_MS(real_semop(id, ops, n), -1);
}

FOLD_EXPORT int semtimedop(int id, struct sembuf *ops, size_t n, const struct timespec *ts)
{
	NO_REAL(semtimedop);
	RESTART_TS(real_semtimedop(id, ops, n, tsp), ts);
}

/* ---------------------------------------------------------------- POSIX semaphores */

/* glibc's semaphore waits fail with EINTR on any handler, SA_RESTART or
 * not; their timeouts are absolute already, so a restart is the same call. */
#define RESTART_SAME(call)                                                                                   \
	do {                                                                                                 \
		int saved = errno, rc;                                                                       \
		sig_snap s;                                                                                  \
		do {                                                                                         \
			errno = saved;                                                                       \
			s = snap();                                                                          \
			rc = (call);                                                                         \
		} while (rc == -1 && errno == EINTR && only_ours(s));                                        \
		return rc;                                                                                   \
	} while (0)

FOLD_EXPORT int sem_wait(sem_t *sem)
{
	NO_REAL(sem_wait);
	RESTART_SAME(real_sem_wait(sem));
}

FOLD_EXPORT int sem_timedwait(sem_t *sem, const struct timespec *abstime)
{
	NO_REAL(sem_timedwait);
	RESTART_SAME(real_sem_timedwait(sem, abstime));
}

FOLD_EXPORT int sem_clockwait(sem_t *sem, clockid_t clk, const struct timespec *abstime)
{
	NO_REAL(sem_clockwait);
	RESTART_SAME(real_sem_clockwait(sem, clk, abstime));
}
