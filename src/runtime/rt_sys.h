/* rt_sys.h: fold's own system calls, made directly.
 *
 * Owns the rule that no call of fold's is a cancellation point or goes
 * through a wrapper: glibc's read, write, writev, open, close and
 * nanosleep act on a pending pthread_cancel of the calling thread, which
 * would unwind the program's thread out of fold with its guard up, a lock
 * held or the writer's flag raised (nothing would be written again), and
 * some of them are fold's own wrappers (rt_socket.c). These return the
 * result or -errno and leave errno alone; async-signal-safe.
 */
#ifndef FOLD_RT_SYS_H
#define FOLD_RT_SYS_H

#include <stddef.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>

static inline long rt__sys6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall"
	                 : "=a"(ret)
	                 : "0"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	                 : "rcx", "r11", "memory");
	return ret;
#else
	extern long syscall(long, ...);
	extern int *__errno_location(void);
	int saved = *__errno_location();
	long ret = syscall(nr, a, b, c, d, e, f);
	if (ret == -1) {
		ret = -*__errno_location();
		*__errno_location() = saved;
	}
	return ret;
#endif
}

static inline ssize_t rt__sys_read(int fd, void *buf, size_t n)
{
	return rt__sys6(SYS_read, fd, (long)buf, (long)n, 0, 0, 0);
}
static inline ssize_t rt__sys_write(int fd, const void *buf, size_t n)
{
	return rt__sys6(SYS_write, fd, (long)buf, (long)n, 0, 0, 0);
}
static inline ssize_t rt__sys_writev(int fd, const struct iovec *iov, int n)
{
	return rt__sys6(SYS_writev, fd, (long)iov, n, 0, 0, 0);
}
static inline ssize_t rt__sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	return rt__sys6(SYS_pwrite64, fd, (long)buf, (long)n, (long)off, 0, 0);
}
static inline int rt__sys_open(const char *path, int flags, int mode)
{
	return (int)rt__sys6(SYS_openat, -100 /* AT_FDCWD */, (long)path, flags, mode, 0, 0);
}
static inline int rt__sys_close(int fd)
{
	return (int)rt__sys6(SYS_close, fd, 0, 0, 0, 0, 0);
}
static inline int rt__sys_nanosleep(long ns)
{
	struct timespec ts = {(time_t)(ns / 1000000000L), ns % 1000000000L};
	return (int)rt__sys6(SYS_nanosleep, (long)&ts, 0, 0, 0, 0, 0);
}

#endif
