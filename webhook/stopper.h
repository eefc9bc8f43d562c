/*
 * stopper.h - how a background thread of the webhook (the policy report
 * writer, the target reader, the in-cluster inventory) sleeps between
 * rounds and is told to end: stopper_wait() sleeps up to N seconds and
 * returns at once, with 1, after stopper_stop() from another thread;
 * stopper_stopping() is the lock-free check a transfer in progress polls
 * (its signature is kubeapi_set_stop's callback: cls is the stopper).
 */
#ifndef CLAIMCHECK_WEBHOOK_STOPPER_H
#define CLAIMCHECK_WEBHOOK_STOPPER_H

#include <pthread.h>
#include <stdatomic.h>

struct stopper {
    pthread_mutex_t mu;
    pthread_cond_t cond;
    int stop;                   /* guarded by mu */
    atomic_int stopping;        /* the same, for lock-free polls */
};

void stopper_init(struct stopper *s);
void stopper_destroy(struct stopper *s);

/* From any thread: every stopper_wait() returns 1 from now on. */
void stopper_stop(struct stopper *s);

/* Sleeps up to seconds (0: not at all); 1 when stopping, else 0. */
int stopper_wait(struct stopper *s, long long seconds);

/* 1 once stopper_stop() was called; cls is a struct stopper. */
int stopper_stopping(void *cls);

#endif
