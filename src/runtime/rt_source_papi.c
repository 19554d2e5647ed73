/* rt_source_papi.c: sampling on PAPI overflow of any event (EVENT@PERIOD).
 *
 * Owns one PAPI event set per thread holding the sampling event, with
 * PAPI_overflow calling on_overflow in the owning thread every PERIOD events
 * (perf::TASK-CLOCK@1000000 = every 1 ms of the thread's CPU time; a
 * hardware event such as PAPI_TOT_CYC@2000000 where a PMU exists).
 *
 * Invariants:
 *  - Event sets are created, started, stopped and destroyed by their own
 *    thread only (PAPI's rule); another thread never touches them.
 *  - on_overflow runs inside PAPI's signal handler and keeps the signal-path
 *    invariants of rt_signal.c: it only calls rt__sample.
 *  - Before exec the thread's event set is destroyed (its perf fds closed)
 *    and a pending overflow signal is consumed (rt_signal.c), so nothing
 *    reaches the new image. The period is not jittered: PAPI re-arms itself.
 */
#include <errno.h>
#include <papi.h>
#include <string.h>

#include "fold_rt.h"
#include "rt_papi.h"

static const rt_papi_api *P;

static int event_code;

static void on_overflow(int event_set, void *address, long long overflow_vector, void *context)
{
	(void)event_set;
	(void)address;
	(void)overflow_vector;
	int saved_errno = errno;
	rt_thread *t = rt__tls_thread;
	if (t)
		rt__sample(t, context);
	errno = saved_errno;
}

static int papi_configure(void)
{
	char why[160];
	const char *ev = rt__proc.cfg.sample_event;
	if (!(P = rt__papi(why, sizeof why))) {
		rt__warn("FOLD_SAMPLE=%s: %s", rt__proc.cfg.sample_spec, why);
		return -ENODEV;
	}
	int rc = P->event_name_to_code(ev, &event_code);
	if (rc != PAPI_OK) {
		if (rt__event_unknown(ev, why, sizeof why))
			rt__warn("FOLD_SAMPLE=%s: counter %s: %s", rt__proc.cfg.sample_spec, ev, why);
		else
			rt__warn("FOLD_SAMPLE=%s: PAPI does not know %s (%s); see foldrun --list-events",
			         rt__proc.cfg.sample_spec, ev, P->strerror(rc));
		return -ENOENT;
	}
	/* Add and start it once: PAPI_query_event cannot be trusted on VMs. */
	int es = PAPI_NULL;
	if ((rc = P->create_eventset(&es)) == PAPI_OK) {
		if ((rc = P->add_event(es, event_code)) == PAPI_OK) {
			if ((rc = P->start(es)) == PAPI_OK) {
				long long v;
				P->stop(es, &v);
			}
			P->cleanup_eventset(es);
		}
		P->destroy_eventset(&es);
	}
	if (rc != PAPI_OK) {
		rt__warn("FOLD_SAMPLE=%s: %s cannot be counted here (%s); see foldrun --list-events",
		         rt__proc.cfg.sample_spec, ev, P->strerror(rc));
		return -ENOENT;
	}
	rt__proc.cfg.jitter = 0; /* PAPI re-arms with a fixed threshold */
	rt__proc_info("sample.jitter", "0");
	return 0;
}

static int papi_thread_start(rt_thread *t)
{
	int es = PAPI_NULL, rc;
	if ((rc = P->register_thread()) != PAPI_OK && rc != PAPI_EINVAL)
		goto fail;
	if ((rc = P->create_eventset(&es)) != PAPI_OK)
		goto fail;
	if ((rc = P->add_event(es, event_code)) != PAPI_OK)
		goto fail_destroy;
	if ((rc = P->overflow(es, event_code, (int)rt__proc.cfg.period, 0, on_overflow)) != PAPI_OK)
		goto fail_cleanup;
	if ((rc = P->start(es)) != PAPI_OK)
		goto fail_overflow;
	t->papi_eventset = es;
	return 0;
fail_overflow:
	P->overflow(es, event_code, 0, 0, on_overflow);
fail_cleanup:
	P->cleanup_eventset(es);
fail_destroy:
	P->destroy_eventset(&es);
fail : {
	static int warned;
	if (!warned++)
		rt__warn("PAPI overflow sampling could not start in thread %d (%s): it is not sampled",
		         (int)t->tid, P->strerror(rc));
	return -EIO;
}
}

static void papi_thread_stop(rt_thread *t)
{
	int es = t->papi_eventset;
	if (es < 0)
		return;
	/* Only the owning thread may stop its event set; from elsewhere (the
	 * final flush) its overflows are simply dropped from now on. */
	if (rt__tls_thread != t)
		return;
	t->papi_eventset = -1;
	long long v;
	P->stop(es, &v);
	P->overflow(es, event_code, 0, 0, on_overflow);
	P->cleanup_eventset(es);
	P->destroy_eventset(&es);
}

static void papi_rearm(rt_thread *t)
{
	(void)t; /* PAPI re-arms itself */
}

const rt_sample_source rt__source_papi = {
    .name = "papi",
    .configure = papi_configure,
    .thread_start = papi_thread_start,
    .thread_stop = papi_thread_stop,
    .rearm = papi_rearm,
};
