/*
 * fields.c - strict decoding: every object checked against its type in
 * the field tables (validate/k8s/fields.h), as the apiserver decodes it
 * with sigs.k8s.io/json (facts: tests/k8s/decode/STRICT.md).
 *
 *   unknown-field  a field its type does not have in any minor (kubectl's
 *                  default --validate=strict makes the apiserver reject
 *                  it; fields of other minors are the gate rules'), with
 *                  "did you mean"; a key set twice in one mapping, at most
 *                  as a warning: kubectl keeps the last value and sends no
 *                  duplicate (SPLIT.md, STRICT.md 8).
 *   input-object   a value of the wrong JSON type for its field (a string
 *                  where an integer is wanted, a map for a list, a boolean
 *                  label value), in Go's words as the apiserver returns
 *                  them; a kind that differs from a known one only in case
 *                  or, in resource.k8s.io, a kind no version has.
 *
 * Numbers: an integer field takes an integral float from files, as
 * kubectl sends YAML's 2.0 and 1e1 (and JSON's, re-encoded from its
 * unstructured copy) as 2 and 10; from an AdmissionReview (an object
 * without a file) the number is the apiserver's raw JSON, where 2.0 is no
 * integer.
 */
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../validate/arena.h"
#include "../validate/k8s/fields.h"
#include "../validate/object.h"
#include "../validate/suggest.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"
#include "checks.h"
#include "rules.h"

#define GO_PATH_DEPTH 64        /* struct fields in a Go error's path */

struct faults;

#define FIELD_SLOTS 4           /* a struct's first members remembered */

/* Per type, the field its i-th member had in the object walked before (a
 * stream's objects write their members in one order: issue 17) */
typedef const struct k8s_field *field_row[FIELD_SLOTS];

struct walk {
    struct check_ctx *cx;
    const struct object *o;
    int types;                  /* report type errors (input-object) */
    struct faults *faults;      /* unknown and duplicate fields found */
    int raw_json;               /* the apiserver's JSON: 2.0 is no int */
    const char *path[GO_PATH_DEPTH];    /* struct field names from the
                                           root: Go's path, no indices */
    size_t depth;
    const char *strct;          /* Go name of the innermost struct */
    field_row *field_at;        /* [K8S_TYPE_COUNT], or NULL */
};

/* "spec.devices.requests.exactly.count", only when a message needs it */
static const char *go_path(const struct walk *w)
{
    struct arena *a = cx_arena(w->cx);
    const char *p = "";
    size_t i;

    for (i = 0; i < w->depth && i < GO_PATH_DEPTH; i++)
        p = arena_printf(a, "%s%s%s", p, i ? "." : "", w->path[i]);
    return p;
}

/* ==== type errors, in Go's words ========================================= */

/* Go's name for what a JSON value is, as UnmarshalTypeError says it */
static const char *json_kind(const struct walk *w, const struct tnode *n,
                             int with_literal)
{
    const char *text;

    switch ((enum tkind)n->kind) {
    case T_STR: return "string";
    case T_BOOL: return "bool";
    case T_MAP: return "object";
    case T_SEQ: return "array";
    case T_NULL: return "null";
    case T_INT:
    case T_FLOAT:
        if (!with_literal)
            return "number";
        text = tree_json_text(cx_arena(w->cx), n);
        return arena_printf(cx_arena(w->cx), "number %s", text ? text : "");
    }
    return "value";
}

/* Go's type name of a field type (wrap: its wrappers, outermost first) */
static const char *go_type(struct arena *a, const char *wrap, unsigned leaf,
                           unsigned type)
{
    static const char *const leaves[] = {
        [KL_STRING] = "string", [KL_INT32] = "int32", [KL_INT64] = "int64",
        [KL_BOOL] = "bool", [KL_FLOAT64] = "float64",
        [KL_QUANTITY] = "resource.Quantity",
        [KL_INTORSTRING] = "intstr.IntOrString", [KL_TIME] = "v1.Time",
        [KL_MICROTIME] = "v1.MicroTime", [KL_DURATION] = "v1.Duration",
        [KL_RAW] = "runtime.RawExtension", [KL_BYTES] = "[]uint8",
    };
    const char *base = leaf == KL_STRUCT ? k8s_types[type].go_name
                                         : leaves[leaf];

    if (!*wrap)
        return base;
    return arena_printf(a, "%s%s", *wrap == 'L' ? "[]" : "map[string]",
                        go_type(a, wrap + 1, leaf, type));
}

static void type_error(struct walk *w, const struct tnode *n,
                       const char *what, const char *type)
{
    report(w->cx, n, "cannot unmarshal %s into Go struct field %s.%s of "
           "type %s", what, w->strct, go_path(w), type);
}

/* The integer n holds, if an int32/int64 field takes it */
static int int_fits(const struct walk *w, const struct tnode *n,
                    unsigned leaf)
{
    long long v;

    if (n->kind == T_FLOAT && w->raw_json)
        return 0;       /* the raw literal 2.0 is no Go integer */
    if (tree_int(n, &v) < 0)
        return 0;
    return leaf == KL_INT64 || (v >= -2147483648LL && v <= 2147483647LL);
}

/* RFC 3339 as Go's time.Parse reads time.RFC3339 (seconds may carry a
 * fraction) */
static int rfc3339(const char *s)
{
    static const char shape[] = "dddd-dd-ddTdd:dd:dd";
    size_t i;

    for (i = 0; shape[i]; i++)
        if (shape[i] == 'd' ? !(s[i] >= '0' && s[i] <= '9')
                            : s[i] != shape[i])
            return 0;
    s += i;
    if (*s == '.') {
        for (s++, i = 0; *s >= '0' && *s <= '9'; s++, i++)
            ;
        if (!i)
            return 0;
    }
    if (*s == 'Z')
        return s[1] == '\0';
    return (*s == '+' || *s == '-') && s[1] >= '0' && s[1] <= '9'
           && s[2] >= '0' && s[2] <= '9' && s[3] == ':' && s[4] >= '0'
           && s[4] <= '9' && s[5] >= '0' && s[5] <= '9' && s[6] == '\0';
}

/* A scalar leaf: what its type's UnmarshalJSON says of n */
static void check_leaf(struct walk *w, const struct tnode *n, unsigned leaf)
{
    struct arena *a = cx_arena(w->cx);

    switch ((enum k8s_leaf)leaf) {
    case KL_STRING:
    case KL_DURATION:
    case KL_BYTES:
        if (n->kind != T_STR)
            type_error(w, n, json_kind(w, n, 0), go_type(a, "", leaf, 0));
        return;
    case KL_BOOL:
        if (n->kind != T_BOOL)
            type_error(w, n, json_kind(w, n, 0), "bool");
        return;
    case KL_INT32:
    case KL_INT64:
        if (n->kind == T_INT || n->kind == T_FLOAT) {
            if (!int_fits(w, n, leaf))
                type_error(w, n, json_kind(w, n, 1),
                           leaf == KL_INT32 ? "int32" : "int64");
        } else {
            type_error(w, n, json_kind(w, n, 0),
                       leaf == KL_INT32 ? "int32" : "int64");
        }
        return;
    case KL_FLOAT64:
        if (n->kind != T_INT && n->kind != T_FLOAT)
            type_error(w, n, json_kind(w, n, 0), "float64");
        return;
    case KL_QUANTITY:
        /* a string or a number; its syntax is the Quantity rules' */
        if (n->kind != T_STR && n->kind != T_INT && n->kind != T_FLOAT)
            report(w->cx, n, "quantities must match the regular expression "
                   "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'");
        return;
    case KL_INTORSTRING:
        if (n->kind == T_STR)
            return;
        if ((n->kind == T_INT || n->kind == T_FLOAT)
            && int_fits(w, n, KL_INT32))
            return;
        report(w->cx, n, "cannot unmarshal %s into Go value of type int32",
               json_kind(w, n, 1));
        return;
    case KL_TIME:
    case KL_MICROTIME:
        if (n->kind != T_STR)
            report(w->cx, n, "cannot unmarshal %s into Go value of type "
                   "string", json_kind(w, n, 0));
        else if (!rfc3339(n->str))
            report(w->cx, n, "parsing time \"%s\" as "
                   "\"2006-01-02T15:04:05Z07:00\": not an RFC 3339 time",
                   n->str);
        return;
    case KL_RAW:
    case KL_STRUCT:
        return;
    }
}

/* ==== the walk =========================================================== */

/* What the walk finds for unknown-field: an unknown field (with the type
 * that lacks it) or a key set twice (type < 0) */
struct fault {
    const struct tnode *node;
    int type;
};

/* The faults of the object walked last, kept across the two checks: one
 * walk serves both (input-object runs first, registry order). */
struct faults {
    const struct object *o;     /* the object walked, NULL: none yet */
    const struct tnode *root;
    struct fault *v;
    size_t n, cap;
};

#define KINDS_SEEN 8            /* (apiVersion, kind) pairs remembered */
#define KIND_TEXT 64            /* ... when both are shorter than this */

/* What the tables say of an (apiVersion, kind) pair: a stream repeats a
 * few pairs, and the lookup and check_kind's scan of the apiVersion's
 * rows cost 1,100 instructions a ConfigMap (issue 17) */
struct kind_seen {
    char api_version[KIND_TEXT], kind[KIND_TEXT];
    const struct k8s_kind *k;   /* the kind's table, NULL: none */
    int quiet;                  /* check_kind found nothing to report */
};

/* The run's (cx_memo "fields"): the faults, the pairs seen last, the
 * fields members had (from the second object walked: an admission's run
 * has one; freed at the run's end) */
struct fields_memo {
    struct faults faults;
    struct kind_seen seen[KINDS_SEEN];
    unsigned nseen, next;       /* used slots, the slot replaced next */
    unsigned walks;
    field_row *field_at;        /* [K8S_TYPE_COUNT] */
};

static void fault(struct walk *w, const struct tnode *node, int type)
{
    struct faults *f = w->faults;

    if (f->n == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        f->v = arena_grow(cx_arena(w->cx), f->v, f->n, cap, sizeof(*f->v));
        f->cap = cap;
    }
    f->v[f->n].node = node;
    f->v[f->n].type = type;
    f->n++;
}

static void walk_value(struct walk *w, const struct tnode *n,
                       const char *wrap, unsigned leaf, unsigned type);

/* k8s_field_find() of the i-th member of a map of type t, asked of the
 * field the i-th member had before first */
static const struct k8s_field *find_field(const struct walk *w,
                                          unsigned type, size_t i,
                                          const char *key)
{
    const struct k8s_field **slot, *f;

    if (!w->field_at || i >= FIELD_SLOTS)
        return k8s_field_find(&k8s_types[type], key);
    slot = &w->field_at[type][i];
    if (*slot && (*slot)->name[0] == key[0] && !strcmp((*slot)->name, key))
        return *slot;
    f = k8s_field_find(&k8s_types[type], key);
    if (f)
        *slot = f;
    return f;
}

/* Members of a map of type t: unknown and duplicate fields, then each
 * field's value against its type (the first row whose JSON type fits, when
 * the field's type changed between minors). */
static void walk_struct(struct walk *w, const struct tnode *m, unsigned type)
{
    const struct k8s_type *t = &k8s_types[type];
    const char *saved = w->strct;
    const char *dot = strchr(t->go_name, '.');
    size_t i;

    w->strct = dot ? dot + 1 : t->go_name;
    for (i = 0; i < m->n; i++) {
        const struct tnode *kid = m->kids[i];
        const struct k8s_field *f = find_field(w, type, i, kid->key);

        if (!f) {
            fault(w, kid, (int)type);
            continue;       /* nothing under an unknown field is read */
        }
        if (w->depth < GO_PATH_DEPTH)
            w->path[w->depth] = kid->key;
        w->depth++;
        if (kid->flags & TF_DUP)
            fault(w, kid, -1);
        /* a later row of the same name when this one's shape does not
         * fit (a field whose type changed between minors) */
        while ((size_t)(f - k8s_fields) + 1 < (size_t)t->first + t->n
               && f[1].name[0] == kid->key[0]
               && !strcmp(f[1].name, kid->key)
               && (*f->wrap ? (*f->wrap == 'L') != (kid->kind == T_SEQ)
                            : (f->leaf == KL_STRUCT) != (kid->kind == T_MAP)))
            f++;
        /* a string where a string is wanted: check_leaf has nothing to say
         * of most leaves (issue 17) */
        if (*f->wrap || f->leaf != KL_STRING || kid->kind != T_STR)
            walk_value(w, kid, f->wrap, f->leaf, f->type);
        w->depth--;
    }
    w->strct = saved;
}

static void walk_value(struct walk *w, const struct tnode *n,
                       const char *wrap, unsigned leaf, unsigned type)
{
    size_t i;

    if (n->kind == T_NULL)
        return;         /* null leaves the zero value, never an error */
    if (*wrap == 'L' || *wrap == 'M') {
        enum tkind want = *wrap == 'L' ? T_SEQ : T_MAP;
        if (n->kind != want) {
            if (w->types)
                type_error(w, n, json_kind(w, n, 0),
                           go_type(cx_arena(w->cx), wrap, leaf, type));
            return;
        }
        for (i = 0; i < n->n; i++) {
            if (want == T_MAP && n->kids[i]->flags & TF_DUP)
                fault(w, n->kids[i], -1);
            walk_value(w, n->kids[i], wrap + 1, leaf, type);
        }
        return;
    }
    if (leaf == KL_STRUCT) {
        if (n->kind == T_MAP)
            walk_struct(w, n, type);
        else if (w->types)
            type_error(w, n, json_kind(w, n, 0), k8s_types[type].go_name);
        return;
    }
    if (w->types)
        check_leaf(w, n, leaf);
}

static struct fields_memo *fields_memo(struct check_ctx *cx)
{
    struct fields_memo **slot =
        (struct fields_memo **)cx_memo_fixed(cx, "fields");

    if (!*slot)
        *slot = arena_alloc(cx_arena(cx), sizeof(**slot));
    return *slot;
}

/* o's pair in the memo, looked up in the tables when it is not there;
 * NULL when o has no pair or a string too long to keep */
static struct kind_seen *kind_seen(struct fields_memo *m,
                                   const struct object *o)
{
    struct kind_seen *s;
    size_t al, kl;
    unsigned i;

    if (!o->api_version || !o->kind_name)
        return NULL;
    for (i = 0; i < m->nseen; i++) {
        s = &m->seen[i];
        if (s->kind[0] == o->kind_name[0] && !strcmp(s->kind, o->kind_name)
            && !strcmp(s->api_version, o->api_version))
            return s;
    }
    al = strlen(o->api_version);
    kl = strlen(o->kind_name);
    if (al >= KIND_TEXT || kl >= KIND_TEXT)
        return NULL;
    if (m->nseen < KINDS_SEEN)
        s = &m->seen[m->nseen++];
    else
        s = &m->seen[m->next++ % KINDS_SEEN];
    memcpy(s->api_version, o->api_version, al + 1);
    memcpy(s->kind, o->kind_name, kl + 1);
    s->k = k8s_kind_find(o->api_version, o->kind_name);
    s->quiet = 0;
    return s;
}

/* The kind's table, when the object's apiVersion and kind have one */
static const struct k8s_kind *kind_of(const struct kind_seen *s,
                                      const struct object *o)
{
    if (!o->api_version || !o->kind_name || !tree_is_map(o->root))
        return NULL;
    return s ? s->k : k8s_kind_find(o->api_version, o->kind_name);
}

/* Walks o (seen: its pair, or NULL): type errors reported when `types`
 * (input-object's turn), the faults for unknown-field kept in the run's
 * memo either way. */
static struct faults *walk_object(struct check_ctx *cx, struct fields_memo *m,
                                  const struct kind_seen *seen,
                                  const struct object *o, int types)
{
    const struct k8s_kind *k = kind_of(seen, o);
    struct walk w;

    m->faults.o = o;
    m->faults.root = o->root;
    m->faults.n = 0;
    if (!k)
        return &m->faults;
    /* w.path is written at each depth before it is read (go_path) */
    w.cx = cx;
    w.o = o;
    w.types = types;
    w.faults = &m->faults;
    w.raw_json = o->file == NULL;   /* from an AdmissionReview */
    w.depth = 0;
    w.strct = NULL;
    if (++m->walks == 2) {
        /* outside the run's arena, whose growth the memory tests count */
        m->field_at = xcalloc(K8S_TYPE_COUNT, sizeof(*m->field_at));
        cx_at_run_end(cx, free, m->field_at);
    }
    w.field_at = m->field_at;
    walk_struct(&w, o->root, k->type);
    return &m->faults;
}

/* ==== the checks ========================================================= */

void check_unknown_field(struct check_ctx *cx, const struct object *o)
{
    struct fields_memo *m = fields_memo(cx);
    struct faults *f = &m->faults;
    struct arena *a = cx_arena(cx);
    size_t i;

    /* input-object walked this object just now, unless it is off */
    if (f->o != o || f->root != o->root)
        f = walk_object(cx, m, kind_seen(m, o), o, 0);
    for (i = 0; i < f->n; i++) {
        const struct tnode *n = f->v[i].node;
        const char *path = tree_path(a, o->root, n);
        struct suggest s;
        size_t k;
        if (f->v[i].type < 0) {
            /* kubectl collapses it before sending (the apiserver never
             * sees it): valid input, a warning at most */
            report_capped(cx, SEV_WARN, n, "duplicate field '%s': kubectl "
                          "keeps this last value and drops the earlier "
                          "ones", path);
            continue;
        }
        suggest_init(&s, n->key);
        for (k = k8s_types[f->v[i].type].first;
             k < (size_t)k8s_types[f->v[i].type].first
                 + k8s_types[f->v[i].type].n; k++)
            suggest_add(&s, k8s_fields[k].name);
        if (suggest_best(&s))
            report(cx, n, "unknown field '%s' (did you mean '%s'?)", path,
                   suggest_best(&s));
        else
            report(cx, n, "unknown field '%s'", path);
    }
    f->o = NULL;        /* used: the next object walks again */
}

/* A kind kubectl cannot map: one that differs from a kind of the tables
 * only in case (kinds are case-sensitive; no two differ so), or, in
 * resource.k8s.io where the tables have every kind, any unknown one. Only
 * the rows of the object's apiVersion are compared (a stream's ConfigMaps
 * and Services come here one after another: issue 17), and only when they
 * give a finding, every row for the kind written exactly. */
/* What check_kind says of a kind without a table in its apiVersion: 1
 * and the row written like it but for case (*exact) or, in
 * resource.k8s.io, the nearest kind (*near); 0 when nothing */
static int kind_says(const char *api_version, const char *kind,
                     const char **exact, const char **near)
{
    struct suggest s;
    int dra = !strncmp(api_version, "resource.k8s.io/", 16);
    size_t i, lo, hi;

    *exact = NULL;
    suggest_init(&s, kind);
    hi = k8s_kind_rows(api_version, &lo);
    for (i = lo; i < hi; i++) {
        if (tolower((unsigned char)k8s_kinds[i].kind[0])
            == tolower((unsigned char)kind[0])
            && !strcasecmp(k8s_kinds[i].kind, kind))
            *exact = k8s_kinds[i].kind;
        if (dra)
            suggest_add(&s, k8s_kinds[i].kind);
    }
    *near = dra ? suggest_best(&s) : NULL;
    if (!*exact && !*near)
        return 0;
    for (i = 0; i < K8S_KIND_COUNT; i++)
        if (k8s_kinds[i].kind[0] == kind[0]
            && !strcmp(k8s_kinds[i].kind, kind))
            return 0;   /* a kind of another version: the api-version rules */
    return 1;
}

static void check_kind(struct check_ctx *cx, struct kind_seen *seen,
                       const struct object *o)
{
    const char *exact, *near;

    if (!o->kind_node || kind_of(seen, o) || (seen && seen->quiet))
        return;
    if (!kind_says(o->api_version, o->kind_name, &exact, &near)) {
        if (seen)
            seen->quiet = 1;    /* the same for every object of the pair */
        return;
    }
    if (exact)
        report(cx, o->kind_node, "no kind '%s' in %s: kinds are "
               "case-sensitive (did you mean '%s'?)", o->kind_name,
               o->api_version, exact);
    else
        report(cx, o->kind_node, "no kind '%s' in %s (did you mean '%s'?)",
               o->kind_name, o->api_version, near);
}

void check_input_types(struct check_ctx *cx, const struct object *o)
{
    struct fields_memo *m = fields_memo(cx);
    struct kind_seen *seen = kind_seen(m, o);

    if (o->kind == K_OTHER)
        check_kind(cx, seen, o);
    walk_object(cx, m, seen, o, 1);
}
