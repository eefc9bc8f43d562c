/*
 * membudget.h - the webhook's global memory budget (--memory-budget): one
 * count of the bytes held by request bodies and by the requests' arenas,
 * and the rule that admits a new body only while it fits. Owns struct
 * membudget and the process's malloc tuning (glibc: large blocks mapped
 * and unmapped on their own, memory trimmed after large requests).
 *
 * A body is charged before it is read when its Content-Length is known,
 * else as it grows; past the budget the request is refused (server.c
 * answers 429 with Retry-After). Arenas are metered (arena_meter()) and
 * never refused halfway: a validation in progress finishes, so the count
 * can pass the budget by what the requests being validated (at most
 * --threads) allocate beyond it, and no new body is admitted meanwhile.
 */
#ifndef CLAIMCHECK_WEBHOOK_MEMBUDGET_H
#define CLAIMCHECK_WEBHOOK_MEMBUDGET_H

#include <stdatomic.h>
#include <stddef.h>

/* the default: a request's arena is about 5x its body (16 MB for a 3 MiB
 * Pod of 9,000 containers), so the shipped 512Mi limit keeps room for the
 * inventory, --threads validations past the budget and malloc's own
 * overhead (tests/e2e/faults section memory measures it) */
#define MEMBUDGET_DEFAULT_BYTES (192u * 1024 * 1024)
/* after a request that held this much, free memory goes back to the
 * system (malloc_trim) */
#define MEMBUDGET_TRIM_BYTES (1024u * 1024)

struct membudget {
    size_t limit;               /* 0: no budget (only counted) */
    atomic_size_t used;         /* bodies + metered arenas, bytes */
    atomic_int trims_due;       /* membudget_idle()'s trims to come */
    atomic_int large;           /* large requests since the last trims
                                   with no connection open */
};

/* Process-wide malloc settings for a server that handles multi-MiB
 * bodies in several threads; call once from main before any thread. */
void membudget_tune_malloc(void);
void membudget_init(struct membudget *b, size_t limit);
/* Charges n bytes: 0, or -1 (nothing charged) when used + n would pass
 * the limit. */
int membudget_take(struct membudget *b, size_t n);
void membudget_give(struct membudget *b, size_t n);
size_t membudget_used(struct membudget *b);
/* A request that held `held` bytes has ended: returns free memory to the
 * system when that was a large one (and leaves MEMBUDGET_IDLE_TRIMS trims
 * to membudget_idle()); 1 then. Each thread has a malloc arena of its
 * own, whose top only that thread gives back: the threads that read and
 * answered a large request call membudget_thread_trim() as they are done
 * with it (libmicrohttpd's, when it completes), and membudget_closed()
 * when a connection closes. */
int membudget_after(struct membudget *b, size_t held);
void membudget_thread_trim(void);
/* Called now and then (the server's tick, every 100 ms) with the number
 * of connections open: once nothing is held after large requests, free
 * memory goes back to the system again, MEMBUDGET_IDLE_TRIMS times at
 * most (3 s at the server's tick): a large request's own trim runs as it
 * ends, while other requests may still hold theirs. After a burst of 64
 * concurrent 3 MiB reviews (tests/e2e/faults, section memory) RSS stayed
 * at 75-150 MB in most runs on a 2-core VM: free, at the top of
 * libmicrohttpd's threads' malloc arenas (malloc_stats(): 72 MB system,
 * 45 KB in use), which malloc_trim() does not give back; with these
 * trims alone still in 5 runs of 6; with trims in libmicrohttpd's threads
 * as well (membudget_thread_trim(), membudget_closed()) in none of 22, RSS
 * back to within 3 MB of the start (the trim as a request completes is
 * enough on its own: 4 runs of 4, as a kept-alive connection needs). 1
 * when it trimmed. */
#define MEMBUDGET_IDLE_TRIMS 30
int membudget_idle(struct membudget *b, size_t connections);
/* A connection has closed: after large requests, its buffers are trimmed
 * away when idle (membudget_idle() again). */
void membudget_closed(struct membudget *b);

#endif
