/* symbols_elf.c: ELF object files for symbolisation (libelf).
 *
 * Owns reading an object's build-id, .gnu_debuglink, PT_LOAD segments and
 * function symbols (.symtab, .dynsym); finding its separate debug file the
 * way gdb does; turning linkage names into names a user recognises (C++
 * demangled through libstdc++'s __cxa_demangle, loaded at run time so fold
 * does not link libstdc++; gfortran "__m_MOD_p" as "m::p"); normalising paths.
 *
 * Invariants: files are opened read-only and closed before returning; nothing
 * here reports through diag (callers decide what the user needs to hear).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "symbols_internal.h"

#ifndef NT_GNU_BUILD_ID
#define NT_GNU_BUILD_ID 3
#endif

static pthread_once_t elf_once = PTHREAD_ONCE_INIT;
static int elf_ok;

static void elf_init_once(void)
{
	elf_ok = elf_version(EV_CURRENT) != EV_NONE;
}

static int elf_open(const char *path, int *fd_out, Elf **elf_out)
{
	pthread_once(&elf_once, elf_init_once);
	if (!elf_ok)
		return -ENOSYS;
	int fd = util_open_regular(path, NULL); /* a path from the trace: never a FIFO or device */
	if (fd < 0)
		return fd;
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		close(fd);
		return -ENOEXEC;
	}
	*fd_out = fd;
	*elf_out = elf;
	return 0;
}

static void elf_close(int fd, Elf *elf)
{
	elf_end(elf);
	close(fd);
}

/* Looks for an NT_GNU_BUILD_ID note in one note data block. */
static int find_build_id(Elf_Data *data, sym_elf_facts *f)
{
	size_t off = 0, next;
	GElf_Nhdr nh;
	size_t name_off, desc_off;
	while (data && off < data->d_size &&
	       (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    memcmp((char *)data->d_buf + name_off, "GNU", 4) == 0 && nh.n_descsz > 0 &&
		    nh.n_descsz <= sizeof f->build_id) {
			memcpy(f->build_id, (char *)data->d_buf + desc_off, nh.n_descsz);
			f->build_id_len = nh.n_descsz;
			return 1;
		}
		off = next;
	}
	return 0;
}

int symbols__elf_facts(const char *path, sym_elf_facts *f)
{
	int fd;
	Elf *elf;
	memset(f, 0, sizeof *f);
	int rc = elf_open(path, &fd, &elf);
	if (rc < 0)
		return rc;
	size_t nphdr = 0, shstrndx = 0;
	if (elf_getphdrnum(elf, &nphdr) == 0) {
		for (size_t i = 0; i < nphdr; i++) {
			GElf_Phdr ph;
			if (!gelf_getphdr(elf, (int)i, &ph))
				continue;
			if (ph.p_type == PT_LOAD && f->nloads < sizeof f->loads / sizeof f->loads[0]) {
				f->loads[f->nloads].vaddr = ph.p_vaddr;
				f->loads[f->nloads].memsz = ph.p_memsz;
				f->loads[f->nloads].prot = (uint8_t)(ph.p_flags & 7);
				f->nloads++;
			} else if (ph.p_type == PT_NOTE && !f->build_id_len) {
				find_build_id(
				    elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR),
				    f);
			}
		}
	}
	if (elf_getshdrstrndx(elf, &shstrndx) == 0) {
		Elf_Scn *scn = NULL;
		while ((scn = elf_nextscn(elf, scn))) {
			GElf_Shdr sh;
			if (!gelf_getshdr(scn, &sh))
				continue;
			const char *name = elf_strptr(elf, shstrndx, sh.sh_name);
			if (!name)
				continue;
			if (sh.sh_type == SHT_NOTE && !f->build_id_len)
				find_build_id(elf_getdata(scn, NULL), f);
			else if (strcmp(name, ".debug_info") == 0 && sh.sh_type != SHT_NOBITS &&
			         sh.sh_size > 0)
				f->has_debug_info = 1;
			else if (strcmp(name, ".gnu_debuglink") == 0 && sh.sh_type != SHT_NOBITS) {
				Elf_Data *d = elf_getdata(scn, NULL);
				if (!d || !d->d_buf)
					continue;
				size_t len = strnlen(d->d_buf, d->d_size);
				size_t crc_off = (len + 4) & ~(size_t)3;
				if (len == 0 || len >= sizeof f->debuglink || crc_off + 4 > d->d_size)
					continue;
				memcpy(f->debuglink, d->d_buf, len);
				f->debuglink[len] = '\0';
				uint32_t crc;
				memcpy(&crc, (char *)d->d_buf + crc_off, 4);
				f->debuglink_crc =
				    crc; /* written in the object's byte order; x86-64 only here */
			}
		}
	}
	elf_close(fd, elf);
	return 0;
}

/* The end of section index shndx, for a size-0 symbol in it (hand-written
 * assembly): it runs to the next symbol, but not past its section (glibc's
 * _init, size 0 in .init, would otherwise take the .plt after it); 0 when
 * not a real section. */
static uint64_t section_end(Elf *elf, unsigned shndx)
{
	if (shndx == SHN_UNDEF || shndx >= SHN_LORESERVE)
		return 0;
	GElf_Shdr sh;
	Elf_Scn *scn = elf_getscn(elf, shndx);
	if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC))
		return 0;
	return sh.sh_addr + sh.sh_size;
}

/* x86-64 PLT stubs as functions "NAME@plt" (as perf and objdump name them):
 * the i-th relocation of .rela.plt is the stub at .plt.sec + 16 i when the
 * object has a .plt.sec (IBT), else .plt + 16 (i + 1) (after the PLT's
 * header). A sample in a stub is in the call to NAME, not in the function
 * whose symbol happens to come before .plt. Relocations other than jump
 * slots (an IFUNC's IRELATIVE) keep their place, unnamed. */
static int add_plt_stubs(sym_image *img, Elf *elf)
{
	GElf_Ehdr eh;
	size_t shstrndx;
	if (!gelf_getehdr(elf, &eh) || eh.e_machine != EM_X86_64 || elf_getshdrstrndx(elf, &shstrndx))
		return 0;
	GElf_Shdr rela = {0}, plt = {0}, plt_sec = {0};
	Elf_Scn *rela_scn = NULL;
	for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
		GElf_Shdr sh;
		const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, shstrndx, sh.sh_name) : NULL;
		if (!name || sh.sh_type == SHT_NOBITS)
			continue;
		if (!strcmp(name, ".rela.plt") && sh.sh_type == SHT_RELA) {
			rela = sh;
			rela_scn = scn;
		} else if (!strcmp(name, ".plt"))
			plt = sh;
		else if (!strcmp(name, ".plt.sec"))
			plt_sec = sh;
	}
	if (!rela_scn || !rela.sh_entsize || (!plt.sh_size && !plt_sec.sh_size))
		return 0;
	Elf_Scn *dynsym_scn = elf_getscn(elf, rela.sh_link);
	GElf_Shdr dynsym;
	Elf_Data *rd = elf_getdata(rela_scn, NULL), *sd = dynsym_scn ? elf_getdata(dynsym_scn, NULL) : NULL;
	if (!rd || !sd || !gelf_getshdr(dynsym_scn, &dynsym))
		return 0;
	uint64_t base = plt_sec.sh_size ? plt_sec.sh_addr : plt.sh_addr + 16;
	uint64_t end = plt_sec.sh_size ? plt_sec.sh_addr + plt_sec.sh_size : plt.sh_addr + plt.sh_size;
	size_t n = rela.sh_size / rela.sh_entsize;
	for (size_t i = 0; i < n && base + 16 * (i + 1) <= end; i++) {
		GElf_Rela r;
		GElf_Sym sym;
		if (!gelf_getrela(rd, (int)i, &r) || GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
		    !gelf_getsym(sd, (int)GELF_R_SYM(r.r_info), &sym))
			continue;
		const char *name = elf_strptr(elf, dynsym.sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		char buf[512];
		int len = snprintf(buf, sizeof buf, "%.*s@plt", (int)strcspn(name, "@"), name);
		if (len <= 0 || (size_t)len >= sizeof buf)
			continue;
		const char *interned = symbols__intern(&img->strings, buf, (size_t)len);
		if (!interned)
			return -ENOMEM;
		sym_func fn = {.lo = base + 16 * i, .hi = base + 16 * (i + 1), .name = interned, .rank = 0};
		int rc = SYM_PUSH(img->funcs, img->nfuncs, img->funcs_cap, fn);
		if (rc)
			return rc;
	}
	return 0;
}

int symbols__elf_add_functions(sym_image *img, const char *path)
{
	int fd;
	Elf *elf;
	int rc = elf_open(path, &fd, &elf);
	if (rc < 0)
		return 0; /* a missing debug file only means fewer symbols */
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn)) && rc == 0) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    sh.sh_entsize == 0)
			continue;
		Elf_Data *data = elf_getdata(scn, NULL);
		if (!data)
			continue;
		size_t n = sh.sh_size / sh.sh_entsize;
		for (size_t i = 0; i < n && rc == 0; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			int type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_value == 0)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			size_t len = strcspn(name, "@"); /* drop "@GLIBC_2.2.5" version suffixes */
			const char *interned = symbols__intern(&img->strings, name, len);
			if (!interned) {
				rc = -ENOMEM;
				break;
			}
			int bind = GELF_ST_BIND(sym.st_info);
			uint64_t hi = sym.st_value + sym.st_size;
			if (!sym.st_size) {
				uint64_t e = section_end(elf, sym.st_shndx);
				hi = e > sym.st_value ? e : hi;
			}
			sym_func fn = {.lo = sym.st_value,
			               .hi = hi,
			               .name = interned,
			               .rank = (uint8_t)((bind == STB_GLOBAL ? 4
			                                  : bind == STB_WEAK ? 2
			                                                     : 0) +
			                                 (sym.st_size > 0))};
			rc = SYM_PUSH(img->funcs, img->nfuncs, img->funcs_cap, fn);
		}
	}
	if (rc == 0)
		rc = add_plt_stubs(img, elf);
	elf_close(fd, elf);
	return rc;
}

static int cmp_func(const void *a, const void *b)
{
	const sym_func *x = a, *y = b;
	if (x->lo != y->lo)
		return x->lo < y->lo ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank > y->rank ? -1 : 1; /* preferred first */
	/* Among aliases prefer the public spelling: printf over _IO_printf. */
	size_t ux = strspn(x->name, "_"), uy = strspn(y->name, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	return strcmp(x->name, y->name);
}

void symbols__elf_finish_functions(sym_image *img)
{
	if (!img->nfuncs)
		return;
	qsort(img->funcs, img->nfuncs, sizeof *img->funcs, cmp_func);
	size_t w = 0;
	for (size_t i = 0; i < img->nfuncs; i++) {
		if (w && img->funcs[w - 1].lo == img->funcs[i].lo) {
			if (img->funcs[w - 1].hi < img->funcs[i].hi)
				img->funcs[w - 1].hi = img->funcs[i].hi;
			continue;
		}
		img->funcs[w++] = img->funcs[i];
	}
	img->nfuncs = w;
	for (size_t i = 0; i < w; i++) {
		uint64_t next = i + 1 < w ? img->funcs[i + 1].lo : UINT64_MAX;
		/* A size-0 symbol (hand-written assembly) runs to the next one. */
		if (img->funcs[i].hi <= img->funcs[i].lo)
			img->funcs[i].hi = next == UINT64_MAX ? img->funcs[i].lo + 1 : next;
		if (img->funcs[i].hi > next)
			img->funcs[i].hi = next;
	}
}

/* --------------------------------------------------- separate debug files --- */

static int file_crc32(const char *path, uint32_t *crc_out)
{
	int fd = util_open_regular(path, NULL);
	if (fd < 0)
		return fd;
	uLong crc = crc32(0L, Z_NULL, 0);
	static __thread unsigned char buf[1 << 16];
	ssize_t n;
	while ((n = read(fd, buf, sizeof buf)) > 0)
		crc = crc32(crc, buf, (uInt)n);
	int err = n < 0 ? -errno : 0;
	close(fd);
	*crc_out = (uint32_t)crc;
	return err;
}

/* A candidate debug file fits when it is a different, readable ELF file with
 * DWARF whose build-id matches (or, without build-ids, whose CRC matches the
 * debuglink's). */
static int debug_candidate_ok(const char *cand, const char *object_path, const sym_elf_facts *want,
                              int check_crc)
{
	struct stat a, b;
	if (stat(cand, &a) != 0 || !S_ISREG(a.st_mode))
		return 0;
	if (stat(object_path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		return 0;
	sym_elf_facts f;
	if (symbols__elf_facts(cand, &f) < 0)
		return 0;
	if (want->build_id_len && f.build_id_len)
		return f.build_id_len == want->build_id_len &&
		       memcmp(f.build_id, want->build_id, f.build_id_len) == 0;
	if (check_crc) {
		uint32_t crc = 0;
		return file_crc32(cand, &crc) == 0 && crc == want->debuglink_crc;
	}
	return 1;
}

int symbols__find_debug_file(const char *debug_dirs, const char *object_path, const sym_elf_facts *facts,
                             char *out, size_t out_len)
{
	char cand[8192]; /* room for a PATH_MAX directory plus a debuglink name */
	const char *dirs = debug_dirs ? debug_dirs : "";
	/* 1. <debug-dir>/.build-id/ab/cdef....debug */
	if (facts->build_id_len >= 2) {
		char hex[130];
		for (size_t i = 0; i < facts->build_id_len; i++)
			snprintf(hex + 2 * i, 3, "%02x", facts->build_id[i]);
		for (const char *d = dirs; *d;) {
			size_t dl = strcspn(d, ":");
			if (dl) {
				snprintf(cand, sizeof cand, "%.*s/.build-id/%.2s/%s.debug", (int)dl, d, hex,
				         hex + 2);
				if (debug_candidate_ok(cand, object_path, facts, 0))
					goto found;
			}
			d += dl + (d[dl] == ':');
		}
	}
	/* 2. .gnu_debuglink: next to the object, in .debug/ there, under each debug dir. */
	if (facts->debuglink[0]) {
		char dir[4096];
		const char *slash = strrchr(object_path, '/');
		if (slash)
			snprintf(dir, sizeof dir, "%.*s", (int)(slash - object_path), object_path);
		else
			snprintf(dir, sizeof dir, ".");
		snprintf(cand, sizeof cand, "%s/%s", dir, facts->debuglink);
		if (debug_candidate_ok(cand, object_path, facts, 1))
			goto found;
		snprintf(cand, sizeof cand, "%s/.debug/%s", dir, facts->debuglink);
		if (debug_candidate_ok(cand, object_path, facts, 1))
			goto found;
		for (const char *d = dirs; *d;) {
			size_t dl = strcspn(d, ":");
			if (dl) {
				snprintf(cand, sizeof cand, "%.*s/%s/%s", (int)dl, d,
				         dir[0] == '/' ? dir + 1 : dir, facts->debuglink);
				if (debug_candidate_ok(cand, object_path, facts, 1))
					goto found;
			}
			d += dl + (d[dl] == ':');
		}
	}
	return -ENOENT;
found:
	if (strlen(cand) >= out_len)
		return -ENAMETOOLONG;
	strcpy(out, cand);
	return 0;
}

/* ------------------------------------------------------------------ names --- */

typedef char *(*cxa_demangle_fn)(const char *, char *, size_t *, int *);
static pthread_once_t demangle_once = PTHREAD_ONCE_INIT;
static cxa_demangle_fn cxa_demangle;

static void demangle_init_once(void)
{
	/* Kept loaded for the life of the process: names are demangled until exit. */
	void *h = dlopen("libstdc++.so.6", RTLD_LAZY | RTLD_LOCAL);
	if (h)
		*(void **)&cxa_demangle = dlsym(h, "__cxa_demangle");
}

const char *symbols__pretty_name(sym_strpool *p, const char *name)
{
	if (!name)
		return NULL;
	if (name[0] == '_' && name[1] == 'Z') {
		pthread_once(&demangle_once, demangle_init_once);
		if (cxa_demangle) {
			int status = -1;
			char *d = cxa_demangle(name, NULL, NULL, &status);
			if (d && status == 0) {
				const char *r = symbols__intern(p, d, strlen(d));
				free(d);
				return r ? r : name;
			}
			free(d);
		}
		return name;
	}
	/* gfortran module procedures: __<module>_MOD_<procedure>. */
	if (name[0] == '_' && name[1] == '_') {
		const char *mod = strstr(name + 2, "_MOD_");
		if (mod && mod > name + 2 && mod[5]) {
			char buf[1024];
			int n =
			    snprintf(buf, sizeof buf, "%.*s::%s", (int)(mod - (name + 2)), name + 2, mod + 5);
			if (n > 0 && (size_t)n < sizeof buf) {
				const char *r = symbols__intern(p, buf, (size_t)n);
				return r ? r : name;
			}
		}
	}
	return name;
}

void symbols__normalize_path(char *path)
{
	/* In place: the output is never longer than what has been read. */
	int absolute = path[0] == '/';
	char *w = path + absolute;
	const char *r = path + absolute;
	char *root = w; /* ".." never pops above this */
	while (*r) {
		size_t len = strcspn(r, "/");
		if (len == 0 || (len == 1 && r[0] == '.')) {
			/* empty and "." components vanish */
		} else if (len == 2 && r[0] == '.' && r[1] == '.') {
			char *start = w;
			while (start > root && start[-1] != '/')
				start--;
			size_t clen = (size_t)(w - start);
			if (clen > 0 && !(clen == 2 && start[0] == '.' && start[1] == '.')) {
				w = start > root ? start - 1 : start; /* "dir/.." folds away */
			} else if (!absolute || clen > 0) {
				if (w > root)
					*w++ = '/';
				memmove(w, r, 2); /* leading ".." of a relative path stays */
				w += 2;
			}
		} else {
			if (w > root)
				*w++ = '/';
			memmove(w, r, len);
			w += len;
		}
		r += len;
		if (*r == '/')
			r++;
	}
	if (w == path)
		*w++ = '.';
	*w = '\0';
}
