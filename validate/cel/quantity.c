/*
 * quantity.c - Quantity values in CEL: conversions between struct
 * cel_value and validate/quantity.h, which does all the work (parsing,
 * canonical form, comparison, arithmetic), so that quantity('1Gi') means
 * what it means to Kubernetes everywhere in claimcheck.
 */
#include "cel_internal.h"

#include <string.h>

struct cel_value cel_vquantity(const struct quantity *q)
{
    struct cel_value v;

    memset(&v, 0, sizeof(v));
    v.kind = CEL_V_QUANTITY;
    v.v.q.lo = q->lo;
    v.v.q.hi = q->hi;
    v.qexp = q->exp;
    v.sub = (unsigned char)(q->format | q->dec << 2);
    return v;
}

void cel_quantity_get(const struct cel_value *v, struct quantity *q)
{
    memset(q, 0, sizeof(*q));
    q->lo = v->v.q.lo;
    q->hi = v->v.q.hi;
    q->exp = v->qexp;
    q->format = v->sub & 3;
    q->dec = (v->sub >> 2) & 1;
}

int cel_quantity_cmp(const struct cel_value *a, const struct cel_value *b)
{
    struct quantity x, y;

    cel_quantity_get(a, &x);
    cel_quantity_get(b, &y);
    return quantity_cmp(&x, &y);
}

void cel_quantity_format(const struct cel_value *v, char *out, size_t outsz)
{
    struct quantity q;

    cel_quantity_get(v, &q);
    quantity_string(&q, out, outsz);
}
