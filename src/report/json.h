/* json.h: the machine-readable output of fold (`fold --json FILE`).
 *
 * Owns the versioned JSON document ("format": "fold-json", "version": 1)
 * documented in docs/json.md. Keys are only ever added within a version.
 * Strings are escaped for JSON: quotes, backslashes and control characters,
 * and invalid UTF-8 bytes are replaced by U+FFFD, so the output always
 * parses. Non-finite numbers are written as null. report_json_write is
 * declared in report.h; this header is private to src/report.
 */
#ifndef FOLD_REPORT_JSON_H
#define FOLD_REPORT_JSON_H

#include <stddef.h>
#include <stdio.h>

#include "report.h"

#define REPORT_JSON_VERSION 2

/* Writes s (len bytes) as a JSON string literal, quotes included
 * (report_esc_json_n). 0, or -ENOMEM after writing "" instead. */
int report_json_string(FILE *f, const char *s, size_t len);

#endif
