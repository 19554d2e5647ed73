/* plugin.c: libfoldplugin.so, loaded by prog_dlopen with dlopen(). Its
 * constructor works 60 ms of CPU time inside dlopen, where the runtime
 * does not unwind and records each sample's leaf only (leaf_only). */
#include <time.h>

__attribute__((noinline)) double plugin_work(double ms);
__attribute__((noinline)) double plugin_work(double ms)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
	double x = 1;
	do {
		/* the clock read is a system call: a sample delivered as it
		 * returns lands in it, and a thread that other jobs preempt
		 * resumes there often (38 of 83 samples beside a CPU stressor
		 * with a read every 20 000 steps, ~30 us) */
		for (int i = 0; i < 200000; i++)
			x = x * 0.9999999 + 1e-7;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	} while ((double)(t.tv_sec - t0.tv_sec) * 1e3 + (double)(t.tv_nsec - t0.tv_nsec) / 1e6 < ms);
	return x;
}

static volatile double set_up;
__attribute__((constructor)) static void plugin_init(void)
{
	set_up = plugin_work(60);
}
