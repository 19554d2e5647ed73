/* fit.c: the table of curve fits (fit.h) and their parameter records. */
#define _GNU_SOURCE
#include "fit.h"
#include "util.h"

#include <errno.h>
#include <math.h>
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

static int add_param(const fit_params *p, fold_fit_param v)
{
	fold_fit_param *a = v.name ? realloc(*p->p, (*p->n + 1) * sizeof **p->p) : NULL;
	if (!a || (v.kind == FOLD_FIT_WORD && !v.word)) {
		free(v.name);
		free(v.word);
		if (a)
			*p->p = a;
		return -ENOMEM;
	}
	*p->p = a;
	a[(*p->n)++] = v;
	return 0;
}

int fit__number(const fit_params *p, const char *name, double value, const char *unit)
{
	return add_param(p, (fold_fit_param){strdup(name), FOLD_FIT_NUMBER, value, 0, NULL, unit});
}

int fit__integer(const fit_params *p, const char *name, uint64_t value, const char *unit)
{
	return add_param(p,
	                 (fold_fit_param){strdup(name), FOLD_FIT_INTEGER, (double)value, value, NULL, unit});
}

int fit__word(const fit_params *p, const char *name, const char *word)
{
	return add_param(p, (fold_fit_param){strdup(name), FOLD_FIT_WORD, NAN, 0, strdup(word), ""});
}

int fit__note(const fit_params *p, const char *key, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *value = util_vasprintf(fmt, ap);
	va_end(ap);
	char *k = strdup(key);
	fold_kv *kv = value && k ? realloc(*p->notes, (*p->nnotes + 1) * sizeof **p->notes) : NULL;
	if (!kv) {
		free(value);
		free(k);
		return -ENOMEM;
	}
	*p->notes = kv;
	kv[*p->nnotes].key = k;
	kv[*p->nnotes].value = value;
	(*p->nnotes)++;
	return 0;
}
