/* origin_plugin.c: the plugin origin_loader finds through $ORIGIN. */
int origin_answer(void);
int origin_answer(void)
{
	return 42;
}
