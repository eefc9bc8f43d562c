/*
 * verdict.h - a bounded cache of admission verdicts: the findings of one
 * Pod spec against one engine and one inventory snapshot. The pods of a
 * ReplicaSet reach the webhook with identical specs and differ only in
 * name; re-running the allocator for each (0.5 ms at 40,000 devices) is
 * wasted work. The key is a 128-bit hash of the object without the
 * metadata that differs between replicas (name, generateName, uid,
 * ownerReferences, resourceVersion, timestamps, managedFields,
 * generation), plus the namespace. Only Pods are cached: their rules never
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

struct tnode;
struct verdict_cache;

struct verdict_key {
    uint64_t a, b;
};

/* 0 and *key filled when the object may be cached (a Pod), else -1. */
int verdict_key(const struct tnode *object, const char *ns,
                struct verdict_key *key);
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
