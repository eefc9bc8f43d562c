/*
 * budget.h - the work one admission request may make the engine do: a
 * deadline (clock.h time), CEL runtime cost units (Kubernetes' accounting,
 * summed over every selector evaluation the request causes) and allocator
 * search steps (summed over every problem it solves). What is spent is
 * counted here whether or not there is a limit, so the webhook can log it;
 * work served from a cache (the selector results of an inventory snapshot,
 * the verdict cache) costs nothing. The linter runs without one.
 */
#ifndef CLAIMCHECK_BUDGET_H
#define CLAIMCHECK_BUDGET_H

#include <stdint.h>

#include "clock.h"

struct work_budget {
    uint64_t deadline_ns;       /* clock_mono_ns() time, 0 = none */
    uint64_t cel_cost_max;      /* 0 = no limit */
    uint64_t alloc_steps_max;   /* 0 = no limit */
    uint64_t cel_cost;          /* spent so far */
    uint64_t alloc_steps;       /* spent so far */
};

enum budget_over { BUDGET_OK, BUDGET_DEADLINE, BUDGET_CEL, BUDGET_ALLOC };

/* Which limit has been passed (the deadline first), BUDGET_OK if none. */
static inline enum budget_over work_budget_over(const struct work_budget *b)
{
    if (!b)
        return BUDGET_OK;
    if (clock_past(b->deadline_ns))
        return BUDGET_DEADLINE;
    if (b->cel_cost_max && b->cel_cost > b->cel_cost_max)
        return BUDGET_CEL;
    if (b->alloc_steps_max && b->alloc_steps > b->alloc_steps_max)
        return BUDGET_ALLOC;
    return BUDGET_OK;
}

/* The allocator steps still allowed (0 = no limit; at least 1 otherwise,
 * so that a search given it stops at once and the overrun shows). */
static inline unsigned long work_budget_steps_left(const struct work_budget *b)
{
    if (!b || !b->alloc_steps_max)
        return 0;
    if (b->alloc_steps >= b->alloc_steps_max)
        return 1;
    return (unsigned long)(b->alloc_steps_max - b->alloc_steps);
}

#endif
