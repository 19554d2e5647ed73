/* programs.h: which program each trace comes from (its exe and the build-id
 * of the module loaded from it), so that traces of different programs given
 * together are refused unless asked for (--allow-mixed); shared by the
 * analysis and the exporters. */
#ifndef FOLD_PROGRAMS_H
#define FOLD_PROGRAMS_H

#include <stddef.h>

#include "ingest.h"

/* The errno traces of different programs return (the CLI exits 2 on it). */
#define PROGRAMS_MIXED_ERRNO EXDEV

/* prog[i]: the index of trace i's program, numbered in order of first
 * appearance; returns how many programs (1 when all are one program, or
 * when a trace records neither an exe nor its build-id). Two traces are of
 * one program when their main modules' build-ids match (ranks on nodes
 * with different paths), else when their exe paths do. */
size_t programs__number(ingest__trace *const *tr, size_t n, unsigned *prog);
/* A short label of trace t's program: the exe's base name ("miniMD"). */
const char *programs__label(const ingest__trace *t);
/* The run's main program: the one with the most traces; on a tie the one
 * that ran longest (the parent of a helper it started), then the first. */
unsigned programs__main(ingest__trace *const *tr, const unsigned *prog, size_t n, size_t nprog);
/* The first trace of program p. */
size_t programs__first(const unsigned *prog, size_t n, unsigned p);
/* 0 when the traces come from one program, or allow_mixed, or when every
 * trace of another program ran at the same time as the main program's
 * (helpers of one job: an MPI launcher's daemons, a shell the program
 * started; their regions are then kept apart); else -PROGRAMS_MIXED_ERRNO
 * with "a.trace and b.trace come from different programs (...)" in err. */
int programs__check(ingest__trace *const *tr, size_t n, int allow_mixed, char *err, size_t errlen);

#endif
