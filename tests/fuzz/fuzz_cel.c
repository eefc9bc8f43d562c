/*
 * fuzz_cel.c - libFuzzer target: the CEL engine (validate/cel/): lexer,
 * parser, checker, cost estimate, evaluator, renderer and static analysis.
 *
 * Input layout: byte 0 picks the mode and environment,
 *   bit 0: cel_compile_expr + cel_eval_to_string (else cel_compile +
 *          cel_eval_device), bit 1: consumable_capacity, bit 2:
 *          list_attributes, bit 3: regex_jit, bit 4: split mode, bit 5:
 *          a tiny output buffer for cel_eval_to_string;
 * then the expression. In split mode the expression ends at the first NUL
 * and the rest describes the device, one attribute a line:
 *   domain/id=T:value   with T one of i (int), b (bool), s (string),
 *                       v (version), q (capacity quantity)
 * Otherwise the device is fixed (driver gpu.example.com, a few attributes
 * and a memory capacity). Every copy handed to the engine is an exact-size
 * heap block, so ASan sees reads past the end.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/cel/cel.h"
#include "../../validate/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ATTRS 16

static const long long fixed_ints[] = { 1, 2, 3 };
static const char *const fixed_strs[] = { "a", "bb" };
static const struct cel_attr fixed_attrs[] = {
    { .domain = "gpu.example.com", .id = "model", .type = CEL_ATTR_STRING,
      .s = "a100" },
    { .domain = "gpu.example.com", .id = "index", .type = CEL_ATTR_INT,
      .i = 3 },
    { .domain = "gpu.example.com", .id = "sriov", .type = CEL_ATTR_BOOL,
      .b = 1 },
    { .domain = "gpu.example.com", .id = "driverVersion",
      .type = CEL_ATTR_VERSION, .s = "1.2.3-rc.1+build" },
    { .domain = "other.example.com", .id = "ids", .type = CEL_ATTR_INTS,
      .iv = fixed_ints, .nv = 3 },
    { .domain = "other.example.com", .id = "names",
      .type = CEL_ATTR_STRINGS, .sv = fixed_strs, .nv = 2 },
};
static const struct cel_capacity fixed_caps[] = {
    { "gpu.example.com", "memory", "40Gi" },
    { "gpu.example.com", "cores", "1500m" },
};
static const struct cel_device fixed_dev = {
    .driver = "gpu.example.com",
    .attrs = fixed_attrs, .nattrs = 6,
    .caps = fixed_caps, .ncaps = 2,
    .allow_multiple_allocations = 1,
};

static struct arena other_arena;
static struct cel_program *other_prog;

static void on_domain(void *ctx, const char *domain, int is_capacity,
                      unsigned offset)
{
    (void)ctx;
    (void)is_capacity;
    (void)offset;
    if (!domain)
        __builtin_trap();
}

static char *dup_exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (!p)
        abort();
    memcpy(p, s, n);
    return p;
}

/* Parses the split-mode device description into dev (strings arena-owned).
 * Anything malformed is skipped: the point is odd attribute values. */
static void parse_device(struct arena *a, const char *s, size_t n,
                         struct cel_device *dev)
{
    struct cel_attr *attrs = arena_alloc(a, MAX_ATTRS * sizeof(*attrs));
    struct cel_capacity *caps = arena_alloc(a, MAX_ATTRS * sizeof(*caps));
    size_t na = 0, nc = 0;

    memset(dev, 0, sizeof(*dev));
    dev->driver = "gpu.example.com";
    while (n > 0 && na < MAX_ATTRS && nc < MAX_ATTRS) {
        const char *nl = memchr(s, '\n', n);
        size_t ll = nl ? (size_t)(nl - s) : n;
        const char *eq = memchr(s, '=', ll);
        const char *sl = memchr(s, '/', ll);
        if (eq && sl && sl < eq && (size_t)(eq - s) + 3 <= ll
            && eq[2] == ':') {
            const char *dom = arena_strndup(a, s, (size_t)(sl - s));
            const char *id = arena_strndup(a, sl + 1,
                                           (size_t)(eq - sl - 1));
            const char *val = arena_strndup(a, eq + 3,
                                            ll - (size_t)(eq - s) - 3);
            struct cel_attr *at = &attrs[na];
            memset(at, 0, sizeof(*at));
            at->domain = dom;
            at->id = id;
            switch (eq[1]) {
            case 'i':
                at->type = CEL_ATTR_INT;
                at->i = strtoll(val, NULL, 10);
                na++;
                break;
            case 'b':
                at->type = CEL_ATTR_BOOL;
                at->b = val[0] == 't';
                na++;
                break;
            case 's':
                at->type = CEL_ATTR_STRING;
                at->s = val;
                na++;
                break;
            case 'v':
                at->type = CEL_ATTR_VERSION;
                at->s = val;
                na++;
                break;
            case 'q':
                caps[nc].domain = dom;
                caps[nc].id = id;
                caps[nc].quantity = val;
                nc++;
                break;
            default:
                break;
            }
        }
        if (!nl)
            break;
        n -= ll + 1;
        s = nl + 1;
    }
    dev->attrs = attrs;
    dev->nattrs = na;
    dev->caps = caps;
    dev->ncaps = nc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    struct cel_env env;
    struct cel_program *p = NULL;
    struct cel_error err;
    struct cel_device dev = fixed_dev;
    const struct cel_device *devp = &fixed_dev;
    const char *in = (const char *)data + 1;
    size_t n = size ? size - 1 : 0, elen = n;
    unsigned mode = size ? data[0] : 0;
    char *expr;
    char out[4096];
    int rc;

    if (!size)
        return 0;
    if (!other_prog) {
        static const char other[] =
            "device.driver == \"gpu.example.com\" && "
            "device.attributes[\"gpu.example.com\"].index > 3";
        struct cel_env oenv = { 0, 0, 0, 0, 0 };
        arena_init(&other_arena, ARENA_CHUNK_BYTES);
        if (cel_compile(&other_arena, &oenv, other, sizeof(other) - 1,
                        &other_prog, &err) < 0)
            abort();
    }
    arena_init(&a, ARENA_CHUNK_BYTES);
    if (mode & 16) {
        const char *nul = memchr(in, '\0', n);
        if (nul) {
            elen = (size_t)(nul - in);
            parse_device(&a, nul + 1, n - elen - 1, &dev);
            devp = &dev;
        }
    }
    expr = dup_exact(in, elen);
    memset(&env, 0, sizeof(env));
    env.consumable_capacity = (mode & 2) != 0;
    env.list_attributes = (mode & 4) != 0;
    env.regex_jit = (mode & 8) != 0;
    memset(&err, 0, sizeof(err));
    if (mode & 1) {
        rc = cel_compile_expr(&a, &env, expr, elen, &p, &err);
        if (rc == 0) {
            size_t osz = (mode & 32) ? 8 : sizeof(out);
            if (cel_eval_to_string(p, (mode & 64) ? NULL : devp, out, osz,
                                   &err) == 0 && !memchr(out, '\0', osz))
                __builtin_trap();   /* output is NUL-terminated */
        }
    } else {
        rc = cel_compile(&a, &env, expr, elen, &p, &err);
        if (rc == 0) {
            const struct cel_program *both[2];
            const char *labels[2] = { "class", NULL };
            char why[256];
            size_t which;
            unsigned off;
            int r = cel_eval_device(p, devp, &err);
            if (r < -1 || r > 1)
                __builtin_trap();
            (void)cel_pinned_driver(p);
            cel_foreach_domain(p, on_domain, NULL);
            both[0] = other_prog;
            both[1] = p;
            cel_conj_unsat_labels(both, labels, 2, why, sizeof(why), &which,
                                  &off);
            cel_conj_unsat(both + 1, 1, why, sizeof(why), &which, &off);
        }
    }
    if (rc < 0) {
        if (!err.msg[0] || !memchr(err.msg, '\0', sizeof(err.msg)))
            __builtin_trap();       /* every failure says why */
        if (err.offset > elen)
            __builtin_trap();       /* the offset points into the input */
    }
    if (p)
        cel_program_release(p);
    free(expr);
    arena_release(&a);
    return 0;
}
