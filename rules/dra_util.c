/*
 * dra_util.c - small questions several rule families ask about DRA
 * objects: which driver a DeviceClass or request pins, which claim or
 * template a pod's resourceClaims entry resolves to.
 */
#include "dra_util.h"

#include <stdio.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/object.h"
#include "../validate/tree.h"
#include "rules.h"

struct compiled {               /* a selector_program() memo */
    struct cel_program *p;      /* NULL: err says why */
    struct cel_error err;
};

const struct cel_program *selector_program(struct check_ctx *cx,
                                           const struct cel_env *env,
                                           int kube_minor, const char *expr,
                                           const struct cel_error **err)
{
    char key[CEL_MAX_EXPR_BYTES + 64];
    size_t len = strlen(expr);
    struct compiled *c;
    void **slot = NULL;
    int n;

    /* the text is copied, not printed: selectors come by the thousand */
    n = snprintf(key, 64, "selector\x1f%d\x1f%d%d\x1f", kube_minor,
                 env->consumable_capacity, env->list_attributes);
    if (n > 0 && n < 64 && len < sizeof(key) - (size_t)n) {
        memcpy(key + n, expr, len + 1);
        slot = cx_memo(cx, key);
    }
    if (slot && *slot) {
        c = *slot;
    } else {    /* past the length limit: compiling fails at once */
        c = arena_alloc(cx_arena(cx), sizeof(*c));
        if (cel_compile_target(cx_arena(cx), env, kube_minor, expr, len,
                               &c->p, &c->err) < 0)
            c->p = NULL;
        if (slot)
            *slot = c;
    }
    *err = &c->err;
    return c->p;
}

const char *selectors_driver(struct check_ctx *cx, const struct selector *sel,
                             size_t n)
{
    struct cel_env env = {1, 1, 0, 1, 0 };
    size_t i;

    for (i = 0; i < n; i++) {
        const struct cel_program *p;
        const struct cel_error *err;
        const char *d;
        if (!sel[i].expr)
            continue;
        p = selector_program(cx, &env, 0, sel[i].expr, &err);
        d = p ? cel_pinned_driver(p)    /* else the syntax tree alone */
              : cel_pinned_driver_parsed(cx_arena(cx), sel[i].expr,
                                         strlen(sel[i].expr));
        if (d)
            return d;
    }
    return NULL;
}

const char *request_driver(struct check_ctx *cx, const struct devreq *r)
{
    const struct object *cls;
    const char *d;

    d = selectors_driver(cx, r->sel, r->nsel);
    if (d || !r->class_name)
        return d;
    cls = cx_lookup(cx, K_CLASS, "", r->class_name);
    if (!cls || !cls->cls)
        return NULL;
    return selectors_driver(cx, cls->cls->sel, cls->cls->nsel);
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
