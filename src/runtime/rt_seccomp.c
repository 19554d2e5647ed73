/* rt_seccomp.c: a program that sandboxes itself with seccomp.
 *
 * A seccomp filter the program installs may deny, or kill the process for,
 * a system call fold's sampling makes behind the program's back
 * (timer_settime to re-arm, read of the counters, write of the trace);
 * strict mode allows read, write, _exit and sigreturn only. So fold sees
 * every way to turn seccomp on that goes through a function (prctl, and
 * seccomp and prctl through syscall(2)) and, before the kernel applies it:
 *
 *  - Strict mode (the calling thread): fold's sampling of that thread
 *    stops (its timers deleted), its records stay in memory (the live file
 *    keeps them: rt_pool.c) and nothing of fold makes a system call on it.
 *  - A filter: fold runs the classic BPF program itself (the seccomp
 *    subset, the kernel's own checks) on the system calls its sampling and
 *    writing make, with their real arguments. If the filter returns
 *    anything but ALLOW or LOG for one of them, the threads it applies to
 *    (the caller; every thread with SECCOMP_FILTER_FLAG_TSYNC) are treated
 *    as in strict mode. A filter that allows them all changes nothing.
 *  - A filter that denies a call of fold's final flush (rt__finish: getpid,
 *    write, unlink, ...): the process ends without it, and the live file
 *    next to the trace keeps what it recorded, for fold to recover
 *    (rt__proc.exit_sandboxed).
 *  - Either way the trace records it (a marker on the thread, stat
 *    seccomp.threads_quiet) and fold says it once on stderr, before the
 *    filter applies.
 *
 * Not seen: seccomp turned on by a raw system call instruction (Chromium's
 * sandbox), or inherited from a parent (a filter already in place at start
 * is what the program runs under: fold's own start-up calls went through).
 */
#include "fold_rt.h"

#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

static _Atomic uint64_t threads_quiet;

/* ---------------------------------------------------------------- classic BPF */

#define BPF_MAXINSNS_SECCOMP 4096

/* Runs a seccomp filter on d; returns its action, or SECCOMP_RET_KILL_PROCESS
 * for a program the kernel would refuse or that falls off its end. */
static uint32_t bpf_run(const struct sock_fprog *prog, const struct seccomp_data *d)
{
	uint32_t a = 0, x = 0, mem[BPF_MEMWORDS];
	memset(mem, 0, sizeof mem);
	if (!prog || !prog->filter || !prog->len || prog->len > BPF_MAXINSNS_SECCOMP)
		return SECCOMP_RET_KILL_PROCESS;
	const uint8_t *data = (const uint8_t *)d;
	for (unsigned pc = 0; pc < prog->len; pc++) {
		const struct sock_filter *f = &prog->filter[pc];
		uint32_t k = f->k;
		uint32_t src = BPF_SRC(f->code) == BPF_X ? x : k;
		switch (BPF_CLASS(f->code)) {
		case BPF_LD:
			switch (BPF_MODE(f->code)) {
			case BPF_ABS:
				if (BPF_SIZE(f->code) != BPF_W || k > sizeof *d - 4 || (k & 3))
					return SECCOMP_RET_KILL_PROCESS;
				memcpy(&a, data + k, 4);
				break;
			case BPF_LEN: a = sizeof *d; break;
			case BPF_IMM: a = k; break;
			case BPF_MEM:
				if (k >= BPF_MEMWORDS)
					return SECCOMP_RET_KILL_PROCESS;
				a = mem[k];
				break;
			default: return SECCOMP_RET_KILL_PROCESS;
			}
			break;
		case BPF_LDX:
			switch (BPF_MODE(f->code)) {
			case BPF_LEN: x = sizeof *d; break;
			case BPF_IMM: x = k; break;
			case BPF_MEM:
				if (k >= BPF_MEMWORDS)
					return SECCOMP_RET_KILL_PROCESS;
				x = mem[k];
				break;
			default: return SECCOMP_RET_KILL_PROCESS;
			}
			break;
		case BPF_ST:
		case BPF_STX:
			if (k >= BPF_MEMWORDS)
				return SECCOMP_RET_KILL_PROCESS;
			mem[k] = BPF_CLASS(f->code) == BPF_ST ? a : x;
			break;
		case BPF_ALU:
			switch (BPF_OP(f->code)) {
			case BPF_ADD: a += src; break;
			case BPF_SUB: a -= src; break;
			case BPF_MUL: a *= src; break;
			case BPF_DIV:
				if (!src)
					return SECCOMP_RET_KILL_PROCESS;
				a /= src;
				break;
			case BPF_MOD:
				if (!src)
					return SECCOMP_RET_KILL_PROCESS;
				a %= src;
				break;
			case BPF_AND: a &= src; break;
			case BPF_OR: a |= src; break;
			case BPF_XOR: a ^= src; break;
			case BPF_LSH: a = src < 32 ? a << src : 0; break;
			case BPF_RSH: a = src < 32 ? a >> src : 0; break;
			case BPF_NEG: a = (uint32_t)-(int32_t)a; break;
			default: return SECCOMP_RET_KILL_PROCESS;
			}
			break;
		case BPF_JMP: {
			unsigned next;
			if (BPF_OP(f->code) == BPF_JA) {
				next = pc + k;
			} else {
				int cond;
				switch (BPF_OP(f->code)) {
				case BPF_JEQ: cond = a == src; break;
				case BPF_JGT: cond = a > src; break;
				case BPF_JGE: cond = a >= src; break;
				case BPF_JSET: cond = (a & src) != 0; break;
				default: return SECCOMP_RET_KILL_PROCESS;
				}
				next = pc + (cond ? f->jt : f->jf);
			}
			if (next + 1 >= prog->len)
				return SECCOMP_RET_KILL_PROCESS;
			pc = next;
			break;
		}
		case BPF_RET: return BPF_RVAL(f->code) == BPF_A ? a : k;
		case BPF_MISC:
			if (BPF_MISCOP(f->code) == BPF_TAX)
				x = a;
			else
				a = x;
			break;
		default: return SECCOMP_RET_KILL_PROCESS;
		}
	}
	return SECCOMP_RET_KILL_PROCESS;
}

/* ---------------------------------------------------------------- fold's calls */

/* The calls fold makes on a measured thread behind the program's back, with
 * the arguments it passes (descriptors and timers are fold's own). */
static int allows(const struct sock_fprog *prog, long nr, uint64_t a0, uint64_t a1)
{
	struct seccomp_data d;
	memset(&d, 0, sizeof d);
	d.nr = (int)nr;
	d.arch = AUDIT_ARCH_X86_64;
	d.instruction_pointer = (uint64_t)(uintptr_t)bpf_run;
	d.args[0] = a0;
	d.args[1] = a1;
	uint32_t act = bpf_run(prog, &d) & SECCOMP_RET_ACTION_FULL;
	return act == SECCOMP_RET_ALLOW || act == SECCOMP_RET_LOG;
}

/* The calls of fold's final flush (rt__finish): without one of them the
 * process keeps what it recorded in the live file, for fold to recover. */
static int filter_allows_exit(const struct sock_fprog *prog)
{
	static const long calls[] = {SYS_getpid,    SYS_write,     SYS_writev,  SYS_fstat,  SYS_newfstatat,
	                             SYS_unlink,    SYS_close,     SYS_munmap,  SYS_mmap,   SYS_madvise,
	                             SYS_futex,     SYS_membarrier, SYS_timer_delete, SYS_rt_sigprocmask,
	                             SYS_rt_sigpending, SYS_rt_sigtimedwait, SYS_openat, SYS_ioctl};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++)
		if (!allows(prog, calls[i], calls[i] == SYS_write || calls[i] == SYS_writev ? (uint64_t)rt__proc.fd : 0,
		            0))
			return 0;
	return 1;
}

static int filter_allows_fold(const struct sock_fprog *prog, const rt_thread *t)
{
	struct {
		long nr;
		uint64_t a0, a1;
	} calls[] = {
	    {SYS_rt_sigreturn, 0, 0},
	    {SYS_timer_settime, t ? (uint64_t)(uintptr_t)t->timer : 0, TIMER_ABSTIME},
	    {SYS_read, t && t->perf_fd[0] >= 0 ? (uint64_t)t->perf_fd[0] : 0, 0},
	    {SYS_write, (uint64_t)rt__proc.fd, 0},
	    {SYS_writev, (uint64_t)rt__proc.fd, 0},
	    {SYS_clock_gettime, CLOCK_THREAD_CPUTIME_ID, 0},
	    {SYS_rt_sigprocmask, SIG_BLOCK, 0},
	    {SYS_ioctl, t && t->sample_fd >= 0 ? (uint64_t)t->sample_fd : 0, 0},
	};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		struct seccomp_data d;
		memset(&d, 0, sizeof d);
		d.nr = (int)calls[i].nr;
		d.arch = AUDIT_ARCH_X86_64;
		d.instruction_pointer = (uint64_t)(uintptr_t)bpf_run;
		d.args[0] = calls[i].a0;
		d.args[1] = calls[i].a1;
		uint32_t act = bpf_run(prog, &d) & SECCOMP_RET_ACTION_FULL;
		if (act != SECCOMP_RET_ALLOW && act != SECCOMP_RET_LOG)
			return 0;
	}
	return 1;
}

/* fold goes quiet on t: no more samples (timers deleted while system calls
 * still go through), no system call of fold's on it from now on. */
static void quiet(rt_thread *t, const char *why)
{
	if (!t || t->sandboxed)
		return;
	if (t == rt__tls_thread && rt__enter_runtime(t)) {
		rt__marker(t, why);
		rt__leave_runtime(t);
	}
	rt__sampling_thread_stop(t);
	t->sandboxed = 1;
	atomic_fetch_add(&threads_quiet, 1);
}

static void say_once(const char *what)
{
	static _Atomic int said;
	if (!atomic_exchange(&said, 1))
		rt__warn("the program turned on %s: fold stops sampling the threads it applies to (their "
		         "records so far are kept)",
		         what);
}

void rt__before_seccomp(unsigned long op, unsigned long flags, const void *arg)
{
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING)
		return;
	rt_thread *self = rt__tls_thread;
	if (op == SECCOMP_SET_MODE_STRICT) {
		/* the exit path runs on whichever thread exits: if it is this one,
		 * only write works; the live file keeps the rest */
		say_once("seccomp strict mode");
		quiet(self, "seccomp strict: fold quiet on this thread");
		return;
	}
	if (op == SECCOMP_SET_MODE_FILTER && !filter_allows_exit((const struct sock_fprog *)arg) &&
	    !atomic_exchange(&rt__proc.exit_sandboxed, 1))
		rt__warn("the program turned on a seccomp filter that denies calls fold's final flush makes: "
		         "what it records from now on stays in %s.live, which fold reads with the trace",
		         rt__proc.path);
	if (op != SECCOMP_SET_MODE_FILTER || filter_allows_fold((const struct sock_fprog *)arg, self))
		return;
	say_once("a seccomp filter that denies system calls fold makes");
	if (!(flags & SECCOMP_FILTER_FLAG_TSYNC)) {
		quiet(self, "seccomp filter: fold quiet on this thread");
		return;
	}
	unsigned n = rt__thread_slots();
	for (unsigned i = 0; i < n; i++) {
		rt_thread *t = rt__thread_slot(i);
		if (atomic_load(&t->alive))
			quiet(t, "seccomp filter (all threads): fold quiet on this thread");
	}
}

uint64_t rt__seccomp_threads_quiet(void)
{
	return atomic_load(&threads_quiet);
}

/* ---------------------------------------------------------------- interposition */

typedef int (*prctl_fn)(int, unsigned long, unsigned long, unsigned long, unsigned long);

FOLD_EXPORT int prctl(int option, ...)
{
	static prctl_fn real;
	if (!real)
		real = (prctl_fn)rt__real("prctl");
	va_list ap;
	va_start(ap, option);
	unsigned long a2 = va_arg(ap, unsigned long), a3 = va_arg(ap, unsigned long),
	              a4 = va_arg(ap, unsigned long), a5 = va_arg(ap, unsigned long);
	va_end(ap);
	if (option == PR_SET_SECCOMP)
		rt__before_seccomp(a2 == SECCOMP_MODE_STRICT ? SECCOMP_SET_MODE_STRICT : SECCOMP_SET_MODE_FILTER, 0,
		               (const void *)a3);
	if (!real) {
		errno = ENOSYS;
		return -1;
	}
	return real(option, a2, a3, a4, a5);
}
