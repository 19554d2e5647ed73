/* plugin.c: libfoldplugin.so, loaded by prog_dlopen with dlopen(). Its
 * constructor works 150 ms inside dlopen, where the runtime does not unwind
 * and records each sample's leaf only (leaf_only): at least 30 samples of
 * a 1 ms wall-clock timer when other jobs leave it half a CPU. */
#include <time.h>

/* Works for ms of wall time. The clock is CLOCK_MONOTONIC, which the vDSO
 * reads without a system call: with the thread's CPU clock (a system call)
 * the samples clustered in it beside other jobs (38 of 83, then 43 of 85
 * in CI's ASan pass with a read every 300 us), whatever brings a delayed
 * signal to a system call's return. */
__attribute__((noinline)) double plugin_work(double ms);
__attribute__((noinline)) double plugin_work(double ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	double x = 1;
	do {
		for (int i = 0; i < 20000; i++)
			x = x * 0.9999999 + 1e-7;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
	return x;
}

static volatile double set_up;
__attribute__((constructor)) static void plugin_init(void)
{
	set_up = plugin_work(150);
}
