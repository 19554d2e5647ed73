/* prog_origin.c: calls a library (in a subdirectory) that dlopens
 * "$ORIGIN/liborigin_plugin.so"; prints what it got. */
#include <stdio.h>

int origin_load(char *msg, size_t len);

int main(void)
{
	char msg[128];
	int rc = origin_load(msg, sizeof msg);
	printf("%s\n", msg);
	return rc ? 1 : 0;
}
