/* runtime-start.c: what a process costs from its start to its exit, seen
 * by the process that starts it (bench/runtime-start.sh).
 *
 *   bench_runtime_start spawn|system|popen N [PROGRAM [ARG...]]
 *
 * starts PROGRAM (default /bin/true) N times one after the other with
 * posix_spawn + wait4, system() or popen() + pclose, and prints one line:
 * the median and minimum wall time per process (start to reaped), the CPU
 * time per process (user + system of the reaped children) and their minor
 * page faults; with spawn also the median and minimum CPU time of one
 * child. With
 * BENCH_CHILD_PRELOAD set, the children get LD_PRELOAD=that value added to
 * their environment (spawn only): then this process is not measured itself,
 * and each child is the first process of its run. */
#define _GNU_SOURCE
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static double now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* environ plus LD_PRELOAD=preload (replacing one that is there). */
static char **child_env(const char *preload)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof *env);
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	size_t len = strlen(preload) + 12;
	env[k] = malloc(len);
	if (!env[k])
		return NULL;
	snprintf(env[k], len, "LD_PRELOAD=%s", preload);
	return env;
}

static char *shell_command(char **argv, int argc)
{
	size_t len = 1;
	for (int i = 0; i < argc; i++)
		len += strlen(argv[i]) + 1;
	char *cmd = malloc(len);
	if (!cmd)
		return NULL;
	cmd[0] = 0;
	for (int i = 0; i < argc; i++) {
		strcat(cmd, argv[i]);
		if (i + 1 < argc)
			strcat(cmd, " ");
	}
	return cmd;
}

static double tv_us(struct timeval tv)
{
	return (double)tv.tv_sec * 1e6 + (double)tv.tv_usec;
}

/* cpu: the spawned child's CPU time, us (spawn only). */
static int run_one(const char *mode, char **argv, char **env, const char *cmd, double *cpu)
{
	if (!strcmp(mode, "spawn")) {
		pid_t pid;
		int rc = posix_spawn(&pid, argv[0], NULL, NULL, argv, env);
		if (rc) {
			fprintf(stderr, "posix_spawn %s: %s\n", argv[0], strerror(rc));
			return -1;
		}
		int st;
		struct rusage ru;
		while (wait4(pid, &st, 0, &ru) < 0)
			if (errno != EINTR)
				return -1;
		*cpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
	}
	if (!strcmp(mode, "system"))
		return system(cmd) == 0 ? 0 : -1;
	FILE *f = popen(cmd, "r");
	if (!f)
		return -1;
	char buf[256];
	while (fread(buf, 1, sizeof buf, f) > 0)
		;
	return pclose(f) == 0 ? 0 : -1;
}

int main(int argc, char **argv)
{
	if (argc < 3 || (strcmp(argv[1], "spawn") && strcmp(argv[1], "system") && strcmp(argv[1], "popen"))) {
		fprintf(stderr, "usage: %s spawn|system|popen N [PROGRAM [ARG...]]\n", argv[0]);
		return 2;
	}
	const char *mode = argv[1];
	int n = atoi(argv[2]);
	if (n < 1 || n > 1000000) {
		fprintf(stderr, "N must be 1..1000000, not %s\n", argv[2]);
		return 2;
	}
	static char *def[] = {"/bin/true", NULL};
	char **prog = argc > 3 ? argv + 3 : def;
	int nprog = argc > 3 ? argc - 3 : 1;
	const char *preload = getenv("BENCH_CHILD_PRELOAD");
	char **env = preload && *preload ? child_env(preload) : environ;
	char *cmd = shell_command(prog, nprog);
	double *t = malloc((size_t)n * sizeof *t), *c = calloc((size_t)n, sizeof *c);
	if (!env || !cmd || !t || !c)
		return 1;
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		if (run_one(mode, prog, env, cmd, &c[i])) {
			fprintf(stderr, "%s of %s failed\n", mode, cmd);
			return 1;
		}
		t[i] = now_us() - t0;
	}
	struct rusage ru;
	getrusage(RUSAGE_CHILDREN, &ru);
	double cpu = tv_us(ru.ru_utime) + tv_us(ru.ru_stime);
	qsort(t, (size_t)n, sizeof *t, cmp_double);
	qsort(c, (size_t)n, sizeof *c, cmp_double);
	printf(
	    "%s %d x %s: median %.0f us, min %.0f us per process; CPU %.0f us per process; %.1f page faults "
	    "per process",
	    mode, n, cmd, t[n / 2], t[0], cpu / n, (double)ru.ru_minflt / n);
	if (!strcmp(mode, "spawn"))
		printf("; child CPU median %.0f us, min %.0f us", c[n / 2], c[0]);
	printf("\n");
	return 0;
}
