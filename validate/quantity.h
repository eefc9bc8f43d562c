/*
 * quantity.h - resource.Quantity values: exact (128-bit nano units), for
 * device capacity, shared counters and capacity requests.
 */
#ifndef CLAIMCHECK_QUANTITY_H
#define CLAIMCHECK_QUANTITY_H

#include <stdint.h>

struct qty { int64_t hi; uint64_t lo; };    /* a Quantity in nano units */

/* Parses a resource.Quantity (exact, through the CEL engine's parser).
 * Returns 0, or -1 if s is not a quantity. */
int qty_parse(const char *s, struct qty *out);
int qty_cmp(struct qty a, struct qty b);            /* <0, 0, >0 */
struct qty qty_add(struct qty a, struct qty b);
struct qty qty_sub(struct qty a, struct qty b);

#endif
