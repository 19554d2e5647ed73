/* d16_full_disk: the trace's file system is full when the program starts (a
 * 64 KiB tmpfs mounted over the trace directory in a private mount
 * namespace, filled before the program runs): fold says so on stderr at
 * once, before the program's work ends (issue 28 defect 16: a 0-byte trace
 * and no message).
 *
 * diff: needs=root,unshare,mount
 * diff: skip-if=unshare -m true 2>/dev/null && exit 1; \
 *       echo "no private mount namespace here (unshare -m failed)"
 * diff: cmd=unshare -m sh -c 'mount -t tmpfs -o size=64k fold-full {traces} && \
 *       cat /dev/zero >{traces}/filler 2>/dev/null; exec "$@"' sh {fold} {exe}
 * diff: expect-status=exit 0
 * diff: traces=any
 * diff: check=[ $MODE = plain ] || \
 *       awk '/^fold: .*No space left/ { f = NR } /^end of work$/ { e = NR } \
 *            END { exit !(f && f < e) }' $STDERR || \
 *       { echo "no ENOSPC message before the end of the work:"; cat $STDERR; exit 1; }
 */
#include <stdio.h>
#include "common.h"

int main(void)
{
	fprintf(stderr, "start of work\n");
	burn_ms(600);
	fprintf(stderr, "end of work\n");
	return 0;
}
