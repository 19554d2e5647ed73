/* region_suggest.h: the error for a --region that names no region, shared
 * by the analysis (region_match.c) and the exporters (export_data.c). */
#ifndef FOLD_REGION_SUGGEST_H
#define FOLD_REGION_SUGGEST_H

#include <stddef.h>

#include "util.h"

/* The errno a --region naming no region returns (the CLI exits 2 on it). */
#define REGION_UNKNOWN_ERRNO ESRCH

/* Writes into err "--region NAME: no region of that name in WHERE; nearest:
 * a, b, c (list them with fold profile)", WHERE being the trace or "the N
 * traces", the nearest (up to 3) among the n names name_of gives. Returns
 * -REGION_UNKNOWN_ERRNO. */
int region_suggest__unknown(char *err, size_t errlen, const char *region, util_nearest_name_fn name_of,
                    const void *arg, size_t n, const char *const *paths, size_t npaths);

#endif
