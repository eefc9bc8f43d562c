/*
 * api.c - the public entry points of cel.h and the internal ones of
 * cel_internal.h: compile (length limit, parse, check) in the DRA or a
 * general environment, evaluate against a device or against bindings,
 * render results, release JIT code. Evaluation state lives on the caller's
 * stack; only the scratch spills to malloc, and is freed before return.
 */
#include "cel_internal.h"
#include "../arena.h"

#include <stdio.h>
#include <string.h>

static int compile(struct arena *a, const struct cel_env *env,
                   const char *expr, size_t len, const struct cel_var *vars,
                   size_t nvars, int general, int want_bool, int check,
                   int kube_minor, struct cel_program **out,
                   struct cel_error *err)
{
    struct cel_program *p;
    struct cel_env zero;

    memset(err, 0, sizeof(*err));
    *out = NULL;
    if (!env) {
        memset(&zero, 0, sizeof(zero));
        env = &zero;
    }
    if (len > CEL_MAX_EXPR_BYTES) {
        cel_error_set(err, CEL_ERR_LIMIT, NULL, 0,
                      "expression too long (%zu bytes, limit %d)", len,
                      CEL_MAX_EXPR_BYTES);
        return -1;
    }
    p = arena_alloc(a, sizeof(*p));
    p->expr = arena_strndup(a, expr, len);
    p->len = len;
    p->env = *env;
    p->general = general;
    p->unchecked = !check;
    p->kube_minor = kube_minor;
    p->device_slot = -1;
    p->root = cel_parse(a, p->expr, len, err);
    if (!p->root)
        return -1;
    if (!general)
        p->device_slot = 0;
    if (check) {
        if (cel_check(a, p, vars, nvars, want_bool, err) < 0) {
            cel_program_release(p);
            return -1;
        }
    } else {
        /* unchecked: still resolve names (slots, functions), no types */
        struct cel_error tmp;
        if (cel_check(a, p, vars, nvars, 0, &tmp) < 0) {
            *err = tmp;
            cel_program_release(p);
            return -1;
        }
    }
    *out = p;
    return 0;
}

int cel_compile(struct arena *a, const struct cel_env *env, const char *expr,
                size_t len, struct cel_program **out, struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, 0, 1, 1, 0, out, err);
}

int cel_compile_target(struct arena *a, const struct cel_env *env,
                       int kube_minor, const char *expr, size_t len,
                       struct cel_program **out, struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, 0, 1, 1, kube_minor, out,
                   err);
}

int cel_compile_expr(struct arena *a, const struct cel_env *env,
                     const char *expr, size_t len, struct cel_program **out,
                     struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, 0, 0, 1, 0, out, err);
}

int cel_compile_vars(struct arena *a, const struct cel_env *env,
                     const char *expr, size_t len, const char *const *names,
                     size_t nvars, int check, struct cel_program **out,
                     struct cel_error *err)
{
    struct cel_var *vars = arena_alloc(a, (nvars + 1) * sizeof(*vars));
    size_t i;

    if (nvars > CEL_MAX_SLOTS / 2) {
        cel_error_set(err, CEL_ERR_LIMIT, NULL, 0, "too many variables");
        return -1;
    }
    for (i = 0; i < nvars; i++) {
        vars[i].name = names[i];
        vars[i].slot = (int)i;
        vars[i].type = CEL_T_DYN;
    }
    return compile(a, env, expr, len, vars, nvars, 1, 0, check, 0, out,
                   err);
}

void cel_program_release(struct cel_program *p)
{
    size_t i;

    if (!p)
        return;
    for (i = 0; i < p->nregexes; i++)
        cel_regex_free(p->regexes[i]);
    p->nregexes = 0;
}

/* ================= evaluation ================= */

static void ev_init(struct cel_eval *ev, const struct cel_program *p,
                    struct cel_scratch *sc)
{
    ev->p = p;
    ev->scratch = sc;
    ev->cost = 0;
    ev->err_node = NULL;
}

static int finish(struct cel_eval *ev, const struct cel_value *v,
                  struct cel_error *err)
{
    unsigned off = ev->err_node ? ev->err_node->offset : 0;

    if (ev->cost > CEL_MAX_COST) {
        cel_error_set(err, CEL_ERR_RUNTIME, ev->p->expr, off, "%s",
                      CEL_COST_MSG);
        return -1;
    }
    if (v->kind == CEL_V_ERROR) {
        cel_error_set(err, CEL_ERR_RUNTIME, ev->p->expr, off, "%.*s",
                      (int)v->v.s.n, v->v.s.p);
        return -1;
    }
    return 0;
}

static struct cel_value device_value(const struct cel_device *dev)
{
    struct cel_value v;

    memset(&v, 0, sizeof(v));
    v.kind = CEL_V_DEVICE;
    v.x = dev;
    return v;
}

static void bind_device(struct cel_eval *ev, const struct cel_device *dev)
{
    if (ev->p->device_slot < 0)
        return;
    if (dev) {
        ev->slots[ev->p->device_slot] = device_value(dev);
    } else {
        struct cel_value e;
        memset(&e, 0, sizeof(e));
        e.kind = CEL_V_ERROR;
        e.v.s.p = "no value bound for variable 'device'";
        e.v.s.n = strlen(e.v.s.p);
        ev->slots[ev->p->device_slot] = e;
    }
}

int cel_eval_device(const struct cel_program *p, const struct cel_device *dev,
                    struct cel_error *err)
{
    uint64_t cost;

    return cel_eval_device_costed(p, dev, &cost, err);
}

int cel_eval_device_costed(const struct cel_program *p,
                           const struct cel_device *dev, uint64_t *cost,
                           struct cel_error *err)
{
    struct cel_eval ev;
    struct cel_scratch sc;
    struct cel_value v;
    int ret;

    cel_scratch_init(&sc);
    ev_init(&ev, p, &sc);
    bind_device(&ev, dev);
    v = cel_eval_node(&ev, p->root);
    ret = finish(&ev, &v, err);
    if (ret == 0) {
        if (v.kind == CEL_V_BOOL) {
            ret = v.v.b;
        } else {
            cel_error_set(err, CEL_ERR_RUNTIME, p->expr, 0,
                          "selector evaluated to '%s', not bool",
                          cel_type_name(cel_value_type(&v)));
            ret = -1;
        }
    }
    *cost = ev.cost;
    if (sc.chunks)
        cel_scratch_release(&sc);
    return ret;
}

int cel_eval_to_string(const struct cel_program *p,
                       const struct cel_device *dev, char *out, size_t outsz,
                       struct cel_error *err)
{
    struct cel_eval ev;
    struct cel_scratch sc;
    struct cel_value v;
    int ret;

    cel_scratch_init(&sc);
    ev_init(&ev, p, &sc);
    bind_device(&ev, dev);
    v = cel_eval_node(&ev, p->root);
    ret = finish(&ev, &v, err);
    if (ret == 0 && cel_value_render(&v, out, outsz) < 0) {
        cel_error_set(err, CEL_ERR_RUNTIME, p->expr, 0,
                      "result too large to render (%zu bytes)", outsz);
        ret = -1;
    }
    cel_scratch_release(&sc);
    return ret;
}

int cel_eval_bindings(const struct cel_program *p,
                      const struct cel_binding *b, size_t nb,
                      struct cel_scratch *scratch, struct cel_value *out,
                      struct cel_error *err)
{
    struct cel_eval ev;
    int i;
    size_t j;

    ev_init(&ev, p, scratch);
    /* globals are the first slots, in declaration order; unbound ones are
     * errors when referenced */
    for (i = 0; i < CEL_MAX_SLOTS; i++) {
        memset(&ev.slots[i], 0, sizeof(ev.slots[i]));
        ev.slots[i].kind = CEL_V_ERROR;
        ev.slots[i].v.s.p = "no value bound for variable";
        ev.slots[i].v.s.n = strlen(ev.slots[i].v.s.p);
    }
    for (j = 0; j < nb && j < CEL_MAX_SLOTS; j++)
        ev.slots[j] = b[j].value;
    *out = cel_eval_node(&ev, p->root);
    return finish(&ev, out, err);
}
