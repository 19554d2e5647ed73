/* phdr_alloc_shim.c: libphdr_alloc_shim.so, preloaded before libfold.so by
 * the runtime test "no_alloc_in_phdr". It wraps dl_iterate_phdr and the
 * allocator and counts allocations made while the calling thread is inside
 * dl_iterate_phdr. Such an allocation waits for the allocator's lock while
 * holding the loader's, and a sample unwinding (libunwind takes the
 * loader's lock) in a thread that holds the allocator's lock then closes
 * the cycle: TeaLeaf's MPI_Finalize deadlocked so. fold must make none. At
 * exit it writes "phdr_alloc_shim: N allocation(s) inside dl_iterate_phdr"
 * to stderr, with the first caller's return address. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

static __thread int inside;
static atomic_ulong bad;
static void *_Atomic first_caller;

static void note(void *caller)
{
	if (inside) {
		atomic_fetch_add(&bad, 1);
		void *none = NULL;
		atomic_compare_exchange_strong(&first_caller, &none, caller);
	}
}

void *malloc(size_t n)
{
	note(__builtin_return_address(0));
	return __libc_malloc(n);
}

void *calloc(size_t n, size_t k)
{
	note(__builtin_return_address(0));
	return __libc_calloc(n, k);
}

void *realloc(void *p, size_t n)
{
	note(__builtin_return_address(0));
	return __libc_realloc(p, n);
}

typedef int (*iterate_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);

int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	static iterate_fn real;
	if (!real)
		real = (iterate_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
	inside++;
	int rc = real(cb, data);
	inside--;
	return rc;
}

__attribute__((destructor)) static void report(void)
{
	char line[160];
	Dl_info di = {0};
	void *c = atomic_load(&first_caller);
	if (c)
		dladdr(c, &di);
	int n = snprintf(line, sizeof line, "phdr_alloc_shim: %lu allocation(s) inside dl_iterate_phdr (first from %s+%p)\n",
	                 (unsigned long)atomic_load(&bad), di.dli_sname ? di.dli_sname : "?",
	                 c ? (void *)((char *)c - (char *)di.dli_saddr) : NULL);
	if (n > 0)
		(void)!write(2, line, (size_t)n);
}
