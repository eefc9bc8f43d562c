/*
 * test_nodeaffinity.c - runs every case of tests/k8s/nodeaffinity/
 * cases.yaml (Kubernetes' own node affinity and label selector test tables,
 * as data) against validate/nodeaffinity.c, then claimcheck's own
 * additions: labels that are not known, and Gt/Lt integers exactly as Go's
 * strconv.ParseInt reads them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/limits.h"
#include "../../validate/load_yaml.h"
#include "../../validate/nodeaffinity.h"
#include "../../validate/tree.h"
#include "check.h"

static CHECK_INIT;

#define CASES "tests/k8s/nodeaffinity/cases.yaml"

/* ==== building selectors around the cases' Go-shaped inputs ============== */

/* A copy of n under another key (n's kids are shared). */
static struct tnode *rekey(struct arena *a, const struct tnode *n,
                           const char *key)
{
    struct tnode *c = arena_alloc(a, sizeof(*c));

    if (n)
        *c = *n;
    else
        c->kind = T_NULL;
    c->key = key;
    return c;
}

/* A map or sequence with one member. */
static struct tnode *wrap(struct arena *a, enum tkind kind, const char *key,
                          struct tnode *kid)
{
    struct tnode *n = tree_new(a, kind, 0, 0);

    n->key = key;
    n->kids = arena_alloc(a, sizeof(*n->kids));
    n->kids[0] = kid;
    n->n = 1;
    kid->parent = n;
    return n;
}

/* {nodeSelectorTerms: [{matchExpressions: reqs}]} */
static const struct tnode *selector_of(struct arena *a,
                                       const struct tnode *reqs)
{
    struct tnode *term = wrap(a, T_MAP, NULL,
                              rekey(a, reqs, "matchExpressions"));

    return wrap(a, T_MAP, NULL, wrap(a, T_SEQ, "nodeSelectorTerms", term));
}

/* ==== the cases ========================================================== */

struct tcase {
    const char *name;
    const struct tnode *doc, *expect;
    struct arena *a;
};

static int bool_of(const struct tnode *n)
{
    return n && n->kind == T_BOOL && n->boolean;
}

/* The node of a case: NULL for `node: null`. */
static int node_of(const struct tnode *n, struct na_node *out)
{
    if (!tree_is_map(n))
        return -1;
    memset(out, 0, sizeof(*out));
    out->name = tree_text(tree_get(n, "name"));
    out->labels = tree_get(n, "labels");
    out->labels_known = 1;
    return 0;
}

static void check_match(const struct tcase *c, enum na_answer got)
{
    const struct tnode *want = tree_get(c->expect, "match");

    CHECK_MSG(want && want->kind == T_BOOL
              && got == (bool_of(want) ? NA_YES : NA_NO),
              "%s: match %d, want %s", c->name, (int)got,
              want ? tree_text(want) : "(no expect.match)");
}

/* Compares the errors of s with expect.errors: type and field, in order.
 * Our field paths start at the NodeSelector; `from` is replaced by `to`
 * to read them as the Go test's path root does. */
static void check_errors(const struct tcase *c, const struct nodesel *s,
                         int rc, const char *from, const char *to)
{
    const struct tnode *want = tree_get(c->expect, "errors");
    size_t i, lf = strlen(from);
    int ok = tree_is_seq(want) && s->nerrs == want->n
             && (rc < 0) == (want->n > 0);

    for (i = 0; ok && i < want->n; i++) {
        const char *f = s->errs[i].field;
        char path[512];
        snprintf(path, sizeof(path), "%s%s", to,
                 strncmp(f, from, lf) ? f : f + lf);
        if (strcmp(s->errs[i].type, tree_text(tree_get(want->kids[i],
                                                       "type")))
            || strcmp(path, tree_text(tree_get(want->kids[i], "field"))))
            ok = 0;
    }
    CHECK_MSG(ok, "%s: errors differ (%zu, first %s %s)", c->name, s->nerrs,
              s->nerrs ? s->errs[0].type : "-",
              s->nerrs ? s->errs[0].field : "-");
}

/* NewNodeSelector (all-or-nothing parse) and Match */
static void op_selector(const struct tcase *c)
{
    struct nodesel s;
    struct na_node n;
    int rc = nodesel_compile(c->a, tree_get(c->doc, "selector"), &s);

    if (tree_get(c->expect, "errors")) {
        check_errors(c, &s, rc, "", "");
        return;
    }
    CHECK_MSG(rc == 0, "%s: does not compile", c->name);
    check_match(c, nodesel_match(&s, node_of(tree_get(c->doc, "node"), &n)
                                     ? NULL : &n));
}

/* MatchNodeSelectorTerms: LazyErrorNodeSelector, errors only fail terms */
static void op_terms(const struct tcase *c)
{
    struct nodesel s;
    struct na_node n;

    nodesel_compile(c->a, tree_get(c->doc, "selector"), &s);
    check_match(c, nodesel_match(&s, node_of(tree_get(c->doc, "node"), &n)
                                     ? NULL : &n));
}

/* GetRequiredNodeAffinity(pod).Match(node) */
static void op_pod(const struct tcase *c)
{
    const struct tnode *pod = tree_get(c->doc, "pod");
    struct na_required r;
    struct na_node n;

    na_required_init(c->a, tree_get(pod, "nodeSelector"),
                     tree_at(pod, "affinity.nodeAffinity."
                             "requiredDuringSchedulingIgnoredDuringExecution"),
                     &r);
    node_of(tree_get(c->doc, "node"), &n);
    check_match(c, na_required_match(&r, &n, NULL));
}

/* nodeSelectorRequirementsAsSelector(in, root) */
static void op_requirements(const struct tcase *c)
{
    struct nodesel s;
    struct na_node n = {"node", NULL, 1};
    int rc = nodesel_compile(c->a, selector_of(c->a, tree_get(c->doc, "in")),
                             &s);

    if (tree_get(c->expect, "errors")) {
        check_errors(c, &s, rc, "nodeSelectorTerms[0].matchExpressions",
                     "root");
        return;
    }
    CHECK_MSG(rc == 0, "%s: does not compile", c->name);
    if (bool_of(tree_get(c->expect, "nothing")))   /* labels.Nothing() */
        CHECK_MSG(s.nterms == 0 && nodesel_match(&s, &n) == NA_NO,
                  "%s: matches something", c->name);
}

/* labels.NewRequirement(key, op, values) */
static void op_requirement(const struct tcase *c)
{
    struct nodesel s;
    struct tnode *one = wrap(c->a, T_SEQ, NULL,
                             rekey(c->a, tree_get(c->doc, "requirement"),
                                   NULL));
    int rc = nodesel_compile(c->a, selector_of(c->a, one), &s);

    check_errors(c, &s, rc, "nodeSelectorTerms[0].matchExpressions[0].", "");
}

/* A label selector (requirements, or a Set as a Pod's nodeSelector) against
 * a label set */
static void op_labels(const struct tcase *c)
{
    const struct tnode *set = tree_get(c->doc, "nodeSelector");
    struct na_node n = {NULL, tree_get(c->doc, "labels"), 1};
    struct nodesel s;

    if (set)
        nodesel_from_labels(c->a, set, &s);
    else
        CHECK_MSG(nodesel_compile(c->a, selector_of(c->a, tree_get(
                      c->doc, "requirements")), &s) == 0,
                  "%s: does not compile", c->name);
    check_match(c, nodesel_match(&s, &n));
}

static const struct {
    const char *op;
    void (*run)(const struct tcase *c);
} ops[] = {
    {"selector", op_selector}, {"terms", op_terms}, {"pod", op_pod},
    {"requirements", op_requirements}, {"requirement", op_requirement},
    {"labels", op_labels},
};

static void run_cases(const char *path)
{
    struct arena a;
    struct ydocs docs;
    size_t len, i, k, ncases = 0, nskip = 0;
    char *text = check_read_file(path, &len);

    CHECK_MSG(text != NULL, "cannot read %s", path);
    if (!text)
        return;
    arena_init(&a, ARENA_CHUNK_BYTES);
    load_yaml(&a, text, len, &docs);
    CHECK_MSG(docs.n > 1 && tree_get(docs.v[0].root, "source"),
              "%s: no header document", path);
    for (i = 1; i < docs.n; i++) {
        struct tcase c;
        const char *op;
        CHECK_MSG(docs.v[i].error == NULL, "%s:%u: %s", path, docs.v[i].line,
                  docs.v[i].error ? docs.v[i].error : "");
        c.doc = docs.v[i].root;
        c.name = tree_text(tree_get(c.doc, "case"));
        c.expect = tree_get(c.doc, "expect");
        c.a = &a;
        if (!c.name)
            continue;
        if (tree_get(c.doc, "skip")) {
            nskip++;
            continue;
        }
        op = tree_text(tree_get(c.doc, "op"));
        for (k = 0; op && k < sizeof(ops) / sizeof(ops[0]); k++)
            if (!strcmp(op, ops[k].op))
                break;
        CHECK_MSG(op && k < sizeof(ops) / sizeof(ops[0]) && c.expect,
                  "%s: unknown op or no expect", c.name);
        if (!op || k == sizeof(ops) / sizeof(ops[0]) || !c.expect)
            continue;
        ops[k].run(&c);
        ncases++;
    }
    /* the file's cases all ran: a truncated file fails here */
    CHECK_MSG(ncases >= 90, "only %zu cases ran", ncases);
    printf("%zu Kubernetes cases run, %zu not transcribable (see skip:)\n",
           ncases, nskip);
    arena_release(&a);
    free(text);
}

/* ==== claimcheck's additions ============================================= */

static const struct tnode *yaml(struct arena *a, const char *text)
{
    struct ydocs d;

    load_yaml(a, text, strlen(text), &d);
    return d.n ? d.v[0].root : NULL;
}

/* One requirement on label k of a node whose label k is v. */
static enum na_answer one(struct arena *a, const char *req, const char *v,
                          int *rc)
{
    char buf[512];
    struct nodesel s;
    struct na_node n = {"n1", NULL, 1};

    snprintf(buf, sizeof(buf), "nodeSelectorTerms:\n- matchExpressions:\n"
             "  - %s\n", req);
    *rc = nodesel_compile(a, yaml(a, buf), &s);
    if (v) {
        snprintf(buf, sizeof(buf), "k: \"%s\"\n", v);
        n.labels = yaml(a, buf);
    }
    return nodesel_match(&s, &n);
}

static void test_parse_int(void)
{
    static const struct {
        const char *label;      /* the node's label value */
        enum na_answer gt5;     /* {key: k, operator: Gt, values: ["5"]} */
    } cases[] = {
        {"6", NA_YES}, {"5", NA_NO}, {"+6", NA_YES}, {"0006", NA_YES},
        {"-9223372036854775808", NA_NO}, {"9223372036854775807", NA_YES},
        /* past int64: ParseInt fails with ErrRange, so the test fails
         * (strtoll saturated to LLONG_MAX and said yes) */
        {"9223372036854775808", NA_NO}, {"99999999999999999999", NA_NO},
        /* not Go syntax */
        {" 6", NA_NO}, {"6 ", NA_NO}, {"1_000", NA_NO}, {"0x10", NA_NO},
        {"", NA_NO}, {"+", NA_NO}, {"6.0", NA_NO},
    };
    struct arena a;
    size_t i;
    int rc;

    arena_init(&a, ARENA_CHUNK_BYTES);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_MSG(one(&a, "{key: k, operator: Gt, values: [\"5\"]}",
                      cases[i].label, &rc) == cases[i].gt5 && rc == 0,
                  "label '%s' Gt 5", cases[i].label);
    /* the requirement's own value: a parse error, the term matches nothing */
    CHECK(one(&a, "{key: k, operator: Lt, values: [\"9223372036854775808\"]}",
              "1", &rc) == NA_NO && rc < 0);
    /* a negative value parses as an integer but is no label value (it
     * starts with '-'): NewRequirement rejects it */
    CHECK(one(&a, "{key: k, operator: Lt, values: [\"-1\"]}", "-5", &rc)
          == NA_NO && rc < 0);
    CHECK(one(&a, "{key: k, operator: Lt, values: [\"0\"]}", "-5", &rc)
          == NA_YES && rc == 0);
    CHECK(one(&a, "{key: k, operator: Gt, values: [\"-9223372036854775809\"]}",
              "1", &rc) == NA_NO && rc < 0);
    CHECK(one(&a, "{key: k, operator: Gt, values: [\"1\", \"2\"]}", "9", &rc)
          == NA_NO && rc < 0);
    arena_release(&a);
}

static void test_unknown_labels(void)
{
    struct arena a;
    struct nodesel s;
    struct na_required r;
    struct na_node blind = {"n1", NULL, 0}, other = {"n2", NULL, 0};
    enum na_part part;

    arena_init(&a, ARENA_CHUNK_BYTES);
    /* labels decide: unknown */
    nodesel_compile(&a, yaml(&a, "nodeSelectorTerms:\n- matchExpressions:\n"
                             "  - {key: zone, operator: In, values: [a]}\n"),
                    &s);
    CHECK(nodesel_match(&s, &blind) == NA_UNKNOWN);
    /* a field that fails decides the term; another term may be unknown */
    nodesel_compile(&a, yaml(&a, "nodeSelectorTerms:\n- matchExpressions:\n"
                             "  - {key: zone, operator: Exists}\n"
                             "  matchFields:\n"
                             "  - {key: metadata.name, operator: In, "
                             "values: [n1]}\n"), &s);
    CHECK(nodesel_match(&s, &blind) == NA_UNKNOWN);
    CHECK(nodesel_match(&s, &other) == NA_NO);
    nodesel_compile(&a, yaml(&a, "nodeSelectorTerms:\n- matchExpressions:\n"
                             "  - {key: zone, operator: Exists}\n"
                             "- matchFields:\n"
                             "  - {key: metadata.name, operator: In, "
                             "values: [n1]}\n"), &s);
    CHECK(nodesel_match(&s, &blind) == NA_YES);     /* YES wins an OR */
    CHECK(nodesel_match(&s, &other) == NA_UNKNOWN);
    {
        /* a node without a name has no fields: Kubernetes then skips
         * matchFields (nodeSelectorTerm.match: len(nodeFields) > 0) */
        struct na_node anon = {NULL, NULL, 1};
        nodesel_compile(&a, yaml(&a, "nodeSelectorTerms:\n- matchFields:\n"
                                 "  - {key: metadata.name, operator: In, "
                                 "values: [n1]}\n"), &s);
        CHECK(nodesel_match(&s, &anon) == NA_YES);
        CHECK(nodesel_match(&s, &other) == NA_NO);
    }
    /* a Pod: the nodeSelector is unknown, the affinity says no */
    na_required_init(&a, yaml(&a, "zone: a\n"),
                     yaml(&a, "nodeSelectorTerms:\n- matchFields:\n"
                          "  - {key: metadata.name, operator: NotIn, "
                          "values: [n1]}\n"), &r);
    CHECK(na_required_match(&r, &blind, &part) == NA_NO
          && part == NA_PART_AFFINITY);
    CHECK(na_required_match(&r, &other, &part) == NA_UNKNOWN
          && part == NA_PART_NONE);
    arena_release(&a);
}

int main(int argc, char **argv)
{
    run_cases(argc > 1 ? argv[1] : CASES);
    test_parse_int();
    test_unknown_labels();
    return CHECK_DONE();
}
