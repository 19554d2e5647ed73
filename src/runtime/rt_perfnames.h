/* rt_perfnames.h: perf_event encodings of PAPI presets and perf:: names. */
#ifndef FOLD_RT_PERFNAMES_H
#define FOLD_RT_PERFNAMES_H

#include <stdint.h>

struct rt_perf_name {
	const char *name; /* PAPI_* preset, or the part after "perf::" */
	uint32_t type;    /* PERF_TYPE_* */
	uint64_t config;
	int hardware;     /* 1 = needs a PMU */
};

extern const struct rt_perf_name rt__perf_names[];
extern const unsigned rt__perf_name_count;

/* Looks up "PAPI_TOT_INS" or "perf::TASK-CLOCK" (case-insensitive name);
 * returns 0 or -ENOENT. hardware may be NULL. */
int rt__perf_encoding(const char *name, uint32_t *type, uint64_t *config, int *hardware);

#endif
