/* fixture.h: a fold_analysis with every field filled, for the report tests.
 *
 * Deterministic (fixed LCG seed). Its strings are hostile on purpose: C++
 * template names with < > &, a file name holding quotes and </script>, a
 * command line full of shell metacharacters and an <img onerror>, invalid
 * UTF-8, U+2028, and an ANSI escape sequence. Free with fold_analysis_free().
 */
#ifndef FOLD_TEST_REPORT_FIXTURE_H
#define FOLD_TEST_REPORT_FIXTURE_H

#include "analysis.h"

/* Names the tests look for in the outputs. */
#define FIXTURE_REGION_SOLVE "solve<std::vector<double, std::allocator<double> >&>"
#define FIXTURE_REGION_FLUX "compute_flux"
#define FIXTURE_REGION_MPI "MPI_Allreduce"
#define FIXTURE_FUNC_KERNEL "kernel_stencil<float, 3>"
#define FIXTURE_FUNC_OPERATOR "operator<<(std::ostream&, Grid const&)"
#define FIXTURE_FUNC_HELPER "axpy_inner"
#define FIXTURE_FILE_HOSTILE "/src/we\"ird/</script><script>alert(1)</script>.c"
#define FIXTURE_CMDLINE                                                                                      \
	"./app --input=\"a b\" 'x;y' $(rm -rf /) | tee out & <img src=x onerror=alert(1)> `id`"
#define FIXTURE_BAD_UTF8 "bad\xff\xfeutf8\xc3"
#define FIXTURE_LINE_SEP "line\xe2\x80\xa8sep\xe2\x80\xa9"
#define FIXTURE_ESCAPE_SEQ "\x1b[31mred\x1b[0m"
/* An OpenMP outlined C++ function (a clone of a long signature) and a
 * library frame without symbols, as the CPU view names them. */
#define FIXTURE_FUNC_OMP "Integrate::run(Atom&, Force*, Neighbor&, Comm&, Thermo&, Timer&) [clone ._omp_fn.3]"
#define FIXTURE_FUNC_NOSYMS "libgomp (no symbols)"
#define FIXTURE_FUNC_WAIT "epoll_wait"
/* A function that only a warning names, in full as the analysis says it. */
#define FIXTURE_FUNC_WARNED                                                                                  \
	"void miniFE::waxpby<miniFE::Vector<double, int, int> >(miniFE::Vector<double, int, "                \
	"int>::ScalarType, miniFE::Vector<double, int, int> const&)"

/* points_per_series: folded samples per counter (the tests use a large
 * value to check downsampling). */
fold_analysis *report_fixture_new(size_t points_per_series);

/* Makes phase p's only rate wall time (1 s/s), as a region where no counter
 * and no CPU time could be folded has it. */
void report_fixture_wall_time_only(fold_phase_result *p);

#endif
