/*
 * verdict.h - a bounded cache of admission verdicts: the findings of one
 * Pod spec against one engine and one inventory snapshot. The pods of a
 * ReplicaSet reach the webhook with identical specs and differ only in
 * name; re-running the allocator for each (0.5 ms at 40,000 devices) is
 * wasted work. The key is a canonical byte string of the object without
 * the metadata that differs between replicas (name, generateName, uid,
 * ownerReferences, resourceVersion, timestamps, managedFields,
 * generation), plus the namespace; a hit compares those bytes in full, so
 * two different specs never share a verdict, however their hashes collide
 * (a crafted collision cannot borrow another Pod's "allowed"). Objects
 * whose key would pass VERDICT_KEY_MAX bytes are not cached. Only Pods
 * are cached: their rules never
 * put the Pod's own name into a message (the object identity of each
 * finding is filled from the current request).
 *
 * A cache belongs to one inventory snapshot (or to the engine when there
 * is none) and dies with it, so a new snapshot never sees old verdicts.
 * Thread-safe (one mutex; lookups copy out).
 */
#ifndef CLAIMCHECK_VERDICT_H
#define CLAIMCHECK_VERDICT_H

#include <stdint.h>

#include "diag.h"

#include <stddef.h>

struct arena;
struct tnode;
struct verdict_cache;

#define VERDICT_KEY_MAX (32u * 1024)

struct verdict_key {
    uint64_t hash;              /* of bytes: picks the slot */
    const unsigned char *bytes; /* canonical form, in the caller's arena */
    size_t len;
};

/* 0 and *key filled (bytes in a) when the object may be cached (a Pod
 * whose key fits VERDICT_KEY_MAX), else -1. */
int verdict_key(struct arena *a, const struct tnode *object, const char *ns,
                struct verdict_key *key);
/* 1 if both keys name the same object (same bytes). */
int verdict_key_same(const struct verdict_key *x, const struct verdict_key *y);
struct verdict_cache *verdict_cache_new(void);
void verdict_cache_free(struct verdict_cache *c);
/* On a hit, appends the cached findings to out (strings copied into out's
 * arena, identity taken from kind/ns/name) and returns 1; else 0. */
int verdict_cache_get(struct verdict_cache *c, const struct verdict_key *k,
                      struct diag_list *out, const char *kind,
                      const char *ns, const char *name);
/* Stores findings out->v[from..out->n) under k (copied). */
void verdict_cache_put(struct verdict_cache *c, const struct verdict_key *k,
                       const struct diag_list *out, size_t from);

#endif
