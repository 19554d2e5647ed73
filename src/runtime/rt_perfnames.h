/* rt_perfnames.h: perf_event encodings of PAPI presets and perf:: names. */
#ifndef FOLD_RT_PERFNAMES_H
#define FOLD_RT_PERFNAMES_H

#include <stdint.h>

struct perf_event_attr;

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

/* Is (type, config) a software event the kernel counts only in its own
 * context (a context switch, a migration), so that a user-space-only event
 * (exclude_kernel) counts none of it? */
int rt__perf_kernel_side(uint32_t type, uint64_t config);

/* perf_event_open(attr, this thread, any CPU, group_fd, CLOEXEC) with the
 * privilege level the event needs to count what its name says: software
 * events count the kernel's work on the thread's behalf too (a page fault
 * taken inside a system call, a context switch), where perf_event_paranoid
 * or CAP_PERFMON allow; otherwise user space only, except for a kernel-side
 * event (rt__perf_kernel_side), which would read 0 throughout and fails with
 * EACCES instead. Hardware events count user space only. Sets
 * attr->exclude_kernel and exclude_hv. Returns the descriptor or -1 with
 * errno set. No allocation; safe to call before the program runs. */
int rt__perf_open_for(struct perf_event_attr *attr, int group_fd);

/* Why rt__perf_open_for refused a kernel-side event (EACCES), for messages. */
#define RT_PERF_KERNEL_SIDE_WHY                                                                              \
	"counts only what the kernel does for the thread, and perf_event_paranoid (or a missing "            \
	"CAP_PERFMON) allows user-space counting only here: it would read 0 throughout (needs "              \
	"perf_event_paranoid <= 1)"

#endif
