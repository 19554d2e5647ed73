/* replay_main.c: runs a fuzz target over files given on the command line
 * (the seed corpus and past crashes), for builds without libFuzzer. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int main(int argc, char **argv)
{
	int n = 0;
	for (int i = 1; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "replay: cannot open %s\n", argv[i]);
			return 1;
		}
		fseek(f, 0, SEEK_END);
		long len = ftell(f);
		fseek(f, 0, SEEK_SET);
		uint8_t *buf = malloc(len > 0 ? (size_t)len : 1);
		size_t got = fread(buf, 1, (size_t)len, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, got);
		free(buf);
		n++;
	}
	printf("replayed %d input(s)\n", n);
	return n ? 0 : 1;
}
