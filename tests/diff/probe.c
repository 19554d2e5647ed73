/* probe.c: what a program observes of its own process, written at start and
 * at exit, so the differential runner (run.py) can compare it with and
 * without fold.
 *
 * Linked into every C, C++ and Fortran program of the corpus (unless its
 * header says probe=no). Inert unless DIFF_PROBE names a file prefix: the
 * constructor then removes DIFF_PROBE from the environment (the program and
 * its children never see it), writes PREFIX.start, and the destructor writes
 * PREFIX.exit (exit() and return from main; not _exit, not a signal).
 * Only the process that read the variable writes: a forked child does not.
 *
 * Everything is read through the C library's interfaces, the ones a program
 * uses (sigaction, sigprocmask, fcntl, getrlimit, ...), never /proc's view of
 * the kernel, except the thread count. Lines are "key value", one fact each,
 * in a fixed order; values that differ between any two runs (addresses,
 * paths of the scratch directory) are written so the runner can normalise
 * them (handlers as "fn", paths as they are: the runner replaces the scratch
 * directory).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static char probe_prefix[4096];
static pid_t probe_pid;

/* Formatting without stdio: the program may have closed or redirected
 * stdout, and the probe must not touch its buffers. */
typedef struct pbuf {
	char *p;
	size_t n, cap;
} pbuf;

static void put(pbuf *b, const char *s)
{
	size_t l = strlen(s);
	if (b->n + l + 1 > b->cap) {
		size_t cap = (b->cap ? b->cap * 2 : 16384) + l;
		char *q = realloc(b->p, cap);
		if (!q)
			return;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->n, s, l);
	b->n += l;
}

static void putf(pbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(pbuf *b, const char *fmt, ...)
{
	char line[8192];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof line, fmt, ap);
	va_end(ap);
	put(b, line);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void env_lines(pbuf *b)
{
	size_t n = 0;
	for (char **e = environ; e && *e; e++)
		n++;
	char **v = malloc((n + 1) * sizeof *v);
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		v[i] = environ[i];
	qsort(v, n, sizeof *v, cmp_str);
	for (size_t i = 0; i < n; i++)
		putf(b, "env %s\n", v[i]);
	free(v);
}

static const char *fd_type(mode_t m)
{
	if (S_ISREG(m))
		return "file";
	if (S_ISDIR(m))
		return "dir";
	if (S_ISCHR(m))
		return "chr";
	if (S_ISFIFO(m))
		return "fifo";
	if (S_ISSOCK(m))
		return "sock";
	return "other";
}

static void fd_lines(pbuf *b)
{
	struct rlimit rl;
	long max = 1024;
	if (!getrlimit(RLIMIT_NOFILE, &rl) && rl.rlim_cur != RLIM_INFINITY && (long)rl.rlim_cur < 65536)
		max = (long)rl.rlim_cur;
	for (int fd = 0; fd < max; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if (fl < 0)
			continue;
		int st = fcntl(fd, F_GETFL);
		struct stat sb;
		const char *type = fstat(fd, &sb) ? "?" : fd_type(sb.st_mode);
		char link[64], target[4096] = "";
		snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
		ssize_t l = readlink(link, target, sizeof target - 1);
		target[l > 0 ? l : 0] = 0;
		/* Pipe and socket inodes differ from run to run. */
		if (!strncmp(target, "pipe:", 5) || !strncmp(target, "socket:", 7) ||
		    !strncmp(target, "anon_inode:", 11))
			*strchr(target, ':') = 0;
		putf(b, "fd %d %s cloexec=%d acc=%d append=%d nonblock=%d %s\n", fd, type,
		     !!(fl & FD_CLOEXEC), st & O_ACCMODE, !!(st & O_APPEND), !!(st & O_NONBLOCK), target);
	}
}

static void set_line(pbuf *b, const char *what, const sigset_t *s)
{
	putf(b, "%s", what);
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(s, sig) == 1)
			putf(b, " %d", sig);
	put(b, "\n");
}

static void signal_lines(pbuf *b)
{
	for (int sig = 1; sig < NSIG; sig++) {
		struct sigaction sa;
		if (sigaction(sig, NULL, &sa))
			continue;
		const char *h = sa.sa_handler == SIG_DFL   ? "default"
		                : sa.sa_handler == SIG_IGN ? "ignore"
		                                           : "fn";
		/* SA_RESTORER is the C library's, not the program's: compared by
		 * the sigaction_readback case itself, not in every case. */
		putf(b, "sig %d %s flags=%#lx mask=", sig, h, (unsigned long)sa.sa_flags & ~0x04000000UL);
		for (int s = 1; s < NSIG; s++)
			if (sigismember(&sa.sa_mask, s) == 1)
				putf(b, "%d,", s);
		put(b, "\n");
	}
	sigset_t set;
	if (!sigprocmask(SIG_BLOCK, NULL, &set))
		set_line(b, "blocked", &set);
	if (!sigpending(&set))
		set_line(b, "pending", &set);
	stack_t ss;
	if (!sigaltstack(NULL, &ss))
		putf(b, "altstack flags=%d size=%zu\n", ss.ss_flags,
		     ss.ss_flags & SS_DISABLE ? 0 : ss.ss_size);
}

static void limit_lines(pbuf *b)
{
	static const struct {
		int r;
		const char *name;
	} lims[] = {
	    {RLIMIT_AS, "as"},           {RLIMIT_CORE, "core"},         {RLIMIT_CPU, "cpu"},
	    {RLIMIT_DATA, "data"},       {RLIMIT_FSIZE, "fsize"},       {RLIMIT_LOCKS, "locks"},
	    {RLIMIT_MEMLOCK, "memlock"}, {RLIMIT_MSGQUEUE, "msgqueue"}, {RLIMIT_NICE, "nice"},
	    {RLIMIT_NOFILE, "nofile"},   {RLIMIT_NPROC, "nproc"},       {RLIMIT_RSS, "rss"},
	    {RLIMIT_RTPRIO, "rtprio"},   {RLIMIT_RTTIME, "rttime"},     {RLIMIT_SIGPENDING, "sigpending"},
	    {RLIMIT_STACK, "stack"},
	};
	for (size_t i = 0; i < sizeof lims / sizeof lims[0]; i++) {
		struct rlimit rl;
		if (getrlimit(lims[i].r, &rl))
			continue;
		putf(b, "rlimit %s %lld %lld\n", lims[i].name,
		     rl.rlim_cur == RLIM_INFINITY ? -1LL : (long long)rl.rlim_cur,
		     rl.rlim_max == RLIM_INFINITY ? -1LL : (long long)rl.rlim_max);
	}
}

static int threads_once(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	int n = -1;
	if (!f)
		return -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* A thread that pthread_join has returned for can still be counted by the
 * kernel for a moment (its exit is not complete): with more than one
 * thread, the least count read over 20 ms. */
static int threads_now(void)
{
	int n = threads_once();
	for (int i = 0; i < 20 && n > 1; i++) {
		struct timespec ms = {0, 1000000};
		nanosleep(&ms, NULL);
		int m = threads_once();
		if (m >= 0 && m < n)
			n = m;
	}
	return n;
}

static void process_lines(pbuf *b)
{
	char cwd[4096];
	putf(b, "cwd %s\n", getcwd(cwd, sizeof cwd) ? cwd : "?");
	mode_t m = umask(0);
	umask(m);
	putf(b, "umask %03o\n", (unsigned)m);
	errno = 0;
	int nice = getpriority(PRIO_PROCESS, 0);
	putf(b, "nice %d\n", errno ? -99 : nice);
	putf(b, "pgrp_is_self %d sid_is_self %d\n", getpgrp() == getpid(), getsid(0) == getpid());
	putf(b, "isatty %d %d %d\n", isatty(0), isatty(1), isatty(2));
	putf(b, "personality %#x\n", (unsigned)personality(0xffffffff));
	putf(b, "dumpable %d no_new_privs %d\n", prctl(PR_GET_DUMPABLE),
	     prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0));
	int pdeath = 0;
	prctl(PR_GET_PDEATHSIG, &pdeath);
	char name[17] = "";
	prctl(PR_GET_NAME, name);
	putf(b, "pdeathsig %d name %s\n", pdeath, name);
	putf(b, "timerslack %d\n", prctl(PR_GET_TIMERSLACK));
	cpu_set_t cs;
	putf(b, "cpus %d\n", sched_getaffinity(0, sizeof cs, &cs) ? -1 : CPU_COUNT(&cs));
	putf(b, "sched %d\n", sched_getscheduler(0));
	static const int its[] = {ITIMER_REAL, ITIMER_VIRTUAL, ITIMER_PROF};
	for (int i = 0; i < 3; i++) {
		struct itimerval v;
		if (!getitimer(its[i], &v))
			putf(b, "itimer %d armed=%d interval_us=%ld\n", its[i],
			     v.it_value.tv_sec || v.it_value.tv_usec,
			     (long)(v.it_interval.tv_sec * 1000000 + v.it_interval.tv_usec));
	}
	putf(b, "threads %d\n", threads_now());
}

static void dump(const char *when)
{
	int saved = errno;
	pbuf b = {0};
	putf(&b, "when %s\n", when);
	process_lines(&b);
	limit_lines(&b);
	signal_lines(&b);
	fd_lines(&b);
	env_lines(&b);
	char path[4200];
	snprintf(path, sizeof path, "%s.%s", probe_prefix, when);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		for (size_t off = 0; off < b.n;) {
			ssize_t w = write(fd, b.p + off, b.n - off);
			if (w <= 0)
				break;
			off += (size_t)w;
		}
		close(fd);
	}
	free(b.p);
	errno = saved;
}

__attribute__((constructor)) static void probe_start(void)
{
	const char *p = getenv("DIFF_PROBE");
	if (!p || !*p || strlen(p) >= sizeof probe_prefix)
		return;
	strcpy(probe_prefix, p);
	unsetenv("DIFF_PROBE");
	probe_pid = getpid();
	dump("start");
}

__attribute__((destructor)) static void probe_exit(void)
{
	if (!probe_prefix[0] || getpid() != probe_pid)
		return;
	dump("exit");
}
