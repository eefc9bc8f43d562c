/*
 * arena.h - bump allocator that owns all per-file / per-request memory.
 *
 * Invariants: memory from an arena lives until arena_release(); there is no
 * per-object free (arena_free() gives back large blocks only).
 * arena_alloc() never returns NULL: out of memory aborts the
 * process (as h2o's pool does), so callers and rules never check for NULL.
 * A zeroed struct arena is NOT ready: call arena_init() first. The fields are
 * private; do not touch them.
 */
#ifndef CLAIMCHECK_ARENA_H
#define CLAIMCHECK_ARENA_H

#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>

struct arena_chunk;

struct arena {
    struct arena_chunk *head;   /* current chunk; older ones follow ->next */
    size_t chunk_size;          /* size of a normal chunk */
    size_t total;               /* bytes obtained from malloc, for stats */
    atomic_size_t *meter;       /* arena_meter(), or NULL */
};

void arena_init(struct arena *a, size_t chunk_size);
/* Returns zeroed memory aligned for any object type. Never NULL. */
void *arena_alloc(struct arena *a, size_t n);
/* The same aligned for align only (a power of two; more than
 * max_align_t's is taken as that): arrays of 8-byte items and structs of
 * pointers (tree nodes) pack without padding to 16 bytes. */
void *arena_alloc_aligned(struct arena *a, size_t n, size_t align);
/* Copies n bytes of s and adds a NUL; never NULL. */
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_strdup(struct arena *a, const char *s);
char *arena_printf(struct arena *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
    __attribute__((format(printf, 2, 0)));
/* Grows an arena-owned array: returns a copy with room for `want` items
 * (old items copied). Used for small vectors; the old block is not freed. */
void *arena_grow(struct arena *a, void *old, size_t old_n, size_t want,
                 size_t item);
/* Zeroed memory in a chunk of its own (never NULL), which arena_free()
 * can give back before the arena goes: for tables that are outgrown
 * (strmap), so that only the last one is kept. */
void *arena_alloc_block(struct arena *a, size_t n);
/* Gives back p, n bytes from arena_alloc_block() or a large block of
 * arena_alloc() (more than a quarter of a chunk); memory that shares a
 * chunk stays until the arena goes. p must not be used afterwards. */
void arena_free(struct arena *a, void *p, size_t n);
/* Moves the block p starts (from arena_alloc_block(), or a large block of
 * arena_alloc(): more than a quarter of a chunk, e.g. an array
 * arena_grow() outgrew) from src to dst, which frees it from now on: what
 * was written there is kept without a copy (and without the page faults
 * of fresh memory). Returns 0, or -1 when p starts no such block of src
 * (memory that shares a chunk): then nothing moves. */
int arena_move_block(struct arena *dst, struct arena *src, void *p);
/* From now on every chunk a obtains or frees is added to or taken from
 * *meter too (atomically; the chunks it holds now are added at once), so
 * one counter can follow the memory of many arenas in several threads
 * (webhook/membudget.h). NULL stops counting (what is held is taken back). */
void arena_meter(struct arena *a, atomic_size_t *meter);
/* Frees every chunk but the first and empties it: cheap reuse of a scratch
 * arena (e.g. one document at a time). Earlier memory becomes invalid. */
void arena_clear(struct arena *a);
/* Moves every chunk of src into a: src's memory stays valid and now lives
 * as long as a's (an arena filled in another thread, then merged); src is
 * left empty. a's current chunk keeps serving a's requests. */
void arena_adopt(struct arena *a, struct arena *src);
/* A point to go back to: arena_rollback(a, m) frees what a handed out
 * after arena_mark(a, m) (chunks obtained since are given back, the
 * current one is reused from where it was), so a document parsed into a
 * long-lived arena costs nothing when it is not kept. Memory handed out
 * before the mark stays valid; nothing obtained before it may be
 * arena_free()d in between. */
struct arena_mark {
    struct arena_chunk *head, *next;
    size_t used;
};
void arena_mark(struct arena *a, struct arena_mark *m);
void arena_rollback(struct arena *a, const struct arena_mark *m);
/* Frees every chunk; the arena must be arena_init()ed again before reuse. */
void arena_release(struct arena *a);

#endif
