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
__asm__(".text\n"
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
        ".size rt__call_on_stack, .-rt__call_on_stack\n");
#endif

void rt__call_program_handler(const struct sigaction *a, int sig, siginfo_t *si, void *ucv)
{
	void (*fn)(int, siginfo_t *, void *) = a->sa_sigaction;
	void (*plain)(int) = a->sa_handler;
	if (!(a->sa_flags & SA_ONSTACK) || !rt__tls_ss_state || !ucv) {
		if (a->sa_flags & SA_SIGINFO)
			fn(sig, si, ucv);
		else
			plain(sig);
		return;
	}
	/* The kernel ran us on fold's stack; the program's handler belongs on
	 * the program's, as the kernel would have chosen it. */
	ucontext_t *uc = ucv;
	stack_t app = rt__tls_app_ss;
	stack_t kernel_view = uc->uc_stack;
	uintptr_t top = 0;
#if defined(__x86_64__)
	if (!(app.ss_flags & SS_DISABLE)) {
		uintptr_t sp = (uintptr_t)uc->uc_mcontext.gregs[REG_RSP];
		if (on_stack(&app, sp))
			top = (sp - 128 - 64) & ~(uintptr_t)15; /* already on it: below the red zone */
		else
			top = ((uintptr_t)app.ss_sp + app.ss_size) & ~(uintptr_t)15;
	}
#endif
	uc->uc_stack = app;
	if (app.ss_flags & SS_AUTODISARM)
		rt__tls_app_ss = (stack_t){.ss_sp = NULL, .ss_size = 0, .ss_flags = SS_DISABLE};
#if defined(__x86_64__)
	if (top) {
		if (a->sa_flags & SA_SIGINFO)
			rt__call_on_stack((void *)top, fn, sig, si, ucv);
		else
			rt__call_on_stack((void *)top, (void (*)(int, siginfo_t *, void *))(void *)plain, sig,
			                  si, ucv);
	} else
#endif
	{
		if (a->sa_flags & SA_SIGINFO)
			fn(sig, si, ucv);
		else
			plain(sig);
	}
	if (app.ss_flags & SS_AUTODISARM)
		rt__tls_app_ss = app;
	/* sigreturn restores the kernel's alternate stack from uc_stack. */
	uc->uc_stack = kernel_view;
}
