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


/* what compile() is asked to do */
enum {
    C_GENERAL = 1,      /* the general environment (no `device`) */
    C_BOOL = 2,         /* a selector: bool or the unknown type */
    C_CHECK = 4,        /* type-checked (else names only, types at runtime) */
    C_LIMIT = 8,        /* the apiserver's estimated cost limit */
    C_LIBTEST = 16,     /* Kubernetes' library cost tests' configuration */
};

static int compile(struct arena *a, const struct cel_env *env,
                   const char *expr, size_t len, const struct cel_var *vars,
                   size_t nvars, int flags, int kube_minor,
                   struct cel_program **out, struct cel_error *err)
{
    int general = flags & C_GENERAL, check = flags & C_CHECK;
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
    p->kube_minor = kube_minor ? kube_minor : env->kube_minor;
    p->device_slot = -1;
    p->root = cel_parse(a, p->expr, len, err);
    if (!p->root)
        return -1;
    if (!general)
        p->device_slot = 0;
    if (cel_check(a, p, vars, nvars, flags & C_BOOL, err) < 0) {
        cel_program_release(p);
        return -1;
    }
    if (flags & C_LIBTEST)
        cel_estimate_cost_test(p, a);
    else if (check)
        cel_estimate_cost(p, a);
    if ((flags & C_LIMIT) && p->cost_max > CEL_MAX_COST) {
        cel_error_set(err, CEL_ERR_LIMIT, NULL, 0,
                      "too complex, exceeds cost limit (estimated cost "
                      "%llu, limit %d)", (unsigned long long)p->cost_max,
                      CEL_MAX_COST);
        cel_program_release(p);
        return -1;
    }
    cel_fold(p, a);
    cel_plan(a, p->root);
    if (flags & C_LIBTEST)
        cel_unoptimize(p);
    *out = p;
    return 0;
}

void cel_program_cost(const struct cel_program *p, uint64_t *min,
                      uint64_t *max)
{
    *min = p->cost_min;
    *max = p->cost_max;
}

int cel_compile(struct arena *a, const struct cel_env *env, const char *expr,
                size_t len, struct cel_program **out, struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, C_BOOL | C_CHECK | C_LIMIT, 0,
                   out, err);
}

int cel_compile_selector(struct arena *a, const struct cel_env *env,
                         const char *expr, size_t len,
                         struct cel_program **out, struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, C_BOOL | C_CHECK, 0, out,
                   err);
}

int cel_compile_target(struct arena *a, const struct cel_env *env,
                       int kube_minor, const char *expr, size_t len,
                       struct cel_program **out, struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, C_BOOL | C_CHECK | C_LIMIT,
                   kube_minor, out, err);
}

int cel_compile_expr(struct arena *a, const struct cel_env *env,
                     const char *expr, size_t len, struct cel_program **out,
                     struct cel_error *err)
{
    static const struct cel_var dev = { "device", 0, CEL_T_DEVICE };
    return compile(a, env, expr, len, &dev, 1, C_CHECK, 0, out, err);
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
    return compile(a, env, expr, len, vars, nvars,
                   C_GENERAL | (check ? C_CHECK : 0), 0, out, err);
}

int cel_compile_library_test(struct arena *a, const char *expr, size_t len,
                             struct cel_program **out,
                             struct cel_error *err)
{
    return compile(a, NULL, expr, len, NULL, 0,
                   C_GENERAL | C_CHECK | C_LIBTEST, 0, out, err);
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

/* The attribute's name as errors spell it (only formatted for an error:
 * bind_check runs on every evaluation). */
static const char *attr_name(const struct cel_attr *at, char *buf, size_t n)
{
    if (at->name)
        return at->name;
    snprintf(buf, n, "%s/%s", at->domain ? at->domain : "",
             at->id ? at->id : "");
    return buf;
}

static int version_ok(const char *v)
{
    struct cel_semver sv;

    return v && cel_semver_parse(v, strlen(v), 0, &sv) == 0;
}

void cel_device_prepare(struct cel_device *dev)
{
    size_t i, k;

    dev->bind = CEL_BIND_READY;
    for (i = 0; i < dev->nattrs; i++) {
        const struct cel_attr *at = &dev->attrs[i];
        if (at->type == CEL_ATTR_INTS || at->type == CEL_ATTR_BOOLS
            || at->type == CEL_ATTR_STRINGS || at->type == CEL_ATTR_VERSIONS)
            dev->bind |= CEL_BIND_LISTS;
        if (at->type == CEL_ATTR_VERSION && !version_ok(at->s))
            dev->bind |= CEL_BIND_BADVER;
        for (k = 0; at->type == CEL_ATTR_VERSIONS && k < at->nv; k++)
            if (!version_ok(at->sv[k]))
                dev->bind |= CEL_BIND_BADVER;
    }
}

/* DeviceMatches binds every attribute before evaluating: a value the
 * environment cannot represent fails the whole device. A prepared device
 * with nothing to fail skips the walk (which names the attribute). */
static int bind_check(const struct cel_program *p,
                      const struct cel_device *dev, struct cel_error *err)
{
    size_t i, k;
    char name[160];

    if (dev && dev->unsupported) {
        cel_error_set(err, CEL_ERR_RUNTIME, p->expr, 0, "attribute %.159s: "
                      "unsupported attribute value", dev->unsupported);
        return -1;
    }
    if (dev && (dev->bind & CEL_BIND_READY) && !(dev->bind & CEL_BIND_BADVER)
        && (!(dev->bind & CEL_BIND_LISTS) || p->env.list_attributes))
        return 0;
    for (i = 0; dev && i < dev->nattrs; i++) {
        const struct cel_attr *at = &dev->attrs[i];
        int list = at->type == CEL_ATTR_INTS || at->type == CEL_ATTR_BOOLS ||
                   at->type == CEL_ATTR_STRINGS ||
                   at->type == CEL_ATTR_VERSIONS;
        if (list && !p->env.list_attributes) {
            cel_error_set(err, CEL_ERR_RUNTIME, p->expr, 0, "attribute %.159s: "
                          "unsupported attribute value",
                          attr_name(at, name, sizeof(name)));
            return -1;
        }
        if (at->type != CEL_ATTR_VERSION && at->type != CEL_ATTR_VERSIONS)
            continue;
        for (k = 0; k < (at->type == CEL_ATTR_VERSION ? 1 : at->nv); k++) {
            const char *v = at->type == CEL_ATTR_VERSION ? at->s : at->sv[k];
            if (version_ok(v))
                continue;
            cel_error_set(err, CEL_ERR_RUNTIME, p->expr, 0, "attribute %.159s: "
                          "parse semantic version: '%s' is not a semantic "
                          "version 2.0.0", attr_name(at, name, sizeof(name)),
                          v ? v : "");
            return -1;
        }
    }
    return 0;
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

    *cost = 0;
    if (bind_check(p, dev, err) < 0)
        return -1;
    cel_scratch_init(&sc);
    ev_init(&ev, p, &sc);
    bind_device(&ev, dev);
    v = cel_eval_node(&ev, p->root);
    ret = finish(&ev, &v, err);
    if (ret == 0) {
        if (v.kind == CEL_V_BOOL) {
            ret = v.v.b;
        } else {
            cel_error_set(err, CEL_ERR_RUNTIME, p->expr, 0, "CEL result "
                          "of type %s could not be converted to bool",
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
    uint64_t cost;

    return cel_eval_to_string_costed(p, dev, out, outsz, &cost, err);
}

int cel_eval_to_string_costed(const struct cel_program *p,
                              const struct cel_device *dev, char *out,
                              size_t outsz, uint64_t *cost,
                              struct cel_error *err)
{
    struct cel_eval ev;
    struct cel_scratch sc;
    struct cel_value v;
    int ret;

    *cost = 0;
    if (bind_check(p, dev, err) < 0)
        return -1;
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
    *cost = ev.cost;
    cel_scratch_release(&sc);
    return ret;
}

int cel_eval_bindings(const struct cel_program *p,
                      const struct cel_binding *b, size_t nb,
                      struct cel_scratch *scratch, struct cel_value *out,
                      uint64_t *cost, struct cel_error *err)
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
    if (cost)
        *cost = ev.cost;
    return finish(&ev, out, err);
}
