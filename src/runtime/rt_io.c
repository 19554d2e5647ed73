/* rt_io.c: fold's own writes (the trace file, its diagnostics) as the
 * program never sees them.
 *
 * Invariants:
 *  - A write of fold's never raises SIGPIPE or SIGXFSZ in the program (a
 *    standard error whose reader is gone, a trace past RLIMIT_FSIZE): both
 *    are blocked around it (rt__io_begin, rt__io_end) and one the write
 *    raised, which was not pending before, is taken back before the mask
 *    is restored; the write fails with EPIPE or EFBIG instead, and fold
 *    counts what it lost. Async-signal-safe.
 *  - Diagnostics go to the standard error the process had when fold
 *    started, and only while descriptor 2 is still that file (device and
 *    inode, checked at every line): a program that closed descriptor 2 and
 *    opened its own file there never finds fold's lines in it. No
 *    descriptor is held for this.
 */
#include "fold_rt.h"
#include "rt_sys.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

static dev_t stderr_dev;
static ino_t stderr_ino;
static int stderr_known; /* 1: descriptor 2 was open at start */

void rt__io_stderr_init(void)
{
	struct stat st;
	stderr_known = fstat(STDERR_FILENO, &st) == 0;
	if (stderr_known) {
		stderr_dev = st.st_dev;
		stderr_ino = st.st_ino;
	}
}

static int stderr_is_ours(void)
{
	struct stat st;
	return stderr_known && fstat(STDERR_FILENO, &st) == 0 && st.st_dev == stderr_dev &&
	       st.st_ino == stderr_ino;
}

void rt__io_begin(rt_io_state *s)
{
	sigset_t block;
	sigemptyset(&block);
	sigaddset(&block, SIGPIPE);
	sigaddset(&block, SIGXFSZ);
	rt__real_sigmask(SIG_BLOCK, &block, &s->old);
	if (syscall(SYS_rt_sigpending, &s->pending, sizeof(uint64_t)))
		sigemptyset(&s->pending);
}

void rt__io_end(rt_io_state *s)
{
	sigset_t now;
	if (syscall(SYS_rt_sigpending, &now, sizeof(uint64_t)) == 0) {
		static const int sigs[] = {SIGPIPE, SIGXFSZ};
		for (unsigned i = 0; i < 2; i++) {
			if (sigismember(&now, sigs[i]) != 1 || sigismember(&s->pending, sigs[i]) == 1)
				continue;
			sigset_t one;
			sigemptyset(&one);
			sigaddset(&one, sigs[i]);
			struct timespec zero = {0, 0};
			syscall(SYS_rt_sigtimedwait, &one, NULL, &zero, sizeof(uint64_t));
		}
	}
	rt__real_sigmask(SIG_SETMASK, &s->old, NULL);
}

void rt__warn_raw(const char *msg)
{
	int saved = errno;
	rt_io_state io;
	rt__io_begin(&io);
	size_t n = strlen(msg);
	while (n > 0 && stderr_is_ours()) {
		ssize_t w = rt__sys_write(STDERR_FILENO, msg, n);
		if (w <= 0) {
			if (w == -EINTR)
				continue;
			break;
		}
		msg += w;
		n -= (size_t)w;
	}
	rt__io_end(&io);
	errno = saved;
}
