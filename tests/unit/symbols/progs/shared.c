/* shared.c: a shared library for the symbolisation tests (looked up as if
 * dlopen'd at an arbitrary load bias). */
volatile int shared_sink;

__attribute__((noinline)) int shared_work(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += shared_sink + i; /* @shared_body */
	return s;
}
