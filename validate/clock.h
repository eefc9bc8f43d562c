/*
 * clock.h - the monotonic clock: nanoseconds for deadlines that cross
 * module boundaries (the webhook's validation budget reaches the engine's
 * rule loop and the allocator's search), seconds for durations.
 */
#ifndef CLAIMCHECK_CLOCK_H
#define CLAIMCHECK_CLOCK_H

#include <stdint.h>
#include <time.h>

static inline uint64_t clock_mono_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The same in seconds, for durations and metrics. */
static inline double clock_mono_s(void)
{
    return (double)clock_mono_ns() / 1e9;
}

/* 1 if deadline (clock_mono_ns() based, 0 = none) has passed. */
static inline int clock_past(uint64_t deadline)
{
    return deadline && clock_mono_ns() > deadline;
}

#endif
