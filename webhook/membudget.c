/*
 * membudget.c - the global memory budget of request bodies and arenas
 * (membudget.h); the only file including <malloc.h>.
 */
#include "membudget.h"

#include <stdlib.h>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

/* Blocks from this size up are mapped on their own and unmapped when
 * freed: bodies, the arenas' chunks (64 KiB plus a header) and their large
 * blocks go back to the system at once instead of staying in the worker
 * threads' heaps. Setting it also stops glibc from raising the threshold
 * after each such free (to 32 MiB at most), which had later multi-MiB
 * bodies carved from the heaps. A small request uses its pooled first
 * chunk only, and maps nothing. */
#define MMAP_THRESHOLD (64 * 1024)

void membudget_tune_malloc(void)
{
#if defined(__GLIBC__)
    mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD);
#endif
}

void membudget_init(struct membudget *b, size_t limit)
{
    b->limit = limit;
    atomic_init(&b->used, 0);
    atomic_init(&b->trims_due, 0);
    atomic_init(&b->large, 0);
}

int membudget_take(struct membudget *b, size_t n)
{
    size_t cur = atomic_load(&b->used);

    do {
        if (b->limit && (n > b->limit || cur > b->limit - n))
            return -1;
    } while (!atomic_compare_exchange_weak(&b->used, &cur, cur + n));
    return 0;
}

void membudget_give(struct membudget *b, size_t n)
{
    atomic_fetch_sub(&b->used, n);
}

size_t membudget_used(struct membudget *b)
{
    return atomic_load(&b->used);
}

/* Free memory back to the system: malloc_trim() gives back the free
 * blocks of every malloc arena and the top of the main one, after merging
 * free blocks into the tops; the calling thread's arena gives back its top
 * when a block next to it is freed in that thread (glibc's heap_trim), so
 * a block just under the mapping threshold (carved from that top) is
 * taken and freed. */
static void trim(void)
{
#if defined(__GLIBC__)
    void *p;

    malloc_trim(0);
    p = malloc(MMAP_THRESHOLD - 4096);
    free(p);
#endif
}

int membudget_after(struct membudget *b, size_t held)
{
    if (held < MEMBUDGET_TRIM_BYTES)
        return 0;
    trim();
    atomic_store(&b->large, 1);
    atomic_store(&b->trims_due, MEMBUDGET_IDLE_TRIMS);
    return 1;
}

void membudget_thread_trim(void)
{
    trim();
}

void membudget_closed(struct membudget *b)
{
    if (!atomic_load(&b->large))
        return;
    atomic_store(&b->trims_due, MEMBUDGET_IDLE_TRIMS);
    trim();
}

int membudget_idle(struct membudget *b, size_t connections)
{
    int due = atomic_load(&b->trims_due);

    if (due <= 0 || atomic_load(&b->used) != 0
        || !atomic_compare_exchange_strong(&b->trims_due, &due, due - 1))
        return 0;
    trim();
    if (due == 1 && connections == 0)   /* the last: all is let go */
        atomic_store(&b->large, 0);
    return 1;
}
