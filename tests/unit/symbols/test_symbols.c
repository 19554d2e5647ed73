/* Symbolisation through the symtab API on programs with known structure,
 * compiled at build time (see progs/ and CMakeLists.txt): inline chains with
 * call lines, PIE and non-PIE, gcc/clang/gfortran/g++, DWARF 4 and 5, a shared
 * library at a load bias, stripped copies, separate debug files, return
 * addresses, build-id mismatch and missing files. Expected lines come from
 * "@marker" comments in the sources, expected addresses from nm. */
#define _GNU_SOURCE
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "symbols.h"
#include "symbols_internal.h"

#define PROG(name) SYMTEST_PROG_DIR "/" name

/* --------------------------------------------------------------- helpers --- */

typedef struct diag_log {
	int count;
	char text[4096];
} diag_log;

static void diag_capture(void *arg, const char *msg)
{
	diag_log *log = arg;
	size_t used = strlen(log->text);
	snprintf(log->text + used, sizeof log->text - used, "%s\n", msg);
	log->count++;
}

/* Line number of the source line holding marker ("@name"). */
static unsigned marker_line(const char *source, const char *marker)
{
	char path[1024], buf[512];
	snprintf(path, sizeof path, "%s/%s", SYMTEST_SRC_DIR, source);
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	unsigned line = 0, found = 0;
	while (fgets(buf, sizeof buf, f)) {
		line++;
		if (strstr(buf, marker)) {
			found = line;
			break;
		}
	}
	fclose(f);
	if (!found)
		fail_msg("marker %s not found in %s", marker, path);
	return found;
}

/* Address and size of a defined symbol, from nm. */
static void nm_symbol(const char *prog, const char *name, uint64_t *addr, uint64_t *size)
{
	char cmd[1024], line[1024];
	snprintf(cmd, sizeof cmd, "'%s' -S --defined-only '%s'", SYMTEST_NM, prog);
	FILE *p = popen(cmd, "r");
	assert_non_null(p);
	int found = 0;
	while (fgets(line, sizeof line, p)) {
		unsigned long long a, s;
		char type, sym[900];
		if (sscanf(line, "%llx %llx %c %899s", &a, &s, &type, sym) == 4 && strcmp(sym, name) == 0) {
			*addr = a;
			*size = s;
			found = 1;
		}
	}
	pclose(p);
	if (!found)
		fail_msg("symbol %s not found in %s", name, prog);
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = s ? strlen(s) : 0, b = strlen(suffix);
	return s && a >= b && strcmp(s + a - b, suffix) == 0;
}

static void assert_clean_path(const char *file)
{
	assert_non_null(file);
	assert_true(file[0] == '/');
	assert_null(strstr(file, "/./"));
	assert_null(strstr(file, "//"));
	assert_null(strstr(file, "/../"));
}

static symtab *new_symtab(diag_log *log)
{
	symtab *s;
	memset(log, 0, sizeof *log);
	assert_int_equal(symbols__new(&s, diag_capture, log), 0);
	return s;
}

/* ---------------------------------------------------------- inline chains --- */

/* Every address of compute() must end in compute; the inlined body must show
 * helper_inner (helpers.h) <- helper_outer (called at @call_inner) <- compute
 * (called at @call_outer), in that order, with clean absolute paths. */
static void check_inline_chain(const char *prog)
{
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0, NULL, 0}), 0);
	uint64_t lo, size;
	nm_symbol(prog, "compute", &lo, &size);
	unsigned inner_body = marker_line("inc/helpers.h", "@inner_body");
	unsigned call_inner = marker_line("inl.c", "@call_inner");
	unsigned call_outer = marker_line("inl.c", "@call_outer");
	int chains = 0;
	for (uint64_t a = lo; a < lo + size; a++) {
		const symtab_result *r;
		assert_int_equal(symbols__lookup(s, 0, a, 0, &r), 0);
		assert_string_equal(r->module, prog);
		assert_int_equal(r->file_vaddr, a);
		assert_int_equal(r->has_lines, 1);
		assert_true(r->nframes >= 1);
		assert_string_equal(r->frames[r->nframes - 1].function, "compute");
		if (strcmp(r->frames[0].function, "helper_inner") != 0)
			continue;
		/* The call sites come from the inline DIEs and must always be
		 * right; the executing line comes from the line table, where
		 * clang attributes some inlined instructions to the loop. */
		assert_int_equal(r->nframes, 3);
		assert_clean_path(r->frames[0].file);
		if (ends_with(r->frames[0].file, "/progs/inc/helpers.h") && r->frames[0].line == inner_body)
			chains++;
		assert_string_equal(r->frames[1].function, "helper_outer");
		assert_true(ends_with(r->frames[1].file, "/progs/inl.c"));
		assert_int_equal(r->frames[1].line, call_inner);
		assert_true(ends_with(r->frames[2].file, "/progs/inl.c"));
		assert_int_equal(r->frames[2].line, call_outer);
	}
	if (chains == 0)
		fail_msg("%s: no address of compute() shows the helper_inner inline chain", prog);
	assert_int_equal(log.count, 0);
	symtab_module_info info;
	assert_int_equal(symbols__module_info_get(s, 0, 1, &info), 0);
	assert_int_equal(info.has_dwarf, 1);
	assert_true(info.ninlines >= 2);
	symbols__free(s);
}

static void test_inline_chain_gcc_pie(void **state)
{
	(void)state;
	check_inline_chain(PROG("inl_gcc_pie"));
}

static void test_inline_chain_gcc_nopie(void **state)
{
	(void)state;
	check_inline_chain(PROG("inl_gcc_nopie"));
}

static void test_inline_chain_gcc_dwarf4(void **state)
{
	(void)state;
	check_inline_chain(PROG("inl_gcc_dwarf4"));
}

static void test_inline_chain_clang(void **state)
{
	(void)state;
#ifdef SYMTEST_HAVE_CLANG
	check_inline_chain(PROG("inl_clang"));
	check_inline_chain(PROG("inl_clang_dwarf4"));
#else
	skip();
#endif
}

/* ----------------------------------------------- running program, biases --- */

typedef struct run_facts {
	uint64_t bias, compute, ra;
} run_facts;

static void run_program(const char *prog, run_facts *rf)
{
	FILE *p = popen(prog, "r");
	assert_non_null(p);
	char line[256];
	int got = 0;
	while (fgets(line, sizeof line, p)) {
		unsigned long long v;
		if (sscanf(line, "bias %llx", &v) == 1)
			rf->bias = v, got |= 1;
		else if (sscanf(line, "compute %llx", &v) == 1)
			rf->compute = v, got |= 2;
		else if (sscanf(line, "ra %llx", &v) == 1)
			rf->ra = v, got |= 4;
	}
	assert_int_equal(pclose(p), 0);
	assert_int_equal(got, 7);
}

/* A call as the last instruction: its return address is the first byte after
 * the function, so only the -1 adjustment attributes it to the call line. */
static void check_return_address(const char *prog, int pie)
{
	run_facts rf = {0};
	run_program(prog, &rf);
	if (pie)
		assert_true(rf.bias != 0);
	else
		assert_int_equal(rf.bias, 0);
	uint64_t lo, size;
	nm_symbol(prog, "ends_with_call", &lo, &size);
	assert_int_equal(rf.ra - rf.bias, lo + size); /* the premise: the call is the last instruction */

	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__add_module(s, 3, &(symbols__module){7, prog, NULL, 0, rf.bias, NULL, 0}),
	                 0);
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 3, rf.ra, 1, &r), 0);
	assert_int_equal(r->file_vaddr, lo + size - 1);
	assert_string_equal(r->frames[r->nframes - 1].function, "ends_with_call");
	assert_int_equal(r->frames[0].line, marker_line("inl.c", "@last_call"));
	const symtab_result *unadjusted;
	assert_int_equal(symbols__lookup(s, 3, rf.ra, 0, &unadjusted), 0);
	assert_string_not_equal(unadjusted->frames[unadjusted->nframes - 1].function, "ends_with_call");

	/* The run-time address of compute() maps back through the bias. */
	assert_int_equal(symbols__lookup(s, 3, rf.compute, 0, &r), 0);
	assert_string_equal(r->frames[r->nframes - 1].function, "compute");
	nm_symbol(prog, "compute", &lo, &size);
	assert_int_equal(r->file_vaddr, lo);
	assert_int_equal(log.count, 0);
	symbols__free(s);
}

static void test_return_address_pie(void **state)
{
	(void)state;
	check_return_address(PROG("inl_gcc_pie"), 1);
}

static void test_return_address_nopie(void **state)
{
	(void)state;
	check_return_address(PROG("inl_gcc_nopie"), 0);
}

/* --------------------------------------------------------- shared library --- */

static void test_shared_library_at_bias(void **state)
{
	(void)state;
	const char *lib = PROG("libshared.so");
	sym_elf_facts facts;
	assert_int_equal(symbols__elf_facts(lib, &facts), 0);
	assert_true(facts.nloads >= 2);
	const uint64_t bias = 0x7f3a12340000ull;
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__add_module(s, 1,
	                                     &(symbols__module){4, lib, facts.build_id, facts.build_id_len,
	                                                        bias, facts.loads, facts.nloads}),
	                 0);
	uint64_t lo, size;
	nm_symbol(lib, "shared_work", &lo, &size);
	unsigned body = marker_line("shared.c", "@shared_body");
	int body_seen = 0;
	for (uint64_t a = lo; a < lo + size; a++) {
		const symtab_result *r;
		assert_int_equal(symbols__lookup(s, 1, bias + a, 0, &r), 0);
		assert_int_equal(r->file_vaddr, a);
		assert_string_equal(r->frames[r->nframes - 1].function, "shared_work");
		assert_true(ends_with(r->frames[0].file, "/progs/shared.c"));
		body_seen |= r->frames[0].line == body;
	}
	assert_true(body_seen);

	/* Other processes and addresses outside every segment are unknown. */
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 2, bias + lo, 0, &r), -ENOENT);
	assert_null(r->module);
	assert_int_equal(r->nframes, 1);
	assert_string_equal(r->frames[0].function, "[unknown]");
	assert_int_equal(symbols__lookup(s, 1, bias - 16, 0, &r), -ENOENT);
	assert_string_equal(r->frames[0].function, "[unknown]");

	/* After an unload the range is free again. */
	assert_int_equal(symbols__remove_module(s, 1, 4), 0);
	assert_int_equal(symbols__lookup(s, 1, bias + lo + 1, 0, &r), -ENOENT);
	assert_int_equal(log.count, 0);
	symbols__free(s);
}

/* ------------------------------------------------------------- languages --- */

static void test_fortran_module_procedure(void **state)
{
	(void)state;
#ifdef SYMTEST_HAVE_FORTRAN
	const char *prog = PROG("fortran");
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0, NULL, 0}), 0);
	uint64_t lo, size;
	nm_symbol(prog, "__physics_MOD_step", &lo, &size);
	unsigned body = marker_line("fortran.f90", "@step_body");
	int body_seen = 0;
	for (uint64_t a = lo; a < lo + size; a++) {
		const symtab_result *r;
		assert_int_equal(symbols__lookup(s, 0, a, 0, &r), 0);
		assert_string_equal(r->frames[r->nframes - 1].function, "physics::step");
		assert_true(ends_with(r->frames[0].file, "/progs/fortran.f90"));
		body_seen |= r->frames[0].line == body;
	}
	assert_true(body_seen);
	assert_int_equal(log.count, 0);
	symbols__free(s);
#else
	skip();
#endif
}

static void test_cxx_demangled(void **state)
{
	(void)state;
#ifdef SYMTEST_HAVE_CXX
	const char *prog = PROG("cxx");
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0, NULL, 0}), 0);
	uint64_t lo, size;
	nm_symbol(prog, "_ZN3geo5scaleIdEET_S1_i", &lo, &size);
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 0, lo + size / 2, 0, &r), 0);
	assert_string_equal(r->frames[r->nframes - 1].function, "double geo::scale<double>(double, int)");
	assert_true(ends_with(r->frames[0].file, "/progs/cxx.cpp"));
	symbols__free(s);
#else
	skip();
#endif
}

/* -------------------------------------------------- stripped and separate --- */

static void test_stripped_symbol_fallback(void **state)
{
	(void)state;
	const char *prog = PROG("inl_gcc_nodebug");
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__set_debug_dirs(s, ""), 0);
	assert_int_equal(symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0, NULL, 0}), 0);
	uint64_t lo, size;
	nm_symbol(prog, "compute", &lo, &size);
	for (uint64_t a = lo; a < lo + size; a += 7) {
		const symtab_result *r;
		assert_int_equal(symbols__lookup(s, 0, a, 0, &r), 0);
		assert_int_equal(r->has_lines, 0);
		assert_int_equal(r->nframes, 1);
		assert_string_equal(r->frames[0].function, "compute");
		assert_null(r->frames[0].file);
		assert_int_equal(r->frames[0].line, 0);
	}
	/* Said once, naming the module, never silently. */
	assert_int_equal(log.count, 1);
	assert_non_null(strstr(log.text, prog));
	assert_non_null(strstr(log.text, "lines unavailable"));
	symbols__free(s);
}

static void test_fully_stripped(void **state)
{
	(void)state;
	uint64_t lo, size;
	nm_symbol(PROG("inl_gcc_pie"), "compute", &lo, &size);
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__set_debug_dirs(s, ""), 0);
	assert_int_equal(
	    symbols__add_module(s, 0, &(symbols__module){1, PROG("inl_gcc_nosyms"), NULL, 0, 0, NULL, 0}), 0);
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 0, lo + 3, 0, &r), 0);
	char want[64];
	snprintf(want, sizeof want, "[inl_gcc_nosyms+0x%llx]", (unsigned long long)(lo + 3));
	assert_string_equal(r->frames[0].function, want);
	assert_int_equal(r->has_lines, 0);
	assert_int_equal(log.count, 1);
	assert_non_null(strstr(log.text, "inl_gcc_nosyms"));
	symbols__free(s);
}

static void test_debuglink(void **state)
{
	(void)state;
	const char *prog = PROG("inl_gcc_split");
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0, NULL, 0}), 0);
	symtab_module_info info;
	assert_int_equal(symbols__module_info_get(s, 0, 1, &info), 0);
	assert_int_equal(info.has_dwarf, 1);
	assert_true(ends_with(info.file_used, "/inl_gcc_split.debug"));
	symbols__free(s);
	check_inline_chain(prog);
}

/* The separate debug file found under <dir>/.build-id/xx/yyyy.debug. */
static void test_build_id_directory(void **state)
{
	(void)state;
	const char *prog = PROG("inl_gcc_nodebug");
	sym_elf_facts facts;
	assert_int_equal(symbols__elf_facts(prog, &facts), 0);
	assert_true(facts.build_id_len >= 2);
	char root[256], dir[512], link[700], hex[130];
	snprintf(root, sizeof root, "/tmp/fold-symtest-%d", (int)getpid());
	for (size_t i = 0; i < facts.build_id_len; i++)
		snprintf(hex + 2 * i, 3, "%02x", facts.build_id[i]);
	snprintf(dir, sizeof dir, "%s/.build-id/%.2s", root, hex);
	char cmd[1024];
	snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
	assert_int_equal(system(cmd), 0);
	snprintf(link, sizeof link, "%s/%s.debug", dir, hex + 2);
	assert_int_equal(symlink(PROG("inl_gcc_split.debug"), link), 0);

	diag_log log;
	symtab *s = new_symtab(&log);
	char dirs[600];
	snprintf(dirs, sizeof dirs, "/nonexistent:%s", root);
	assert_int_equal(symbols__set_debug_dirs(s, dirs), 0);
	assert_int_equal(symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0, NULL, 0}), 0);
	uint64_t lo, size;
	nm_symbol(prog, "ends_with_call", &lo, &size);
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 0, lo + size, 1, &r), 0);
	assert_int_equal(r->has_lines, 1);
	assert_int_equal(r->frames[0].line, marker_line("inl.c", "@last_call"));
	assert_int_equal(log.count, 0);
	symbols__free(s);
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------------ bad modules --- */

static void test_build_id_mismatch(void **state)
{
	(void)state;
	const char *prog = PROG("inl_gcc_pie");
	sym_elf_facts facts;
	assert_int_equal(symbols__elf_facts(prog, &facts), 0);
	assert_true(facts.build_id_len > 0);
	facts.build_id[0] ^= 0xff; /* the binary "changed since the run" */
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(symbols__set_debug_dirs(s, ""), 0);
	assert_int_equal(
	    symbols__add_module(s, 0,
	                        &(symbols__module){1, prog, facts.build_id, facts.build_id_len, 0, NULL, 0}),
	    0);
	uint64_t lo, size;
	nm_symbol(prog, "compute", &lo, &size);
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 0, lo, 0, &r), 0);
	assert_int_equal(symbols__lookup(s, 0, lo + 1, 0, &r), 0);
	char want[64];
	snprintf(want, sizeof want, "[inl_gcc_pie+0x%llx]", (unsigned long long)(lo + 1));
	assert_string_equal(r->frames[0].function, want);
	assert_int_equal(log.count, 1);
	assert_non_null(strstr(log.text, prog));
	assert_non_null(strstr(log.text, "build-id differs"));
	symtab_module_info info;
	assert_int_equal(symbols__module_info_get(s, 0, 1, &info), 0);
	assert_int_equal(info.build_id_mismatch, 1);
	symbols__free(s);
}

static void test_missing_file(void **state)
{
	(void)state;
	diag_log log;
	symtab *s = new_symtab(&log);
	trace_segment segs[2] = {{0x0, 0x1000, 4}, {0x1000, 0x4000, 5}};
	const uint64_t bias = 0x7f0000000000ull;
	assert_int_equal(
	    symbols__add_module(s, 0,
	                        &(symbols__module){9, "/nonexistent/dir/libgone.so", NULL, 0, bias, segs, 2}),
	    0);
	const symtab_result *r;
	assert_int_equal(symbols__lookup(s, 0, bias + 0x1234, 0, &r), 0);
	assert_string_equal(r->module, "/nonexistent/dir/libgone.so");
	assert_string_equal(r->frames[0].function, "[libgone.so+0x1234]");
	assert_int_equal(symbols__lookup(s, 0, bias + 0x2000, 1, &r), 0);
	assert_string_equal(r->frames[0].function, "[libgone.so+0x1fff]");
	assert_int_equal(log.count, 1);
	assert_non_null(strstr(log.text, "/nonexistent/dir/libgone.so"));

	/* Without recorded segments the module cannot be placed: said, not fatal. */
	assert_int_equal(
	    symbols__add_module(
	        s, 0, &(symbols__module){10, "/nonexistent/other.so", NULL, 0, 0x7e0000000000ull, NULL, 0}),
	    0);
	assert_int_equal(log.count, 2);
	assert_non_null(strstr(log.text, "/nonexistent/other.so"));
	assert_int_equal(symbols__lookup(s, 0, 0x7e0000000100ull, 0, &r), -ENOENT);
	assert_string_equal(r->frames[0].function, "[unknown]");
	symbols__free(s);
}

/* ----------------------------------------------------------------- cache --- */

static void test_cache_returns_same_result(void **state)
{
	(void)state;
	const char *prog = PROG("inl_gcc_pie");
	diag_log log;
	symtab *s = new_symtab(&log);
	assert_int_equal(
	    symbols__add_module(s, 0, &(symbols__module){1, prog, NULL, 0, 0x5000000000ull, NULL, 0}), 0);
	uint64_t lo, size;
	nm_symbol(prog, "compute", &lo, &size);
	const symtab_result *a, *b, *c;
	assert_int_equal(symbols__lookup(s, 0, 0x5000000000ull + lo + 4, 0, &a), 0);
	assert_int_equal(symbols__lookup(s, 0, 0x5000000000ull + lo + 4, 0, &b), 0);
	assert_int_equal(symbols__lookup(s, 0, 0x5000000000ull + lo + 4, 1, &c), 0);
	assert_ptr_equal(a, b);
	assert_ptr_not_equal(a, c);
	assert_int_equal(c->file_vaddr, lo + 3);
	const char *name;
	assert_int_equal(symbols__function_name(s, 0, 0x5000000000ull + lo, &name), 0);
	assert_string_equal(name, "compute");
	symtab_stats st;
	symbols__stats_get(s, &st);
	assert_int_equal(st.lookups, 4);
	assert_int_equal(st.cache_hits, 1);
	assert_int_equal(st.images, 1);
	symbols__free(s);
}

/* ------------------------------------------------------------------ names --- */

static void check_norm(const char *in, const char *want)
{
	char buf[256];
	snprintf(buf, sizeof buf, "%s", in);
	symbols__normalize_path(buf);
	assert_string_equal(buf, want);
}

static void test_path_normalisation(void **state)
{
	(void)state;
	check_norm("/a/./b//c.c", "/a/b/c.c");
	check_norm("./sunrpc/./xdr.c", "sunrpc/xdr.c");
	check_norm("/build/x/../y/z.c", "/build/y/z.c");
	check_norm("../inet/netinet/in.h", "../inet/netinet/in.h");
	check_norm("a/../../b.c", "../b.c");
	check_norm("/../a.c", "/a.c");
	check_norm("./", ".");
}

static void test_pretty_names(void **state)
{
	(void)state;
	sym_arena arena = {0};
	sym_strpool pool = {.arena = &arena};
	assert_string_equal(symbols__pretty_name(&pool, "__physics_MOD_step"), "physics::step");
	assert_string_equal(symbols__pretty_name(&pool, "__my_mod_MOD_do_it"), "my_mod::do_it");
	assert_string_equal(symbols__pretty_name(&pool, "_ZN2ns3fooEi"), "ns::foo(int)");
	/* outlined OpenMP regions: the clone suffix kept, the module once */
	assert_string_equal(symbols__pretty_name(&pool, "_ZN9Integrate3runER4AtomP5Force._omp_fn.0"),
	                    "Integrate::run(Atom&, Force*) [clone ._omp_fn.0]");
	assert_string_equal(symbols__pretty_name(&pool, "__advec_mod_MOD_advec_kernel._omp_fn.2"),
	                    "advec_mod::advec_kernel._omp_fn.2");
	assert_string_equal(symbols__pretty_name(&pool, "plain_c"), "plain_c");
	assert_string_equal(symbols__pretty_name(&pool, "_Znot_mangled!"), "_Znot_mangled!");
	symbols__strpool_free(&pool);
	symbols__arena_free(&arena);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_inline_chain_gcc_pie),
	    cmocka_unit_test(test_inline_chain_gcc_nopie),
	    cmocka_unit_test(test_inline_chain_gcc_dwarf4),
	    cmocka_unit_test(test_inline_chain_clang),
	    cmocka_unit_test(test_return_address_pie),
	    cmocka_unit_test(test_return_address_nopie),
	    cmocka_unit_test(test_shared_library_at_bias),
	    cmocka_unit_test(test_fortran_module_procedure),
	    cmocka_unit_test(test_cxx_demangled),
	    cmocka_unit_test(test_stripped_symbol_fallback),
	    cmocka_unit_test(test_fully_stripped),
	    cmocka_unit_test(test_debuglink),
	    cmocka_unit_test(test_build_id_directory),
	    cmocka_unit_test(test_build_id_mismatch),
	    cmocka_unit_test(test_missing_file),
	    cmocka_unit_test(test_cache_returns_same_result),
	    cmocka_unit_test(test_path_normalisation),
	    cmocka_unit_test(test_pretty_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
