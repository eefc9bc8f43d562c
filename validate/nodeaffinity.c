/*
 * nodeaffinity.c - node selectors compiled and matched (see
 * nodeaffinity.h): parsing a NodeSelector into requirements with
 * Kubernetes' parse errors, and the three-valued match against one node.
 * Owns no state; the label-key and label-value formats are names.c's.
 */
#include "nodeaffinity.h"

#include <limits.h>
#include <string.h>

#include "arena.h"
#include "names.h"
#include "tree.h"

enum na_op { OP_IN, OP_NOTIN, OP_EXISTS, OP_NOTEXISTS, OP_GT, OP_LT };

struct na_req {
    const char *key;
    enum na_op op;
    int field;                  /* matchFields: a node field, not a label */
    const char **vals;
    size_t nvals;
    long long num;              /* Gt / Lt: the value */
};

/* Go's strconv.ParseInt(s, 10, 64): an optional sign, then decimal digits
 * only, within int64. Returns 0, or -1 (syntax or range). */
static int parse_int64(const char *s, long long *out)
{
    unsigned long long v = 0, lim = LLONG_MAX;
    int neg = 0;

    if (*s == '+' || *s == '-') {
        neg = *s == '-';
        s++;
    }
    if (!*s)
        return -1;
    if (neg)
        lim = (unsigned long long)LLONG_MAX + 1;
    for (; *s; s++) {
        unsigned d = (unsigned)(*s - '0');
        if (*s < '0' || *s > '9' || v > (lim - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    if (!neg)
        *out = (long long)v;
    else
        *out = v > (unsigned long long)LLONG_MAX ? LLONG_MIN : -(long long)v;
    return 0;
}

/* ==== compiling ========================================================== */

struct errs {
    struct arena *a;
    struct na_error *v;
    size_t n, cap;
};

static void add_err(struct errs *e, const char *type, const char *field,
                    const char *detail)
{
    if (e->n == e->cap) {
        e->cap = e->cap ? e->cap * 2 : 4;
        e->v = arena_grow(e->a, e->v, e->n, e->cap, sizeof(*e->v));
    }
    e->v[e->n].type = type;
    e->v[e->n].field = field;
    e->v[e->n++].detail = detail;
}

/* A scalar's text; "" for anything else (Go decodes null into ""). */
static const char *text(const struct tnode *n)
{
    const char *s = tree_text(n);

    return s ? s : "";
}

static const char *const op_names[] = {"In", "NotIn", "Exists",
                                       "DoesNotExist", "Gt", "Lt"};

/* One matchExpressions entry: validated as labels.NewRequirement does (the
 * operator first, then the key, the number of values, each value).
 * Returns 0, or -1 after recording its errors. */
static int compile_label_req(struct errs *e, const struct tnode *t,
                             const char *path, struct na_req *r)
{
    const char *op = text(tree_get(t, "operator"));
    size_t i, n0 = e->n;

    for (i = 0; i < sizeof(op_names) / sizeof(op_names[0]); i++)
        if (!strcmp(op, op_names[i]))
            break;
    if (i == sizeof(op_names) / sizeof(op_names[0])) {
        add_err(e, "NotSupported", arena_printf(e->a, "%s.operator", path),
                arena_printf(e->a, "operator '%s' is not one of In, NotIn, "
                             "Exists, DoesNotExist, Gt, Lt", op));
        return -1;
    }
    r->op = (enum na_op)i;
    if (!name_is_label_key(r->key))
        add_err(e, "Invalid", arena_printf(e->a, "%s.key", path),
                "must be a label key: an optional DNS subdomain prefix and "
                "'/', then a name of at most 63 alphanumerics, '-', '_' or "
                "'.' that starts and ends with an alphanumeric");
    switch (r->op) {
    case OP_IN:
    case OP_NOTIN:
        if (!r->nvals)
            add_err(e, "Invalid", arena_printf(e->a, "%s.values", path),
                    "for 'in', 'notin' operators, values set can't be empty");
        break;
    case OP_EXISTS:
    case OP_NOTEXISTS:
        if (r->nvals)
            add_err(e, "Invalid", arena_printf(e->a, "%s.values", path),
                    "values set must be empty for exists and does not exist");
        break;
    case OP_GT:
    case OP_LT:
        if (r->nvals != 1)
            add_err(e, "Invalid", arena_printf(e->a, "%s.values", path),
                    "for 'Gt', 'Lt' operators, exactly one value is "
                    "required");
        for (i = 0; i < r->nvals; i++)
            if (parse_int64(r->vals[i], &r->num) < 0)
                add_err(e, "Invalid",
                        arena_printf(e->a, "%s.values[%zu]", path, i),
                        "for 'Gt', 'Lt' operators, the value must be an "
                        "integer");
        break;
    }
    for (i = 0; i < r->nvals; i++)
        if (!name_is_label_value(r->vals[i]))
            add_err(e, "Invalid",
                    arena_printf(e->a, "%s.values[%zu][%s]", path, i, r->key),
                    "must be a label value: empty, or at most 63 "
                    "alphanumerics, '-', '_' or '.' that starts and ends "
                    "with an alphanumeric");
    return e->n > n0 ? -1 : 0;
}

/* One matchFields entry: In or NotIn of exactly one value. */
static int compile_field_req(struct errs *e, const struct tnode *t,
                             const char *path, struct na_req *r)
{
    const char *op = text(tree_get(t, "operator"));

    r->field = 1;
    if (strcmp(op, "In") && strcmp(op, "NotIn")) {
        add_err(e, "NotSupported", arena_printf(e->a, "%s.operator", path),
                arena_printf(e->a, "operator '%s' is not one of In, NotIn",
                             op));
        return -1;
    }
    r->op = op[0] == 'I' ? OP_IN : OP_NOTIN;
    if (r->nvals != 1) {
        add_err(e, "Invalid", arena_printf(e->a, "%s.values", path),
                "must have one element");
        return -1;
    }
    return 0;
}

static void compile_term(struct errs *e, const struct tnode *term,
                         const char *path, struct na_term *out)
{
    static const char *const lists[2] = {"matchExpressions", "matchFields"};
    struct na_req *reqs;
    size_t l, i, k, n = 0;

    for (l = 0; l < 2; l++) {
        const struct tnode *s = tree_get(term, lists[l]);
        n += tree_is_seq(s) ? s->n : 0;
    }
    reqs = arena_alloc(e->a, (n + 1) * sizeof(*reqs));
    for (l = 0; l < 2; l++) {
        const struct tnode *s = tree_get(term, lists[l]);
        for (i = 0; tree_is_seq(s) && i < s->n; i++) {
            const struct tnode *t = s->kids[i];
            const struct tnode *v = tree_get(t, "values");
            const char *p = arena_printf(e->a, "%s.%s[%zu]", path, lists[l],
                                         i);
            struct na_req *r = &reqs[out->nreqs++];
            r->key = text(tree_get(t, "key"));
            if (tree_is_seq(v) && v->n) {
                r->vals = arena_alloc(e->a, v->n * sizeof(*r->vals));
                for (k = 0; k < v->n; k++)
                    r->vals[r->nvals++] = text(v->kids[k]);
            }
            if ((l ? compile_field_req(e, t, p, r)
                   : compile_label_req(e, t, p, r)) < 0)
                out->bad = 1;
        }
    }
    out->reqs = reqs;
}

int nodesel_compile(struct arena *a, const struct tnode *sel,
                    struct nodesel *out)
{
    const struct tnode *terms = tree_get(sel, "nodeSelectorTerms");
    struct na_term *v;
    struct errs e;
    size_t i;

    memset(out, 0, sizeof(*out));
    if (!tree_is_seq(terms) || !terms->n)
        return 0;
    memset(&e, 0, sizeof(e));
    e.a = a;
    v = arena_alloc(a, terms->n * sizeof(*v));
    for (i = 0; i < terms->n; i++) {
        const struct tnode *t = terms->kids[i];
        const struct tnode *me = tree_get(t, "matchExpressions");
        const struct tnode *mf = tree_get(t, "matchFields");
        if (!(tree_is_seq(me) && me->n) && !(tree_is_seq(mf) && mf->n))
            continue;   /* an empty term selects nothing */
        compile_term(&e, t, arena_printf(a, "nodeSelectorTerms[%zu]", i),
                     &v[out->nterms++]);
    }
    out->terms = v;
    out->errs = e.v;
    out->nerrs = e.n;
    return e.n ? -1 : 0;
}

void nodesel_from_labels(struct arena *a, const struct tnode *map,
                         struct nodesel *out)
{
    struct na_term *t;
    struct na_req *r;
    size_t i;

    memset(out, 0, sizeof(*out));
    if (!tree_is_map(map) || !map->n) {
        out->everything = 1;
        return;
    }
    t = arena_alloc(a, sizeof(*t));
    r = arena_alloc(a, map->n * sizeof(*r));
    for (i = 0; i < map->n; i++) {
        r[i].key = map->kids[i]->key;
        r[i].op = OP_IN;    /* key=value: In of one value */
        r[i].vals = arena_alloc(a, sizeof(*r[i].vals));
        r[i].vals[0] = text(map->kids[i]);
        r[i].nvals = 1;
    }
    t->reqs = r;
    t->nreqs = map->n;
    out->terms = t;
    out->nterms = 1;
}

/* ==== matching =========================================================== */

static int has_value(const struct na_req *r, const char *v)
{
    size_t i;

    for (i = 0; i < r->nvals; i++)
        if (!strcmp(r->vals[i], v))
            return 1;
    return 0;
}

static enum na_answer yes_if(int c)
{
    return c ? NA_YES : NA_NO;
}

static enum na_answer req_match(const struct na_req *r,
                                const struct na_node *n)
{
    const struct tnode *l;
    const char *v;
    long long x;

    if (r->field) {
        /* fields.Set of the node: metadata.name; other keys read "" */
        v = !strcmp(r->key, "metadata.name") ? n->name : "";
        return yes_if(!strcmp(v, r->vals[0]) == (r->op == OP_IN));
    }
    if (!n->labels_known)
        return NA_UNKNOWN;
    l = tree_get(n->labels, r->key);
    v = l ? text(l) : NULL;
    switch (r->op) {
    case OP_IN:
        return yes_if(v && has_value(r, v));
    case OP_NOTIN:
        return yes_if(!v || !has_value(r, v));
    case OP_EXISTS:
        return yes_if(v != NULL);
    case OP_NOTEXISTS:
        return yes_if(v == NULL);
    case OP_GT:
    case OP_LT:
        if (!v || parse_int64(v, &x) < 0)
            return NA_NO;
        return yes_if(r->op == OP_GT ? x > r->num : x < r->num);
    }
    return NA_NO;
}

static enum na_answer term_match(const struct na_term *t,
                                 const struct na_node *n)
{
    enum na_answer ans = NA_YES;
    int fields = n->name && *n->name;   /* no name: fields not tested */
    size_t i;

    if (t->bad)
        return NA_NO;
    for (i = 0; i < t->nreqs; i++) {
        enum na_answer r;
        if (t->reqs[i].field && !fields)
            continue;
        r = req_match(&t->reqs[i], n);
        if (r == NA_NO)
            return NA_NO;
        if (r == NA_UNKNOWN)
            ans = NA_UNKNOWN;
    }
    return ans;
}

enum na_answer nodesel_match(const struct nodesel *s, const struct na_node *n)
{
    enum na_answer ans = NA_NO;
    size_t i;

    if (!n)
        return NA_NO;
    if (s->everything)
        return NA_YES;
    for (i = 0; i < s->nterms; i++) {
        enum na_answer t = term_match(&s->terms[i], n);
        if (t == NA_YES)
            return NA_YES;
        if (t == NA_UNKNOWN)
            ans = NA_UNKNOWN;
    }
    return ans;
}

/* ==== a Pod's required placement ========================================= */

void na_required_init(struct arena *a, const struct tnode *node_selector,
                      const struct tnode *required, struct na_required *out)
{
    memset(out, 0, sizeof(*out));
    nodesel_from_labels(a, node_selector, &out->selector);
    /* a null requiredDuring... is no affinity; anything else that is not
     * a NodeSelector matches nothing */
    out->has_affinity = required && required->kind != T_NULL;
    if (out->has_affinity)
        nodesel_compile(a, required, &out->affinity);
}

enum na_answer na_required_match(const struct na_required *r,
                                 const struct na_node *n, enum na_part *part)
{
    enum na_answer s = nodesel_match(&r->selector, n), f = NA_YES;

    if (part)
        *part = NA_PART_NONE;
    if (s == NA_NO) {
        if (part)
            *part = NA_PART_SELECTOR;
        return NA_NO;
    }
    if (r->has_affinity)
        f = nodesel_match(&r->affinity, n);
    if (f == NA_NO) {
        if (part)
            *part = NA_PART_AFFINITY;
        return NA_NO;
    }
    return s == NA_UNKNOWN || f == NA_UNKNOWN ? NA_UNKNOWN : NA_YES;
}
