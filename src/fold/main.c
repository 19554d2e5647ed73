/* main.c: the fold command line (placeholder until the CLI lands). */
#include <stdio.h>
int main(void)
{
	fprintf(stderr, "fold: not yet implemented\n");
	return 2;
}
