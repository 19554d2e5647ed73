/* util_hash.h: fold's hashes for table lookups, one of each kind: a mixer of
 * two 64-bit words, FNV-1a over bytes and strings, and the hash of a call
 * stack's frames built on the mixer. Header-only and allocation-free, so the
 * runtime (libfold.so, which links no fold_util; in its signal handler too),
 * the trace layer and the offline tool use the same functions; util.h
 * includes it.
 *
 * Invariant: a hash only places keys in a table (every lookup confirms the key
 * itself); no file, report or order of output depends on a hash value, so
 * these functions may change without changing any output.
 */
#ifndef FOLD_UTIL_HASH_H
#define FOLD_UTIL_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* A 64-bit mix of two words (pairs of ids, an id with a salt, a chain). */
static inline uint64_t util_hash_mix(uint64_t a, uint64_t b)
{
	uint64_t h = a * 0x9e3779b97f4a7c15ull ^ (b + 0x632be59bd9b4e019ull + (a << 6) + (a >> 2));
	h ^= h >> 31;
	h *= 0xbf58476d1ce4e5b9ull;
	return h ^ (h >> 29);
}

/* FNV-1a of n bytes. */
static inline uint64_t util_hash_bytes(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 0xcbf29ce484222325ull;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* FNV-1a of a string; NULL hashes as "". */
static inline uint64_t util_hash_str(const char *s)
{
	return s ? util_hash_bytes(s, strlen(s)) : util_hash_bytes("", 0);
}

/* The hash of a call stack: its depth and frames chained through the mixer
 * (the runtime's per-chunk stack table and the analysis' stack interning). */
static inline uint64_t util_hash_frames(const uint64_t *frames, unsigned depth)
{
	uint64_t h = util_hash_mix(depth, 0);
	for (unsigned i = 0; i < depth; i++)
		h = util_hash_mix(h, frames[i]);
	return h;
}

#endif
