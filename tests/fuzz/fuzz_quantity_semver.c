/*
 * fuzz_quantity_semver.c - libFuzzer target: the exact resource.Quantity
 * parser/formatter/arithmetic and the semver parser/formatter/comparison of
 * validate/cel/ (internal API, cel_internal.h), plus the inventory's
 * qty_parse(). Besides crashes it checks round trips: a parsed quantity
 * formats to text that parses back to the same value, and a parsed version
 * formats to a strict semver that compares equal.
 *
 * Input: the bytes up to the first NUL are value A, the rest value B.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/cel/cel_internal.h"
#include "../../validate/inventory.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dup_exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (!p)
        abort();
    memcpy(p, s, n);
    return p;
}

static int quantity(const char *s, size_t n, struct cel_value *v)
{
    char out[128];
    struct cel_value back;
    int64_t i64;

    memset(v, 0, sizeof(*v));
    v->kind = CEL_V_QUANTITY;
    if (cel_quantity_parse(s, n, &v->v.q.lo, &v->v.q.hi) < 0)
        return -1;
    cel_quantity_format(v, out, sizeof(out));
    memset(&back, 0, sizeof(back));
    back.kind = CEL_V_QUANTITY;
    if (cel_quantity_parse(out, strlen(out), &back.v.q.lo, &back.v.q.hi) < 0)
        __builtin_trap();       /* formatted text parses */
    if (cel_quantity_cmp(v, &back) != 0)
        __builtin_trap();       /* ... back to the same value */
    (void)cel_quantity_sign(v);
    (void)cel_quantity_approx(v);
    if (cel_quantity_as_int(v, &i64) == 0) {
        struct cel_value w;
        cel_quantity_from_int(i64, &w);
        if (cel_quantity_cmp(v, &w) != 0)
            __builtin_trap();
    }
    return 0;
}

static int version(const char *s, size_t n, int normalize,
                   struct cel_semver *sv)
{
    char out[256];
    struct cel_semver back;

    if (cel_semver_parse(s, n, normalize, sv) < 0)
        return -1;
    cel_semver_format(sv, out, sizeof(out));
    if (strlen(out) < sizeof(out) - 1) {
        if (cel_semver_parse(out, strlen(out), 0, &back) < 0)
            __builtin_trap();   /* formatted text is strict semver */
        if (cel_semver_cmp(sv, &back) != 0)
            __builtin_trap();
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = (const char *)data;
    const char *nul = memchr(in, '\0', size);
    size_t na = nul ? (size_t)(nul - in) : size;
    size_t nb = nul ? size - na - 1 : 0;
    char *a = dup_exact(in, na);
    char *b = dup_exact(nul ? nul + 1 : "", nb);
    struct cel_value qa, qb, qr;
    struct cel_semver sa, sb;
    struct qty q;
    char *az;
    int norm;

    if (quantity(a, na, &qa) == 0 && quantity(b, nb, &qb) == 0) {
        int c = cel_quantity_cmp(&qa, &qb);
        if (c != -cel_quantity_cmp(&qb, &qa))
            __builtin_trap();   /* antisymmetric */
        if (cel_quantity_add(&qa, &qb, 0, &qr) == 0)
            (void)cel_quantity_cmp(&qr, &qa);
        if (cel_quantity_add(&qa, &qb, 1, &qr) == 0
            && (cel_quantity_sign(&qr) > 0) != (c > 0))
            __builtin_trap();   /* a - b > 0 iff a > b */
    }
    for (norm = 0; norm < 2; norm++)
        if (version(a, na, norm, &sa) == 0 && version(b, nb, norm, &sb) == 0) {
            int c = cel_semver_cmp(&sa, &sb);
            if (c != -cel_semver_cmp(&sb, &sa))
                __builtin_trap();
        }
    /* qty_parse() takes a C string: the part before the NUL */
    az = malloc(na + 1);
    if (!az)
        abort();
    memcpy(az, in, na);
    az[na] = '\0';
    if (qty_parse(az, &q) == 0)
        (void)qty_cmp(q, qty_add(q, q));
    free(az);
    free(a);
    free(b);
    return 0;
}
