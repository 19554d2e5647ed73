/* region_suggest.c: the error for a --region that names no region
 * (region_suggest.h): the nearest names by edit distance, so a typo shows
 * its correction. */
#include "region_suggest.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

int region_suggest__unknown(char *err, size_t errlen, const char *region, util_nearest_name_fn name_of,
                    const void *arg, size_t n, const char *const *paths, size_t npaths)
{
	char where[320];
	if (npaths == 1)
		snprintf(where, sizeof where, "%s", paths[0]);
	else
		snprintf(where, sizeof where, "the %zu traces", npaths);
	size_t idx[3];
	size_t k = util_nearest(region, name_of, arg, n, UINT_MAX, 3, idx);
	if (!k) {
		snprintf(err, errlen,
		         "--region %s: no region of that name in %s, which records no regions at all "
		         "(see fold profile)",
		         region, where);
		return -REGION_UNKNOWN_ERRNO;
	}
	util_buf b;
	util_buf_init(&b);
	util_buf_printf(&b, "--region %s: no region of that name in %s; nearest: ", region, where);
	for (size_t i = 0; i < k; i++)
		util_buf_printf(&b, "%s%s", i ? ", " : "", name_of(arg, idx[i]));
	util_buf_printf(&b, "%s (list them all with fold profile)", n > k ? ", ..." : "");
	snprintf(err, errlen, "%s", b.oom ? "--region: no region of that name" : b.data);
	util_buf_free(&b);
	return -REGION_UNKNOWN_ERRNO;
}
