/* stage_models.c: derived metrics from the model files (models.c), per
 * phase and as curves, once the phase rates and curves are final ->
 * r->series and r->phases rates of the models' metrics.
 *
 * Invariants: a model only adds series and rates after the measured ones
 * (the room for them was reserved by stage_curves and stage_table).
 */
#include "region_work.h"

int stage_models(analyze_ctx *c, region_work *w)
{
	return models__apply(c->models, w->r);
}
