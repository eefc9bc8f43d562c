/*
 * stopper.c - a background thread's sleep that another thread can cut
 * short (stopper.h).
 */
#include <errno.h>
#include <time.h>

#include "stopper.h"

void stopper_init(struct stopper *s)
{
    pthread_mutex_init(&s->mu, NULL);
    pthread_cond_init(&s->cond, NULL);
    s->stop = 0;
    atomic_init(&s->stopping, 0);
}

void stopper_destroy(struct stopper *s)
{
    pthread_cond_destroy(&s->cond);
    pthread_mutex_destroy(&s->mu);
}

void stopper_stop(struct stopper *s)
{
    atomic_store(&s->stopping, 1);
    pthread_mutex_lock(&s->mu);
    s->stop = 1;
    pthread_cond_broadcast(&s->cond);
    pthread_mutex_unlock(&s->mu);
}

int stopper_wait(struct stopper *s, long long seconds)
{
    struct timespec ts;
    int stop;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += (time_t)(seconds > 0 ? seconds : 0);
    pthread_mutex_lock(&s->mu);
    while (!s->stop)
        if (pthread_cond_timedwait(&s->cond, &s->mu, &ts) == ETIMEDOUT)
            break;
    stop = s->stop;
    pthread_mutex_unlock(&s->mu);
    return stop;
}

int stopper_stopping(void *cls)
{
    struct stopper *s = cls;

    return atomic_load(&s->stopping);
}
