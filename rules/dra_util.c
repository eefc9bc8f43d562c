/*
 * dra_util.c - small questions several rule families ask about DRA
 * objects: which driver a DeviceClass or request pins, which claim or
 * template a pod's resourceClaims entry resolves to.
 */
#include "dra_util.h"

#include <string.h>

#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/object.h"
#include "../validate/tree.h"
#include "rules.h"

const char *selectors_driver(struct arena *a, const struct selector *sel,
                             size_t n)
{
    struct cel_env env = {1, 1, 0};
    size_t i;

    for (i = 0; i < n; i++) {
        struct cel_program *p;
        struct cel_error err;
        const char *d;
        if (!sel[i].expr)
            continue;
        if (cel_compile(a, &env, sel[i].expr, strlen(sel[i].expr), &p,
                        &err) == 0)
            d = cel_pinned_driver(p);
        else    /* the syntax tree alone (type error, unknown function) */
            d = cel_pinned_driver_parsed(a, sel[i].expr, strlen(sel[i].expr));
        if (d)
            return d;
    }
    return NULL;
}

const char *request_driver(struct check_ctx *cx, const struct devreq *r)
{
    const struct object *cls;
    const char *d;

    d = selectors_driver(cx_arena(cx), r->sel, r->nsel);
    if (d || !r->class_name)
        return d;
    cls = cx_lookup(cx, K_CLASS, "", r->class_name);
    if (!cls || !cls->cls)
        return NULL;
    return selectors_driver(cx_arena(cx), cls->cls->sel, cls->cls->nsel);
}

const struct object *podclaim_target(struct check_ctx *cx,
                                     const struct object *pod,
                                     const struct podclaim *pc)
{
    const char *ns = object_ns(pod);

    if (pc->claim_name && !pc->template_name)
        return cx_lookup(cx, K_CLAIM, ns, pc->claim_name);
    if (pc->template_name && !pc->claim_name)
        return cx_lookup(cx, K_TEMPLATE, ns, pc->template_name);
    return NULL;
}
