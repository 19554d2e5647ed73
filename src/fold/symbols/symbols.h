/* symbols.h: symbolisation of sampled addresses (module, function, file, line, inline chain).
 *
 * Owns the mapping from a run-time address of a traced process to what a user
 * recognises: the module (ELF object) it falls in, the function, the source
 * file and line, and the chain of inlined calls that lead to it.
 *
 * Invariants:
 *  - Every lookup returns a printable frame. No module: function "[unknown]",
 *    module NULL, -ENOENT. Module without symbols: "[module+0xoffset]".
 *    Module without DWARF: ELF symbol names, has_lines 0, and one diag line
 *    per module saying lines are unavailable. Never "??".
 *  - Each module file is indexed once (sorted address tables for functions,
 *    line rows and inline ranges), shared by every process that mapped it.
 *  - Each unique (proc, addr, is_return_address) is symbolised once; the result and
 *    every string it points to stay valid until symbols__free.
 *  - Problems with a module (missing file, build-id mismatch, no DWARF) are
 *    reported through diag once per module, as one line naming the module.
 */
#ifndef FOLD_SYMBOLS_H
#define FOLD_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

#include "trace_reader.h" /* trace_diag_fn, trace_segment */

typedef struct symtab symtab;

typedef struct symtab_frame {
	const char *function;
	const char *file; /* NULL when unknown */
	unsigned line;    /* 0 when unknown */
} symtab_frame;

typedef struct symtab_result {
	const char *module;  /* path as recorded in the trace; NULL when no module contains addr */
	uint64_t file_vaddr; /* address in the ELF file's own address space (after -1 for return addresses) */
	unsigned nframes;
	/* Innermost (inlined) first; the last is the containing out-of-line function.
	 * frames[0].line is the executing line; frames[i>0].line is the call-site
	 * line (DW_AT_call_file/line) of the inlined frames[i-1]. */
	const symtab_frame *frames;
	int has_lines; /* 1 when the module had DWARF line information */
} symtab_result;

int symbols__new(symtab **out, trace_diag_fn diag, void *diag_arg);
void symbols__free(symtab *s);

/* A module as the trace's MODULE_LOAD record describes it: its id in its
 * process, its file, its build id (build_id may be NULL), its load bias, and
 * segs[nseg], the PT_LOAD segments in file vaddrs (run-time address =
 * load_bias + file vaddr). */
typedef struct symbols__module {
	uint32_t id;
	const char *path;
	const uint8_t *build_id;
	size_t build_id_len;
	uint64_t load_bias;
	const trace_segment *segs;
	unsigned nseg;
} symbols__module;

/* Registers the module mod of process proc. The file is opened lazily on the
 * first lookup that falls into it. With mod->nseg == 0 the segments are read
 * from the file itself. */
int symbols__add_module(symtab *s, unsigned proc, const symbols__module *mod);

/* Symbolises addr of process proc. is_return_address: look up addr-1 (caller
 * frames), so a call attributes to its call line. Returns 0, or -ENOENT when
 * no module contains addr (*out is still a printable "[unknown]" frame), or
 * another negative errno on allocation failure (*out then NULL). */
int symbols__lookup(symtab *s, unsigned proc, uint64_t addr, int is_return_address,
                    const symtab_result **out);

/* --- additions beyond the core contract --- */

/* Marks module_id of proc unloaded: later lookups no longer find it (its
 * addresses may be reused by another module). Adding or removing a module
 * drops the per-address cache, but results already returned stay valid.
 * A caller that symbolises after reading the whole trace should not remove
 * modules whose samples it has yet to look up. */
int symbols__remove_module(symtab *s, unsigned proc, uint32_t module_id);

/* Directories searched for separate debug info, like gdb's debug-file-directory
 * (default "/usr/lib/debug"). Colon-separated; replaces the default. */
int symbols__set_debug_dirs(symtab *s, const char *dirs);

/* Module facts after indexing (indexes the module if not yet done). Returns
 * -ENOENT when proc has no such module. */
typedef struct symtab_module_info {
	const char *path;      /* as recorded */
	const char *file_used; /* file the symbols came from (may be a .debug file); NULL if none */
	int opened;            /* the object file was found and readable */
	int has_dwarf;         /* DWARF debug info was found (lines available) */
	int build_id_mismatch; /* the file's build-id differs from the trace's */
	size_t nfunctions, nlines, ninlines;
} symtab_module_info;
int symbols__module_info_get(symtab *s, unsigned proc, uint32_t module_id, symtab_module_info *info);

typedef struct symtab_stats {
	uint64_t lookups;     /* symbols__lookup calls */
	uint64_t cache_hits;  /* answered from the per-address cache */
	uint64_t unknown;     /* addresses outside every module */
	unsigned modules;     /* registered (proc, module) pairs */
	unsigned images;      /* distinct files indexed */
	double index_seconds; /* wall time spent indexing */
} symtab_stats;
void symbols__stats_get(const symtab *s, symtab_stats *st);

/* Symbol name of a function's entry address (e.g. REGION_DEF.address of a
 * -finstrument-functions region): the containing out-of-line function, never
 * an inlined one. Same printable-fallback rules as symbols__lookup. */
int symbols__function_name(symtab *s, unsigned proc, uint64_t addr, const char **name);

#endif
