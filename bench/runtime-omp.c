/* runtime-omp.c: an OpenMP program with many short parallel regions
 * (bench/runtime-idle.sh drives it).
 *
 *   bench_runtime_omp REGIONS WORK   REGIONS parallel regions, each a loop
 *                                    of WORK iterations shared by the team;
 *                                    prints wall time, regions per second
 *                                    and the process's CPU time
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 2000;
	long work = argc > 2 ? atol(argv[2]) : 200000;
	double *acc = calloc(64, sizeof *acc);
	double t0 = now_s();
	for (int r = 0; r < regions; r++) {
#pragma omp parallel
		{
			int me = omp_get_thread_num();
			double x = acc[me * 8] + 1;
#pragma omp for schedule(static)
			for (long i = 0; i < work; i++)
				x = x * 0.9999999 + 1e-7;
			acc[me * 8] = x;
		}
	}
	double t = now_s() - t0;
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	double cpu = (double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
	             (double)(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
	printf("omp: %d regions in %.3f s (%.0f regions/s, %d threads), %.3f s CPU\n", regions, t,
	       regions / t, omp_get_max_threads(), cpu);
	free(acc);
	return acc == NULL;
}
