/* warn_group.c: which warnings say the same thing (see warn_group.h). */
#include "warn_group.h"

#include <string.h>

#include "names.h"

/* The part of a warning before its first ": " (a trace, a region), or 0. */
size_t report_warn_subject(const char *w)
{
	const char *c = strstr(w, ": ");
	return c && c - w < 200 ? (size_t)(c - w) : 0;
}

/* Whether two warnings say the same thing of different subjects: equal
 * after their subjects, with numbers left out. */
int report_warn_alike(const char *x, const char *y)
{
	x += report_warn_subject(x);
	y += report_warn_subject(y);
	for (;;) {
		int dx = *x >= '0' && *x <= '9', dy = *y >= '0' && *y <= '9';
		if (dx != dy)
			return 0;
		if (dx) {
			while (*x >= '0' && *x <= '9')
				x++;
			while (*y >= '0' && *y <= '9')
				y++;
			continue;
		}
		if (*x != *y)
			return 0;
		if (!*x)
			return 1;
		x++;
		y++;
	}
}

void report_warn_text(const fold_warning *w, unsigned maxcols, util_buf *out)
{
	size_t len = strlen(w->what);
	if (!w->name_len || w->name_at + w->name_len > len) {
		util_buf_puts(out, w->what);
		return;
	}
	char name[4096], shortn[1024];
	size_t n = w->name_len < sizeof name - 1 ? w->name_len : sizeof name - 1;
	memcpy(name, w->what + w->name_at, n);
	name[n] = 0;
	report_short_name(name, maxcols, shortn, sizeof shortn);
	util_buf_printf(out, "%.*s%s%s", (int)w->name_at, w->what, shortn,
	                w->what + w->name_at + w->name_len);
}
