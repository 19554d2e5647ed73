/* fold_step.h: the time-step region the validation suite inserts into a
 * scratch copy of a proxy app (bench/validation/run.sh). Declared for C and
 * C++; Fortran calls fold_step_enter()/fold_step_exit() by their gfortran
 * names (fold_step.c defines both spellings).
 *
 * Also a TSC bracket for the app's kernel timers: miniFE's cg_solve
 * (edited by run.sh to FOLD_TICK/FOLD_TOCK) reads the TSC right after TICK's clock and right before
 * TOCK's, so the interval holds the timed calls and their hooks but not the
 * app's own timer, whose cold call after a streaming kernel is itself
 * 0.06-0.07% of a 96^3 WAXPY (docs/validation.md). And run.sh wraps each
 * timed call in FOLD_CALL, a TSC right around that call alone: TICK/TOCK
 * also hold cg_solve's own code between two calls it times together (two
 * WAXPYs), which is no function's time. The sums are plain stores, cheap
 * inside the app's timer; fold_step.c writes them at exit. */
#ifndef FOLD_STEP_H
#define FOLD_STEP_H
#ifdef __cplusplus
extern "C" {
#endif
void fold_step_enter(void);
void fold_step_exit(void);
void fold_call_log(const char *t, unsigned long long c0, unsigned long long c1, unsigned long long cold,
                   unsigned long long warm, int line);
void fold_cold_probe_tWAXPY(void), fold_cold_probe_tDOT(void), fold_cold_probe_tMATVEC(void),
    fold_cold_probe_tMATVECDOT(void);

/* fenced: a plain TSC read may run ahead of the instructions before it */
#if defined(__x86_64__) || defined(__i386__)
#define FOLD_TSC() (__builtin_ia32_lfence(), __builtin_ia32_rdtsc())
#else
#define FOLD_TSC() 0ull
#endif
/* FOLD_TICK()/FOLD_TOCK(t) replace cg_solve's TICK()/TOCK(t) */
#define FOLD_TICK() TICK() fold_tsc_t0 = FOLD_TSC()
#define FOLD_TOCK(t)                                                                                         \
	fold_tsc_##t += FOLD_TSC() - fold_tsc_t0;                                                            \
	fold_tsc_n_##t++;                                                                                    \
	TOCK(t)
/* FOLD_CALL(t, statement): one timed call of timer t, the TSC right around
 * it. Built with FOLD_COLD_PROBE (run.sh, FOLD_VALIDATION_COLD_PROBE=1), right
 * before it, as the floor of what a clock inside a function can see of its
 * call, the same TSC around two calls of an empty function that nothing
 * instruments and only timer t's calls call (fold_cold_probe_t): the first
 * finds its code and page as the kernel's own code is found, last run at
 * the timer's previous call (cold), the second warm. What the first takes
 * over the second is what the timed call's own entry may take over a warm
 * one, before any hook inside the callee runs. Off by default: the probes
 * run between the calls, inside the app's TICK/TOCK. */
#ifdef FOLD_COLD_PROBE
#define FOLD_COLD_PROBE_(t)                                                                                  \
	do {                                                                                                 \
		unsigned long long fold_p0_ = FOLD_TSC();                                                    \
		fold_cold_probe_##t();                                                                       \
		unsigned long long fold_p1_ = FOLD_TSC();                                                    \
		fold_cold_probe_##t();                                                                       \
		fold_pc_ = fold_p1_ - fold_p0_;                                                              \
		fold_pw_ = FOLD_TSC() - fold_p1_;                                                            \
	} while (0)
#else
#define FOLD_COLD_PROBE_(t) (void)0
#endif
#define FOLD_CALL(t, ...)                                                                                    \
	do {                                                                                                 \
		unsigned long long fold_pc_ = 0, fold_pw_ = 0;                                               \
		FOLD_COLD_PROBE_(t);                                                                         \
		unsigned long long fold_c0_ = FOLD_TSC();                                                    \
		__VA_ARGS__                                                                                  \
		unsigned long long fold_c1_ = FOLD_TSC();                                                    \
		fold_tsc_call_##t += fold_c1_ - fold_c0_;                                                    \
		fold_tsc_call_n_##t++;                                                                       \
		fold_call_log(#t, fold_c0_, fold_c1_, fold_pc_, fold_pw_, __LINE__);                         \
	} while (0);
/* FOLD_PRELOOP_START()/END(): cg_solve's time from its total timer's start
 * to its loop */
#define FOLD_PRELOOP_START() fold_tsc_cg0 = FOLD_TSC()
#define FOLD_PRELOOP_END()                                                                                   \
	do {                                                                                                 \
		fold_tsc_preloop += FOLD_TSC() - fold_tsc_cg0;                                               \
		fold_tsc_n_preloop++;                                                                        \
	} while (0)
extern unsigned long long fold_tsc_cg0, fold_tsc_preloop, fold_tsc_n_preloop;
/* the TSC at the last TICK; per timer: summed ticks and intervals, and
 * summed ticks and calls right around each call */
extern unsigned long long fold_tsc_t0;
extern unsigned long long fold_tsc_tWAXPY, fold_tsc_tDOT, fold_tsc_tMATVEC, fold_tsc_tMATVECDOT;
extern unsigned long long fold_tsc_n_tWAXPY, fold_tsc_n_tDOT, fold_tsc_n_tMATVEC, fold_tsc_n_tMATVECDOT;
extern unsigned long long fold_tsc_call_tWAXPY, fold_tsc_call_tDOT, fold_tsc_call_tMATVEC;
extern unsigned long long fold_tsc_call_n_tWAXPY, fold_tsc_call_n_tDOT, fold_tsc_call_n_tMATVEC;
#ifdef __cplusplus
}
#endif
#endif
