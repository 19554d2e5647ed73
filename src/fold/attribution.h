/* attribution.h: where in the code the folded samples are.
 *
 * Owns the link between sampled call stacks and source: names of function
 * regions (REGION_DEF.address), per-phase top functions and lines with
 * their inline chains, the routine timeline along the folded instance, and
 * the sampled call tree. Symbolisation itself is symbols.h's; this module
 * decides what to look up and aggregates.
 *
 * Invariants: thread-safe for concurrent fold__attrib_region() calls (the
 * symbol table is behind a lock); every name it produces is printable.
 */
#ifndef FOLD_ATTRIBUTION_H
#define FOLD_ATTRIBUTION_H

#include <stddef.h>

#include "analysis.h"
#include "ingest.h"
#include "instances.h"

typedef struct fold__attrib fold__attrib;

int fold__attrib_new(fold__attrib **out, ingest__trace *const *tr, size_t ntr, trace_diag_fn diag,
                     void *diag_arg);
void fold__attrib_free(fold__attrib *a);

/* Name of the function at a region's entry address; buf holds a fallback
 * ("0x..."). The result stays valid until fold__attrib_free. */
const char *fold__attrib_function_name(fold__attrib *a, unsigned proc, uint64_t address, char *buf,
                                       size_t len);

/* Fills r->phases[].top and r->timeline from the samples of the used instances. */
int fold__attrib_region(fold__attrib *a, ingest__trace *const *tr, const fold__instance *inst, size_t ninst,
                        fold_region_result *r);

/* A logical frame: a physical frame or one of its inlined calls. */
typedef struct fold__frame {
	const char *function, *file;
	unsigned line;
} fold__frame;

/* The logical frames of stack id of process proc, outermost first (*n of
 * them; NULL and 0 for no stack), and the module of the interrupted address
 * (NULL when unknown). Valid until fold__attrib_free; thread-safe. */
const fold__frame *fold__attrib_stack(fold__attrib *a, unsigned proc, uint32_t id, unsigned *n,
                                      const char **leaf_module);

/* Fills the sampled call tree (an->cct) from every sample of every trace. */
int fold__attrib_global(fold__attrib *a, ingest__trace *const *tr, size_t ntr, fold_analysis *an);

#endif
