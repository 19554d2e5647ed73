/* rt_unwind.c: libunwind, loaded privately.
 *
 * Owns the unwinder the sample handler uses. libunwind.so also defines the
 * _Unwind_* functions of the C++ exception ABI; linked to libfold.so (which
 * is preloaded, so its dependencies join the global scope ahead of
 * libgcc_s), they would replace libgcc's for every object of the program:
 * libstdc++'s throw would run libunwind's _Unwind_RaiseException against
 * libgcc's personality data, and a program built with -static-libgcc mixes
 * two unwinders. So libunwind is not a dependency of libfold.so: it is
 * loaded with dlopen(RTLD_LOCAL) at start, and we call the three functions
 * we use through pointers. Its symbols then bind only within itself, and
 * the program's own lookups never see them. (Debian ships libunwind.a built
 * without -fPIC, so it cannot be linked into a shared object hidden.)
 *
 * Invariants:
 *  - Loaded once, at start, outside any signal handler (dlopen is not
 *    async-signal-safe); rt__unwind_backtrace is the only call the
 *    handler makes, and without libunwind it returns 0 (samples keep the
 *    interrupted pc only).
 *  - libunwind's thread-local variables live in dynamic TLS (it is
 *    dlopen'ed), which glibc allocates with malloc on a thread's first
 *    access: rt__unwind_thread_start makes that access at thread start,
 *    so the handler never allocates (tests/integration/runtime nomalloc).
 *  - While libunwind runs on a thread, rt__tls_unwinding is raised, so
 *    the descriptors it creates (its memory-validation pipe, see rt_fd.c)
 *    are moved into fold's own range.
 */
#include "fold_rt.h"

#include <dlfcn.h>
#include <errno.h>
#include <link.h>
#include <sys/mman.h>
#define UNW_LOCAL_ONLY
#include <libunwind.h>

#define STR_(x) #x
#define STR(x) STR_(x) /* the _ULx86_64_... name behind a libunwind macro */

typedef int (*backtrace_fn)(void **, int);
typedef int (*getcontext_fn)(unw_context_t *);
typedef int (*init_local_fn)(unw_cursor_t *, unw_context_t *);

static backtrace_fn unw_bt;
static size_t tls_modid; /* libunwind's TLS module id, 0 if it has none */

typedef struct tls_index {
	unsigned long module, offset;
} tls_index;
extern void *__tls_get_addr(tls_index *ti);
FOLD_TLS volatile int rt__tls_unwinding;

/* The writable memory of the object loaded at bias *arg, past its RELRO
 * part: libunwind's initialisation clears its caches there (~10 pages of
 * zero-filled memory), a page fault each (10-90 us each on a VM), which one
 * madvise maps instead. */
static int populate_writable(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (info->dlpi_addr != *(const ElfW(Addr) *)arg)
		return 0;
	uintptr_t relro_end = 0;
	for (int i = 0; i < info->dlpi_phnum; i++)
		if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO)
			relro_end = (info->dlpi_addr + info->dlpi_phdr[i].p_vaddr +
			             info->dlpi_phdr[i].p_memsz + 4095) &
			            ~(uintptr_t)4095;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD || !(ph->p_flags & PF_W))
			continue;
		uintptr_t lo = (info->dlpi_addr + ph->p_vaddr) & ~(uintptr_t)4095;
		uintptr_t hi = (info->dlpi_addr + ph->p_vaddr + ph->p_memsz + 4095) & ~(uintptr_t)4095;
		if (lo < relro_end)
			lo = relro_end;
		if (lo < hi)
			madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE);
	}
	return 1;
}

static int load(void)
{
	static int tried;
	if (tried)
		return unw_bt ? 0 : -ENOENT;
	tried = 1;
	typedef void *(*dlopen_fn)(const char *, int);
	dlopen_fn real_dlopen = (dlopen_fn)rt__real("dlopen");
	if (!real_dlopen)
		return -ENOSYS;
	void *h = real_dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		h = real_dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		rt__warn("cannot load libunwind (%s): samples record the interrupted address only",
		         dlerror());
		return -ENOENT;
	}
	struct link_map *lm;
	if (dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0)
		dl_iterate_phdr(populate_writable, &lm->l_addr);
	getcontext_fn getctx = (getcontext_fn)dlsym(h, STR(unw_tdep_getcontext));
	init_local_fn init = (init_local_fn)dlsym(h, STR(unw_init_local));
	backtrace_fn bt = (backtrace_fn)dlsym(h, "unw_backtrace");
	if (!getctx || !init || !bt) {
		rt__warn(
		    "libunwind lacks unw_backtrace/unw_init_local: samples record the interrupted address "
		    "only");
		return -ENOENT;
	}
	/* libunwind's process-wide initialisation (its locks, the local address
	 * space, the pipe it validates memory with) runs on the first
	 * unw_init_local: here, at start, before main, never behind the
	 * program's back in a handler. */
	unw_context_t uc;
	unw_cursor_t cursor;
	rt__tls_unwinding++;
	getctx(&uc);
	init(&cursor, &uc);
	rt__tls_unwinding--;
	size_t modid = 0;
	if (dlinfo(h, RTLD_DI_TLS_MODID, &modid) == 0)
		tls_modid = modid;
	unw_bt = bt;
	return 0;
}

void rt__unwind_warm(void)
{
	load();
}

void rt__unwind_thread_start(void)
{
	if (unw_bt && tls_modid) {
		tls_index ti = {tls_modid, 0};
		(void)__tls_get_addr(&ti);
	}
}

int rt__unwind_backtrace(void **frames, int max)
{
	backtrace_fn bt = unw_bt;
	if (!bt)
		return 0;
	rt__tls_unwinding++;
	int n = bt(frames, max);
	rt__tls_unwinding--;
	return n;
}
