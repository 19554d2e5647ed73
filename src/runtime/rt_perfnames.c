/* rt_perfnames.c: perf_event encodings of PAPI presets and perf:: names.
 *
 * Owns the table that lets the runtime read a counter (or sample on it) with
 * perf_event_open directly, which is what makes reading from the sample
 * handler async-signal-safe. Shared by libfold.so and foldrun --list-events.
 * Presets are spelled PAPI_*, kernel generic events perf::NAME (the names
 * PAPI's perf_event component uses).
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "rt_perfnames.h"

const struct rt_perf_name rt__perf_names[] = {
#define HWC(id, op, res) (PERF_COUNT_HW_CACHE_##id | (PERF_COUNT_HW_CACHE_OP_##op << 8) | \
                          (PERF_COUNT_HW_CACHE_RESULT_##res << 16))
    {"PAPI_TOT_INS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1},
    {"PAPI_TOT_CYC", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1},
    {"PAPI_REF_CYC", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 1},
    {"PAPI_L3_TCM", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1},
    {"PAPI_L3_TCA", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1},
    {"PAPI_BR_INS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1},
    {"PAPI_BR_MSP", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1},
    {"PAPI_L1_DCM", PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS), 1},
    {"PAPI_L1_ICM", PERF_TYPE_HW_CACHE, HWC(L1I, READ, MISS), 1},
    {"PAPI_TLB_DM", PERF_TYPE_HW_CACHE, HWC(DTLB, READ, MISS), 1},
    {"CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1},
    {"CPU-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES, 1},
    {"INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS, 1},
    {"CACHE-REFERENCES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES, 1},
    {"CACHE-MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES, 1},
    {"BRANCHES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1},
    {"BRANCH-INSTRUCTIONS", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS, 1},
    {"BRANCH-MISSES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES, 1},
    {"BUS-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BUS_CYCLES, 1},
    {"REF-CYCLES", PERF_TYPE_HARDWARE, PERF_COUNT_HW_REF_CPU_CYCLES, 1},
    {"STALLED-CYCLES-FRONTEND", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1},
    {"STALLED-CYCLES-BACKEND", PERF_TYPE_HARDWARE, PERF_COUNT_HW_STALLED_CYCLES_BACKEND, 1},
    {"L1-DCACHE-LOAD-MISSES", PERF_TYPE_HW_CACHE, HWC(L1D, READ, MISS), 1},
    {"L1-DCACHE-LOADS", PERF_TYPE_HW_CACHE, HWC(L1D, READ, ACCESS), 1},
    {"LLC-LOAD-MISSES", PERF_TYPE_HW_CACHE, HWC(LL, READ, MISS), 1},
    {"LLC-LOADS", PERF_TYPE_HW_CACHE, HWC(LL, READ, ACCESS), 1},
    {"CPU-CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK, 0},
    {"TASK-CLOCK", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK, 0},
    {"PAGE-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
    {"FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS, 0},
    {"CONTEXT-SWITCHES", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0},
    {"CS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES, 0},
    {"CPU-MIGRATIONS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0},
    {"MIGRATIONS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS, 0},
    {"MINOR-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN, 0},
    {"MAJOR-FAULTS", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ, 0},
#undef HWC
};

const unsigned rt__perf_name_count = sizeof rt__perf_names / sizeof rt__perf_names[0];

int rt__perf_encoding(const char *name, uint32_t *type, uint64_t *config, int *hardware)
{
	const char *n = name;
	int is_perf = !strncmp(n, "perf::", 6);
	if (is_perf)
		n += 6;
	for (unsigned i = 0; i < rt__perf_name_count; i++) {
		int preset = !strncmp(rt__perf_names[i].name, "PAPI_", 5);
		if (preset == is_perf)
			continue; /* presets without perf::, generic names with it */
		if (!strcasecmp(n, rt__perf_names[i].name)) {
			*type = rt__perf_names[i].type;
			*config = rt__perf_names[i].config;
			if (hardware)
				*hardware = rt__perf_names[i].hardware;
			return 0;
		}
	}
	return -ENOENT;
}

int rt__perf_kernel_side(uint32_t type, uint64_t config)
{
	return type == PERF_TYPE_SOFTWARE &&
	       (config == PERF_COUNT_SW_CONTEXT_SWITCHES || config == PERF_COUNT_SW_CPU_MIGRATIONS ||
	        config == 11 /* PERF_COUNT_SW_CGROUP_SWITCHES, Linux 5.13 */);
}

int rt__perf_open_for(struct perf_event_attr *attr, int group_fd)
{
	int software = attr->type == PERF_TYPE_SOFTWARE;
	attr->exclude_hv = 1;
	attr->exclude_kernel = !software;
	int fd = (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
	if (fd >= 0 || !software || (errno != EACCES && errno != EPERM))
		return fd;
	if (rt__perf_kernel_side(attr->type, attr->config)) {
		errno = EACCES;
		return -1;
	}
	attr->exclude_kernel = 1;
	return (int)syscall(SYS_perf_event_open, attr, 0, -1, group_fd, PERF_FLAG_FD_CLOEXEC);
}
