/* dlopen_loop: dlopen, call and dlclose a plugin 300 times while sampled at
 * 1 ms (fold updates its module map at each), then one RTLD_NODELETE load:
 * the plugin's state and constructor runs are what they are without fold.
 *
 * diff: args={helpers}/plugin.so
 * diff: build=-ldl
 * diff: expect-status=exit 0
 * diff: time=3+300ms
 */
#include <dlfcn.h>
#include <stdio.h>
#include "common.h"

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long sum = 0;
	for (int i = 0; i < 300; i++) {
		void *h = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
		if (!h)
			return printf("dlopen: %s\n", dlerror()), 1;
		int (*f)(int) = (int (*)(int))dlsym(h, "plugin_work");
		sum += f(1000);
		dlclose(h);
	}
	void *h = dlopen(argv[1], RTLD_NOW | RTLD_NODELETE);
	int (*f)(int) = (int (*)(int))dlsym(h, "plugin_work");
	printf("sum %ld, after NODELETE %d\n", sum, f(10));
	dlclose(h);
	h = dlopen(argv[1], RTLD_NOW | RTLD_NOLOAD);
	printf("still loaded: %s\n", h ? "yes" : "no");
	return 0;
}
