/* models.h: derived metrics defined as data (share/fold/models/NAME.model).
 *
 * Owns reading model files and evaluating their metrics over the folded
 * counter rates of a region. The file format is documented in
 * docs/folding.md ("Derived metrics and models"); in short:
 *
 *   # comment
 *   model ipc
 *   title Instructions per cycle
 *   counter ins = PAPI_TOT_INS | perf::INSTRUCTIONS
 *   counter cyc = PAPI_TOT_CYC | perf::CYCLES
 *   metric IPC ratio = ins / cyc
 *
 * A `counter` line binds an alias to the first of its names the trace has.
 * A `metric` line defines NAME UNIT = EXPR, an expression over aliases and
 * numbers with + - * /, unary minus, parentheses, min(a,b) and max(a,b),
 * evaluated on rates (events per second). A model with a missing counter is
 * skipped, with a one-line reason.
 */
#ifndef FOLD_MODELS_H
#define FOLD_MODELS_H

#include <stddef.h>

#include "analysis.h"
#include "trace_reader.h"

typedef struct models__set models__set;

/* Loads every *.model file of <share>/models, share being dir, else
 * $FOLD_SHARE_DIR, else the installed data directory next to the executable,
 * else the source tree's share/fold. No directory is not an error (no
 * models); a malformed file is reported through diag and skipped. */
int models__load(const char *dir, models__set **out, trace_diag_fn diag, void *diag_arg);
/* Parses one model from text (for tests); origin names it in messages. */
int models__parse(models__set *m, const char *text, const char *origin, char *err, size_t errlen);
models__set *models__new(void);
void models__free(models__set *m);
size_t models__count(const models__set *m);
size_t models__max_metrics(const models__set *m);

/* Records in a->models_skipped every model that needs a counter the
 * analysis has nowhere (id -> "no counter for ALIAS (NAME | NAME ...)"),
 * and in a->models_used the others. Returns 0 or -ENOMEM. */
int models__classify(const models__set *m, fold_analysis *a);

/* Appends derived series (curves on the region's grid) and per-phase metric
 * values for every model whose counters the region's series include. */
int models__apply(const models__set *m, fold_region_result *r);

/* Evaluates metric k of model j on named rates (tests): 0, or -ENOENT when a
 * counter is missing. */
int models__eval(const models__set *m, size_t model, size_t metric, const char *const *names,
                 const double *rates, size_t n, double *out);
const char *models__metric_name(const models__set *m, size_t model, size_t metric);

#endif
