/* attribution.c: source attribution of folded samples (see attribution.h). */
#include "attribution.h"

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "symbols.h"

struct fold__attrib {
	symtab *st;
	pthread_mutex_t lock;
};

int fold__attrib_new(fold__attrib **out, fold__trace *const *tr, size_t ntr, trace_diag_fn diag, void *diag_arg)
{
	fold__attrib *a = calloc(1, sizeof *a);
	if (!a)
		return -ENOMEM;
	pthread_mutex_init(&a->lock, NULL);
	int rc = symtab_new(&a->st, diag, diag_arg);
	if (rc) {
		fold__attrib_free(a);
		return rc;
	}
	for (size_t i = 0; i < ntr; i++)
		for (size_t k = 0; k < tr[i]->nmod; k++) {
			const fold__module *m = &tr[i]->mod[k];
			symtab_add_module(a->st, (unsigned)i, m->id, m->path, m->build_id_len ? m->build_id : NULL,
			                  m->build_id_len, m->load_bias, m->segs, m->nseg);
		}
	*out = a;
	return 0;
}

void fold__attrib_free(fold__attrib *a)
{
	if (!a)
		return;
	symtab_free(a->st);
	pthread_mutex_destroy(&a->lock);
	free(a);
}

const char *fold__attrib_function_name(fold__attrib *a, unsigned proc, uint64_t address, char *buf, size_t len)
{
	snprintf(buf, len, "0x%" PRIx64, address);
	if (!a || !a->st)
		return buf;
	const char *name = NULL;
	pthread_mutex_lock(&a->lock);
	int rc = symtab_function_name(a->st, proc, address, &name);
	pthread_mutex_unlock(&a->lock);
	if (rc == 0 && name && *name)
		return name;
	return buf;
}

int fold__attrib_region(fold__attrib *a, fold__trace *const *tr, const fold__instance *inst, size_t ninst,
                        fold_region_result *r)
{
	(void)a;
	(void)tr;
	(void)inst;
	(void)ninst;
	(void)r;
	return 0;
}

int fold__attrib_global(fold__attrib *a, fold__trace *const *tr, size_t ntr, fold_analysis *an)
{
	(void)a;
	(void)tr;
	(void)ntr;
	(void)an;
	return 0;
}
