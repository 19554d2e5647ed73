/* rt_state.c: the process state every runtime module reads, and the
 * real-function resolver.
 *
 * fold__rt is the one process-wide state (configuration, clock, output
 * descriptor, process stream, sample source, totals; fold_rt.h says who
 * writes each part). fold__real finds the libc (or next library's) function
 * behind one of our interpositions.
 */
#include "fold_rt.h"

#include <dlfcn.h>

fold_rt fold__rt = {.fd = -1, .rank = -1, .size = -1, .proc_lock = PTHREAD_MUTEX_INITIALIZER};

const char *const fold__drop_names[FOLD_DROP_NREASONS] = {
    "in_runtime", "in_dlopen", "buffer_full", "unwind_failed", "paused", "stopped", "signal_blocked",
};

void *fold__real(const char *name)
{
	void *p = dlsym(RTLD_NEXT, name);
	return p;
}
