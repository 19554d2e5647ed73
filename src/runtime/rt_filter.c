/* rt_filter.c: which instrumented functions the compiler hooks record.
 *
 * Owns FOLD_FILTER (a file of include/exclude rules by function-name glob
 * and by source-file glob) and FOLD_MIN_FUNC_BYTES (skip functions whose
 * machine code is smaller, from the ELF symbol sizes), and the symbol lookups
 * they need.
 *
 * Rule file syntax, one rule a line, '#' starts a comment:
 *     exclude function GLOB      include function GLOB
 *     exclude file GLOB          include file GLOB
 * Rules are tried in order and the last one that matches decides; a function
 * no rule matches is recorded. GLOBs are fnmatch(3) patterns without special
 * treatment of '/'. A function pattern is matched against the symbol name, its
 * C++ demangling and, for gfortran symbols, the procedure name ("solve" for
 * "solve_" or "__mod_MOD_solve", and "mod::solve"); a file pattern against the full path of the
 * source file (from DWARF line info) and against its last component.
 *
 * Why our own ELF reader: symbol lookups are needed only once per function
 * address, and libfold.so is loaded into every process it measures, so we keep
 * its dependencies small: <elf.h> over an mmap of the file is enough for names
 * and sizes. DWARF (for file rules only) comes from elfutils' libdw, loaded
 * with dlopen when the first file rule needs it.
 *
 * Invariants:
 *  - Everything here runs outside signal handlers, under lock_ (the caller's
 *    decision lock makes contention rare).
 *  - Module symbol tables are built once and never freed (addresses of
 *    unloaded modules may be reused by a later dlopen: the table is keyed by
 *    path and load bias, so a different object at the same place gets its own).
 */
#include "rt_regions.h"
#include "util.h" /* util_grow: header-only */

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---------------------------------------------------------------- rules */

typedef struct filter_rule {
	int include;
	int on_file;
	char *glob;
} filter_rule;

static pthread_mutex_t lock_ = PTHREAD_MUTEX_INITIALIZER;

/* Held across fork after rt_cyg.c's locks, which nest outside it. */
__attribute__((constructor(102))) static void filter_register_fork_lock(void)
{
	rt__fork_lock_register(&lock_);
}
static filter_rule *rules;
static size_t nrules;
static uint64_t min_func_bytes;
static int inited;

static void rules_free(filter_rule *r, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(r[i].glob);
	free(r);
}

static char *next_token(char **p)
{
	char *s = *p;
	while (*s == ' ' || *s == '\t')
		s++;
	if (!*s)
		return NULL;
	char *tok = s;
	while (*s && *s != ' ' && *s != '\t')
		s++;
	if (*s)
		*s++ = 0;
	*p = s;
	return tok;
}

int rt__filter_parse(const char *text, const char *origin, char *msg, size_t msg_len)
{
	char *copy = strdup(text ? text : "");
	filter_rule *out = NULL;
	size_t n = 0, cap = 0;
	int rc = 0;
	unsigned lineno = 0;
	if (!copy)
		return -ENOMEM;
	for (char *line = copy, *next; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		lineno++;
		char *hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		char *p = line;
		char *verb = next_token(&p);
		if (!verb)
			continue;
		char *what = next_token(&p);
		char *glob = next_token(&p);
		char *extra = next_token(&p);
		int include = strcmp(verb, "include") == 0;
		if ((!include && strcmp(verb, "exclude") != 0) || !what || !glob || extra ||
		    (strcmp(what, "function") != 0 && strcmp(what, "file") != 0)) {
			snprintf(
			    msg, msg_len,
			    "%s:%u: expected \"include|exclude function|file GLOB\" (one glob, no spaces)",
			    origin, lineno);
			rc = -EINVAL;
			goto out;
		}
		if ((rc = util_grow((void **)&out, &cap, n + 1, sizeof *out)))
			goto out;
		out[n].include = include;
		out[n].on_file = what[1] == 'i';
		out[n].glob = strdup(glob);
		if (!out[n].glob) {
			rc = -ENOMEM;
			goto out;
		}
		n++;
	}
	rt__lock(&lock_);
	rules_free(rules, nrules);
	rules = out;
	nrules = n;
	rt__unlock(&lock_);
	out = NULL;
	rc = (int)n;
out:
	if (out)
		rules_free(out, n);
	free(copy);
	return rc;
}

static int load_rule_file(const char *path)
{
	char msg[512];
	FILE *f = fopen(path, "re");
	if (!f) {
		rt__warn("cannot read FOLD_FILTER=%s (%s): every function is recorded", path,
		         strerror(errno));
		return -errno;
	}
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);
	int rc = -ENOMEM;
	if (m) {
		char buf[4096];
		size_t k;
		while ((k = fread(buf, 1, sizeof buf, f)) > 0)
			fwrite(buf, 1, k, m);
		fclose(m);
		rc = rt__filter_parse(text, path, msg, sizeof msg);
		if (rc == -EINVAL)
			rt__warn("%s: FOLD_FILTER ignored, every function is recorded", msg);
		free(text);
	}
	fclose(f);
	return rc < 0 ? rc : 0;
}

void rt__filter_init(void)
{
	rt__lock(&lock_);
	int done = inited;
	inited = 1;
	rt__unlock(&lock_);
	if (done)
		return;
	const char *path = getenv("FOLD_FILTER");
	if (path && *path)
		load_rule_file(path);
	const char *mb = getenv("FOLD_MIN_FUNC_BYTES");
	if (mb && *mb) {
		char *end;
		unsigned long long v = strtoull(mb, &end, 10);
		if (*end || mb[0] == '-')
			rt__warn("FOLD_MIN_FUNC_BYTES=%s: expected a number of bytes; no size limit", mb);
		else
			min_func_bytes = v;
	}
}

int rt__filter_active(void)
{
	return nrules > 0 || min_func_bytes > 0;
}

/* ---------------------------------------------------------------- ELF symbols */

typedef struct func_sym {
	uint64_t value, size;
	const char *name; /* into the module's mapping */
} func_sym;

typedef struct module_syms {
	struct module_syms *next;
	char *path;
	uint64_t bias;
	uint64_t lo, hi; /* runtime address range of its PT_LOAD segments */
	func_sym *sym;
	size_t nsym;
} module_syms;

static module_syms *modules;

static int cmp_sym(const void *a, const void *b)
{
	const func_sym *x = a, *y = b;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	/* Among aliases prefer the one with a size, then globals (named first). */
	return (x->size < y->size) - (x->size > y->size);
}

/* Collects the function symbols of one ELF file; keeps the mapping for names. */
static int read_symbols(const char *path, module_syms *m)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	struct stat st;
	int rc = -ENOEXEC;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return rc;
	}
	size_t len = (size_t)st.st_size;
	uint8_t *map = mmap(NULL, len, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return -errno;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 || !eh->e_shoff ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > len)
		goto fail;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(map + eh->e_shoff);
	const Elf64_Shdr *symtab = NULL;
	for (unsigned i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB || (sh[i].sh_type == SHT_DYNSYM && !symtab))
			symtab = &sh[i];
	if (!symtab || symtab->sh_link >= eh->e_shnum || symtab->sh_entsize != sizeof(Elf64_Sym))
		goto fail;
	const Elf64_Shdr *strs = &sh[symtab->sh_link];
	if (symtab->sh_offset + symtab->sh_size > len || strs->sh_offset + strs->sh_size > len)
		goto fail;
	const Elf64_Sym *sym = (const Elf64_Sym *)(map + symtab->sh_offset);
	size_t nsym = symtab->sh_size / sizeof *sym;
	func_sym *out = malloc((nsym + 1) * sizeof *out);
	if (!out) {
		rc = -ENOMEM;
		goto fail;
	}
	size_t n = 0;
	const char *strbase = (const char *)(map + strs->sh_offset);
	for (size_t i = 0; i < nsym; i++) {
		unsigned type = ELF64_ST_TYPE(sym[i].st_info);
		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym[i].st_shndx == SHN_UNDEF ||
		    !sym[i].st_value || sym[i].st_name >= strs->sh_size)
			continue;
		const char *name = strbase + sym[i].st_name;
		if (!memchr(name, 0, strs->sh_size - sym[i].st_name))
			continue;
		out[n++] = (func_sym){sym[i].st_value, sym[i].st_size, name};
	}
	qsort(out, n, sizeof *out, cmp_sym);
	m->sym = out;
	m->nsym = n;
	return 0;
fail:
	munmap(map, len);
	return rc;
}

typedef struct find_arg {
	uint64_t addr;
	char path[1024];
	uint64_t bias, lo, hi;
	int found;
} find_arg;

static int find_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	find_arg *fa = data;
	uint64_t lo = UINT64_MAX, hi = 0;
	int hit = 0;
	for (unsigned i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t s = info->dlpi_addr + ph->p_vaddr, e = s + ph->p_memsz;
		if (s < lo)
			lo = s;
		if (e > hi)
			hi = e;
		if (fa->addr >= s && fa->addr < e)
			hit = 1;
	}
	if (!hit)
		return 0;
	fa->found = 1;
	fa->bias = info->dlpi_addr;
	fa->lo = lo;
	fa->hi = hi;
	if (info->dlpi_name && info->dlpi_name[0]) {
		snprintf(fa->path, sizeof fa->path, "%s", info->dlpi_name);
	} else {
		ssize_t k = readlink("/proc/self/exe", fa->path, sizeof fa->path - 1);
		fa->path[k > 0 ? k : 0] = 0;
	}
	return 1;
}

static module_syms *module_for(uint64_t addr)
{
	for (module_syms *m = modules; m; m = m->next)
		if (addr >= m->lo && addr < m->hi)
			return m;
	find_arg fa = {.addr = addr};
	dl_iterate_phdr(find_object, &fa);
	if (!fa.found || !fa.path[0])
		return NULL;
	module_syms *m = calloc(1, sizeof *m);
	if (!m)
		return NULL;
	m->path = strdup(fa.path);
	m->bias = fa.bias;
	m->lo = fa.lo;
	m->hi = fa.hi;
	if (!m->path) {
		free(m);
		return NULL;
	}
	read_symbols(m->path, m); /* no symbols: lookups fail, the module still caches that */
	m->next = modules;
	modules = m;
	return m;
}

static const func_sym *sym_for(module_syms *m, uint64_t addr)
{
	uint64_t off = addr - m->bias;
	size_t lo = 0, hi = m->nsym;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (m->sym[mid].value <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	/* Step back over aliases to the first one at this address (sorted to prefer sizes). */
	size_t i = lo - 1;
	while (i > 0 && m->sym[i - 1].value == m->sym[i].value)
		i--;
	const func_sym *s = &m->sym[i];
	if (s->size ? off < s->value + s->size : off == s->value)
		return s;
	return NULL;
}

int rt__symbol_lookup(uint64_t addr, char *name, size_t name_len, uint64_t *start, uint64_t *size)
{
	rt__lock(&lock_);
	module_syms *m = module_for(addr);
	const func_sym *s = m ? sym_for(m, addr) : NULL;
	if (s) {
		if (name && name_len)
			snprintf(name, name_len, "%s", s->name);
		if (start)
			*start = m->bias + s->value;
		if (size)
			*size = s->size;
	}
	rt__unlock(&lock_);
	return s ? 0 : -ENOENT;
}

/* The first executable segment of each loaded object, collected without
 * allocating: module_for reads symbols (allocation, files) and must run
 * outside dl_iterate_phdr, whose lock a sample's unwind in another thread
 * may need while that thread holds the allocator's lock. */
#define PRELOAD_MAX 1024
typedef struct preload_list {
	uint64_t addr[PRELOAD_MAX];
	unsigned n;
} preload_list;

static int preload_one(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	preload_list *l = data;
	for (unsigned i = 0; i < info->dlpi_phnum && l->n < PRELOAD_MAX; i++)
		if (info->dlpi_phdr[i].p_type == PT_LOAD && (info->dlpi_phdr[i].p_flags & PF_X)) {
			l->addr[l->n++] = info->dlpi_addr + info->dlpi_phdr[i].p_vaddr;
			break;
		}
	return 0;
}

void rt__filter_preload(void)
{
	if (!rt__filter_active())
		return;
	preload_list *l = calloc(1, sizeof *l);
	if (!l)
		return;
	dl_iterate_phdr(preload_one, l);
	rt__lock(&lock_);
	for (unsigned k = 0; k < l->n; k++) {
		int known = 0;
		for (module_syms *m = modules; m && !known; m = m->next)
			known = l->addr[k] >= m->lo && l->addr[k] < m->hi;
		if (!known)
			module_for(l->addr[k]);
	}
	rt__unlock(&lock_);
	free(l);
}

/* ---------------------------------------------------------------- source files (libdw, lazily) */

/* From elfutils' libdwfl.h: opaque handles and the callback table. */
typedef struct Dwfl Dwfl;
typedef struct Dwfl_Module Dwfl_Module;
typedef struct Dwfl_Line Dwfl_Line;
typedef int (*dwfl_callback)(void);
typedef struct {
	dwfl_callback find_elf;
	dwfl_callback find_debuginfo;
	dwfl_callback section_address;
	char **debuginfo_path;
} Dwfl_Callbacks;

static struct {
	int tried, ok;
	Dwfl *dwfl;
	Dwfl *(*begin)(const Dwfl_Callbacks *);
	int (*proc_report)(Dwfl *, pid_t);
	void (*report_begin)(Dwfl *);
	int (*report_end)(Dwfl *, void *, void *);
	Dwfl_Module *(*addrmodule)(Dwfl *, uint64_t);
	Dwfl_Line *(*getsrc)(Dwfl_Module *, uint64_t);
	const char *(*lineinfo)(Dwfl_Line *, uint64_t *, int *, int *, uint64_t *, uint64_t *);
	dwfl_callback find_elf;
	dwfl_callback find_debuginfo;
} dw;

static Dwfl_Callbacks dw_callbacks;

static int dw_open(void)
{
	if (dw.tried)
		return dw.ok;
	dw.tried = 1;
	void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		rt__warn(
		    "FOLD_FILTER has file rules but libdw.so.1 (elfutils) cannot be loaded: file rules never "
		    "match");
		return 0;
	}
#define DW_SYM(field, sym)                                                                                   \
	do {                                                                                                 \
		*(void **)&dw.field = dlsym(h, #sym);                                                        \
		if (!dw.field)                                                                               \
			return 0;                                                                            \
	} while (0)
	DW_SYM(begin, dwfl_begin);
	DW_SYM(proc_report, dwfl_linux_proc_report);
	DW_SYM(report_begin, dwfl_report_begin);
	DW_SYM(report_end, dwfl_report_end);
	DW_SYM(addrmodule, dwfl_addrmodule);
	DW_SYM(getsrc, dwfl_module_getsrc);
	DW_SYM(lineinfo, dwfl_lineinfo);
	DW_SYM(find_elf, dwfl_linux_proc_find_elf);
	DW_SYM(find_debuginfo, dwfl_standard_find_debuginfo);
#undef DW_SYM
	dw_callbacks.find_elf = dw.find_elf;
	dw_callbacks.find_debuginfo = dw.find_debuginfo;
	dw.dwfl = dw.begin(&dw_callbacks);
	if (!dw.dwfl)
		return 0;
	dw.ok = 1;
	return 1;
}

/* The source file of the function at addr, or NULL. Reports the process's
 * modules again when addr is in none of the known ones (a dlopen since). */
static const char *source_file(uint64_t addr)
{
	if (!dw_open())
		return NULL;
	Dwfl_Module *mod = dw.addrmodule(dw.dwfl, addr);
	if (!mod) {
		dw.report_begin(dw.dwfl);
		if (dw.proc_report(dw.dwfl, getpid()) != 0)
			return NULL;
		dw.report_end(dw.dwfl, NULL, NULL);
		mod = dw.addrmodule(dw.dwfl, addr);
		if (!mod)
			return NULL;
	}
	Dwfl_Line *line = dw.getsrc(mod, addr);
	if (!line)
		return NULL;
	return dw.lineinfo(line, NULL, NULL, NULL, NULL, NULL);
}

/* ---------------------------------------------------------------- decisions */

/* "solve" for gfortran's "solve_" and "__mod_MOD_solve" (and "mod::solve",
 * as fold names it, in qualified); NULL otherwise. */
static const char *fortran_name(const char *sym, char *buf, size_t len, char *qualified, size_t qlen)
{
	const char *mod = strstr(sym, "_MOD_");
	if (sym[0] == '_' && sym[1] == '_' && mod) {
		snprintf(buf, len, "%s", mod + 5);
		snprintf(qualified, qlen, "%.*s::%s", (int)(mod - sym - 2), sym + 2, mod + 5);
		return buf;
	}
	size_t n = strlen(sym);
	if (n > 1 && sym[n - 1] == '_' && sym[n - 2] != '_' && n < len) {
		memcpy(buf, sym, n - 1);
		buf[n - 1] = 0;
		return buf;
	}
	return NULL;
}

typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);

static int function_matches(const char *glob, const char *sym, const char *demangled, const char *fortran,
                            const char *qualified)
{
	return fnmatch(glob, sym, 0) == 0 || (demangled && fnmatch(glob, demangled, 0) == 0) ||
	       (fortran && fnmatch(glob, fortran, 0) == 0) ||
	       (qualified[0] && fnmatch(glob, qualified, 0) == 0);
}

static int file_matches(const char *glob, const char *file)
{
	if (!file)
		return 0;
	const char *base = strrchr(file, '/');
	return fnmatch(glob, file, 0) == 0 || (base && fnmatch(glob, base + 1, 0) == 0);
}

enum rt_filter_verdict rt__filter_decide(uint64_t fn)
{
	if (!rt__filter_active())
		return FOLD_FILTER_RECORD;
	char name[512] = "";
	uint64_t start = 0, size = 0;
	int known = rt__symbol_lookup(fn, name, sizeof name, &start, &size) == 0;
	if (min_func_bytes && known && size && size < min_func_bytes)
		return FOLD_FILTER_TOO_SMALL;
	if (!nrules)
		return FOLD_FILTER_RECORD;
	char *demangled = NULL;
	char fbuf[512], qbuf[512] = "";
	const char *fortran = known ? fortran_name(name, fbuf, sizeof fbuf, qbuf, sizeof qbuf) : NULL;
	if (known && name[0] == '_' && name[1] == 'Z') {
		demangle_fn demangle = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
		int status = -1;
		if (demangle)
			demangled = demangle(name, NULL, NULL, &status);
		if (status != 0) {
			free(demangled);
			demangled = NULL;
		}
	}
	enum rt_filter_verdict v = FOLD_FILTER_RECORD;
	rt__lock(&lock_);
	const char *file = NULL;
	int file_looked = 0;
	for (size_t i = 0; i < nrules; i++) {
		int hit;
		if (rules[i].on_file) {
			if (!file_looked) {
				file = source_file(fn);
				file_looked = 1;
			}
			hit = file_matches(rules[i].glob, file);
		} else {
			hit = known && function_matches(rules[i].glob, name, demangled, fortran, qbuf);
		}
		if (hit)
			v = rules[i].include ? FOLD_FILTER_RECORD : FOLD_FILTER_EXCLUDED;
	}
	rt__unlock(&lock_);
	free(demangled);
	return v;
}

int rt__env_flag(const char *name, int dflt)
{
	const char *v = getenv(name);
	if (!v || !*v)
		return dflt;
	if (!strcmp(v, "0") || !strcasecmp(v, "off") || !strcasecmp(v, "no") || !strcasecmp(v, "false"))
		return 0;
	if (!strcmp(v, "1") || !strcasecmp(v, "on") || !strcasecmp(v, "yes") || !strcasecmp(v, "true"))
		return 1;
	rt__warn("%s=%s: expected 1/on or 0/off; using %s", name, v, dflt ? "on" : "off");
	return dflt;
}
