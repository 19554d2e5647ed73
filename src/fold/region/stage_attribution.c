/* stage_attribution.c: the source lines and functions behind each phase
 * (attribution.c), from the samples of the folded instances' pieces ->
 * r's attribution tables.
 *
 * Invariants: the last stage; it reads the phases, never changes them.
 */
#include "region_work.h"

int stage_attribution(analyze_ctx *c, region_work *w)
{
	return attribution__region(c->attrib, c->tr, w->gr.pieces, w->gr.npieces, w->r);
}
