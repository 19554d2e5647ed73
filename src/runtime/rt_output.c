/* rt_output.c: naming and creating the trace file of this process.
 *
 * FOLD_OUTPUT is a path pattern: %p pid, %r MPI rank (when unknown: "norank"),
 * %h host name, %e executable name, %n generation number, %% a percent sign.
 * The default is "fold.%e.%p.trace", or "fold.%e.%r.%p.trace" when the
 * launcher's environment names a rank.
 *
 * Why these rules: one file per process keeps writers independent (threads
 * share it through O_APPEND chunk writes), and the pid alone is not unique
 * (exec keeps the pid; pids wrap on long jobs; ranks on several hosts). So
 * the file is created with O_EXCL and never overwrites anything: on a
 * collision the generation is bumped, either where %n stands or, without %n,
 * as ".N" before the last extension ("trace.bin" -> "trace.1.bin").
 *
 * The pattern is made absolute at start (relative to the working directory
 * then): a process that changes directory still writes where it was told
 * and names a file that exists. FOLD_OUTPUT ending in '/' or naming an
 * existing directory means the default name inside that directory.
 */
#include "fold_rt.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *rt__exe_path(void)
{
	/* Read once per image (an exec starts a new one; a fork keeps it). */
	static char exe[1024];
	static int known;
	if (!known) {
		ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
		exe[n > 0 ? n : 0] = 0;
		known = 1;
	}
	return exe;
}

static void exe_name(char *out, size_t len)
{
	const char *buf = rt__exe_path();
	if (!*buf) {
		snprintf(out, len, "unknown");
		return;
	}
	const char *slash = strrchr(buf, '/');
	const char *name = slash ? slash + 1 : buf;
	size_t n2 = strlen(name);
	if (n2 >= len)
		n2 = len - 1;
	memcpy(out, name, n2);
	out[n2] = 0;
}

static int append(char *out, size_t len, size_t *pos, const char *s)
{
	size_t n = strlen(s);
	if (*pos + n >= len)
		return -ENAMETOOLONG;
	memcpy(out + *pos, s, n);
	*pos += n;
	out[*pos] = 0;
	return 0;
}

int rt__output_expand(const char *pattern, unsigned generation, char *out, size_t out_len, int *has_gen,
                      int *has_rank)
{
	size_t pos = 0;
	char tmp[256];
	int rc = 0;
	*has_gen = 0;
	*has_rank = 0;
	out[0] = 0;
	for (const char *p = pattern; *p && !rc; p++) {
		if (*p != '%' || !p[1]) {
			char c[2] = {*p, 0};
			rc = append(out, out_len, &pos, c);
			continue;
		}
		p++;
		switch (*p) {
		case 'p': snprintf(tmp, sizeof tmp, "%d", (int)getpid()); break;
		case 'r':
			*has_rank = 1;
			if (rt__proc.rank >= 0)
				snprintf(tmp, sizeof tmp, "%d", rt__proc.rank);
			else
				snprintf(tmp, sizeof tmp, "norank");
			break;
		case 'h':
			if (gethostname(tmp, sizeof tmp - 1))
				snprintf(tmp, sizeof tmp, "unknown");
			tmp[sizeof tmp - 1] = 0;
			break;
		case 'e': exe_name(tmp, sizeof tmp); break;
		case 'n':
			*has_gen = 1;
			snprintf(tmp, sizeof tmp, "%u", generation);
			break;
		case '%': snprintf(tmp, sizeof tmp, "%%"); break;
		default: /* unknown: keep literally */ snprintf(tmp, sizeof tmp, "%%%c", *p); break;
		}
		rc = append(out, out_len, &pos, tmp);
	}
	if (rc || *has_gen || generation == 0)
		return rc;
	/* No %n: insert ".N" before the extension of the last path component. */
	char *slash = strrchr(out, '/');
	char *base = slash ? slash + 1 : out;
	char *dot = strrchr(base, '.');
	if (!dot || dot == base)
		dot = out + strlen(out);
	char suffix[512];
	snprintf(suffix, sizeof suffix, "%s", dot);
	snprintf(tmp, sizeof tmp, ".%u", generation);
	if ((size_t)(dot - out) + strlen(tmp) + strlen(suffix) >= out_len)
		return -ENAMETOOLONG;
	sprintf(dot, "%s%s", tmp, suffix);
	return 0;
}

static char start_cwd[1024];

void rt__output_remember_cwd(void)
{
	if (!start_cwd[0] && !getcwd(start_cwd, sizeof start_cwd))
		start_cwd[0] = 0;
}

const char *rt__start_cwd(void)
{
	return start_cwd;
}

int rt__output_pattern(const char *output, int with_rank, char *out, size_t len, int *is_default)
{
	const char *name = with_rank ? "fold.%e.%r.%p.trace" : "fold.%e.%p.trace";
	size_t n = strlen(output);
	int dir = 0;
	struct stat st;
	if (n && (output[n - 1] == '/' || (!strchr(output, '%') && stat(output, &st) == 0 && S_ISDIR(st.st_mode))))
		dir = 1;
	*is_default = !n || dir;
	char rel[1600];
	if (!n)
		snprintf(rel, sizeof rel, "%s", name);
	else if (dir)
		snprintf(rel, sizeof rel, "%s%s%s", output, output[n - 1] == '/' ? "" : "/", name);
	else
		snprintf(rel, sizeof rel, "%s", output);
	int w;
	if (rel[0] == '/' || !start_cwd[0])
		w = snprintf(out, len, "%s", rel);
	else
		w = snprintf(out, len, "%s%s%s", start_cwd, strcmp(start_cwd, "/") ? "/" : "", rel);
	return w < 0 || (size_t)w >= len ? -ENAMETOOLONG : 0;
}

int rt__output_open(const char *pattern, char *path, size_t path_len, int *has_rank)
{
	for (unsigned gen = 0; gen < 10000; gen++) {
		int has_gen;
		int rc = rt__output_expand(pattern, gen, path, path_len, &has_gen, has_rank);
		if (rc)
			return rc;
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd >= 0)
			return fd;
		if (errno != EEXIST)
			return -errno;
	}
	return -EEXIST;
}
