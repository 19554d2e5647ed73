/* symbols_dwarf.c: DWARF indexing with libdwarf (the only file that calls it).
 *
 * Owns reading one object's DWARF (versions 2-5 as GCC 12, Clang 14 and
 * gfortran emit it: DW_FORM_addrx, rnglistx, .debug_rnglists, .debug_ranges)
 * into a sym_image: line-table rows, one scope per out-of-line function and
 * per DW_TAG_inlined_subroutine with its call file/line, and the address
 * intervals of each scope. Everything version-specific about libdwarf lives
 * here: this file is written against libdwarf 20210528 (Debian 12), whose
 * dwarf_init_b still takes an access argument and whose CU/sibling calls
 * are dwarf_next_cu_header_d / dwarf_siblingof_b (libdwarf >= 0.4 renamed
 * them _e / _c and dropped access).
 *
 * Invariants:
 *  - Every Dwarf_Die, Dwarf_Attribute, Dwarf_Error, range list and line
 *    context obtained is released before returning (valgrind clean).
 *  - A DIE that cannot be read costs only itself: errors inside a CU skip
 *    the DIE, not the module.
 *  - File numbers are resolved through the CU's own file table, whose base
 *    libdwarf reports (0 for DWARF 5, 1 before), for both line rows and
 *    DW_AT_call_file.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdwarf/dwarf.h>
#include <libdwarf/libdwarf.h>

#include "symbols_internal.h"

typedef struct dw_name {
	Dwarf_Off off;
	const char *name;
} dw_name;

typedef struct dw_range {
	uint64_t lo, hi;
} dw_range;

typedef struct dw_ctx {
	sym_image *img;
	Dwarf_Debug dbg;
	int oom;
	/* current CU */
	Dwarf_Half version;
	Dwarf_Addr cu_base;
	const char **files; /* indexed by DWARF file number - files_base */
	size_t nfiles, files_cap;
	Dwarf_Signed files_base;
	uint32_t line_order;
	/* DIE offset -> display name, for abstract origins and specifications:
	 * names[] holds the pairs, names_map indexes them by offset */
	dw_name *names;
	size_t names_n, names_cap;
	util_hmap names_map;
	/* scratch */
	dw_range *ranges;
	size_t nranges, ranges_cap;
	uint64_t dies_seen;
} dw_ctx;

static void drop_error(dw_ctx *c, Dwarf_Error *err)
{
	if (*err) {
		dwarf_dealloc_error(c->dbg, *err);
		*err = NULL;
	}
}

/* Most DWARF fetches: OK, or not present (errors are treated as absent). */
static int dw_ok(dw_ctx *c, int res, Dwarf_Error *err)
{
	if (res == DW_DLV_ERROR)
		drop_error(c, err);
	return res == DW_DLV_OK;
}

static const char *intern(dw_ctx *c, const char *s)
{
	if (!s)
		return NULL;
	const char *r = symbols__intern(&c->img->strings, s, strlen(s));
	if (!r)
		c->oom = 1;
	return r;
}

static const char *die_string(dw_ctx *c, Dwarf_Die die, Dwarf_Half attr)
{
	char *s = NULL;
	Dwarf_Error err = NULL;
	if (!dw_ok(c, dwarf_die_text(die, attr, &s, &err), &err))
		return NULL;
	return s; /* points into .debug_str; no deallocation needed */
}

static int die_ref(dw_ctx *c, Dwarf_Die die, Dwarf_Half attrnum, Dwarf_Off *off)
{
	Dwarf_Attribute attr = NULL;
	Dwarf_Error err = NULL;
	if (!dw_ok(c, dwarf_attr(die, attrnum, &attr, &err), &err))
		return 0;
	int ok = dw_ok(c, dwarf_global_formref(attr, off, &err), &err);
	dwarf_dealloc_attribute(attr);
	return ok;
}

static int die_udata(dw_ctx *c, Dwarf_Die die, Dwarf_Half attrnum, Dwarf_Unsigned *val)
{
	Dwarf_Attribute attr = NULL;
	Dwarf_Error err = NULL;
	if (!dw_ok(c, dwarf_attr(die, attrnum, &attr, &err), &err))
		return 0;
	int ok = dw_ok(c, dwarf_formudata(attr, val, &err), &err);
	if (!ok) {
		/* libdwarf 20210528 reads DW_FORM_implicit_const (GCC 12's usual
		 * form for DW_AT_call_file) only through dwarf_formsdata. */
		Dwarf_Signed sval = 0;
		ok = dw_ok(c, dwarf_formsdata(attr, &sval, &err), &err) && sval >= 0;
		if (ok)
			*val = (Dwarf_Unsigned)sval;
	}
	dwarf_dealloc_attribute(attr);
	return ok;
}

static int die_flag(dw_ctx *c, Dwarf_Die die, Dwarf_Half attrnum)
{
	Dwarf_Bool has = 0;
	Dwarf_Error err = NULL;
	return dw_ok(c, dwarf_hasattr(die, attrnum, &has, &err), &err) && has;
}

/* ------------------------------------------------------------------- names --- */

typedef struct name_key {
	Dwarf_Off off;
	const dw_name *names;
} name_key;

static int name_eq(const void *arg, size_t i)
{
	const name_key *k = arg;
	return k->names[i].off == k->off;
}

static const char *cached_name(dw_ctx *c, Dwarf_Off off, int *found)
{
	name_key key = {off, c->names};
	size_t *i = util_hmap_find(&c->names_map, util_hash_mix(off, 0), name_eq, &key);
	*found = i != NULL;
	return i ? c->names[*i].name : NULL;
}

static void remember_name(dw_ctx *c, Dwarf_Off off, const char *name)
{
	if (util_grow((void **)&c->names, &c->names_cap, c->names_n + 1, sizeof *c->names) ||
	    util_hmap_insert(&c->names_map, util_hash_mix(off, 0), c->names_n)) {
		c->oom = 1;
		return;
	}
	c->names[c->names_n++] = (dw_name){off, name};
}

static const char *name_of_offset(dw_ctx *c, Dwarf_Off off, const char *prefix, int depth);

/* The name a user recognises for a function DIE: its demangled linkage name,
 * else that of its abstract origin or specification (where C++ keeps it, so
 * an inlined copy is named like the out-of-line one), else its name
 * qualified by the Fortran module it is in. */
static const char *name_of_die(dw_ctx *c, Dwarf_Die die, const char *prefix, int depth)
{
	const char *s = die_string(c, die, DW_AT_linkage_name);
	if (!s)
		s = die_string(c, die, DW_AT_MIPS_linkage_name);
	if (s)
		return symbols__pretty_name(&c->img->strings, intern(c, s));
	Dwarf_Off off;
	if (depth < 8 && /* deeper is a reference cycle in broken DWARF */
	    (die_ref(c, die, DW_AT_abstract_origin, &off) || die_ref(c, die, DW_AT_specification, &off))) {
		const char *r = name_of_offset(c, off, prefix, depth + 1);
		if (r)
			return r;
	}
	s = die_string(c, die, DW_AT_name);
	/* GCC names an outlined OpenMP region after its function's linkage
	 * name ("_ZN9Integrate3runEv._omp_fn.0", "__m_MOD_p._omp_fn.1"), which
	 * is already qualified: demangled, not prefixed again. */
	if (s && s[0] == '_' && (s[1] == 'Z' || (s[1] == '_' && strstr(s, "_MOD_"))))
		return symbols__pretty_name(&c->img->strings, intern(c, s));
	if (s && prefix) {
		char buf[1024];
		int n = snprintf(buf, sizeof buf, "%s::%s", prefix, s);
		if (n > 0 && (size_t)n < sizeof buf)
			return intern(c, buf);
	}
	return s ? intern(c, s) : NULL;
}

static const char *name_of_offset(dw_ctx *c, Dwarf_Off off, const char *prefix, int depth)
{
	int found;
	const char *name = cached_name(c, off, &found);
	if (found)
		return name;
	Dwarf_Die die = NULL;
	Dwarf_Error err = NULL;
	if (!dw_ok(c, dwarf_offdie_b(c->dbg, off, 1, &die, &err), &err))
		return NULL;
	name = name_of_die(c, die, prefix, depth);
	dwarf_dealloc_die(die);
	remember_name(c, off, name);
	return name;
}

/* ------------------------------------------------------------------ ranges --- */

static void push_range(dw_ctx *c, uint64_t lo, uint64_t hi)
{
	/* 0 and all-ones are the tombstones linkers leave for discarded code. */
	if (lo == 0 || lo >= hi || lo >= UINT64_MAX - 2)
		return;
	dw_range r = {lo, hi};
	if (SYM_PUSH(c->ranges, c->nranges, c->ranges_cap, r) < 0)
		c->oom = 1;
}

static void ranges_v5(dw_ctx *c, Dwarf_Attribute attr, Dwarf_Half form)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned val = 0;
	if (form == DW_FORM_rnglistx) {
		if (!dw_ok(c, dwarf_formudata(attr, &val, &err), &err))
			return;
	} else {
		Dwarf_Off off;
		if (!dw_ok(c, dwarf_global_formref(attr, &off, &err), &err))
			return;
		val = off;
	}
	Dwarf_Rnglists_Head head = NULL;
	Dwarf_Unsigned count = 0, global_off = 0;
	if (!dw_ok(c, dwarf_rnglists_get_rle_head(attr, form, val, &head, &count, &global_off, &err), &err))
		return;
	for (Dwarf_Unsigned i = 0; i < count; i++) {
		unsigned len = 0, code = 0;
		Dwarf_Unsigned raw1, raw2, lo, hi;
		Dwarf_Bool unavailable = 0;
		if (!dw_ok(c,
		           dwarf_get_rnglists_entry_fields_a(head, i, &len, &code, &raw1, &raw2, &unavailable,
		                                             &lo, &hi, &err),
		           &err))
			continue;
		if (unavailable)
			continue;
		switch (code) {
		case DW_RLE_offset_pair:
		case DW_RLE_startx_endx:
		case DW_RLE_startx_length:
		case DW_RLE_start_end:
		case DW_RLE_start_length:
			push_range(c, lo, hi); /* cooked values are absolute */
			break;
		default: break; /* base address entries and the end marker */
		}
	}
	dwarf_dealloc_rnglists_head(head);
}

static void ranges_v4(dw_ctx *c, Dwarf_Die die, Dwarf_Attribute attr)
{
	Dwarf_Error err = NULL;
	Dwarf_Off off = 0;
	if (!dw_ok(c, dwarf_global_formref(attr, &off, &err), &err)) {
		Dwarf_Unsigned u;
		if (!dw_ok(c, dwarf_formudata(attr, &u, &err), &err))
			return;
		off = u;
	}
	Dwarf_Ranges *ranges = NULL;
	Dwarf_Signed count = 0;
	Dwarf_Off real_off = 0;
	Dwarf_Unsigned bytes = 0;
	if (!dw_ok(c, dwarf_get_ranges_b(c->dbg, off, die, &real_off, &ranges, &count, &bytes, &err), &err))
		return;
	Dwarf_Addr base = c->cu_base;
	for (Dwarf_Signed i = 0; i < count; i++) {
		if (ranges[i].dwr_type == DW_RANGES_ENTRY)
			push_range(c, base + ranges[i].dwr_addr1, base + ranges[i].dwr_addr2);
		else if (ranges[i].dwr_type == DW_RANGES_ADDRESS_SELECTION)
			base = ranges[i].dwr_addr2;
		else
			break;
	}
	dwarf_ranges_dealloc(c->dbg, ranges, count);
}

/* Fills c->ranges with the code ranges of die; returns how many. */
static size_t die_ranges(dw_ctx *c, Dwarf_Die die)
{
	Dwarf_Error err = NULL;
	Dwarf_Addr lo;
	c->nranges = 0;
	if (dw_ok(c, dwarf_lowpc(die, &lo, &err), &err)) {
		Dwarf_Addr hi;
		Dwarf_Half form;
		enum Dwarf_Form_Class cls;
		if (dw_ok(c, dwarf_highpc_b(die, &hi, &form, &cls, &err), &err)) {
			if (cls == DW_FORM_CLASS_CONSTANT)
				hi += lo; /* DWARF 4+: high_pc is a length */
			push_range(c, lo, hi);
		}
		return c->nranges;
	}
	Dwarf_Attribute attr = NULL;
	if (!dw_ok(c, dwarf_attr(die, DW_AT_ranges, &attr, &err), &err))
		return 0;
	Dwarf_Half form = 0;
	if (dw_ok(c, dwarf_whatform(attr, &form, &err), &err)) {
		if (c->version >= 5)
			ranges_v5(c, attr, form);
		else
			ranges_v4(c, die, attr);
	}
	dwarf_dealloc_attribute(attr);
	return c->nranges;
}

/* ------------------------------------------------------------------ scopes --- */

static int32_t add_scope(dw_ctx *c, const char *name, const char *call_file, unsigned call_line,
                         int32_t parent, unsigned depth)
{
	sym_image *img = c->img;
	if (img->nscopes >= INT32_MAX) {
		c->oom = 1;
		return -1;
	}
	sym_scope sc = {.name = name, .call_file = call_file, .call_line = call_line, .parent = parent};
	if (SYM_PUSH(img->scopes, img->nscopes, img->scopes_cap, sc) < 0) {
		c->oom = 1;
		return -1;
	}
	int32_t id = (int32_t)(img->nscopes - 1);
	for (size_t i = 0; i < c->nranges; i++) {
		sym_interval iv = {.lo = c->ranges[i].lo, .hi = c->ranges[i].hi, .scope = id, .depth = depth};
		if (SYM_PUSH(img->intervals, img->nintervals, img->intervals_cap, iv) < 0)
			c->oom = 1;
	}
	return id;
}

static const char *file_name(dw_ctx *c, Dwarf_Unsigned fileno)
{
	if ((Dwarf_Signed)fileno < c->files_base)
		return NULL;
	size_t i = (size_t)((Dwarf_Signed)fileno - c->files_base);
	return i < c->nfiles ? c->files[i] : NULL;
}

static void walk_children(dw_ctx *c, Dwarf_Die parent_die, int32_t scope, unsigned depth, const char *prefix);

static void visit_die(dw_ctx *c, Dwarf_Die die, int32_t scope, unsigned depth, const char *prefix)
{
	Dwarf_Half tag = 0;
	Dwarf_Error err = NULL;
	c->dies_seen++;
	if (!dw_ok(c, dwarf_tag(die, &tag, &err), &err))
		return;
	switch (tag) {
	case DW_TAG_subprogram: {
		/* A declaration or an abstract instance has no code of its own. */
		if (die_flag(c, die, DW_AT_declaration) || die_ranges(c, die) == 0)
			return;
		const char *name = name_of_die(c, die, prefix, 0);
		int32_t id = add_scope(c, name, NULL, 0, -1, 0);
		if (id >= 0)
			walk_children(c, die, id, 1, prefix);
		return;
	}
	case DW_TAG_inlined_subroutine: {
		if (scope < 0 || die_ranges(c, die) == 0)
			return;
		Dwarf_Off origin;
		const char *name = NULL;
		if (die_ref(c, die, DW_AT_abstract_origin, &origin))
			name = name_of_offset(c, origin, NULL, 0);
		else
			name = name_of_die(c, die, NULL, 0);
		Dwarf_Unsigned fileno = 0, line = 0;
		const char *call_file =
		    die_udata(c, die, DW_AT_call_file, &fileno) ? file_name(c, fileno) : NULL;
		die_udata(c, die, DW_AT_call_line, &line);
		int32_t id = add_scope(c, name, call_file, (unsigned)line, scope, depth);
		if (id >= 0)
			walk_children(c, die, id, depth + 1, prefix);
		return;
	}
	case DW_TAG_lexical_block:
	case DW_TAG_try_block:
	case DW_TAG_catch_block:
		if (scope >= 0)
			walk_children(c, die, scope, depth, prefix);
		return;
	case DW_TAG_module: {
		/* Fortran: procedures of a module are named module::procedure. */
		const char *mod = die_string(c, die, DW_AT_name);
		walk_children(c, die, scope, depth, mod ? intern(c, mod) : prefix);
		return;
	}
	case DW_TAG_namespace:
		/* Definitions sit inside namespaces; their names come from linkage
		 * names. Classes hold only member declarations (GCC and Clang put
		 * the definitions at namespace level with DW_AT_specification),
		 * and skipping them saves most of a C++ program's DIEs. */
		if (scope < 0)
			walk_children(c, die, scope, depth, prefix);
		return;
	default: return;
	}
}

static void walk_children(dw_ctx *c, Dwarf_Die parent_die, int32_t scope, unsigned depth, const char *prefix)
{
	Dwarf_Die child = NULL;
	Dwarf_Error err = NULL;
	if (!dw_ok(c, dwarf_child(parent_die, &child, &err), &err))
		return;
	while (child && !c->oom) {
		visit_die(c, child, scope, depth, prefix);
		Dwarf_Die next = NULL;
		int res = dwarf_siblingof_b(c->dbg, child, 1, &next, &err);
		dwarf_dealloc_die(child);
		child = dw_ok(c, res, &err) ? next : NULL;
	}
	if (child)
		dwarf_dealloc_die(child);
}

/* ------------------------------------------------------------------- lines --- */

/* Joins dir and name into a normalised, interned path. */
static const char *join_path(dw_ctx *c, const char *comp_dir, const char *dir, const char *name)
{
	char buf[4096];
	int n;
	if (name[0] == '/' || !dir || !*dir)
		n = snprintf(buf, sizeof buf, "%s%s%s", name[0] != '/' && comp_dir ? comp_dir : "",
		             name[0] != '/' && comp_dir ? "/" : "", name);
	else if (dir[0] == '/' || !comp_dir)
		n = snprintf(buf, sizeof buf, "%s/%s", dir, name);
	else
		n = snprintf(buf, sizeof buf, "%s/%s/%s", comp_dir, dir, name);
	if (n < 0 || (size_t)n >= sizeof buf)
		return intern(c, name);
	symbols__normalize_path(buf);
	return intern(c, buf);
}

static void build_file_table(dw_ctx *c, Dwarf_Line_Context ctx, Dwarf_Unsigned lversion,
                             const char *cu_comp_dir)
{
	Dwarf_Error err = NULL;
	Dwarf_Signed base = 0, count = 0, end = 0;
	c->nfiles = 0;
	c->files_base = 0;
	if (!dw_ok(c, dwarf_srclines_files_indexes(ctx, &base, &count, &end, &err), &err))
		return;
	const char *comp_dir = NULL;
	if (!dw_ok(c, dwarf_srclines_comp_dir(ctx, &comp_dir, &err), &err) || !comp_dir)
		comp_dir = cu_comp_dir;
	Dwarf_Signed ndirs = 0;
	if (!dw_ok(c, dwarf_srclines_include_dir_count(ctx, &ndirs, &err), &err))
		ndirs = 0;
	c->files_base = base;
	for (Dwarf_Signed i = base; i < end && !c->oom; i++) {
		const char *name = NULL;
		Dwarf_Unsigned diridx = 0, mtime = 0, length = 0;
		Dwarf_Form_Data16 *md5 = NULL;
		const char *path = NULL;
		if (dw_ok(c, dwarf_srclines_files_data_b(ctx, i, &name, &diridx, &mtime, &length, &md5, &err),
		          &err) &&
		    name) {
			/* Directory 0 is the compilation directory; libdwarf numbers
			 * include directories from 1 in every version, which for
			 * DWARF 5 is entry diridx itself. */
			const char *dir = NULL;
			if (diridx > 0 || lversion >= 5) {
				Dwarf_Signed di = lversion >= 5 ? (Dwarf_Signed)diridx : (Dwarf_Signed)diridx;
				if (di >= 1 && di <= ndirs &&
				    !dw_ok(c, dwarf_srclines_include_dir_data(ctx, di, &dir, &err), &err))
					dir = NULL;
			}
			path = join_path(c, comp_dir, dir, name);
		}
		if (SYM_PUSH(c->files, c->nfiles, c->files_cap, path) < 0)
			c->oom = 1;
	}
}

static void index_lines(dw_ctx *c, Dwarf_Die cu, const char *cu_comp_dir)
{
	Dwarf_Error err = NULL;
	Dwarf_Unsigned lversion = 0;
	Dwarf_Small table_count = 0;
	Dwarf_Line_Context ctx = NULL;
	c->nfiles = 0;
	if (!dw_ok(c, dwarf_srclines_b(cu, &lversion, &table_count, &ctx, &err), &err))
		return;
	build_file_table(c, ctx, lversion, cu_comp_dir);
	Dwarf_Line *lines = NULL;
	Dwarf_Signed nlines = 0;
	if (table_count == 1 && dw_ok(c, dwarf_srclines_from_linecontext(ctx, &lines, &nlines, &err), &err)) {
		sym_image *img = c->img;
		for (Dwarf_Signed i = 0; i < nlines && !c->oom; i++) {
			Dwarf_Addr addr = 0;
			Dwarf_Unsigned lineno = 0, fileno = 0;
			Dwarf_Bool end_seq = 0;
			if (!dw_ok(c, dwarf_lineaddr(lines[i], &addr, &err), &err))
				continue;
			dw_ok(c, dwarf_lineendsequence(lines[i], &end_seq, &err), &err);
			sym_line row = {.addr = addr, .order = c->line_order++};
			if (!end_seq) {
				dw_ok(c, dwarf_lineno(lines[i], &lineno, &err), &err);
				dw_ok(c, dwarf_line_srcfileno(lines[i], &fileno, &err), &err);
				row.line = (unsigned)lineno;
				row.file = row.line ? file_name(c, fileno) : NULL;
			}
			if (addr == 0 && !end_seq)
				continue; /* a sequence of discarded code */
			if (SYM_PUSH(img->lines, img->nlines, img->lines_cap, row) < 0)
				c->oom = 1;
		}
	}
	dwarf_srclines_dealloc_b(ctx);
}

static int cmp_line(const void *a, const void *b)
{
	const sym_line *x = a, *y = b;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* At one address a row that starts code wins over one that ends a sequence. */
	int xe = x->file == NULL && x->line == 0, ye = y->file == NULL && y->line == 0;
	if (xe != ye)
		return xe ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void finish_lines(sym_image *img)
{
	if (!img->nlines)
		return;
	qsort(img->lines, img->nlines, sizeof *img->lines, cmp_line);
	/* Of several rows at one address keep the last, as debuggers do. */
	size_t w = 0;
	for (size_t i = 0; i < img->nlines; i++) {
		if (w && img->lines[w - 1].addr == img->lines[i].addr)
			w--;
		img->lines[w++] = img->lines[i];
	}
	img->nlines = w;
}

/* --------------------------------------------------------------------- CUs --- */

static void index_cu(dw_ctx *c, Dwarf_Die cu)
{
	Dwarf_Error err = NULL;
	Dwarf_Half tag = 0;
	if (!dw_ok(c, dwarf_tag(cu, &tag, &err), &err))
		return;
	if (tag != DW_TAG_compile_unit && tag != DW_TAG_partial_unit && tag != DW_TAG_skeleton_unit)
		return;
	Dwarf_Addr base = 0;
	if (!dw_ok(c, dwarf_lowpc(cu, &base, &err), &err))
		base = 0;
	c->cu_base = base;
	const char *comp_dir = die_string(c, cu, DW_AT_comp_dir);
	index_lines(c, cu, comp_dir);
	walk_children(c, cu, -1, 0, NULL);
}

int symbols__dwarf_index(sym_image *img, const char *path, trace_diag_fn diag, void *diag_arg)
{
	Dwarf_Debug dbg = NULL;
	Dwarf_Error err = NULL;
	char msg[1024];
	/* fold opens the file itself, a regular file only (a path from the
	 * trace: never a FIFO or a device), and finds separate debug files
	 * itself (symbols__find_debug_file): libdwarf's own search by path
	 * would open whatever a debuglink names. */
	int fd = util_open_regular(path, NULL);
	if (fd < 0)
		return -ENODATA;
	int res = dwarf_init_b(fd, DW_DLC_READ, DW_GROUPNUMBER_ANY, NULL, NULL, &dbg, &err);
	if (res == DW_DLV_NO_ENTRY) {
		close(fd);
		return -ENODATA;
	}
	if (res != DW_DLV_OK) {
		snprintf(msg, sizeof msg, "module %s: cannot read DWARF from %s: %s", img->path, path,
		         err ? dwarf_errmsg(err) : "unknown libdwarf error");
		if (err)
			dwarf_dealloc_error(dbg, err);
		close(fd);
		diag(diag_arg, msg);
		return -ENODATA;
	}
	dw_ctx c = {.img = img, .dbg = dbg};
	size_t ncu = 0;
	for (;;) {
		Dwarf_Unsigned hdr_len = 0, typeoff = 0, next = 0;
		Dwarf_Half version = 0, addr_size = 0, len_size = 0, ext_size = 0, cu_type = 0;
		Dwarf_Off abbrev = 0;
		Dwarf_Sig8 sig;
		res = dwarf_next_cu_header_d(dbg, 1, &hdr_len, &version, &abbrev, &addr_size, &len_size,
		                             &ext_size, &sig, &typeoff, &next, &cu_type, &err);
		if (res == DW_DLV_NO_ENTRY)
			break;
		if (res == DW_DLV_ERROR) {
			snprintf(msg, sizeof msg,
			         "module %s: DWARF in %s is damaged after %zu compilation units (%s)",
			         img->path, path, ncu, dwarf_errmsg(err));
			dwarf_dealloc_error(dbg, err);
			diag(diag_arg, msg);
			break;
		}
		ncu++;
		c.version = version;
		Dwarf_Die cu = NULL;
		if (dw_ok(&c, dwarf_siblingof_b(dbg, NULL, 1, &cu, &err), &err)) {
			if (cu_type != DW_UT_type && cu_type != DW_UT_split_type)
				index_cu(&c, cu);
			dwarf_dealloc_die(cu);
		}
		if (c.oom)
			break;
	}
	free(c.files);
	free(c.names);
	util_hmap_free(&c.names_map);
	free(c.ranges);
	dwarf_finish(dbg, &err);
	close(fd);
	if (c.oom)
		return -ENOMEM;
	finish_lines(img);
	if (img->nlines == 0 && img->nscopes == 0)
		return -ENODATA;
	return 0;
}
