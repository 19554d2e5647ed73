/* rt_counters.c: hardware/software counters and app-defined counters.
 *
 * Owns which counters a thread records (its COUNTER_SET: hw/sw counters
 * first, ids 1..n, then the app counters registered so far, ids 64..) and
 * reading their values.
 *
 * Deciding: a requested event counts only if it can actually be *opened and
 * started*: the test opens the kernel event exactly as PAPI's perf_event
 * component would (perf_event_open, then a read that must succeed), never
 * asks PAPI_query_event (which says yes to events a VM cannot count), and
 * needs no libpapi/libpfm in the process (loading them costs ~8 ms of
 * relocations per process here; PAPI is dlopen'ed only for PAPI overflow
 * sampling on an event without a perf encoding). The fallback chain is
 * hardware -> software (perf::TASK-CLOCK, perf::PAGE-FAULTS,
 * perf::CONTEXT-SWITCHES) -> none; every event left out gets a
 * COUNTER_MISSING record with the reason, and stderr hears about it once.
 *
 * Reading: PAPI_read may take locks and is not async-signal-safe, so it is
 * never used to read values. Each thread opens its counters itself with
 * perf_event_open (the same kernel events PAPI's perf_event component uses)
 * as one group, and a read(2) of the group leader returns every member at
 * once: one async-signal-safe syscall, callable from the sample handler.
 * That is why an event must also have a perf encoding: PAPI presets and
 * perf:: generic names are mapped below; other native names are reported
 * missing ("no signal-safe read path").
 *
 * The thread's CPU time (a sample's cpu_ns) comes from the same read: the
 * group's enabled time (PERF_FORMAT_TOTAL_TIME_ENABLED), which for a
 * per-thread event advances only while the thread runs (no clock_gettime
 * system call of its own). On a machine with a PMU whose pages allow it
 * (cap_user_rdpmc, cap_user_time), a group of hardware counters is read in
 * user space with rdpmc and the enabled time extrapolated from the TSC: no
 * system call at all; when a member is not on the PMU at that moment (or the
 * kernel withdraws user reading) that read falls back to read(2).
 * The trace says which in counters.read ("rdpmc" or "read").
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fold_rt.h"
#include "rt_sys.h"
#include "rt_papi.h"
#include "util_nearest.h"

#define DEFAULT_HARDWARE "PAPI_TOT_INS,PAPI_TOT_CYC,PAPI_L3_TCM"
#define DEFAULT_SOFTWARE "perf::TASK-CLOCK,perf::PAGE-FAULTS,perf::CONTEXT-SWITCHES"

typedef struct ctr_spec {
	char name[FOLD_NAME_MAX];
	uint32_t type;
	uint64_t config;
	int hardware;
} ctr_spec;

typedef struct ctr_missing {
	char name[FOLD_NAME_MAX];
	char reason[400];
} ctr_missing;

static ctr_spec active[FOLD_MAX_HW_COUNTERS];
static unsigned nhw;
/* The group the decision opened, kept for the thread that decided (its
 * counters: opening them again, and closing these, cost it 6 system calls
 * of ~20-100 us each on a VM); probe_tid 0 once adopted or closed. */
static int probe_fd[FOLD_MAX_HW_COUNTERS];
static pid_t probe_tid;
static ctr_missing missing[32];
static unsigned nmissing;
static int decided;
static int task_clock_index = -1;
static const char *mode_name = "none";
static char requested[512];

pthread_mutex_t rt__app_lock = PTHREAD_MUTEX_INITIALIZER; /* held across fork (rt_fork.c) */
#define app_lock rt__app_lock
static char app_names[FOLD_MAX_APP_COUNTERS][FOLD_NAME_MAX];
static _Atomic unsigned napp;

unsigned rt__hw_counter_count(void)
{
	return nhw;
}
unsigned rt__app_counter_count(void)
{
	return atomic_load(&napp);
}

/* ---------------------------------------------------------------- perf */

static int perf_encoding(const char *name, ctr_spec *out)
{
	if (rt__perf_encoding(name, &out->type, &out->config, &out->hardware))
		return -ENOENT;
	snprintf(out->name, sizeof out->name, "%s", name);
	return 0;
}

static int perf_open(const ctr_spec *c, int group_fd)
{
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof attr);
	attr.size = sizeof attr;
	attr.type = c->type;
	attr.config = c->config;
	/* The enabled time of a per-thread event advances only while the
	 * thread runs: the thread's CPU time, in the same read. */
	attr.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_TOTAL_TIME_ENABLED;
	return rt__perf_open_for(&attr, group_fd);
}

/* ---------------------------------------------------------------- deciding */

static void add_missing(const char *name, const char *reason)
{
	if (nmissing < sizeof missing / sizeof missing[0]) {
		snprintf(missing[nmissing].name, sizeof missing[nmissing].name, "%s", name);
		snprintf(missing[nmissing].reason, sizeof missing[nmissing].reason, "%s", reason);
		nmissing++;
	}
}

/* ---------------------------------------------------------------- names */

/* The names a counter may be given by, for "did you mean": the perf table's
 * (presets as they are, generic names as perf::NAME) and every PAPI preset
 * when libpapi loads (PAPI_enum_event: also those this machine lacks).
 * Filled once, on the first unknown name; static, no allocation. */
static char known_names[192][40];
static unsigned nknown;

static int is_known_name(const char *name)
{
	for (unsigned i = 0; i < nknown; i++)
		if (!strcasecmp(known_names[i], name))
			return 1;
	return 0;
}

static void add_known_name(const char *prefix, const char *name)
{
	if (nknown < sizeof known_names / sizeof known_names[0])
		snprintf(known_names[nknown++], sizeof known_names[0], "%.8s%.31s", prefix, name);
}

static void collect_known_names(const rt_papi_api *papi)
{
	if (nknown)
		return;
	for (unsigned i = 0; i < rt__perf_name_count; i++) {
		const char *n = rt__perf_names[i].name;
		add_known_name(strncmp(n, "PAPI_", 5) ? "perf::" : "", n);
	}
	int code = PAPI_PRESET_MASK;
	if (!papi || papi->enum_event(&code, PAPI_ENUM_FIRST) != PAPI_OK)
		return;
	do {
		char name[PAPI_MAX_STR_LEN];
		if (papi->event_code_to_name(code, name) == PAPI_OK && !is_known_name(name))
			add_known_name("", name);
	} while (papi->enum_event(&code, PAPI_ENUM_EVENTS) == PAPI_OK);
}

static const char *known_name(const void *arg, size_t i)
{
	(void)arg;
	return known_names[i];
}

int rt__event_unknown(const char *name, char *why, size_t len)
{
	uint32_t type;
	uint64_t config;
	if (!rt__perf_encoding(name, &type, &config, NULL))
		return 0;
	const rt_papi_api *papi = rt__papi(NULL, 0);
	collect_known_names(papi);
	if (is_known_name(name))
		return 0;
	/* A native event (pmu::EVENT): known when PAPI knows it; without PAPI,
	 * it cannot be told from a typo, so it is not called one. */
	int code;
	if (strstr(name, "::") && strncmp(name, "perf::", 6) &&
	    (!papi || papi->event_name_to_code(name, &code) == PAPI_OK))
		return 0;
	size_t idx[2];
	size_t got = util_nearest(name, known_name, NULL, nknown, util_typo_bound(name), 2, idx);
	if (got == 2 &&
	    util_edit_distance(name, known_names[idx[1]]) > util_edit_distance(name, known_names[idx[0]]) + 1)
		got = 1;
	if (got == 2)
		snprintf(why, len, "unknown event (did you mean %s, %s?)", known_names[idx[0]],
		         known_names[idx[1]]);
	else if (got == 1)
		snprintf(why, len, "unknown event (did you mean %s?)", known_names[idx[0]]);
	else
		snprintf(why, len, "unknown event (foldrun --list-events lists them)");
	return 1;
}

/* Tries every name of a comma list; returns how many were activated. */
static unsigned try_list(const char *list)
{
	char copy[512];
	snprintf(copy, sizeof copy, "%s", list);
	unsigned got = 0;
	for (char *save, *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ')
			tok++;
		char *end = tok + strlen(tok);
		while (end > tok && end[-1] == ' ')
			*--end = 0;
		if (!*tok)
			continue;
		ctr_spec c;
		char why[256];
		if (nhw >= FOLD_MAX_HW_COUNTERS) {
			add_missing(tok, "too many counters (at most 8)");
			continue;
		}
		if (perf_encoding(tok, &c)) {
			if (rt__event_unknown(tok, why, sizeof why)) {
				/* A typo is said on its own line, whatever else is counted. */
				if (rt__notice_wanted())
					rt__warn("counter %s: %s", tok, why);
				add_missing(tok, why);
			} else {
				add_missing(
				    tok, "no async-signal-safe read path for this event (use a PAPI preset "
				         "or a perf:: generic event)");
			}
			continue;
		}
		/* Opened as the thread's group will be (a member of the events
		 * opened so far): what cannot join it cannot be counted. */
		int fd = perf_open(&c, nhw ? probe_fd[0] : -1);
		uint64_t probe[2 + FOLD_MAX_HW_COUNTERS]; /* { nr, time_enabled, values } */
		if (fd < 0 || read(fd, probe, sizeof probe) < (ssize_t)sizeof(uint64_t)) {
			if (fd < 0 && errno == EACCES && rt__perf_kernel_side(c.type, c.config))
				snprintf(why, sizeof why, "cannot be counted here: it %s",
				         RT_PERF_KERNEL_SIDE_WHY);
			else
				snprintf(why, sizeof why, "cannot be counted here (perf_event_open: %s)",
				         strerror(fd < 0 ? errno : EIO));
			if (fd >= 0)
				close(fd);
			add_missing(tok, why);
			continue;
		}
		probe_fd[nhw] = fd;
		active[nhw++] = c;
		got++;
	}
	return got;
}

static void emit_definitions(void)
{
	for (unsigned i = 0; i < nhw; i++)
		rt__proc_counter_def(1 + i,
		                     active[i].hardware ? TRACE_COUNTER_HARDWARE : TRACE_COUNTER_SOFTWARE,
		                     active[i].name);
	for (unsigned i = 0; i < nmissing; i++)
		rt__proc_counter_missing(missing[i].name, missing[i].reason);
	unsigned n = atomic_load(&napp);
	for (unsigned i = 0; i < n; i++)
		rt__proc_counter_def(FOLD_APP_COUNTER_BASE + i, TRACE_COUNTER_APP, app_names[i]);
	rt__proc_info("counters.requested", requested);
	rt__proc_info("counters.mode", mode_name);
}

/* What the parent process shows of fold, from /proc/PPID/maps: whether it
 * maps the same libfold.so (it runs under fold), and the stop figure it
 * published (rt_source_time.c: a mapping named RT_STOP_MAP_PREFIX...). One
 * read of the file, by whoever asks first (the notice check at start, or
 * the stop figure at a safe point), not in a signal handler. */
static rt_parent_view parent_view;
static _Atomic int parent_read; /* 0 not yet, 1 reading, 2 read */

/* One line of the maps file (NUL-terminated, without its newline). */
static void parent_line(const char *line, const char *lib)
{
	if (!parent_view.under_fold && strstr(line, lib))
		parent_view.under_fold = 1;
	const char *m = strstr(line, "/memfd:" RT_STOP_MAP_PREFIX);
	long long onset;
	unsigned long long ret;
	unsigned n;
	if (m && !parent_view.has_stop &&
	    sscanf(m + 7 + strlen(RT_STOP_MAP_PREFIX), "%lld:%llu:%u", &onset, &ret, &n) == 3) {
		parent_view.stop_onset = onset;
		parent_view.stop_return = ret;
		parent_view.stop_probes = n;
		parent_view.has_stop = 1;
	}
}

static void parent_scan(void)
{
	Dl_info di;
	if (!dladdr((void *)parent_scan, &di) || !di.dli_fname || !*di.dli_fname)
		return;
	char path[64];
	snprintf(path, sizeof path, "/proc/%d/maps", (int)getppid());
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	char buf[8192];
	size_t have = 0;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof buf - 1 - have);
		if (n <= 0)
			break;
		have += (size_t)n;
		buf[have] = 0;
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n'))) {
			*nl = 0;
			parent_line(line, di.dli_fname);
			line = nl + 1;
		}
		if (parent_view.under_fold && parent_view.has_stop)
			break;
		/* Keep the unfinished line; one longer than the buffer is cut. */
		have = strlen(line);
		if (have >= sizeof buf / 2)
			have = 0;
		memmove(buf, line, have);
	}
	close(fd);
}

const rt_parent_view *rt__parent_view(int may_read)
{
	int expect = 0;
	if (may_read && atomic_compare_exchange_strong(&parent_read, &expect, 1)) {
		parent_scan();
		atomic_store(&parent_read, 2);
	}
	return atomic_load(&parent_read) == 2 ? &parent_view : NULL;
}

void rt__parent_view_forget(void)
{
	memset(&parent_view, 0, sizeof parent_view);
	atomic_store(&parent_read, 0);
}

/* The start-up notices (counters, unknown FOLD_* variables) are said once
 * per run, not by every process of it:
 * not by a later exec generation, nor by a process whose parent runs under
 * fold too (it said the same; its environment is ours). */
int rt__notice_wanted(void)
{
	static int wanted = -1;
	if (wanted < 0) {
		const rt_parent_view *pv = rt__proc.cfg.exec_generation ? NULL : rt__parent_view(1);
		wanted = rt__proc.cfg.exec_generation == 0 && !(pv && pv->under_fold);
	}
	return wanted;
}

static void decide(void)
{
	const rt_config *cfg = &rt__proc.cfg;
	const char *list = cfg->counters_default ? DEFAULT_HARDWARE : cfg->counters;
	snprintf(requested, sizeof requested, "%s", list);
	if (!cfg->counters_default && (!*list || !strcmp(list, "none") || !strcmp(list, "off"))) {
		mode_name = "none";
		return;
	}
	try_list(list);
	int any_hw = 0;
	for (unsigned i = 0; i < nhw; i++)
		any_hw |= active[i].hardware;
	/* The notices name the first event left out for another reason than a
	 * typo (each typo had its own line). */
	unsigned m = 0;
	while (m < nmissing && !strncmp(missing[m].reason, "unknown event", 13))
		m++;
	if (nhw == 0) {
		try_list(DEFAULT_SOFTWARE);
		if (nhw) {
			mode_name = "software";
			/* The default falling back on a machine without a PMU is expected;
			 * an explicit request that could not be met is worth a line. */
			if ((!cfg->counters_default || !cfg->quiet) && rt__notice_wanted() && m < nmissing)
				rt__warn(
				    "no requested counter can be counted here (%s: %s); recording software "
				    "counters %s",
				    missing[m].name, missing[m].reason, DEFAULT_SOFTWARE);
			else if (rt__notice_wanted() && m == nmissing)
				rt__warn(
				    "no requested counter is a known event; recording software counters %s",
				    DEFAULT_SOFTWARE);
		} else {
			mode_name = "none";
			if (rt__notice_wanted())
				rt__warn("no counters can be counted here (%s: %s); sampling with time only",
				         nmissing ? missing[0].name : "?",
				         nmissing ? missing[0].reason : "?");
		}
	} else {
		mode_name = any_hw ? "hardware" : "software";
		if (m < nmissing && rt__notice_wanted())
			rt__warn("counter %s is not recorded: %s%s", missing[m].name, missing[m].reason,
			         nmissing > m + 1 ? " (and others: see the trace's COUNTER_MISSING records)"
			                          : "");
	}
	for (unsigned i = 0; i < nhw; i++)
		if (active[i].type == PERF_TYPE_SOFTWARE && active[i].config == PERF_COUNT_SW_TASK_CLOCK)
			task_clock_index = (int)i;
}

/* Closes the decision's group unless the thread that decided took it. */
static void probe_release(void)
{
	for (unsigned i = 0; probe_tid && i < nhw; i++)
		close(probe_fd[i]);
	probe_tid = 0;
}

void rt__counters_probe_done(void)
{
	probe_release();
}

static void read_hw(rt_thread *t);

void rt__counters_init(void)
{
	/* Decided once per process; a fork child re-emits the same set. */
	if (!decided) {
		decide();
		decided = 1;
		probe_tid = nhw ? (pid_t)syscall(SYS_gettid) : 0;
	}
	emit_definitions();
	rt__proc.counters_mode = !strcmp(mode_name, "hardware") ? 2 : !strcmp(mode_name, "software") ? 1 : 0;
}

/* ---------------------------------------------------------------- per thread */

static void unmap_pages(rt_thread *t)
{
	for (unsigned i = 0; i < FOLD_MAX_HW_COUNTERS; i++)
		if (t->perf_page[i]) {
			munmap(t->perf_page[i], (size_t)sysconf(_SC_PAGESIZE));
			t->perf_page[i] = NULL;
		}
	t->rdpmc = 0;
}

static _Atomic uint64_t threads_over_budget;

uint64_t rt__counters_threads_over_budget(void)
{
	return atomic_load(&threads_over_budget);
}

void rt__counters_thread_stop(rt_thread *t)
{
	unmap_pages(t);
	for (unsigned i = 0; i < FOLD_MAX_HW_COUNTERS; i++)
		if (t->perf_fd[i] >= 0)
			rt__fd_close(&t->perf_fd[i]);
	t->nhw = 0;
	t->cpu_known = 0;
}

/* Takes one descriptor of fold's budget; 0 if there is none left. */
static int budget_take(void)
{
	return rt__fd_take(1);
}

/* Every member's page is mapped: it keeps the member alive once its
 * descriptor is closed (a mapping holds the event's file), so a thread
 * costs one descriptor, its group leader, however many counters it has.
 * User-space reading (rdpmc) needs every member to be a PMU counter whose
 * page offers rdpmc, and the leader's page the TSC conversion that turns its
 * enabled time into the thread's CPU time. Checked once per thread; whether
 * a member is on the PMU right now is checked at every read. */
static int map_pages(rt_thread *t, int *fds)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	int rdpmc = 1;
	for (unsigned i = 0; i < t->nhw; i++) {
		void *p = mmap(NULL, page, PROT_READ, MAP_SHARED, fds[i], 0);
		if (p == MAP_FAILED) {
			rdpmc = 0;
			continue;
		}
		t->perf_page[i] = p;
		if (!active[i].hardware || !t->perf_page[i]->cap_user_rdpmc ||
		    (i == 0 && !t->perf_page[0]->cap_user_time))
			rdpmc = 0;
	}
	return rdpmc;
}

void rt__counters_thread_start(rt_thread *t)
{
	/* After fork the fds are the parent thread's counters: replace them. */
	rt__counters_thread_stop(t);
	memset(t->hw_last, 0, sizeof t->hw_last);
	t->ctr_gone = 0;
	if (!nhw)
		return;
	int adopt = probe_tid && probe_tid == t->tid;
	if (!adopt)
		probe_release();
	if (!budget_take()) {
		probe_release();
		if (atomic_fetch_add(&threads_over_budget, 1) == 0)
			rt__warn(
			    "more than %u threads alive at once: the threads beyond that record no counters "
			    "(fold keeps all its descriptors to 1/8 of RLIMIT_NOFILE)",
			    rt__fd_budget());
		return;
	}
	int fds[FOLD_MAX_HW_COUNTERS] = {-1, -1, -1, -1, -1, -1, -1, -1};
	if (adopt) {
		/* The decision's group: counted from now on. Its CPU time (enabled
		 * time, which a reset keeps) is read as the base of the first
		 * sample's (rt__cpu_base). */
		memcpy(fds, probe_fd, sizeof fds);
		probe_tid = 0;
		ioctl(fds[0], PERF_EVENT_IOC_RESET, PERF_IOC_FLAG_GROUP);
		t->nhw = nhw;
		t->perf_fd[0] = fds[0];
		read_hw(t);
		t->perf_fd[0] = -1;
		memset(t->hw_last, 0, sizeof t->hw_last);
		goto opened;
	}
	for (unsigned i = 0; i < nhw; i++) {
		fds[i] = perf_open(&active[i], i ? fds[0] : -1);
		if (fds[i] < 0) {
			static int warned;
			if (!warned++)
				rt__warn(
				    "perf_event_open(%s) failed in thread %d (%s): that thread records no "
				    "hardware/software counters",
				    active[i].name, (int)t->tid, strerror(errno));
			for (unsigned k = 0; k < i; k++)
				close(fds[k]);
			rt__fd_give(1);
			return;
		}
	}
opened:
	t->nhw = nhw;
	int rdpmc = map_pages(t, fds);
	rt__fd_move(fds[0], &t->perf_fd[0]);
	for (unsigned i = 1; i < nhw; i++) {
		if (t->perf_page[i]) {
			close(fds[i]); /* alive through its page */
		} else if (budget_take()) {
			rt__fd_move(fds[i], &t->perf_fd[i]);
		} else {
			/* Neither a page nor a descriptor: no counters for this thread. */
			for (unsigned k = i; k < nhw; k++)
				close(fds[k]);
			rt__counters_thread_stop(t);
			return;
		}
	}
	t->rdpmc = rdpmc;
	static int said;
	if (!said++)
		rt__proc_info("counters.read", t->rdpmc ? "rdpmc" : "read");
}

#if defined(__x86_64__) || defined(__i386__)
static inline uint64_t rdpmc(uint32_t counter)
{
	uint32_t lo, hi;
	__asm__ volatile("rdpmc" : "=a"(lo), "=d"(hi) : "c"(counter));
	return (uint64_t)hi << 32 | lo;
}

/* Reads every member and the thread's CPU time from the mmap'ed pages, as
 * include/uapi/linux/perf_event.h describes; -1 when a member is not on the
 * PMU right now (multiplexed out) or user reading is withdrawn: then read(2). */
static int read_rdpmc(rt_thread *t)
{
	uint64_t vals[FOLD_MAX_HW_COUNTERS], cpu = 0;
	for (unsigned i = 0; i < t->nhw; i++) {
		volatile struct perf_event_mmap_page *pc = t->perf_page[i];
		uint32_t seq;
		do {
			seq = pc->lock;
			atomic_signal_fence(memory_order_seq_cst);
			uint32_t idx = pc->index;
			if (!pc->cap_user_rdpmc || !idx)
				return -1;
			int64_t pmc = (int64_t)rdpmc(idx - 1);
			unsigned width = pc->pmc_width;
			if (width && width < 64) /* sign-extend the counter's width */
				pmc = (int64_t)((uint64_t)pmc << (64 - width)) >> (64 - width);
			vals[i] = (uint64_t)(pc->offset + pmc);
			if (i == 0) {
				if (!pc->cap_user_time)
					return -1;
				uint64_t cyc = __builtin_ia32_rdtsc();
				if (pc->cap_user_time_short)
					cyc = pc->time_cycles + ((cyc - pc->time_cycles) & pc->time_mask);
				uint16_t shift = pc->time_shift;
				uint32_t mult = pc->time_mult;
				uint64_t quot = cyc >> shift, rem = cyc & (((uint64_t)1 << shift) - 1);
				cpu = pc->time_enabled + pc->time_offset + quot * mult +
				      ((rem * mult) >> shift);
			}
			atomic_signal_fence(memory_order_seq_cst);
		} while (pc->lock != seq);
	}
	for (unsigned i = 0; i < t->nhw; i++)
		t->hw_last[i] = vals[i];
	t->cpu_last = cpu;
	t->cpu_known = 1;
	return 0;
}
#else
static int read_rdpmc(rt_thread *t)
{
	(void)t;
	return -1;
}
#endif

/* Async-signal-safe: user-space reads, or one read(2) of the group leader. */
static void read_hw(rt_thread *t)
{
	if (t->rdpmc && read_rdpmc(t) == 0)
		return;
	if (FOLD_UNLIKELY(t->ctr_gone)) /* the last values stay: counters stay monotonic */
		return;
	/* { nr, time_enabled, value[nr] } */
	uint64_t buf[2 + FOLD_MAX_HW_COUNTERS];
	t->cpu_known = 0;
	ssize_t n = rt__sys_read(t->perf_fd[0], buf, (2 + t->nhw) * sizeof(uint64_t));
	if (n == -EBADF || (n >= (ssize_t)sizeof(uint64_t) && buf[0] != t->nhw)) {
		/* Not the thread's counter group any more: closed behind fold's
		 * back (a raw close_range), maybe the program's file at that
		 * number now. Never read it again (rt_fd.c: not closed either). */
		t->ctr_gone = 1;
		return;
	}
	if (n < (ssize_t)(2 * sizeof(uint64_t)))
		return; /* keep the last values: counters stay monotonic */
	uint64_t k = buf[0] < t->nhw ? buf[0] : t->nhw;
	if ((size_t)n < (2 + k) * sizeof(uint64_t))
		return;
	for (uint64_t i = 0; i < k; i++)
		t->hw_last[i] = buf[2 + i];
	t->cpu_last = buf[1];
	t->cpu_known = 1;
}

unsigned rt__read_counters(rt_thread *t, uint64_t *values)
{
	unsigned k = 0;
	if (t->nhw && !t->sandboxed) {
		int saved = errno;
		read_hw(t);
		errno = saved;
	}
	for (unsigned i = 0; i < t->nhw; i++)
		values[k++] = t->hw_last[i];
	for (unsigned i = 0; i < t->napp_set; i++)
		values[k++] = t->app[i];
	return k;
}

/* ---------------------------------------------------------------- app counters */

uint32_t rt__app_counter_define(const char *name)
{
	uint32_t id = 0;
	rt__lock(&app_lock);
	unsigned n = atomic_load(&napp);
	for (unsigned i = 0; i < n; i++)
		if (!strncmp(app_names[i], name, FOLD_NAME_MAX - 1)) {
			id = FOLD_APP_COUNTER_BASE + i;
			goto out;
		}
	if (n >= FOLD_MAX_APP_COUNTERS || nhw + n >= TRACE_MAX_COUNTERS) {
		static int warned;
		if (!warned++)
			rt__warn("fold_counter(\"%s\"): at most %u app counters; it is not recorded", name,
			         FOLD_MAX_APP_COUNTERS);
		goto out;
	}
	snprintf(app_names[n], FOLD_NAME_MAX, "%s", name);
	id = FOLD_APP_COUNTER_BASE + n;
	if (atomic_load(&rt__proc.phase) == FOLD_RUNNING)
		rt__proc_counter_def(id, TRACE_COUNTER_APP, app_names[n]);
	atomic_store(&napp, n + 1);
out:
	rt__unlock(&app_lock);
	return id;
}

void rt__counter_set_refresh(rt_thread *t)
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
		if (rt__thread_swap_buffer(t) || trace_enc_counter_set(&t->enc, ids, k))
			return;
	}
	t->napp_set = n;
}
