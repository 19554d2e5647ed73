/* The offline building blocks of util.h: the growable array keeps contents
 * and reports its capacity, the hash map finds what was inserted (also across
 * growth, with colliding hashes and after clear), the string buffer builds
 * text past its first allocation and stays NUL-terminated. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static void test_grow_keeps_contents(void **state)
{
	(void)state;
	int *a = NULL;
	size_t cap = 0;
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(util_grow((void **)&a, &cap, (size_t)i + 1, sizeof *a), 0);
		assert_true(cap >= (size_t)i + 1);
		a[i] = i * 7;
	}
	for (int i = 0; i < 1000; i++)
		assert_int_equal(a[i], i * 7);
	size_t before = cap;
	assert_int_equal(util_grow((void **)&a, &cap, 10, sizeof *a), 0);
	assert_int_equal(cap, before); /* never shrinks */
	assert_int_equal(util_grow((void **)&a, &cap, SIZE_MAX / 2, sizeof *a), -ENOMEM);
	assert_int_equal(cap, before); /* unchanged on failure */
	free(a);
}

static const char *const *g_keys;

static int key_eq(const void *arg, size_t value)
{
	return !strcmp(arg, g_keys[value]);
}

static void test_hmap_finds_every_key(void **state)
{
	(void)state;
	enum { N = 5000 };
	static char store[N][16];
	static const char *keys[N];
	for (int i = 0; i < N; i++) {
		snprintf(store[i], sizeof store[i], "key%d", i);
		keys[i] = store[i];
	}
	g_keys = keys;
	util_hmap m = {0};
	assert_null(util_hmap_find(&m, util_hash_str("key0"), key_eq, "key0"));
	for (size_t i = 0; i < N; i++)
		assert_int_equal(util_hmap_insert(&m, util_hash_str(keys[i]), i), 0);
	assert_int_equal(m.n, N);
	for (size_t i = 0; i < N; i++) {
		size_t *v = util_hmap_find(&m, util_hash_str(keys[i]), key_eq, keys[i]);
		assert_non_null(v);
		assert_int_equal(*v, i);
	}
	assert_null(util_hmap_find(&m, util_hash_str("absent"), key_eq, "absent"));
	util_hmap_clear(&m);
	assert_int_equal(m.n, 0);
	assert_null(util_hmap_find(&m, util_hash_str("key1"), key_eq, "key1"));
	assert_int_equal(util_hmap_insert(&m, util_hash_str("key1"), 1), 0);
	assert_non_null(util_hmap_find(&m, util_hash_str("key1"), key_eq, "key1"));
	util_hmap_free(&m);
}

static void test_hmap_colliding_hashes_are_told_apart(void **state)
{
	(void)state;
	static const char *keys[] = {"a", "b", "c"};
	g_keys = keys;
	util_hmap m = {0};
	for (size_t i = 0; i < 3; i++)
		assert_int_equal(util_hmap_insert(&m, 42, i), 0); /* one hash for all */
	for (size_t i = 0; i < 3; i++) {
		size_t *v = util_hmap_find(&m, 42, key_eq, keys[i]);
		assert_non_null(v);
		assert_int_equal(*v, i);
	}
	util_hmap_free(&m);
}

static void test_hashes(void **state)
{
	(void)state;
	assert_int_equal(util_hash_str(NULL), util_hash_str(""));
	assert_int_equal(util_hash_str("abc"), util_hash_bytes("abc", 3));
	assert_int_not_equal(util_hash_str("abc"), util_hash_str("abd"));
	assert_int_not_equal(util_hash_mix(1, 2), util_hash_mix(2, 1));
	/* A call stack's hash depends on its frames, their order and its depth
	 * (a stack ending in a frame at address 0 is another stack). */
	const uint64_t ab[] = {0x401000, 0x402000}, ba[] = {0x402000, 0x401000}, a0[] = {0x401000, 0};
	assert_int_equal(util_hash_frames(ab, 2),
	                 util_hash_frames((const uint64_t[]){0x401000, 0x402000}, 2));
	assert_int_not_equal(util_hash_frames(ab, 2), util_hash_frames(ba, 2));
	assert_int_not_equal(util_hash_frames(ab, 1), util_hash_frames(a0, 2));
	assert_int_not_equal(util_hash_frames(ab, 0), util_hash_frames(ab, 1));
}

static void test_buf_builds_text(void **state)
{
	(void)state;
	util_buf b;
	util_buf_init(&b);
	util_buf_puts(&b, "a");
	util_buf_putc(&b, 'b');
	util_buf_put(&b, "cdef", 2);
	assert_string_equal(b.data, "abcd");
	/* A formatted piece longer than the first allocation and the 256-byte
	 * staging buffer. */
	char big[10000];
	memset(big, 'x', sizeof big - 1);
	big[sizeof big - 1] = 0;
	util_buf_printf(&b, "<%s|%d>", big, 42);
	assert_int_equal(b.len, 4 + 1 + (sizeof big - 1) + 4);
	assert_int_equal(b.data[b.len], 0);
	assert_memory_equal(b.data + b.len - 4, "|42>", 4);
	assert_false(b.oom);
	util_buf_free(&b);
	assert_null(b.data);
	assert_int_equal(b.len, 0);
}

static void test_buf_oom_is_sticky(void **state)
{
	(void)state;
	util_buf b;
	util_buf_init(&b);
	util_buf_puts(&b, "kept");
	b.oom = 1; /* as after a failed allocation */
	util_buf_puts(&b, " dropped");
	util_buf_printf(&b, "%d", 1);
	assert_string_equal(b.data, "kept");
	assert_true(b.oom);
	util_buf_free(&b);
}

static void test_strings(void **state)
{
	(void)state;
	char *s = util_strdup(NULL);
	assert_string_equal(s, "");
	free(s);
	s = util_asprintf("%s-%03d", "x", 7);
	assert_string_equal(s, "x-007");
	free(s);
}

static const char *nth_name(const void *arg, size_t i)
{
	return ((const char *const *)arg)[i];
}

/* The edit distance counts single-character edits (case aside), and the
 * nearest names come nearest first, within the bound, never the name itself. */
static void test_nearest_names(void **state)
{
	(void)state;
	assert_int_equal(util_edit_distance("timestpe", "timestep"), 2);
	assert_int_equal(util_edit_distance("FOLD_SAMPEL", "FOLD_SAMPLE"), 2);
	assert_int_equal(util_edit_distance("kitten", "sitting"), 3);
	assert_int_equal(util_edit_distance("", "abc"), 3);
	assert_int_equal(util_edit_distance("Timestep", "timestep"), 0);
	const char *names[] = {"force",    "timestep", "timestep_inner", "neighbor",
	                       "timestpe", NULL,       "Timestep"};
	size_t idx[UTIL_NEAREST_MAX];
	size_t n = util_nearest("timestpe", nth_name, names, 7, 10, 3, idx);
	assert_int_equal(n, 3);
	assert_int_equal(idx[0], 1); /* timestep and Timestep: 2 edits each, in table order */
	assert_int_equal(idx[1], 6);
	n = util_nearest("timestpe", nth_name, names, 7, 2, 8, idx);
	assert_int_equal(n, 2);
	assert_int_equal(util_typo_bound("FOLD_SAMPEL"), 3);
	assert_int_equal(util_typo_bound("ab"), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_grow_keeps_contents),
	    cmocka_unit_test(test_hmap_finds_every_key),
	    cmocka_unit_test(test_hmap_colliding_hashes_are_told_apart),
	    cmocka_unit_test(test_hashes),
	    cmocka_unit_test(test_buf_builds_text),
	    cmocka_unit_test(test_buf_oom_is_sticky),
	    cmocka_unit_test(test_strings),
	    cmocka_unit_test(test_nearest_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
