/*
 * values.c - the CEL value type: constructors, the per-evaluation scratch
 * allocator, heterogeneous equality and ordering, type names, map access
 * (plain maps and the lazily-viewed device.attributes / device.capacity
 * maps, which never get materialized) and rendering values as CEL literals.
 */
#include "cel_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../xalloc.h"

/* ================= scratch ================= */

struct cel_scratch_chunk {
    struct cel_scratch_chunk *next;
    size_t size;
    _Alignas(16) char data[];
};

void cel_scratch_init(struct cel_scratch *s)
{
    s->cur = s->inline_buf;
    s->end = s->inline_buf + sizeof(s->inline_buf);
    s->chunks = NULL;
    s->total = 0;
}

void *cel_scratch_alloc(struct cel_scratch *s, size_t n)
{
    char *p;

    n = (n + 15) & ~(size_t)15;
    if (n == 0)
        n = 16;
    if ((size_t)(s->end - s->cur) < n) {
        size_t sz = n > 65536 ? n : 65536;
        struct cel_scratch_chunk *c = xmalloc(sizeof(*c) + sz);
        c->next = s->chunks;
        c->size = sz;
        s->chunks = c;
        s->total += sz;
        s->cur = c->data;
        s->end = c->data + sz;
    }
    p = s->cur;
    s->cur += n;
    return p;
}

void cel_scratch_release(struct cel_scratch *s)
{
    while (s->chunks) {
        struct cel_scratch_chunk *c = s->chunks;
        s->chunks = c->next;
        free(c);
    }
    cel_scratch_init(s);
}

char *cel_ev_alloc(struct cel_eval *ev, size_t n)
{
    return cel_scratch_alloc(ev->scratch, n);
}

int cel_work_guard(struct cel_eval *ev, uint64_t n)
{
    return n > CEL_MAX_COST || ev->cost + n > CEL_MAX_COST ? -1 : 0;
}

static int sort_cmp(struct cel_eval *ev, const struct cel_value *x,
                    const struct cel_value *y, int *out,
                    struct cel_value *err)
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

int cel_sort_values(struct cel_eval *ev, struct cel_value *v,
                    struct cel_value *keys, size_t n, struct cel_value *err)
{
    size_t *idx, *tmp, w, i;
    struct cel_value *vcopy, *kcopy;

    if (n < 2)
        return 0;
    idx = (size_t *)cel_ev_alloc(ev, n * sizeof(*idx));
    tmp = (size_t *)cel_ev_alloc(ev, n * sizeof(*tmp));
    for (i = 0; i < n; i++)
        idx[i] = i;
    for (w = 1; w < n; w *= 2) {
        size_t lo;
        for (lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t a = lo, b = mid, o = lo;
            while (a < mid && b < hi) {
                int c;
                if (sort_cmp(ev, &keys[idx[b]], &keys[idx[a]], &c, err) < 0)
                    return -1;
                tmp[o++] = c < 0 ? idx[b++] : idx[a++];
            }
            while (a < mid)
                tmp[o++] = idx[a++];
            while (b < hi)
                tmp[o++] = idx[b++];
        }
        {
            size_t *t = idx;
            idx = tmp;
            tmp = t;
        }
    }
    vcopy = (struct cel_value *)cel_ev_alloc(ev, n * sizeof(*vcopy));
    memcpy(vcopy, v, n * sizeof(*vcopy));
    if (keys != v) {
        kcopy = (struct cel_value *)cel_ev_alloc(ev, n * sizeof(*kcopy));
        memcpy(kcopy, keys, n * sizeof(*kcopy));
        for (i = 0; i < n; i++)
            keys[i] = kcopy[idx[i]];
    }
    for (i = 0; i < n; i++)
        v[i] = vcopy[idx[i]];
    return 0;
}

/* ================= constructors ================= */

struct cel_value cel_verr(struct cel_eval *ev, const char *fmt, ...)
{
    struct cel_value v;
    char tmp[256];
    va_list ap;
    int n;

    memset(&v, 0, sizeof(v));
    va_start(ap, fmt);
    n = vsnprintf(tmp, sizeof(tmp), fmt, ap);
    va_end(ap);
    if (n < 0)
        n = 0;
    if ((size_t)n >= sizeof(tmp))
        n = sizeof(tmp) - 1;
    v.kind = CEL_V_ERROR;
    if (ev) {
        char *p = cel_ev_alloc(ev, (size_t)n + 1);
        memcpy(p, tmp, (size_t)n + 1);
        v.v.s.p = p;
    } else {
        v.v.s.p = "error";
    }
    v.v.s.n = (size_t)n;
    return v;
}









struct cel_value cel_vlist(struct cel_eval *ev, const struct cel_value *items,
                           size_t n)
{
    struct cel_value v;
    struct cel_list *l = (struct cel_list *)cel_ev_alloc(ev, sizeof(*l));

    memset(&v, 0, sizeof(v));
    l->n = n;
    l->v = items;
    v.kind = CEL_V_LIST;
    v.v.l = l;
    return v;
}

struct cel_value cel_vopt(struct cel_eval *ev, const struct cel_value *inner)
{
    struct cel_value v;

    memset(&v, 0, sizeof(v));
    v.kind = CEL_V_OPT;
    if (inner) {
        struct cel_value *c = (struct cel_value *)cel_ev_alloc(ev, sizeof(*c));
        *c = *inner;
        v.sub = 1;
        v.v.opt = c;
    }
    return v;
}

/* ================= types ================= */

static const char *const type_names[CEL_T_NTYPES] = {
    [CEL_T_DYN] = "dyn", [CEL_T_NULL] = "null_type", [CEL_T_BOOL] = "bool",
    [CEL_T_INT] = "int", [CEL_T_UINT] = "uint", [CEL_T_DOUBLE] = "double",
    [CEL_T_STRING] = "string", [CEL_T_BYTES] = "bytes",
    [CEL_T_LIST] = "list", [CEL_T_MAP] = "map", [CEL_T_TYPE] = "type",
    [CEL_T_OPT] = "optional_type",
    [CEL_T_QUANTITY] = "kubernetes.Quantity",
    [CEL_T_SEMVER] = "kubernetes.Semver",
    [CEL_T_IP] = "net.IP", [CEL_T_CIDR] = "net.CIDR",
    [CEL_T_TIMESTAMP] = "google.protobuf.Timestamp",
    [CEL_T_DURATION] = "google.protobuf.Duration",
    [CEL_T_URL] = "kubernetes.URL",
    [CEL_T_FORMAT] = "kubernetes.NamedFormat",
    [CEL_T_DEVICE] = "kubernetes.DRADevice", [CEL_T_ERROR] = "error",
};

const char *cel_type_name(int t)
{
    if (t < 0 || t >= CEL_T_NTYPES || !type_names[t])
        return "dyn";
    return type_names[t];
}

int cel_type_lookup(const char *name, size_t n)
{
    int t;

    for (t = 0; t < CEL_T_NTYPES; t++) {
        if (t == CEL_T_DYN || t == CEL_T_ERROR || t == CEL_T_DEVICE)
            continue;
        if (strlen(type_names[t]) == n && memcmp(type_names[t], name, n) == 0)
            return t;
    }
    return -1;
}

int cel_value_type(const struct cel_value *v)
{
    switch (v->kind) {
    case CEL_V_ERROR: return CEL_T_ERROR;
    case CEL_V_NULL: return CEL_T_NULL;
    case CEL_V_BOOL: return CEL_T_BOOL;
    case CEL_V_INT: return CEL_T_INT;
    case CEL_V_UINT: return CEL_T_UINT;
    case CEL_V_DOUBLE: return CEL_T_DOUBLE;
    case CEL_V_STRING: return CEL_T_STRING;
    case CEL_V_BYTES: return CEL_T_BYTES;
    case CEL_V_LIST: return CEL_T_LIST;
    case CEL_V_MAP: case CEL_V_DEVMAP: case CEL_V_DEVDOM: return CEL_T_MAP;
    case CEL_V_TYPE: return CEL_T_TYPE;
    case CEL_V_OPT: return CEL_T_OPT;
    case CEL_V_QUANTITY: return CEL_T_QUANTITY;
    case CEL_V_SEMVER: return CEL_T_SEMVER;
    case CEL_V_IP: return CEL_T_IP;
    case CEL_V_CIDR: return CEL_T_CIDR;
    case CEL_V_TIMESTAMP: return CEL_T_TIMESTAMP;
    case CEL_V_DURATION: return CEL_T_DURATION;
    case CEL_V_URL: return CEL_T_URL;
    case CEL_V_FORMAT: return CEL_T_FORMAT;
    case CEL_V_DEVICE: return CEL_T_DEVICE;
    default: return CEL_T_DYN;
    }
}

int cel_is_map(const struct cel_value *v)
{
    return v->kind == CEL_V_MAP || v->kind == CEL_V_DEVMAP ||
           v->kind == CEL_V_DEVDOM;
}

/* ================= numbers ================= */

static int is_num(const struct cel_value *v)
{
    return v->kind == CEL_V_INT || v->kind == CEL_V_UINT ||
           v->kind == CEL_V_DOUBLE;
}

/* exact cross-type numeric ordering: -1/0/1, 3 if NaN involved */
static int num_cmp(const struct cel_value *a, const struct cel_value *b)
{
    if (a->kind == CEL_V_INT && b->kind == CEL_V_INT)
        return a->v.i < b->v.i ? -1 : a->v.i > b->v.i;
    if (a->kind == CEL_V_UINT && b->kind == CEL_V_UINT)
        return a->v.u < b->v.u ? -1 : a->v.u > b->v.u;
    if (a->kind == CEL_V_INT && b->kind == CEL_V_UINT) {
        if (a->v.i < 0)
            return -1;
        return (uint64_t)a->v.i < b->v.u ? -1 : (uint64_t)a->v.i > b->v.u;
    }
    if (a->kind == CEL_V_UINT && b->kind == CEL_V_INT)
        return -num_cmp(b, a);
    if (a->kind == CEL_V_DOUBLE && b->kind == CEL_V_DOUBLE) {
        if (isnan(a->v.d) || isnan(b->v.d))
            return 3;
        return a->v.d < b->v.d ? -1 : a->v.d > b->v.d;
    }
    if (a->kind == CEL_V_DOUBLE) {
        int r = num_cmp(b, a);
        return r == 3 ? 3 : -r;
    }
    /* a is int/uint, b double: as cel-go (compareIntDouble), via double */
    if (isnan(b->v.d))
        return 3;
    if (a->kind == CEL_V_INT) {
        double x;
        if (b->v.d < (double)INT64_MIN)
            return 1;
        if (b->v.d > (double)INT64_MAX)
            return -1;
        x = (double)a->v.i;
        return x < b->v.d ? -1 : x > b->v.d;
    } else {
        double x;
        if (b->v.d < 0)
            return 1;
        if (b->v.d > (double)UINT64_MAX)
            return -1;
        x = (double)a->v.u;
        return x < b->v.d ? -1 : x > b->v.d;
    }
}

static int bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t m = an < bn ? an : bn;
    int r = m ? memcmp(a, b, m) : 0;

    if (r)
        return r < 0 ? -1 : 1;
    return an < bn ? -1 : an > bn;
}

int cel_value_compare(const struct cel_value *a, const struct cel_value *b)
{
    if (is_num(a) && is_num(b))
        return num_cmp(a, b);
    if (a->kind != b->kind)
        return 2;
    switch (a->kind) {
    case CEL_V_BOOL:
        return a->v.b < b->v.b ? -1 : a->v.b > b->v.b;
    case CEL_V_STRING:
    case CEL_V_BYTES:
        return bytes_cmp(a->v.s.p, a->v.s.n, b->v.s.p, b->v.s.n);
    case CEL_V_TIMESTAMP:
    case CEL_V_DURATION:
        if (a->v.t.sec != b->v.t.sec)
            return a->v.t.sec < b->v.t.sec ? -1 : 1;
        return a->v.t.nsec < b->v.t.nsec ? -1 : a->v.t.nsec > b->v.t.nsec;
    default:
        return 2;
    }
}

/* ================= maps ================= */

/* NUL-terminated c equals the n bytes at p; never reads past c's NUL */
static int cstr_eq(const char *c, const char *p, size_t n)
{
    size_t i;

    if (!c)
        return 0;
    for (i = 0; i < n; i++) {
        if (c[i] != p[i] || c[i] == 0)
            return 0;
    }
    return c[n] == 0;
}

static int same_cstr(const char *c, const struct cel_value *k)
{
    return cstr_eq(c, k->v.s.p, k->v.s.n);
}

static int dom_eq(const char *a, const char *b, size_t bn)
{
    return cstr_eq(a, b, bn);
}

/* Converts one attribute into a value. */
static struct cel_value attr_value(struct cel_eval *ev,
                                   const struct cel_attr *at)
{
    struct cel_value *items;
    size_t i;

    switch (at->type) {
    case CEL_ATTR_INT: return cel_vint(at->i);
    case CEL_ATTR_BOOL: return cel_vbool(at->b);
    case CEL_ATTR_STRING:
        return cel_vstr(at->s ? at->s : "", at->s ? strlen(at->s) : 0);
    case CEL_ATTR_VERSION: {
        struct cel_semver *sv = (struct cel_semver *)cel_ev_alloc(ev,
                                                                sizeof(*sv));
        struct cel_value v;
        if (!at->s || cel_semver_parse(at->s, strlen(at->s), 0, sv) < 0)
            return cel_verr(ev, "invalid version attribute '%s'",
                            at->s ? at->s : "");
        memset(&v, 0, sizeof(v));
        v.kind = CEL_V_SEMVER;
        v.v.sv = sv;
        return v;
    }
    case CEL_ATTR_INTS:
    case CEL_ATTR_BOOLS:
    case CEL_ATTR_STRINGS:
    case CEL_ATTR_VERSIONS:
        items = (struct cel_value *)cel_ev_alloc(ev, (at->nv ? at->nv : 1) *
                                                 sizeof(*items));
        for (i = 0; i < at->nv; i++) {
            struct cel_attr one;
            memset(&one, 0, sizeof(one));
            if (at->type == CEL_ATTR_INTS) {
                one.type = CEL_ATTR_INT;
                one.i = at->iv[i];
            } else if (at->type == CEL_ATTR_BOOLS) {
                one.type = CEL_ATTR_BOOL;
                one.b = at->bv[i];
            } else {
                one.type = at->type == CEL_ATTR_STRINGS ? CEL_ATTR_STRING
                                                        : CEL_ATTR_VERSION;
                one.s = at->sv[i];
            }
            items[i] = attr_value(ev, &one);
            if (items[i].kind == CEL_V_ERROR)
                return items[i];
        }
        return cel_vlist(ev, items, at->nv);
    }
    return cel_verr(ev, "bad attribute type");
}

static struct cel_value cap_value(struct cel_eval *ev,
                                  const struct cel_capacity *c)
{
    struct quantity q;

    if (quantity_from_text(c->quantity, &q) < 0)
        return cel_verr(ev, "invalid capacity quantity '%s'",
                        c->quantity ? c->quantity : "");
    return cel_vquantity(&q);
}

/* The i-th distinct domain of the device's attributes/capacities. */
static const char *dev_domain(const struct cel_device *d, int caps, size_t i,
                              size_t *count)
{
    size_t n = caps ? d->ncaps : d->nattrs, j, k, seen = 0;

    for (j = 0; j < n; j++) {
        const char *dj = caps ? d->caps[j].domain : d->attrs[j].domain;
        int dup = 0;
        for (k = 0; k < j && !dup; k++) {
            const char *dk = caps ? d->caps[k].domain : d->attrs[k].domain;
            dup = dj && dk && strcmp(dj, dk) == 0;
        }
        if (dup || !dj)
            continue;
        if (seen == i && !count)
            return dj;
        seen++;
    }
    if (count)
        *count = seen;
    return NULL;
}

size_t cel_map_size(const struct cel_value *m)
{
    const struct cel_device *d = m->x;
    size_t i, n = 0;

    if (m->kind == CEL_V_MAP)
        return m->v.m->n;
    if (m->kind == CEL_V_DEVMAP) {
        dev_domain(d, m->sub, 0, &n);
        return n;
    }
    if (m->kind == CEL_V_DEVDOM) {
        if (m->sub) {
            for (i = 0; i < d->ncaps; i++)
                n += dom_eq(d->caps[i].domain, m->v.s.p, m->v.s.n);
        } else {
            for (i = 0; i < d->nattrs; i++)
                n += dom_eq(d->attrs[i].domain, m->v.s.p, m->v.s.n);
        }
    }
    return n;
}

void cel_map_entry(struct cel_eval *ev, const struct cel_value *m, size_t i,
                   struct cel_value *k, struct cel_value *v)
{
    const struct cel_device *d = m->x;
    size_t j, seen = 0;

    if (m->kind == CEL_V_MAP) {
        *k = m->v.m->k[i];
        *v = m->v.m->v[i];
        return;
    }
    if (m->kind == CEL_V_DEVMAP) {
        const char *dom = dev_domain(d, m->sub, i, NULL);
        *k = cel_vstr(dom ? dom : "", dom ? strlen(dom) : 0);
        *v = *k;
        v->kind = CEL_V_DEVDOM;
        v->sub = m->sub;
        v->x = d;
        return;
    }
    if (m->sub) {
        for (j = 0; j < d->ncaps; j++) {
            if (!dom_eq(d->caps[j].domain, m->v.s.p, m->v.s.n))
                continue;
            if (seen++ == i) {
                *k = cel_vstr(d->caps[j].id, strlen(d->caps[j].id));
                *v = cap_value(ev, &d->caps[j]);
                return;
            }
        }
    } else {
        for (j = 0; j < d->nattrs; j++) {
            if (!dom_eq(d->attrs[j].domain, m->v.s.p, m->v.s.n))
                continue;
            if (seen++ == i) {
                *k = cel_vstr(d->attrs[j].id, strlen(d->attrs[j].id));
                *v = attr_value(ev, &d->attrs[j]);
                return;
            }
        }
    }
    *k = cel_vnull();
    *v = cel_vnull();
}

int cel_map_has(const struct cel_value *m, const struct cel_value *key)
{
    const struct cel_device *d = m->x;
    struct cel_value out;
    size_t i;

    if (m->kind == CEL_V_DEVMAP) {
        /* compile.go overrides lookups of an unknown domain (an empty
         * map), not membership: "d" in device.attributes is true only
         * when the device has something in domain d */
        if (key->kind != CEL_V_STRING)
            return 0;
        if (m->sub) {
            for (i = 0; i < d->ncaps; i++)
                if (dom_eq(d->caps[i].domain, key->v.s.p, key->v.s.n))
                    return 1;
        } else {
            for (i = 0; i < d->nattrs; i++)
                if (dom_eq(d->attrs[i].domain, key->v.s.p, key->v.s.n))
                    return 1;
        }
        return 0;
    }
    if (m->kind == CEL_V_DEVDOM) {
        if (key->kind != CEL_V_STRING)
            return 0;
        if (m->sub) {
            for (i = 0; i < d->ncaps; i++)
                if (dom_eq(d->caps[i].domain, m->v.s.p, m->v.s.n) &&
                    same_cstr(d->caps[i].id, key))
                    return 1;
        } else {
            for (i = 0; i < d->nattrs; i++)
                if (dom_eq(d->attrs[i].domain, m->v.s.p, m->v.s.n) &&
                    same_cstr(d->attrs[i].id, key))
                    return 1;
        }
        return 0;
    }
    return cel_map_get(NULL, m, key, &out) == 1;
}

int cel_map_get(struct cel_eval *ev, const struct cel_value *m,
                const struct cel_value *key, struct cel_value *out)
{
    const struct cel_device *d = m->x;
    size_t i;

    if (m->kind == CEL_V_MAP) {
        const struct cel_map *mp = m->v.m;
        if (key->kind != CEL_V_STRING && key->kind != CEL_V_BOOL &&
            !is_num(key))
            return -1;
        for (i = 0; i < mp->n; i++) {
            if (cel_value_equal(&mp->k[i], key) == 1) {
                *out = mp->v[i];
                return 1;
            }
        }
        return 0;
    }
    if (key->kind != CEL_V_STRING)
        return -1;
    if (m->kind == CEL_V_DEVMAP) {
        *out = *key;
        out->kind = CEL_V_DEVDOM;
        out->sub = m->sub;
        out->x = d;
        return 1;   /* an unknown domain is an empty map */
    }
    if (m->sub) {
        for (i = 0; i < d->ncaps; i++) {
            if (dom_eq(d->caps[i].domain, m->v.s.p, m->v.s.n) &&
                same_cstr(d->caps[i].id, key)) {
                *out = cap_value(ev, &d->caps[i]);
                return 1;
            }
        }
    } else {
        for (i = 0; i < d->nattrs; i++) {
            if (dom_eq(d->attrs[i].domain, m->v.s.p, m->v.s.n) &&
                same_cstr(d->attrs[i].id, key)) {
                *out = attr_value(ev, &d->attrs[i]);
                return 1;
            }
        }
    }
    return 0;
}

/* ================= equality ================= */

static int map_equal(const struct cel_value *a, const struct cel_value *b)
{
    size_t n = cel_map_size(a), i;
    struct cel_scratch sc;
    struct cel_eval ev;
    int r = 1;

    if (n != cel_map_size(b))
        return 0;
    if (a->kind == CEL_V_MAP && b->kind == CEL_V_MAP) {
        for (i = 0; i < n && r; i++) {
            struct cel_value bv;
            if (cel_map_get(NULL, b, &a->v.m->k[i], &bv) != 1)
                return 0;
            r = cel_value_equal(&a->v.m->v[i], &bv) == 1;
        }
        return r;
    }
    /* device-backed maps: needs scratch for converted values */
    memset(&ev, 0, sizeof(ev));
    cel_scratch_init(&sc);
    ev.scratch = &sc;
    for (i = 0; i < n && r; i++) {
        struct cel_value k, av, bv;
        cel_map_entry(&ev, a, i, &k, &av);
        if (cel_map_get(&ev, b, &k, &bv) != 1)
            r = 0;
        else
            r = cel_value_equal(&av, &bv) == 1;
    }
    cel_scratch_release(&sc);
    return r;
}

int cel_value_equal(const struct cel_value *a, const struct cel_value *b)
{
    size_t i;

    if (is_num(a) && is_num(b))
        return num_cmp(a, b) == 0;
    if (cel_is_map(a) && cel_is_map(b))
        return map_equal(a, b);
    if (a->kind != b->kind)
        return 0;
    switch (a->kind) {
    case CEL_V_NULL: return 1;
    case CEL_V_BOOL: return a->v.b == b->v.b;
    case CEL_V_STRING:
    case CEL_V_BYTES:
    case CEL_V_URL:
        return a->v.s.n == b->v.s.n &&
               (a->v.s.n == 0 || memcmp(a->v.s.p, b->v.s.p, a->v.s.n) == 0);
    case CEL_V_LIST:
        if (a->v.l->n != b->v.l->n)
            return 0;
        for (i = 0; i < a->v.l->n; i++) {
            if (cel_value_equal(&a->v.l->v[i], &b->v.l->v[i]) != 1)
                return 0;
        }
        return 1;
    case CEL_V_TYPE:
    case CEL_V_FORMAT:
        return a->sub == b->sub;
    case CEL_V_OPT:
        if (a->sub != b->sub)
            return 0;
        return !a->sub || cel_value_equal(a->v.opt, b->v.opt) == 1;
    case CEL_V_QUANTITY: return cel_quantity_cmp(a, b) == 0;
    case CEL_V_SEMVER: return cel_semver_cmp(a->v.sv, b->v.sv) == 0;
    case CEL_V_IP:
    case CEL_V_CIDR:
        return a->sub == b->sub && a->aux == b->aux &&
               memcmp(a->v.ip, b->v.ip, 16) == 0;
    case CEL_V_TIMESTAMP:
    case CEL_V_DURATION:
        return a->v.t.sec == b->v.t.sec && a->v.t.nsec == b->v.t.nsec;
    case CEL_V_DEVICE: return a->x == b->x;
    default: return 0;
    }
}

/* ================= text ================= */

int cel_utf8_len(const char *s, size_t n, size_t *out)
{
    size_t i, c = 0;

    for (i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    *out = c;
    return 0;
}

/* Go's strconv.FormatFloat(d, 'g', -1, 64) with shortest round-trip. */
void cel_format_double(double d, char *out, size_t outsz)
{
    char tmp[64];
    int prec, exp10;

    if (isnan(d)) {
        snprintf(out, outsz, "NaN");
        return;
    }
    if (isinf(d)) {
        snprintf(out, outsz, d > 0 ? "+Inf" : "-Inf");
        return;
    }
    if (d == 0) {
        snprintf(out, outsz, signbit(d) ? "-0" : "0");
        return;
    }
    for (prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    exp10 = (int)strtol(strchr(tmp, 'e') + 1, NULL, 10);
    if (exp10 < -4 || exp10 >= 21) {
        /* both Go and C print at least two exponent digits */
        snprintf(out, outsz, "%s", tmp);
        return;
    }
    {
        int dec = prec - 1 - exp10;
        snprintf(out, outsz, "%.*f", dec > 0 ? dec : 0, d);
    }
}

static int put(char **o, size_t *left, const char *s, size_t n)
{
    if (n >= *left)
        return -1;
    memcpy(*o, s, n);
    *o += n;
    **o = 0;
    *left -= n;
    return 0;
}

static int put_quoted(char **o, size_t *left, const char *s, size_t n,
                      int bytes)
{
    size_t i;
    char esc[8];

    if (put(o, left, bytes ? "b\"" : "\"", bytes ? 2 : 1) < 0)
        return -1;
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            esc[0] = '\\';
            esc[1] = (char)c;
            if (put(o, left, esc, 2) < 0)
                return -1;
        } else if (c == '\n') {
            if (put(o, left, "\\n", 2) < 0)
                return -1;
        } else if (c < 0x20 || c == 0x7f || (bytes && c >= 0x80)) {
            snprintf(esc, sizeof(esc), "\\x%02x", c);
            if (put(o, left, esc, 4) < 0)
                return -1;
        } else if (put(o, left, (const char *)&s[i], 1) < 0) {
            return -1;
        }
    }
    return put(o, left, "\"", 1);
}

static int render(const struct cel_value *v, char **o, size_t *left,
                  int depth)
{
    char tmp[128];
    size_t i, n;

    if (depth > 64)
        return put(o, left, "...", 3);
    switch (v->kind) {
    case CEL_V_ERROR:
        snprintf(tmp, sizeof(tmp), "error(");
        if (put(o, left, tmp, strlen(tmp)) < 0 ||
            put_quoted(o, left, v->v.s.p, v->v.s.n, 0) < 0)
            return -1;
        return put(o, left, ")", 1);
    case CEL_V_NULL: return put(o, left, "null", 4);
    case CEL_V_BOOL:
        return v->v.b ? put(o, left, "true", 4) : put(o, left, "false", 5);
    case CEL_V_INT:
        snprintf(tmp, sizeof(tmp), "%lld", (long long)v->v.i);
        return put(o, left, tmp, strlen(tmp));
    case CEL_V_UINT:
        snprintf(tmp, sizeof(tmp), "%lluu", (unsigned long long)v->v.u);
        return put(o, left, tmp, strlen(tmp));
    case CEL_V_DOUBLE:
        cel_format_double(v->v.d, tmp, sizeof(tmp));
        if (!strpbrk(tmp, ".eIN")) {
            size_t l = strlen(tmp);
            snprintf(tmp + l, sizeof(tmp) - l, ".0");
        }
        return put(o, left, tmp, strlen(tmp));
    case CEL_V_STRING:
        return put_quoted(o, left, v->v.s.p, v->v.s.n, 0);
    case CEL_V_BYTES:
        return put_quoted(o, left, v->v.s.p, v->v.s.n, 1);
    case CEL_V_LIST:
        if (put(o, left, "[", 1) < 0)
            return -1;
        for (i = 0; i < v->v.l->n; i++) {
            if ((i && put(o, left, ", ", 2) < 0) ||
                render(&v->v.l->v[i], o, left, depth + 1) < 0)
                return -1;
        }
        return put(o, left, "]", 1);
    case CEL_V_MAP:
    case CEL_V_DEVMAP:
    case CEL_V_DEVDOM: {
        struct cel_scratch sc;
        struct cel_eval ev;
        int r = 0;

        memset(&ev, 0, sizeof(ev));
        cel_scratch_init(&sc);
        ev.scratch = &sc;
        n = cel_map_size(v);
        r = put(o, left, "{", 1);
        for (i = 0; i < n && r == 0; i++) {
            struct cel_value k, val;
            cel_map_entry(&ev, v, i, &k, &val);
            if ((i && put(o, left, ", ", 2) < 0) ||
                render(&k, o, left, depth + 1) < 0 ||
                put(o, left, ": ", 2) < 0 ||
                render(&val, o, left, depth + 1) < 0)
                r = -1;
        }
        cel_scratch_release(&sc);
        return r < 0 ? -1 : put(o, left, "}", 1);
    }
    case CEL_V_TYPE: {
        const char *tn = cel_type_name(v->sub);
        return put(o, left, tn, strlen(tn));
    }
    case CEL_V_OPT:
        if (!v->sub)
            return put(o, left, "optional.none()", 15);
        if (put(o, left, "optional.of(", 12) < 0 ||
            render(v->v.opt, o, left, depth + 1) < 0)
            return -1;
        return put(o, left, ")", 1);
    case CEL_V_QUANTITY:
        cel_quantity_format(v, tmp, sizeof(tmp));
        if (put(o, left, "quantity(\"", 10) < 0 ||
            put(o, left, tmp, strlen(tmp)) < 0)
            return -1;
        return put(o, left, "\")", 2);
    case CEL_V_SEMVER:
        cel_semver_format(v->v.sv, tmp, sizeof(tmp));
        if (put(o, left, "semver(\"", 8) < 0 ||
            put(o, left, tmp, strlen(tmp)) < 0)
            return -1;
        return put(o, left, "\")", 2);
    case CEL_V_IP:
    case CEL_V_CIDR:
        cel_net_format(v, tmp, sizeof(tmp));
        if (put(o, left, v->kind == CEL_V_IP ? "ip(\"" : "cidr(\"",
                v->kind == CEL_V_IP ? 4 : 6) < 0 ||
            put(o, left, tmp, strlen(tmp)) < 0)
            return -1;
        return put(o, left, "\")", 2);
    case CEL_V_TIMESTAMP:
    case CEL_V_DURATION:
        cel_time_format(v, tmp, sizeof(tmp));
        if (put(o, left, v->kind == CEL_V_TIMESTAMP ? "timestamp(\""
                                                    : "duration(\"",
                v->kind == CEL_V_TIMESTAMP ? 11 : 10) < 0 ||
            put(o, left, tmp, strlen(tmp)) < 0)
            return -1;
        return put(o, left, "\")", 2);
    case CEL_V_FORMAT:
        return put(o, left, "kubernetes.NamedFormat", 22);
    case CEL_V_URL:
        if (put(o, left, "url(", 4) < 0 ||
            put_quoted(o, left, v->v.s.p, v->v.s.n, 0) < 0)
            return -1;
        return put(o, left, ")", 1);
    case CEL_V_DEVICE:
        return put(o, left, "device", 6);
    default:
        return put(o, left, "?", 1);
    }
}

int cel_value_render(const struct cel_value *v, char *out, size_t outsz)
{
    size_t left = outsz;

    if (!outsz)
        return -1;
    out[0] = 0;
    return render(v, &out, &left, 0);
}

struct cel_value cel_no_overload(struct cel_eval *ev, const struct cel_node *n,
                                 const struct cel_value *a, unsigned na)
{
    char buf[128];
    size_t l = 0;
    unsigned i;

    for (i = 0; i < na && l < sizeof(buf) - 32; i++)
        l += (size_t)snprintf(buf + l, sizeof(buf) - l, "%s%s", i ? ", " : "",
                              cel_type_name(cel_value_type(&a[i])));
    buf[l < sizeof(buf) ? l : sizeof(buf) - 1] = 0;
    return cel_verr(ev, "no such overload: %.*s(%s)", (int)n->name_len,
                    n->name, buf);
}
