/*
 * hook_test_stopper.c - webhook/stopper.c: a wait of 0 s returns at once
 * with 0; a thread sleeping 60 s wakes within a second of stopper_stop()
 * with 1; after the stop every wait returns 1 at once and the lock-free
 * check says so.
 */
#include <pthread.h>
#include <time.h>

#include "../../webhook/stopper.h"
#include "check.h"

static CHECK_INIT;

struct sleeper {
    struct stopper *s;
    int ret;
};

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *sleep_long(void *arg)
{
    struct sleeper *sl = arg;

    sl->ret = stopper_wait(sl->s, 60);
    return NULL;
}

int main(void)
{
    struct stopper s;
    struct sleeper sl;
    pthread_t th;
    struct timespec pause = {0, 100 * 1000 * 1000};
    double t0;

    stopper_init(&s);
    t0 = now();
    CHECK(stopper_wait(&s, 0) == 0);
    CHECK(stopper_wait(&s, -5) == 0);
    CHECK(now() - t0 < 1.0);
    CHECK(stopper_stopping(&s) == 0);

    sl.s = &s;
    sl.ret = -1;
    CHECK(pthread_create(&th, NULL, sleep_long, &sl) == 0);
    nanosleep(&pause, NULL);
    t0 = now();
    stopper_stop(&s);
    pthread_join(th, NULL);
    CHECK_MSG(now() - t0 < 5.0, "the sleeper took %.1f s to wake", now() - t0);
    CHECK(sl.ret == 1);
    CHECK(stopper_stopping(&s) == 1);
    t0 = now();
    CHECK(stopper_wait(&s, 60) == 1);
    CHECK(now() - t0 < 1.0);
    stopper_destroy(&s);
    return CHECK_DONE();
}
