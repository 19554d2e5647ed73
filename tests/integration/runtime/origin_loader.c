/* origin_loader.c: a library that loads a plugin next to itself with
 * dlopen("$ORIGIN/..."): glibc expands $ORIGIN relative to the caller of
 * dlopen, which must stay this library under fold. */
#include <dlfcn.h>
#include <stdio.h>

int origin_load(char *msg, size_t len);
int origin_load(char *msg, size_t len)
{
	void *h = dlopen("$ORIGIN/liborigin_plugin.so", RTLD_NOW);
	if (!h) {
		snprintf(msg, len, "dlopen failed");
		return -1;
	}
	int (*answer)(void) = (int (*)(void))dlsym(h, "origin_answer");
	snprintf(msg, len, "plugin answers %d", answer ? answer() : -1);
	dlclose(h);
	return 0;
}
