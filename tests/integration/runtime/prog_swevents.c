/* prog_swevents.c: a program whose software events it counts itself, so
 * that fold's counters of them can be checked against an independent
 * count: voluntary context switches (sleeps), minor page faults (touching
 * fresh pages, from user space and inside a system call) and CPU migrations
 * (moving itself between two CPUs).
 *
 * Prints "switches=S faults=F migrations=M": S and F from getrusage(2) over
 * the thread's whole life, M the moves it observed with sched_getcpu(3) (0
 * with fewer than two CPUs allowed).
 *
 * Usage: prog_swevents
 */
#define _GNU_SOURCE
#include <fold.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

int main(void)
{
	uint32_t region = fold_region("work");
	fold_enter(region);
	for (int i = 0; i < 300; i++) {
		struct timespec ts = {0, 100000};
		nanosleep(&ts, NULL);
	}
	long page = sysconf(_SC_PAGESIZE);
	size_t n = 1000;
	char *p = mmap(NULL, n * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		return 1;
	for (size_t i = 0; i < n / 2; i++)
		p[i * (size_t)page] = 1; /* faults taken in user space */
	/* the other half faulted in by the kernel, copying into them */
	FILE *z = fopen("/dev/zero", "r");
	if (!z || fread(p + n / 2 * (size_t)page, (size_t)page, n / 2, z) != n / 2)
		return 1;
	fclose(z);
	cpu_set_t allowed;
	int cpus[2], ncpu = 0, moves = 0;
	if (!sched_getaffinity(0, sizeof allowed, &allowed))
		for (int c = 0; c < CPU_SETSIZE && ncpu < 2; c++)
			if (CPU_ISSET(c, &allowed))
				cpus[ncpu++] = c;
	for (int i = 0; ncpu == 2 && i < 40; i++) {
		cpu_set_t one;
		CPU_ZERO(&one);
		CPU_SET(cpus[i % 2], &one);
		int before = sched_getcpu();
		if (sched_setaffinity(0, sizeof one, &one))
			break;
		if (sched_getcpu() != before)
			moves++;
	}
	if (ncpu == 2)
		sched_setaffinity(0, sizeof allowed, &allowed);
	fold_exit(region);
	struct rusage ru;
	getrusage(RUSAGE_THREAD, &ru);
	printf("switches=%ld faults=%ld migrations=%d\n", ru.ru_nvcsw + ru.ru_nivcsw, ru.ru_minflt, moves);
	munmap(p, n * (size_t)page);
	return 0;
}
