/* rt_papi.c: PAPI, loaded only when needed.
 *
 * Owns loading libpapi with dlopen the first time a PAPI-only feature is used
 * (overflow sampling on an event without a perf encoding). Linking it would
 * put libpapi and libpfm4 into every measured process: ~8 ms of relocations
 * and library init per process on this VM, paid by every exec'ed shell too.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fold_rt.h"
#include "rt_papi.h"

static rt_papi_api api;
static int state; /* 0 untried, 1 ok, -1 failed */
static char saved[256];

static unsigned long papi_thread_id(void) { return (unsigned long)syscall(SYS_gettid); }

#define LOAD(field, sym)                                                                                   \
	do {                                                                                               \
		*(void **)&api.field = dlsym(h, sym);                                                      \
		if (!api.field) {                                                                          \
			snprintf(saved, sizeof saved, "libpapi lacks %s", sym);                            \
			return -1;                                                                         \
		}                                                                                          \
	} while (0)

static int load(void)
{
	void *h = dlopen("libpapi.so.7.0", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = dlopen("libpapi.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		snprintf(saved, sizeof saved, "libpapi not found (%s)", dlerror());
		return -1;
	}
	LOAD(library_init, "PAPI_library_init");
	LOAD(is_initialized, "PAPI_is_initialized");
	LOAD(thread_init, "PAPI_thread_init");
	LOAD(register_thread, "PAPI_register_thread");
	LOAD(strerror, "PAPI_strerror");
	LOAD(event_name_to_code, "PAPI_event_name_to_code");
	LOAD(event_code_to_name, "PAPI_event_code_to_name");
	LOAD(enum_event, "PAPI_enum_event");
	LOAD(create_eventset, "PAPI_create_eventset");
	LOAD(add_event, "PAPI_add_event");
	LOAD(start, "PAPI_start");
	LOAD(stop, "PAPI_stop");
	LOAD(cleanup_eventset, "PAPI_cleanup_eventset");
	LOAD(destroy_eventset, "PAPI_destroy_eventset");
	LOAD(overflow, "PAPI_overflow");
	LOAD(shutdown, "PAPI_shutdown");
	int rc = api.is_initialized() ? (int)PAPI_VER_CURRENT : api.library_init(PAPI_VER_CURRENT);
	if (rc != PAPI_VER_CURRENT) {
		snprintf(saved, sizeof saved, "PAPI_library_init failed: %s",
		         rc > 0 ? "version mismatch" : api.strerror(rc));
		return -1;
	}
	if ((rc = api.thread_init(papi_thread_id)) != PAPI_OK) {
		snprintf(saved, sizeof saved, "PAPI_thread_init failed: %s", api.strerror(rc));
		return -1;
	}
	return 0;
}

const rt_papi_api *rt__papi(char *why, size_t len)
{
	if (state == 0)
		state = load() == 0 ? 1 : -1;
	if (state < 0) {
		if (why)
			snprintf(why, len, "%s", saved);
		return NULL;
	}
	return &api;
}

void rt__papi_after_fork(void)
{
	/* PAPI's per-thread state belongs to the parent's threads. */
	if (state > 0) {
		api.shutdown();
		state = 0;
	}
}
