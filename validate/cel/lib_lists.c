/*
 * lib_lists.c - list functions: the Kubernetes lists library (isSorted, sum,
 * min, max, indexOf, lastIndexOf), cel-go's ext lists (slice, flatten,
 * distinct, reverse, sort, lists.range) and ext sets (sets.contains,
 * sets.equivalent, sets.intersects). indexOf/lastIndexOf/reverse share
 * their names with string functions and dispatch on the receiver.
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

struct cel_value cel_list_index_of(struct cel_eval *ev,
                                   const struct cel_node *n,
                                   const struct cel_value *a, unsigned na,
                                   int last)
{
    const struct cel_list *l;
    size_t i;

    if (a[0].kind != CEL_V_LIST || na != 2)
        return cel_no_overload(ev, n, a, na);
    l = a[0].v.l;
    if (cel_work_guard(ev, l->n) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    for (i = 0; i < l->n; i++) {
        size_t k = last ? l->n - 1 - i : i;
        if (cel_value_equal(&l->v[k], &a[1]) == 1)
            return cel_vint((int64_t)k);
    }
    return cel_vint(-1);
}

static int cmp_ok(struct cel_eval *ev, const struct cel_value *x,
                  const struct cel_value *y, int *out, struct cel_value *err)
{
    int c = cel_value_compare(x, y);

    if (c == 2) {
        if (x->kind == CEL_V_QUANTITY && y->kind == CEL_V_QUANTITY)
            c = cel_quantity_cmp(x, y);
        else if (x->kind == CEL_V_SEMVER && y->kind == CEL_V_SEMVER)
            c = cel_semver_cmp(x->v.sv, y->v.sv);
        else {
            *err = cel_verr(ev, "no such overload: %s < %s",
                            cel_type_name(cel_value_type(x)),
                            cel_type_name(cel_value_type(y)));
            return -1;
        }
    }
    *out = c == 3 ? 0 : c;
    return 0;
}

F(f_is_sorted)
{
    const struct cel_list *l;
    struct cel_value err;
    size_t i;
    int c;

    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    for (i = 1; i < l->n; i++) {
        if (cmp_ok(ev, &l->v[i - 1], &l->v[i], &c, &err) < 0)
            return err;
        if (c > 0)
            return cel_vbool(0);
    }
    return cel_vbool(1);
}

F(f_sum)
{
    const struct cel_list *l;
    struct cel_value acc = cel_vint(0);
    size_t i;

    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    for (i = 0; i < l->n; i++) {
        const struct cel_value *v = &l->v[i];
        if (i == 0) {
            /* summable types: int, uint, double, duration */
            if (v->kind != CEL_V_INT && v->kind != CEL_V_UINT &&
                v->kind != CEL_V_DOUBLE && v->kind != CEL_V_DURATION)
                return cel_no_overload(ev, n, a, 1);
            acc = *v;
            continue;
        }
        if (v->kind != acc.kind)
            return cel_verr(ev, "no such overload: sum of mixed types");
        if (v->kind == CEL_V_INT) {
            if (__builtin_add_overflow(acc.v.i, v->v.i, &acc.v.i))
                return cel_verr(ev, "integer overflow");
        } else if (v->kind == CEL_V_UINT) {
            if (__builtin_add_overflow(acc.v.u, v->v.u, &acc.v.u))
                return cel_verr(ev, "unsigned integer overflow");
        } else if (v->kind == CEL_V_DOUBLE) {
            acc.v.d += v->v.d;
        } else {
            struct cel_value r;
            int64_t sec;
            if (__builtin_add_overflow(acc.v.t.sec, v->v.t.sec, &sec) ||
                cel_time_make(CEL_V_DURATION, sec,
                              (int64_t)acc.v.t.nsec + v->v.t.nsec, &r) < 0)
                return cel_verr(ev, "duration out of range");
            acc = r;
        }
    }
    return acc;
}

static struct cel_value minmax(struct cel_eval *ev, const struct cel_node *n,
                               const struct cel_value *a, int want)
{
    const struct cel_list *l;
    struct cel_value err;
    size_t i, best = 0;
    int c;

    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    if (l->n == 0)
        return cel_verr(ev, "%s called on empty list",
                        want < 0 ? "min" : "max");
    for (i = 1; i < l->n; i++) {
        if (cmp_ok(ev, &l->v[i], &l->v[best], &c, &err) < 0)
            return err;
        if (c == want)
            best = i;
    }
    return l->v[best];
}

F(f_min)
{
    (void)na;
    return minmax(ev, n, a, -1);
}

F(f_max)
{
    (void)na;
    return minmax(ev, n, a, 1);
}

F(f_slice)
{
    const struct cel_list *l;
    int64_t s, e;

    (void)na;
    if (a[0].kind != CEL_V_LIST || a[1].kind != CEL_V_INT ||
        a[2].kind != CEL_V_INT)
        return cel_no_overload(ev, n, a, 3);
    l = a[0].v.l;
    s = a[1].v.i;
    e = a[2].v.i;
    if (s < 0 || e < 0)
        return cel_verr(ev, "cannot slice(%lld, %lld), negative indexes not "
                        "supported", (long long)s, (long long)e);
    if (s > e)
        return cel_verr(ev, "cannot slice(%lld, %lld), start index must be "
                        "less than or equal to end index", (long long)s,
                        (long long)e);
    if ((uint64_t)e > l->n)
        return cel_verr(ev, "cannot slice(%lld, %lld), list is length %zu",
                        (long long)s, (long long)e, l->n);
    return cel_vlist(ev, l->v + s, (size_t)(e - s));
}

static size_t flat_count(const struct cel_list *l, int64_t depth)
{
    size_t i, c = 0;
    for (i = 0; i < l->n; i++) {
        if (l->v[i].kind == CEL_V_LIST && depth > 0)
            c += flat_count(l->v[i].v.l, depth - 1);
        else
            c++;
    }
    return c;
}

static void flat_fill(const struct cel_list *l, int64_t depth,
                      struct cel_value *out, size_t *k)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        if (l->v[i].kind == CEL_V_LIST && depth > 0)
            flat_fill(l->v[i].v.l, depth - 1, out, k);
        else
            out[(*k)++] = l->v[i];
    }
}

F(f_flatten)
{
    int64_t depth = 1;
    size_t cnt, k = 0;
    struct cel_value *out;

    if (a[0].kind != CEL_V_LIST || (na == 2 && a[1].kind != CEL_V_INT))
        return cel_no_overload(ev, n, a, na);
    if (na == 2)
        depth = a[1].v.i;
    if (depth < 0)
        return cel_verr(ev, "level must be non-negative");
    if (depth > 64)
        depth = 64;
    cnt = flat_count(a[0].v.l, depth);
    out = (struct cel_value *)cel_ev_alloc(ev, (cnt + 1) * sizeof(*out));
    flat_fill(a[0].v.l, depth, out, &k);
    return cel_vlist(ev, out, k);
}

F(f_distinct)
{
    const struct cel_list *l;
    struct cel_value *out;
    size_t i, j, k = 0;

    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    if (cel_work_guard(ev, (uint64_t)l->n * l->n / 10) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    out = (struct cel_value *)cel_ev_alloc(ev, (l->n + 1) * sizeof(*out));
    for (i = 0; i < l->n; i++) {
        int dup = 0;
        for (j = 0; j < k && !dup; j++)
            dup = cel_value_equal(&out[j], &l->v[i]) == 1;
        if (!dup)
            out[k++] = l->v[i];
    }
    return cel_vlist(ev, out, k);
}

F(f_reverse)
{
    const struct cel_list *l;
    struct cel_value *out;
    size_t i;

    if (a[0].kind == CEL_V_STRING)
        return cel_str_reverse(ev, n, a, na);
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    out = (struct cel_value *)cel_ev_alloc(ev, (l->n + 1) * sizeof(*out));
    for (i = 0; i < l->n; i++)
        out[i] = l->v[l->n - 1 - i];
    return cel_vlist(ev, out, l->n);
}

F(f_sort)
{
    const struct cel_list *l;
    struct cel_value *out, err;
    size_t i;
    uint64_t lg = 1;

    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    l = a[0].v.l;
    while (((size_t)1 << lg) < l->n && lg < 63)
        lg++;
    if (cel_work_guard(ev, (uint64_t)l->n * lg) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    out = (struct cel_value *)cel_ev_alloc(ev, (l->n + 1) * sizeof(*out));
    for (i = 0; i < l->n; i++) {
        if (i && l->v[i].kind != l->v[0].kind)
            return cel_verr(ev, "list elements must have the same type");
        out[i] = l->v[i];
    }
    if (cel_sort_values(ev, out, out, l->n, &err) < 0)
        return err;
    return cel_vlist(ev, out, l->n);
}

F(f_range)
{
    struct cel_value *out;
    int64_t i;

    (void)na;
    if (a[0].kind != CEL_V_INT)
        return cel_no_overload(ev, n, a, 1);
    if (a[0].v.i < 0)
        return cel_vlist(ev, NULL, 0);
    if (a[0].v.i > 100000)
        return cel_verr(ev, "lists.range: size %lld exceeds limit",
                        (long long)a[0].v.i);
    if (cel_work_guard(ev, (uint64_t)a[0].v.i) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    out = (struct cel_value *)cel_ev_alloc(ev, ((size_t)a[0].v.i + 1) *
                                           sizeof(*out));
    for (i = 0; i < a[0].v.i; i++)
        out[i] = cel_vint(i);
    return cel_vlist(ev, out, (size_t)a[0].v.i);
}

F(f_first)
{
    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    return cel_vopt(ev, a[0].v.l->n ? &a[0].v.l->v[0] : NULL);
}

F(f_last)
{
    (void)na;
    if (a[0].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 1);
    return cel_vopt(ev, a[0].v.l->n ? &a[0].v.l->v[a[0].v.l->n - 1] : NULL);
}

static int list_has(const struct cel_list *l, const struct cel_value *v)
{
    size_t i;
    for (i = 0; i < l->n; i++) {
        if (cel_value_equal(&l->v[i], v) == 1)
            return 1;
    }
    return 0;
}

static int contains_all(const struct cel_list *x, const struct cel_list *y)
{
    size_t i;
    for (i = 0; i < y->n; i++) {
        if (!list_has(x, &y->v[i]))
            return 0;
    }
    return 1;
}

F(f_sets_contains)
{
    (void)na;
    if (a[0].kind != CEL_V_LIST || a[1].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 2);
    if (cel_work_guard(ev, (uint64_t)a[0].v.l->n * a[1].v.l->n / 10) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    return cel_vbool(contains_all(a[0].v.l, a[1].v.l));
}

F(f_sets_equivalent)
{
    (void)na;
    if (a[0].kind != CEL_V_LIST || a[1].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 2);
    if (cel_work_guard(ev, (uint64_t)a[0].v.l->n * a[1].v.l->n / 5) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    return cel_vbool(contains_all(a[0].v.l, a[1].v.l) &&
                     contains_all(a[1].v.l, a[0].v.l));
}

F(f_sets_intersects)
{
    size_t i;

    (void)na;
    if (a[0].kind != CEL_V_LIST || a[1].kind != CEL_V_LIST)
        return cel_no_overload(ev, n, a, 2);
    if (cel_work_guard(ev, (uint64_t)a[0].v.l->n * a[1].v.l->n / 10) < 0)
        return cel_verr(ev, "%s", CEL_COST_MSG);
    for (i = 0; i < a[1].v.l->n; i++) {
        if (list_has(a[0].v.l, &a[1].v.l->v[i]))
            return cel_vbool(1);
    }
    return cel_vbool(0);
}

const struct cel_func cel_lib_lists[] = {
    { "isSorted",
      "list_int_is_sorted_bool:list(int).()->bool "
      "list_uint_is_sorted_bool:list(uint).()->bool "
      "list_double_is_sorted_bool:list(double).()->bool "
      "list_bool_is_sorted_bool:list(bool).()->bool "
      "list_duration_is_sorted_bool:list(duration).()->bool "
      "list_timestamp_is_sorted_bool:list(timestamp).()->bool "
      "list_string_is_sorted_bool:list(string).()->bool "
      "list_bytes_is_sorted_bool:list(bytes).()->bool",
      0, f_is_sorted },
    { "sum",
      "list_int_sum_int:list(int).()->int "
      "list_uint_sum_uint:list(uint).()->uint "
      "list_double_sum_double:list(double).()->double "
      "list_duration_sum_duration:list(duration).()->duration",
      0, f_sum },
    { "min",
      "list_int_min_int:list(int).()->int "
      "list_uint_min_uint:list(uint).()->uint "
      "list_double_min_double:list(double).()->double "
      "list_bool_min_bool:list(bool).()->bool "
      "list_duration_min_duration:list(duration).()->duration "
      "list_timestamp_min_timestamp:list(timestamp).()->timestamp "
      "list_string_min_string:list(string).()->string "
      "list_bytes_min_bytes:list(bytes).()->bytes",
      0, f_min },
    { "max",
      "list_int_max_int:list(int).()->int "
      "list_uint_max_uint:list(uint).()->uint "
      "list_double_max_double:list(double).()->double "
      "list_bool_max_bool:list(bool).()->bool "
      "list_duration_max_duration:list(duration).()->duration "
      "list_timestamp_max_timestamp:list(timestamp).()->timestamp "
      "list_string_max_string:list(string).()->string "
      "list_bytes_max_bytes:list(bytes).()->bytes",
      0, f_max },
    { "slice",
      "list_slice:list(T).(int,int)->list(T)",
      34, f_slice },
    { "flatten",
      "list_flatten:list(list(T)).()->list(T) "
      "list_flatten_int:list(dyn).(int)->list(dyn)",
      34, f_flatten },
    { "distinct",
      "list_distinct:list(T).()->list(T)",
      34, f_distinct },
    { "reverse",
      "list_reverse:list(T).()->list(T) "
      "!string_reverse:string.()->string",
      34, f_reverse },
    { "sort",
      "list_int_sort:list(int).()->list(int) "
      "list_uint_sort:list(uint).()->list(uint) "
      "list_double_sort:list(double).()->list(double) "
      "list_bool_sort:list(bool).()->list(bool) "
      "list_google.protobuf.Duration_sort:list(duration).()->list(duration) "
      "list_google.protobuf.Timestamp_sort:list(timestamp).()->list(timestamp) "
      "list_string_sort:list(string).()->list(string) "
      "list_bytes_sort:list(bytes).()->list(bytes)",
      34, f_sort },
    { "@sortByAssociatedKeys",
      "list_int_sortByAssociatedKeys:list(T).(list(int))->list(T) "
      "list_uint_sortByAssociatedKeys:list(T).(list(uint))->list(T) "
      "list_double_sortByAssociatedKeys:list(T).(list(double))->list(T) "
      "list_bool_sortByAssociatedKeys:list(T).(list(bool))->list(T) "
      "list_google.protobuf.Duration_sortByAssociatedKeys:"
      "list(T).(list(duration))->list(T) "
      "list_google.protobuf.Timestamp_sortByAssociatedKeys:"
      "list(T).(list(timestamp))->list(T) "
      "list_string_sortByAssociatedKeys:list(T).(list(string))->list(T) "
      "list_bytes_sortByAssociatedKeys:list(T).(list(bytes))->list(T)",
      34, NULL },
    { "lists.range",
      "lists_range:(int)->list(int)",
      34, f_range },
    { "first",
      "list_first:list(V).()->opt(V)",
      34, f_first },
    { "last",
      "list_last:list(V).()->opt(V)",
      34, f_last },
    { "sets.contains",
      "list_sets_contains_list:(list(T),list(T))->bool",
      0, f_sets_contains },
    { "sets.equivalent",
      "list_sets_equivalent_list:(list(T),list(T))->bool",
      0, f_sets_equivalent },
    { "sets.intersects",
      "list_sets_intersects_list:(list(T),list(T))->bool",
      0, f_sets_intersects },
};
const size_t cel_lib_lists_n = sizeof(cel_lib_lists) / sizeof(cel_lib_lists[0]);
