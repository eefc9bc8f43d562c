/*
 * invstore.h - the current inventory snapshot, shared by the worker threads
 * and swapped atomically by the inventory sources (files, in-cluster sync).
 *
 * A snapshot (struct inventory, engine.h) is immutable once published,
 * and is paired with the engine that judges against it (its verdict
 * cache and device model are that engine's): a new engine publishes a
 * new snapshot of the same sources (invstore_set_engine).
 * Readers pin it with invstore_acquire() and unpin it with invref_release();
 * publishing a new one never waits for readers: the old snapshot is freed
 * by whoever drops the last reference (reference counting; the mutex only
 * covers the pointer load + increment, a few instructions).
 *
 * The store also assembles snapshots from two sources: static files
 * (--inventory; parsed once per load, their objects shared by the
 * snapshots) and a cluster callback that adds live objects. Rebuilds are
 * serialized.
 */
#ifndef CLAIMCHECK_WEBHOOK_INVSTORE_H
#define CLAIMCHECK_WEBHOOK_INVSTORE_H

#include <stddef.h>
#include <time.h>

struct engine;
struct err;
struct inventory;
struct invref;
struct invstore;
struct metrics;

#define INVSTORE_MIN_PERCENT 50 /* --inventory-min-percent's default */

/* Adds the cluster's objects to a snapshot being built; returns 0 or -1. */
typedef int (*invstore_cluster_fn)(void *cls, struct inventory *inv,
                                   struct err *err);

struct invstore *invstore_new(struct metrics *m);
/* Frees the store and its current snapshot; no reader may hold a ref. */
void invstore_free(struct invstore *s);

/* Pins the current snapshot (NULL if none was published yet). */
struct invref *invstore_acquire(struct invstore *s);
/* The snapshot's inventory (NULL: none loaded yet) and engine (NULL: none
 * set); both live while r is held. */
const struct inventory *invref_inventory(const struct invref *r);
const struct engine *invref_engine(const struct invref *r);
/* Unpins; NULL is allowed. */
void invref_release(struct invref *r);

/* Replaces the static files (texts[i] parsed here, not kept; files[i]
 * names text i in errors) and rebuilds. On failure the previous files'
 * objects and snapshot stay: -1 when a text does not parse, -2 when the
 * texts would lose data the published ones had (refused: a file now
 * blank that had objects, or fewer objects in all than min_percent of
 * the last load's; counted in
 * claimcheck_inventory_refused_total{reason="empty"|"shrunk"} and kept for
 * invstore_refusal() until a load succeeds). The first load is never
 * refused: there is nothing to lose. */
int invstore_set_files(struct invstore *s, size_t n,
                       const char *const *files, const char *const *texts,
                       const size_t *lens, struct err *err);
/* The least share, in percent, of the last load's file objects a new load
 * keeps (INVSTORE_MIN_PERCENT unless set; 0: never "shrunk"). */
void invstore_set_min_percent(struct invstore *s, unsigned percent);
/* 1 and the reason in out when the last file load was refused (the
 * snapshot before it serves), else 0 and "". */
int invstore_refusal(struct invstore *s, char *out, size_t n);
/* Sets what invstore_refusal() reports for a cluster source (cluster.c:
 * a list held back); "" clears it. */
void invstore_set_refusal(struct invstore *s, const char *msg);
void invstore_set_cluster(struct invstore *s, invstore_cluster_fn fn,
                          void *cls);
/* The DRAListTypeAttributes gate of the target (default on): off, the
 * snapshots' device models drop list-valued attributes, as the apiserver
 * does. Set before the first rebuild (invstore_set_engine sets it from
 * the engine). */
void invstore_set_list_attributes(struct invstore *s, int on);
/* Pairs new snapshots with eng (taken over: engine_free, then
 * release(cls) when the last snapshot using it goes; also on failure)
 * and, when a snapshot was published, publishes one built anew for it
 * (requests holding the old pair finish with it). Before any inventory,
 * the engine alone is published (invref_inventory NULL). 0, or -1 with
 * err when the rebuild fails (the old pair stays). */
int invstore_set_engine(struct invstore *s, struct engine *eng,
                        void (*release)(void *cls), void *cls,
                        struct err *err);
/* Builds a snapshot from the current sources and publishes it. */
int invstore_rebuild(struct invstore *s, struct err *err);
size_t invstore_size(struct invstore *s);

#endif
