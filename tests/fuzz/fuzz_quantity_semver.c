/*
 * fuzz_quantity_semver.c - libFuzzer target: resource.Quantity
 * (validate/quantity.h: parsing, the canonical form, comparison,
 * arithmetic, the integer views) and the semver parser/formatter/comparison
 * of validate/cel/ (internal API, cel_internal.h). Besides crashes it
 * checks round trips: a parsed quantity formats to text that parses back to
 * the same value (where Kubernetes' String() keeps the suffix), and a
 * parsed version formats to a strict semver that compares equal.
 *
 * Input: the bytes up to the first NUL are value A, the rest value B.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/cel/cel_internal.h"
#include "../../validate/quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *dup_exact(const char *s, size_t n)
{
    char *p = malloc(n ? n : 1);
    if (!p)
        abort();
    memcpy(p, s, n);
    return p;
}

static int quantity(const char *s, size_t n, struct quantity *q)
{
    static const struct quantity e21 = {0, 0, 21, QF_DECIMAL_SI, 0};
    char out[128];
    struct quantity back, abs;
    int64_t i64;

    if (quantity_parse(s, n, q) < 0)
        return -1;
    quantity_string(q, out, sizeof(out));
    abs = *q;
    if (quantity_sign(&abs) < 0)
        quantity_neg(&abs);
    /* DecimalSI has no suffix past E (10^18): Kubernetes' String() drops
     * it, so only smaller values round-trip */
    if (q->format != QF_DECIMAL_SI || quantity_cmp(&abs, &e21) < 0) {
        if (quantity_parse(out, strlen(out), &back) < 0)
            __builtin_trap();   /* formatted text parses */
        if (quantity_cmp(q, &back) != 0)
            __builtin_trap();   /* ... back to the same value */
    }
    (void)quantity_approx_float(q);
    (void)quantity_scaled_value(q, -3);
    if (quantity_as_int64(q, &i64)) {
        struct quantity w;
        quantity_from_int(i64, 0, QF_DECIMAL_SI, &w);
        if (quantity_cmp(q, &w) != 0)
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
    struct quantity qa, qb, qr;
    struct cel_semver sa, sb;
    int norm;

    if (quantity(a, na, &qa) == 0 && quantity(b, nb, &qb) == 0) {
        int c = quantity_cmp(&qa, &qb);
        if (c != -quantity_cmp(&qb, &qa))
            __builtin_trap();   /* antisymmetric */
        qr = qa;
        if (quantity_add(&qr, &qb) == 0)
            (void)quantity_cmp(&qr, &qa);
        qr = qa;
        if (quantity_sub(&qr, &qb) == 0
            && (quantity_sign(&qr) > 0) != (c > 0))
            __builtin_trap();   /* a - b > 0 iff a > b */
    }
    for (norm = 0; norm < 2; norm++)
        if (version(a, na, norm, &sa) == 0 && version(b, nb, norm, &sb) == 0) {
            int c = cel_semver_cmp(&sa, &sb);
            if (c != -cel_semver_cmp(&sb, &sa))
                __builtin_trap();
        }
    free(a);
    free(b);
    return 0;
}
