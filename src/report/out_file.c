/* out_file.c: how every file fold writes reaches the disk (the HTML report,
 * JSON, the CSV tables, the exports), and which paths may be written at all.
 * See report_text.h (report_out_*) and report.h (report_output_check).
 *
 * Invariants:
 *  - A regular destination (new, or an existing regular file) is written to
 *    a temporary file created in the destination's own directory with
 *    O_CREAT|O_EXCL|O_NOFOLLOW under an unpredictable name, then renamed
 *    over it: the temporary is never an existing file nor a symlink planted
 *    there, and a reader sees the old file or the whole new one.
 *  - A destination that is a symlink is resolved first: its target is
 *    written, through a temporary in the target's directory, and the link
 *    stays. A link to nothing is refused.
 *  - An existing FIFO or character device (a pipe to a reader, /dev/null)
 *    is written in place, never replaced; a directory, socket or block
 *    device where a file is expected is refused.
 *  - No output replaces an input: report_output_check compares device and
 *    inode, so the input itself, a hard link to it and a symlink to it are
 *    all caught, before any analysis.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "report_text.h"

/* The file a path names once symlinks are followed (a fresh string), or
 * NULL with errno (ENOENT: a link to nothing). A path that does not exist
 * yet names itself. */
static char *destination(const char *path, struct stat *st, int *exists)
{
	struct stat lst;
	*exists = 0;
	if (lstat(path, &lst) != 0) {
		if (errno != ENOENT)
			return NULL;
		return strdup(path);
	}
	if (!S_ISLNK(lst.st_mode)) {
		*st = lst;
		*exists = 1;
		return strdup(path);
	}
	if (stat(path, st) != 0)
		return NULL; /* a link to nothing (or a loop) */
	*exists = 1;
	return realpath(path, NULL);
}

/* Why path cannot be written as a file: NULL when it can. */
static const char *not_a_file_target(const struct stat *st)
{
	if (S_ISDIR(st->st_mode))
		return "is a directory: give a file name for this output";
	if (S_ISSOCK(st->st_mode))
		return "is a socket, not a file";
	if (S_ISBLK(st->st_mode))
		return "is a block device, not a file";
	return NULL;
}

/* Creates "DIR/.BASE.XXXXXXXXXXXX.tmp" next to dest, exclusively. */
static int make_temporary(const char *dest, char **tmp_out, int *fd_out)
{
	char *d1 = strdup(dest), *d2 = strdup(dest);
	int rc = -ENOMEM;
	if (!d1 || !d2)
		goto out;
	const char *dir = dirname(d1), *base = basename(d2);
	for (int attempt = 0; attempt < 100; attempt++) {
		uint64_t r = 0;
		if (getrandom(&r, sizeof r, GRND_NONBLOCK) != sizeof r)
			r ^= (uint64_t)getpid() << 32 ^ (uint64_t)attempt * 0x9e3779b97f4a7c15ull ^
			     (uint64_t)(uintptr_t)&r;
		char *tmp = util_asprintf("%s/.%s.%012llx.tmp", dir, base,
		                          (unsigned long long)(r & 0xffffffffffffull));
		if (!tmp)
			goto out;
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, 0666);
		if (fd >= 0) {
			*tmp_out = tmp;
			*fd_out = fd;
			rc = 0;
			goto out;
		}
		rc = -errno;
		free(tmp);
		if (rc != -EEXIST)
			goto out;
	}
out:
	free(d1);
	free(d2);
	return rc;
}

int report_out_open(report_out *o, const char *path, char *err, size_t errlen)
{
	memset(o, 0, sizeof *o);
	struct stat st;
	int exists, fd = -1, rc;
	o->dest = destination(path, &st, &exists);
	if (!o->dest) {
		rc = errno == ENOENT ? -ENOENT : -errno;
		snprintf(err, errlen, "%s: %s", path,
		         rc == -ENOENT ? "is a symlink to a file that does not exist" : strerror(-rc));
		return rc;
	}
	const char *why = exists ? not_a_file_target(&st) : NULL;
	if (why) {
		snprintf(err, errlen, "%s %s", path, why);
		rc = S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
		goto fail;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* a FIFO or a character device: in place, never replaced */
		fd = open(o->dest, O_WRONLY | O_NOCTTY | O_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			snprintf(err, errlen, "%s: cannot open for writing: %s", path, strerror(-rc));
			goto fail;
		}
	} else {
		rc = make_temporary(o->dest, &o->tmp, &fd);
		if (rc) {
			snprintf(err, errlen, "%s: cannot create a temporary file next to it: %s", path,
			         strerror(-rc));
			goto fail;
		}
		if (exists) /* the replacement keeps the old file's permissions */
			(void)fchmod(fd, st.st_mode & 0777);
	}
	o->f = fdopen(fd, "w");
	if (!o->f) {
		rc = -errno;
		close(fd);
		snprintf(err, errlen, "%s: %s", path, strerror(-rc));
		goto fail;
	}
	return 0;
fail:
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->dest);
	memset(o, 0, sizeof *o);
	return rc;
}

int report_out_close(report_out *o, int ok, const char *path, char *err, size_t errlen)
{
	int rc = 0;
	if (!o->f)
		return -EINVAL;
	int bad = ferror(o->f);
	errno = 0;
	if (fclose(o->f) != 0 || bad) {
		rc = errno ? -errno : -EIO;
		if (ok)
			snprintf(err, errlen, "%s: write failed: %s", path, strerror(-rc));
	} else if (ok && o->tmp && rename(o->tmp, o->dest) != 0) {
		rc = -errno;
		snprintf(err, errlen, "%s: cannot rename the temporary file %s into place: %s", path, o->tmp,
		         strerror(-rc));
	}
	if ((rc || !ok) && o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->dest);
	memset(o, 0, sizeof *o);
	return rc;
}

int report_out_buf(const util_buf *b, const char *path, char *err, size_t errlen)
{
	if (b->oom) {
		snprintf(err, errlen, "%s: out of memory while building the output", path);
		return -ENOMEM;
	}
	report_out o;
	int rc = report_out_open(&o, path, err, errlen);
	if (rc)
		return rc;
	if (b->len)
		fwrite(b->data, 1, b->len, o.f);
	return report_out_close(&o, 1, path, err, errlen);
}

/* 1 when st is one of the inputs (device and inode). */
static int is_input(const struct stat *st, const struct stat *in, size_t nin)
{
	for (size_t i = 0; i < nin; i++)
		if (st->st_dev == in[i].st_dev && st->st_ino == in[i].st_ino)
			return 1;
	return 0;
}

static int check_file(const char *path, const char *shown, const struct stat *in, const char *const *inputs,
                      size_t nin, char *err, size_t errlen)
{
	struct stat st;
	if (stat(path, &st) != 0)
		return 0; /* new (or a link to nothing: said when it is written) */
	for (size_t i = 0; i < nin; i++)
		if (is_input(&st, &in[i], 1)) {
			snprintf(err, errlen,
			         "%s would replace the input %s%s: give the output another name (no output "
			         "replaces a trace)",
			         shown, inputs[i],
			         strcmp(path, inputs[i]) ? " (the same file under another name)" : "");
			return -EEXIST;
		}
	const char *why = not_a_file_target(&st);
	if (why) {
		snprintf(err, errlen, "%s %s", shown, why);
		return S_ISDIR(st.st_mode) ? -EISDIR : -EINVAL;
	}
	return 0;
}

int report_output_check(const char *path, int csv_dir, const char *const *inputs, size_t ninputs, char *err,
                        size_t errlen)
{
	struct stat *in = calloc(ninputs ? ninputs : 1, sizeof *in);
	if (!in) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	for (size_t i = 0; i < ninputs; i++)
		if (stat(inputs[i], &in[i]) != 0)
			in[i].st_ino = 0, in[i].st_dev = (dev_t)-1; /* unreadable: said when it is read */
	int rc = 0;
	struct stat st;
	if (!csv_dir) {
		rc = check_file(path, path, in, inputs, ninputs, err, errlen);
	} else if (stat(path, &st) == 0 && !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen,
		         "%s exists and is not a directory: --csv writes its tables into a directory", path);
		rc = is_input(&st, in, ninputs) ? -EEXIST : -ENOTDIR;
	} else {
		size_t n;
		const char *const *names = report_csv_table_names(&n);
		for (size_t k = 0; k < n && !rc; k++) {
			char *file = util_asprintf("%s/%s", path, names[k]);
			if (!file) {
				rc = -ENOMEM;
				snprintf(err, errlen, "out of memory");
				break;
			}
			rc = check_file(file, file, in, inputs, ninputs, err, errlen);
			free(file);
		}
	}
	free(in);
	return rc;
}
