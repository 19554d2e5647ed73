/* threads_class.h: threads classed by what they did, the CPU and wall
 * views (threads_class.c) and the imbalance over ranks and threads
 * (imbalance.c); private to src/fold. */
#ifndef FOLD_THREADS_CLASS_H
#define FOLD_THREADS_CLASS_H

#include <stddef.h>

#include "analysis.h"
#include "attribution.h"
#include "ingest.h"

/* Whether fn is a C library function a thread blocks in the kernel with. */
int threads__is_kernel_wait(const char *fn);
/* Whether fn is an OpenMP outlined region or OpenMP runtime frame. */
int threads__is_openmp_frame(const char *fn);

/* Fills a->threads, a->hot_cpu, a->hot_wall, a->cpu_weighted (needs
 * a->procs). 0 or -ENOMEM. */
int threads__classify(attribution__ctx *at, ingest__trace *const *tr, size_t ntr, fold_analysis *a);

/* Fills a->imbalance from a->profile, a->procs and a->threads. 0 or -ENOMEM. */
int imbalance__compute(fold_analysis *a);

#endif
