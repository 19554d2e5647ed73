/* rt_syscall.c: the program's syscall(2).
 *
 * A call made through syscall(2) passes every wrapper of fold's that keeps
 * the program's view intact. The calls that matter go to those wrappers
 * instead, with the system call's own conventions (glibc's syscall() sets
 * errno and returns -1, as they do):
 *  - close, close_range, dup2, dup3: fold's descriptors stay out of the
 *    program's way (rt_fd.c), so a raw close_range over the table does
 *    not close fold's trace file and hand its number to a file of the
 *    program's that fold would then write into;
 *  - seccomp and prctl(PR_SET_SECCOMP): fold goes quiet where the sandbox
 *    may deny its calls (rt_seccomp.c);
 *  - exit_group and exit: the process's final flush, or the thread's end,
 *    first, as for _exit (a program that ends so through syscall(2) is not
 *    reported as killed; one that makes the system call itself, as Go's
 *    runtime does, leaves its data in the live file: rt_pool.c).
 * Everything else goes to the kernel as it is. A system call instruction
 * in the program's own code (inline assembly, Go's runtime) is not seen.
 */
#include "fold_rt.h"
#include "rt_sys.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

typedef long (*syscall_fn)(long, long, long, long, long, long, long);

FOLD_EXPORT long syscall(long number, ...)
{
	static syscall_fn real;
	if (FOLD_UNLIKELY(!real))
		real = (syscall_fn)rt__real("syscall");
	va_list ap;
	va_start(ap, number);
	long a1 = va_arg(ap, long), a2 = va_arg(ap, long), a3 = va_arg(ap, long), a4 = va_arg(ap, long),
	     a5 = va_arg(ap, long), a6 = va_arg(ap, long);
	va_end(ap);
	switch (number) {
	case SYS_close: return close((int)a1);
	case SYS_close_range: return close_range((unsigned)a1, (unsigned)a2, (int)a3);
	case SYS_dup2: return dup2((int)a1, (int)a2);
	case SYS_dup3: return dup3((int)a1, (int)a2, (int)a3);
	case SYS_exit_group: rt__finish("exit_group"); break;
	case SYS_exit: /* a raw clone's thread may share this TLS: only our own thread's end */
		if (rt__tls_thread && !rt__tls_thread->sandboxed && /* strict seccomp: exit only */
		    rt__tls_thread->tid == (pid_t)rt__sys6(SYS_gettid, 0, 0, 0, 0, 0, 0))
			rt__thread_end(rt__tls_thread);
		break;
	case SYS_seccomp: rt__before_seccomp((unsigned long)a1, (unsigned long)a2, (const void *)a3); break;
	case SYS_prctl:
		if (a1 == PR_SET_SECCOMP)
			rt__before_seccomp(
			    a2 == SECCOMP_MODE_STRICT ? SECCOMP_SET_MODE_STRICT : SECCOMP_SET_MODE_FILTER, 0,
			    (const void *)a3);
		break;
	default: break;
	}
	if (FOLD_UNLIKELY(!real)) {
		errno = ENOSYS;
		return -1;
	}
	return real(number, a1, a2, a3, a4, a5, a6);
}
