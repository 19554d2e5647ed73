/* helpers.h: an always-inlined helper in another directory, so the tests
 * check that inline frames and call sites name the right file. The tests
 * find expected line numbers from the at-sign markers in comments. */
#ifndef SYMTEST_HELPERS_H
#define SYMTEST_HELPERS_H

extern volatile int sink;

static inline __attribute__((always_inline)) int helper_inner(int x)
{
	sink += x * 3; /* @inner_body */
	return sink;
}

#endif
