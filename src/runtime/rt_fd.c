/* rt_fd.c: fold's own file descriptors, out of the program's way.
 *
 * Owns where fold's descriptors live and the wrappers that keep the program
 * from closing or replacing them. fold holds a few descriptors for the whole
 * run: the trace file, one perf_event group leader per measured thread (the
 * group's other members are kept alive by their mmap'ed pages, so their
 * descriptors are closed: rt_counters.c) and, for perf sampling, one event
 * per thread. Each is moved, close-on-exec, into a range at the top of the
 * descriptor table, just under the soft RLIMIT_NOFILE (at most 65536), like
 * libmonitor does, so the program's descriptors keep the low numbers they
 * would have without fold (select()'s FD_SETSIZE) and a program that closes
 * every descriptor from 3 up does not hit ours by accident.
 *
 * "Exactly as without fold": without fold, a descriptor of ours is simply
 * not open. So for the program:
 *  - close(ours), dup(ours), dup2/dup3(ours, x), fcntl(ours, ...) fail with
 *    EBADF and change nothing;
 *  - close_range/closefrom over a span containing ours close everything
 *    else in it and return what they would;
 *  - dup2/dup3(x, ours) and an F_DUPFD that would have returned our number
 *    succeed with that number: ours is first moved elsewhere in the range
 *    (every thread quiesced, so no handler uses the old number meanwhile).
 * Not hidden: /proc/self/fd lists them; raw system calls (syscall(2),
 * glibc-internal closes such as posix_spawn's file actions in the child
 * before its exec) bypass the wrappers; and the range takes a few numbers
 * near the limit, so a program that opens nearly RLIMIT_NOFILE descriptors
 * gets EMFILE a few descriptors sooner. All of fold's descriptors (the
 * trace file, libunwind's pipe, counters, perf sampling) are taken from
 * one budget, an eighth of the soft limit (at least one: the trace file),
 * before each is opened (rt__fd_take); what does not fit goes without
 * (counted and said by its owner).
 *
 * libunwind opens a pipe to validate memory addresses (pipe2 on its static
 * array, from inside our calls: rt__tls_unwinding is raised), reads and
 * writes it from the sample handler, and re-creates it (close + pipe2)
 * whenever a read fails. Our pipe2 wrapper moves both ends into the range
 * and registers libunwind's array slots themselves, so an eviction updates
 * libunwind's copy of the numbers; its own close of them passes.
 *
 * Invariants: rt__fd_is_ours is async-signal-safe (one bit test). The
 * registry is guarded by a spinlock taken only with the thread's guard up
 * (or before sampling starts, or with recording stopped), so a sample
 * handler that runs libunwind, which may re-create its pipe, never finds
 * the lock held by the thread it interrupted.
 */
#include "fold_rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_UNSHARE
#define CLOSE_RANGE_UNSHARE (1U << 1)
#endif
#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

#define FD_MAX_TRACKED 65536
#define MAX_OWN 4160 /* the budget's most, 4096, and some */

static _Atomic uint64_t own_bits[FD_MAX_TRACKED / 64];
static struct own {
	int fd;
	int *slot; /* where fold keeps the number (NULL: nowhere to update) */
	dev_t dev; /* what it is: a raw close of the program's may have freed the */
	ino_t ino; /* number, and the program's next file taken it */
} own[MAX_OWN];
static unsigned nown;
static _Atomic int reg_lock;
static int range_low = -1, range_top;
static unsigned budget;

typedef int (*close_fn)(int);
typedef int (*close_range_fn)(unsigned, unsigned, int);
typedef int (*dup2_fn)(int, int);
typedef int (*dup3_fn)(int, int, int);
typedef int (*dup_fn)(int);
typedef int (*fcntl_fn)(int, int, ...);
typedef void (*closefrom_fn)(int);
typedef int (*pipe2_fn)(int[2], int);

static close_fn real_close;
static close_range_fn real_close_range;
static dup2_fn real_dup2;
static dup3_fn real_dup3;
static dup_fn real_dup;
static fcntl_fn real_fcntl;
static pipe2_fn real_pipe2;

__attribute__((constructor(101))) static void resolve(void)
{
	if (real_close)
		return;
	real_close_range = (close_range_fn)dlsym(RTLD_NEXT, "close_range");
	real_dup2 = (dup2_fn)dlsym(RTLD_NEXT, "dup2");
	real_dup3 = (dup3_fn)dlsym(RTLD_NEXT, "dup3");
	real_dup = (dup_fn)dlsym(RTLD_NEXT, "dup");
	real_fcntl = (fcntl_fn)dlsym(RTLD_NEXT, "fcntl");
	real_pipe2 = (pipe2_fn)dlsym(RTLD_NEXT, "pipe2");
	real_close = (close_fn)dlsym(RTLD_NEXT, "close");
}

/* Raw system calls as the fallback, so a wrapper called before our
 * constructor (another library's constructor) still works. */
static int sys_close(int fd)
{
	return real_close ? real_close(fd) : (int)syscall(SYS_close, fd);
}
static int sys_fcntl(int fd, int cmd, long arg)
{
	return real_fcntl ? real_fcntl(fd, cmd, arg) : (int)syscall(SYS_fcntl, fd, cmd, arg);
}
static int sys_dup3(int a, int b, int flags)
{
	if (!flags && real_dup2)
		return real_dup2(a, b);
	if (flags && real_dup3)
		return real_dup3(a, b, flags);
	if (!flags)
		return (int)syscall(SYS_dup2, a, b);
	return (int)syscall(SYS_dup3, a, b, flags);
}
static int sys_close_range(unsigned a, unsigned b, int flags)
{
	return real_close_range ? real_close_range(a, b, flags) : (int)syscall(SYS_close_range, a, b, flags);
}

int rt__fd_is_ours(int fd)
{
	if (fd < 0 || fd >= FD_MAX_TRACKED)
		return 0;
	return (atomic_load_explicit(&own_bits[fd / 64], memory_order_relaxed) >> (fd % 64)) & 1;
}

static void range_init(void)
{
	if (range_low >= 0)
		return;
	struct rlimit rl;
	rlim_t soft = 1024;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY)
		soft = rl.rlim_cur;
	else if (getrlimit(RLIMIT_NOFILE, &rl) == 0)
		soft = FD_MAX_TRACKED;
	if (soft > FD_MAX_TRACKED)
		soft = FD_MAX_TRACKED;
	/* All of fold's descriptors: one eighth of the table, at least the
	 * trace file's, at most 4096. */
	budget = (unsigned)(soft / 8);
	if (budget < 1)
		budget = 1;
	if (budget > 4096)
		budget = 4096;
	range_top = (int)soft;
	range_low = range_top - (int)budget - 16;
	if (range_low < 3)
		range_low = 3;
}

unsigned rt__fd_budget(void)
{
	range_init();
	return budget;
}

/* The descriptors fold holds, against the budget: taken before one is
 * opened (rt__fd_take), given back when one of ours is closed. */
static _Atomic unsigned held;

int rt__fd_take(unsigned n)
{
	range_init();
	if (atomic_fetch_add(&held, n) + n <= budget)
		return 1;
	atomic_fetch_sub(&held, n);
	return 0;
}

void rt__fd_give(unsigned n)
{
	atomic_fetch_sub(&held, n);
}

static void reg_lock_take(void)
{
	int expect = 0;
	while (!atomic_compare_exchange_weak(&reg_lock, &expect, 1))
		expect = 0;
}

static void reg_lock_drop(void)
{
	atomic_store(&reg_lock, 0);
}

static void reg_add(int fd, int *slot)
{
	if (fd < 0 || fd >= FD_MAX_TRACKED)
		return;
	struct stat st;
	if (fstat(fd, &st))
		memset(&st, 0, sizeof st);
	reg_lock_take();
	if (nown < MAX_OWN) {
		own[nown].fd = fd;
		own[nown].slot = slot;
		own[nown].dev = st.st_dev;
		own[nown].ino = st.st_ino;
		nown++;
	}
	atomic_fetch_or(&own_bits[fd / 64], 1ull << (fd % 64));
	reg_lock_drop();
}

static void reg_del(int fd)
{
	if (fd < 0 || fd >= FD_MAX_TRACKED)
		return;
	reg_lock_take();
	atomic_fetch_and(&own_bits[fd / 64], ~(1ull << (fd % 64)));
	for (unsigned i = 0; i < nown; i++)
		if (own[i].fd == fd) {
			own[i] = own[--nown];
			break;
		}
	reg_lock_drop();
}

/* Whether fd is still the file fold registered at that number: a system
 * call instruction of the program's own (close_range in assembly) can close
 * it behind the wrappers, and the program's next file take the number,
 * which fold must then never close, read or write. Async-signal-safe. */
static int still_ours(int fd)
{
	struct stat st;
	if (fstat(fd, &st))
		return 0;
	int same = 0;
	reg_lock_take();
	for (unsigned i = 0; i < nown; i++)
		if (own[i].fd == fd) {
			same = own[i].dev == st.st_dev && own[i].ino == st.st_ino;
			break;
		}
	reg_lock_drop();
	return same;
}

int rt__fd_move(int fd, int *slot)
{
	if (fd < 0)
		return fd;
	range_init();
	int n = fd >= range_low ? fd : sys_fcntl(fd, F_DUPFD_CLOEXEC, range_low);
	if (n < 0) /* the range is full: keep the low number, protected all the same */
		n = fd;
	else if (n != fd)
		sys_close(fd);
	if (n == fd) /* F_DUPFD_CLOEXEC set it on a moved one */
		sys_fcntl(n, F_SETFD, FD_CLOEXEC);
	reg_add(n, slot);
	if (slot)
		*slot = n;
	return n;
}

void rt__fd_close(int *slot)
{
	int fd = *slot;
	if (fd < 0)
		return;
	*slot = -1;
	int mine = still_ours(fd);
	reg_del(fd);
	if (mine)
		sys_close(fd);
	rt__fd_give(1);
}

void rt__fd_forget(int fd)
{
	/* Not ours any more (closed behind our wrappers): unregistered, not
	 * closed, since the number may be the program's by now. */
	reg_del(fd);
	rt__fd_give(1);
}

void rt__fd_after_fork_forget(int fd)
{
	/* The child's copy of a descriptor of a thread that does not exist here. */
	if (fd >= 0 && rt__fd_is_ours(fd)) {
		int mine = still_ours(fd);
		reg_del(fd);
		if (mine)
			sys_close(fd);
		rt__fd_give(1);
	}
}

/* Moves our descriptor `fd` out of the way of the program, which is about
 * to put one of its own at that number. Returns 0, or -1 if ours had to be
 * given up (then nothing of fold uses that number any more). */
static int evict(int fd)
{
	if (rt__vfork_child() && atomic_load(&rt__proc.phase) == FOLD_RUNNING)
		return 0; /* a vfork child: its table is its own, and it will exec */
	int running = atomic_load(&rt__proc.phase) == FOLD_RUNNING;
	if (running)
		rt__quiesce();
	reg_lock_take();
	int *slot = NULL, found = 0;
	for (unsigned i = 0; i < nown; i++)
		if (own[i].fd == fd) {
			slot = own[i].slot;
			found = 1;
		}
	reg_lock_drop();
	if (found) {
		int n = sys_fcntl(fd, F_DUPFD_CLOEXEC, range_low);
		if (n < 0 || n == fd)
			n = sys_fcntl(fd, F_DUPFD_CLOEXEC, 3);
		reg_del(fd);
		if (n >= 0) {
			reg_add(n, slot);
			if (slot)
				*slot = n;
		} else if (slot) {
			*slot = -1; /* no room anywhere: fold stops using it */
		}
		/* The program's call replaces (and so closes) the old number. */
	}
	if (running)
		rt__unquiesce();
	return 0;
}

/* ---------------------------------------------------------------- wrappers */

FOLD_EXPORT int close(int fd)
{
	if (rt__tls_unwinding && rt__fd_is_ours(fd)) { /* libunwind re-creating its pipe */
		int mine = still_ours(fd);
		reg_del(fd);
		rt__fd_give(1);
		return mine ? sys_close(fd) : 0; /* else the program's now: left alone */
	}
	if (rt__fd_is_ours(fd)) {
		errno = EBADF;
		return -1;
	}
	return sys_close(fd);
}

FOLD_EXPORT int close_range(unsigned first, unsigned last, int flags)
{
	if ((flags & ~(int)(CLOSE_RANGE_UNSHARE | CLOSE_RANGE_CLOEXEC)) || first > last ||
	    (flags & CLOSE_RANGE_CLOEXEC)) /* cloexec: ours have it already */
		return sys_close_range(first, last, flags);
	/* Close the spans between our descriptors. */
	unsigned lo = first;
	unsigned hi = last < FD_MAX_TRACKED ? last : FD_MAX_TRACKED - 1;
	for (unsigned fd = first; fd <= hi && first < FD_MAX_TRACKED; fd++) {
		if (!rt__fd_is_ours((int)fd))
			continue;
		if (fd > lo && sys_close_range(lo, fd - 1, flags))
			return -1;
		lo = fd + 1;
	}
	if (lo <= last && sys_close_range(lo, last, flags))
		return -1;
	return 0;
}

FOLD_EXPORT void closefrom(int lowfd)
{
	if (lowfd < 0)
		lowfd = 0;
	if (close_range((unsigned)lowfd, ~0u, 0) == 0)
		return;
	/* No close_range (old kernel): one by one up to the table size. */
	long max = sysconf(_SC_OPEN_MAX);
	for (long fd = lowfd; fd < max; fd++)
		if (!rt__fd_is_ours((int)fd))
			sys_close((int)fd);
}

static int do_dup3(int oldfd, int newfd, int flags, int is_dup3)
{
	if (rt__fd_is_ours(oldfd)) {
		errno = EBADF;
		return -1;
	}
	if (rt__fd_is_ours(newfd) && oldfd != newfd)
		evict(newfd);
	if (!is_dup3)
		return real_dup2 ? real_dup2(oldfd, newfd) : (int)syscall(SYS_dup2, oldfd, newfd);
	return real_dup3 ? real_dup3(oldfd, newfd, flags) : (int)syscall(SYS_dup3, oldfd, newfd, flags);
}

FOLD_EXPORT int dup2(int oldfd, int newfd)
{
	return do_dup3(oldfd, newfd, 0, 0);
}
FOLD_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	return do_dup3(oldfd, newfd, flags, 1);
}

FOLD_EXPORT int dup(int oldfd)
{
	if (rt__fd_is_ours(oldfd)) {
		errno = EBADF;
		return -1;
	}
	return real_dup ? real_dup(oldfd) : (int)syscall(SYS_dup, oldfd);
}

static int do_fcntl(int fd, int cmd, long arg)
{
	if (rt__fd_is_ours(fd)) {
		errno = EBADF;
		return -1;
	}
	if (cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC)
		return sys_fcntl(fd, cmd, arg);
	int r = sys_fcntl(fd, cmd, arg);
	if (r < 0 || arg < 0 || r <= (int)arg)
		return r;
	/* Without fold the lowest number >= arg that is free *or ours* would
	 * have been returned: if one of ours lies below r, the program gets
	 * that one (ours moves). */
	for (int f = (int)arg; f < r; f++) {
		if (!rt__fd_is_ours(f))
			continue;
		int saved = errno;
		evict(f);
		if (sys_dup3(fd, f, cmd == F_DUPFD_CLOEXEC ? O_CLOEXEC : 0) == f) {
			sys_close(r);
			errno = saved;
			return f;
		}
		errno = saved;
		break;
	}
	return r;
}

FOLD_EXPORT int fcntl(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

int fcntl64(int fd, int cmd, ...);
FOLD_EXPORT int fcntl64(int fd, int cmd, ...)
{
	va_list ap;
	va_start(ap, cmd);
	long arg = va_arg(ap, long);
	va_end(ap);
	return do_fcntl(fd, cmd, arg);
}

FOLD_EXPORT int pipe2(int fds[2], int flags)
{
	/* libunwind's memory-validation pipe counts against fold's budget; it
	 * goes without one (then it checks addresses with mincore, as it does
	 * here anyway). */
	if (rt__tls_unwinding && !rt__fd_take(2)) {
		errno = EMFILE;
		return -1;
	}
	int rc = real_pipe2 ? real_pipe2(fds, flags) : (int)syscall(SYS_pipe2, fds, flags);
	if (rc && rt__tls_unwinding)
		rt__fd_give(2);
	if (rc == 0 && rt__tls_unwinding) {
		/* libunwind's memory-validation pipe, fds is its own array. */
		int saved = errno;
		rt__fd_move(fds[0], &fds[0]);
		rt__fd_move(fds[1], &fds[1]);
		errno = saved;
	}
	return rc;
}
