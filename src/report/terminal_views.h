/* terminal_views.h: sections of the terminal summary (terminal_views.c);
 * private to src/report. */
#ifndef FOLD_TERMINAL_VIEWS_H
#define FOLD_TERMINAL_VIEWS_H

#include "analysis.h"
#include "term.h"

/* Where the CPUs worked (and where threads waited, when they did). */
void term_view_hot(term *t, const fold_analysis *a);
/* The threads with their class and busy share; idle helpers in one line. */
void term_view_threads(term *t, const fold_analysis *a);
/* Rank x region and thread x OpenMP region imbalance, the slowest named. */
void term_view_imbalance(term *t, const fold_analysis *a);
/* How to record a region, when none was. */
void term_view_no_regions(term *t);

#endif
