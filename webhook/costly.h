/*
 * costly.h - fair service: reviews whose selectors Kubernetes would
 * estimate costly are judged by a small pool of their own (--costly-threads),
 * so that they never hold the workers that serve every other review.
 * Owns the estimate and the pool (threads, queue); server.c suspends the
 * connection of a costly review, submits it, and answers it when the pool
 * has resumed the connection.
 */
#ifndef CLAIMCHECK_WEBHOOK_COSTLY_H
#define CLAIMCHECK_WEBHOOK_COSTLY_H

#include <stddef.h>
#include <stdint.h>

struct tnode;
struct costly_pool;

/* A review whose selectors' estimated CEL cost (Kubernetes' compile-time
 * estimate per evaluation, cel_program_cost, summed over every selector of
 * the object) reaches this is costly. A normal claim's selectors sum to a
 * few hundred units; the attack to some 30 million. */
#define COSTLY_ESTIMATE 100000u

/* 1 when object's selectors (any `cel.expression` in it: claims,
 * templates, DeviceClasses) are estimated to cost COSTLY_ESTIMATE or more.
 * Compiles them one by one and stops as soon as the sum reaches it, so
 * the estimate of a costly object costs only its first few selectors. */
int costly_review(const struct tnode *object);

struct costly_job {
    struct costly_job *next;            /* (the queue's) */
    void (*run)(struct costly_job *j);  /* on a pool thread */
};

/* Starts `threads` (>= 1) threads. NULL when they cannot be started. */
struct costly_pool *costly_pool_new(unsigned threads);
/* Queues j (FIFO); it runs on the first free thread of the pool. */
void costly_pool_submit(struct costly_pool *p, struct costly_job *j);
/* Jobs queued or running. */
size_t costly_pool_pending(struct costly_pool *p);
/* Runs what is queued, then joins the threads and frees p (NULL fine). */
void costly_pool_free(struct costly_pool *p);

#endif
