/* rt_state.c: the process state every runtime module reads, and the
 * real-function resolver.
 *
 * rt__proc is the one process-wide state (configuration, clock, output
 * descriptor, process stream, sample source, totals; fold_rt.h says who
 * writes each part). rt__real finds the libc (or next library's) function
 * behind one of our interpositions.
 */
#include "fold_rt.h"

#include <dlfcn.h>

rt_process rt__proc = {.fd = -1, .rank = -1, .size = -1, .proc_lock = PTHREAD_MUTEX_INITIALIZER};

const char *const rt__drop_names[FOLD_DROP_NREASONS] = {
    "in_runtime", "in_dlopen", "buffer_full", "unwind_failed", "paused", "stopped", "signal_blocked",
};

const char *const rt__leaf_only_names[FOLD_LEAF_ONLY_NREASONS] = {"in_dlopen", "unwind_failed"};

void *rt__real(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	return p;
}
