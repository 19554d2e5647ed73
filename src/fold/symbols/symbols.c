/* symbols.c: the symtab object: module map, per-file indexes, per-address cache.
 *
 * Owns the mapping from (process, run-time address) to a module and its file
 * address, the lazy indexing of each distinct object file (one sym_image per
 * path + build-id, shared by all processes that mapped it), the flattening of
 * DWARF scope ranges into a sorted segment array, and the cache that makes
 * each unique (proc, addr, is_return_address) cost one index walk.
 *
 * Invariants:
 *  - A result and every string it points to are allocated in the symtab's
 *    arenas and never move or die before symbols__free.
 *  - Each module problem is reported through diag once, as one line that
 *    names the module, when the module is first needed.
 *  - Lookups never fail for want of symbols; only allocation failure fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <elf.h>
#include <link.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "symbols_internal.h"

#define SYM_DEFAULT_DEBUG_DIRS "/usr/lib/debug"

/* ---------------------------------------------------------------- arena --- */

struct sym_arena_block {
	sym_arena_block *next;
	size_t cap;
	size_t mapped; /* bytes mmap'ed (0: malloc'ed) */
	max_align_t data[];
};

#define SYM_ARENA_MIN (64u << 10)
#define SYM_ARENA_MAX (8u << 20)
#define SYM_ARENA_MMAP (1u << 20)

void *symbols__arena_alloc(sym_arena *a, size_t size)
{
	size = (size + 7) & ~(size_t)7; /* everything stored here needs at most 8-byte alignment */
	if (!a->head || a->used + size > a->cap) {
		/* Blocks double up to 8 MiB; big ones are mapped pre-faulted, since
		 * a million lookups touch ~100 MB and page faults one by one cost
		 * more than the lookups on a VM. */
		size_t cap = a->head ? a->head->cap * 2 : SYM_ARENA_MIN;
		if (cap > SYM_ARENA_MAX)
			cap = SYM_ARENA_MAX;
		if (cap < size)
			cap = size;
		sym_arena_block *b;
		size_t total = sizeof *b + cap;
		if (total >= SYM_ARENA_MMAP) {
			void *m = mmap(NULL, total, PROT_READ | PROT_WRITE,
			               MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
			if (m == MAP_FAILED)
				return NULL;
			b = m;
			b->mapped = total;
		} else {
			b = malloc(total);
			if (!b)
				return NULL;
			b->mapped = 0;
		}
		b->next = a->head;
		b->cap = cap;
		a->head = b;
		a->used = 0;
		a->cap = cap;
	}
	void *p = (char *)a->head->data + a->used;
	a->used += size;
	return p;
}

char *symbols__arena_strdup(sym_arena *a, const char *s, size_t len)
{
	char *p = symbols__arena_alloc(a, len + 1);
	if (p) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

void symbols__arena_free(sym_arena *a)
{
	sym_arena_block *b = a->head;
	while (b) {
		sym_arena_block *next = b->next;
		if (b->mapped)
			munmap(b, b->mapped);
		else
			free(b);
		b = next;
	}
	a->head = NULL;
	a->used = a->cap = 0;
}

/* ------------------------------------------------------------ interning --- */

typedef struct intern_key {
	const char *s;
	size_t len;
} intern_key;

static int intern_eq(const void *arg, size_t value)
{
	const intern_key *k = arg;
	const char *c = (const char *)(uintptr_t)value;
	return strncmp(c, k->s, k->len) == 0 && c[k->len] == '\0';
}

const char *symbols__intern(sym_strpool *p, const char *s, size_t len)
{
	uint64_t h = util_hash_bytes(s, len);
	intern_key key = {s, len};
	size_t *found = util_hmap_find(&p->map, h, intern_eq, &key);
	if (found)
		return (const char *)(uintptr_t)*found;
	char *copy = symbols__arena_strdup(p->arena, s, len);
	if (!copy || util_hmap_insert(&p->map, h, (uintptr_t)copy))
		return NULL;
	return copy;
}

void symbols__strpool_free(sym_strpool *p)
{
	util_hmap_free(&p->map);
}

/* ------------------------------------------------------------- the object --- */

typedef struct sym_module {
	unsigned proc;
	uint32_t id;
	int removed;
	uint64_t load_bias;
	sym_image *image;
} sym_module;

typedef struct sym_mapping {
	unsigned proc;
	uint64_t lo, hi; /* run-time addresses, [lo, hi) */
	uint32_t module; /* index into modules */
} sym_mapping;

/* A cached answer: the public result plus its key. */
typedef struct sym_entry {
	symtab_result res;
	uint64_t addr;
	unsigned proc;
	int is_ret;
} sym_entry;

struct symtab {
	trace_diag_fn diag;
	void *diag_arg;
	char *debug_dirs;
	sym_image *images;
	sym_module *modules;
	size_t nmodules, modules_cap;
	sym_mapping *maps;
	size_t nmaps, maps_cap;
	int maps_sorted;
	util_hmap cache;   /* (proc, addr, is_ret) -> (uintptr_t) sym_entry in results */
	sym_arena results; /* entries, frames and "[module+0x...]" names */
	symtab_stats stats;
	symtab_frame unknown_frame; /* shared by every "[unknown]" result */
	int vdso_state;             /* 0 untried, 1 vdso_path usable, -1 unavailable */
	int vdso_fd;
	char vdso_path[64];
};

static void diagf(symtab *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void diagf(symtab *s, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	s->diag(s->diag_arg, buf);
}

int symbols__new(symtab **out, trace_diag_fn diag, void *diag_arg)
{
	*out = NULL;
	symtab *s = calloc(1, sizeof *s);
	if (!s)
		return -ENOMEM;
	s->diag = diag ? diag : trace_diag_stderr;
	s->diag_arg = diag_arg;
	s->debug_dirs = strdup(SYM_DEFAULT_DEBUG_DIRS);
	if (!s->debug_dirs) {
		free(s);
		return -ENOMEM;
	}
	s->unknown_frame.function = "[unknown]";
	*out = s;
	return 0;
}

static void image_free(sym_image *img)
{
	free(img->path);
	free(img->file_used);
	free(img->funcs);
	free(img->lines);
	free(img->scopes);
	free(img->intervals);
	free(img->segs);
	free(img->funcs_idx.first);
	free(img->lines_idx.first);
	free(img->segs_idx.first);
	symbols__strpool_free(&img->strings);
	symbols__arena_free(&img->arena);
	free(img);
}

void symbols__free(symtab *s)
{
	if (!s)
		return;
	sym_image *img = s->images;
	while (img) {
		sym_image *next = img->next;
		image_free(img);
		img = next;
	}
	free(s->modules);
	free(s->maps);
	util_hmap_free(&s->cache);
	free(s->debug_dirs);
	symbols__arena_free(&s->results);
	if (s->vdso_state > 0)
		close(s->vdso_fd);
	free(s);
}

int symbols__set_debug_dirs(symtab *s, const char *dirs)
{
	char *copy = strdup(dirs ? dirs : "");
	if (!copy)
		return -ENOMEM;
	free(s->debug_dirs);
	s->debug_dirs = copy;
	return 0;
}

/* The module map changed: cached answers may now be wrong for their address
 * (the results themselves stay allocated, so pointers callers hold survive). */
static void cache_invalidate(symtab *s)
{
	util_hmap_clear(&s->cache);
}

static sym_image *image_get(symtab *s, const char *path, const uint8_t *build_id, size_t build_id_len)
{
	if (build_id_len > sizeof((sym_image *)0)->trace_build_id)
		build_id_len = 0; /* not a GNU build-id we could compare; ignore it */
	for (sym_image *img = s->images; img; img = img->next)
		if (strcmp(img->path, path) == 0 && img->trace_build_id_len == build_id_len &&
		    (build_id_len == 0 || memcmp(img->trace_build_id, build_id, build_id_len) == 0))
			return img;
	sym_image *img = calloc(1, sizeof *img);
	if (!img)
		return NULL;
	img->path = strdup(path);
	if (!img->path) {
		free(img);
		return NULL;
	}
	const char *slash = strrchr(img->path, '/');
	img->display = slash && slash[1] ? slash + 1 : img->path[0] ? img->path : "unnamed";
	if (build_id_len)
		memcpy(img->trace_build_id, build_id, build_id_len);
	img->trace_build_id_len = build_id_len;
	img->strings.arena = &img->arena;
	img->next = s->images;
	s->images = img;
	s->stats.images++;
	return img;
}

int symbols__add_module(symtab *s, unsigned proc, const symbols__module *mod)
{
	if (!s || !mod || !mod->path)
		return -EINVAL;
	uint32_t module_id = mod->id;
	const char *path = mod->path;
	const uint8_t *build_id = mod->build_id;
	size_t build_id_len = mod->build_id_len;
	uint64_t load_bias = mod->load_bias;
	const trace_segment *segs = mod->segs;
	unsigned nseg = mod->nseg;
	sym_image *img = image_get(s, path, build_id, build_id_len);
	if (!img)
		return -ENOMEM;
	sym_elf_facts facts;
	if (nseg == 0) {
		/* The trace did not record segments: take them from the file. */
		int rc = symbols__elf_facts(path, &facts);
		if (rc < 0 || facts.nloads == 0) {
			diagf(
			    s,
			    "module %s: no segments recorded and the file is unreadable (%s); its addresses "
			    "will show as [unknown]",
			    path, rc == -EINVAL ? "not a regular file" : strerror(rc < 0 ? -rc : ENOEXEC));
			return 0;
		}
		segs = facts.loads;
		nseg = facts.nloads;
	}
	/* A reused id (module reloaded) replaces the old registration. */
	symbols__remove_module(s, proc, module_id);
	sym_module m = {.proc = proc, .id = module_id, .load_bias = load_bias, .image = img};
	if (SYM_PUSH(s->modules, s->nmodules, s->modules_cap, m) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < nseg; i++) {
		if (segs[i].memsz == 0)
			continue;
		sym_mapping map = {.proc = proc,
		                   .lo = load_bias + segs[i].vaddr,
		                   .hi = load_bias + segs[i].vaddr + segs[i].memsz,
		                   .module = (uint32_t)(s->nmodules - 1)};
		if (SYM_PUSH(s->maps, s->nmaps, s->maps_cap, map) < 0)
			return -ENOMEM;
	}
	s->maps_sorted = 0;
	cache_invalidate(s);
	s->stats.modules++;
	return 0;
}

int symbols__remove_module(symtab *s, unsigned proc, uint32_t module_id)
{
	int found = 0;
	for (size_t i = 0; i < s->nmodules; i++) {
		sym_module *m = &s->modules[i];
		if (m->proc != proc || m->id != module_id || m->removed)
			continue;
		m->removed = 1;
		found = 1;
		size_t w = 0;
		for (size_t j = 0; j < s->nmaps; j++)
			if (s->maps[j].module != i)
				s->maps[w++] = s->maps[j];
		s->nmaps = w;
	}
	if (found)
		cache_invalidate(s);
	return found ? 0 : -ENOENT;
}

static int cmp_mapping(const void *a, const void *b)
{
	const sym_mapping *x = a, *y = b;
	if (x->proc != y->proc)
		return x->proc < y->proc ? -1 : 1;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	/* Later registrations win on overlap: they sort last and are found first. */
	return x->module < y->module ? -1 : x->module > y->module;
}

static sym_module *module_at(symtab *s, unsigned proc, uint64_t addr)
{
	if (!s->maps_sorted) {
		if (s->nmaps)
			qsort(s->maps, s->nmaps, sizeof *s->maps, cmp_mapping);
		s->maps_sorted = 1;
	}
	/* Last mapping with (proc, lo) <= (proc, addr). */
	size_t lo = 0, hi = s->nmaps;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const sym_mapping *m = &s->maps[mid];
		if (m->proc < proc || (m->proc == proc && m->lo <= addr))
			lo = mid + 1;
		else
			hi = mid;
	}
	/* Overlapping mappings are rare; look back a few for one that covers addr. */
	for (size_t i = lo, steps = 0; i > 0 && steps < 8; i--, steps++) {
		const sym_mapping *m = &s->maps[i - 1];
		if (m->proc != proc)
			break;
		if (addr < m->hi)
			return &s->modules[m->module];
	}
	return NULL;
}

static sym_module *module_by_id(symtab *s, unsigned proc, uint32_t id)
{
	for (size_t i = s->nmodules; i > 0; i--) {
		sym_module *m = &s->modules[i - 1];
		if (m->proc == proc && m->id == id && !m->removed)
			return m;
	}
	return NULL;
}

/* ------------------------------------------------------------- indexing --- */

static uint64_t key_at(const void *arr, size_t stride, size_t i)
{
	return *(const uint64_t *)(const void *)((const char *)arr + i * stride);
}

static int build_buckets(sym_buckets *bk, const void *arr, size_t n, size_t stride)
{
	if (n < 64 || n >= UINT32_MAX)
		return 0; /* small arrays bisect fast enough */
	uint64_t base = key_at(arr, stride, 0), span = key_at(arr, stride, n - 1) - base;
	unsigned shift = 2;
	while ((span >> shift) > 2 * (uint64_t)n)
		shift++;
	size_t nb = (size_t)(span >> shift) + 1;
	uint32_t *first = malloc((nb + 1) * sizeof *first);
	if (!first)
		return -ENOMEM;
	size_t i = 0;
	for (size_t b = 0; b <= nb; b++) {
		uint64_t start = base + ((uint64_t)b << shift);
		while (i < n && key_at(arr, stride, i) < start)
			i++;
		first[b] = (uint32_t)i;
	}
	*bk = (sym_buckets){.base = base, .shift = shift, .nb = nb, .first = first};
	return 0;
}

static int cmp_interval(const void *a, const void *b)
{
	const sym_interval *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1; /* outer first */
	if (x->hi != y->hi)
		return x->hi > y->hi ? -1 : 1; /* longer first */
	return x->scope < y->scope ? -1 : x->scope > y->scope;
}

static int push_seg(sym_image *img, uint64_t lo, int32_t scope)
{
	if (img->nsegs && img->segs[img->nsegs - 1].lo == lo) {
		img->segs[img->nsegs - 1].scope = scope;
	} else if (img->nsegs && img->segs[img->nsegs - 1].scope == scope) {
		return 0; /* continues the previous segment */
	} else {
		sym_seg seg = {lo, scope};
		if (SYM_PUSH(img->segs, img->nsegs, img->segs_cap, seg) < 0)
			return -ENOMEM;
	}
	/* Merging may have made the previous two segments equal. */
	if (img->nsegs >= 2 && img->segs[img->nsegs - 2].scope == img->segs[img->nsegs - 1].scope)
		img->nsegs--;
	return 0;
}

/* Flattens nested scope intervals into non-overlapping segments naming the
 * innermost scope, with a stack sweep. Intervals not nested in the enclosing
 * one (malformed DWARF) are clipped to it. */
int symbols__flatten_scopes(sym_image *img)
{
	int rc = 0;
	if (img->nintervals)
		qsort(img->intervals, img->nintervals, sizeof *img->intervals, cmp_interval);
	sym_interval *stack = NULL;
	size_t depth = 0, stack_cap = 0;
	for (size_t i = 0; i < img->nintervals && rc == 0; i++) {
		sym_interval iv = img->intervals[i];
		while (depth && stack[depth - 1].hi <= iv.lo) {
			sym_interval top = stack[--depth];
			rc = push_seg(img, top.hi, depth ? stack[depth - 1].scope : -1);
			if (rc)
				break;
		}
		if (rc)
			break;
		if (depth && iv.hi > stack[depth - 1].hi)
			iv.hi = stack[depth - 1].hi;
		if (iv.hi <= iv.lo)
			continue;
		rc = push_seg(img, iv.lo, iv.scope);
		if (rc == 0)
			rc = SYM_PUSH(stack, depth, stack_cap, iv);
	}
	while (rc == 0 && depth) {
		sym_interval top = stack[--depth];
		rc = push_seg(img, top.hi, depth ? stack[depth - 1].scope : -1);
	}
	free(stack);
	free(img->intervals);
	img->intervals = NULL;
	img->nintervals = img->intervals_cap = 0;
	return rc;
}

static void hex_id(const uint8_t *id, size_t len, char *out, size_t out_len)
{
	size_t w = 0;
	for (size_t i = 0; i < len && w + 3 <= out_len; i++)
		w += (size_t)snprintf(out + w, out_len - w, "%02x", id[i]);
	if (w == 0 && out_len)
		out[0] = '\0';
}

static int is_vdso(const char *path)
{
	return strcmp(path, "[vdso]") == 0 || strncmp(path, "linux-vdso.so", 13) == 0 ||
	       strncmp(path, "linux-gate.so", 13) == 0;
}

/* The vDSO is no file on disk, but this process has one mapped. When the
 * run's vDSO has the same build-id (the same kernel build, as when fold runs
 * on the cluster's nodes), this copy symbolises its samples: common in codes
 * that read clocks in their loops. It is copied into a memfd so the ELF code
 * reads it like any module. Returns the path, or NULL. */
static const char *own_vdso_path(symtab *s)
{
	if (s->vdso_state)
		return s->vdso_state > 0 ? s->vdso_path : NULL;
	s->vdso_state = -1;
	const ElfW(Ehdr) *eh = (const ElfW(Ehdr) *)getauxval(AT_SYSINFO_EHDR);
	if (!eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	size_t size = (size_t)eh->e_shoff + (size_t)eh->e_shnum * eh->e_shentsize;
	const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)eh + eh->e_phoff);
	for (unsigned i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_offset + ph[i].p_filesz > size)
			size = ph[i].p_offset + ph[i].p_filesz;
	if (size == 0 || size > (16u << 20))
		return NULL;
	int fd = memfd_create("fold-vdso", MFD_CLOEXEC);
	if (fd < 0)
		return NULL;
	if (write(fd, eh, size) != (ssize_t)size) {
		close(fd);
		return NULL;
	}
	s->vdso_fd = fd;
	snprintf(s->vdso_path, sizeof s->vdso_path, "/proc/self/fd/%d", fd);
	s->vdso_state = 1;
	return s->vdso_path;
}

static int index_image(symtab *s, sym_image *img)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	img->indexed = 1;
	int rc = 0;
	sym_elf_facts facts;
	char debug_path[4096] = "";
	const char *dwarf_src = NULL;
	const char *file = img->path; /* what we read: the recorded path, or our vDSO */

	if (is_vdso(img->path) && access(img->path, R_OK) != 0) {
		file = img->trace_build_id_len ? own_vdso_path(s) : NULL;
		if (!file || symbols__elf_facts(file, &facts) < 0 ||
		    facts.build_id_len != img->trace_build_id_len ||
		    memcmp(facts.build_id, img->trace_build_id, facts.build_id_len) != 0)
			goto done; /* another kernel's vDSO: "[linux-vdso.so.1+0x...]" is all we can say */
	}
	int frc = symbols__elf_facts(file, &facts);
	if (frc < 0) {
		diagf(s, "module %s: cannot read the object file (%s); its addresses show as [%s+0x...]",
		      img->path, frc == -EINVAL ? "not a regular file" : strerror(-frc), img->display);
		goto done;
	}
	img->opened = 1;

	if (img->trace_build_id_len && facts.build_id_len &&
	    (facts.build_id_len != img->trace_build_id_len ||
	     memcmp(facts.build_id, img->trace_build_id, facts.build_id_len) != 0)) {
		/* The file changed since the run. Debug info for the run's build
		 * may still be in the build-id directory; otherwise do not guess. */
		char want[130], have[130];
		hex_id(img->trace_build_id, img->trace_build_id_len, want, sizeof want);
		hex_id(facts.build_id, facts.build_id_len, have, sizeof have);
		sym_elf_facts run_facts = facts;
		memcpy(run_facts.build_id, img->trace_build_id, img->trace_build_id_len);
		run_facts.build_id_len = img->trace_build_id_len;
		run_facts.debuglink[0] = '\0';
		if (symbols__find_debug_file(s->debug_dirs, file, &run_facts, debug_path,
		                             sizeof debug_path) == 0) {
			diagf(s,
			      "module %s: build-id differs from the run (run %s, file %s); using %s, which "
			      "matches "
			      "the run",
			      img->path, want, have, debug_path);
			dwarf_src = debug_path;
			symbols__elf_add_functions(img, debug_path);
			goto dwarf;
		}
		img->mismatch = 1;
		diagf(
		    s,
		    "module %s: build-id differs from the run (run %s, file %s): the file changed since the "
		    "run, so its addresses show as [%s+0x...]",
		    img->path, want, have, img->display);
		goto done;
	}

	if (facts.has_debug_info)
		dwarf_src = file;
	else if (symbols__find_debug_file(s->debug_dirs, file, &facts, debug_path, sizeof debug_path) == 0)
		dwarf_src = debug_path;
	rc = symbols__elf_add_functions(img, file);
	if (rc == 0 && dwarf_src && dwarf_src != file)
		rc = symbols__elf_add_functions(img, dwarf_src);
	if (rc < 0)
		goto done;
dwarf:
	if (dwarf_src) {
		int drc = symbols__dwarf_index(img, dwarf_src, s->diag, s->diag_arg);
		if (drc == 0) {
			img->has_dwarf = 1;
			img->file_used = strdup(dwarf_src);
		} else if (drc == -ENOMEM) {
			rc = drc;
			goto done;
		}
	}
	symbols__elf_finish_functions(img);
	rc = symbols__flatten_scopes(img);
	if (rc == 0)
		rc = build_buckets(&img->funcs_idx, img->funcs, img->nfuncs, sizeof *img->funcs);
	if (rc == 0)
		rc = build_buckets(&img->lines_idx, img->lines, img->nlines, sizeof *img->lines);
	if (rc == 0)
		rc = build_buckets(&img->segs_idx, img->segs, img->nsegs, sizeof *img->segs);
	if (rc < 0)
		goto done;
	if (!img->has_dwarf && file != img->path) {
		/* Our vDSO stands in: no DWARF is expected, its symbols suffice. */
		if (!img->file_used && img->nfuncs)
			img->file_used = strdup(img->path);
	} else if (!img->has_dwarf) {
		if (img->nfuncs)
			diagf(
			    s,
			    "module %s: no DWARF debug info (none in the file, its .gnu_debuglink or the "
			    "build-id "
			    "directory); function names from the ELF symbol table, source lines unavailable",
			    img->path);
		else
			diagf(s, "module %s: no DWARF and no symbol table; its addresses show as [%s+0x...]",
			      img->path, img->display);
		if (!img->file_used && img->nfuncs)
			img->file_used = strdup(img->path);
	}
done:
	clock_gettime(CLOCK_MONOTONIC, &t1);
	s->stats.index_seconds += (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
	return rc;
}

/* -------------------------------------------------------------- lookups --- */

/* Number of elements whose key is <= v (so element [result - 1] contains v). */
static size_t upper_bound(const void *arr, size_t n, size_t stride, const sym_buckets *bk, uint64_t v)
{
	size_t lo = 0, hi = n;
	if (bk->first) {
		if (v < bk->base)
			return 0;
		uint64_t b = (v - bk->base) >> bk->shift;
		if (b < bk->nb) {
			lo = bk->first[b];
			hi = bk->first[b + 1];
		} else {
			lo = bk->first[bk->nb];
		}
	}
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (key_at(arr, stride, mid) <= v)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int32_t scope_at(const sym_image *img, uint64_t v)
{
	size_t i = upper_bound(img->segs, img->nsegs, sizeof *img->segs, &img->segs_idx, v);
	return i ? img->segs[i - 1].scope : -1;
}

static const sym_line *line_at(const sym_image *img, uint64_t v)
{
	size_t i = upper_bound(img->lines, img->nlines, sizeof *img->lines, &img->lines_idx, v);
	if (!i || img->lines[i - 1].line == 0)
		return NULL;
	return &img->lines[i - 1];
}

static sym_func *func_at(sym_image *img, uint64_t v)
{
	size_t i = upper_bound(img->funcs, img->nfuncs, sizeof *img->funcs, &img->funcs_idx, v);
	if (!i || v >= img->funcs[i - 1].hi)
		return NULL;
	return &img->funcs[i - 1];
}

static const char *offset_name(symtab *s, const sym_image *img, uint64_t v)
{
	char buf[512];
	int n = snprintf(buf, sizeof buf, "[%s+0x%llx]", img->display, (unsigned long long)v);
	return symbols__arena_strdup(&s->results, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

static int symbolize(symtab *s, const sym_module *m, uint64_t v, symtab_result *res)
{
	sym_image *img = m->image;
	if (!img->indexed) {
		int rc = index_image(s, img);
		if (rc < 0)
			return rc;
	}
	res->module = img->path;
	res->file_vaddr = v;
	res->has_lines = img->has_dwarf && img->nlines > 0;

	int32_t sc = img->mismatch ? -1 : scope_at(img, v);
	const sym_line *row = img->mismatch ? NULL : line_at(img, v);
	sym_func *fn = img->mismatch ? NULL : func_at(img, v);
	if (fn && !fn->pretty) {
		/* Demangle on first use: most symbols of a library are never sampled. */
		fn->name = symbols__pretty_name(&img->strings, fn->name);
		fn->pretty = 1;
	}
	unsigned n = 1;
	for (int32_t c = sc; c >= 0 && img->scopes[c].parent >= 0; c = img->scopes[c].parent)
		n++;
	symtab_frame *frames = symbols__arena_alloc(&s->results, n * sizeof *frames);
	if (!frames)
		return -ENOMEM;
	frames[0].file = row ? row->file : NULL;
	frames[0].line = row ? row->line : 0;
	if (sc < 0) {
		frames[0].function = fn ? fn->name : offset_name(s, img, v);
	} else {
		int32_t c = sc;
		for (unsigned i = 0; i < n; i++) {
			const sym_scope *scope = &img->scopes[c];
			frames[i].function = scope->name;
			if (i + 1 < n) {
				frames[i + 1].file = scope->call_file;
				frames[i + 1].line = scope->call_line;
			}
			c = scope->parent;
		}
		if (!frames[n - 1].function)
			frames[n - 1].function = fn ? fn->name : offset_name(s, img, v);
		for (unsigned i = 0; i + 1 < n; i++)
			if (!frames[i].function)
				frames[i].function = "[inlined]";
	}
	if (!frames[0].function)
		return -ENOMEM;
	res->frames = frames;
	res->nframes = n;
	return 0;
}

static uint64_t cache_hash(unsigned proc, uint64_t addr, int is_ret)
{
	return util_hash_mix(addr, (uint64_t)proc << 1 | (uint64_t)(is_ret != 0));
}

static int cache_eq(const void *arg, size_t value)
{
	const sym_entry *k = arg, *e = (const sym_entry *)(uintptr_t)value;
	return e->addr == k->addr && e->proc == k->proc && e->is_ret == k->is_ret;
}

int symbols__lookup(symtab *s, unsigned proc, uint64_t addr, int is_return_address, const symtab_result **out)
{
	int is_ret = is_return_address != 0;
	*out = NULL;
	s->stats.lookups++;
	uint64_t h = cache_hash(proc, addr, is_ret);
	sym_entry key = {.addr = addr, .proc = proc, .is_ret = is_ret};
	size_t *hit = util_hmap_find(&s->cache, h, cache_eq, &key);
	if (hit) {
		s->stats.cache_hits++;
		*out = &((sym_entry *)(uintptr_t)*hit)->res;
		return (*out)->module ? 0 : -ENOENT;
	}
	sym_entry *e = symbols__arena_alloc(&s->results, sizeof *e);
	if (!e)
		return -ENOMEM;
	*e = (sym_entry){.addr = addr, .proc = proc, .is_ret = is_ret};
	/* A return address points after the call; addr - 1 is inside the call
	 * instruction, so the caller frame attributes to the call's line. */
	uint64_t where = is_ret && addr ? addr - 1 : addr;
	sym_module *m = module_at(s, proc, where);
	int rc = 0;
	if (m) {
		rc = symbolize(s, m, where - m->load_bias, &e->res);
		if (rc < 0)
			return rc;
		/* Indexing may have reported through diag but never touches the cache. */
	} else {
		s->stats.unknown++;
		e->res.frames = &s->unknown_frame;
		e->res.nframes = 1;
		rc = -ENOENT;
	}
	if (util_hmap_insert(&s->cache, h, (uintptr_t)e) < 0)
		return -ENOMEM;
	*out = &e->res;
	return rc;
}

int symbols__function_name(symtab *s, unsigned proc, uint64_t addr, const char **name)
{
	const symtab_result *r;
	int rc = symbols__lookup(s, proc, addr, 0, &r);
	if (!r)
		return rc;
	*name = r->frames[r->nframes - 1].function;
	return rc;
}

int symbols__module_info_get(symtab *s, unsigned proc, uint32_t module_id, symtab_module_info *info)
{
	sym_module *m = module_by_id(s, proc, module_id);
	if (!m)
		return -ENOENT;
	sym_image *img = m->image;
	if (!img->indexed) {
		int rc = index_image(s, img);
		if (rc < 0)
			return rc;
	}
	*info = (symtab_module_info){.path = img->path,
	                             .file_used = img->file_used,
	                             .opened = img->opened,
	                             .has_dwarf = img->has_dwarf,
	                             .build_id_mismatch = img->mismatch,
	                             .nfunctions = img->nfuncs,
	                             .nlines = img->nlines,
	                             .ninlines = 0};
	for (size_t i = 0; i < img->nscopes; i++)
		if (img->scopes[i].parent >= 0)
			info->ninlines++;
	return 0;
}

void symbols__stats_get(const symtab *s, symtab_stats *st)
{
	*st = s->stats;
}
