/* rt_counters.c: hardware/software counters and app-defined counters.
 *
 * Owns which counters a thread records (its COUNTER_SET: hw/sw counters
 * first, then the app counters registered so far) and reading their values.
 *
 * Reading in the sample handler: PAPI_read may take locks and is not
 * async-signal-safe, so PAPI only decides what works (add + start, never
 * PAPI_query_event); values are read from a perf_event group opened by the
 * thread itself, with one read(2) (async-signal-safe) that returns every
 * member at once.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>

#include "fold_rt.h"

static pthread_mutex_t app_lock = PTHREAD_MUTEX_INITIALIZER;
static char app_names[FOLD_MAX_APP_COUNTERS][FOLD_NAME_MAX];
static _Atomic unsigned napp;
static unsigned nhw;
static int task_clock_index = -1;

unsigned fold__hw_counter_count(void) { return nhw; }
int fold__task_clock_index(void) { return task_clock_index; }
unsigned fold__app_counter_count(void) { return atomic_load(&napp); }

void fold__counters_init(void)
{
	/* Re-emit the app counter definitions (after fork, the new file). */
	unsigned n = atomic_load(&napp);
	for (unsigned i = 0; i < n; i++)
		fold__proc_counter_def(FOLD_APP_COUNTER_BASE + i, TRACE_COUNTER_APP, app_names[i]);
	fold__proc_info("counters.requested", fold__rt.cfg.counters);
	fold__proc_info("counters.mode", "none");
}

void fold__counters_thread_start(fold_thread *t) { t->nhw = 0; }
void fold__counters_thread_stop(fold_thread *t) { (void)t; }

uint32_t fold__app_counter_define(const char *name)
{
	uint32_t id = 0;
	pthread_mutex_lock(&app_lock);
	unsigned n = atomic_load(&napp);
	for (unsigned i = 0; i < n; i++)
		if (!strncmp(app_names[i], name, FOLD_NAME_MAX - 1)) {
			id = FOLD_APP_COUNTER_BASE + i;
			goto out;
		}
	if (n >= FOLD_MAX_APP_COUNTERS || nhw + n >= TRACE_MAX_COUNTERS) {
		static int warned;
		if (!warned++)
			fold__warn("fold_counter(\"%s\"): at most %u app counters; it is not recorded", name,
			           FOLD_MAX_APP_COUNTERS);
		goto out;
	}
	strncpy(app_names[n], name, FOLD_NAME_MAX - 1);
	id = FOLD_APP_COUNTER_BASE + n;
	if (atomic_load(&fold__rt.phase) == FOLD_RUNNING)
		fold__proc_counter_def(id, TRACE_COUNTER_APP, app_names[n]);
	atomic_store(&napp, n + 1);
out:
	pthread_mutex_unlock(&app_lock);
	return id;
}

void fold__counter_set_refresh(fold_thread *t)
{
	unsigned n = atomic_load_explicit(&napp, memory_order_acquire);
	if (n == t->napp_set && t->enc.nctr == t->nhw + n)
		return;
	uint32_t ids[TRACE_MAX_COUNTERS];
	unsigned k = 0;
	for (unsigned i = 0; i < t->nhw; i++)
		ids[k++] = 1 + i;
	for (unsigned i = 0; i < n && k < TRACE_MAX_COUNTERS; i++)
		ids[k++] = FOLD_APP_COUNTER_BASE + i;
	if (trace_enc_counter_set(&t->enc, ids, k) == -ENOSPC) {
		if (fold__thread_swap_buffer(t) || trace_enc_counter_set(&t->enc, ids, k))
			return;
	}
	t->napp_set = n;
}

unsigned fold__read_counters(fold_thread *t, uint64_t *values)
{
	unsigned k = 0;
	for (unsigned i = 0; i < t->nhw; i++)
		values[k++] = t->hw_last[i];
	for (unsigned i = 0; i < t->napp_set; i++)
		values[k++] = t->app[i];
	return k;
}
