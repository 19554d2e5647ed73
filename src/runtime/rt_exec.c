/* rt_exec.c: exec family, system, posix_spawn and _exit.
 *
 * Owns what happens to the trace when the process image is replaced or ends
 * without running destructors. glibc's execvp/execl/system/posix_spawn call
 * its internal __execve, so every entry point is wrapped, not just execve.
 *
 * Invariants:
 *  - Before an exec everything is written and nothing of ours can reach the
 *    new image: timers deleted, a pending sampling signal consumed (an RT
 *    signal's default action would kill the new program). If the exec fails,
 *    measurement resumes.
 *  - The new image gets FOLD_EXEC_GENERATION = ours + 1 in its environment,
 *    recorded as exec.generation, only when that environment preloads
 *    libfold.so: an environment the program made without fold's (an
 *    explicit or empty one) reaches the new image as the program made it.
 *    The new image's libfold takes the variable out of its environment
 *    before the program's main (rt_lifecycle.c). Its file never overwrites
 *    ours (O_EXCL + generation).
 *  - In a vfork child (pid differs, memory shared) nothing is touched. vfork
 *    itself is wrapped (x86-64, in the manner of glibc's: the return
 *    address kept in a register across the system call, nothing on the
 *    shared stack) to raise rt__in_vfork in the child, which the parent
 *    clears when it resumes; fold's wrappers a vfork child may call
 *    (sigaction, sigprocmask, exec, _exit) leave fold's state, which is the
 *    parent's, alone.
 */
#include <alloca.h>
#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fold_rt.h"

extern char **environ;

/* glibc 2.36 declares execveat only in newer headers. */
int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags);

static int measuring(void)
{
	return atomic_load(&rt__proc.phase) == FOLD_RUNNING && !rt__vfork_child();
}

/* Whether envp preloads libfold.so: only then does the new image run
 * fold, which reads and hides FOLD_EXEC_GENERATION. */
static int env_preloads_fold(char *const envp[])
{
	for (size_t i = 0; envp && envp[i]; i++)
		if (!strncmp(envp[i], "LD_PRELOAD=", 11) && strstr(envp[i] + 11, "libfold"))
			return 1;
	return 0;
}

/* envp with FOLD_EXEC_GENERATION replaced; NULL on allocation failure or
 * when the new image will not run fold. */
static char **env_next_generation(char *const envp[])
{
	if (!env_preloads_fold(envp))
		return NULL;
	size_t n = 0;
	while (envp && envp[n])
		n++;
	char **out = malloc((n + 2) * sizeof *out);
	static char var[64];
	if (!out)
		return NULL;
	snprintf(var, sizeof var, "FOLD_EXEC_GENERATION=%u", rt__proc.cfg.exec_generation + 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(envp[i], "FOLD_EXEC_GENERATION=", 21))
			out[k++] = envp[i];
	out[k++] = var;
	out[k] = NULL;
	return out;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

enum exec_kind { EXEC_PATH, EXEC_SEARCH, EXEC_FD, EXEC_AT };

static int do_exec(enum exec_kind kind, int dirfd, const char *file, char *const argv[], char *const envp[],
                   int flags)
{
	static execve_fn real_execve, real_execvpe;
	static fexecve_fn real_fexecve;
	static execveat_fn real_execveat;
	if (!real_execve) {
		real_execve = (execve_fn)rt__real("execve");
		real_execvpe = (execve_fn)rt__real("execvpe");
		real_fexecve = (fexecve_fn)rt__real("fexecve");
		real_execveat = (execveat_fn)rt__real("execveat");
	}
	char **env2 = NULL;
	int active = measuring();
	if (active) {
		env2 = env_next_generation(envp);
		if (env2)
			envp = env2;
		rt__checkpoint(1);
	}
	int rc = -1;
	errno = ENOSYS;
	switch (kind) {
	case EXEC_PATH:
		if (real_execve)
			rc = real_execve(file, argv, envp);
		break;
	case EXEC_SEARCH:
		if (real_execvpe)
			rc = real_execvpe(file, argv, envp);
		break;
	case EXEC_FD:
		if (real_fexecve)
			rc = real_fexecve(dirfd, argv, envp);
		break;
	case EXEC_AT:
		if (real_execveat)
			rc = real_execveat(dirfd, file, argv, envp, flags);
		break;
	}
	int saved = errno;
	if (active)
		rt__checkpoint_done(1);
	free(env2);
	errno = saved;
	return rc;
}

FOLD_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_PATH, -1, path, argv, envp, 0);
}

FOLD_EXPORT int execv(const char *path, char *const argv[]) { return do_exec(EXEC_PATH, -1, path, argv, environ, 0); }

FOLD_EXPORT int execvp(const char *file, char *const argv[])
{
	return do_exec(EXEC_SEARCH, -1, file, argv, environ, 0);
}

FOLD_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_SEARCH, -1, file, argv, envp, 0);
}

FOLD_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
	return do_exec(EXEC_FD, fd, NULL, argv, envp, 0);
}

FOLD_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[], int flags)
{
	return do_exec(EXEC_AT, dirfd, path, argv, envp, flags);
}

/* execl* collect their arguments; execle's environment follows the NULL. */
#define COLLECT_ARGS(first, ap, argv, envp_out)                                                            \
	do {                                                                                               \
		size_t n_ = 1;                                                                             \
		va_list cp_;                                                                               \
		va_copy(cp_, ap);                                                                          \
		while (va_arg(cp_, char *))                                                                \
			n_++;                                                                              \
		va_end(cp_);                                                                               \
		argv = alloca((n_ + 1) * sizeof(char *));                                                  \
		argv[0] = (char *)(first);                                                                 \
		for (size_t i_ = 1; i_ <= n_; i_++)                                                        \
			argv[i_] = va_arg(ap, char *);                                                     \
		char ***out_ = (envp_out);                                                                 \
		if (out_)                                                                                  \
			*out_ = va_arg(ap, char **);                                                       \
	} while (0)

FOLD_EXPORT int execl(const char *path, const char *arg, ...)
{
	char **argv;
	va_list ap;
	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv, (char ***)NULL);
	va_end(ap);
	return do_exec(EXEC_PATH, -1, path, argv, environ, 0);
}

FOLD_EXPORT int execlp(const char *file, const char *arg, ...)
{
	char **argv;
	va_list ap;
	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv, (char ***)NULL);
	va_end(ap);
	return do_exec(EXEC_SEARCH, -1, file, argv, environ, 0);
}

FOLD_EXPORT int execle(const char *path, const char *arg, ...)
{
	char **argv, **envp = NULL;
	va_list ap;
	va_start(ap, arg);
	COLLECT_ARGS(arg, ap, argv, &envp);
	va_end(ap);
	return do_exec(EXEC_PATH, -1, path, argv, envp, 0);
}

/* ---------------------------------------------------------------- spawn */

typedef int (*system_fn)(const char *);
typedef int (*spawn_fn)(pid_t *, const char *, const posix_spawn_file_actions_t *, const posix_spawnattr_t *,
                        char *const[], char *const[]);

FOLD_EXPORT int system(const char *command)
{
	static system_fn real;
	if (!real)
		real = (system_fn)rt__real("system");
	if (!real)
		return -1;
	int active = measuring() && command;
	if (active)
		rt__checkpoint(0);
	int rc = real(command);
	int saved = errno;
	if (active)
		rt__checkpoint_done(0);
	errno = saved;
	return rc;
}

static int spawn(const char *name, pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                 const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	spawn_fn real = (spawn_fn)rt__real(name);
	if (!real)
		return ENOSYS;
	int active = measuring();
	if (active)
		rt__checkpoint(0);
	int rc = real(pid, path, fa, attr, argv, envp);
	if (active)
		rt__checkpoint_done(0);
	return rc;
}

FOLD_EXPORT int posix_spawn(pid_t *pid, const char *path, const posix_spawn_file_actions_t *fa,
                            const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn("posix_spawn", pid, path, fa, attr, argv, envp);
}

FOLD_EXPORT int posix_spawnp(pid_t *pid, const char *file, const posix_spawn_file_actions_t *fa,
                             const posix_spawnattr_t *attr, char *const argv[], char *const envp[])
{
	return spawn("posix_spawnp", pid, file, fa, attr, argv, envp);
}

/* ---------------------------------------------------------------- _exit */

typedef void (*exit_fn)(int);

FOLD_EXPORT void _exit(int status)
{
	exit_fn real = (exit_fn)rt__real("_exit");
	rt__finish("_exit");
	if (real)
		real(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

FOLD_EXPORT void _Exit(int status)
{
	exit_fn real = (exit_fn)rt__real("_Exit");
	rt__finish("_Exit");
	if (real)
		real(status);
	for (;;)
		syscall(SYS_exit_group, status);
}

/* ---------------------------------------------------------------- vfork */

volatile int rt__in_vfork;

#if defined(__x86_64__)
int rt__vfork_error(int err);
int rt__vfork_error(int err)
{
	errno = err;
	return -1;
}

int vfork(void);
__asm__(".text\n"
        ".globl vfork\n"
        ".type vfork,@function\n"
        "vfork:\n"
        "\t.cfi_startproc\n"
        "\tpopq %rdi\n"
        "\t.cfi_adjust_cfa_offset -8\n"
        "\t.cfi_register %rip, %rdi\n"
        "\tmovl $58, %eax\n" /* SYS_vfork */
        "\tsyscall\n"
        "\tpushq %rdi\n"
        "\t.cfi_adjust_cfa_offset 8\n"
        "\tcmpl $-4095, %eax\n"
        "\tjae 2f\n"
        "\ttestl %eax, %eax\n"
        "\tjnz 1f\n"
        "\tmovl $1, rt__in_vfork(%rip)\n" /* the child */
        "\tret\n"
        "1:\tmovl $0, rt__in_vfork(%rip)\n" /* the parent, once the child has gone */
        "\tret\n"
        "2:\tnegl %eax\n"
        "\tmovl %eax, %edi\n"
        "\tjmp rt__vfork_error\n"
        "\t.cfi_endproc\n"
        ".size vfork, .-vfork\n");
#endif
