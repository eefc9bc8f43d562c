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

/* The memo key's head, "selector\x1f<minor>\x1f<cc><la>\x1f", into key
 * (64 bytes); its length. Built by hand in the common case: snprintf costs
 * more than the memo lookup it serves. */
static int key_head(char *key, const struct cel_env *env, int kube_minor)
{
    static const char head[] = "selector\x1f";
    char digits[8];
    int n = (int)sizeof(head) - 1, d = 0;
    unsigned m = (unsigned)kube_minor;

    if (kube_minor < 0 || kube_minor > 9999
        || (unsigned)env->consumable_capacity > 1
        || (unsigned)env->list_attributes > 1)
        return snprintf(key, 64, "selector\x1f%d\x1f%d%d\x1f", kube_minor,
                        env->consumable_capacity, env->list_attributes);
    memcpy(key, head, (size_t)n);
    do {
        digits[d++] = (char)('0' + m % 10);
        m /= 10;
    } while (m);
    while (d > 0)
        key[n++] = digits[--d];
    key[n++] = '\x1f';
    key[n++] = (char)('0' + env->consumable_capacity);
    key[n++] = (char)('0' + env->list_attributes);
    key[n++] = '\x1f';
    key[n] = '\0';
    return n;
}

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
    n = key_head(key, env, kube_minor);
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
