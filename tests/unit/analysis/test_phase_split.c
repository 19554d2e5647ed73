/* phase_split: one instance's counter increments over the phases, from its
 * own points (src/fold/stats/phase_split.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <math.h>

#include "phase_split.h"

#define NS 7.5e6 /* the instance's duration: pt = pu * NS */

static void check_invariants(const phase_split__share *s, size_t nseg, double total)
{
	double sum = 0, t = 0;
	for (size_t p = 0; p < nseg; p++) {
		assert_true(s[p].dv >= 0);
		assert_true(s[p].lo <= s[p].dv + 1e-6 && s[p].dv <= s[p].hi + 1e-6);
		sum += s[p].dv;
		t += s[p].dt;
	}
	assert_true(fabs(sum - total) < 1e-6 * total);
	assert_true(fabs(t - NS) < 1e-6 * NS);
}

/* An instance of MPI_Waitall under stress-ng --cpu 2 (CloverLeaf mpi2):
 * phases run / ? / ? / run at 1 and 0.8 CPU, the middle two at their bound.
 * Its last gap, from a sample at 0.393 to the exit, spans all four. Taking
 * the first phase's rate up to its end and interpolating linearly to the
 * next bound gave the second phase -313 us of CPU time; over the instances
 * the sum was negative, and the phase read 0/s though 34 samples found the
 * thread running in it. */
static void test_gap_over_four_phases(void **state)
{
	(void)state;
	double bounds[] = {0, 0.468, 0.6225, 0.959, 1};
	double known[] = {1.0, NAN, NAN, 0.8}; /* CPU ns per ns */
	double pu[] = {0, 0.129, 0.143, 0.280, 0.393, 1.0};
	double pv[] = {0, 1106810, 1106810, 2172173, 3052813, 3759408};
	double pt[6];
	for (int i = 0; i < 6; i++)
		pt[i] = pu[i] * NS;
	phase_split__share s[4];
	phase_split__instance(bounds, 4, known, INFINITY, &(phase_split__points){pu, pt, pv, 6}, s);
	check_invariants(s, 4, pv[5]);
	/* the known phases would take more than the gap's 706.6 us (562.5 us
	 * before 0.468, 246 us after 0.959): they share it, the others get none */
	assert_true(s[1].dv == 0 && s[2].dv == 0);
	double want0 = (0.468 - 0.393) * NS, want3 = 0.8 * (1 - 0.959) * NS, gap = pv[5] - pv[4];
	assert_true(fabs(s[3].dv - want3 * gap / (want0 + want3)) < 1e-3);
	assert_true(fabs(s[0].dv - (pv[4] + want0 * gap / (want0 + want3))) < 1e-3);
	/* what the points allow: the gaps wholly inside phase 0, and every gap
	 * over it */
	assert_true(fabs(s[0].lo - pv[4]) < 1e-6 && fabs(s[0].hi - pv[5]) < 1e-6);
	assert_true(s[1].lo == 0 && fabs(s[1].hi - gap) < 1e-6);
}

/* A gap from a known phase into the estimated one: the known phase runs at
 * its rate up to the bound, the estimated one gets the rest (linear across
 * the bound would give it half the known phase's rate over the gap). */
static void test_known_rate_up_to_the_bound(void **state)
{
	(void)state;
	double bounds[] = {0, 0.5, 1};
	double known[] = {1.0, NAN};
	/* runs to 0.55 at 1 CPU, then 0.05 CPU */
	double pu[] = {0, 0.3, 0.9, 1.0};
	double v9 = 0.55 * NS + 0.05 * 0.35 * NS;
	double pv[] = {0, 0.3 * NS, v9, v9 + 0.05 * 0.1 * NS};
	double pt[4];
	for (int i = 0; i < 4; i++)
		pt[i] = pu[i] * NS;
	phase_split__share s[2];
	phase_split__instance(bounds, 2, known, INFINITY, &(phase_split__points){pu, pt, pv, 4}, s);
	check_invariants(s, 2, pv[3]);
	assert_true(fabs(s[0].dv - 0.5 * NS) < 1e-3);
	double truth = (pv[3] - 0.5 * NS) / (0.5 * NS); /* 0.1 + 0.045: 0.145 CPU */
	assert_true(fabs(s[1].dv / s[1].dt - truth) < 1e-9);
	assert_true(fabs(s[1].dt - 0.5 * NS) < 1e-3);
}

/* Two estimated phases in one gap share what the known ones leave in
 * proportion to their time; a gap inside one phase is all its own. */
static void test_estimated_phases_share_the_rest(void **state)
{
	(void)state;
	double bounds[] = {0, 0.2, 0.4, 0.6, 1};
	double known[] = {1.0, NAN, NAN, 0.5};
	double pu[] = {0, 0.1, 0.8, 1.0};
	/* 0.1 -> 0.8: 0.1 at 1 CPU, then 0.4 of the instance holding 0.12,
	 * then 0.2 at 0.5 CPU */
	double pv[] = {0, 0.1 * NS, 0.1 * NS + 0.1 * NS + 0.12 * NS + 0.1 * NS, 0};
	pv[3] = pv[2] + 0.5 * 0.2 * NS;
	double pt[4];
	for (int i = 0; i < 4; i++)
		pt[i] = pu[i] * NS;
	phase_split__share s[4];
	phase_split__instance(bounds, 4, known, INFINITY, &(phase_split__points){pu, pt, pv, 4}, s);
	check_invariants(s, 4, pv[3]);
	assert_true(fabs(s[1].dv - 0.06 * NS) < 1e-3 && fabs(s[2].dv - 0.06 * NS) < 1e-3);
	assert_true(fabs(s[3].dv - 0.2 * NS) < 1e-3); /* 0.1 from the gap, 0.1 from the last */
	assert_true(fabs(s[3].lo - 0.1 * NS) < 1e-3); /* the last gap, wholly inside it */
}

/* Known phases that would take less than the gap, and no phase to give the
 * rest to: they take all of it, in proportion. */
static void test_known_phases_take_the_whole_gap(void **state)
{
	(void)state;
	double bounds[] = {0, 0.5, 1};
	double known[] = {0.5, 0.5};
	double pu[] = {0, 1.0};
	double pv[] = {0, 0.8 * NS};
	double pt[] = {0, NS};
	phase_split__share s[2];
	phase_split__instance(bounds, 2, known, INFINITY, &(phase_split__points){pu, pt, pv, 2}, s);
	check_invariants(s, 2, pv[1]);
	assert_true(fabs(s[0].dv - 0.4 * NS) < 1e-3 && fabs(s[1].dv - 0.4 * NS) < 1e-3);
}

/* A busy CPU clock (one CPU: 1 per unit of time) over two phases with
 * no point between them: the phase to estimate holds at least what the
 * other cannot at one CPU, and at most what its own time can, within 10% of
 * the gap. Without the bound its interval was [0, all of the gap]: a busy
 * program's phase read [0.12, 1] CPUs. */
static void test_largest_rate_bounds_a_shared_gap(void **state)
{
	(void)state;
	double bounds[] = {0, 0.475, 1};
	double known[] = {NAN, 1.0};
	double pu[] = {0, 1.0};
	double pt[] = {0, NS};
	double pv[] = {0, NS}; /* one CPU throughout */
	phase_split__share s[2];
	phase_split__instance(bounds, 2, known, 1.0, &(phase_split__points){pu, pt, pv, 2}, s);
	check_invariants(s, 2, pv[1]);
	assert_true(fabs(s[0].dv - 0.475 * NS) < 1e-3);
	assert_true(fabs(s[0].lo - (0.475 - 0.10) * NS) < 1e-3);
	assert_true(fabs(s[0].hi - (0.475 + 0.10) * NS) < 1e-3);
	/* unbounded, the same gap allows anything from none to all of it */
	phase_split__instance(bounds, 2, known, INFINITY, &(phase_split__points){pu, pt, pv, 2}, s);
	assert_true(s[0].lo == 0 && fabs(s[0].hi - NS) < 1e-3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_gap_over_four_phases),
	    cmocka_unit_test(test_largest_rate_bounds_a_shared_gap),
	    cmocka_unit_test(test_known_rate_up_to_the_bound),
	    cmocka_unit_test(test_estimated_phases_share_the_rest),
	    cmocka_unit_test(test_known_phases_take_the_whole_gap),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
