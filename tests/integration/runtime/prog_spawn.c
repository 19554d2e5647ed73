/* prog_spawn: starts a program N times, one after the other, and says what
 * each start cost, for the start_cost and stop_once cases of run.sh.
 *
 *   prog_spawn [-w MS] N PROGRAM [ARG...]
 *
 * -w MS: first waits MS milliseconds (spinning: the process is sampled).
 * Each child is started with posix_spawn and reaped with wait4; with
 * CHILD_PRELOAD set, the children get LD_PRELOAD=CHILD_PRELOAD (this
 * process itself is then not measured). Prints one line:
 *   wall_us=MEDIAN cpu_us=MEDIAN faults=MEAN
 * the median wall time from the spawn to the reaping, the median CPU time
 * (user + system) of one child and its mean minor page faults. */
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

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static char **child_env(const char *preload)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof *env);
	size_t len = strlen(preload) + 12;
	char *var = malloc(len);
	if (!env || !var)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11))
			env[k++] = environ[i];
	snprintf(var, len, "LD_PRELOAD=%s", preload);
	env[k] = var;
	return env;
}

int main(int argc, char **argv)
{
	int a = 1;
	double wait_ms = 0;
	if (argc > 2 && !strcmp(argv[1], "-w")) {
		wait_ms = atof(argv[2]);
		a = 3;
	}
	if (argc - a < 2) {
		fprintf(stderr, "usage: prog_spawn [-w MS] N PROGRAM [ARG...]\n");
		return 2;
	}
	int n = atoi(argv[a]);
	char **prog = argv + a + 1;
	const char *preload = getenv("CHILD_PRELOAD");
	char **env = preload && *preload ? child_env(preload) : environ;
	double *wall = calloc((size_t)(n > 0 ? n : 1), sizeof *wall);
	double *cpu = calloc((size_t)(n > 0 ? n : 1), sizeof *cpu);
	if (n < 1 || !env || !wall || !cpu)
		return 2;
	for (double t0 = now_us(); now_us() - t0 < wait_ms * 1e3;)
		;
	long faults = 0;
	for (int i = 0; i < n; i++) {
		double t0 = now_us();
		pid_t pid;
		int rc = posix_spawn(&pid, prog[0], NULL, NULL, prog, env);
		if (rc) {
			fprintf(stderr, "posix_spawn %s: %s\n", prog[0], strerror(rc));
			return 1;
		}
		int st;
		struct rusage ru;
		while (wait4(pid, &st, 0, &ru) < 0)
			if (errno != EINTR)
				return 1;
		wall[i] = now_us() - t0;
		if (!WIFEXITED(st) || WEXITSTATUS(st)) {
			fprintf(stderr, "%s failed (status 0x%x)\n", prog[0], st);
			return 1;
		}
		cpu[i] = (double)ru.ru_utime.tv_sec * 1e6 + (double)ru.ru_utime.tv_usec +
		         (double)ru.ru_stime.tv_sec * 1e6 + (double)ru.ru_stime.tv_usec;
		faults += ru.ru_minflt;
	}
	qsort(wall, (size_t)n, sizeof *wall, cmp);
	qsort(cpu, (size_t)n, sizeof *cpu, cmp);
	printf("wall_us=%.0f cpu_us=%.0f faults=%.1f\n", wall[n / 2], cpu[n / 2], (double)faults / n);
	return 0;
}
