/*
 * strmap.h - string -> pointer hash map (open addressing), arena-backed.
 * Keys are copied into the arena (or borrowed: strmap_put_borrowed);
 * values are borrowed. Inserting an existing key replaces its value. No
 * removal: maps live as long as their arena.
 */
#ifndef CLAIMCHECK_STRMAP_H
#define CLAIMCHECK_STRMAP_H

#include <stddef.h>

struct arena;

struct strmap_slot {
    const char *key;
    void *value;
    size_t hash;            /* of key: growing rehashes no string, and a
                               probe compares it before the key */
};

struct strmap {
    struct arena *arena;
    struct strmap_slot *slots;
    size_t n, cap;
};

void strmap_init(struct strmap *m, struct arena *a);
void strmap_put(struct strmap *m, const char *key, void *value);
/* strmap_put without the copy: key (not changed, or a new key only) must
 * live as long as the map (a string already in the map's arena, or in
 * one that outlives it) */
void strmap_put_borrowed(struct strmap *m, const char *key, void *value);
void *strmap_get(const struct strmap *m, const char *key);
/* The hash the maps give key, and strmap_get() with it (hash:
 * strmap_hash(key)), for a key whose hash is kept: looked up again
 * without hashing it again. */
size_t strmap_hash(const char *key);
void *strmap_get_hashed(const struct strmap *m, const char *key,
                        size_t hash);
/* The map's own copy of s, made on first use: equal strings interned in
 * one map share one copy (the value stays NULL). */
const char *strmap_intern(struct strmap *m, const char *s);
/* The same without the copy (s must live as long as the map, as for
 * strmap_put_borrowed), and a key added so is its own value: strmap_get()
 * answers the interned pointer, as for strmap_put_borrowed(m, s, s). One
 * hash and one probe where strmap_get() and strmap_put_borrowed() take
 * two. */
const char *strmap_intern_borrowed(struct strmap *m, const char *s);
/* Room for n keys in all without growing: a map whose size is known
 * makes its table once (a growing one makes and touches every smaller
 * table on the way). */
void strmap_reserve(struct strmap *m, size_t n);

#endif
