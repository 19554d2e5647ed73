/* regions-dilation.c: a call-heavy program for the instrumentation overhead.
 *
 * A particle step (a force loop calling small helpers per pair) and a binary
 * search tree (recursive insert and lookup): about 40 million function calls
 * of 5 ns to 1 us. bench/regions-dilation.sh builds it with and without
 * -finstrument-functions and times it with and without libfold.so and
 * throttling. Prints the CPU time of the work (this thread only: not the runtime's
 * flusher) and a checksum.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef struct particle {
	double x, y, z, fx, fy, fz;
} particle;

#define NP 1024
#define NEIGH 32
static particle p[NP];

static double dist2(const particle *a, const particle *b)
{
	double dx = a->x - b->x, dy = a->y - b->y, dz = a->z - b->z;
	return dx * dx + dy * dy + dz * dz + 0.01;
}

static double pair_force(const particle *a, const particle *b)
{
	double r2 = dist2(a, b);
	double inv = 1.0 / r2;
	return inv * inv * inv - inv * inv;
}

static void force(int i)
{
	particle *a = &p[i];
	for (int k = 1; k <= NEIGH; k++) {
		const particle *b = &p[(i + k * 7) % NP];
		double f = pair_force(a, b);
		a->fx += f * (a->x - b->x);
		a->fy += f * (a->y - b->y);
		a->fz += f * (a->z - b->z);
	}
}

static void move(int i)
{
	p[i].x += 1e-6 * p[i].fx;
	p[i].y += 1e-6 * p[i].fy;
	p[i].z += 1e-6 * p[i].fz;
}

static void step(void)
{
	for (int i = 0; i < NP; i++)
		force(i);
	for (int i = 0; i < NP; i++)
		move(i);
}

typedef struct node {
	uint64_t key;
	struct node *l, *r;
} node;

static node pool[1 << 17];
static int npool;

static node *insert(node *t, uint64_t key)
{
	if (!t) {
		node *n = &pool[npool++];
		n->key = key;
		n->l = n->r = NULL;
		return n;
	}
	if (key < t->key)
		t->l = insert(t->l, key);
	else
		t->r = insert(t->r, key);
	return t;
}

static int lookup(const node *t, uint64_t key)
{
	if (!t)
		return 0;
	if (key == t->key)
		return 1;
	return lookup(key < t->key ? t->l : t->r, key);
}

static uint64_t rng = 88172645463325252ull;
static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

__attribute__((no_instrument_function)) static double cpu_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 30;
	double t0 = cpu_s();
	for (int i = 0; i < NP; i++) {
		p[i].x = i % 17;
		p[i].y = i % 13;
		p[i].z = i % 11;
	}
	for (int s = 0; s < steps; s++)
		step();
	node *root = NULL;
	for (int i = 0; i < 100000; i++)
		root = insert(root, next_random() % 1000000007ull);
	int found = 0;
	rng = 88172645463325252ull;
	for (int i = 0; i < 100000; i++)
		found += lookup(root, next_random() % 1000000007ull);
	double t1 = cpu_s();
	printf("work %.4f s cpu, checksum %.6e %d\n", t1 - t0, p[5].x + p[99].fz, found);
	return 0;
}
