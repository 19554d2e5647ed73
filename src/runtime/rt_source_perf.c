/* rt_source_perf.c: overflow sampling on a kernel perf event, without PAPI.
 *
 * Owns EVENT@PERIOD for events with a perf encoding (perf::TASK-CLOCK,
 * PAPI_TOT_CYC, ...; see rt_counters.c). PAPI would do the same through its
 * perf_event component, but that component is disabled on VMs where libpfm4
 * finds no PMU, and its dispatch frames push libunwind onto its slow path;
 * opening the event ourselves works on both. Other events go through PAPI
 * (rt_source_papi.c).
 *
 * Invariants (see also rt_signal.c):
 *  - One-shot: PERF_EVENT_IOC_REFRESH 1 arms exactly one overflow; the handler
 *    re-arms with a jittered PERF_EVENT_IOC_PERIOD then REFRESH (ioctl is
 *    async-signal-safe). A queue of signals can never build up, which is what
 *    livelocks this VM below ~50 us with a free-running event.
 *  - The fd is owned by its thread (F_SETOWN_EX F_OWNER_TID), close-on-exec,
 *    and closed before any exec, so the new image never gets our signal.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fold_rt.h"

static uint32_t ev_type;
static uint64_t ev_config;

static int perf_configure(void)
{
	if (rt__perf_encoding(rt__proc.cfg.sample_event, &ev_type, &ev_config, NULL))
		return -ENOENT;
	/* Try it once here, so an impossible event is reported at start. */
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = ev_type;
	attr.config = ev_config;
	attr.disabled = 1;
	int fd = rt__perf_open_for(&attr, -1);
	if (fd < 0) {
		if (errno == EACCES && rt__perf_kernel_side(ev_type, ev_config))
			rt__warn("FOLD_SAMPLE=%s: %s cannot be counted here: it %s", rt__proc.cfg.sample_spec,
			         rt__proc.cfg.sample_event, RT_PERF_KERNEL_SIDE_WHY);
		else
			rt__warn("FOLD_SAMPLE=%s: %s cannot be counted here (perf_event_open: %s)",
			         rt__proc.cfg.sample_spec, rt__proc.cfg.sample_event, strerror(errno));
		return -ENODEV;
	}
	close(fd);
	return 0;
}

static void perf_rearm(rt_thread *t)
{
	if (t->sample_fd < 0)
		return;
	uint64_t period = rt__next_period(t);
	ioctl(t->sample_fd, PERF_EVENT_IOC_PERIOD, &period);
	ioctl(t->sample_fd, PERF_EVENT_IOC_REFRESH, 1);
}

static int perf_thread_start(rt_thread *t)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = ev_type;
	attr.config = ev_config;
	attr.sample_period = rt__next_period(t);
	attr.disabled = 1;
	attr.wakeup_events = 1;
	if (!rt__fd_take(1)) {
		errno = EMFILE; /* fold's descriptor budget, 1/8 of RLIMIT_NOFILE */
		goto fail;
	}
	int fd = rt__perf_open_for(&attr, -1);
	if (fd < 0) {
		rt__fd_give(1);
		goto fail;
	}
	/* Into fold's range first: the signal's si_fd is the number O_ASYNC
	 * was set through. */
	fd = rt__fd_move(fd, &t->sample_fd);
	struct f_owner_ex owner = {F_OWNER_TID, t->tid};
	/* The system call: our own fcntl wrapper refuses fold's descriptors. */
	if (syscall(SYS_fcntl, fd, F_SETFL, O_ASYNC | O_NONBLOCK) ||
	    syscall(SYS_fcntl, fd, F_SETSIG, rt__proc.cfg.signo) ||
	    syscall(SYS_fcntl, fd, F_SETOWN_EX, &owner)) {
		rt__fd_close(&t->sample_fd);
		goto fail;
	}
	ioctl(fd, PERF_EVENT_IOC_REFRESH, 1);
	return 0;
fail : {
	static int warned;
	if (!warned++)
		rt__warn("perf overflow sampling could not start in thread %d (%s): it is not sampled",
		         (int)t->tid, strerror(errno));
	return -EIO;
}
}

static void perf_thread_stop(rt_thread *t)
{
	int fd = t->sample_fd;
	if (fd < 0)
		return;
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	rt__fd_close(&t->sample_fd);
}

const rt_sample_source rt__source_perf = {
    .name = "perf_event",
    .configure = perf_configure,
    .thread_start = perf_thread_start,
    .thread_stop = perf_thread_stop,
    .rearm = perf_rearm,
};
