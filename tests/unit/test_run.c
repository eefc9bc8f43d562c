/*
 * test_run.c - a linting run's memory: a stream of documents is read one
 * document at a time, so documents that are not kept (other kinds, empty
 * ones) cost the run nothing and a checked pod only its identity; kept
 * objects stay where they were loaded, their strings shared
 * (strmap_intern), and documents of their kinds that are not kept are
 * rolled back (arena_rollback); the splitter yields the chunks one at a
 * time; run_on_read() hears of every document as it is read, pod-like
 * ones again in run_check(), and nothing the run keeps points into the
 * text (the linter lets a read file's pages go). Sizes are the arenas' own
 * counts: deterministic, no timing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/config.h"
#include "../../validate/diag.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/kinds.h"
#include "../../validate/limits.h"
#include "../../validate/load_yaml.h"
#include "../../validate/run.h"
#include "../../validate/strmap.h"
#include "../../validate/tree.h"
#include "check.h"

static CHECK_INIT;

/* n copies of doc (its "%d", if any, replaced by the copy's index), as
 * one stream */
static char *stream(const char *doc, int n, size_t *len)
{
    const char *at = strstr(doc, "%d");
    struct buf b;
    int i;

    buf_init(&b, LIMIT_FILE_BYTES);
    for (i = 0; i < n; i++) {
        if (!at) {
            buf_adds(&b, doc);
            continue;
        }
        buf_add(&b, doc, (size_t)(at - doc));
        buf_addf(&b, "%d", i);
        buf_adds(&b, at + 2);
    }
    *len = b.len;
    return b.p;
}

/* A checked run of engine e over text ("s.yaml"): its arena a and
 * findings l are set up here, run_free() and arena_release() are the
 * caller's */
static struct run *lint_text(const struct engine *e, struct arena *a,
                             struct diag_list *l, const char *text,
                             size_t len)
{
    struct run *r;

    arena_init(a, ARENA_CHUNK_BYTES);
    diag_list_init(l, a);
    r = run_new(e, NULL, a, l);
    run_add_text(r, "s.yaml", text, len);
    run_check(r);
    return r;
}

/* Bytes the run's arena obtained to lint n copies of doc; *nobj and
 * *ndiag get the objects seen and the findings. */
static size_t run_bytes(const struct engine *e, const char *doc, int n,
                        size_t *nobj, size_t *ndiag)
{
    struct arena a;
    struct diag_list l;
    struct run *r;
    size_t len, total;
    char *text = stream(doc, n, &len);

    r = lint_text(e, &a, &l, text, len);
    *nobj = run_objects(r);
    *ndiag = l.n;
    run_free(r);
    total = a.total;
    arena_release(&a);
    free(text);
    return total;
}

static void test_stream_memory(const struct engine *e)
{
    static const char cm[] = "---\napiVersion: v1\nkind: ConfigMap\n"
                             "metadata: {name: c%d}\ndata: {a: b}\n";
    static const char pod[] = "---\napiVersion: v1\nkind: Pod\n"
                              "metadata: {name: p%d, namespace: ml}\n"
                              "spec: {containers: [{name: c, image: x}]}\n";
    static const char claim[] = "---\napiVersion: resource.k8s.io/v1\n"
        "kind: ResourceClaim\nmetadata: {name: c%d, namespace: ml}\n"
        "spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
        "        deviceClassName: gpu.example.com\n        selectors:\n"
        "        - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n";
    size_t small, big, no, nd;

    /* documents of other kinds and empty ones: nothing per document */
    small = run_bytes(e, cm, 1000, &no, &nd);
    CHECK(no == 1000 && nd == 0);
    big = run_bytes(e, cm, 20000, &no, &nd);
    CHECK(no == 20000 && nd == 0);
    CHECK_MSG(big == small, "20,000 ConfigMaps took %zu bytes, 1,000 took "
              "%zu: not kept, they should cost nothing each", big, small);
    small = run_bytes(e, "---\n", 1000, &no, &nd);
    big = run_bytes(e, "---\n", 20000, &no, &nd);
    CHECK_MSG(big == small, "20,000 empty documents took %zu bytes, 1,000 "
              "took %zu", big, small);

    /* checked pods: their identity for per-object reports, no more */
    small = run_bytes(e, pod, 1000, &no, &nd);
    CHECK(no == 1000);
    big = run_bytes(e, pod, 41000, &no, &nd);
    CHECK(no == 41000);
    CHECK_MSG((big - small) / 40000 <= 16, "a checked pod costs %zu bytes "
              "of the run's arena", (big - small) / 40000);

    /* kept claims: the tree and the object, strings shared */
    small = run_bytes(e, claim, 1000, &no, &nd);
    CHECK(no == 1000 && nd == 0);
    big = run_bytes(e, claim, 11000, &no, &nd);
    CHECK(no == 11000 && nd == 0);
    /* 1,711 bytes here: 19 nodes of 56 bytes, kids vectors, the object
     * and its request views, its name index entry; each string once per
     * run (1,986 when nodes took 64 bytes and they and kids vectors were
     * padded to 16; 2,564 when every copy had its own strings and a
     * second index by namespace) */
    CHECK_MSG((big - small) / 10000 <= 1850, "a kept claim costs %zu bytes",
              (big - small) / 10000);
}

/* A document of a kind the rules know is loaded where it is kept (no
 * copy) and rolled back when it is not (arena_rollback): claims among
 * such documents that are dropped cost what claims alone do, and each
 * claim read back whole after the documents loaded over the dropped
 * ones (the pod finds its claim's request) */
static void test_kept_in_place(const struct engine *e)
{
    static const char claim[] = "---\napiVersion: resource.k8s.io/v1\n"
        "kind: ResourceClaim\nmetadata: {name: c%d, namespace: ml}\n"
        "spec:\n  devices:\n    requests:\n    - name: gpu\n      exactly:\n"
        "        deviceClassName: gpu.example.com\n";
    /* a known kind in a group it is not: read, checked, dropped */
    static const char other[] = "---\napiVersion: example.com/v1\n"
        "kind: ResourceClaim\nmetadata: {name: x, namespace: ml}\n"
        "spec: {a: [1, 2, 3], b: {c: d}}\n";
    static const char pod[] = "---\napiVersion: v1\nkind: Pod\n"
        "metadata: {name: p, namespace: ml}\nspec:\n  containers:\n"
        "  - name: c\n    image: x\n    resources: {claims: [{name: g, "
        "request: nope}]}\n  resourceClaims:\n  - {name: g, "
        "resourceClaimName: c0}\n";
    char mixed[1024], withpod[4096];
    size_t alone, mix, no, nd, nd_alone;

    snprintf(mixed, sizeof(mixed), "%s%s%s", claim, other, other);
    alone = run_bytes(e, claim, 2000, &no, &nd);
    CHECK(no == 2000 && nd == 0);
    mix = run_bytes(e, mixed, 2000, &no, &nd);
    CHECK(no == 6000 && nd == 0);
    CHECK_MSG(mix == alone, "2,000 claims took %zu bytes, with 4,000 "
              "dropped documents between them %zu", alone, mix);
    /* the pod's claim is read back from where it was loaded */
    snprintf(withpod, sizeof(withpod), "%s%s", pod, mixed);
    run_bytes(e, withpod, 1, &no, &nd_alone);
    snprintf(withpod, sizeof(withpod), "%s%s%s", mixed, pod, other);
    run_bytes(e, withpod, 1, &no, &nd);
    CHECK(nd_alone == 1 && nd == 1);
}

/* run_on_read()'s calls, as offsets into the text */
struct reads {
    const char *text;
    size_t n, from[16], to[16];
};

static void on_read(void *arg, const char *from, const char *to)
{
    struct reads *r = arg;

    if (r->n < 16) {
        r->from[r->n] = (size_t)(from - r->text);
        r->to[r->n] = (size_t)(to - r->text);
    }
    r->n++;
}

/* The findings of diag list l as one text (rule, object, place,
 * message, details), in arena a */
static const char *findings(struct arena *a, const struct diag_list *l)
{
    struct buf b;
    const char *s;
    size_t i, k;

    buf_init(&b, LIMIT_FILE_BYTES);
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        buf_addf(&b, "%s %s/%s %s/%s %s %s:%u:%u:%u %s\n", d->rule->id,
                 d->api_version, d->kind, d->ns, d->name, d->path, d->file,
                 d->doc_index, d->line, d->col, d->msg);
        for (k = 0; k < d->ndetails; k++)
            buf_addf(&b, "  %s\n", d->details[k]);
    }
    s = arena_strndup(a, b.p ? b.p : "", b.len);
    buf_release(&b);
    return s;
}

/* A stream's documents as run_on_read() hears of them: each once as it
 * is cut, in order, [from, to) its text; the pod-like ones again, in
 * order, when run_check() has read them. Then every byte of the text is
 * overwritten: what the run reports must be what it reported before
 * (nothing it keeps points into the text). */
static void test_read_hints(const struct engine *e)
{
    static const char *const docs[] = {
        "apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: ml}\n"
        "spec:\n  containers:\n  - name: c\n    image: x\n    resources: "
        "{claims: [{name: g, request: nope}]}\n  resourceClaims:\n  - "
        "{name: g, resourceClaimName: c0}\n",
        "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
        "metadata: {name: c0, namespace: ml}\nspec:\n  devices:\n"
        "    requests:\n    - name: gpu\n      exactly:\n"
        "        deviceClassName: gpu.example.com\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: {{ .x }}}\n",
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m}\n",
        "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d, "
        "namespace: ml}\nspec:\n  template:\n    spec:\n      containers:"
        "\n      - {name: c, image: x, resources: {limits: "
        "{nvidia.com/gpu: 1}}}\n      resourceClaims:\n      - {name: g, "
        "resourceClaimName: c0}\n",
    };
    static const int podlike[] = {0, 4};
    size_t at[6], i, len = 0;
    struct reads rd;
    struct arena a;
    struct diag_list l;
    struct run *r;
    struct buf b;
    const char *before = "";
    char *text;
    int pass;

    buf_init(&b, LIMIT_FILE_BYTES);
    for (i = 0; i < 5; i++) {
        buf_adds(&b, "---\n");
        at[i] = b.len;
        buf_adds(&b, docs[i]);
    }
    at[5] = b.len;
    arena_init(&a, ARENA_CHUNK_BYTES);
    for (pass = 0; pass < 2; pass++) {
        text = malloc(b.len + 1);
        memcpy(text, b.p, b.len + 1);
        len = b.len;
        memset(&rd, 0, sizeof(rd));
        rd.text = text;
        diag_list_init(&l, &a);
        r = run_new(e, NULL, &a, &l);
        run_on_read(r, on_read, &rd);
        run_add_text(r, "s.yaml", text, len);
        CHECK_MSG(rd.n == 5, "%zu documents heard of before run_check, "
                  "want 5", rd.n);
        for (i = 0; i < 5 && i < rd.n; i++)
            CHECK_MSG(rd.from[i] <= at[i] && rd.from[i] + 4 >= at[i]
                      && rd.to[i] == at[i + 1] - (i < 4 ? 4 : 0),
                      "document %zu heard of at [%zu, %zu), it is at "
                      "[%zu, %zu)", i, rd.from[i], rd.to[i], at[i],
                      at[i + 1]);
        run_check(r);
        CHECK_MSG(rd.n == 7, "%zu reads heard of in all, want 7", rd.n);
        for (i = 0; i < 2 && 5 + i < rd.n; i++)
            CHECK_MSG(rd.from[5 + i] == rd.from[podlike[i]]
                      && rd.to[5 + i] == rd.to[podlike[i]],
                      "read %zu of run_check is not pod-like document %d",
                      i, podlike[i]);
        if (pass == 1)
            memset(text, 'x', len);     /* every read done */
        if (pass == 0) {
            before = findings(&a, &l);
            /* the pod's claim is read from the kept claim */
            CHECK_MSG(l.n == 2 && strstr(before, "it defines 'gpu'")
                      && strstr(before, "pod-claim-unused"),
                      "%zu findings, want the unknown request and the "
                      "unused claim:\n%s", l.n, before);
        } else {
            CHECK_STR(findings(&a, &l), before);
        }
        run_free(r);
        free(text);
    }
    arena_release(&a);
    buf_release(&b);
}

static const struct tnode *first_root(struct arena *a, const char *text)
{
    struct ydocs d;

    load_yaml(a, text, strlen(text), &d);
    return d.n ? d.v[0].root : NULL;
}

/* 1 if the trees are alike: kinds, texts, keys, positions, parents */
static int same_tree(const struct tnode *x, const struct tnode *y)
{
    unsigned i;

    if (x->kind != y->kind || x->n != y->n || strcmp(x->str, y->str)
        || (!x->key != !y->key) || (x->key && strcmp(x->key, y->key))
        || x->line != y->line || x->col != y->col
        || x->key_line != y->key_line || x->quoted != y->quoted)
        return 0;
    for (i = 0; i < x->n; i++)
        if (y->kids[i]->parent != y || !same_tree(x->kids[i], y->kids[i]))
            return 0;
    return 1;
}

static void test_clone(void)
{
    struct arena a, b;
    struct strmap strings;
    const struct tnode *src, *items;
    struct tnode *c1, *c2;

    arena_init(&a, 4096);
    arena_init(&b, 4096);
    strmap_init(&strings, &b);
    src = first_root(&a, "kind: List\nitems:\n- {name: x, count: 2}\n"
                     "- {name: x, ok: yes}\n");
    c1 = tree_clone(&b, NULL, src);
    CHECK(c1 != NULL && c1->parent == NULL && same_tree(src, c1));
    CHECK(c1->kids[0]->str != src->kids[0]->str);  /* copied */
    c2 = tree_clone(&b, &strings, src);
    CHECK(same_tree(src, c2));
    items = tree_get(c2, "items");
    /* one copy of each repeated key and text */
    CHECK(items->kids[0]->kids[0]->key == items->kids[1]->kids[0]->key);
    CHECK(tree_get(items->kids[0], "name")->str
          == tree_get(items->kids[1], "name")->str);
    CHECK(tree_true(tree_get(items->kids[1], "ok")));
    arena_release(&a);      /* the copies outlive the source */
    CHECK_STR(tree_str(tree_get(items->kids[1], "name")), "x");
    CHECK(tree_path(&b, c2, tree_get(items->kids[1], "ok")) != NULL);
    CHECK_STR(tree_path(&b, c2, tree_get(items->kids[1], "ok")),
              "items[1].ok");
    CHECK(strmap_intern(&strings, "name") == strmap_intern(&strings, "name"));
    CHECK_STR(strmap_intern(&strings, "fresh"), "fresh");
    CHECK(strmap_get(&strings, "fresh") == NULL);
    arena_release(&b);
}

/* The iterator gives exactly the chunks of load_yaml_split(), bad
 * separators included, and stays at the end. */
static void split_same(const char *text)
{
    struct arena a;
    struct ychunks all;
    struct ychunk in, c;
    struct ysplit s;
    size_t n = 0;

    arena_init(&a, 4096);
    memset(&in, 0, sizeof(in));
    in.text = text;
    in.len = strlen(text);
    load_yaml_split(&a, &in, &all);
    load_yaml_split_init(&s, &in);
    while (load_yaml_split_next(&s, &a, &c)) {
        CHECK_MSG(n < all.n && c.text == all.v[n].text
                  && c.len == all.v[n].len
                  && c.line_off == all.v[n].line_off
                  && c.col_off == all.v[n].col_off
                  && !c.error == !all.v[n].error,
                  "chunk %zu of %s", n, text);
        n++;
    }
    CHECK_MSG(n == all.n, "%zu chunks, want %zu: %s", n, all.n, text);
    CHECK(!load_yaml_split_next(&s, &a, &c));
    arena_release(&a);
}

static void test_split(void)
{
    split_same("\xef\xbb\xbf# head\n---\na: 1\n---\n"
               "# only a comment\n---\nb: 2\n...\nc: 3\n");
    split_same("---\n---\na: 1\n--- x\nb: 2\n---x\nc: 3\n---\n");
    split_same("--- # c\na: 1\n---   \n\n---\n");
    split_same("");
    split_same("a: 1");
}

/* cx_memo() finds its recent keys by address, then text: a key written
 * into one buffer with other texts gets each text's own slot, a fixed key
 * its one slot, also after more keys than it keeps recent; so does
 * cx_memo_fixed() by a constant's address alone. */
static int memo_checks, memo_bad;

static void memo_rule(struct check_ctx *cx, const struct object *o)
{
    static const char *const fixed[] = {"m.a", "m.b", "m.c", "m.d", "m.e",
        "m.f", "m.g", "m.h", "m.i", "m.j", "m.k", "m.l"};
    static char one[] = "one", two[] = "two";
    char buf[32];
    void **a, **b, **f[12];
    size_t i;

    (void)o;
    memo_checks++;
    snprintf(buf, sizeof(buf), "buf.one");
    a = cx_memo(cx, buf);
    snprintf(buf, sizeof(buf), "buf.two");
    b = cx_memo(cx, buf);
    memo_bad += a == b;
    if (!*a)
        *a = one;
    if (!*b)
        *b = two;
    for (i = 0; i < 12; i++) {
        f[i] = cx_memo(cx, fixed[i]);
        if (!*f[i])
            *f[i] = f[i];
    }
    for (i = 0; i < 12; i++)
        memo_bad += cx_memo(cx, fixed[i]) != f[i] || *f[i] != f[i];
    snprintf(buf, sizeof(buf), "buf.one");
    memo_bad += cx_memo(cx, buf) != a || *a != one;
    snprintf(buf, sizeof(buf), "buf.two");
    memo_bad += cx_memo(cx, buf) != b || *b != two;
    memo_bad += cx_memo(cx, "buf.one") != a;       /* another address */
    memo_bad += cx_memo(cx, fixed[0]) == a;
    /* cx_memo_fixed(): the same slots by a constant's address, recent
     * (fixed[11]) or not (fixed[0], pushed out), or by its text first */
    memo_bad += cx_memo_fixed(cx, fixed[11]) != f[11];
    memo_bad += cx_memo_fixed(cx, fixed[0]) != f[0];
    memo_bad += cx_memo_fixed(cx, fixed[0]) != f[0];
    memo_bad += cx_memo_fixed(cx, fixed[5]) != f[5];
    memo_bad += cx_memo_fixed(cx, "buf.two") != b;
    memo_bad += cx_memo_fixed(cx, "buf.two") != b;
}

/* The built-in rules and memo_rule (rows sorted by id) */
static void test_memo(const struct config *cfg)
{
    static const struct rule memo = {"memo-test", CAT_INPUT, SEV_ERROR, 0,
        K_OTHER, memo_rule, 0, "memo", NULL, NULL, NULL, NULL};
    static const char doc[] = "---\napiVersion: v1\nkind: ConfigMap\n"
        "metadata: {name: c%d}\n";
    struct rule *v = calloc(rules_builtin.n + 1, sizeof(*v));
    struct ruleset rs;
    struct err err;
    struct engine *e;
    size_t i, k = 0, no, nd;

    if (!v)
        return;
    for (i = 0; i < rules_builtin.n; i++) {
        if (k == i && strcmp(rules_builtin.v[i].id, memo.id) > 0)
            v[k++] = memo;
        v[k++] = rules_builtin.v[i];
    }
    if (k == i)
        v[k++] = memo;
    rs.v = v;
    rs.n = k;
    e = engine_new(cfg, &rs, &err);
    CHECK(e != NULL);
    if (!e) {
        free(v);
        return;
    }
    run_bytes(e, doc, 3, &no, &nd);
    engine_free(e);
    free(v);
    CHECK(memo_checks == 3);
    CHECK_MSG(memo_bad == 0, "%d cx_memo() answers were wrong", memo_bad);
}

/* check_object visits the rules of an object's kind that are on, each
 * once, at the config's severity, and reports suppression-invalid under
 * its own id: a rule that is off, or live outside an audit, is never
 * called (engine.c's index and loop leave it out). */
static int on_calls, off_calls, live_calls;

static void on_rule(struct check_ctx *cx, const struct object *o)
{
    (void)o;
    on_calls++;
    report(cx, NULL, "on");
}

static void live_rule(struct check_ctx *cx, const struct object *o)
{
    (void)cx;
    (void)o;
    live_calls++;
}

static void off_rule(struct check_ctx *cx, const struct object *o)
{
    (void)cx;
    (void)o;
    off_calls++;
}

static void test_rules_visited(const struct config *cfg)
{
    static const struct rule extra[] = {
        {"aaa-live-test", CAT_INPUT, SEV_WARN, RULE_LIVE, K_OTHER | K_POD,
         live_rule, 0, "live", NULL, NULL, NULL, NULL},
        {"aaa-off-test", CAT_INPUT, SEV_OFF, 0, K_OTHER | K_POD, off_rule,
         0, "off", NULL, NULL, NULL, NULL},
        {"aaa-on-test", CAT_INPUT, SEV_WARN, 0, K_OTHER | K_POD, on_rule,
         0, "on", NULL, NULL, NULL, NULL},
    };
    const size_t nx = sizeof(extra) / sizeof(extra[0]);
    struct config_sev raise = {"aaa-on-test", SEV_ERROR, 0, NULL};
    struct config c = *cfg;     /* the caller's, aaa-on-test an error */
    static const char doc[] = "---\napiVersion: v1\nkind: ConfigMap\n"
        "metadata: {name: c}\n---\napiVersion: v1\nkind: Pod\n"
        "metadata:\n  name: p\n  annotations:\n"
        "    ignore.claimcheck.dev/no-such-rule: why\n";
    struct rule *v = calloc(rules_builtin.n + nx, sizeof(*v));
    struct ruleset rs;
    struct err err;
    struct engine *e;
    struct arena a;
    struct diag_list l;
    struct run *r;
    size_t i, sup = 0, on_errors = 0;

    if (!v)
        return;
    memcpy(v, extra, sizeof(extra));    /* "aaa-" sorts first */
    memcpy(v + nx, rules_builtin.v, rules_builtin.n * sizeof(*v));
    rs.v = v;
    rs.n = rules_builtin.n + nx;
    c.sevs = &raise;
    c.nsevs = 1;
    e = engine_new(&c, &rs, &err);
    CHECK(e != NULL);
    if (!e) {
        free(v);
        return;
    }
    r = lint_text(e, &a, &l, doc, sizeof(doc) - 1);
    for (i = 0; i < l.n; i++) {
        sup += !strcmp(l.v[i].rule->id, "suppression-invalid")
               && !strcmp(l.v[i].name, "p");
        on_errors += !strcmp(l.v[i].rule->id, "aaa-on-test")
                     && l.v[i].sev == SEV_ERROR;
    }
    run_free(r);
    arena_release(&a);
    engine_free(e);
    free(v);
    CHECK(on_calls == 2 && on_errors == 2);
    CHECK(off_calls == 0 && live_calls == 0);
    CHECK_MSG(sup == 1, "%zu suppression-invalid findings on the pod", sup);
}

/* l's findings of rule id, in order, in b: the names of their objects,
 * or (paths) their paths and lines */
static const char *findings_of(struct buf *b, const struct diag_list *l,
                               const char *id, int paths)
{
    size_t i;

    b->len = 0;
    if (b->cap)
        b->p[0] = '\0';
    for (i = 0; i < l->n; i++) {
        if (strcmp(l->v[i].rule->id, id))
            continue;
        if (paths)
            buf_addf(b, "%s%s@%u", b->len ? "," : "", l->v[i].path,
                     l->v[i].line);
        else
            buf_addf(b, "%s%s", b->len ? "," : "", l->v[i].name);
    }
    return b->p;
}

#define names_of(b, l, id) findings_of(b, l, id, 0)
#define paths_of(b, l, id) findings_of(b, l, id, 1)

/* rules/fields.c remembers what the tables say of the (apiVersion, kind)
 * pairs it saw last: a pair is told from one of the same kind in another
 * apiVersion, a pair with a finding has it on every object, and a pair
 * pushed out by eight others is looked up again. */
static void test_kind_memo(const struct engine *e)
{
    static const char *const docs[] = {
        "apiVersion: v1\nkind: Resourceclaim\nmetadata: {name: a}\n",
        "apiVersion: resource.k8s.io/v1\nkind: Resourceclaim\n"
        "metadata: {name: b}\n",
        "apiVersion: resource.k8s.io/v1\nkind: Resourceclaim\n"
        "metadata: {name: c}\n",
        "apiVersion: apps/v1\nkind: Pod\nmetadata: {name: d}\n"
        "spec: {bogus: 1}\n",
        "apiVersion: v1\nkind: Pod\nmetadata: {name: e}\n"
        "spec: {bogus: 1}\n",
    };
    struct arena a;
    struct diag_list l;
    struct buf b, names;
    struct run *r;
    size_t i;

    buf_init(&b, 1 << 16);
    buf_init(&names, 1 << 12);
    for (i = 0; i < 5; i++)
        buf_addf(&b, "---\n%s", docs[i]);
    for (i = 0; i < 9; i++)     /* more pairs than are remembered */
        buf_addf(&b, "---\napiVersion: example.com/v%zu\nkind: Thing\n"
                 "metadata: {name: t%zu}\n", i, i);
    buf_addf(&b, "---\n%s---\n%s", docs[2], docs[4]);
    r = lint_text(e, &a, &l, b.p, b.len);
    CHECK_STR(names_of(&names, &l, "input-object"), "b,c,c");
    CHECK_STR(names_of(&names, &l, "unknown-field"), "e,e");
    run_free(r);
    arena_release(&a);
    buf_release(&names);
    buf_release(&b);
}

struct paths_want {
    const char *id;             /* a rule */
    const char *paths;          /* paths_of() its findings */
};

/* Lints doc: the findings of each rule of want[0..n) where it says and,
 * when msg is given, finding msg_at's message msg */
static void check_paths(const struct engine *e, const char *doc, size_t len,
                        const struct paths_want *want, size_t n,
                        size_t msg_at, const char *msg)
{
    struct arena a;
    struct diag_list l;
    struct buf paths;
    struct run *r;
    size_t i;

    buf_init(&paths, 1 << 12);
    r = lint_text(e, &a, &l, doc, len);
    for (i = 0; i < n; i++)
        CHECK_STR(paths_of(&paths, &l, want[i].id), want[i].paths);
    if (msg) {
        CHECK(l.n > msg_at);
        if (l.n > msg_at)
            CHECK_STR(l.v[msg_at].msg, msg);
    }
    run_free(r);
    arena_release(&a);
    buf_release(&paths);
}

/* object-metadata reads every member of metadata in one pass
 * (rules/metadata.c): each one wrong, each one reported where it is */
static void test_metadata_members(const struct engine *e)
{
    static const char doc[] = "apiVersion: v1\nkind: Pod\nmetadata:\n"
        "  managedFields: [{operation: X}]\n"
        "  finalizers: [\"bad finalizer!\"]\n"
        "  ownerReferences: [{name: o, uid: u, kind: K}]\n"
        "  annotations: {\"bad key!\": x}\n"
        "  labels: {\"bad key!\": x}\n"
        "  generation: -1\n"
        "  namespace: Bad_NS\n"
        "  name: Bad_Name\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {generateName: Bad_}\n";
    static const struct paths_want want[] = {
        {"object-metadata", "metadata.name@11,metadata.namespace@10,"
         "metadata.generation@9,metadata.labels@8,"
         "metadata.annotations@7,metadata.ownerReferences.apiVersion@6,"
         "metadata.finalizers@5,metadata.managedFields[0].operation@4,"
         "metadata.generateName@15"},
    };

    check_paths(e, doc, sizeof(doc) - 1, want, 1, 0, NULL);
}

/* The field walk (rules/fields.c) judges every leaf against its type, a
 * string in a string field passed over without a call: a number for a
 * string, a string for an int32, a bool or a list of strings, a number in
 * a list of strings are reported, strings where strings belong are not. */
static void test_leaf_types(const struct engine *e)
{
    static const char doc[] = "apiVersion: apps/v1\nkind: Deployment\n"
        "metadata:\n  name: 5\n  labels: {a: b}\nspec:\n"
        "  replicas: \"x\"\n  paused: \"no\"\n  minReadySeconds: 1\n"
        "  strategy: {type: Recreate}\n  selector: {matchLabels: {a: b}}\n"
        "  template:\n    metadata: {labels: {a: b}}\n    spec:\n"
        "      containers: [{name: c, image: x, args: [1, \"s\"],\n"
        "                    command: s}]\n";
    static const struct paths_want want[] = {
        {"input-object", "metadata.name@4,spec.replicas@7,spec.paused@8,"
         "spec.template.spec.containers[0].args[0]@15,"
         "spec.template.spec.containers[0].command@16"},
    };

    /* finding 1: Go's path of the field, from the root (the walk's own) */
    check_paths(e, doc, sizeof(doc) - 1, want, 1, 1, "cannot unmarshal "
                "string into Go struct field DeploymentSpec.spec.replicas of "
                "type int32");
}

/* The field walk remembers the field each of a type's first members had
 * (rules/fields.c): members in another order, an unknown one where a known
 * one was, a near miss of the one there before are all read anew. */
static void test_field_order(const struct engine *e)
{
    static const char doc[] = "---\napiVersion: v1\nkind: Pod\n"
        "metadata: {name: p1, labels: {a: b}}\n"
        "spec: {containers: [{name: c, image: x}]}\n"
        "---\napiVersion: v1\nbogus: 1\nkind: Pod\nmetadata: {name: p2}\n"
        "---\nkind: Pod\napiVersion: v1\n"
        "metadata: {labels: {a: b}, name: p3}\n"
        "spec: {containers: [{image: x, name: c}]}\n"
        "---\napiVersion: v1\nkind: Pod\nmetadata: {name: p4, nme: x}\n"
        "spec: {containers: [{name: c, image: x, imag: y}]}\n";
    static const struct paths_want want[] = {
        {"unknown-field", "bogus@8,metadata.nme@19,spec.containers[0].imag@20"},
        {"input-object", ""},
    };

    check_paths(e, doc, sizeof(doc) - 1, want, 2, 0, NULL);
}

/* The identities of checked pods outlive their documents: each one's
 * apiVersion, kind and namespace read as written, whether or not the one
 * before had the same (they are shared when it had). */
static void test_checked_identities(const struct engine *e)
{
    static const char *const docs[][4] = {
        {"v1", "Pod", "a", "p0"}, {"v1", "Pod", "a", "p1"},
        {"apps/v1", "Deployment", "a", "d2"}, {"v1", "Pod", "b", "p3"},
        {"batch/v1", "Job", "", "j4"}, {"batch/v1", "Job", "", "j5"},
        {"v1", "Pod", "b", "p6"}, {"v1", "Pod", "a", "p7"},
    };
    const size_t n = sizeof(docs) / sizeof(docs[0]);
    const struct run_obj *objs;
    struct arena a;
    struct diag_list l;
    struct buf b;
    struct run *r;
    size_t i, got, bad = 0;

    buf_init(&b, 1 << 16);
    for (i = 0; i < n; i++) {
        buf_addf(&b, "---\napiVersion: %s\nkind: %s\nmetadata:\n  name: %s\n",
                 docs[i][0], docs[i][1], docs[i][3]);
        if (*docs[i][2])
            buf_addf(&b, "  namespace: %s\n", docs[i][2]);
        if (strcmp(docs[i][1], "Pod"))
            buf_adds(&b, "spec:\n  template:\n    spec:\n      containers:"
                     " [{name: c, image: x}]\n");
        else
            buf_adds(&b, "spec:\n  containers: [{name: c, image: x}]\n");
    }
    r = lint_text(e, &a, &l, b.p, b.len);
    objs = run_checked(r, &got);
    CHECK(got == n);
    for (i = 0; i < got && i < n; i++)
        bad += strcmp(objs[i].api_version, docs[i][0])
               || strcmp(objs[i].kind, docs[i][1])
               || strcmp(objs[i].ns, docs[i][2])
               || strcmp(objs[i].name, docs[i][3]);
    CHECK_MSG(bad == 0, "%zu identities read otherwise", bad);
    run_free(r);
    arena_release(&a);
    buf_release(&b);
}

int main(void)
{
    struct config cfg;
    struct engine *e;
    struct err err;

    config_init(&cfg);
    e = engine_new(&cfg, &rules_builtin, &err);
    CHECK(e != NULL);
    test_stream_memory(e);
    test_kept_in_place(e);
    test_read_hints(e);
    test_clone();
    test_split();
    test_memo(&cfg);
    test_rules_visited(&cfg);
    test_checked_identities(e);
    test_kind_memo(e);
    test_metadata_members(e);
    test_leaf_types(e);
    test_field_order(e);
    engine_free(e);
    config_release(&cfg);
    return CHECK_DONE();
}
