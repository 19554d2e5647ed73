/* own_cost.h: the warning when fold's own work took a large share of the
 * program's time (own_cost.c); private to src/fold. */
#ifndef FOLD_OWN_COST_H
#define FOLD_OWN_COST_H

#include "analyze_ctx.h"

/* Needs a->hot_cpu and a->bottom_up (threads__classify, the bottom-up tree). */
void own_cost__warn(analyze_ctx *c);

#endif
