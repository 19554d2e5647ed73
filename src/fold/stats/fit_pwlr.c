/* fit_pwlr.c: the piecewise-linear fit as a fit_method: the curve of the
 * phase fit itself (pwlr.c), constant rate within each phase (varying
 * linearly within a gradual one). A series that
 * took no part in the phase fit gets its mean rate. Records nothing: the
 * phase fit's parameters (pwlr.*) are recorded for every region. */
#include "fit.h"

static int pwlr_fit(const fit_input *in, fold_curve *out, double *rms, const fit_params *params)
{
	const pwlr__result *pr = in->phases;
	int member = in->pi != SIZE_MAX && in->pi < pr->nseries;
	for (size_t i = 0; i < out->n; i++) {
		double x = out->x[i];
		if (!member) {
			out->cum[i] = x;
			out->value[i] = in->scale;
			continue;
		}
		out->cum[i] = pwlr__cum(pr, in->pi, x);
		out->value[i] = pwlr__rate(pr, in->pi, x) * in->rscale;
		if (out->lo)
			out->lo[i] = out->hi[i] = out->value[i];
	}
	if (member)
		*rms = pr->rms[in->pi];
	(void)params;
	return 0;
}

const fit_method fit__pwlr = {"pwlr", 0, pwlr_fit};
