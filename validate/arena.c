/*
 * arena.c - bump allocator: chunks of chunk_size, oversized requests get a
 * chunk of their own (nginx's "large" blocks) that is linked behind the
 * current chunk so the current one keeps serving small requests.
 *
 * In an arena of MAP_ARENA_BYTES chunks (a whole linter run: it only
 * grows), every chunk (normal ones or blocks of their own) is mapped
 * from the kernel, zero, and their pages are made resident
 * POPULATE_BYTES at a time as they are handed out: one call instead of a
 * page fault per 4 KiB (issue 17: on the benchmark the linter's time went
 * to page faults, some 15 us each on a virtual machine, and to clearing
 * cold memory by hand), and no more resident than a page fault would have
 * made it, give or take one step. Each chunk remembers how far it was ever
 * handed out (`dirty`): memory past that is still zero and is not cleared
 * again. Other chunks are malloc'd and cleared per allocation: an arena
 * cleared again and again (a request's, the allocator's scratch per
 * object) gets them back warm from malloc, where a fresh mapping each time
 * costs its page faults again (mapping them made the allocator
 * benchmark's p99 per object 1.6x slower).
 */
#include "arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "xalloc.h"

struct arena_chunk {
    struct arena_chunk *next;
    size_t used, size;
    size_t dirty;           /* data[dirty..size) is zero (never handed out) */
    size_t mapped;          /* bytes mmap'd (0: malloc'd) */
    size_t ready;           /* data[0..ready) is populated (mapped) */
    max_align_t data[];
};

#define ALIGN ((size_t)_Alignof(max_align_t))
#define MAP_ARENA_BYTES ((size_t)1024 * 1024)   /* ARENA_RUN_BYTES */
#define POPULATE_BYTES ((size_t)32 * 1024)

void arena_init(struct arena *a, size_t chunk_size)
{
    a->head = NULL;
    a->chunk_size = chunk_size ? chunk_size : 65536;
    a->total = 0;
    a->meter = NULL;
}

void arena_meter(struct arena *a, atomic_size_t *meter)
{
    if (a->meter)
        atomic_fetch_sub(a->meter, a->total);
    a->meter = meter;
    if (meter)
        atomic_fetch_add(meter, a->total);
}

/* a's total changes by n bytes (added or taken) */
static void chunk_count(struct arena *a, size_t n, int add)
{
    if (add)
        a->total += n;
    else
        a->total -= n;
    if (a->meter && add)
        atomic_fetch_add(a->meter, n);
    else if (a->meter)
        atomic_fetch_sub(a->meter, n);
}

static struct arena_chunk *chunk_new(struct arena *a, size_t size)
{
    struct arena_chunk *c;
    size_t len = sizeof(*c) + size, page = 4096;

    if (size > SIZE_MAX - sizeof(*c) - page)
        xalloc_die(size);
    /* every chunk of a mapped arena is mapped, a small block of its own
     * (a strmap table) too: one malloc'd among them would be linked from
     * mapped memory only, which LeakSanitizer does not scan (it reported
     * the inventory's intern table as leaked) */
    if (a->chunk_size >= MAP_ARENA_BYTES) {
        len = (len + page - 1) & ~(page - 1);
        c = mmap(NULL, len, PROT_READ | PROT_WRITE,
                 MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (c == MAP_FAILED)
            xalloc_die(len);
        c->mapped = len;
        c->ready = 0;
        c->dirty = 0;
    } else {
        c = xmalloc(len);
        c->mapped = 0;
        c->dirty = size;
    }
    c->used = 0;
    c->size = size;
    chunk_count(a, sizeof(*c) + size, 1);
    return c;
}

/* c handed out up to c->used: dirty moves, and a mapped chunk's pages
 * are populated a step ahead (where the kernel can: Linux 5.14) */
static void chunk_used(struct arena_chunk *c)
{
    if (c->used <= c->dirty)
        return;
    c->dirty = c->used;
#ifdef MADV_POPULATE_WRITE
    if (c->mapped && c->dirty > c->ready) {
        size_t head = (size_t)((char *)c->data - (char *)c);
        size_t from = (head + c->ready) & ~(size_t)4095;
        size_t to = head + c->dirty + POPULATE_BYTES;
        if (to > c->mapped)
            to = c->mapped;
        (void)madvise((char *)c + from, to - from, MADV_POPULATE_WRITE);
        c->ready = to - head;
    }
#endif
}

static void chunk_free(struct arena_chunk *c)
{
    if (c->mapped)
        munmap(c, c->mapped);
    else
        free(c);
}

/* A chunk of its own for need bytes (aligned), kept behind the current
 * one so that the current one keeps serving small requests; zeroed. */
static void *large_block(struct arena *a, size_t need)
{
    struct arena_chunk *c = a->head, *big = chunk_new(a, need);

    if (c) {
        big->next = c->next;
        c->next = big;
    } else {
        big->next = NULL;
        a->head = big;
    }
    big->used = need;
    if (big->dirty)
        memset(big->data, 0, need);
    else
        chunk_used(big);
    return big->data;
}

/* n rounded up to align (a power of two), at least align */
static size_t aligned_to(size_t n, size_t align)
{
    size_t need;

    if (n > SIZE_MAX - ALIGN)
        xalloc_die(n);
    need = (n + align - 1) & ~(align - 1);
    return need ? need : align;
}

static size_t aligned(size_t n)
{
    return aligned_to(n, ALIGN);
}

void *arena_alloc_block(struct arena *a, size_t n)
{
    return large_block(a, aligned(n));
}

/* need bytes (a multiple of align) at the current chunk's first offset
 * aligned to align (ALIGN or less) */
static void *alloc_at(struct arena *a, size_t need, size_t align)
{
    struct arena_chunk *c = a->head;
    void *p;

    if (c) {    /* arena_bytes() may have left `used` unaligned */
        size_t u = (c->used + align - 1) & ~(align - 1);
        c->used = u <= c->size ? u : c->size;
    }
    if (!c || c->size - c->used < need) {
        if (need > a->chunk_size / 4)
            return large_block(a, aligned(need));
        c = chunk_new(a, a->chunk_size);
        c->next = a->head;
        a->head = c;
    }
    p = (char *)c->data + c->used;
    if (c->used < c->dirty)     /* handed out before an arena_clear() */
        memset(p, 0, c->dirty - c->used < need ? c->dirty - c->used : need);
    c->used += need;
    chunk_used(c);
    return p;
}

void *arena_alloc(struct arena *a, size_t n)
{
    return alloc_at(a, aligned(n), ALIGN);
}

void *arena_alloc_aligned(struct arena *a, size_t n, size_t align)
{
    if (align > ALIGN || (align & (align - 1)))
        align = ALIGN;
    return alloc_at(a, aligned_to(n, align), align);
}

/* Unaligned bump allocation for bytes (strings): no padding. */
static char *arena_bytes(struct arena *a, size_t n)
{
    struct arena_chunk *c = a->head;

    if (c && c->size - c->used >= n && n <= a->chunk_size / 4) {
        char *p = (char *)c->data + c->used;
        c->used += n;
        chunk_used(c);
        return p;
    }
    return arena_alloc(a, n);
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
    char *p = arena_bytes(a, n + 1);
    if (n)
        memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
    return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
    va_list cp;
    int n;
    char *p;

    va_copy(cp, ap);
    n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0)
        return arena_strdup(a, "");
    p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap);
    return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
    va_list ap;
    char *p;

    va_start(ap, fmt);
    p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void *arena_grow(struct arena *a, void *old, size_t old_n, size_t want,
                 size_t item)
{
    void *p;

    if (item && want > SIZE_MAX / item)
        xalloc_die(want);
    p = arena_alloc(a, want * item);
    if (old && old_n)
        memcpy(p, old, old_n * item);
    return p;
}

void arena_free(struct arena *a, void *p, size_t n)
{
    struct arena_chunk **at, *c;
    size_t need;

    if (!p)
        return;
    need = aligned(n);
    /* a block of its own is a chunk of exactly `need` bytes, all of them
     * p's; p in a shared chunk stays */
    for (at = &a->head; *at; at = &(*at)->next) {
        c = *at;
        if ((void *)c->data != p)
            continue;
        if (c->size != need || c->used != need)
            return;
        *at = c->next;
        chunk_count(a, sizeof(*c) + c->size, 0);
        chunk_free(c);
        return;
    }
}

void arena_adopt(struct arena *a, struct arena *src)
{
    struct arena_chunk *last = src->head;
    size_t total = src->total;

    if (!last)
        return;
    while (last->next)
        last = last->next;
    if (a->head) {      /* behind a's current chunk, which keeps serving */
        last->next = a->head->next;
        a->head->next = src->head;
    } else {
        a->head = src->head;
    }
    src->head = NULL;
    chunk_count(src, total, 0);
    chunk_count(a, total, 1);
}

void arena_mark(struct arena *a, struct arena_mark *m)
{
    m->head = a->head;
    m->next = a->head ? a->head->next : NULL;
    m->used = a->head ? a->head->used : 0;
}

/* frees the chunks from c up to stop (not included) */
static void free_until(struct arena *a, struct arena_chunk *c,
                       const struct arena_chunk *stop)
{
    struct arena_chunk *next;

    for (; c && c != stop; c = next) {
        next = c->next;
        chunk_count(a, sizeof(*c) + c->size, 0);
        chunk_free(c);
    }
}

void arena_rollback(struct arena *a, const struct arena_mark *m)
{
    /* chunks obtained since are in front of the marked one, large blocks
     * right behind whichever chunk was current */
    free_until(a, a->head, m->head);
    a->head = m->head;
    if (!m->head)
        return;
    free_until(a, m->head->next, m->next);
    m->head->next = m->next;
    m->head->used = m->used;    /* what follows is cleared when reused */
}

int arena_move_block(struct arena *dst, struct arena *src, void *p)
{
    struct arena_chunk **at, *c;

    if (!p || dst == src)
        return -1;
    for (at = &src->head; *at; at = &(*at)->next) {
        c = *at;
        if ((void *)c->data != p)
            continue;
        /* a block of its own is full from the start; a chunk of the
         * arena's size may hold other allocations too */
        if (c->used != c->size || c->size == src->chunk_size)
            return -1;
        *at = c->next;
        chunk_count(src, sizeof(*c) + c->size, 0);
        if (dst->head) {        /* behind the current chunk, as large_block */
            c->next = dst->head->next;
            dst->head->next = c;
        } else {
            c->next = NULL;
            dst->head = c;
        }
        chunk_count(dst, sizeof(*c) + c->size, 1);
        return 0;
    }
    return -1;
}

void arena_release(struct arena *a)
{
    struct arena_chunk *c = a->head, *next;

    while (c) {
        next = c->next;
        chunk_free(c);
        c = next;
    }
    a->head = NULL;
    chunk_count(a, a->total, 0);
}

void arena_clear(struct arena *a)
{
    struct arena_chunk *c = a->head, *next, *keep = NULL;

    while (c) {
        next = c->next;
        if (!next && c->size == a->chunk_size) {
            keep = c;           /* the oldest normal chunk: reused */
        } else {
            chunk_count(a, sizeof(*c) + c->size, 0);
            chunk_free(c);
        }
        c = next;
    }
    if (keep)
        keep->used = 0;
    a->head = keep;
}
