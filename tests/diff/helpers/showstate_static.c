/* showstate_static: showstate linked statically (no preload can reach it).
 *
 * diff: build=-static
 */
#include "showstate.c"
