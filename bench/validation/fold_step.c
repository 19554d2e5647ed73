/* fold_step.c: one API region, "timestep", for the validation suite.
 *
 * Linked into a scratch build of a proxy app whose time-step loop got a
 * fold_step_enter()/fold_step_exit() pair inserted by bench/validation/run.sh.
 * The fold API is referenced weakly, so the app runs unchanged (and measures
 * nothing here) without libfold.so, and links without the fold stub library.
 * The region id is looked up once; fold_region() is idempotent and
 * thread-safe, so racing first calls agree. */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "fold_step.h"

extern uint32_t fold_region(const char *name) __attribute__((weak));
extern void fold_enter(uint32_t region) __attribute__((weak));
extern void fold_exit(uint32_t region) __attribute__((weak));

static uint32_t step_region(void)
{
	static volatile uint32_t id; /* 0: not yet looked up */
	if (!id && fold_region)
		id = fold_region("timestep");
	return id;
}

void fold_step_enter(void)
{
	if (fold_enter)
		fold_enter(step_region());
}

void fold_step_exit(void)
{
	if (fold_exit)
		fold_exit(step_region());
}

/* gfortran spellings: CALL fold_step_enter() */
void fold_step_enter_(void);
void fold_step_exit_(void);
void fold_step_enter_(void)
{
	fold_step_enter();
}
void fold_step_exit_(void)
{
	fold_step_exit();
}

/* ---- the TSC bracket of miniFE's TICK/TOCK (fold_step.h) */

unsigned long long fold_tsc_t0;
unsigned long long fold_tsc_cg0, fold_tsc_preloop, fold_tsc_n_preloop;
unsigned long long fold_tsc_tWAXPY, fold_tsc_tDOT, fold_tsc_tMATVEC, fold_tsc_tMATVECDOT;
unsigned long long fold_tsc_n_tWAXPY, fold_tsc_n_tDOT, fold_tsc_n_tMATVEC, fold_tsc_n_tMATVECDOT;
unsigned long long fold_tsc_call_tWAXPY, fold_tsc_call_tDOT, fold_tsc_call_tMATVEC;
unsigned long long fold_tsc_call_n_tWAXPY, fold_tsc_call_n_tDOT, fold_tsc_call_n_tMATVEC;

/* NAME.RANK.txt in the working directory, opened for writing (rank 0
 * outside MPI); NULL when it cannot be */
static FILE *rank_file(const char *name)
{
	const char *rank = getenv("OMPI_COMM_WORLD_RANK");
	if (!rank)
		rank = getenv("PMI_RANK");
	char path[64];
	snprintf(path, sizeof path, "%s.%d.txt", name, rank ? atoi(rank) : 0);
	return fopen(path, "w");
}

/* FOLD_CALL's empty functions, one per timer: not inlined, not
 * instrumented (this file is built without -finstrument-functions), each
 * alone on its page, so that only its timer's calls bring its code and its
 * page translation back */
#define COLD_PROBE(t)                                                                                        \
	__attribute__((noinline, aligned(4096),                                                              \
	               section(".text.fold_cold_probe_" #t))) void fold_cold_probe_##t(void)                 \
	{                                                                                                    \
		__asm__ volatile("");                                                                        \
	}
COLD_PROBE(tWAXPY)
COLD_PROBE(tDOT)
COLD_PROBE(tMATVEC)
COLD_PROBE(tMATVECDOT)

static unsigned long long call_log[1 << 16][6]; /* timer, c0, c1, cold, warm, source line */
static unsigned call_log_n;
void fold_call_log(const char *t, unsigned long long c0, unsigned long long c1, unsigned long long cold,
                   unsigned long long warm, int line)
{
	if (call_log_n < (1u << 16)) {
		unsigned long long *l = call_log[call_log_n++];
		l[0] = t[1];
		l[1] = c0;
		l[2] = c1;
		l[3] = cold;
		l[4] = warm;
		l[5] = (unsigned long long)line;
	}
}
static void __attribute__((destructor)) call_log_write(void)
{
	if (!call_log_n)
		return;
	FILE *f = rank_file("fold_calls");
	if (!f)
		return;
	for (unsigned i = 0; i < call_log_n; i++)
		fprintf(f, "%c %llu %llu %llu %llu %llu\n", (char)call_log[i][0], call_log[i][1],
		        call_log[i][2], call_log[i][3], call_log[i][4], call_log[i][5]);
	fclose(f);
}

static unsigned long long tsc_start;
static struct timespec mono_start;

static void __attribute__((constructor)) tsc_begin(void)
{
	clock_gettime(CLOCK_MONOTONIC, &mono_start);
	tsc_start = FOLD_TSC();
}

/* At exit, if any timer was bracketed: fold_tsc.RANK.txt in the working
 * directory, "tsc_hz HZ" (the TSC's rate over the whole run), "tsc_pair 1
 * SECONDS" (what two reads hold of their own), "preloop 1 SECONDS" (cg_solve
 * before its loop), one
 * "TIMER INTERVALS SECONDS" line per timer and one "call_TIMER CALLS
 * SECONDS" line per timer of the TSC right around each call. */
static void __attribute__((destructor)) tsc_write(void)
{
	if (!fold_tsc_n_tWAXPY && !fold_tsc_n_tDOT && !fold_tsc_n_tMATVEC && !fold_tsc_n_tMATVECDOT)
		return;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	unsigned long long ticks = FOLD_TSC() - tsc_start;
	double s =
	    (double)(now.tv_sec - mono_start.tv_sec) + 1e-9 * (double)(now.tv_nsec - mono_start.tv_nsec);
	if (s <= 0 || !ticks)
		return;
	double hz = (double)ticks / s;
	FILE *f = rank_file("fold_tsc");
	if (!f)
		return;
	fprintf(f, "tsc_hz %.1f\n", hz);
	/* what a pair of reads holds of its own: each interval above holds it
	 * once on top of the calls (the median of 1001 back-to-back pairs) */
	static unsigned long long pair[1001];
	for (int i = 0; i < 1001; i++) {
		unsigned long long t0 = FOLD_TSC();
		pair[i] = FOLD_TSC() - t0;
	}
	for (int i = 1; i < 1001; i++)
		for (int j = i; j > 0 && pair[j - 1] > pair[j]; j--) {
			unsigned long long x = pair[j];
			pair[j] = pair[j - 1];
			pair[j - 1] = x;
		}
	fprintf(f, "tsc_pair 1 %.12f\n", (double)pair[500] / hz);
	fprintf(f, "tWAXPY %llu %.9f\n", fold_tsc_n_tWAXPY, (double)fold_tsc_tWAXPY / hz);
	fprintf(f, "tDOT %llu %.9f\n", fold_tsc_n_tDOT, (double)fold_tsc_tDOT / hz);
	fprintf(f, "tMATVEC %llu %.9f\n", fold_tsc_n_tMATVEC, (double)fold_tsc_tMATVEC / hz);
	fprintf(f, "tMATVECDOT %llu %.9f\n", fold_tsc_n_tMATVECDOT, (double)fold_tsc_tMATVECDOT / hz);
	fprintf(f, "preloop %llu %.9f\n", fold_tsc_n_preloop, (double)fold_tsc_preloop / hz);
	fprintf(f, "call_tWAXPY %llu %.9f\n", fold_tsc_call_n_tWAXPY, (double)fold_tsc_call_tWAXPY / hz);
	fprintf(f, "call_tDOT %llu %.9f\n", fold_tsc_call_n_tDOT, (double)fold_tsc_call_tDOT / hz);
	fprintf(f, "call_tMATVEC %llu %.9f\n", fold_tsc_call_n_tMATVEC, (double)fold_tsc_call_tMATVEC / hz);
	fclose(f);
}
