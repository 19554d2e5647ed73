/* rt_papi.h: the few PAPI functions the runtime uses, loaded on demand. */
#ifndef FOLD_RT_PAPI_H
#define FOLD_RT_PAPI_H

#include <papi.h>
#include <stddef.h>

typedef struct rt_papi_api {
	int (*library_init)(int);
	int (*is_initialized)(void);
	int (*thread_init)(unsigned long (*)(void));
	int (*register_thread)(void);
	char *(*strerror)(int);
	int (*event_name_to_code)(const char *, int *);
	int (*event_code_to_name)(int, char *);
	int (*enum_event)(int *, int);
	int (*create_eventset)(int *);
	int (*add_event)(int, int);
	int (*start)(int);
	int (*stop)(int, long long *);
	int (*cleanup_eventset)(int);
	int (*destroy_eventset)(int *);
	int (*overflow)(int, int, int, int, PAPI_overflow_handler_t);
	void (*shutdown)(void);
} rt_papi_api;

/* Loads and initialises PAPI (library + threads) once; NULL with the reason
 * in why when it cannot. Not signal-safe. */
const rt_papi_api *rt__papi(char *why, size_t len);

#endif
