/* prog_dlopen.c: loads libfoldplugin.so by its bare name (found through this
 * program's RUNPATH $ORIGIN), runs 200 ms in it, unloads it. Prints the
 * CPU time the thread got inside dlopen (the plugin's 150 ms constructor),
 * by which the test judges how many samples it could take there. */
#include <dlfcn.h>
#include <fold.h>
#include <stdio.h>
#include <time.h>

static double cpu_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

int main(void)
{
	double c0 = cpu_ms();
	void *h = dlopen("libfoldplugin.so", RTLD_NOW);
	double in_dlopen = cpu_ms() - c0;
	if (!h) {
		fprintf(stderr, "dlopen: %s\n", dlerror());
		return 1;
	}
	double (*work)(double) = (double (*)(double))dlsym(h, "plugin_work");
	if (!work)
		return 1;
	uint32_t r = fold_region("plugin");
	fold_enter(r);
	double x = work(200);
	fold_exit(r);
	printf("%g\ndlopen_cpu_ms %.0f\n", x, in_dlopen);
	return dlclose(h) ? 1 : 0;
}
