/* json_check.h: a strict JSON syntax checker for tests (RFC 8259, UTF-8). */
#ifndef FOLD_TEST_JSON_CHECK_H
#define FOLD_TEST_JSON_CHECK_H
#include <stddef.h>
/* 1 if text[0..len) is one valid JSON value (whitespace around allowed). */
int json_check(const char *text, size_t len);
/* Reads a whole file; NULL on error. *len receives its size. */
char *json_slurp(const char *path, size_t *len);
#endif
