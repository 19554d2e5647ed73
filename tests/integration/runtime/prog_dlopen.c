/* prog_dlopen.c: loads libfoldplugin.so by its bare name (found through this
 * program's RUNPATH $ORIGIN), runs 200 ms in it, unloads it. */
#include <dlfcn.h>
#include <fold.h>
#include <stdio.h>

int main(void)
{
	void *h = dlopen("libfoldplugin.so", RTLD_NOW);
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
	printf("%g\n", x);
	return dlclose(h) ? 1 : 0;
}
