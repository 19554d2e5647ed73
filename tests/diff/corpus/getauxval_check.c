/* getauxval_check: what the kernel handed the program at exec (the auxiliary
 * vector): secure mode, page size, hardware capabilities, platform, the
 * executable's name; a preloaded library must not change any of it.
 *
 * diff: expect-status=exit 0
 */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

int main(void)
{
	const char *execfn = (const char *)getauxval(AT_EXECFN);
	const char *plat = (const char *)getauxval(AT_PLATFORM);
	printf("secure %lu pagesz %lu hwcap %#lx hwcap2 %#lx\n", getauxval(AT_SECURE), getauxval(AT_PAGESZ),
	       getauxval(AT_HWCAP), getauxval(AT_HWCAP2));
	printf("platform %s execfn %s\n", plat ? plat : "?", execfn ? strrchr(execfn, '/') + 1 : "?");
	printf("uid %lu euid %lu gid %lu egid %lu\n", getauxval(AT_UID), getauxval(AT_EUID),
	       getauxval(AT_GID), getauxval(AT_EGID));
	printf("random %d vdso %d minsig %d\n", getauxval(AT_RANDOM) != 0, getauxval(AT_SYSINFO_EHDR) != 0,
	       getauxval(AT_MINSIGSTKSZ) != 0);
	return 0;
}
