/*
 * test_quantity.c - runs tests/k8s/apimachinery/quantity.yaml (Kubernetes'
 * own resource.Quantity test table, as data) against validate/quantity.c,
 * op by op; then claimcheck's limit (127 bits) and the UnmarshalJSON
 * whitespace. Cases whose op claimcheck has no use for (AsFloat64Slow,
 * CBOR) are counted and named, not run.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/limits.h"
#include "../../validate/load_yaml.h"
#include "../../validate/quantity.h"
#include "../../validate/tree.h"
#include "check.h"

static CHECK_INIT;

#define CASES "tests/k8s/apimachinery/quantity.yaml"

__extension__ typedef __int128 qint;
__extension__ typedef unsigned __int128 quint;

/* ==== operands =========================================================== */

static int format_of(const char *s)
{
    if (!s || !*s)
        return QF_UNSET;
    if (!strcmp(s, "DecimalSI"))
        return QF_DECIMAL_SI;
    if (!strcmp(s, "BinarySI"))
        return QF_BINARY_SI;
    if (!strcmp(s, "DecimalExponent"))
        return QF_DECIMAL_EXPONENT;
    return -1;
}

/* An exact decimal ("-734003.2", "12000...0") as the Go test builds it:
 * dec(i, exponent) has no trailing zeros in i, so they go to the
 * exponent. -1 when it does not fit 127 bits. */
static int from_decimal(const char *s, int format, int dec,
                        struct quantity *q)
{
    quint m = 0, max = ~(quint)0 >> 1;
    qint v;
    char digits[1024];
    size_t nd = 0, i;
    long exp = 0;
    int neg = *s == '-';

    if (*s == '-' || *s == '+')
        s++;
    for (; *s; s++) {
        if (*s == '.') {
            exp = -1;           /* counts fraction digits from here */
            continue;
        }
        if (*s < '0' || *s > '9' || nd == sizeof(digits))
            return -1;
        digits[nd++] = *s;
        if (exp < 0)
            exp--;
    }
    exp = exp < 0 ? exp + 1 : 0;    /* -(fraction digits) */
    while (nd && digits[nd - 1] == '0') {
        nd--;
        exp++;
    }
    for (i = 0; i < nd; i++) {
        if (m > (max - (unsigned)(digits[i] - '0')) / 10)
            return -1;
        m = m * 10 + (unsigned)(digits[i] - '0');
    }
    v = neg ? -(qint)m : (qint)m;
    memset(q, 0, sizeof(*q));
    q->lo = (uint64_t)(quint)v;
    q->hi = (int64_t)(uint64_t)((quint)v >> 64);
    q->exp = m ? (int32_t)exp : 0;
    q->format = (unsigned char)format;
    q->dec = (unsigned char)dec;
    return 0;
}

/* A case's operand: a string is parsed, a mapping built as the Go test
 * builds it. */
static int operand(const struct tnode *n, struct quantity *q)
{
    const char *repr;

    if (tree_is_map(n)) {
        repr = tree_text(tree_get(n, "repr"));
        return from_decimal(tree_text(tree_get(n, "amount")),
                            format_of(tree_text(tree_get(n, "format"))),
                            repr && !strcmp(repr, "inf.Dec"), q);
    }
    if (!tree_text(n))
        return -1;
    return quantity_parse(tree_text(n), strlen(tree_text(n)), q) == 0 ? 0
                                                                       : -1;
}

/* ==== expectations ======================================================= */

struct tcase {
    const char *name;
    const struct tnode *doc, *expect;
};

static long long int_of(const struct tnode *n)
{
    long long v = 0;

    tree_int(n, &v);
    return v;
}

/* Checks expect.amount, .format and .string against q. */
static void check_value(const struct tcase *c, const struct quantity *q)
{
    const struct tnode *amount = tree_get(c->expect, "amount");
    const char *format = tree_text(tree_get(c->expect, "format"));
    const char *string = tree_text(tree_get(c->expect, "string"));
    char got[512];

    quantity_string(q, got, sizeof(got));
    if (amount) {
        struct quantity want;
        CHECK_MSG(from_decimal(tree_text(amount), QF_DECIMAL_SI, 1, &want)
                  == 0 && quantity_cmp(q, &want) == 0,
                  "%s: amount is %s, want %s", c->name, got,
                  tree_text(amount));
    }
    if (format)
        CHECK_MSG(q->format == format_of(format), "%s: format %d, want %s",
                  c->name, q->format, format);
    if (string)
        CHECK_MSG(!strcmp(got, string), "%s: string '%s', want '%s'",
                  c->name, got, string);
}

static int has_operand(const struct tcase *c, const char *key,
                       struct quantity *q)
{
    int ok = operand(tree_get(c->doc, key), q) == 0;

    CHECK_MSG(ok, "%s: operand '%s' not representable", c->name, key);
    return ok;
}

/* ==== the ops ============================================================ */

static void op_parse(const struct tcase *c)
{
    const char *in = tree_text(tree_get(c->doc, "input"));
    struct quantity q;
    int rc = quantity_parse(in, strlen(in), &q);
    int want = tree_true(tree_get(c->expect, "ok"));

    CHECK_MSG((rc == 0) == want, "%s: parse '%s' gives %d", c->name, in, rc);
    if (rc == 0 && want)
        check_value(c, &q);
}

static void op_string(const struct tcase *c)
{
    struct quantity q;

    if (has_operand(c, "quantity", &q))
        check_value(c, &q);
}

static void op_cmp(const struct tcase *c)
{
    struct quantity a, b;
    const struct tnode *rev = tree_get(c->expect, "reverse_cmp");

    if (!has_operand(c, "a", &a) || !has_operand(c, "b", &b))
        return;
    CHECK_MSG(quantity_cmp(&a, &b) == int_of(tree_get(c->expect, "cmp")),
              "%s: cmp %d", c->name, quantity_cmp(&a, &b));
    if (rev)
        CHECK_MSG(quantity_cmp(&b, &a) == int_of(rev), "%s: reverse cmp %d",
                  c->name, quantity_cmp(&b, &a));
}

static void op_addsub(const struct tcase *c, int sub)
{
    struct quantity a, b;

    if (!has_operand(c, "a", &a) || !has_operand(c, "b", &b))
        return;
    CHECK_MSG((sub ? quantity_sub(&a, &b) : quantity_add(&a, &b)) == 0,
              "%s: out of range", c->name);
    check_value(c, &a);
}

static void op_add(const struct tcase *c)
{
    op_addsub(c, 0);
}

static void op_sub(const struct tcase *c)
{
    op_addsub(c, 1);
}

static void op_neg(const struct tcase *c)
{
    struct quantity q;

    if (!has_operand(c, "quantity", &q))
        return;
    quantity_neg(&q);
    check_value(c, &q);
}

static void op_mul(const struct tcase *c)
{
    struct quantity q;
    int ok;

    if (!has_operand(c, "a", &q))
        return;
    ok = quantity_mul(&q, int_of(tree_get(c->doc, "by")));
    CHECK_MSG(ok == tree_true(tree_get(c->expect, "ok")), "%s: ok %d",
              c->name, ok);
    check_value(c, &q);
}

static void op_round_up(const struct tcase *c)
{
    struct quantity q;
    int exact;

    if (!has_operand(c, "input", &q))
        return;
    exact = quantity_round_up(&q, (int32_t)int_of(tree_get(c->doc,
                                                           "scale")));
    CHECK_MSG(exact == tree_true(tree_get(c->expect, "exact")),
              "%s: exact %d", c->name, exact);
    check_value(c, &q);
}

static void op_scaled(const struct tcase *c, int32_t scale)
{
    struct quantity q;
    const char *key = tree_get(c->doc, "input") ? "input" : "quantity";
    long long v;

    if (!has_operand(c, key, &q))
        return;
    if (tree_get(c->doc, "scale"))
        scale = (int32_t)int_of(tree_get(c->doc, "scale"));
    v = quantity_scaled_value(&q, scale);
    CHECK_MSG(v == int_of(tree_get(c->expect, "value")), "%s: value %lld",
              c->name, v);
    if (tree_get(c->expect, "format"))
        check_value(c, &q);
}

static void op_value(const struct tcase *c)
{
    op_scaled(c, 0);
}

static void op_milli(const struct tcase *c)
{
    op_scaled(c, -3);
}

/* NewQuantity / NewMilliQuantity / NewScaledQuantity, Set / SetMilli /
 * SetScaled on NewQuantity(0, format) */
static void op_new(const struct tcase *c, int32_t scale)
{
    struct quantity q;
    const char *f = tree_text(tree_get(c->doc, "format"));

    if (tree_get(c->doc, "scale"))
        scale = (int32_t)int_of(tree_get(c->doc, "scale"));
    quantity_from_int(int_of(tree_get(c->doc, "value")), scale,
                      f ? format_of(f) : QF_DECIMAL_SI, &q);
    check_value(c, &q);
}

static void op_new0(const struct tcase *c)
{
    op_new(c, 0);
}

static void op_new_milli(const struct tcase *c)
{
    op_new(c, -3);
}

static void op_float(const struct tcase *c)
{
    struct quantity q;
    const char *key = tree_get(c->doc, "input") ? "input" : "quantity";
    const struct tnode *want = tree_get(c->expect, "float");
    double got, w = 0;

    if (!has_operand(c, key, &q))
        return;
    got = quantity_approx_float(&q);
    if (want && want->kind == T_FLOAT)
        w = want->fval;
    else if (want && want->kind == T_INT)
        w = (double)want->ival;
    else if (want && want->kind == T_STR)   /* "+Inf", "-Inf" */
        w = strtod(tree_text(want), NULL);
    CHECK_MSG(got == w || (isinf(got) && isinf(w) && (got > 0) == (w > 0)),
              "%s: %.17g, want %.17g", c->name, got, w);
}

static void op_unmarshal(const struct tcase *c)
{
    const char *j = tree_text(tree_get(c->doc, "json"));
    struct quantity q;
    int rc = quantity_unmarshal(j, strlen(j), &q);

    CHECK_MSG((rc == 0) == tree_true(tree_get(c->expect, "ok")),
              "%s: unmarshal %s gives %d", c->name, j, rc);
    if (rc == 0)
        check_value(c, &q);
}

static void op_marshal(const struct tcase *c)
{
    struct quantity q;
    char s[128], j[132];

    if (!has_operand(c, "input", &q))
        return;
    quantity_string(&q, s, sizeof(s));
    snprintf(j, sizeof(j), "\"%s\"", s);    /* MarshalJSON: String(), quoted */
    CHECK_MSG(!strcmp(j, tree_text(tree_get(c->expect, "json"))),
              "%s: %s", c->name, j);
}

static const struct {
    const char *op;
    void (*run)(const struct tcase *c);
} ops[] = {
    {"parse", op_parse}, {"string", op_string}, {"cmp", op_cmp},
    {"add", op_add}, {"sub", op_sub}, {"neg", op_neg}, {"mul", op_mul},
    {"roundUp", op_round_up}, {"value", op_value},
    {"milliValue", op_milli}, {"scaledValue", op_value},
    {"newQuantity", op_new0}, {"newMilliQuantity", op_new_milli},
    {"newScaledQuantity", op_new0}, {"set", op_new0},
    {"setMilli", op_new_milli}, {"setScaled", op_new0},
    {"asApproximateFloat64", op_float}, {"unmarshalJSON", op_unmarshal},
    {"marshalJSON", op_marshal},
};

/* ops with no counterpart in claimcheck, and why */
static const struct {
    const char *op, *why;
} not_here[] = {
    {"asFloat64Slow", "nothing in claimcheck converts a quantity to a float "
                      "but CEL's asApproximateFloat (AsApproximateFloat64)"},
    {"unmarshalCBOR", "claimcheck reads no CBOR"},
    {"none", "a test with no fixed cases (see its skip:)"},
};

static void run_cases(const char *path)
{
    size_t nskip[sizeof(not_here) / sizeof(not_here[0])] = {0};
    struct arena a;
    struct ydocs docs;
    size_t len, i, k, ran = 0;
    char *text = check_read_file(path, &len);

    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text)
        return;
    arena_init(&a, ARENA_RUN_BYTES);
    load_yaml(&a, text, len, &docs);
    for (i = 1; i < docs.n; i++) {
        struct tcase c;
        const char *op;
        c.doc = docs.v[i].root;
        c.name = tree_text(tree_get(c.doc, "case"));
        c.expect = tree_get(c.doc, "expect");
        op = tree_text(tree_get(c.doc, "op"));
        CHECK_MSG(c.name && op, "%s: document %zu is no case", path, i);
        if (!c.name || !op)
            continue;
        for (k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
            if (!strcmp(op, ops[k].op)) {
                ops[k].run(&c);
                ran++;
                break;
            }
        if (k < sizeof(ops) / sizeof(ops[0]))
            continue;
        for (k = 0; k < sizeof(not_here) / sizeof(not_here[0]); k++)
            if (!strcmp(op, not_here[k].op))
                nskip[k]++;
        CHECK_MSG(k <= sizeof(not_here) / sizeof(not_here[0]),
                  "%s: unknown op '%s'", c.name, op);
    }
    CHECK_MSG(ran >= 650, "only %zu cases ran", ran);
    printf("%zu Kubernetes cases run\n", ran);
    for (k = 0; k < sizeof(not_here) / sizeof(not_here[0]); k++)
        printf("%zu '%s' cases not run: %s\n", nskip[k], not_here[k].op,
               not_here[k].why);
    arena_release(&a);
    free(text);
}

/* ==== claimcheck's additions ============================================= */

static void test_limits(void)
{
    struct quantity q, one;
    char s[64];

    /* 2^63 and more, exact */
    CHECK(quantity_parse("18446744073709551616", 20, &q) == 0);
    quantity_string(&q, s, sizeof(s));
    CHECK_STR(s, "18446744073709551616");
    /* past 127 bits at nano scale: kept at its own scale, exact */
    CHECK(quantity_parse("1000000000000000000000000000000", 31, &q) == 0);
    CHECK(quantity_parse("1e30", 4, &one) == 0 && quantity_cmp(&q, &one) == 0);
    quantity_string(&q, s, sizeof(s));
    CHECK_STR(s, "1");      /* Kubernetes has no suffix for 10^30: dropped */
    /* more than 38 significant digits: valid for Kubernetes, not
     * representable here - an error, never an approximation */
    CHECK(quantity_parse("1234567890123456789012345678901234567891", 40, &q)
          == QE_RANGE);
    /* BinarySI is capped whatever the size */
    CHECK(quantity_parse("999999999999999999999999Ei", 26, &q) == 0);
    quantity_string(&q, s, sizeof(s));
    CHECK_STR(s, "9223372036854775807");
    /* trailing zeros do not hide a value past the cap (found by the
     * fuzzer: 78.00Ei was left at 78 * 2^60) */
    CHECK(quantity_parse("78.00Ei", 7, &one) == 0
          && quantity_cmp(&q, &one) == 0);
    CHECK(quantity_parse("7800Ei", 6, &one) == 0
          && quantity_cmp(&q, &one) == 0);
    CHECK(quantity_parse("7.50Ki", 6, &one) == 0);
    quantity_string(&one, s, sizeof(s));
    CHECK_STR(s, "7680");
    quantity_parse("1", 1, &one);
    /* the sum of the cap and 1 stays exact */
    CHECK(quantity_add(&q, &one) == 0 && quantity_as_int64(&q, &(int64_t){0})
          == 0);
    /* YAML `memory: " 1Gi"` reaches Kubernetes as JSON: trimmed */
    CHECK(quantity_unmarshal(" 1Gi\t", 5, &q) == 0);
    CHECK(quantity_parse(" 1Gi", 4, &q) == QE_FORMAT);
    CHECK(quantity_parse("1Gb", 3, &q) == QE_FORMAT);
    CHECK(quantity_parse("10Mm", 4, &q) == QE_SUFFIX);
    CHECK(quantity_parse(".e-20", 5, &q) == QE_NUMERIC);
    CHECK(!strcmp(quantity_error(QE_SUFFIX),
                  "unable to parse quantity's suffix"));
}

int main(int argc, char **argv)
{
    run_cases(argc > 1 ? argv[1] : CASES);
    test_limits();
    return CHECK_DONE();
}
