/* rt_source_papi.c: sampling on PAPI overflow of any event (EVENT@PERIOD).
 * (Filled in with the counter module; until then the source reports that it
 * is unavailable and the runtime continues without samples.) */
#include <errno.h>

#include "fold_rt.h"

static int papi_configure(void) { return -ENOSYS; }
static int papi_thread_start(fold_thread *t)
{
	(void)t;
	return 0;
}
static void papi_thread_stop(fold_thread *t) { (void)t; }

const fold_sample_source fold__source_papi = {
    .name = "papi",
    .configure = papi_configure,
    .thread_start = papi_thread_start,
    .thread_stop = papi_thread_stop,
    .rearm = papi_thread_stop,
};
