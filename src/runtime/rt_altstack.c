/* rt_altstack.c: fold's per-thread alternate signal stack, and the
 * program's own sigaltstack as the program set it.
 *
 * Our handlers (sample, crash) are installed with SA_ONSTACK and run on a
 * 64 KiB stack of fold's own per thread, never on the interrupted stack: a
 * coroutine on a 4 KiB makecontext stack has no room for the ~12 KiB a
 * sample takes, and a crash from a stack overflow needs another stack.
 *
 * Invariants:
 *  - While rt__tls_ss_state is 1 the kernel's alternate stack for the
 *    thread is fold's; the program's sigaltstack settings live in
 *    rt__tls_app_ss, and the sigaltstack wrapper reads and writes those,
 *    with the kernel's checks (EPERM while on it, ENOMEM below MINSIGSTKSZ,
 *    EINVAL for bad flags) and SS_ONSTACK computed from the current stack
 *    pointer, so the program reads back exactly what it set.
 *  - A program handler installed with SA_ONSTACK runs on the program's own
 *    alternate stack when it has one (rt__call_program_handler switches
 *    to it, x86-64), with uc_stack showing the program's settings during
 *    the call; without one, on fold's (without fold it would have run on
 *    the interrupted stack: documented).
 *  - fold's frames stay in use while they are live, wherever the stack
 *    pointer goes. The kernel takes a stack pointer outside the alternate
 *    stack to mean that nothing on it is live, and builds the next frame at
 *    its top. So while a program handler runs on the program's stack, the
 *    kernel's alternate stack is the part of fold's below the frame that
 *    called it (set and restored from the program's stack, where
 *    sigaltstack is allowed); a nested signal is delivered below the live
 *    frames. A handler that siglongjmps out leaves the shorter stack
 *    behind: the next fold handler delivered where no frame of fold's can
 *    be live (the interrupted stack pointer is neither on fold's stack nor
 *    on the program's stack we switched to) gives the kernel the whole
 *    stack back through uc_stack, which sigreturn restores.
 *  - State 0 (no fold stack: the thread was not started or adopted by us,
 *    mmap failed, or it was running on the program's alternate stack when
 *    we took it over) passes everything to the kernel: our handlers then
 *    run wherever the kernel puts them, as before.
 *  - The stack memory belongs to the thread state and is reused by the
 *    next thread that gets it; a thread that ends disables it first.
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "fold_rt.h"

#define ALTSTACK_BYTES (64u * 1024u)
#ifndef SS_AUTODISARM
#define SS_AUTODISARM ((int)(1u << 31)) /* linux/signal.h */
#endif

static int (*real_sigaltstack)(const stack_t *, stack_t *);

FOLD_TLS int rt__tls_ss_state;
FOLD_TLS stack_t rt__tls_app_ss;
/* fold's stack of this thread, while rt__tls_ss_state is 1 */
static FOLD_TLS uintptr_t fold_lo;
/* the program's stack the last switch went to: a frame of fold's may be
 * live while the interrupted stack pointer is on it */
static FOLD_TLS uintptr_t moved_lo, moved_hi;

static int call_real(const stack_t *ss, stack_t *old)
{
	if (FOLD_UNLIKELY(!real_sigaltstack))
		real_sigaltstack = (int (*)(const stack_t *, stack_t *))rt__real("sigaltstack");
	if (!real_sigaltstack) {
		errno = ENOSYS;
		return -1;
	}
	return real_sigaltstack(ss, old);
}

static inline uintptr_t current_sp(void)
{
	return (uintptr_t)__builtin_frame_address(0);
}

static inline int on_stack(const stack_t *s, uintptr_t sp)
{
	return !(s->ss_flags & SS_DISABLE) && s->ss_size && sp > (uintptr_t)s->ss_sp &&
	       sp <= (uintptr_t)s->ss_sp + s->ss_size;
}

void rt__altstack_start(rt_thread *t, int fresh_thread)
{
	stack_t cur = {.ss_flags = SS_DISABLE};
	/* A thread from pthread_create has none (not inherited): no need to ask. */
	if (!fresh_thread && call_real(NULL, &cur))
		return;
	if (!(cur.ss_flags & SS_DISABLE) && (cur.ss_flags & SS_ONSTACK))
		return; /* running on the program's: it stays the kernel's */
	if (!t->altstack) {
		void *mem =
		    mmap(NULL, ALTSTACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (mem == MAP_FAILED)
			return;
		t->altstack = mem;
	}
	stack_t app = {.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
	if (!(cur.ss_flags & SS_DISABLE))
		app = cur;
	stack_t ss = {.ss_sp = t->altstack, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
	if (call_real(&ss, NULL) == 0) {
		rt__tls_app_ss = app;
		fold_lo = (uintptr_t)t->altstack;
		moved_lo = moved_hi = 0;
		rt__tls_ss_state = 1;
		t->altstack_on = 1;
	}
}

void rt__altstack_stop(rt_thread *t)
{
	if (!t->altstack_on)
		return;
	t->altstack_on = 0;
	if (!rt__tls_ss_state)
		return;
	rt__tls_ss_state = 0;
	/* The thread is ending or the runtime is: the kernel gets the
	 * program's settings back (fails harmlessly, EPERM, while on ours). */
	stack_t app = rt__tls_app_ss;
	if (app.ss_flags & SS_DISABLE)
		app = (stack_t){.ss_flags = SS_DISABLE};
	call_real(&app, NULL);
}

FOLD_EXPORT int sigaltstack(const stack_t *ss, stack_t *old)
{
	if (!rt__tls_ss_state)
		return call_real(ss, old);
	stack_t view = rt__tls_app_ss;
	if (on_stack(&view, current_sp()))
		view.ss_flags |= SS_ONSTACK;
	if (ss) {
		if (view.ss_flags & SS_ONSTACK) {
			errno = EPERM;
			return -1;
		}
		int mode = ss->ss_flags & ~SS_AUTODISARM;
		stack_t app;
		if (mode == SS_DISABLE) {
			app = (stack_t){.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
		} else if (mode == 0 || mode == SS_ONSTACK) {
			if (ss->ss_size < 2048) { /* the kernel's MINSIGSTKSZ */
				errno = ENOMEM;
				return -1;
			}
			app = (stack_t){.ss_sp = ss->ss_sp,
			                .ss_size = ss->ss_size,
			                .ss_flags = ss->ss_flags & SS_AUTODISARM};
		} else {
			errno = EINVAL;
			return -1;
		}
		if (old)
			*old = view;
		rt__tls_app_ss = app;
		return 0;
	}
	if (old)
		*old = view;
	return 0;
}

#if defined(__x86_64__)
/* Calls fn(sig, si, uc) with the stack pointer at top (16-byte aligned);
 * the frame pointer keeps the frame unwindable. */
void rt__call_on_stack(void *top, void (*fn)(int, siginfo_t *, void *), int sig, siginfo_t *si, void *uc);
__asm__(".pushsection fold_tramp,\"ax\",@progbits\n"
        ".globl rt__call_on_stack\n"
        ".hidden rt__call_on_stack\n"
        ".type rt__call_on_stack,@function\n"
        "rt__call_on_stack:\n"
        "\t.cfi_startproc\n"
        "\tpushq %rbp\n"
        "\t.cfi_def_cfa_offset 16\n"
        "\t.cfi_offset %rbp, -16\n"
        "\tmovq %rsp, %rbp\n"
        "\t.cfi_def_cfa_register %rbp\n"
        "\tmovq %rdi, %rsp\n"
        "\tmovq %rsi, %rax\n"
        "\tmovl %edx, %edi\n"
        "\tmovq %rcx, %rsi\n"
        "\tmovq %r8, %rdx\n"
        "\tcall *%rax\n"
        "\tmovq %rbp, %rsp\n"
        "\tpopq %rbp\n"
        "\t.cfi_def_cfa %rsp, 8\n"
        "\tret\n"
        "\t.cfi_endproc\n"
        ".size rt__call_on_stack, .-rt__call_on_stack\n"
        ".popsection\n");
#endif

static stack_t fold_whole(void)
{
	return (stack_t){.ss_sp = (void *)fold_lo, .ss_size = ALTSTACK_BYTES, .ss_flags = 0};
}

#if defined(__x86_64__)
static uintptr_t interrupted_sp(const ucontext_t *uc)
{
	return (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
}

/* Whether a frame of fold's may be live below the interrupted context: it
 * was running on fold's stack, or on the program's stack that a program
 * handler was moved to. */
static int fold_frames_live(const ucontext_t *uc)
{
	uintptr_t sp = interrupted_sp(uc);
	if (sp > fold_lo && sp <= fold_lo + ALTSTACK_BYTES)
		return 1;
	return moved_hi && sp > moved_lo && sp <= moved_hi;
}
#endif

void rt__altstack_on_entry(void *ucv)
{
#if defined(__x86_64__)
	ucontext_t *uc = ucv;
	if (!rt__tls_ss_state || !uc || (uintptr_t)uc->uc_stack.ss_sp != fold_lo ||
	    uc->uc_stack.ss_size == ALTSTACK_BYTES || fold_frames_live(uc))
		return;
	/* A shorter stack left behind by a handler that jumped out: sigreturn
	 * gives the kernel the whole one back. */
	uc->uc_stack = fold_whole();
#else
	(void)ucv;
#endif
}

FOLD_TRAMPOLINE static void call_plain(const struct sigaction *a, int sig, siginfo_t *si, void *uc)
{
	if (a->sa_flags & SA_SIGINFO)
		a->sa_sigaction(sig, si, uc);
	else
		a->sa_handler(sig);
}

#if defined(__x86_64__)
/* A program handler's call on the program's stack (rt__call_on_stack passes
 * it as the siginfo argument). */
struct moved_call {
	const struct sigaction *a;
	siginfo_t *si;
	sigset_t mask; /* the handler's */
	stack_t below; /* fold's stack below the caller's live frames */
};

/* Runs on the program's stack, where the kernel lets sigaltstack change
 * the stack fold's live frames are on, with every signal blocked until it
 * has: a signal delivered in between would be built over those frames. The
 * shorter stack stays after the handler returns (fold's code that follows
 * runs above it) until sigreturn restores uc_stack. */
FOLD_TRAMPOLINE static void on_program_stack(int sig, siginfo_t *arg, void *uc)
{
	struct moved_call *c = (struct moved_call *)(void *)arg;
	call_real(&c->below, NULL);
	rt__real_sigmask(SIG_SETMASK, &c->mask, NULL);
	call_plain(c->a, sig, c->si, uc);
}
#endif

FOLD_TRAMPOLINE void rt__call_program_handler(const struct sigaction *a, int sig, siginfo_t *si, void *ucv)
{
	if (!(a->sa_flags & SA_ONSTACK) || !rt__tls_ss_state || !ucv) {
		call_plain(a, sig, si, ucv);
		return;
	}
	/* The kernel ran us on fold's stack; the program's handler belongs on
	 * the program's, as the kernel would have chosen it. */
	ucontext_t *uc = ucv;
	stack_t app = rt__tls_app_ss;
	stack_t after = uc->uc_stack; /* the kernel's alternate stack after sigreturn */
	uintptr_t top = 0;
#if defined(__x86_64__)
	struct moved_call c = {.a = a, .si = si};
	if ((uintptr_t)after.ss_sp == fold_lo && !fold_frames_live(uc))
		after = fold_whole();
	if (!(app.ss_flags & SS_DISABLE)) {
		uintptr_t sp = interrupted_sp(uc), here;
		__asm__ volatile("movq %%rsp, %0" : "=r"(here));
		/* below this frame, the call's return address and saved frame
		 * pointer, and the red zone */
		uintptr_t limit = (here - 512) & ~(uintptr_t)15;
		c.below = (stack_t){.ss_sp = (void *)fold_lo, .ss_size = limit - fold_lo, .ss_flags = 0};
		if (limit > fold_lo + 16384) { /* else no room for a sample: stay on fold's */
			if (on_stack(&app, sp))
				top =
				    (sp - 128 - 64) & ~(uintptr_t)15; /* already on it: below the red zone */
			else
				top = ((uintptr_t)app.ss_sp + app.ss_size) & ~(uintptr_t)15;
		}
	}
#endif
	uc->uc_stack = app;
	if (app.ss_flags & SS_AUTODISARM)
		rt__tls_app_ss = (stack_t){.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
#if defined(__x86_64__)
	if (top) {
		sigset_t all;
		sigfillset(&all);
		rt__real_sigmask(SIG_BLOCK, &all, &c.mask);
		uintptr_t lo = moved_lo, hi = moved_hi;
		moved_lo = (uintptr_t)app.ss_sp;
		moved_hi = (uintptr_t)app.ss_sp + app.ss_size;
		rt__call_on_stack((void *)top, on_program_stack, sig, (siginfo_t *)(void *)&c, ucv);
		moved_lo = lo;
		moved_hi = hi;
	} else
#endif
		call_plain(a, sig, si, ucv);
	if (app.ss_flags & SS_AUTODISARM)
		rt__tls_app_ss = app;
	/* sigreturn restores the kernel's alternate stack from uc_stack. */
	uc->uc_stack = after;
}
