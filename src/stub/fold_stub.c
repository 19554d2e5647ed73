/* fold_stub.c: no-op definitions of the fold API (libfold-stub.so).
 *
 * Programs link against this library so they run unchanged without fold.
 * When libfold.so is preloaded, its definitions of the same symbols come
 * first in the lookup order and the program is measured instead.
 * fold_region() and fold_counter() return 1 so ids are never 0 even here.
 */
#include "fold.h"

uint32_t fold_region(const char *name)
{
	(void)name;
	return 1;
}
void fold_enter(uint32_t region) { (void)region; }
void fold_exit(uint32_t region) { (void)region; }
uint32_t fold_counter(const char *name)
{
	(void)name;
	return 1;
}
void fold_count(uint32_t counter, uint64_t n)
{
	(void)counter;
	(void)n;
}
void fold_pause(void) {}
void fold_resume(void) {}
