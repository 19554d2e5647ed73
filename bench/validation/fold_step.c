/* fold_step.c: one API region, "timestep", for the validation suite.
 *
 * Linked into a scratch build of a proxy app whose time-step loop got a
 * fold_step_enter()/fold_step_exit() pair inserted by bench/validation/run.sh.
 * The fold API is referenced weakly, so the app runs unchanged (and measures
 * nothing here) without libfold.so, and links without the fold stub library.
 * The region id is looked up once; fold_region() is idempotent and
 * thread-safe, so racing first calls agree. */
#include <stdint.h>

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
