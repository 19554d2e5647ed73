/* fold_util.h: small helpers shared by the analysis modules. */
#ifndef FOLD_UTIL_H
#define FOLD_UTIL_H

#include <errno.h>
#include <stdlib.h>

/* Makes room for `need` elements of `elem` bytes in *buf (capacity *cap, in
 * elements), doubling. Returns 0 or -ENOMEM; *buf is unchanged on failure. */
static inline int fold__grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = *cap ? *cap * 2 : 16;
	while (n < need)
		n *= 2;
	void *nb = realloc(*buf, n * elem);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = n;
	return 0;
}

#endif
