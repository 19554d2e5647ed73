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
void fold_call_log(const char *t, unsigned long long c0, unsigned long long c1);

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
/* FOLD_CALL(t, statement): one timed call of timer t, the TSC right around it */
#define FOLD_CALL(t, ...)                                                                                    \
	do {                                                                                                 \
		unsigned long long fold_c0_ = FOLD_TSC();                                                    \
		__VA_ARGS__                                                                                  \
		unsigned long long fold_c1_ = FOLD_TSC();                                                    \
		fold_tsc_call_##t += fold_c1_ - fold_c0_;                                                    \
		fold_tsc_call_n_##t++;                                                                       \
		fold_call_log(#t, fold_c0_, fold_c1_);                                                       \
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
