/*
 * apival.c - the apiserver's shared field validators (apival.h): paths,
 * list/map limits, name formats, labels and annotations, node selectors,
 * raw extensions, device taints and tolerations. Facts: kubernetes
 * pkg/apis/resource/validation/validation.go, pkg/apis/core/validation
 * (ValidateNodeSelector, ValidateCSIDriverName) and apimachinery v0.36.0
 * (pkg/util/validation, pkg/api/validation, pkg/apis/meta/v1/validation).
 * Knows no kind: the rule files call these with their own paths.
 */
#include "apival.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/limits.h"
#include "../validate/names.h"
#include "../validate/object.h"
#include "../validate/tree.h"
#include "rules.h"

#define ANNOTATIONS_MAX (256 * 1024)    /* TotalAnnotationSizeLimitB */
#define DRIVER_NAME_MAX 63              /* DriverNameMaxLength */
#define DEVICE_ID_MAX 32                /* DeviceMaxIDLength */
#define POOL_NAME_MAX 253               /* PoolNameMaxLength */
#define BINDING_CONDITIONS_MAX 4        /* BindingConditionsMaxSize */

#define FMT_LABEL "lowercase letters, digits and '-', starting and ending " \
                  "with a letter or digit, at most 63"
#define FMT_SUBDOMAIN "lowercase letters, digits, '-' and '.', starting " \
                      "and ending with a letter or digit, at most 253"
#define FMT_QNAME "a name of at most 63 letters, digits, '-', '_' or '.' " \
                  "starting and ending with a letter or digit, with an " \
                  "optional DNS subdomain prefix and '/'"
#define FMT_CID "a C identifier: a letter or '_', then letters, digits " \
                "or '_'"

/* ==== paths ============================================================= */

static void fp_put(struct buf *b, const struct fpath *p)
{
    size_t n, keep;

    if (!p)
        return;
    fp_put(b, p->parent);
    switch (p->kind) {
    case FP_CHILD:
        buf_addf(b, "%s%s", b->len ? "." : "", p->name);
        break;
    case FP_INDEX:
        buf_addf(b, "[%zu]", p->index);
        break;
    case FP_KEY:
        n = strlen(p->name);
        keep = p->trunc && p->trunc < 16 ? 16 : p->trunc;
        if (!keep || n <= keep) {
            buf_addf(b, "[%s]", p->name);
            break;
        }
        keep -= 3;
        buf_addf(b, "[%.*s...%s]", (int)((keep + 1) / 2), p->name,
                 p->name + n - keep / 2);
        break;
    }
}

const char *fp_text(struct check_ctx *cx, const struct fpath *p)
{
    struct buf b;
    const char *out;

    buf_init(&b, LIMIT_PATH_BYTES);
    fp_put(&b, p);
    out = arena_strndup(cx_arena(cx), b.p ? b.p : "", b.len);
    buf_release(&b);
    return out;
}

void av_report(struct check_ctx *cx, const struct tnode *at,
               const struct fpath *p, const char *fmt, ...)
{
    va_list ap;
    const char *msg;

    va_start(ap, fmt);
    msg = arena_vprintf(cx_arena(cx), fmt, ap);
    va_end(ap);
    report_path(cx, at, fp_text(cx, p), "%s", msg);
}

const char *av_show(struct check_ctx *cx, const char *s)
{
    size_t n = strlen(s);

    if (n <= 64)
        return arena_printf(cx_arena(cx), "'%s'", s);
    return arena_printf(cx_arena(cx), "'%.30s...%s'", s, s + n - 30);
}

/* ==== typed access ====================================================== */

static const char *type_name(int list)
{
    return list ? "a list" : "a mapping";
}

const char *av_str(struct check_ctx *cx, const struct tnode *n,
                   const struct fpath *path, const char *what)
{
    if (!n || n->kind == T_NULL)
        return NULL;
    if (n->kind != T_STR) {
        av_report(cx, n, path, "'%s' must be a string, not %s", what,
                  tree_kind_desc(n));
        return NULL;
    }
    return n->str;
}

int av_is_map(struct check_ctx *cx, const struct tnode *n,
              const struct fpath *path, const char *what)
{
    if (!n || n->kind == T_NULL)
        return 0;
    if (n->kind != T_MAP) {
        av_report(cx, n, path, "'%s' must be a mapping, not %s", what,
                  tree_kind_desc(n));
        return 0;
    }
    return 1;
}

static int container(struct check_ctx *cx, const struct tnode *n,
                     const struct fpath *path, long max, const char *what,
                     int list)
{
    if (!n || n->kind == T_NULL)
        return 0;
    if (n->kind != (list ? T_SEQ : T_MAP)) {
        av_report(cx, n, path, "'%s' must be %s, not %s", what,
                  type_name(list), tree_kind_desc(n));
        return 0;
    }
    if (max >= 0 && n->n > (unsigned long)max) {
        av_report(cx, n, path, "'%s' has %u %s; at most %ld are allowed",
                  what, n->n, list ? "items" : "entries", max);
        return 0;
    }
    return n->n > 0;
}

int av_list(struct check_ctx *cx, const struct tnode *n,
            const struct fpath *path, long max, const char *what)
{
    return container(cx, n, path, max, what, 1);
}

int av_map(struct check_ctx *cx, const struct tnode *n,
           const struct fpath *path, long max, const char *what)
{
    return container(cx, n, path, max, what, 0);
}

void av_unique(struct check_ctx *cx, const struct tnode *n,
               const struct fpath *path, const char *key, const char *what)
{
    size_t i, j;

    for (i = 1; tree_is_seq(n) && i < n->n; i++) {
        const char *s = tree_str(key ? tree_get(n->kids[i], key)
                                     : n->kids[i]);
        if (!s)
            continue;
        for (j = 0; j < i; j++) {
            const char *t = tree_str(key ? tree_get(n->kids[j], key)
                                         : n->kids[j]);
            if (t && !strcmp(s, t)) {
                struct fpath ip = fp_index(path, i);
                av_report(cx, key ? tree_get(n->kids[i], key) : n->kids[i],
                          &ip, "%s %s is listed twice", what,
                          av_show(cx, s));
                break;
            }
        }
    }
}

/* ==== formats =========================================================== */

void av_required(struct check_ctx *cx, const struct tnode *at,
                 const struct fpath *path, const char *what)
{
    av_report(cx, at, path, "'%s' is required", what);
}

void av_dns_label(struct check_ctx *cx, const struct tnode *at,
                  const struct fpath *path, const char *what, const char *s)
{
    if (!name_is_dns_label(s))
        av_report(cx, at, path, "%s %s is not a DNS label (" FMT_LABEL
                  ")", what, av_show(cx, s));
}

void av_dns_subdomain(struct check_ctx *cx, const struct tnode *at,
                      const struct fpath *path, const char *what, const char *s)
{
    if (!name_is_dns_subdomain(s))
        av_report(cx, at, path, "%s %s is not a DNS subdomain ("
                  FMT_SUBDOMAIN ")", what, av_show(cx, s));
}

void av_label_key(struct check_ctx *cx, const struct tnode *at,
                  const struct fpath *path, const char *what, const char *s)
{
    if (!name_is_label_key(s))
        av_report(cx, at, path, "%s %s is not a valid label key ("
                  FMT_QNAME ")", what, av_show(cx, s));
}

void av_label_value(struct check_ctx *cx, const struct tnode *at,
                    const struct fpath *path, const char *what, const char *s)
{
    if (!name_is_label_value(s))
        av_report(cx, at, path, "%s %s is not a valid label value "
                  "(empty, or at most 63 letters, digits, '-', '_' or '.' "
                  "starting and ending with a letter or digit)", what,
                  av_show(cx, s));
}

/* The DNS subdomain check of s[0..n) after lower-casing. */
static int subdomain_caseless(const char *s, size_t n)
{
    char buf[NAME_SUBDOMAIN_MAX + 1];
    size_t i;

    if (n > NAME_SUBDOMAIN_MAX)
        return 0;
    for (i = 0; i < n; i++)
        buf[i] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] - 'A' + 'a' : s[i]);
    return name_is_dns_subdomain_n(buf, n);
}

static void driver_name_n(struct check_ctx *cx, const struct tnode *at,
                          const struct fpath *path, const char *what,
                          const char *s, size_t n)
{
    if (n == 0) {
        av_required(cx, at, path, what);
        return;
    }
    if (n > DRIVER_NAME_MAX)
        av_report(cx, at, path, "%s %s is longer than %d bytes", what,
                  av_show(cx, s), DRIVER_NAME_MAX);
    if (!subdomain_caseless(s, n))
        av_report(cx, at, path, "%s %s is not a DNS subdomain (letters, "
                  "digits, '-' and '.', starting and ending with a letter "
                  "or digit; case does not matter)", what, av_show(cx, s));
}

void av_driver_name(struct check_ctx *cx, const struct tnode *at,
                    const struct fpath *path, const char *what, const char *s)
{
    driver_name_n(cx, at, path, what, s ? s : "", s ? strlen(s) : 0);
}

static void c_identifier(struct check_ctx *cx, const struct tnode *at,
                         const struct fpath *path, const char *what,
                         const char *full, const char *id)
{
    if (strlen(id) > DEVICE_ID_MAX)
        av_report(cx, at, path, "%s %s: the name is longer than %d bytes",
                  what, av_show(cx, full), DEVICE_ID_MAX);
    if (!name_is_c_identifier(id))
        av_report(cx, at, path, "%s %s: the name must be " FMT_CID, what,
                  av_show(cx, full));
}

void av_qualified_name(struct check_ctx *cx, const struct tnode *at,
                       const struct fpath *path, const char *what,
                       const char *s)
{
    const char *slash = strchr(s, '/');

    if (!slash) {
        c_identifier(cx, at, path, what, s, s);
        return;
    }
    if (strchr(slash + 1, '/')) {
        av_report(cx, at, path, "%s %s must not contain more than one "
                  "slash", what, av_show(cx, s));
        return;
    }
    if (slash == s)
        av_report(cx, at, path, "%s %s: the domain must not be empty",
                  what, av_show(cx, s));
    else
        driver_name_n(cx, at, path, what, s, (size_t)(slash - s));
    if (!slash[1])
        av_report(cx, at, path, "%s %s: the name must not be empty", what,
                  av_show(cx, s));
    else
        c_identifier(cx, at, path, what, s, slash + 1);
}

void av_fully_qualified_name(struct check_ctx *cx, const struct tnode *at,
                             const struct fpath *path, const char *what,
                             const char *s)
{
    av_qualified_name(cx, at, path, what, s);
    if (!strchr(s, '/'))
        av_report(cx, at, path, "%s %s is not a fully qualified name "
                  "(<domain>/<name>, e.g. gpu.example.com/pcieRoot)", what,
                  av_show(cx, s));
}

void av_pool_name(struct check_ctx *cx, const struct tnode *at,
                  const struct fpath *path, const char *what, const char *s)
{
    const char *p = s;

    if (!s || !*s) {
        av_required(cx, at, path, what);
        return;
    }
    if (strlen(s) > POOL_NAME_MAX)
        av_report(cx, at, path, "%s %s is longer than %d bytes", what,
                  av_show(cx, s), POOL_NAME_MAX);
    for (;;) {
        const char *slash = strchr(p, '/');
        size_t n = slash ? (size_t)(slash - p) : strlen(p);
        if (!name_is_dns_subdomain_n(p, n))
            av_report(cx, at, path, "%s %s: each '/'-separated part must "
                      "be a DNS subdomain (" FMT_SUBDOMAIN ")", what,
                      av_show(cx, s));
        if (!slash)
            break;
        p = slash + 1;
    }
}

/* ==== composites ======================================================== */

void av_labels(struct check_ctx *cx, const struct tnode *n,
               const struct fpath *path)
{
    size_t i;

    if (!av_map(cx, n, path, -1, "labels"))
        return;
    for (i = 0; i < n->n; i++) {
        const struct tnode *v = n->kids[i];
        av_label_key(cx, v, path, "label key", v->key);
        if (v->kind == T_STR)
            av_label_value(cx, v, path, "label value", v->str);
        else if (v->kind != T_NULL)
            av_report(cx, v, path, "label '%s' must have a string value, "
                      "not %s", v->key, tree_kind_desc(v));
    }
}

void av_annotations(struct check_ctx *cx, const struct tnode *n,
                    const struct fpath *path)
{
    size_t i, total = 0;

    if (!av_map(cx, n, path, -1, "annotations"))
        return;
    for (i = 0; i < n->n; i++) {
        const struct tnode *v = n->kids[i];
        size_t kl = strlen(v->key), j;
        char *low = arena_alloc(cx_arena(cx), kl + 1);
        /* "the rule is QualifiedName except that case doesn't matter" */
        for (j = 0; j <= kl; j++)
            low[j] = (char)(v->key[j] >= 'A' && v->key[j] <= 'Z'
                            ? v->key[j] - 'A' + 'a' : v->key[j]);
        if (!name_is_label_key(low))
            av_report(cx, v, path, "annotation key %s is not a valid key "
                      "(" FMT_QNAME "; case does not matter)",
                      av_show(cx, v->key));
        if (v->kind != T_STR && v->kind != T_NULL)
            av_report(cx, v, path, "annotation '%s' must have a string "
                      "value, not %s", v->key, tree_kind_desc(v));
        total += kl + (v->kind == T_STR ? strlen(v->str) : 0);
    }
    if (total > ANNOTATIONS_MAX)
        av_report(cx, n, path, "annotations take %zu bytes (keys and "
                  "values); at most %d are allowed", total,
                  ANNOTATIONS_MAX);
}

static void selector_values(struct check_ctx *cx, const struct tnode *vals,
                            const struct fpath *path, int field)
{
    size_t i;

    for (i = 0; tree_is_seq(vals) && i < vals->n; i++) {
        struct fpath ip = fp_index(path, i);
        const char *v = av_str(cx, vals->kids[i], &ip, "value");
        if (!v)
            continue;
        if (field)
            av_dns_subdomain(cx, vals->kids[i], &ip, "node name", v);
        else
            av_label_value(cx, vals->kids[i], &ip, "value", v);
    }
}

static void selector_requirement(struct check_ctx *cx, const struct tnode *r,
                                 const struct fpath *path, int field)
{
    const struct tnode *vals = tree_get(r, "values");
    const struct tnode *opn = tree_get(r, "operator");
    const struct tnode *kn = tree_get(r, "key");
    struct fpath vp = fp_child(path, "values");
    struct fpath op_p = fp_child(path, "operator");
    struct fpath kp = fp_child(path, "key");
    const char *op, *key;
    size_t nv;

    if (!av_is_map(cx, r, path, "requirement"))
        return;
    if (vals && vals->kind != T_NULL && vals->kind != T_SEQ)
        av_report(cx, vals, &vp, "'values' must be a list, not %s",
                  tree_kind_desc(vals));
    nv = tree_is_seq(vals) ? vals->n : 0;
    op = av_str(cx, opn, &op_p, "operator");
    if (!op)
        op = "";
    if (field) {
        if (strcmp(op, "In") && strcmp(op, "NotIn"))
            av_report(cx, opn ? opn : r, &op_p, "operator %s is not valid "
                      "for a node field selector (In or NotIn)",
                      av_show(cx, op));
        else if (nv != 1)
            av_report(cx, vals ? vals : r, &vp, "a node field selector with "
                      "operator '%s' needs exactly one value", op);
    } else if (!strcmp(op, "In") || !strcmp(op, "NotIn")) {
        if (!nv)
            av_report(cx, vals ? vals : r, &vp, "values are required with "
                      "operator '%s'", op);
    } else if (!strcmp(op, "Exists") || !strcmp(op, "DoesNotExist")) {
        if (nv)
            av_report(cx, vals, &vp, "values are not allowed with operator "
                      "'%s'", op);
    } else if (!strcmp(op, "Gt") || !strcmp(op, "Lt")) {
        if (nv != 1)
            av_report(cx, vals ? vals : r, &vp, "operator '%s' needs exactly "
                      "one value", op);
    } else {
        av_report(cx, opn ? opn : r, &op_p, "operator %s is not a valid "
                  "selector operator (In, NotIn, Exists, DoesNotExist, Gt, "
                  "Lt)", av_show(cx, op));
    }
    key = av_str(cx, kn, &kp, "key");
    if (field) {
        if (!key || strcmp(key, "metadata.name"))
            av_report(cx, kn ? kn : r, &kp, "%s is not a valid field "
                      "selector key (metadata.name)",
                      av_show(cx, key ? key : ""));
        else
            selector_values(cx, vals, &vp, 1);
        return;
    }
    av_label_key(cx, kn ? kn : r, &kp, "key", key ? key : "");
    selector_values(cx, vals, &vp, 0);
}

/* the requirements of one node selector term's list (matchExpressions or
 * matchFields) */
static void selector_list(struct check_ctx *cx, const struct tnode *t,
                          const struct fpath *term, const char *list,
                          int field)
{
    const struct tnode *l = tree_get(t, list);
    struct fpath lp = fp_child(term, list);
    size_t j;

    if (!av_list(cx, l, &lp, -1, list))
        return;
    for (j = 0; j < l->n; j++) {
        struct fpath rp = fp_index(&lp, j);
        selector_requirement(cx, l->kids[j], &rp, field);
    }
}

void av_node_selector(struct check_ctx *cx, const struct tnode *n,
                      const struct fpath *path)
{
    const struct tnode *terms = tree_get(n, "nodeSelectorTerms");
    struct fpath tp = fp_child(path, "nodeSelectorTerms");
    size_t i;

    if (!av_is_map(cx, n, path, "nodeSelector"))
        return;
    if (!terms || terms->kind == T_NULL || (tree_is_seq(terms) && !terms->n)) {
        av_report(cx, terms ? terms : n, &tp, "a node selector needs at "
                  "least one term in 'nodeSelectorTerms'");
        return;
    }
    if (!av_list(cx, terms, &tp, -1, "nodeSelectorTerms"))
        return;
    for (i = 0; i < terms->n; i++) {
        const struct tnode *t = terms->kids[i];
        struct fpath ip = fp_index(&tp, i);
        if (t->kind == T_NULL || !av_is_map(cx, t, &ip, "node selector term"))
            continue;
        selector_list(cx, t, &ip, "matchExpressions", 0);
        selector_list(cx, t, &ip, "matchFields", 1);
    }
}

/* ---- raw extensions ---------------------------------------------------- */

/* Bytes Go's encoding/json writes for string s (HTML-escaping on, as
 * sigs.k8s.io/yaml's json.Marshal): quotes, escapes, \u00XX for control
 * characters and <>&, \u2028/\u2029, \ufffd per invalid UTF-8 byte. */
static size_t json_str_len(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 2;

    while (*p) {
        unsigned c = *p;
        if (c < 0x80) {
            if (c == '"' || c == '\\' || c == '\n' || c == '\r'
                || c == '\t')
                n += 2;
            else if (c < 0x20 || c == '<' || c == '>' || c == '&')
                n += 6;
            else
                n += 1;
            p++;
            continue;
        } else {
            size_t len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc0 ? 2 : 0;
            size_t k;
            int ok = len > 0;
            for (k = 1; ok && k < len; k++)
                ok = (p[k] & 0xc0) == 0x80;
            if (!ok) {
                n += 6;
                p++;
                continue;
            }
            if (len == 3 && p[0] == 0xe2 && p[1] == 0x80
                && (p[2] == 0xa8 || p[2] == 0xa9))
                n += 6;
            else
                n += len;
            p += len;
        }
    }
    return n;
}

/* Bytes of a float64 as Go's encoding/json writes it: the shortest
 * digits that read back, 'f' form for 1e-6 <= |f| < 1e21, else 'e' form
 * ("1e+21", "1e-7"). */
static size_t json_float_len(double f)
{
    char buf[64];
    int p, exp;
    size_t digits, neg = f < 0;
    double a = fabs(f);
    const char *e;

    if (a == 0)
        return 1 + neg;
    for (p = 1; p <= 17; p++) {
        snprintf(buf, sizeof(buf), "%.*e", p - 1, f);
        if (strtod(buf, NULL) == f)
            break;
    }
    digits = (size_t)(p > 17 ? 17 : p);
    e = strchr(buf, 'e');
    exp = e ? (int)strtol(e + 1, NULL, 10) : 0;
    if (a >= 1e-6 && a < 1e21) {
        if (exp >= 0)       /* ddd[.ddd] */
            return neg + ((size_t)exp + 1 >= digits ? (size_t)exp + 1
                          : digits + 1);
        return neg + 2 + (size_t)(-exp - 1) + digits;     /* 0.000ddd */
    }
    /* d[.ddd]e±X */
    snprintf(buf, sizeof(buf), "%d", exp < 0 ? -exp : exp);
    return neg + digits + (digits > 1) + 2 + strlen(buf);
}

/* Bytes of n as compact JSON; 0 for a float JSON cannot hold. */
static size_t json_len(const struct tnode *n)
{
    char buf[32];
    size_t len, i;

    switch ((enum tkind)n->kind) {
    case T_NULL:
        return 4;
    case T_BOOL:
        return n->boolean ? 4 : 5;
    case T_INT:
        snprintf(buf, sizeof(buf), "%lld", n->ival);
        return strlen(buf);
    case T_FLOAT:
        return isfinite(n->fval) ? json_float_len(n->fval) : 0;
    case T_STR:
        return json_str_len(n->str);
    case T_MAP:
        len = 2 + (n->n ? n->n - 1 : 0);
        for (i = 0; i < n->n; i++)
            len += json_str_len(n->kids[i]->key) + 1 + json_len(n->kids[i]);
        return len;
    case T_SEQ:
        len = 2 + (n->n ? n->n - 1 : 0);
        for (i = 0; i < n->n; i++)
            len += json_len(n->kids[i]);
        return len;
    }
    return 0;
}

void av_raw_extension(struct check_ctx *cx, const struct tnode *parent,
                      const struct tnode *n, const struct fpath *path,
                      size_t max)
{
    size_t len;

    if (!n || n->kind == T_NULL) {
        av_required(cx, n ? n : parent, path, "parameters");
        return;
    }
    len = json_len(n);
    if (len > max)
        av_report(cx, n, path, "parameters take %zu bytes as JSON; at "
                  "most %zu are allowed", len, max);
    else if (n->kind != T_MAP)
        av_report(cx, n, path, "parameters must be a JSON object, not %s",
                  tree_kind_desc(n));
}

/* ---- taints and tolerations -------------------------------------------- */

static int effect_ok(const char *e)
{
    return !strcmp(e, "NoSchedule") || !strcmp(e, "NoExecute")
           || !strcmp(e, "None");
}

void av_device_taint(struct check_ctx *cx, const struct tnode *n,
                     const struct fpath *path)
{
    const struct tnode *k = tree_get(n, "key"), *v = tree_get(n, "value");
    const struct tnode *e = tree_get(n, "effect");
    struct fpath kp = fp_child(path, "key"), vp = fp_child(path, "value");
    struct fpath ep = fp_child(path, "effect");
    const char *key, *value, *effect;

    if (!av_is_map(cx, n, path, "taint"))
        return;
    key = av_str(cx, k, &kp, "key");
    if (!k || k->kind == T_STR)
        av_label_key(cx, k ? k : n, &kp, "taint key", key ? key : "");
    value = av_str(cx, v, &vp, "value");
    if (value && *value)
        av_label_value(cx, v, &vp, "taint value", value);
    effect = av_str(cx, e, &ep, "effect");
    if ((!e || e->kind == T_NULL || (effect && !*effect)))
        av_required(cx, e ? e : n, &ep, "effect");
    else if (effect && !effect_ok(effect))
        av_report(cx, e, &ep, "taint effect %s is not supported "
                  "(NoSchedule, NoExecute or None)", av_show(cx, effect));
}

void av_device_toleration(struct check_ctx *cx, const struct devtol *t,
                          const struct fpath *path)
{
    struct fpath kp = fp_child(path, "key"), vp = fp_child(path, "value");
    struct fpath ep = fp_child(path, "effect");
    struct fpath op = fp_child(path, "operator");

    if (!av_is_map(cx, t->node, path, "toleration"))
        return;
    av_str(cx, t->key_node, &kp, "key");
    av_str(cx, t->value_node, &vp, "value");
    av_str(cx, t->effect_node, &ep, "effect");
    if (t->key && *t->key)
        av_label_key(cx, t->key_node, &kp, "toleration key", t->key);
    if (!t->op) {
        av_str(cx, t->op_node, &op, "operator");
    } else if (!strcmp(t->op, "Exists")) {
        if (t->value && *t->value)
            av_report(cx, t->value_node, &vp, "a toleration with operator "
                      "'Exists' must not have a value");
    } else if (!strcmp(t->op, "Equal")) {
        if (t->value)
            av_label_value(cx, t->value_node, &vp, "toleration value",
                           t->value);
    } else {
        av_report(cx, t->op_node, &op, "toleration operator %s is not "
                  "supported (Equal or Exists)", av_show(cx, t->op));
    }
    if (t->effect && *t->effect && !effect_ok(t->effect))
        av_report(cx, t->effect_node, &ep, "toleration effect %s is not "
                  "supported (NoSchedule, NoExecute or None)",
                  av_show(cx, t->effect));
}

/* one list of binding conditions: <= 4 label keys, no repeats */
static void condition_list(struct check_ctx *cx, const struct tnode *l,
                           const struct fpath *path, const char *field,
                           const char *what)
{
    size_t i;

    if (av_list(cx, l, path, BINDING_CONDITIONS_MAX, field))
        for (i = 0; i < l->n; i++) {
            struct fpath ip = fp_index(path, i);
            const char *s = av_str(cx, l->kids[i], &ip, what);
            if (s)
                av_label_key(cx, l->kids[i], &ip, what, s);
        }
    av_unique(cx, l, path, NULL, what);
}

void av_binding_conditions(struct check_ctx *cx, const struct tnode *n,
                           const struct fpath *path)
{
    const struct tnode *bc = tree_get(n, "bindingConditions");
    const struct tnode *bf = tree_get(n, "bindingFailureConditions");
    struct fpath bcp = fp_child(path, "bindingConditions");
    struct fpath bfp = fp_child(path, "bindingFailureConditions");
    size_t nbc = tree_is_seq(bc) ? bc->n : 0, nbf = tree_is_seq(bf) ? bf->n : 0;
    size_t i, j;

    condition_list(cx, bc, &bcp, "bindingConditions", "binding condition");
    condition_list(cx, bf, &bfp, "bindingFailureConditions",
                   "binding failure condition");
    for (i = 0; i < nbf; i++) {
        const char *s = tree_str(bf->kids[i]);
        for (j = 0; s && j < nbc; j++)
            if (tree_str(bc->kids[j]) && !strcmp(s, bc->kids[j]->str)) {
                struct fpath ip = fp_index(&bfp, i);
                av_report(cx, bf->kids[i], &ip, "binding failure condition "
                          "%s is also a binding condition", av_show(cx, s));
                break;
            }
    }
    if (!nbc && nbf)
        av_report(cx, bf, &bcp, "bindingFailureConditions need "
                  "bindingConditions");
    if (!nbf && nbc)
        av_report(cx, bc, &bfp, "bindingConditions need "
                  "bindingFailureConditions");
}
