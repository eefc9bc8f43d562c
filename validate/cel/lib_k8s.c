/*
 * lib_k8s.c - the Kubernetes CEL libraries the DRA environment has beyond
 * cel-go: Quantity (quantity, isQuantity, compareTo, isGreaterThan,
 * isLessThan, add, sub, sign, isInteger, asInteger, asApproximateFloat),
 * Semver (semver, isSemver, major, minor, patch, compareTo, isGreaterThan,
 * isLessThan), Regex (find, findAll) and DRA's includes(). The arithmetic
 * itself lives in quantity.c / semver.c / regex.c.
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>


/* ================= quantity ================= */

F(f_quantity)
{
    struct quantity q;
    int r;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    r = quantity_parse(a[0].v.s.p, a[0].v.s.n, &q);
    if (r == QE_RANGE)      /* valid, but past claimcheck's 127 bits */
        return cel_verr(ev, "'%.*s': %s", (int)a[0].v.s.n,
                        a[0].v.s.p, quantity_error(r));
    if (r < 0)              /* resource.ParseQuantity's own words */
        return cel_verr(ev, "%s", quantity_error(r));
    return cel_vquantity(&q);
}

F(f_is_quantity)
{
    struct quantity q;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    return cel_vbool(quantity_parse(a[0].v.s.p, a[0].v.s.n, &q) == 0);
}

static int two_q(const struct cel_value *a)
{
    return a[0].kind == CEL_V_QUANTITY && a[1].kind == CEL_V_QUANTITY;
}

F(f_q_compare)
{
    (void)na;
    if (!two_q(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vint(cel_quantity_cmp(&a[0], &a[1]));
}

F(f_q_gt)
{
    (void)na;
    if (!two_q(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vbool(cel_quantity_cmp(&a[0], &a[1]) > 0);
}

F(f_q_lt)
{
    (void)na;
    if (!two_q(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vbool(cel_quantity_cmp(&a[0], &a[1]) < 0);
}

/* add / sub: a quantity, or an int as NewQuantity(i, DecimalExponent) */
static struct cel_value q_addsub(struct cel_eval *ev, const struct cel_node *n,
                                 const struct cel_value *a, int sub)
{
    struct quantity x, y;
    int r;

    if (a[0].kind != CEL_V_QUANTITY)
        return cel_no_overload(ev, n, a, 2);
    if (a[1].kind == CEL_V_INT)
        quantity_from_int(a[1].v.i, 0, QF_DECIMAL_EXPONENT, &y);
    else if (a[1].kind == CEL_V_QUANTITY)
        cel_quantity_get(&a[1], &y);
    else
        return cel_no_overload(ev, n, a, 2);
    cel_quantity_get(&a[0], &x);
    r = sub ? quantity_sub(&x, &y) : quantity_add(&x, &y);
    if (r < 0)
        return cel_verr(ev, "%s", quantity_error(r));
    return cel_vquantity(&x);
}

F(f_q_add)
{
    (void)na;
    return q_addsub(ev, n, a, 0);
}

F(f_q_sub)
{
    (void)na;
    return q_addsub(ev, n, a, 1);
}

F(f_q_sign)
{
    struct quantity q;

    (void)na;
    if (a[0].kind != CEL_V_QUANTITY)
        return cel_no_overload(ev, n, a, 1);
    cel_quantity_get(&a[0], &q);
    return cel_vint(quantity_sign(&q));
}

/* isInteger / asInteger: Kubernetes' AsInt64 (exact and fast only) */
F(f_q_is_int)
{
    struct quantity q;
    int64_t i;

    (void)na;
    if (a[0].kind != CEL_V_QUANTITY)
        return cel_no_overload(ev, n, a, 1);
    cel_quantity_get(&a[0], &q);
    return cel_vbool(quantity_as_int64(&q, &i));
}

F(f_q_as_int)
{
    struct quantity q;
    int64_t i;

    (void)na;
    if (a[0].kind != CEL_V_QUANTITY)
        return cel_no_overload(ev, n, a, 1);
    cel_quantity_get(&a[0], &q);
    if (!quantity_as_int64(&q, &i))
        return cel_verr(ev, "cannot convert value to integer");
    return cel_vint(i);
}

F(f_q_float)
{
    struct quantity q;

    (void)na;
    if (a[0].kind != CEL_V_QUANTITY)
        return cel_no_overload(ev, n, a, 1);
    cel_quantity_get(&a[0], &q);
    return cel_vdouble(quantity_approx_float(&q));
}

/* ================= semver ================= */

F(f_semver)
{
    struct cel_semver *sv;
    struct cel_value v;
    int norm = 0;

    if (a[0].kind != CEL_V_STRING || (na == 2 && a[1].kind != CEL_V_BOOL))
        return cel_no_overload(ev, n, a, na);
    if (na == 2)
        norm = a[1].v.b;
    sv = (struct cel_semver *)cel_ev_alloc(ev, sizeof(*sv));
    if (cel_semver_parse(a[0].v.s.p, a[0].v.s.n, norm, sv) < 0)
        return cel_verr(ev, "could not parse semver '%.*s'",
                        (int)a[0].v.s.n, a[0].v.s.p);
    memset(&v, 0, sizeof(v));
    v.kind = CEL_V_SEMVER;
    v.v.sv = sv;
    return v;
}

F(f_is_semver)
{
    struct cel_semver sv;
    int norm = 0;

    if (a[0].kind != CEL_V_STRING || (na == 2 && a[1].kind != CEL_V_BOOL))
        return cel_no_overload(ev, n, a, na);
    if (na == 2)
        norm = a[1].v.b;
    return cel_vbool(cel_semver_parse(a[0].v.s.p, a[0].v.s.n, norm, &sv) ==
                     0);
}

static int two_v(const struct cel_value *a)
{
    return a[0].kind == CEL_V_SEMVER && a[1].kind == CEL_V_SEMVER;
}

F(f_v_compare)
{
    (void)na;
    if (!two_v(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vint(cel_semver_cmp(a[0].v.sv, a[1].v.sv));
}

F(f_v_gt)
{
    (void)na;
    if (!two_v(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vbool(cel_semver_cmp(a[0].v.sv, a[1].v.sv) > 0);
}

F(f_v_lt)
{
    (void)na;
    if (!two_v(a))
        return cel_no_overload(ev, n, a, 2);
    return cel_vbool(cel_semver_cmp(a[0].v.sv, a[1].v.sv) < 0);
}

F(f_v_major)
{
    (void)na;
    if (a[0].kind != CEL_V_SEMVER)
        return cel_no_overload(ev, n, a, 1);
    return cel_vint((int64_t)a[0].v.sv->major);
}

F(f_v_minor)
{
    (void)na;
    if (a[0].kind != CEL_V_SEMVER)
        return cel_no_overload(ev, n, a, 1);
    return cel_vint((int64_t)a[0].v.sv->minor);
}

F(f_v_patch)
{
    (void)na;
    if (a[0].kind != CEL_V_SEMVER)
        return cel_no_overload(ev, n, a, 1);
    return cel_vint((int64_t)a[0].v.sv->patch);
}

/* compareTo/isGreaterThan/isLessThan exist for both quantities and semvers */
F(f_compare)
{
    return a[0].kind == CEL_V_SEMVER ? f_v_compare(ev, n, a, na)
                                     : f_q_compare(ev, n, a, na);
}

F(f_gt)
{
    return a[0].kind == CEL_V_SEMVER ? f_v_gt(ev, n, a, na)
                                     : f_q_gt(ev, n, a, na);
}

F(f_lt)
{
    return a[0].kind == CEL_V_SEMVER ? f_v_lt(ev, n, a, na)
                                     : f_q_lt(ev, n, a, na);
}

/* ================= regex find ================= */

static struct cel_value regex_for(struct cel_eval *ev,
                                  const struct cel_node *n,
                                  const struct cel_value *a,
                                  struct cel_regex **tmp,
                                  const struct cel_regex **re)
{
    char msg[256];

    *tmp = NULL;
    *re = n->aux;
    if (!*re) {
        *tmp = cel_regex_compile(NULL, a[1].v.s.p, a[1].v.s.n, 0, msg);
        if (!*tmp)
            return cel_verr(ev, "%s", msg);
        *re = *tmp;
    }
    return cel_vnull();
}

F(f_find)
{
    struct cel_regex *tmp;
    const struct cel_regex *re;
    struct cel_value r;
    size_t so, eo;
    char msg[256];
    int rc;

    (void)na;
    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 2);
    r = regex_for(ev, n, a, &tmp, &re);
    if (r.kind == CEL_V_ERROR)
        return r;
    rc = cel_regex_search(re, a[0].v.s.p, a[0].v.s.n, 0, &so, &eo, msg);
    cel_regex_free(tmp);
    if (rc < 0)
        return cel_verr(ev, "%s", msg);
    if (rc == 0)
        return cel_vstr("", 0);
    return cel_vstr(a[0].v.s.p + so, eo - so);
}

F(f_find_all)
{
    struct cel_regex *tmp;
    const struct cel_regex *re;
    struct cel_value r, *items;
    size_t so, eo, pos = 0, k = 0, cap;
    int64_t limit = -1;
    char msg[256];
    int rc;

    if (a[0].kind != CEL_V_STRING || a[1].kind != CEL_V_STRING ||
        (na == 3 && a[2].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    if (na == 3)
        limit = a[2].v.i;
    r = regex_for(ev, n, a, &tmp, &re);
    if (r.kind == CEL_V_ERROR)
        return r;
    cap = a[0].v.s.n + 1;
    items = (struct cel_value *)cel_ev_alloc(ev, cap * sizeof(*items));
    while (pos <= a[0].v.s.n && (limit < 0 || (int64_t)k < limit)) {
        rc = cel_regex_search(re, a[0].v.s.p, a[0].v.s.n, pos, &so, &eo, msg);
        if (rc < 0) {
            cel_regex_free(tmp);
            return cel_verr(ev, "%s", msg);
        }
        if (rc == 0)
            break;
        items[k++] = cel_vstr(a[0].v.s.p + so, eo - so);
        pos = eo > so ? eo : eo + 1;
    }
    cel_regex_free(tmp);
    return cel_vlist(ev, items, k);
}

/* ================= DRA includes() ================= */

/* compile.go's includesFunc: list membership, scanning at most 48
 * values (ResourceSliceMaxAttributeValuesPerDevice), else equality */
F(f_includes)
{
    size_t i;

    (void)na;
    (void)n;
    if (a[0].kind == CEL_V_LIST) {
        for (i = 0; i < a[0].v.l->n; i++) {
            if (i >= CEL_INCLUDES_MAX)
                return cel_verr(ev, "'includes' function cannot be applied "
                                "to lists longer than %d values",
                                CEL_INCLUDES_MAX);
            if (cel_value_equal(&a[0].v.l->v[i], &a[1]) == 1)
                return cel_vbool(1);
        }
        return cel_vbool(0);
    }
    return cel_vbool(cel_value_equal(&a[0], &a[1]) == 1);
}

const struct cel_func cel_lib_k8s[] = {
    { "quantity",
      "string_to_quantity:(string)->quantity",
      0, f_quantity },
    { "isQuantity",
      "is_quantity_string:(string)->bool",
      0, f_is_quantity },
    { "sign",
      "quantity_sign:(quantity)->int",
      0, f_q_sign },
    { "compareTo",
      "quantity_compare_to:quantity.(quantity)->int "
      "semver_compare_to:semver.(semver)->int",
      0, f_compare },
    { "isGreaterThan",
      "quantity_is_greater_than:quantity.(quantity)->bool "
      "semver_is_greater_than:semver.(semver)->bool",
      0, f_gt },
    { "isLessThan",
      "quantity_is_less_than:quantity.(quantity)->bool "
      "semver_is_less_than:semver.(semver)->bool",
      0, f_lt },
    { "add",
      "quantity_add:quantity.(quantity)->quantity "
      "quantity_add_int:quantity.(int)->quantity",
      0, f_q_add },
    { "sub",
      "quantity_sub:quantity.(quantity)->quantity "
      "quantity_sub_int:quantity.(int)->quantity",
      0, f_q_sub },
    { "isInteger",
      "quantity_is_integer:quantity.()->bool",
      0, f_q_is_int },
    { "asInteger",
      "quantity_get_int:quantity.()->int",
      0, f_q_as_int },
    { "asApproximateFloat",
      "quantity_get_float:quantity.()->double",
      0, f_q_float },
    { "semver",
      "string_to_semver:(string)->semver "
      "string_bool_to_semver:(string,bool)->semver",
      31, f_semver },
    { "isSemver",
      "is_semver_string:(string)->bool "
      "is_semver_string_bool:(string,bool)->bool",
      31, f_is_semver },
    { "major",
      "semver_major:semver.()->int",
      31, f_v_major },
    { "minor",
      "semver_minor:semver.()->int",
      31, f_v_minor },
    { "patch",
      "semver_patch:semver.()->int",
      31, f_v_patch },
    { "find",
      "string_find_string:string.(string)->string",
      0, f_find },
    { "findAll",
      "string_find_all_string:string.(string)->list(string) "
      "string_find_all_string_int:string.(string,int)->list(string)",
      0, f_find_all },
    { "includes",
      "dra_includes_dyn_dyn:dyn.(dyn)->bool",
      36, f_includes },
};
const size_t cel_lib_k8s_n = sizeof(cel_lib_k8s) / sizeof(cel_lib_k8s[0]);
