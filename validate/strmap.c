/*
 * strmap.c - open-addressing string map; keys hashed eight bytes at a time.
 */
#include "strmap.h"

#include <stdint.h>
#include <string.h>

#include "arena.h"

/* A 64-bit mixing step (murmur3's fmix64): every input bit reaches the
 * low bits, which pick the slot */
static uint64_t mix64(uint64_t h)
{
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    return h ^ (h >> 33);
}

/* Eight bytes per step, not one (issue 17: run memo keys are whole CEL
 * expressions, looked up per object): the length, then each word, folded
 * in by a multiply whose high half is folded back before the next. */
size_t strmap_hash(const char *s)
{
    const uint64_t k = 0x9e3779b97f4a7c15ull;
    size_t len = strlen(s), i;
    uint64_t h = len * k, w;

    for (i = 0; i + 8 <= len; i += 8) {
        memcpy(&w, s + i, 8);
        h = (h ^ w) * k;
        h ^= h >> 32;
    }
    if (i < len) {
        w = 0;
        memcpy(&w, s + i, len - i);
        h = (h ^ w) * k;
    }
    return (size_t)mix64(h);
}

void strmap_init(struct strmap *m, struct arena *a)
{
    m->arena = a;
    m->slots = NULL;
    m->n = 0;
    m->cap = 0;
}

/* The table made cap slots (a power of two, more than it has) */
static void strmap_resize(struct strmap *m, size_t cap)
{
    struct strmap_slot *old = m->slots;
    size_t oldcap = m->cap, i;

    m->cap = cap;
    /* the first table shares a chunk (most maps stay small); bigger ones
     * get blocks of their own that go back when outgrown: a map of 20,000
     * names kept every smaller table before */
    m->slots = oldcap || cap > 64
               ? arena_alloc_block(m->arena, m->cap * sizeof(*m->slots))
               : arena_alloc(m->arena, m->cap * sizeof(*m->slots));
    for (i = 0; i < oldcap; i++) {
        size_t h;
        if (!old[i].key)
            continue;
        h = old[i].hash & (m->cap - 1);
        while (m->slots[h].key)
            h = (h + 1) & (m->cap - 1);
        m->slots[h] = old[i];
    }
    arena_free(m->arena, old, oldcap * sizeof(*old));
}

static void strmap_grow(struct strmap *m)
{
    strmap_resize(m, m->cap ? m->cap * 2 : 64);
}

void strmap_reserve(struct strmap *m, size_t n)
{
    size_t cap = m->cap ? m->cap : 64;

    while ((n + 1) * 2 > cap)
        cap *= 2;
    if (cap > m->cap)
        strmap_resize(m, cap);
}

/* The slot holding key, created (value NULL; key copied, or borrowed
 * when copy is 0) if absent. */
static struct strmap_slot *strmap_slot(struct strmap *m, const char *key,
                                       int copy)
{
    size_t h, full = strmap_hash(key);

    if ((m->n + 1) * 2 > m->cap)
        strmap_grow(m);
    h = full & (m->cap - 1);
    while (m->slots[h].key) {
        if (m->slots[h].hash == full && strcmp(m->slots[h].key, key) == 0)
            return &m->slots[h];
        h = (h + 1) & (m->cap - 1);
    }
    m->slots[h].key = copy ? arena_strdup(m->arena, key) : key;
    m->slots[h].value = NULL;
    m->slots[h].hash = full;
    m->n++;
    return &m->slots[h];
}

void strmap_put(struct strmap *m, const char *key, void *value)
{
    strmap_slot(m, key, 1)->value = value;
}

void strmap_put_borrowed(struct strmap *m, const char *key, void *value)
{
    strmap_slot(m, key, 0)->value = value;
}

const char *strmap_intern(struct strmap *m, const char *s)
{
    return strmap_slot(m, s, 1)->key;
}

const char *strmap_intern_borrowed(struct strmap *m, const char *s)
{
    struct strmap_slot *slot = strmap_slot(m, s, 0);

    if (slot->key == s && !slot->value)
        slot->value = (void *)(uintptr_t)s;
    return slot->key;
}

void *strmap_get(const struct strmap *m, const char *key)
{
    return strmap_get_hashed(m, key, strmap_hash(key));
}

void *strmap_get_hashed(const struct strmap *m, const char *key,
                        size_t full)
{
    size_t h;

    if (!m->cap)
        return NULL;
    h = full & (m->cap - 1);
    while (m->slots[h].key) {
        if (m->slots[h].hash == full && strcmp(m->slots[h].key, key) == 0)
            return m->slots[h].value;
        h = (h + 1) & (m->cap - 1);
    }
    return NULL;
}
