/* rt_socket.c: socket calls and short transfers that fold's sampling
 * signal must not change.
 *
 * Linux never restarts a socket call that waits under a timeout the program
 * set (SO_RCVTIMEO for accept, recv*, read; SO_SNDTIMEO for connect, send*,
 * write): interrupted by any handler, SA_RESTART or not, it fails with
 * EINTR at once (signal(7); the same holds for read and write on such a
 * socket). And a blocking write to a socket, a pipe or a terminal that a
 * handler interrupts after part of the data went returns that part. Without
 * fold no signal comes, so the program sees neither.
 *
 * Invariants (the rules of rt_wait.c, for these calls):
 *  - A call that failed with EINTR while only fold's sampling handler ran
 *    (rt_wait.h, only_ours) is resumed towards the deadline the socket's
 *    timeout set at the call's start: the thread waits for readiness (poll,
 *    itself resumed), then makes one attempt that does not block
 *    (MSG_DONTWAIT), until it succeeds or the deadline passes, where it
 *    fails with EAGAIN as the kernel's timeout does (connect: EINPROGRESS,
 *    or the connection's own error). Nothing of the socket is changed, so
 *    other threads using it see what they would without fold.
 *  - The waiting thread is still sampled (a wait is where time goes): its
 *    wait is interrupted and resumed, never blocked from our signal.
 *  - A call's start is read (CLOCK_MONOTONIC) only where a timeout can
 *    apply: every accept/connect/recv/send family call, and read/write on a
 *    descriptor that setsockopt gave a timeout (timed[]). A timeout set
 *    behind fold's back (before it started, a raw system call) counts from
 *    the interruption: the wait can then last up to one timeout longer.
 *  - A write/send to a socket, pipe or terminal that returns short while
 *    only our handler ran is continued until the rest is written or the
 *    descriptor would block, and the total is returned. writev and sendmsg
 *    return what the kernel gave (their short counts are documented).
 *  - errno is what the program would have seen.
 */
#include <errno.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "rt_wait.h"

#ifndef SO_RCVTIMEO_NEW
#define SO_RCVTIMEO_NEW 66
#define SO_SNDTIMEO_NEW 67
#endif
#ifndef SO_RCVTIMEO_OLD
#define SO_RCVTIMEO_OLD 20
#define SO_SNDTIMEO_OLD 21
#endif

#define SOCKET_FUNCS(X)                                                                                      \
	X(read, ssize_t, (int, void *, size_t))                                                              \
	X(write, ssize_t, (int, const void *, size_t))                                                       \
	X(readv, ssize_t, (int, const struct iovec *, int))                                                  \
	X(writev, ssize_t, (int, const struct iovec *, int))                                                 \
	X(recv, ssize_t, (int, void *, size_t, int))                                                         \
	X(recvfrom, ssize_t, (int, void *, size_t, int, struct sockaddr *, socklen_t *))                     \
	X(recvmsg, ssize_t, (int, struct msghdr *, int))                                                     \
	X(send, ssize_t, (int, const void *, size_t, int))                                                   \
	X(sendto, ssize_t, (int, const void *, size_t, int, const struct sockaddr *, socklen_t))             \
	X(sendmsg, ssize_t, (int, const struct msghdr *, int))                                               \
	X(accept, int, (int, struct sockaddr *, socklen_t *))                                                \
	X(accept4, int, (int, struct sockaddr *, socklen_t *, int))                                          \
	X(connect, int, (int, const struct sockaddr *, socklen_t))                                           \
	X(setsockopt, int, (int, int, int, const void *, socklen_t))                                         \
	X(poll, int, (struct pollfd *, nfds_t, int))

#define DECLARE_REAL(name, ret, args) static ret(*real_##name) args;
SOCKET_FUNCS(DECLARE_REAL)
#undef DECLARE_REAL

void rt__socket_init(void)
{
#define RESOLVE(name, ret, args)                                                                             \
	if (!real_##name)                                                                                    \
		real_##name = (ret(*) args)rt__real(#name);
	SOCKET_FUNCS(RESOLVE)
#undef RESOLVE
}

#define REAL(name) (FOLD_UNLIKELY(!real_##name) ? (rt__socket_init(), real_##name) : real_##name)
#define NO_REAL(name)                                                                                        \
	do {                                                                                                 \
		if (!REAL(name)) {                                                                           \
			errno = ENOSYS;                                                                      \
			return -1;                                                                           \
		}                                                                                            \
	} while (0)

/* ---------------------------------------------------------------- timeouts */

#define TIMED_FDS 65536
static _Atomic unsigned char timed[TIMED_FDS / 8];

static inline int maybe_timed(int fd)
{
	return fd >= TIMED_FDS || (fd >= 0 && (atomic_load_explicit(&timed[fd >> 3], memory_order_relaxed) >>
	                                       (fd & 7)) & 1);
}

FOLD_EXPORT int setsockopt(int fd, int level, int opt, const void *val, socklen_t len)
{
	NO_REAL(setsockopt);
	int rc = real_setsockopt(fd, level, opt, val, len);
	if (rc == 0 && level == SOL_SOCKET && fd >= 0 && fd < TIMED_FDS &&
	    (opt == SO_RCVTIMEO_OLD || opt == SO_SNDTIMEO_OLD || opt == SO_RCVTIMEO_NEW ||
	     opt == SO_SNDTIMEO_NEW))
		atomic_fetch_or(&timed[fd >> 3], (unsigned char)(1u << (fd & 7)));
	return rc;
}

enum dir { RECEIVE, SEND };

/* The socket's timeout for dir, ns; 0: none (or not a socket). */
static uint64_t timeout_ns(int fd, enum dir d)
{
	struct timeval tv;
	socklen_t len = sizeof tv;
	if (getsockopt(fd, SOL_SOCKET, d == RECEIVE ? SO_RCVTIMEO : SO_SNDTIMEO, &tv, &len) || tv.tv_sec < 0 ||
	    tv.tv_usec < 0)
		return 0;
	return (uint64_t)tv.tv_sec * 1000000000ull + (uint64_t)tv.tv_usec * 1000ull;
}

/* One attempt of the interrupted call; extra: MSG_DONTWAIT for an attempt
 * that must not block, 0 to block as the call does. */
typedef ssize_t (*attempt_fn)(void *ctx, int extra);

/* The call failed with EINTR and only our handler ran: resumed as the
 * comment at the top says. start: the call's start, 0 when unknown. */
static ssize_t resume(int fd, enum dir d, uint64_t start, attempt_fn attempt, void *ctx, int saved_errno)
{
	uint64_t tmo = timeout_ns(fd, d);
	ssize_t rc;
	if (!tmo) { /* no timeout: as SA_RESTART would have it, the same call again */
		sig_snap s;
		do {
			errno = saved_errno;
			s = snap();
			rc = attempt(ctx, 0);
		} while (rc == -1 && errno == EINTR && only_ours(s));
		return rc;
	}
	uint64_t deadline = (start ? start : mono_ns()) + tmo;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = d == RECEIVE ? POLLIN : POLLOUT};
		sig_snap s = snap();
		int n = real_poll(&p, 1, left_ms(deadline));
		if (n < 0) {
			if (errno == EINTR && only_ours(s))
				continue;
			if (errno != EINTR)
				errno = EINTR; /* what the call itself said */
			return -1;
		}
		errno = saved_errno;
		rc = attempt(ctx, MSG_DONTWAIT);
		if (rc >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
			return rc;
		if (!left_ns(deadline)) {
			errno = EAGAIN; /* the socket's timeout */
			return -1;
		}
	}
}

#define RESUMABLE(rc, s) ((rc) == -1 && errno == EINTR && only_ours(s))

/* ---------------------------------------------------------------- receive */

struct rx {
	int fd, flags;
	void *buf;
	size_t len;
	struct sockaddr *addr;
	socklen_t *alen;
	struct msghdr *msg;
	const struct iovec *iov;
	int iovcnt;
};

static ssize_t rx_recvfrom(void *c, int extra)
{
	struct rx *x = c;
	return real_recvfrom(x->fd, x->buf, x->len, x->flags | extra, x->addr, x->alen);
}

static ssize_t rx_recvmsg(void *c, int extra)
{
	struct rx *x = c;
	return real_recvmsg(x->fd, x->msg, x->flags | extra);
}

static ssize_t rx_read(void *c, int extra)
{
	struct rx *x = c;
	return extra ? real_recvfrom(x->fd, x->buf, x->len, extra, NULL, NULL) : real_read(x->fd, x->buf, x->len);
}

static ssize_t rx_readv(void *c, int extra)
{
	struct rx *x = c;
	if (!extra)
		return real_readv(x->fd, x->iov, x->iovcnt);
	struct msghdr m = {.msg_iov = (struct iovec *)(uintptr_t)x->iov, .msg_iovlen = (size_t)x->iovcnt};
	return real_recvmsg(x->fd, &m, extra);
}

static ssize_t rx_accept(void *c, int extra)
{
	struct rx *x = c;
	if (extra) { /* not blocking: only when a connection waits */
		struct pollfd p = {.fd = x->fd, .events = POLLIN};
		if (real_poll(&p, 1, 0) == 0) {
			errno = EAGAIN;
			return -1;
		}
	}
	return real_accept4(x->fd, x->addr, x->alen, x->flags);
}

FOLD_EXPORT ssize_t recvfrom(int fd, void *buf, size_t len, int flags, struct sockaddr *addr, socklen_t *alen)
{
	NO_REAL(recvfrom);
	int saved = errno;
	uint64_t start = mono_ns();
	sig_snap s = snap();
	ssize_t rc = real_recvfrom(fd, buf, len, flags, addr, alen);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct rx x = {.fd = fd, .flags = flags, .buf = buf, .len = len, .addr = addr, .alen = alen};
	return resume(fd, RECEIVE, start, rx_recvfrom, &x, saved);
}

FOLD_EXPORT ssize_t recv(int fd, void *buf, size_t len, int flags)
{
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

FOLD_EXPORT ssize_t recvmsg(int fd, struct msghdr *msg, int flags)
{
	NO_REAL(recvmsg);
	int saved = errno;
	uint64_t start = mono_ns();
	sig_snap s = snap();
	ssize_t rc = real_recvmsg(fd, msg, flags);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct rx x = {.fd = fd, .flags = flags, .msg = msg};
	return resume(fd, RECEIVE, start, rx_recvmsg, &x, saved);
}

FOLD_EXPORT int accept4(int fd, struct sockaddr *addr, socklen_t *alen, int flags)
{
	NO_REAL(accept4);
	int saved = errno;
	uint64_t start = mono_ns();
	sig_snap s = snap();
	int rc = real_accept4(fd, addr, alen, flags);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct rx x = {.fd = fd, .flags = flags, .addr = addr, .alen = alen};
	return (int)resume(fd, RECEIVE, start, rx_accept, &x, saved);
}

FOLD_EXPORT int accept(int fd, struct sockaddr *addr, socklen_t *alen)
{
	return accept4(fd, addr, alen, 0);
}

FOLD_EXPORT ssize_t read(int fd, void *buf, size_t len)
{
	NO_REAL(read);
	int saved = errno;
	uint64_t start = maybe_timed(fd) ? mono_ns() : 0;
	sig_snap s = snap();
	ssize_t rc = real_read(fd, buf, len);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct rx x = {.fd = fd, .buf = buf, .len = len};
	return resume(fd, RECEIVE, start, rx_read, &x, saved);
}

FOLD_EXPORT ssize_t readv(int fd, const struct iovec *iov, int iovcnt)
{
	NO_REAL(readv);
	int saved = errno;
	uint64_t start = maybe_timed(fd) ? mono_ns() : 0;
	sig_snap s = snap();
	ssize_t rc = real_readv(fd, iov, iovcnt);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct rx x = {.fd = fd, .iov = iov, .iovcnt = iovcnt};
	return resume(fd, RECEIVE, start, rx_readv, &x, saved);
}

/* The _FORTIFY_SOURCE entry points: glibc's own call its internal read
 * and recvfrom, past the wrappers above. */
ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen);
ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags);
ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags, struct sockaddr *addr,
                       socklen_t *alen);
typedef ssize_t (*read_chk_fn)(int, void *, size_t, size_t);

FOLD_EXPORT ssize_t __read_chk(int fd, void *buf, size_t len, size_t buflen)
{
	if (len > buflen) { /* glibc's reports the overflow */
		read_chk_fn real = (read_chk_fn)rt__real("__read_chk");
		if (real)
			return real(fd, buf, len, buflen);
	}
	return read(fd, buf, len);
}

FOLD_EXPORT ssize_t __recv_chk(int fd, void *buf, size_t len, size_t buflen, int flags)
{
	if (len > buflen) {
		ssize_t (*real)(int, void *, size_t, size_t, int) =
		    (ssize_t(*)(int, void *, size_t, size_t, int))rt__real("__recv_chk");
		if (real)
			return real(fd, buf, len, buflen, flags);
	}
	return recvfrom(fd, buf, len, flags, NULL, NULL);
}

FOLD_EXPORT ssize_t __recvfrom_chk(int fd, void *buf, size_t len, size_t buflen, int flags, struct sockaddr *addr,
                                   socklen_t *alen)
{
	if (len > buflen) {
		ssize_t (*real)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *) =
		    (ssize_t(*)(int, void *, size_t, size_t, int, struct sockaddr *, socklen_t *))rt__real(
		        "__recvfrom_chk");
		if (real)
			return real(fd, buf, len, buflen, flags, addr, alen);
	}
	return recvfrom(fd, buf, len, flags, addr, alen);
}

/* ---------------------------------------------------------------- send */

struct tx {
	int fd, flags;
	const void *buf;
	size_t len;
	const struct sockaddr *addr;
	socklen_t alen;
	const struct msghdr *msg;
	const struct iovec *iov;
	int iovcnt;
};

static ssize_t tx_sendto(void *c, int extra)
{
	struct tx *x = c;
	return real_sendto(x->fd, x->buf, x->len, x->flags | extra, x->addr, x->alen);
}

static ssize_t tx_sendmsg(void *c, int extra)
{
	struct tx *x = c;
	return real_sendmsg(x->fd, x->msg, x->flags | extra);
}

static ssize_t tx_write(void *c, int extra)
{
	struct tx *x = c;
	return extra ? real_sendto(x->fd, x->buf, x->len, extra, NULL, 0) : real_write(x->fd, x->buf, x->len);
}

static ssize_t tx_writev(void *c, int extra)
{
	struct tx *x = c;
	if (!extra)
		return real_writev(x->fd, x->iov, x->iovcnt);
	struct msghdr m = {.msg_iov = (struct iovec *)(uintptr_t)x->iov, .msg_iovlen = (size_t)x->iovcnt};
	return real_sendmsg(x->fd, &m, extra);
}

/* A blocking transfer to a socket, pipe or terminal cut short by our
 * handler alone: the rest follows, until the descriptor would block or
 * fails (then the total so far is what the program gets, as it would
 * have got it from one call). */
static int continues(int fd)
{
	struct stat st;
	return fstat(fd, &st) == 0 && (S_ISSOCK(st.st_mode) || S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode));
}

static ssize_t send_rest(struct tx *x, ssize_t done, attempt_fn attempt)
{
	int saved = errno;
	const char *base = x->buf;
	size_t len = x->len;
	while ((size_t)done < len) {
		x->buf = base + done;
		x->len = len - (size_t)done;
		sig_snap s = snap();
		ssize_t rc = attempt(x, 0);
		if (rc > 0 && (size_t)rc < x->len && !only_ours(s)) {
			done += rc; /* short for a reason of its own */
			break;
		}
		if (rc <= 0) {
			if (RESUMABLE(rc, s))
				continue;
			break;
		}
		done += rc;
	}
	x->buf = base;
	x->len = len;
	errno = saved;
	return done;
}

FOLD_EXPORT ssize_t sendto(int fd, const void *buf, size_t len, int flags, const struct sockaddr *addr,
                           socklen_t alen)
{
	NO_REAL(sendto);
	int saved = errno;
	uint64_t start = mono_ns();
	sig_snap s = snap();
	ssize_t rc = real_sendto(fd, buf, len, flags, addr, alen);
	struct tx x = {.fd = fd, .flags = flags, .buf = buf, .len = len, .addr = addr, .alen = alen};
	if (FOLD_UNLIKELY(rc > 0 && (size_t)rc < len) && only_ours(s) && !(flags & MSG_DONTWAIT) && continues(fd))
		return send_rest(&x, rc, tx_sendto);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	return resume(fd, SEND, start, tx_sendto, &x, saved);
}

FOLD_EXPORT ssize_t send(int fd, const void *buf, size_t len, int flags)
{
	return sendto(fd, buf, len, flags, NULL, 0);
}

FOLD_EXPORT ssize_t sendmsg(int fd, const struct msghdr *msg, int flags)
{
	NO_REAL(sendmsg);
	int saved = errno;
	uint64_t start = mono_ns();
	sig_snap s = snap();
	ssize_t rc = real_sendmsg(fd, msg, flags);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct tx x = {.fd = fd, .flags = flags, .msg = msg};
	return resume(fd, SEND, start, tx_sendmsg, &x, saved);
}

FOLD_EXPORT ssize_t write(int fd, const void *buf, size_t len)
{
	NO_REAL(write);
	int saved = errno;
	uint64_t start = maybe_timed(fd) ? mono_ns() : 0;
	sig_snap s = snap();
	ssize_t rc = real_write(fd, buf, len);
	if (FOLD_LIKELY(rc == (ssize_t)len))
		return rc;
	struct tx x = {.fd = fd, .buf = buf, .len = len};
	if (rc > 0 && only_ours(s) && continues(fd))
		return send_rest(&x, rc, tx_write);
	if (!RESUMABLE(rc, s))
		return rc;
	return resume(fd, SEND, start, tx_write, &x, saved);
}

FOLD_EXPORT ssize_t writev(int fd, const struct iovec *iov, int iovcnt)
{
	NO_REAL(writev);
	int saved = errno;
	uint64_t start = maybe_timed(fd) ? mono_ns() : 0;
	sig_snap s = snap();
	ssize_t rc = real_writev(fd, iov, iovcnt);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	struct tx x = {.fd = fd, .iov = iov, .iovcnt = iovcnt};
	return resume(fd, SEND, start, tx_writev, &x, saved);
}

/* ---------------------------------------------------------------- connect */

/* An interrupted connect goes on in the background (connect(2)): the wait
 * is for the socket to become writable, until the SO_SNDTIMEO deadline;
 * the connection's own result is then the call's. */
FOLD_EXPORT int connect(int fd, const struct sockaddr *addr, socklen_t alen)
{
	NO_REAL(connect);
	int saved = errno;
	uint64_t start = mono_ns();
	sig_snap s = snap();
	int rc = real_connect(fd, addr, alen);
	if (FOLD_LIKELY(!RESUMABLE(rc, s)))
		return rc;
	uint64_t tmo = timeout_ns(fd, SEND);
	uint64_t deadline = tmo ? start + tmo : 0;
	for (;;) {
		struct pollfd p = {.fd = fd, .events = POLLOUT};
		s = snap();
		int n = real_poll(&p, 1, deadline ? left_ms(deadline) : -1);
		if (n < 0) {
			if (errno == EINTR && only_ours(s))
				continue;
			errno = EINTR;
			return -1;
		}
		if (n == 0) {
			errno = EINPROGRESS; /* the socket's timeout: the connection goes on */
			return -1;
		}
		int err = 0;
		socklen_t len = sizeof err;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) == 0 && err) {
			errno = err;
			return -1;
		}
		errno = saved;
		return 0;
	}
}
