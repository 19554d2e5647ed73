/* Names for people (names.c): shortened only as far as the room asks, and
 * never losing what tells two functions apart. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <string.h>

#include "names.h"
#include "report_text.h"

static const char *shorten(const char *full, unsigned cols)
{
	static char out[1024];
	report_short_name(full, cols, out, sizeof out);
	if (report_term_width(out) > cols)
		fail_msg("'%s' shortened to %u columns is '%s' (%u columns)", full, cols, out,
		         report_term_width(out));
	return out;
}

static void test_fits_unchanged(void **state)
{
	(void)state;
	assert_string_equal(shorten("compute_flux", 40), "compute_flux");
	assert_string_equal(shorten("std::vector<int>::push_back(int const&)", 60),
	                    "std::vector<int>::push_back(int const&)");
	/* prose in a region name is not a parameter list */
	assert_string_equal(shorten("computation (outside MPI)", 25), "computation (outside MPI)");
}

static void test_library_without_symbols(void **state)
{
	(void)state;
	assert_string_equal(shorten("[libopen-pal.so.40+0x878b3]", 40), "libopen-pal (no symbols)");
	assert_string_equal(shorten("[libgomp.so.1+0x1f6a7]", 30), "libgomp (no symbols)");
	/* a module name without ".so" keeps its name */
	assert_string_equal(shorten("[a.out+0x401000]", 30), "a.out (no symbols)");
	/* narrow: cut at the front like any name */
	const char *n = shorten("[libopen-pal.so.40+0x878b3]", 12);
	assert_non_null(strstr(n, "symbols)"));
}

static void test_burst_names(void **state)
{
	(void)state;
	const char *b = "burst after MPI_Allreduce in allsum (from main:50)";
	assert_string_equal(shorten(b, 60), b);
	assert_string_equal(shorten(b, 45), "after MPI_Allreduce in allsum (from main:50)");
	assert_string_equal(shorten(b, 40), "MPI_Allreduce in allsum (from main:50)");
}

static void test_clone_suffix_kept(void **state)
{
	(void)state;
	static const char *const f[] = {
	    "Integrate::run(Atom&, Force*, Neighbor&, Comm&, Thermo&, Timer&) [clone .isra.0]",
	    "Integrate::run(Atom&, Force*, Neighbor&, Comm&, Thermo&, Timer&) [clone .constprop.1]",
	};
	const char *a = shorten(f[0], 40);
	assert_non_null(strstr(a, "[clone .isra.0]"));
	assert_non_null(strstr(a, "Integrate::run("));
	char keep[1024];
	strcpy(keep, a);
	assert_string_not_equal(keep, shorten(f[1], 40));
}

static void test_openmp_regions_named(void **state)
{
	(void)state;
	assert_string_equal(shorten("main._omp_fn.0", 40), "parallel region 0 in main");
	const char *a = shorten("ForceLJ::compute(Atom&, Neighbor&, Comm&, int) [clone ._omp_fn.3]", 50);
	assert_string_equal(a, "parallel region 3 in ForceLJ::compute(…)");
	/* a Fortran module procedure by its own name when the module's does
	 * not fit; a C++ method keeps its class */
	assert_string_equal(shorten("advec_cell_kernel_module::advec_cell_kernel._omp_fn.0", 48),
	                    "parallel region 0 in advec_cell_kernel");
	assert_string_equal(shorten("pdv_kernel_module::pdv_kernel._omp_fn.1", 60),
	                    "parallel region 1 in pdv_kernel_module::pdv_kernel");
	a = shorten("LongNamespace::VeryLongClassName::compute(int) [clone ._omp_fn.2]", 40);
	assert_non_null(strstr(a, "::compute(…)"));
	/* five regions of one function stay five names, even when narrow */
	char seen[5][64];
	for (int i = 0; i < 5; i++) {
		char full[128];
		snprintf(full, sizeof full, "Integrate::run(Atom&, Force*, Neighbor&) [clone ._omp_fn.%d]",
		         i);
		snprintf(seen[i], sizeof seen[i], "%s", shorten(full, 24));
		for (int k = 0; k < i; k++)
			assert_string_not_equal(seen[i], seen[k]);
	}
}

/* A burst named by its caller, an OpenMP outlined function, is a burst,
 * not a parallel region; narrow, its caller loses the outlined suffix,
 * then the qualifiers go, the call and the lines stay. */
static void test_burst_from_an_outlined_function(void **state)
{
	(void)state;
	const char *full = "burst after MPI_Sendrecv in Comm::communicate (from Integrate::run [clone "
	                   "._omp_fn.0]:105)";
	assert_string_equal(shorten(full, 120), full);
	assert_string_equal(shorten(full, 60), "MPI_Sendrecv in Comm::communicate (from Integrate::run:105)");
	assert_string_equal(shorten(full, 48), "MPI_Sendrecv in Comm::communicate (from run:105)");
	assert_string_equal(shorten(full, 44), "MPI_Sendrecv in communicate (from run:105)");
	assert_string_equal(
	    shorten("burst after MPI_Allreduce in Thermo::energy (from main._omp_fn.1:467)", 48),
	    "MPI_Allreduce in Thermo::energy (from main:467)");
}

static void test_templates_and_namespaces(void **state)
{
	(void)state;
	const char *a =
	    shorten("miniFE::matvec_std<miniFE::CSRMatrix<double, int, int>, miniFE::Vector<double, "
	            "int, int> >::operator()(miniFE::CSRMatrix<double, int, int>&)",
	            40);
	assert_non_null(strstr(a, "matvec_std<…>::operator()(…)"));
	/* a front cut inside a qualifier moves on to the next name */
	assert_string_equal(shorten("void miniFE::waxpby<miniFE::Vector<double, int, int> >(double, "
	                            "miniFE::Vector<double, int, int> const&)",
	                            18),
	                    "…waxpby<…>(…)");
	/* narrower, the function object by its class, not "……>::operator()(…)" */
	assert_string_equal(
	    shorten("miniFE::matvec_std<miniFE::CSRMatrix<double, int, int>, miniFE::Vector<double, "
	            "int, int> >::operator()(miniFE::CSRMatrix<double, int, int>&)",
	            18),
	    "matvec_std<…>()");
	/* a return type goes before template arguments: two instantiations
	 * stay two names (miniMD's compute_halfneigh_threaded<0, 1> and <1, 1>) */
	assert_string_equal(
	    shorten("void ForceLJ::compute_halfneigh_threaded<0, 1>(Atom&, Neighbor&, int)", 48),
	    "ForceLJ::compute_halfneigh_threaded<0, 1>(…)");
	assert_non_null(strstr(shorten("fold measurement (libfold)", 20), "surement (libfold)"));
	assert_non_null(
	    strstr(shorten("operator new(unsigned long, std::nothrow_t const&)", 20), "operator new"));
	/* glibc's internal aliases read as their public names */
	assert_string_equal(shorten("__GI___poll", 30), "poll");
	assert_string_equal(shorten("__libc_recv", 30), "recv");
	assert_string_equal(shorten("__GI___libc_write", 30), "write");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fits_unchanged),
	    cmocka_unit_test(test_library_without_symbols),
	    cmocka_unit_test(test_burst_names),
	    cmocka_unit_test(test_clone_suffix_kept),
	    cmocka_unit_test(test_openmp_regions_named),
	    cmocka_unit_test(test_templates_and_namespaces),
	    cmocka_unit_test(test_burst_from_an_outlined_function),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
