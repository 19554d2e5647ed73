/* prog_filter_lib.c: a function in its own source file, for FOLD_FILTER's
 * file rules (prog_calls filter). */
extern volatile double sink;
void lib_helper(int i);
__attribute__((noinline)) void lib_helper(int i)
{
	for (int k = 0; k < 10; k++)
		sink += i * k;
}
