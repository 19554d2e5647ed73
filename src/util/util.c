/* util.c: the hash map and string helpers of util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

size_t *util_hmap_find(const util_hmap *m, uint64_t hash, util_hmap_eq eq, const void *arg)
{
	if (!m->cap)
		return NULL;
	for (size_t j = hash & (m->cap - 1); m->slot[j].used; j = (j + 1) & (m->cap - 1))
		if (m->slot[j].hash == hash && eq(arg, m->slot[j].value))
			return &m->slot[j].value;
	return NULL;
}

static void place(struct util_hmap_slot *s, size_t cap, uint64_t hash, size_t value)
{
	size_t j = hash & (cap - 1);
	while (s[j].used)
		j = (j + 1) & (cap - 1);
	s[j] = (struct util_hmap_slot){hash, value, 1};
}

int util_hmap_insert(util_hmap *m, uint64_t hash, size_t value)
{
	if ((m->n + 1) * 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 64;
		struct util_hmap_slot *s = calloc(cap, sizeof *s);
		if (!s)
			return -ENOMEM;
		for (size_t i = 0; i < m->cap; i++)
			if (m->slot[i].used)
				place(s, cap, m->slot[i].hash, m->slot[i].value);
		free(m->slot);
		m->slot = s;
		m->cap = cap;
	}
	place(m->slot, m->cap, hash, value);
	m->n++;
	return 0;
}

void util_hmap_free(util_hmap *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
}

uint64_t util_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

uint64_t util_hash_str(const char *s)
{
	return util_hash_bytes(s ? s : "", s ? strlen(s) : 0);
}

uint64_t util_hash_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

char *util_strdup(const char *s)
{
	return strdup(s ? s : "");
}

char *util_vasprintf(const char *fmt, va_list ap)
{
	char *s = NULL;
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	return s;
}

char *util_asprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *s = util_vasprintf(fmt, ap);
	va_end(ap);
	return s;
}
