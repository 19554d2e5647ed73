/* fit.h: the curve fits of a folded series behind one interface (private to
 * src/fold). A fit turns the folded points (x = position in the instance,
 * y = cumulative share of the instance's events) into a rate curve on the
 * grid of the result. `fold --fit NAME` picks one by name; a new fit is a
 * new fit_<name>.c with a fit_method and a line in fit.c's table.
 *
 * The piecewise-linear phase fit (pwlr.c) always runs first, because phases
 * come from it; a fit that fails falls back to that phase fit's curve.
 */
#ifndef FOLD_FIT_H
#define FOLD_FIT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "pwlr.h"

typedef struct fit_input {
	const double *x, *y;  /* folded points */
	const uint32_t *inst; /* instance of each point (NULL: unknown) */
	size_t n;
	double scale;  /* mean rate over the instances: a flat curve's value */
	double rscale; /* rate per unit slope (events/s, or s/s) */
	double max;    /* the largest rate the series can physically have (INFINITY: none) */
	const pwlr__result *phases;
	size_t pi; /* the series' index in phases, SIZE_MAX if it took no part */
	uint64_t seed;
	/* out (may be NULL): bit p set when the fit withheld phase p's shape
	 * (fit_kriging.c, conserve_area) */
	unsigned long *shape_withheld;
} fit_input;

/* Where a fit records its parameters ("name.key" = typed value) and its
 * notes (key = sentence) in the result. */
typedef struct fit_params {
	fold_fit_param **p;
	size_t *n;
	fold_kv **notes;
	size_t *nnotes;
} fit_params;

/* The parameters of region result r. */
#define FIT__PARAMS_OF(r)                                                                                    \
	((fit_params){&(r)->fit_params, &(r)->nfit_params, &(r)->fit_notes, &(r)->nfit_notes})

typedef struct fit_method {
	const char *name;
	int band; /* its curves carry a confidence band (curve lo/hi) */
	/* Fills out->cum, out->value (and lo/hi when allocated) at out->x and
	 * *rms. Records its parameters in *params unless params is NULL.
	 * Returns 0, 1 when the fit did not succeed (the caller falls back to the
	 * phase fit), or a negative errno. */
	int (*fit)(const fit_input *in, fold_curve *out, double *rms, const fit_params *params);
} fit_method;

extern const fit_method fit__kriging, fit__pwlr;

/* The fit called name, or NULL. */
const fit_method *fit__find(const char *name);

/* Appends a parameter to *p: a number, a whole number (unit: static text,
 * see fold_fit_param) or a word. 0 or -ENOMEM. */
int fit__number(const fit_params *p, const char *name, double value, const char *unit);
int fit__integer(const fit_params *p, const char *name, uint64_t value, const char *unit);
int fit__word(const fit_params *p, const char *name, const char *word);
/* Appends the note key = formatted sentence to *p. 0 or -ENOMEM. */
int fit__note(const fit_params *p, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif
