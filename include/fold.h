/* fold.h: the fold region and counter API.
 *
 * Link against libfold-stub (pkg-config fold): every call is then a no-op and
 * the program runs unchanged. Run it with libfold.so preloaded (foldrun, or
 * LD_PRELOAD=libfold.so) and the same calls are measured.
 *
 *   static uint32_t step;
 *   if (!step) step = fold_region("timestep");
 *   fold_enter(step);  ...  fold_exit(step);
 *
 * All functions are thread-safe. fold_region() and fold_counter() are
 * idempotent: the same name always returns the same id.
 */
#ifndef FOLD_H
#define FOLD_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Registers a region by name (once; later calls return the same id). */
uint32_t fold_region(const char *name);
/* Marks entry to / exit from an instance of a region on the calling thread. */
void fold_enter(uint32_t region);
void fold_exit(uint32_t region);
/* Registers an application-defined, monotonically increasing counter. */
uint32_t fold_counter(const char *name);
/* Adds n to a counter on the calling thread (cheap: a thread-local add). */
void fold_count(uint32_t counter, uint64_t n);
/* Stops / restarts measurement of the whole process. */
void fold_pause(void);
void fold_resume(void);

#ifdef __cplusplus
}
#endif

#endif
