/* attribution.h: where in the code the folded samples are.
 *
 * Owns the link between sampled call stacks and source: names of function
 * regions (REGION_DEF.address), per-phase top functions and lines with
 * their inline chains, the routine timeline along the folded instance, and
 * the sampled call tree. Symbolisation itself is symbols.h's; this module
 * decides what to look up and aggregates.
 *
 * Invariants: thread-safe for concurrent attribution__region() calls (the
 * symbol table is behind a lock); every name it produces is printable.
 */
#ifndef FOLD_ATTRIBUTION_H
#define FOLD_ATTRIBUTION_H

#include <stddef.h>

#include "analysis.h"
#include "ingest.h"
#include "instances.h"

typedef struct attribution__ctx attribution__ctx;

int attribution__new(attribution__ctx **out, ingest__trace *const *tr, size_t ntr, trace_diag_fn diag,
                     void *diag_arg);
void attribution__free(attribution__ctx *a);

/* "function:line" of the call a return address of process proc returns
 * from (the innermost, possibly inlined, frame; "function" without line
 * information), in buf; NULL when no module holds it or no symbol names it. */
const char *attribution__call_site(attribution__ctx *a, unsigned proc, uint64_t ret, char *buf, size_t len);

/* Name of the function at a region's entry address; buf holds a fallback
 * ("0x..."). The result stays valid until attribution__free. */
const char *attribution__function_name(attribution__ctx *a, unsigned proc, uint64_t address, char *buf,
                                       size_t len);

/* Fills r->phases[].top and r->timeline from the samples of the used instances. */
int attribution__region(attribution__ctx *a, ingest__trace *const *tr, const instances__instance *inst,
                        size_t ninst, fold_region_result *r);

/* A logical frame: a physical frame or one of its inlined calls. */
typedef struct attribution__frame {
	const char *function, *file;
	unsigned line;
} attribution__frame;

/* The logical frames of stack id of process proc, outermost first (*n of
 * them; NULL and 0 for no stack), and the module of the interrupted address
 * (NULL when unknown). Valid until attribution__free; thread-safe. */
const attribution__frame *attribution__stack(attribution__ctx *a, unsigned proc, uint32_t id, unsigned *n,
                                             const char **leaf_module);

/* Fills the sampled call tree (an->cct) from every sample of every trace. */
int attribution__global(attribution__ctx *a, ingest__trace *const *tr, size_t ntr, fold_analysis *an);

/* The wall time of the samples whose stack holds function name: each sample
 * stands for the time since its thread's previous sample (or the thread's
 * start), at most ten times the thread's mean gap (a thread blocked with no
 * samples does not lend its wait to the code that runs when it wakes).
 * *n: how many samples hold it. 0 or -ENOMEM. */
int attribution__sampled_inclusive(attribution__ctx *a, ingest__trace *const *tr, size_t ntr,
                                   const char *name, double *ns, unsigned long *n);

#endif
