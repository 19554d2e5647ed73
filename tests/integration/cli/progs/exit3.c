/* exit3.c: says hello and exits 3, for foldrun on programs it cannot
 * measure (static, setuid, setgid, file capabilities). */
#include <stdio.h>

int main(void)
{
	puts("hello from exit3");
	return 3;
}
