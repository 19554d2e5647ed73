/* replay_struct_main.c: the structure-aware fuzz target without libFuzzer,
 * for ctest: each file given (seeds, past crashes) runs as is, then
 * MUTATIONS deterministic mutations of it (the target's custom mutator
 * with seeds 1..MUTATIONS; a plain byte flip where it falls back to
 * libFuzzer's mutator), each through the whole pipeline.
 *
 * usage: fuzz_trace_struct_replay [-n MUTATIONS] FILE...   (default 40)
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);
int LLVMFuzzerInitialize(int *argc, char ***argv);

static unsigned flip_state = 1;

/* libFuzzer's mutator, for the custom mutator's fallback: a few bytes
 * changed at deterministic places. */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size)
{
	(void)max_size;
	for (int k = 0; k < 4 && size; k++) {
		flip_state = flip_state * 1103515245u + 12345u;
		data[(flip_state >> 8) % size] ^= (uint8_t)(flip_state >> 16 | 1);
	}
	return size;
}

int main(int argc, char **argv)
{
	unsigned mutations = 40;
	int first = 1, n = 0;
	if (argc > 2 && !strcmp(argv[1], "-n")) {
		mutations = (unsigned)strtoul(argv[2], NULL, 10);
		first = 3;
	}
	LLVMFuzzerInitialize(&argc, &argv);
	const size_t max = 1u << 20;
	uint8_t *buf = malloc(max);
	if (!buf)
		return 1;
	for (int i = first; i < argc; i++) {
		FILE *f = fopen(argv[i], "rb");
		if (!f) {
			fprintf(stderr, "replay: cannot open %s\n", argv[i]);
			return 1;
		}
		size_t len = fread(buf, 1, max, f);
		fclose(f);
		LLVMFuzzerTestOneInput(buf, len);
		n++;
		uint8_t *m = malloc(max);
		if (!m)
			return 1;
		for (unsigned s = 1; s <= mutations; s++) {
			memcpy(m, buf, len);
			size_t ml = LLVMFuzzerCustomMutator(m, len, max, s);
			LLVMFuzzerTestOneInput(m, ml);
			n++;
		}
		free(m);
	}
	free(buf);
	printf("replayed %d input(s)\n", n);
	return n ? 0 : 1;
}
