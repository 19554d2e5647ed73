/* fold_step.h: the time-step region the validation suite inserts into a
 * scratch copy of a proxy app (bench/validation/run.sh). Declared for C and
 * C++; Fortran calls fold_step_enter()/fold_step_exit() by their gfortran
 * names (fold_step.c defines both spellings). */
#ifndef FOLD_STEP_H
#define FOLD_STEP_H
#ifdef __cplusplus
extern "C" {
#endif
void fold_step_enter(void);
void fold_step_exit(void);
#ifdef __cplusplus
}
#endif
#endif
