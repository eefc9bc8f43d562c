/*
 * invstore.h - the current inventory snapshot, shared by the worker threads
 * and swapped atomically by the inventory sources (files, in-cluster sync).
 *
 * A snapshot (struct inventory, engine.h) is immutable once published.
 * Readers pin it with invstore_acquire() and unpin it with invref_release();
 * publishing a new one never waits for readers: the old snapshot is freed
 * by whoever drops the last reference (reference counting; the mutex only
 * covers the pointer load + increment, a few instructions).
 *
 * The store also assembles snapshots from two sources: static file texts
 * (--inventory) and a cluster callback that adds live objects. Rebuilds are
 * serialized.
 */
#ifndef CLAIMCHECK_WEBHOOK_INVSTORE_H
#define CLAIMCHECK_WEBHOOK_INVSTORE_H

#include <stddef.h>
#include <time.h>

struct err;
struct inventory;
struct invref;
struct invstore;
struct metrics;

/* Adds the cluster's objects to a snapshot being built; returns 0 or -1. */
typedef int (*invstore_cluster_fn)(void *cls, struct inventory *inv,
                                   struct err *err);

struct invstore *invstore_new(struct metrics *m);
/* Frees the store and its current snapshot; no reader may hold a ref. */
void invstore_free(struct invstore *s);

/* Pins the current snapshot (NULL if none was published yet). */
struct invref *invstore_acquire(struct invstore *s);
const struct inventory *invref_inventory(const struct invref *r);
/* Unpins; NULL is allowed. */
void invref_release(struct invref *r);

/* Replaces the static texts (copied; files[i] names text i in errors) and
 * rebuilds. On failure the previous texts and snapshot stay. */
int invstore_set_files(struct invstore *s, size_t n,
                       const char *const *files, const char *const *texts,
                       const size_t *lens, struct err *err);
void invstore_set_cluster(struct invstore *s, invstore_cluster_fn fn,
                          void *cls);
/* The DRAListTypeAttributes gate of the target (default on): off, the
 * snapshots' device models drop list-valued attributes, as the apiserver
 * does. Set before the first rebuild. */
void invstore_set_list_attributes(struct invstore *s, int on);
/* Builds a snapshot from the current sources and publishes it. */
int invstore_rebuild(struct invstore *s, struct err *err);
size_t invstore_size(struct invstore *s);

#endif
