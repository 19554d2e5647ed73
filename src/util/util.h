/* util.h: the offline tool's building blocks (src/util), shared by the
 * analysis (src/fold), the writers (src/report) and the CLI: a growable
 * array, a hash map, a string buffer, string helpers. The runtime
 * (src/runtime) links none of them on purpose: it must not allocate on its
 * signal path and keeps its own preallocated, lock-free tables. It and the
 * trace layer take only what is header-only: util_grow (outside signal
 * handlers), util_hash.h and util_nearest.h.
 *
 * Functions return 0 or a negative errno; on failure the container is
 * unchanged.
 */
#ifndef FOLD_UTIL_H
#define FOLD_UTIL_H

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "util_hash.h"    /* util_hash_mix, util_hash_str, util_hash_frames */
#include "util_nearest.h" /* util_edit_distance, util_nearest */

/* --- growable array: (T *buf, size_t n, size_t cap) triples --- */

/* The capacity (in elements) util_grow grows to for need > cap elements of
 * elem bytes: cap doubled (first, > 0, when cap is 0) until it holds need;
 * 0 when that many bytes do not fit a size_t. For arrays held in other
 * memory than malloc's (mappings). */
static inline size_t util_grow_cap(size_t cap, size_t need, size_t first, size_t elem)
{
	size_t n = cap ? cap : first;
	while (n < need) {
		if (n > SIZE_MAX / 2)
			return 0;
		n *= 2;
	}
	return n > SIZE_MAX / elem ? 0 : n;
}

/* Makes room for `need` elements of `elem` bytes in *buf (capacity *cap, in
 * elements), doubling from 4. Returns 0 or -ENOMEM; *buf is unchanged on
 * failure. */
static inline int util_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
	if (need <= *cap)
		return 0;
	size_t n = util_grow_cap(*cap, need, 4, elem);
	if (!n)
		return -ENOMEM;
	void *nb = realloc(*buf, n * elem);
	if (!nb)
		return -ENOMEM;
	*buf = nb;
	*cap = n;
	return 0;
}

/* --- hash map: 64-bit hash -> size_t value, keys kept by the caller ---
 *
 * Open addressing with linear probing, at most half full. The map stores
 * only a key's hash and a value (typically an index into the caller's array
 * of entries, where the key lives); lookups confirm a match with the
 * caller's eq(arg, value). So one map serves string keys, pairs of ids and
 * frame arrays alike. */
typedef struct util_hmap {
	struct util_hmap_slot {
		uint64_t hash;
		size_t value;
		int used;
	} * slot;
	size_t cap, n;
} util_hmap;

typedef int (*util_hmap_eq)(const void *arg, size_t value);

/* The value whose key has this hash and for which eq(arg, value) holds, or
 * NULL. */
size_t *util_hmap_find(const util_hmap *m, uint64_t hash, util_hmap_eq eq, const void *arg);
/* Adds (hash, value) without looking for an equal key. 0 or -ENOMEM. */
int util_hmap_insert(util_hmap *m, uint64_t hash, size_t value);
/* Forgets every entry and keeps the slots for reuse. */
void util_hmap_clear(util_hmap *m);
void util_hmap_free(util_hmap *m);

/* Hashes for the map's keys: util_hash_str, util_hash_bytes, util_hash_mix,
 * util_hash_frames (util_hash.h). */

/* --- strings --- */

/* strdup that maps NULL to "" (NULL only when memory runs out). */
char *util_strdup(const char *s);
/* vasprintf into a fresh string, NULL when memory runs out. */
char *util_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *util_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* --- files named by untrusted input ---
 *
 * Opens path read-only only when it is a regular file: a path taken from a
 * trace (a module, a debug file, a source file) may name a FIFO, whose
 * open blocks until a writer comes, or a device, whose open may act. It is
 * stat'ed first (nothing else is ever opened), then opened with
 * O_NONBLOCK|O_NOCTTY (a FIFO swapped in meanwhile opens at once) and
 * fstat'ed to confirm a regular file. Returns the descriptor (O_CLOEXEC),
 * with its stat in *st when st is not NULL, or a negative errno: -EINVAL
 * for anything but a regular file. */
struct stat;
int util_open_regular(const char *path, struct stat *st);

/* --- text for a terminal ---
 *
 * Text taken from a trace (a region name, a module path) must not drive the
 * user's terminal: every control character (C0 but TAB, DEL, and the C1
 * controls U+0080..U+009F, which some terminals take for ESC sequences) and
 * every byte that is not part of valid UTF-8 is unsafe. Header-only: the
 * trace library's diagnostics use it too. */

/* The length of the safe character (valid UTF-8, not a control) at p, or 0
 * when p[0] starts something unsafe (then skip one byte). */
static inline unsigned util_term_char_len(const unsigned char *p)
{
	unsigned c = p[0];
	unsigned n = c < 0x80                 ? 1
	             : c >= 0xc2 && c <= 0xdf ? 2
	             : c >= 0xe0 && c <= 0xef ? 3
	             : c >= 0xf0 && c <= 0xf4 ? 4
	                                      : 0;
	for (unsigned i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	if ((n == 1 && ((c < 0x20 && c != '\t') || c == 0x7f)) || (n == 2 && c == 0xc2 && p[1] < 0xa0) ||
	    (n == 3 && ((c == 0xe0 && p[1] < 0xa0) || (c == 0xed && p[1] >= 0xa0))) ||
	    (n == 4 && ((c == 0xf0 && p[1] < 0x90) || (c == 0xf4 && p[1] >= 0x90))))
		return 0; /* a control, an overlong form, a surrogate, beyond U+10FFFF */
	return n;
}

/* Writes s to f with every unsafe byte as '?'. */
static inline void util_fput_term(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)(s ? s : "");
	while (*p) {
		unsigned n = util_term_char_len(p);
		if (n)
			fwrite(p, 1, n, f);
		else
			fputc('?', f);
		p += n ? n : 1;
	}
}

/* --- string buffer with a sticky out-of-memory flag ---
 *
 * Always NUL-terminated once anything was written. On allocation failure it
 * sets oom and drops every later write, so a writer appends without checks
 * and reports -ENOMEM once at the end. */
typedef struct util_buf {
	char *data;
	size_t len, cap;
	int oom;
} util_buf;

void util_buf_init(util_buf *b);
void util_buf_free(util_buf *b);
void util_buf_put(util_buf *b, const char *s, size_t n);
void util_buf_puts(util_buf *b, const char *s);
void util_buf_putc(util_buf *b, char c);
void util_buf_printf(util_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void util_buf_vprintf(util_buf *b, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));

#endif
