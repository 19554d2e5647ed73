/* contradicted_points.h: 24 folded points of TASK-CLOCK in a CloverLeaf
 * burst that ran at 18% of a CPU under stress-ng (validation suite, stop
 * 20): its instances were paused at different moments, so one instance's
 * cumulative share runs ahead where another's lags and the points describe
 * no common curve. (x: relative time, y: cumulative share; the points'
 * instances are not in the JSON they come from: one each.) Shared by the
 * fit's test (test_fits.c) and the region pipeline's (test_analyze.c). */
#ifndef FOLD_TEST_CONTRADICTED_POINTS_H
#define FOLD_TEST_CONTRADICTED_POINTS_H

static const double contradicted_points[][2] = {
    {0.04591, 0.43306}, {0.04928, 0.64478}, {0.06209, 0.16958}, {0.14558, 0.76586}, {0.15261, 0.86214},
    {0.16507, 0.80434}, {0.22738, 0.62120}, {0.76964, 0.07260}, {0.79013, 0.02732}, {0.83133, 0.05582},
    {0.83158, 0.26634}, {0.96256, 0.82669}, {0.96465, 0.85781}, {0.98115, 0.38441}, {0.98599, 0.92066},
    {0.98880, 0.47459}, {0.99240, 0.89990}, {0.99325, 0.96700}, {0.99774, 0.99380}, {0.99776, 0.90954},
    {0.99806, 0.89658}, {0.99971, 0.99861}, {0.99971, 0.99722}, {0.99976, 0.99680},
};

#endif
