/* fit.c: the table of curve fits (fit.h) and their parameter records. */
#define _GNU_SOURCE
#include "fit.h"
#include "util.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const fit_method *const fits[] = {&fit__kriging, &fit__pwlr};

const fit_method *fit__find(const char *name)
{
	for (size_t i = 0; name && i < sizeof fits / sizeof fits[0]; i++)
		if (!strcmp(fits[i]->name, name))
			return fits[i];
	return NULL;
}

int fit__param(const fit_params *p, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *value = util_vasprintf(fmt, ap);
	va_end(ap);
	char *k = strdup(key);
	fold_kv *kv = value && k ? realloc(*p->kv, (*p->n + 1) * sizeof **p->kv) : NULL;
	if (!kv) {
		free(value);
		free(k);
		return -ENOMEM;
	}
	*p->kv = kv;
	kv[*p->n].key = k;
	kv[*p->n].value = value;
	(*p->n)++;
	return 0;
}
