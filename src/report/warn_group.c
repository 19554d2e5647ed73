/* warn_group.c: which warnings say the same thing (see warn_group.h). */
#include "warn_group.h"

#include <string.h>

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
