/*
 * quantity.c - resource.Quantity values (see quantity.h).
 */
#include "quantity.h"

#include <string.h>

#include "cel/cel_internal.h"   /* cel_quantity_parse: one quantity parser */

int qty_parse(const char *s, struct qty *out)
{
    if (!s)
        return -1;
    return cel_quantity_parse(s, strlen(s), &out->lo, &out->hi);
}

int qty_cmp(struct qty a, struct qty b)
{
    if (a.hi != b.hi)
        return a.hi < b.hi ? -1 : 1;
    if (a.lo != b.lo)
        return a.lo < b.lo ? -1 : 1;
    return 0;
}

struct qty qty_add(struct qty a, struct qty b)
{
    struct qty r;

    r.lo = a.lo + b.lo;
    r.hi = (int64_t)((uint64_t)a.hi + (uint64_t)b.hi + (r.lo < a.lo));
    return r;
}

struct qty qty_sub(struct qty a, struct qty b)
{
    struct qty r;

    r.lo = a.lo - b.lo;
    r.hi = (int64_t)((uint64_t)a.hi - (uint64_t)b.hi - (a.lo < b.lo));
    return r;
}
