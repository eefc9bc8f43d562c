/*
 * schema.c - extended-resource-limits: the apiserver's rules for extended
 * resources in containers (whole numbers, a limit equal to the request).
 * The resource.k8s.io kinds' schema rules are in schema_claim.c (claims,
 * templates, classes), schema_slice.c (slices, taint rules, pool status
 * requests) and metadata.c (object metadata).
 */
#include <stdlib.h>
#include <string.h>

#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/quantity.h"
#include "../validate/tree.h"
#include "checks.h"
#include "rules.h"

/* ==== extended-resource-limits ========================================== */

/* written: the requests map as written (a defaulted request copied from
 * a limit is that limit's node, judged with the limits) */
static void check_ext_list(struct check_ctx *cx, const struct tnode *list,
                           const struct tnode *other, int is_requests,
                           const struct tnode *written)
{
    size_t i;

    if (!tree_is_map(list))
        return;
    for (i = 0; i < list->n; i++) {
        const struct tnode *v = list->kids[i];
        const char *text = tree_text(v);
        struct quantity q, q2;
        const struct tnode *o;
        if (!name_is_extended_resource(v->key)
            || (is_requests && v->parent != written))
            continue;
        if (quantity_from_text(text, &q) < 0) {
            report(cx, v, "'%s' is not a valid quantity", v->key);
            continue;
        }
        /* Kubernetes: an integer resource's MilliValue() % 1000 == 0 */
        if (!quantity_is_whole(&q)) {
            report(cx, v, "extended resource '%s' must be a whole number, "
                   "not %s", v->key, text);
            continue;
        }
        if (!is_requests)
            continue;
        o = tree_get(other, v->key);
        if (!o) {
            report(cx, v, "extended resource '%s' is requested without a "
                   "limit; extended resources need limits", v->key);
            continue;
        }
        if (quantity_from_text(tree_text(o), &q2) == 0
            && quantity_cmp(&q2, &q) != 0)
            report(cx, v, "extended resource '%s' requests %s but limits "
                   "%s; they must be equal", v->key, text, tree_text(o));
    }
}

void check_extended_resource_limits(struct check_ctx *cx,
                                    const struct object *o)
{
    size_t i;

    for (i = 0; i < o->pod->nctrs; i++) {
        const struct container *c = &o->pod->ctrs[i];
        check_ext_list(cx, c->requests, c->limits, 1, c->requests_written);
        check_ext_list(cx, c->limits, c->requests, 0, NULL);
    }
}
