/* json_check.c: strict JSON syntax checker for tests (see json_check.h). */
#include "json_check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct jc {
	const unsigned char *p, *end;
	int depth;
} jc;

static void ws(jc *c)
{
	while (c->p < c->end && (*c->p == ' ' || *c->p == '\n' || *c->p == '\r' || *c->p == '\t'))
		c->p++;
}

static int value(jc *c);

static int string(jc *c)
{
	if (c->p >= c->end || *c->p != '"')
		return 0;
	c->p++;
	while (c->p < c->end) {
		unsigned ch = *c->p;
		if (ch == '"') {
			c->p++;
			return 1;
		}
		if (ch < 0x20)
			return 0;
		if (ch == '\\') {
			c->p++;
			if (c->p >= c->end)
				return 0;
			ch = *c->p;
			if (ch == 'u') {
				for (int i = 1; i <= 4; i++)
					if (c->p + i >= c->end || !strchr("0123456789abcdefABCDEF", c->p[i]) || !c->p[i])
						return 0;
				c->p += 5;
				continue;
			}
			if (!strchr("\"\\/bfnrt", (int)ch) || !ch)
				return 0;
			c->p++;
			continue;
		}
		if (ch < 0x80) {
			c->p++;
			continue;
		}
		int n = ch >= 0xf0 && ch <= 0xf4 ? 3 : ch >= 0xe0 ? 2 : ch >= 0xc2 && ch <= 0xdf ? 1 : -1;
		if (n < 0 || c->end - c->p <= n)
			return 0;
		for (int i = 1; i <= n; i++)
			if ((c->p[i] & 0xc0) != 0x80)
				return 0;
		c->p += n + 1;
	}
	return 0;
}

static int number(jc *c)
{
	const unsigned char *s = c->p;
	if (c->p < c->end && *c->p == '-')
		c->p++;
	if (c->p >= c->end)
		return 0;
	if (*c->p == '0')
		c->p++;
	else if (*c->p >= '1' && *c->p <= '9')
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
	else
		return 0;
	if (c->p < c->end && *c->p == '.') {
		c->p++;
		if (c->p >= c->end || *c->p < '0' || *c->p > '9')
			return 0;
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
	}
	if (c->p < c->end && (*c->p == 'e' || *c->p == 'E')) {
		c->p++;
		if (c->p < c->end && (*c->p == '+' || *c->p == '-'))
			c->p++;
		if (c->p >= c->end || *c->p < '0' || *c->p > '9')
			return 0;
		while (c->p < c->end && *c->p >= '0' && *c->p <= '9')
			c->p++;
	}
	return c->p > s;
}

static int lit(jc *c, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(c->end - c->p) < n || memcmp(c->p, w, n))
		return 0;
	c->p += n;
	return 1;
}

static int value(jc *c)
{
	ws(c);
	if (c->p >= c->end || ++c->depth > 200)
		return 0;
	int ok = 0;
	switch (*c->p) {
	case '{':
		c->p++;
		ws(c);
		if (c->p < c->end && *c->p == '}') {
			c->p++;
			ok = 1;
			break;
		}
		for (;;) {
			ws(c);
			if (!string(c))
				return 0;
			ws(c);
			if (c->p >= c->end || *c->p++ != ':' || !value(c))
				return 0;
			ws(c);
			if (c->p < c->end && *c->p == ',') {
				c->p++;
				continue;
			}
			if (c->p < c->end && *c->p == '}') {
				c->p++;
				ok = 1;
			}
			break;
		}
		break;
	case '[':
		c->p++;
		ws(c);
		if (c->p < c->end && *c->p == ']') {
			c->p++;
			ok = 1;
			break;
		}
		for (;;) {
			if (!value(c))
				return 0;
			ws(c);
			if (c->p < c->end && *c->p == ',') {
				c->p++;
				continue;
			}
			if (c->p < c->end && *c->p == ']') {
				c->p++;
				ok = 1;
			}
			break;
		}
		break;
	case '"': ok = string(c); break;
	case 't': ok = lit(c, "true"); break;
	case 'f': ok = lit(c, "false"); break;
	case 'n': ok = lit(c, "null"); break;
	default: ok = number(c);
	}
	c->depth--;
	return ok;
}

int json_check(const char *text, size_t len)
{
	jc c = {(const unsigned char *)text, (const unsigned char *)text + len, 0};
	if (!value(&c))
		return 0;
	ws(&c);
	return c.p == c.end;
}

char *json_slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	if (buf) {
		buf[n] = 0;
		*len = (size_t)n;
	}
	return buf;
}
