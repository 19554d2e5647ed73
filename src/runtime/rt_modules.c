/* rt_modules.c: the module map (MODULE_LOAD/UNLOAD) and dlopen/dlclose.
 *
 * Owns the list of loaded objects as dl_iterate_phdr reports them: path,
 * load bias, build-id (NT_GNU_BUILD_ID from PT_NOTE) and PT_LOAD segments,
 * so fold can symbolise a sampled address offline with
 * file_vaddr = address - load_bias. Rescanned after every dlopen/dlclose.
 *
 * Our dlopen wrapper calls the real dlopen from inside libfold.so, and glibc
 * searches the *caller's* DT_RUNPATH/DT_RPATH for a bare name and expands
 * $ORIGIN in the name relative to the caller. So for a name without '/' we
 * search the calling object's RUNPATH/RPATH ($ORIGIN expanded) ourselves
 * first and pass the path we find; otherwise the normal search
 * (LD_LIBRARY_PATH, cache, system directories) applies unchanged. A name
 * with $ORIGIN (or ${ORIGIN}) gets the calling object's directory put in;
 * $LIB and $PLATFORM do not depend on the caller and are left to glibc.
 *
 * Also owns the readable code ranges (rt__code_readable): the hooks read a
 * byte of the program's code at a call's return address (rt_cyg.c,
 * cold_return), and only where a loaded object maps it readable, never in
 * code mapped execute-only or made at run time. Written under mod_lock
 * inside a sequence count (odd while it changes), read without a lock.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fold_rt.h"
#include "util.h" /* util_grow: header-only */

#define MAX_SEGS 16

typedef struct module {
	uint32_t id;
	int seen;
	uint64_t bias;
	char *path;
} module;

pthread_mutex_t rt__mod_lock = PTHREAD_MUTEX_INITIALIZER; /* held across fork (rt_fork.c) */
#define mod_lock rt__mod_lock
static module *mods;
static unsigned nmods;
static size_t cap_mods;
static uint32_t next_id = 1;

typedef struct found {
	uint64_t bias;
	char path[1024];
	uint8_t build_id[64];
	size_t build_id_len;
	trace_segment segs[MAX_SEGS];
	unsigned nseg;
} found;

typedef struct scan_state {
	found *items;
	size_t n, cap;
	int first, full;
} scan_state;

static void read_build_id(struct dl_phdr_info *info, found *f)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_NOTE)
			continue;
		const uint8_t *p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
		const uint8_t *end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
			size_t namesz = (nh->n_namesz + 3) & ~3u, descsz = (nh->n_descsz + 3) & ~3u;
			const uint8_t *name = p + sizeof *nh, *desc = name + namesz;
			if (desc + nh->n_descsz > end)
				break;
			if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
				f->build_id_len = nh->n_descsz < sizeof f->build_id ? nh->n_descsz : sizeof f->build_id;
				memcpy(f->build_id, desc, f->build_id_len);
				return;
			}
			p = desc + descsz;
		}
	}
}

/* Counts the loaded objects: no allocation inside dl_iterate_phdr, whose
 * lock a sample's unwind in another thread needs while that thread may
 * hold the allocator's lock (TeaLeaf's MPI_Finalize deadlocked so: this
 * callback in realloc under the loader's lock, a PMIx thread's sample
 * unwinding inside free). */
static int count_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)info;
	(void)size;
	++*(size_t *)arg;
	return 0;
}

/* Fills the array allocated before the walk; stops when it is full (an
 * object loaded since the count: the caller walks again). */
static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	scan_state *s = arg;
	if (s->n == s->cap) {
		s->full = 1;
		return 1;
	}
	found *f = &s->items[s->n];
	memset(f, 0, sizeof *f);
	f->bias = info->dlpi_addr;
	const char *name = info->dlpi_name;
	if ((!name || !*name) && s->first) {
		snprintf(f->path, sizeof f->path, "%s", rt__exe_path());
	} else if (name) {
		strncpy(f->path, name, sizeof f->path - 1);
	}
	s->first = 0;
	for (int i = 0; i < info->dlpi_phnum && f->nseg < MAX_SEGS; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		trace_segment *seg = &f->segs[f->nseg++];
		seg->vaddr = ph->p_vaddr;
		seg->memsz = ph->p_memsz;
		seg->prot = (uint8_t)(ph->p_flags & 7);
	}
	if (!f->nseg)
		return 0; /* nothing mapped worth naming */
	read_build_id(info, f);
	s->n++;
	return 0;
}

/* The readable code ranges: a reader that sees the count odd or changed
 * takes nothing as readable. Objects beyond CODE_RANGES are not in it. */
#define CODE_RANGES 256
static struct {
	_Atomic uintptr_t lo, hi;
} code_range[CODE_RANGES];
static _Atomic unsigned code_n, code_seq;

static void code_ranges_set(const found *items, unsigned n)
{
	unsigned seq = atomic_load_explicit(&code_seq, memory_order_relaxed);
	atomic_store_explicit(&code_seq, seq + 1, memory_order_relaxed);
	atomic_thread_fence(memory_order_release);
	unsigned k = 0;
	for (unsigned i = 0; i < n; i++)
		for (unsigned j = 0; j < items[i].nseg && k < CODE_RANGES; j++) {
			const trace_segment *g = &items[i].segs[j];
			if ((g->prot & (PF_R | PF_X)) != (PF_R | PF_X))
				continue;
			atomic_store_explicit(&code_range[k].lo, (uintptr_t)(items[i].bias + g->vaddr),
			                      memory_order_relaxed);
			atomic_store_explicit(&code_range[k].hi,
			                      (uintptr_t)(items[i].bias + g->vaddr + g->memsz),
			                      memory_order_relaxed);
			k++;
		}
	atomic_store_explicit(&code_n, k, memory_order_relaxed);
	atomic_store_explicit(&code_seq, seq + 2, memory_order_release);
}

unsigned rt__code_ranges_gen(void)
{
	return atomic_load_explicit(&code_seq, memory_order_acquire);
}

int rt__code_readable(uintptr_t a, uintptr_t *lo, uintptr_t *hi, unsigned *gen)
{
	unsigned seq = atomic_load_explicit(&code_seq, memory_order_acquire);
	if (seq & 1)
		return 0;
	unsigned n = atomic_load_explicit(&code_n, memory_order_relaxed);
	int found_it = 0;
	for (unsigned i = 0; i < n && i < CODE_RANGES; i++) {
		uintptr_t l = atomic_load_explicit(&code_range[i].lo, memory_order_relaxed);
		uintptr_t h = atomic_load_explicit(&code_range[i].hi, memory_order_relaxed);
		if (a >= l && a < h) {
			*lo = l;
			*hi = h;
			found_it = 1;
			break;
		}
	}
	atomic_thread_fence(memory_order_acquire);
	if (atomic_load_explicit(&code_seq, memory_order_relaxed) != seq)
		return 0;
	if (gen)
		*gen = seq;
	return found_it;
}

void rt__modules_scan(void)
{
	scan_state s = {0};
	for (int tries = 0; tries < 4; tries++) {
		size_t count = 0;
		dl_iterate_phdr(count_cb, &count);
		free(s.items);
		s = (scan_state){.first = 1, .cap = count + 8};
		s.items = malloc(s.cap * sizeof *s.items);
		if (!s.items)
			return;
		dl_iterate_phdr(scan_cb, &s);
		if (!s.full)
			break;
	}
	uint64_t tick = rt__tick();
	rt__lock(&mod_lock);
	code_ranges_set(s.items, s.n);
	for (unsigned i = 0; i < nmods; i++)
		mods[i].seen = 0;
	for (size_t k = 0; k < s.n; k++) {
		found *f = &s.items[k];
		unsigned i;
		for (i = 0; i < nmods; i++)
			if (mods[i].bias == f->bias && !strcmp(mods[i].path, f->path))
				break;
		if (i < nmods) {
			mods[i].seen = 1;
			continue;
		}
		if (util_grow((void **)&mods, &cap_mods, (size_t)nmods + 1, sizeof *mods))
			break;
		char *copy = strdup(f->path);
		if (!copy)
			break;
		mods[nmods] = (module){.id = next_id++, .seen = 1, .bias = f->bias, .path = copy};
		rt__proc_module_load(mods[nmods].id, tick, f->bias, f->build_id, f->build_id_len, f->path,
		                     f->segs, f->nseg);
		nmods++;
	}
	for (unsigned i = 0; i < nmods;) {
		if (mods[i].seen) {
			i++;
			continue;
		}
		rt__proc_module_unload(mods[i].id, tick);
		free(mods[i].path);
		mods[i] = mods[--nmods];
	}
	rt__unlock(&mod_lock);
	free(s.items);
}

void rt__modules_reset_after_fork(void)
{
	pthread_mutex_init(&mod_lock, NULL);
	for (unsigned i = 0; i < nmods; i++)
		free(mods[i].path);
	nmods = 0;
	next_id = 1;
}

/* ---------------------------------------------------------------- dlopen */

/* The directory of the object whose link map is lm, as glibc's $ORIGIN:
 * the directory of the name it was loaded by, the executable's for the
 * main program. Returns 0 or -ENOENT. */
static int origin_of(const struct link_map *lm, char *origin, size_t len)
{
	const char *objpath = lm->l_name && *lm->l_name ? lm->l_name : NULL;
	char exe[1024];
	if (!objpath) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		if (n <= 0)
			return -ENOENT;
		exe[n] = 0;
		objpath = exe;
	}
	snprintf(origin, len, "%s", objpath);
	char *slash = strrchr(origin, '/');
	if (slash == origin)
		slash[1] = 0;
	else if (slash)
		*slash = 0;
	else
		snprintf(origin, len, ".");
	return 0;
}

static struct link_map *caller_map(const void *caller)
{
	Dl_info di;
	struct link_map *lm = NULL;
	if (!dladdr1(caller, &di, (void **)&lm, RTLD_DL_LINKMAP))
		return NULL;
	return lm;
}

/* file with every $ORIGIN / ${ORIGIN} replaced by the caller's directory
 * (malloc'ed), or NULL when it has none or the caller is unknown. */
static char *expand_origin(const char *file, const void *caller)
{
	if (!strstr(file, "$ORIGIN") && !strstr(file, "${ORIGIN}"))
		return NULL;
	struct link_map *lm = caller_map(caller);
	char origin[1024];
	if (!lm || origin_of(lm, origin, sizeof origin))
		return NULL;
	size_t cap = strlen(file) * (strlen(origin) + 1) + 1;
	char *out = malloc(cap);
	if (!out)
		return NULL;
	size_t o = 0;
	for (const char *p = file; *p;) {
		size_t skip = !strncmp(p, "${ORIGIN}", 9) ? 9 : !strncmp(p, "$ORIGIN", 7) ? 7 : 0;
		if (skip) {
			memcpy(out + o, origin, strlen(origin));
			o += strlen(origin);
			p += skip;
		} else {
			out[o++] = *p++;
		}
	}
	out[o] = 0;
	return out;
}

/* Searches the RUNPATH (or RPATH) of the object containing `caller` for a
 * bare library name, as glibc would have had the caller called dlopen. */
static char *search_caller_paths(const char *file, const void *caller)
{
	struct link_map *lm = caller_map(caller);
	if (!lm || !lm->l_ld)
		return NULL;
	const char *strtab = NULL;
	ElfW(Xword) runpath = 0, rpath = 0;
	int have_runpath = 0, have_rpath = 0;
	for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
		if (d->d_tag == DT_STRTAB)
			strtab = (const char *)d->d_un.d_ptr;
		else if (d->d_tag == DT_RUNPATH) {
			runpath = d->d_un.d_val;
			have_runpath = 1;
		} else if (d->d_tag == DT_RPATH) {
			rpath = d->d_un.d_val;
			have_rpath = 1;
		}
	}
	if (!strtab || (!have_runpath && !have_rpath))
		return NULL;
	const char *list = strtab + (have_runpath ? runpath : rpath);
	char origin[1024];
	if (origin_of(lm, origin, sizeof origin))
		return NULL;
	char dir[2048];
	while (*list) {
		size_t len = strcspn(list, ":");
		size_t o = 0;
		for (size_t i = 0; i < len && o + 1 < sizeof dir;) {
			if (!strncmp(list + i, "$ORIGIN", 7) || !strncmp(list + i, "${ORIGIN}", 9)) {
				o += (size_t)snprintf(dir + o, sizeof dir - o, "%s", origin);
				i += list[i + 1] == '{' ? 9 : 7;
				if (o >= sizeof dir)
					o = sizeof dir - 1;
			} else {
				dir[o++] = list[i++];
			}
		}
		dir[o] = 0;
		char *cand = malloc(o + strlen(file) + 2);
		if (!cand)
			return NULL;
		sprintf(cand, "%s/%s", o ? dir : ".", file);
		if (access(cand, F_OK) == 0)
			return cand;
		free(cand);
		list += len;
		if (*list == ':')
			list++;
	}
	return NULL;
}

/* A thread inside dl_iterate_phdr holds the loader's lock while its
 * callback runs, and the sample handler's unwinder (libunwind's slow path)
 * takes that lock too, after libunwind's own lock. A sample landing there
 * could deadlock against another thread's sample: ABBA, seen with Open MPI's
 * PMIx loading components under mpirun (and our own rescan after dlopen).
 * So samples inside dl_iterate_phdr are dropped and counted (in_dlopen), as
 * inside dlopen. The real function is resolved in a constructor, so the
 * wrapper never calls dlsym from a signal handler (libunwind calls it there);
 * before that, only on a thread that is not inside our handler. */
typedef int (*dl_iterate_phdr_fn)(int (*)(struct dl_phdr_info *, size_t, void *), void *);
static dl_iterate_phdr_fn real_dl_iterate_phdr;

__attribute__((constructor(101))) static void resolve_dl_iterate_phdr(void)
{
	if (!real_dl_iterate_phdr)
		real_dl_iterate_phdr = (dl_iterate_phdr_fn)dlsym(RTLD_NEXT, "dl_iterate_phdr");
}

FOLD_EXPORT int dl_iterate_phdr(int (*cb)(struct dl_phdr_info *, size_t, void *), void *data)
{
	rt_thread *t = rt__tls_thread;
	if (!real_dl_iterate_phdr) {
		if (t && t->busy)
			return 0; /* inside the runtime before our constructor: no dlsym here */
		resolve_dl_iterate_phdr();
		if (!real_dl_iterate_phdr)
			return 0;
	}
	if (t)
		t->in_dlopen++;
	int rc = real_dl_iterate_phdr(cb, data);
	if (t)
		t->in_dlopen--;
	return rc;
}

typedef void *(*dlopen_fn)(const char *, int);
typedef int (*dlclose_fn)(void *);

static void *dlopen_as(const void *caller, const char *file, int mode)
{
	static dlopen_fn real;
	if (!real)
		real = (dlopen_fn)dlsym(RTLD_NEXT, "dlopen");
	if (!real)
		return NULL;
	/* $ORIGIN is the caller's, measuring or not (the real dlopen would
	 * take libfold.so's directory). */
	char *resolved = file ? expand_origin(file, caller) : NULL;
	rt_thread *t = rt__tls_thread;
	if (atomic_load(&rt__proc.phase) != FOLD_RUNNING || !t) {
		void *h = real(resolved ? resolved : file, mode);
		free(resolved);
		return h;
	}
	if (file && !resolved && !strchr(file, '/'))
		resolved = search_caller_paths(file, caller);
	t->in_dlopen++;
	void *h = real(resolved ? resolved : file, mode);
	t->in_dlopen--;
	free(resolved);
	if (h && !(mode & RTLD_NOLOAD))
		rt__modules_scan();
	return h;
}

FOLD_EXPORT void *dlopen(const char *file, int mode)
{
	return dlopen_as(__builtin_extract_return_addr(__builtin_return_address(0)), file, mode);
}

FOLD_EXPORT int dlclose(void *handle)
{
	static dlclose_fn real;
	if (!real)
		real = (dlclose_fn)dlsym(RTLD_NEXT, "dlclose");
	if (!real)
		return -1;
	rt_thread *t = rt__tls_thread;
	if (t)
		t->in_dlopen++;
	int rc = real(handle);
	if (t)
		t->in_dlopen--;
	if (rc == 0 && atomic_load(&rt__proc.phase) == FOLD_RUNNING)
		rt__modules_scan();
	return rc;
}
