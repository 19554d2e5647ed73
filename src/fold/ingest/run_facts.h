/* run_facts.h: the one reader of a process' run facts in its trace's INFO
 * records (sampling, identity, clock, stop probe) into a typed fold_facts
 * (analysis.h).
 *
 * Invariants:
 *  - This is the only place in the analysis and the writers that turns INFO
 *    text of these keys into values (tests/tools/info_keys.sh checks it);
 *    everything else reads the fold_facts.
 *  - Every value is bounded: a key that is absent, malformed (not wholly a
 *    number) or out of range reads as "unknown" (-1, 0 or NULL, see
 *    fold_facts), never as a part of its text.
 */
#ifndef FOLD_RUN_FACTS_H
#define FOLD_RUN_FACTS_H

#include "analysis.h"

/* The last value of INFO key in the trace arg, or NULL. */
typedef const char *(*run_facts__get_fn)(const void *arg, const char *key);

/* Fills f from the INFO records get reads; the strings of f are get's. */
void run_facts__parse(fold_facts *f, run_facts__get_fn get, const void *arg);

/* The sampling mode of a sample.source and sample.event (either NULL). */
fold_sample_mode run_facts__sample_mode(const char *source, const char *event);

#endif
