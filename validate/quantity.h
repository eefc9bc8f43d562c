/*
 * quantity.h - resource.Quantity as Kubernetes has it (apimachinery
 * pkg/api/resource, v0.36.0): the one implementation in claimcheck, used
 * for device capacity and shared counters, capacity requests and request
 * policies, extended-resource requests, and by the CEL quantity library.
 * tests/k8s/apimachinery/quantity.yaml holds Kubernetes' test table as
 * data and QUANTITY.md the rules; test_quantity runs the table.
 *
 * A value is exact: a signed 128-bit mantissa times 10^exp, never a
 * float. Parsing follows ParseQuantity step by step: its scanner and
 * suffixes, values finer than 1n rounded away from zero, BinarySI capped at
 * 2^63-1, and which of its two representations Kubernetes would keep
 * (int64Amount or inf.Dec: `dec`), because a few answers depend on it
 * (AsInt64 - CEL's isInteger() -, Value() of negative fractions, the float
 * approximation). The Format remembered from the suffix decides the
 * canonical String().
 *
 * Limits: Kubernetes' inf.Dec is unbounded; here a mantissa must fit 127
 * bits (38 significant digits, any exponent), and arithmetic whose exact
 * result does not fit returns QE_RANGE. Nothing is approximated. Where
 * Kubernetes would hold a value at nano scale with more than 127 bits, it
 * is held at its own scale: the value is the same, only the float
 * approximation and Go's int64 wrap-arounds of such values can differ.
 */
#ifndef CLAIMCHECK_QUANTITY_H
#define CLAIMCHECK_QUANTITY_H

#include <stddef.h>
#include <stdint.h>

enum quantity_format {
    QF_DECIMAL_SI,              /* "", n u m k M G T P E */
    QF_BINARY_SI,               /* Ki Mi Gi Ti Pi Ei */
    QF_DECIMAL_EXPONENT,        /* e<n>, E<n> */
    QF_UNSET                    /* a zero Quantity{}: prints as
                                   DecimalExponent */
};

enum quantity_err {
    QE_OK = 0,
    QE_FORMAT = -1,             /* ErrFormatWrong */
    QE_NUMERIC = -2,            /* ErrNumeric */
    QE_SUFFIX = -3,             /* ErrSuffix */
    QE_RANGE = -4               /* valid, but beyond claimcheck's 127 bits */
};

struct quantity {               /* a value type; the zero value is 0 */
    uint64_t lo;                /* mantissa: signed 128 bits (two's
                                   complement), low half */
    int64_t hi;                 /* ... high half */
    int32_t exp;                /* value = mantissa * 10^exp */
    unsigned char format;       /* enum quantity_format */
    unsigned char dec;          /* 1: Kubernetes would hold an inf.Dec */
};

/* ParseQuantity: s[0..n). Returns QE_OK, or a negative enum quantity_err
 * (q is then zero). */
int quantity_parse(const char *s, size_t n, struct quantity *q);
/* A quantity as JSON (or YAML turned into JSON) carries it: `null` is
 * zero, one pair of surrounding quotes goes, then Go's strings.TrimSpace,
 * then quantity_parse (UnmarshalJSON). */
int quantity_unmarshal(const char *s, size_t n, struct quantity *q);
/* The same for a NUL-terminated text, as a tree scalar gives it (NULL:
 * no value, QE_FORMAT). */
int quantity_from_text(const char *text, struct quantity *q);
/* The error's text, as Kubernetes words it. */
const char *quantity_error(int err);

/* Canonical String() into out (NUL-terminated, truncated to outsz); the
 * returned length is the full one, as snprintf's. */
size_t quantity_string(const struct quantity *q, char *out, size_t outsz);

int quantity_cmp(const struct quantity *a, const struct quantity *b);
int quantity_sign(const struct quantity *q);        /* -1, 0, 1 */

/* q += y, q -= y, q = -q, with Go's rules for the representation and for
 * the Format (a zero q takes y's). QE_RANGE when the exact result does not
 * fit (q is then unchanged). */
int quantity_add(struct quantity *q, const struct quantity *y);
int quantity_sub(struct quantity *q, const struct quantity *y);
void quantity_neg(struct quantity *q);
/* q *= y. Returns 1 when Go's Mul reports an exact int64 result, 0 when
 * not (the value is exact all the same), QE_RANGE when it does not fit. */
int quantity_mul(struct quantity *q, int64_t y);
/* RoundUp(scale): to a multiple of 10^scale, away from zero. Returns 1
 * when nothing was lost, 0 when it was, QE_RANGE. */
int quantity_round_up(struct quantity *q, int32_t scale);

/* Kubernetes' test for whole numbers of an integer resource (extended
 * resources): MilliValue() % 1000 == 0. */
int quantity_is_whole(const struct quantity *q);
/* AsInt64: 1 and *out when Kubernetes has a fast exact int64 for q (the
 * int64 representation at a scale >= 0), else 0. */
int quantity_as_int64(const struct quantity *q, int64_t *out);
/* ScaledValue(scale): ceil(q / 10^scale) as Kubernetes computes it (with
 * its wrap-arounds past int64). Value() is scale 0, MilliValue() -3. */
int64_t quantity_scaled_value(const struct quantity *q, int32_t scale);
/* AsApproximateFloat64: the mantissa as a float times Go's Pow10(exp). */
double quantity_approx_float(const struct quantity *q);

/* NewScaledQuantity(value, scale) with a Format: the int64 form. */
void quantity_from_int(int64_t value, int32_t scale, enum quantity_format f,
                       struct quantity *q);

#endif
