/* plugin: a shared library the dlopen cases load and unload.
 *
 * diff: build=-shared -fPIC
 */
static int counter;

int plugin_work(int n)
{
	volatile int x = 0;
	for (int i = 0; i < n; i++)
		x += i;
	return ++counter + (x & 1);
}

__attribute__((constructor)) static void plugin_init(void)
{
	counter = 100;
}
