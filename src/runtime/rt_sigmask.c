/* rt_sigmask.c: the program's signal masks, with fold's signals taken out.
 *
 * fold's signals (the sampling signal, and PAPI's overflow signal when PAPI
 * samples) must never be blocked, waited for or read by the program, or a
 * thread that blocks everything is silently never sampled and a thread that
 * waits for everything receives our ticks. So every call that takes a mask
 * is wrapped here (sigprocmask, pthread_sigmask, sigwait, signalfd, sighold,
 * sigrelse, sigignore, sigpause) or in rt_wait.c (sigsuspend, sigwaitinfo,
 * sigtimedwait, ppoll, pselect, epoll_pwait*) and in rt_signal.c (a handler's
 * sa_mask): the kernel gets the mask without our signals.
 *
 * Invariants:
 *  - The kernel never has one of fold's signals blocked in a thread that
 *    fold samples, except inside our own handler (the kernel blocks it while
 *    it runs) and for a moment before exec (rt__signals_before_exec).
 *  - The program sees its masks exactly as it set them: each thread keeps,
 *    in rt__tls_vmask, whether the program believes each of fold's signals
 *    blocked; every "old mask" the program gets back carries those bits. A
 *    new thread inherits its creator's bits (rt_thread.c), an exec'd image
 *    gets them for real (rt_signal.c blocks them just before exec and the
 *    new image's fold takes them back at start: rt__sigmask_init).
 *  - Not covered: masks set with the raw rt_sigprocmask system call, and the
 *    mask glibc's siglongjmp restores (it calls the system call itself): it
 *    restores the kernel's mask, which never has our signals, so a program
 *    that blocked fold's signal and longjmps reads it back as unblocked.
 *    rt__sampling_missed (rt_signal.c) counts the samples such a thread
 *    loses, so the loss is reported, not silent.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/signalfd.h>

#include "fold_rt.h"

typedef int (*mask_fn)(int, const sigset_t *, sigset_t *);
static mask_fn real_pthread_sigmask, real_sigprocmask;
static int (*real_signalfd)(int, const sigset_t *, int);

static int rt_sigs[2];
static _Atomic int nfold;

/* Bit (sig - 1) set: the program believes sig blocked in this thread. */
FOLD_TLS uint64_t rt__tls_vmask;

static void resolve(void)
{
	if (!real_pthread_sigmask)
		real_pthread_sigmask = (mask_fn)rt__real("pthread_sigmask");
	if (!real_sigprocmask)
		real_sigprocmask = (mask_fn)rt__real("sigprocmask");
	if (!real_signalfd)
		real_signalfd = (int (*)(int, const sigset_t *, int))rt__real("signalfd");
}

int rt__real_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (FOLD_UNLIKELY(!real_pthread_sigmask))
		resolve();
	return real_pthread_sigmask ? real_pthread_sigmask(how, set, old) : ENOSYS;
}

int rt__is_fold_signal(int sig)
{
	int n = atomic_load_explicit(&nfold, memory_order_relaxed);
	for (int i = 0; i < n; i++)
		if (rt_sigs[i] == sig)
			return 1;
	return 0;
}

/* Copies `in` without fold's signals into *out; returns the pointer to pass
 * to the kernel (NULL stays NULL). */
const sigset_t *rt__strip_mask(const sigset_t *in, sigset_t *out)
{
	int n = atomic_load_explicit(&nfold, memory_order_relaxed);
	if (!in || !n)
		return in;
	*out = *in;
	for (int i = 0; i < n; i++)
		sigdelset(out, rt_sigs[i]);
	return out;
}

/* fold's signals that `set` contains, as vmask bits. */
uint64_t rt__mask_bits(const sigset_t *set)
{
	uint64_t b = 0;
	int n = atomic_load_explicit(&nfold, memory_order_relaxed);
	for (int i = 0; i < n; i++)
		if (sigismember(set, rt_sigs[i]) == 1)
			b |= 1ull << (rt_sigs[i] - 1);
	return b;
}

/* Gives *old the program's view: fold's signals as the program set them. */
static void program_view(sigset_t *old, uint64_t vmask)
{
	int n = atomic_load_explicit(&nfold, memory_order_relaxed);
	for (int i = 0; i < n; i++) {
		if (vmask & (1ull << (rt_sigs[i] - 1)))
			sigaddset(old, rt_sigs[i]);
		else
			sigdelset(old, rt_sigs[i]);
	}
}

void rt__sigmask_init(int sample_signo, int extra_signo)
{
	resolve();
	if (atomic_load(&nfold))
		return;
	int n = 0;
	if (sample_signo > 0 && sample_signo <= 64)
		rt_sigs[n++] = sample_signo;
	if (extra_signo > 0 && extra_signo <= 64 && extra_signo != sample_signo)
		rt_sigs[n++] = extra_signo;
	atomic_store(&nfold, n);
	/* Inherited blocked (a parent blocked it, then exec'd us): the program
	 * keeps seeing it blocked, the kernel no longer has it. */
	sigset_t cur, un;
	if (rt__real_sigmask(SIG_BLOCK, NULL, &cur) == 0) {
		uint64_t b = rt__mask_bits(&cur);
		if (b) {
			rt__tls_vmask |= b;
			sigemptyset(&un);
			for (int i = 0; i < n; i++)
				sigaddset(&un, rt_sigs[i]);
			rt__real_sigmask(SIG_UNBLOCK, &un, NULL);
		}
	}
}

/* Blocks, for real, fold's signals that the program believes blocked (just
 * before exec: the new image inherits the program's mask). */
void rt__sigmask_for_exec(void)
{
	uint64_t v = rt__tls_vmask;
	if (!v)
		return;
	sigset_t set;
	sigemptyset(&set);
	for (int sig = 1; sig <= 64; sig++)
		if (v & (1ull << (sig - 1)))
			sigaddset(&set, sig);
	rt__real_sigmask(SIG_BLOCK, &set, NULL);
}

static int apply(mask_fn real, int how, const sigset_t *set, sigset_t *old)
{
	/* libunwind, inside fold's own unwinding, blocks every signal around
	 * its lock so that no handler of the thread can unwind into it (and
	 * wait for it): fold's signals too, for real, or a sample landing
	 * there deadlocks on that lock. */
	if (FOLD_UNLIKELY(rt__tls_unwinding))
		return real(how, set, old);
	sigset_t k;
	uint64_t before = rt__tls_vmask;
	int rc = real(how, rt__strip_mask(set, &k), old);
	if (rc != 0)
		return rc;
	if (old && atomic_load_explicit(&nfold, memory_order_relaxed))
		program_view(old, before);
	if (set) {
		uint64_t b = rt__mask_bits(set);
		if (how == SIG_BLOCK)
			rt__tls_vmask = before | b;
		else if (how == SIG_UNBLOCK)
			rt__tls_vmask = before & ~b;
		else if (how == SIG_SETMASK)
			rt__tls_vmask = b;
	}
	return 0;
}

FOLD_EXPORT int pthread_sigmask(int how, const sigset_t *set, sigset_t *old)
{
	if (FOLD_UNLIKELY(!real_pthread_sigmask))
		resolve();
	if (!real_pthread_sigmask)
		return ENOSYS;
	if (FOLD_UNLIKELY(rt__in_vfork)) /* the child's own mask: not the parent's view */
		return real_pthread_sigmask(how, set, old);
	return apply(real_pthread_sigmask, how, set, old);
}

FOLD_EXPORT int sigprocmask(int how, const sigset_t *set, sigset_t *old)
{
	if (FOLD_UNLIKELY(!real_sigprocmask))
		resolve();
	if (!real_sigprocmask) {
		errno = ENOSYS;
		return -1;
	}
	if (FOLD_UNLIKELY(rt__in_vfork))
		return real_sigprocmask(how, set, old);
	return apply(real_sigprocmask, how, set, old);
}

FOLD_EXPORT int signalfd(int fd, const sigset_t *mask, int flags)
{
	if (FOLD_UNLIKELY(!real_signalfd))
		resolve();
	if (!real_signalfd) {
		errno = ENOSYS;
		return -1;
	}
	sigset_t k;
	return real_signalfd(fd, rt__strip_mask(mask, &k), flags);
}

/* glibc's sigwait loops on sigtimedwait through an internal call we cannot
 * interpose: rebuilt on our sigwaitinfo (rt_wait.c), which strips our
 * signals and restarts when only ours interrupted. */
FOLD_EXPORT int sigwait(const sigset_t *set, int *sig)
{
	int saved = errno, rc;
	do
		rc = sigwaitinfo(set, NULL);
	while (rc < 0 && errno == EINTR);
	int err = rc < 0 ? errno : 0;
	errno = saved;
	if (rc < 0)
		return err;
	*sig = rc;
	return 0;
}

/* The System V calls glibc implements with its internal sigprocmask and
 * sigaction: rebuilt on ours. */
FOLD_EXPORT int sighold(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return -1;
	return sigprocmask(SIG_BLOCK, &set, NULL);
}

FOLD_EXPORT int sigrelse(int sig)
{
	sigset_t set;
	sigemptyset(&set);
	if (sigaddset(&set, sig) < 0)
		return -1;
	return sigprocmask(SIG_UNBLOCK, &set, NULL);
}

FOLD_EXPORT int sigignore(int sig)
{
	struct sigaction sa = {0};
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	return sigaction(sig, &sa, NULL);
}

/* sigpause: glibc builds both forms on its internal sigsuspend, which our
 * signal would end early with EINTR; rebuilt on our sigsuspend (rt_wait.c,
 * restarted when only ours interrupted). Defined under their symbol names:
 * <signal.h> maps the C name sigpause to __xpg_sigpause. */
int rt_xpg_sigpause(int sig) __asm__("__xpg_sigpause");
int rt_bsd_sigpause(int mask) __asm__("sigpause");

FOLD_EXPORT int rt_xpg_sigpause(int sig)
{
	sigset_t set;
	if (sigprocmask(SIG_BLOCK, NULL, &set) < 0 || sigdelset(&set, sig) < 0)
		return -1;
	return sigsuspend(&set);
}

FOLD_EXPORT int rt_bsd_sigpause(int mask)
{
	sigset_t set;
	sigemptyset(&set);
	for (int sig = 1; sig < 32; sig++)
		if ((unsigned)mask & (1u << (sig - 1)))
			sigaddset(&set, sig);
	return sigsuspend(&set);
}
