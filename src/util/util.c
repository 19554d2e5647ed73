/* util.c: the hash map, string buffer, string helpers and the opening of
 * untrusted paths of util.h. */
#define _GNU_SOURCE
#include "util.h"

#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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

void util_hmap_clear(util_hmap *m)
{
	if (m->cap)
		memset(m->slot, 0, m->cap * sizeof *m->slot);
	m->n = 0;
}

void util_hmap_free(util_hmap *m)
{
	free(m->slot);
	memset(m, 0, sizeof *m);
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

/* ----------------------------------------------------------- util_buf --- */

void util_buf_init(util_buf *b)
{
	memset(b, 0, sizeof *b);
}

void util_buf_free(util_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}

/* Room for extra bytes and the NUL; sets the sticky oom flag on failure. */
static int buf_reserve(util_buf *b, size_t extra)
{
	if (b->oom)
		return -1;
	if (extra >= SIZE_MAX - b->len) {
		b->oom = 1;
		return -1;
	}
	if (b->len + extra + 1 <= b->cap)
		return 0;
	size_t cap = b->cap ? b->cap : 4096;
	while (cap < b->len + extra + 1)
		cap *= 2;
	char *d = realloc(b->data, cap);
	if (!d) {
		b->oom = 1;
		return -1;
	}
	b->data = d;
	b->cap = cap;
	return 0;
}

void util_buf_put(util_buf *b, const char *s, size_t n)
{
	if (buf_reserve(b, n))
		return;
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = 0;
}

void util_buf_puts(util_buf *b, const char *s)
{
	util_buf_put(b, s, strlen(s));
}

void util_buf_putc(util_buf *b, char c)
{
	util_buf_put(b, &c, 1);
}

void util_buf_vprintf(util_buf *b, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	char small[256];
	int n = vsnprintf(small, sizeof small, fmt, ap);
	if (n < 0) {
		va_end(ap2);
		return;
	}
	if ((size_t)n < sizeof small) {
		util_buf_put(b, small, (size_t)n);
	} else if (!buf_reserve(b, (size_t)n)) {
		vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap2);
		b->len += (size_t)n;
	}
	va_end(ap2);
}

void util_buf_printf(util_buf *b, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	util_buf_vprintf(b, fmt, ap);
	va_end(ap);
}

int util_open_regular(const char *path, struct stat *st_out)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EINVAL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return -EINVAL;
	}
	if (st_out)
		*st_out = st;
	return fd;
}
