/* showstate: a program the corpus cases exec or spawn: prints what the
 * kernel gave the new image (not fold's view: no fold is loaded into it
 * when its environment has no LD_PRELOAD, or when it is static or setuid):
 * ids, secure mode, descriptors, blocked, ignored and caught signals from
 * /proc/self/status, and optionally its environment ("env" argument).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <unistd.h>

extern char **environ;

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	printf("argv:");
	for (int i = 1; i < argc; i++)
		printf(" %s", argv[i]);
	printf("\nruid %d euid %d secure %lu\n", (int)getuid(), (int)geteuid(), getauxval(AT_SECURE));
	FILE *f = fopen("/proc/self/status", "r");
	char line[512];
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, "SigBlk", 6) || !strncmp(line, "SigIgn", 6) ||
		    !strncmp(line, "SigCgt", 6) || !strncmp(line, "Threads", 7) ||
		    !strncmp(line, "NoNewPrivs", 10))
			fputs(line, stdout);
	if (f)
		fclose(f);
	DIR *d = opendir("/proc/self/fd");
	int self = d ? dirfd(d) : -1;
	printf("fds:");
	struct dirent *e;
	int fds[1024], n = 0;
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.' && atoi(e->d_name) != self && n < 1024)
			fds[n++] = atoi(e->d_name);
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			if (fds[j] < fds[i]) {
				int t = fds[i];
				fds[i] = fds[j];
				fds[j] = t;
			}
	for (int i = 0; i < n; i++)
		printf(" %d", fds[i]);
	printf("\n");
	if (d)
		closedir(d);
	if (argc > 1 && !strcmp(argv[1], "env")) {
		size_t k = 0;
		while (environ[k])
			k++;
		qsort(environ, k, sizeof *environ, cmp);
		for (size_t i = 0; i < k; i++)
			printf("env %s\n", environ[i]);
	}
	return argc > 2 ? atoi(argv[2]) : 0;
}
