/*
 * costly.c - which reviews are costly (the compile-time estimate of their
 * selectors) and the small pool of threads that judges them (costly.h).
 */
#include "costly.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/limits.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"

/* ---- the estimate ----------------------------------------------------- */

struct estimate {
    struct arena a;             /* the program being estimated */
    uint64_t sum;
};

static void estimate_walk(struct estimate *e, const struct tnode *n,
                          unsigned depth)
{
    unsigned i;

    if (!n || depth > 64 || e->sum >= COSTLY_ESTIMATE)
        return;
    if (n->kind != T_MAP && n->kind != T_SEQ)
        return;
    if (n->kind == T_MAP && n->key && n->key[0] == 'c'
        && !strcmp(n->key, "cel")) {
        const char *expr = tree_str(tree_get(n, "expression"));
        struct cel_env env = { 1, 1, 0, 0, 0 };
        struct cel_program *p;
        struct cel_error err;
        uint64_t min, max;
        if (expr && cel_compile_selector(&e->a, &env, expr, strlen(expr),
                                         &p, &err) == 0) {
            cel_program_cost(p, &min, &max);
            e->sum += max;
        }
        arena_clear(&e->a);     /* one program at a time */
        return;
    }
    /* scalars, most of an object's nodes, are not called for */
    for (i = 0; i < n->n && e->sum < COSTLY_ESTIMATE; i++) {
        const struct tnode *k = n->kids[i];
        if (k && (k->kind == T_MAP || k->kind == T_SEQ))
            estimate_walk(e, k, depth + 1);
    }
}

int costly_review(const struct tnode *object)
{
    struct estimate e;

    arena_init(&e.a, ARENA_SMALL_BYTES);
    e.sum = 0;
    estimate_walk(&e, object, 0);
    arena_release(&e.a);
    return e.sum >= COSTLY_ESTIMATE;
}

/* ---- the pool --------------------------------------------------------- */

struct costly_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    struct costly_job *head, *tail;
    size_t pending;             /* queued + running */
    int stop;
    unsigned n;
    pthread_t *th;
};

static void *pool_main(void *arg)
{
    struct costly_pool *p = arg;

    for (;;) {
        struct costly_job *j;
        pthread_mutex_lock(&p->mu);
        while (!p->head && !p->stop)
            pthread_cond_wait(&p->cv, &p->mu);
        j = p->head;
        if (!j) {               /* stopping, nothing left */
            pthread_mutex_unlock(&p->mu);
            return NULL;
        }
        p->head = j->next;
        if (!p->head)
            p->tail = NULL;
        pthread_mutex_unlock(&p->mu);
        j->run(j);
        pthread_mutex_lock(&p->mu);
        p->pending--;
        pthread_mutex_unlock(&p->mu);
    }
}

struct costly_pool *costly_pool_new(unsigned threads)
{
    struct costly_pool *p = xcalloc(1, sizeof(*p));

    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    p->th = xcalloc(threads, sizeof(*p->th));
    for (p->n = 0; p->n < threads; p->n++)
        if (pthread_create(&p->th[p->n], NULL, pool_main, p) != 0)
            break;
    if (p->n == 0) {
        costly_pool_free(p);
        return NULL;
    }
    return p;
}

void costly_pool_submit(struct costly_pool *p, struct costly_job *j)
{
    j->next = NULL;
    pthread_mutex_lock(&p->mu);
    if (p->tail)
        p->tail->next = j;
    else
        p->head = j;
    p->tail = j;
    p->pending++;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

size_t costly_pool_pending(struct costly_pool *p)
{
    size_t n;

    pthread_mutex_lock(&p->mu);
    n = p->pending;
    pthread_mutex_unlock(&p->mu);
    return n;
}

void costly_pool_free(struct costly_pool *p)
{
    unsigned i;

    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (i = 0; i < p->n; i++)
        pthread_join(p->th[i], NULL);
    pthread_cond_destroy(&p->cv);
    pthread_mutex_destroy(&p->mu);
    free(p->th);
    free(p);
}
