/* fit_kriging.c: the Kriging fit as a fit_method (kriging.c does the work):
 * a smooth rate curve with a 95% band. Its hyper-parameters are recorded as
 * kriging.* parameters. */
#include <errno.h>

#include "fit.h"
#include "kriging.h"

static int kriging_fit(const fit_input *in, fold_curve *out, double *rms, const fit_params *params)
{
	kriging__opts ko;
	kriging__opts_init(&ko);
	ko.seed = in->seed;
	kriging__result kr;
	if (kriging__fit(in->x, in->y, in->n, &ko, out->x, out->n, &kr)) {
		kriging__result_free(&kr);
		return 1;
	}
	for (size_t i = 0; i < out->n; i++) {
		out->cum[i] = kr.cum[i];
		out->value[i] = kr.rate[i] * in->rscale;
		out->lo[i] = kr.rate_lo[i] * in->rscale;
		out->hi[i] = kr.rate_hi[i] * in->rscale;
	}
	*rms = kr.rms;
	int rc = 0;
	if (params && ((rc = fit_param(params, "kriging.kernel", "%s", "matern32")) ||
	               (rc = fit_param(params, "kriging.length_scale", "%.6g", kr.length_scale)) ||
	               (rc = fit_param(params, "kriging.nugget_ratio", "%.6g", kr.eta)) ||
	               (rc = fit_param(params, "kriging.bins", "%zu", kr.nbins)) ||
	               (rc = fit_param(params, "kriging.approximation", "%s", kr.approximation))))
		rc = -ENOMEM;
	kriging__result_free(&kr);
	return rc;
}

const fit_method fit_kriging = {"kriging", 1, kriging_fit};
