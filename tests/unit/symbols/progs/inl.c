/* inl.c: test program for the symbolisation tests, built with gcc and clang,
 * PIE and non-PIE, DWARF 4 and 5, and as stripped copies.
 *
 * compute() inlines helper_outer() which inlines helper_inner(), so code in
 * compute carries a two-level inline chain with known call lines.
 * ends_with_call() ends with a call to a noreturn function: the return address
 * lies past the end of the function, and only the return-address adjustment
 * attributes it to the call line. When run, the program prints its load bias,
 * the run-time address of compute() and that return address. */
#define _GNU_SOURCE
#include <link.h>
#include <stdio.h>
#include <stdlib.h>

#include "inc/helpers.h"

volatile int sink;

static inline __attribute__((always_inline)) int helper_outer(int x)
{
	return helper_inner(x + 1); /* @call_inner */
}

__attribute__((noinline)) int compute(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += helper_outer(i); /* @call_outer */
	return s;
}

__attribute__((noinline, noreturn)) void finish(void)
{
	printf("ra %p\n", __builtin_return_address(0));
	fflush(stdout);
	exit(0);
}

__attribute__((noinline)) void ends_with_call(int x)
{
	if (x > 1)
		sink = x;
	finish(); /* @last_call */
}

static int print_bias(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	(void)arg;
	if (info->dlpi_name[0] == '\0') {
		printf("bias %#lx\n", (unsigned long)info->dlpi_addr);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	(void)argv;
	dl_iterate_phdr(print_bias, NULL);
	printf("compute %p\n", (void *)compute);
	printf("result %d\n", compute(argc + 10));
	ends_with_call(argc);
}
