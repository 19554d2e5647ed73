/* trace_encode.c: record encoder (see trace_encode.h for the contract).
 *
 * Async-signal-safe by construction: only pointer arithmetic, memcpy and
 * arithmetic on caller-owned memory. A record is staged at enc->pos and only
 * committed (pos advanced) once it fitted completely.
 */
#include "trace_encode.h"

#include <errno.h>
#include <string.h>

#include "util_hash.h"

/* Worst-case bytes of one varint. */
#define VARINT_MAX 10

typedef struct cursor {
	uint8_t *p;
	uint8_t *end;
	int overflow;
} cursor;

static inline void put_u8(cursor *c, uint8_t v)
{
	if (c->p >= c->end) {
		c->overflow = 1;
		return;
	}
	*c->p++ = v;
}

static inline void put_v(cursor *c, uint64_t v)
{
	if (c->end - c->p < VARINT_MAX) {
		/* Slow path near the end: write byte by byte with checks. */
		do {
			uint8_t b = v & 0x7f;
			v >>= 7;
			put_u8(c, v ? (uint8_t)(b | 0x80) : b);
		} while (v && !c->overflow);
		return;
	}
	while (v >= 0x80) {
		*c->p++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*c->p++ = (uint8_t)v;
}

static inline void put_z(cursor *c, int64_t v) { put_v(c, trace_zigzag(v)); }

static inline void put_bytes(cursor *c, const void *s, size_t n)
{
	put_v(c, n);
	if (c->overflow || (size_t)(c->end - c->p) < n) {
		c->overflow = 1;
		return;
	}
	if (n) /* s may be NULL then (a module without a build-id) */
		memcpy(c->p, s, n);
	c->p += n;
}

static inline size_t safe_strlen(const char *s)
{
	size_t n = 0;
	if (!s)
		return 0;
	while (s[n])
		n++;
	return n;
}

static inline void put_s(cursor *c, const char *s) { put_bytes(c, s ? s : "", safe_strlen(s)); }

static inline cursor open_record(trace_enc *enc, uint8_t kind)
{
	cursor c = {enc->pos, enc->end, 0};
	if (!enc->pos)
		c.overflow = 1;
	put_u8(&c, kind);
	return c;
}

/* The records so far end at p: published when asked (trace_enc_publish). */
static inline void advance(trace_enc *enc, uint8_t *p)
{
	enc->pos = p;
	if (enc->published)
		__atomic_store_n(enc->published, (uint32_t)(enc->pos - enc->base), __ATOMIC_RELEASE);
}

static inline int commit(trace_enc *enc, cursor *c)
{
	if (c->overflow)
		return -ENOSPC;
	advance(enc, c->p);
	return 0;
}

void trace_enc_publish(trace_enc *enc, uint32_t *len)
{
	enc->published = len;
	if (len)
		__atomic_store_n(len, (uint32_t)(enc->pos - enc->base), __ATOMIC_RELEASE);
}

void trace_enc_init(trace_enc *enc, trace_stack_table *stacks)
{
	memset(enc, 0, sizeof *enc);
	enc->stacks = stacks;
	if (stacks) {
		stacks->epoch = 1;
		stacks->next_ref = 1;
		stacks->arena_used = 0;
		for (unsigned i = 0; i < TRACE_STACK_SLOTS; i++)
			stacks->slot[i].epoch = 0;
	}
}

static int emit_counter_set(trace_enc *enc)
{
	cursor c = open_record(enc, TRACE_REC_COUNTER_SET);
	put_v(&c, enc->nctr);
	for (uint32_t i = 0; i < enc->nctr; i++)
		put_v(&c, enc->ctr_ids[i]);
	return commit(enc, &c);
}

int trace_enc_begin(trace_enc *enc, void *buf, size_t cap)
{
	enc->published = NULL;
	enc->base = enc->pos = buf;
	enc->end = (uint8_t *)buf + cap;
	enc->last_tick = 0;
	memset(enc->last_ctr, 0, sizeof enc->last_ctr);
	if (enc->stacks) {
		trace_stack_table *st = enc->stacks;
		st->epoch++;
		if (st->epoch == 0) { /* wrapped: clear slots so no stale epoch matches */
			for (unsigned i = 0; i < TRACE_STACK_SLOTS; i++)
				st->slot[i].epoch = 0;
			st->epoch = 1;
		}
		st->next_ref = 1;
		st->arena_used = 0;
	}
	if (enc->nctr)
		return emit_counter_set(enc);
	return 0;
}

int trace_enc_info(trace_enc *enc, const char *key, const char *value)
{
	cursor c = open_record(enc, TRACE_REC_INFO);
	put_s(&c, key);
	put_s(&c, value);
	return commit(enc, &c);
}

int trace_enc_clock(trace_enc *enc, uint64_t tick, uint64_t mono_ns, uint64_t real_ns)
{
	cursor c = open_record(enc, TRACE_REC_CLOCK);
	put_v(&c, tick);
	put_v(&c, mono_ns);
	put_v(&c, real_ns);
	return commit(enc, &c);
}

int trace_enc_counter_def(trace_enc *enc, uint32_t id, unsigned kind, const char *name)
{
	cursor c = open_record(enc, TRACE_REC_COUNTER_DEF);
	put_v(&c, id);
	put_u8(&c, (uint8_t)kind);
	put_s(&c, name);
	return commit(enc, &c);
}

int trace_enc_counter_missing(trace_enc *enc, const char *name, const char *reason)
{
	cursor c = open_record(enc, TRACE_REC_COUNTER_MISSING);
	put_s(&c, name);
	put_s(&c, reason);
	return commit(enc, &c);
}

int trace_enc_region_def(trace_enc *enc, uint32_t id, unsigned kind, uint64_t address, const char *name)
{
	cursor c = open_record(enc, TRACE_REC_REGION_DEF);
	put_v(&c, id);
	put_u8(&c, (uint8_t)kind);
	put_v(&c, address);
	put_s(&c, name);
	return commit(enc, &c);
}

int trace_enc_module_load(trace_enc *enc, uint32_t id, uint64_t tick, uint64_t load_bias,
                          const uint8_t *build_id, size_t build_id_len, const char *path,
                          const trace_segment *segs, unsigned nseg)
{
	cursor c = open_record(enc, TRACE_REC_MODULE_LOAD);
	put_v(&c, id);
	put_v(&c, tick);
	put_v(&c, load_bias);
	put_bytes(&c, build_id, build_id ? build_id_len : 0);
	put_s(&c, path);
	put_v(&c, nseg);
	for (unsigned i = 0; i < nseg; i++) {
		put_v(&c, segs[i].vaddr);
		put_v(&c, segs[i].memsz);
		put_u8(&c, segs[i].prot);
	}
	return commit(enc, &c);
}

int trace_enc_module_unload(trace_enc *enc, uint32_t id, uint64_t tick)
{
	cursor c = open_record(enc, TRACE_REC_MODULE_UNLOAD);
	put_v(&c, id);
	put_v(&c, tick);
	return commit(enc, &c);
}

int trace_enc_stat(trace_enc *enc, const char *key, uint64_t value)
{
	cursor c = open_record(enc, TRACE_REC_STAT);
	put_s(&c, key);
	put_v(&c, value);
	return commit(enc, &c);
}

int trace_enc_throttle(trace_enc *enc, uint32_t region, uint64_t tick, uint64_t calls, uint64_t mean_ns)
{
	cursor c = open_record(enc, TRACE_REC_THROTTLE);
	put_v(&c, region);
	put_v(&c, tick);
	put_v(&c, calls);
	put_v(&c, mean_ns);
	return commit(enc, &c);
}

int trace_enc_thread_start(trace_enc *enc, uint64_t os_tid, uint32_t parent_stream, uint64_t tick,
                           const char *name)
{
	cursor c = open_record(enc, TRACE_REC_THREAD_START);
	put_v(&c, os_tid);
	put_v(&c, parent_stream);
	put_v(&c, tick);
	put_s(&c, name);
	if (c.overflow)
		return -ENOSPC;
	advance(enc, c.p);
	enc->last_tick = tick;
	return 0;
}

int trace_enc_thread_end(trace_enc *enc, uint64_t tick)
{
	cursor c = open_record(enc, TRACE_REC_THREAD_END);
	put_z(&c, (int64_t)(tick - enc->last_tick));
	if (c.overflow)
		return -ENOSPC;
	advance(enc, c.p);
	enc->last_tick = tick;
	return 0;
}

int trace_enc_counter_set(trace_enc *enc, const uint32_t *ids, unsigned n)
{
	if (n > TRACE_MAX_COUNTERS)
		return -EINVAL;
	uint32_t old_n = enc->nctr;
	uint32_t old_ids[TRACE_MAX_COUNTERS];
	memcpy(old_ids, enc->ctr_ids, sizeof old_ids);
	enc->nctr = n;
	for (unsigned i = 0; i < n; i++)
		enc->ctr_ids[i] = ids[i];
	int rc = emit_counter_set(enc);
	if (rc) { /* keep the old set so the buffer and the state agree */
		enc->nctr = old_n;
		memcpy(enc->ctr_ids, old_ids, sizeof old_ids);
		return rc;
	}
	/* Values of counters new to the set delta against zero. */
	memset(enc->last_ctr, 0, sizeof enc->last_ctr);
	return 0;
}

/* Writes counter deltas to the cursor; the caller commits last_ctr on success. */
static inline void put_counters(cursor *c, const trace_enc *enc, const uint64_t *ctr)
{
	uint32_t n = ctr ? enc->nctr : 0;
	put_v(c, n);
	for (uint32_t i = 0; i < n; i++)
		put_z(c, (int64_t)(ctr[i] - enc->last_ctr[i]));
}

static inline void save_counters(trace_enc *enc, const uint64_t *ctr)
{
	if (!ctr)
		return;
	for (uint32_t i = 0; i < enc->nctr; i++)
		enc->last_ctr[i] = ctr[i];
}

static int region_event(trace_enc *enc, uint8_t plain_kind, uint8_t ctr_kind, uint64_t tick,
                        uint32_t region, const uint64_t *ctr)
{
	int with_ctr = ctr && enc->nctr;
	cursor c = open_record(enc, with_ctr ? ctr_kind : plain_kind);
	put_z(&c, (int64_t)(tick - enc->last_tick));
	put_v(&c, region);
	if (with_ctr)
		put_counters(&c, enc, ctr);
	if (c.overflow)
		return -ENOSPC;
	advance(enc, c.p);
	enc->last_tick = tick;
	if (with_ctr)
		save_counters(enc, ctr);
	return 0;
}

int trace_enc_enter(trace_enc *enc, uint64_t tick, uint32_t region, const uint64_t *ctr)
{
	return region_event(enc, TRACE_REC_ENTER, TRACE_REC_ENTER_CTR, tick, region, ctr);
}

int trace_enc_exit(trace_enc *enc, uint64_t tick, uint32_t region, const uint64_t *ctr)
{
	return region_event(enc, TRACE_REC_EXIT, TRACE_REC_EXIT_CTR, tick, region, ctr);
}

/* Looks the stack up in the chunk's table. Returns its ref if known (and sets
 * *known), else reserves a slot and returns the ref it will get once the
 * STACK_DEF is committed. Returns 0 when the table is full (define inline). */
static uint32_t stack_lookup(trace_stack_table *st, const uint64_t *frames, unsigned depth,
                             uint32_t h, int *known, unsigned *slot_out)
{
	unsigned mask = TRACE_STACK_SLOTS - 1;
	for (unsigned probe = 0; probe < 32; probe++) {
		unsigned i = (h + probe) & mask;
		if (st->slot[i].epoch != st->epoch) {
			*known = 0;
			*slot_out = i;
			if (st->arena_used + depth > TRACE_STACK_ARENA_FRAMES)
				return 0;
			return st->next_ref;
		}
		if (st->slot[i].hash == h && st->slot[i].depth == depth &&
		    memcmp(&st->arena[st->slot[i].arena_off], frames, depth * sizeof *frames) == 0) {
			*known = 1;
			return st->slot[i].ref;
		}
	}
	*known = 0;
	return 0;
}

static void put_stack_def(cursor *c, uint32_t ref, const uint64_t *frames, unsigned depth)
{
	put_u8(c, TRACE_REC_STACK_DEF);
	put_v(c, ref);
	put_v(c, depth);
	uint64_t prev = 0;
	for (unsigned i = 0; i < depth; i++) {
		put_z(c, (int64_t)(frames[i] - prev));
		prev = frames[i];
	}
}

int trace_enc_sample(trace_enc *enc, uint64_t tick, const uint64_t *frames, unsigned depth,
                     uint64_t cpu_ns, const uint64_t *ctr)
{
	if (depth > TRACE_MAX_DEPTH)
		depth = TRACE_MAX_DEPTH;
	if (!frames)
		depth = 0;
	cursor c = {enc->pos, enc->end, enc->pos == NULL};
	uint32_t ref = 0, hash = 0;
	int known = 0;
	unsigned slot = 0;
	int define = 0;
	if (depth) {
		trace_stack_table *st = enc->stacks;
		if (st) {
			hash = (uint32_t)util_hash_frames(frames, depth);
			ref = stack_lookup(st, frames, depth, hash, &known, &slot);
		}
		if (!known) {
			/* Unknown or table full: define it (ref 0 would mean "no stack",
			 * so a table-full stack uses a fresh ref that is never reused). */
			if (!ref)
				ref = st ? st->next_ref : 1;
			define = 1;
			put_stack_def(&c, ref, frames, depth);
		}
	}
	put_u8(&c, TRACE_REC_SAMPLE);
	put_z(&c, (int64_t)(tick - enc->last_tick));
	put_v(&c, ref);
	put_v(&c, (cpu_ns + 500) / 1000); /* stored in microseconds: see trace_format.h */
	put_counters(&c, enc, ctr);
	if (c.overflow)
		return -ENOSPC;
	advance(enc, c.p);
	enc->last_tick = tick;
	save_counters(enc, ctr);
	if (define && enc->stacks) {
		trace_stack_table *st = enc->stacks;
		st->next_ref++;
		if (!known && st->slot[slot].epoch != st->epoch &&
		    st->arena_used + depth <= TRACE_STACK_ARENA_FRAMES) {
			st->slot[slot].epoch = st->epoch;
			st->slot[slot].hash = hash;
			st->slot[slot].ref = ref;
			st->slot[slot].depth = depth;
			st->slot[slot].arena_off = st->arena_used;
			memcpy(&st->arena[st->arena_used], frames, depth * sizeof *frames);
			st->arena_used += depth;
		}
	}
	return 0;
}

static unsigned varint_len(uint64_t v)
{
	unsigned n = 1;
	while (v >= 0x80) {
		v >>= 7;
		n++;
	}
	return n;
}

int trace_enc_sample_cost(trace_enc *enc, uint64_t cost_ns, uint64_t lag_ns, uint64_t delivery_ns)
{
	cursor c = open_record(enc, TRACE_REC_SAMPLE_COST);
	int late = delivery_ns != TRACE_UNKNOWN;
	put_v(&c, varint_len(cost_ns) + varint_len(lag_ns) + (late ? varint_len(delivery_ns) : 0));
	put_v(&c, cost_ns);
	put_v(&c, lag_ns);
	if (late)
		put_v(&c, delivery_ns);
	return commit(enc, &c);
}

int trace_enc_pause(trace_enc *enc, uint64_t pause_ns)
{
	cursor c = open_record(enc, TRACE_REC_PAUSE);
	put_v(&c, varint_len(pause_ns));
	put_v(&c, pause_ns);
	return commit(enc, &c);
}

int trace_enc_hook_cost(trace_enc *enc, uint64_t after_ticks, uint64_t before_ticks)
{
	int after = after_ticks != TRACE_UNKNOWN, before = before_ticks != TRACE_UNKNOWN;
	cursor c = open_record(enc, TRACE_REC_HOOK_COST);
	put_v(&c, 1 + (after ? varint_len(after_ticks) : 0) + (before ? varint_len(before_ticks) : 0));
	put_v(&c, (uint64_t)(after | before << 1));
	if (after)
		put_v(&c, after_ticks);
	if (before)
		put_v(&c, before_ticks);
	return commit(enc, &c);
}

int trace_enc_marker(trace_enc *enc, uint64_t tick, const char *text)
{
	cursor c = open_record(enc, TRACE_REC_MARKER);
	put_z(&c, (int64_t)(tick - enc->last_tick));
	put_s(&c, text);
	if (c.overflow)
		return -ENOSPC;
	advance(enc, c.p);
	enc->last_tick = tick;
	return 0;
}
