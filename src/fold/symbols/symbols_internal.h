/* symbols_internal.h: what the symbolisation modules share (not for other modules).
 *
 * symbols.c owns the symtab object, the module map and the result cache;
 * symbols_elf.c owns ELF files (symbol tables, build-id, debug-file search,
 * demangling); symbols_dwarf.c owns everything libdwarf. They meet in one
 * sym_image per distinct object file: its sorted address index.
 *
 * Invariants of a sym_image once indexed:
 *  - funcs sorted by lo, non-overlapping, hi > lo (ELF symbols).
 *  - lines sorted by addr; a row covers [addr, next row's addr); a row with
 *    line 0 and file NULL ends a sequence (covers nothing).
 *  - segs sorted by lo; seg i covers [segs[i].lo, segs[i+1].lo) and names the
 *    innermost scope there (-1: no DWARF function). Scopes form a forest: an
 *    inlined scope's parent is the scope it was inlined into; out-of-line
 *    functions have parent -1.
 *  - Every string is interned in the image's pool and lives as long as the symtab.
 */
#ifndef FOLD_SYMBOLS_INTERNAL_H
#define FOLD_SYMBOLS_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "symbols.h"
#include "util.h"

/* --- bump allocator: everything a symtab hands out lives here until symbols__free --- */
typedef struct sym_arena_block sym_arena_block;
typedef struct sym_arena {
	sym_arena_block *head;
	size_t used, cap; /* of head */
} sym_arena;
void *symbols__arena_alloc(sym_arena *a, size_t size);
char *symbols__arena_strdup(sym_arena *a, const char *s, size_t len);
void symbols__arena_free(sym_arena *a);

/* --- string interning (one copy of each file/function name) --- */
typedef struct sym_strpool {
	sym_arena *arena;
	util_hmap map; /* string hash -> (uintptr_t) pooled copy */
} sym_strpool;
/* Returns the pooled copy of s[0..len), or NULL on allocation failure. */
const char *symbols__intern(sym_strpool *p, const char *s, size_t len);
void symbols__strpool_free(sym_strpool *p);

/* --- growable arrays (util_grow) --- */
#define SYM_PUSH(arr, n, cap, value)                                                                         \
	((n) < (cap) || util_grow((void **)&(arr), &(cap), (n) + 1, sizeof *(arr)) == 0                      \
	     ? ((arr)[(n)++] = (value), 0)                                                                   \
	     : -ENOMEM)

/* --- the per-file index --- */
typedef struct sym_func {
	uint64_t lo, hi;
	const char *name; /* raw ELF name until pretty is set, then the display name */
	uint8_t rank;     /* which of several symbols at one address to keep: global > weak > local */
	uint8_t pretty;
} sym_func;

typedef struct sym_line {
	uint64_t addr;
	const char *file; /* NULL on an end-of-sequence row */
	unsigned line;
	uint32_t order; /* position in the DWARF, to keep the last of rows at one address */
} sym_line;

typedef struct sym_scope {
	const char *name;
	const char *call_file; /* call site of this inlined scope (in its parent); NULL if unknown */
	unsigned call_line;
	int32_t parent; /* -1 for an out-of-line function */
} sym_scope;

typedef struct sym_seg {
	uint64_t lo;
	int32_t scope; /* innermost scope covering [lo, next lo), -1 = none */
} sym_seg;

/* An address range of a scope, before flattening into segs. */
typedef struct sym_interval {
	uint64_t lo, hi;
	int32_t scope;
	uint32_t depth;
} sym_interval;

/* Bucket index over a sorted array whose elements start with a uint64_t key:
 * first[b] = number of keys below base + (b << shift), for b in 0..nb. A
 * search then only bisects one bucket, which stays in cache. */
typedef struct sym_buckets {
	uint64_t base;
	unsigned shift;
	size_t nb;
	uint32_t *first; /* NULL: plain bisection */
} sym_buckets;

typedef struct sym_image {
	struct sym_image *next;
	char *path;          /* as recorded in the trace */
	const char *display; /* basename, for "[module+0x...]" */
	uint8_t trace_build_id[64];
	size_t trace_build_id_len;

	int indexed;     /* indexing attempted (successfully or not) */
	int opened;      /* the object file was readable */
	int has_dwarf;   /* DWARF lines/functions came from some file */
	int mismatch;    /* file build-id differs from the trace's: symbols not used */
	char *file_used; /* file whose DWARF (or symbols) we used */

	sym_arena arena;
	sym_strpool strings;

	sym_func *funcs;
	size_t nfuncs, funcs_cap;
	sym_line *lines;
	size_t nlines, lines_cap;
	sym_scope *scopes;
	size_t nscopes, scopes_cap;
	sym_interval *intervals; /* freed after flattening */
	size_t nintervals, intervals_cap;
	sym_seg *segs;
	size_t nsegs, segs_cap;
	sym_buckets funcs_idx, lines_idx, segs_idx;
} sym_image;

/* What symbols_elf.c learned about an object file. */
typedef struct sym_elf_facts {
	uint8_t build_id[64];
	size_t build_id_len;
	char debuglink[256]; /* "" when none */
	uint32_t debuglink_crc;
	int has_debug_info; /* non-empty .debug_info present (not NOBITS) */
	trace_segment loads[16];
	unsigned nloads;
} sym_elf_facts;

/* symbols_elf.c */
int symbols__elf_facts(const char *path, sym_elf_facts *facts);
/* Adds STT_FUNC symbols of path (.symtab and .dynsym) to img->funcs. */
int symbols__elf_add_functions(sym_image *img, const char *path);
/* Sorts and de-overlaps img->funcs. */
void symbols__elf_finish_functions(sym_image *img);
/* Finds a separate debug file for an object (build-id directory, then
 * .gnu_debuglink next to it, in .debug/, and under each debug dir). Writes
 * the path to out and returns 0, or -ENOENT. */
int symbols__find_debug_file(const char *debug_dirs, const char *object_path, const sym_elf_facts *facts,
                             char *out, size_t out_len);
/* Human name for a linkage name: C++ demangled, gfortran "__m_MOD_p" as
 * "m::p"; otherwise the name itself. Result interned in p. */
const char *symbols__pretty_name(sym_strpool *p, const char *name);
/* Normalises a path in place: no "//", no "/./", "dir/../" folded, no leading "./". */
void symbols__normalize_path(char *path);

/* symbols_dwarf.c: indexes the DWARF of path into img (lines, scopes,
 * intervals). Returns 0, -ENODATA when path has no DWARF, or another negative
 * errno; explains failures through diag. */
int symbols__dwarf_index(sym_image *img, const char *path, trace_diag_fn diag, void *diag_arg);

/* symbols.c: flattens img->intervals into img->segs. */
int symbols__flatten_scopes(sym_image *img);

#endif
