/*
 * test_decode.c - claimcheck's manifest reader against Kubernetes' own
 * decoder tables, transcribed in tests/k8s/decode/: go-yaml v2 resolution
 * (resolve.yaml), sigs.k8s.io/yaml (yaml2json.yaml) and apimachinery's
 * stream reading as kubectl uses it (split.yaml, through stream.c). Each input is read as claimcheck reads it
 * and the tree rendered as YAMLToJSON writes JSON (tree_to_json()); the
 * result must be the JSON, or the error, Kubernetes gives. Every case
 * agrees or is skipped with its reason printed here ("skip ...").
 *
 * Run from the repository root (make test does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/load_yaml.h"
#include "../../validate/stream.h"
#include "../../validate/tree.h"
#include "check.h"

#define DATA "tests/k8s/decode/"

static CHECK_INIT;
static int skips;

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;

    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n) {
        fclose(f);
        free(p);
        return NULL;
    }
    p[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return p;
}

/* The root of a data file (read with claimcheck's own reader). */
static const struct tnode *data_file(struct arena *a, const char *name)
{
    struct ydocs d;
    size_t len;
    char *text = slurp(name, &len);

    if (!text) {
        CHECK_MSG(0, "cannot read %s", name);
        return NULL;
    }
    load_yaml(a, arena_strndup(a, text, len), len, &d);
    free(text);
    CHECK_MSG(d.n == 1 && d.v[0].root, "%s does not parse: %s", name,
              d.n ? d.v[0].error : "empty");
    return d.n == 1 ? d.v[0].root : NULL;
}

static const char *field(const struct tnode *n, const char *key)
{
    return tree_str(tree_get(n, key));
}

static void skip(const char *file, const char *name, const char *why)
{
    printf("skip %s %s: %s\n", file, name, why);
    skips++;
}

/* Go's base64.StdEncoding for the UTF-16 inputs of resolve.yaml */
static size_t unbase64(const char *in, char *out)
{
    static const char al[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned acc = 0, bits = 0;
    size_t k = 0;

    for (; *in && *in != '='; in++) {
        const char *p = strchr(al, *in);
        if (!p)
            continue;
        acc = (acc << 6) | (unsigned)(p - al);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[k++] = (char)((acc >> bits) & 0xff);
        }
    }
    return k;
}

/* One YAML text as YAMLToJSON reads it (go-yaml on the whole text, no
 * kubectl splitting): "json:..." or "error:...", arena-owned. */
static const char *yaml_to_json(struct arena *a, const char *text, size_t len)
{
    struct ychunk c;
    struct ydoc d;
    struct buf b;
    const char *why, *out;

    memset(&c, 0, sizeof(c));
    c.text = text;
    c.len = len;
    load_yaml_chunk(a, NULL, &c, &d);
    if (d.error)
        return arena_printf(a, "error:%s", d.error);
    if (!d.root)
        return "json:null";
    buf_init(&b, 1 << 24);
    if (tree_to_json(&b, d.root, &why) < 0)
        out = arena_printf(a, "error:%s", why);
    else
        out = arena_printf(a, "json:%s", b.p);
    buf_release(&b);
    return out;
}

/* A skip list entry: a case and why claimcheck differs on purpose. */
struct skip_row {
    const char *name;
    const char *why;
};

static const char *skipped(const struct skip_row *rows, const char *name)
{
    for (; rows->name; rows++)
        if (!strcmp(rows->name, name))
            return rows->why;
    return NULL;
}

/* Where claimcheck words an error its own way: go-yaml's text (or a
 * part of it) -> a part of claimcheck's message for the same problem. */
static const struct {
    const char *go, *ours;
} same_error[] = {
    {"unsupported map key of type: %!s(<nil>)", "a null key"},
    {"invalid map key", "a mapping key must be a scalar"},
    {"document contains excessive aliasing", "alias expansion exceeds"},
    /* libyaml's events reach the complex key before the missing one */
    {"did not find expected key", "a mapping key must be a scalar"},
};

/* 1 if our error message says what go-yaml's says: its text after the
 * "yaml: " and "line N: " prefixes is in ours, or a same_error row. */
static int error_agrees(const char *ours, const char *go)
{
    size_t i;

    if (!go)
        return 1;
    if (!strncmp(go, "yaml: ", 6))
        go += 6;
    if (!strncmp(go, "line ", 5) && strstr(go, ": "))
        go = strstr(go, ": ") + 2;
    if (strstr(ours, go))
        return 1;
    for (i = 0; i < sizeof(same_error) / sizeof(same_error[0]); i++)
        if (strstr(go, same_error[i].go) && strstr(ours, same_error[i].ours))
            return 1;
    return 0;
}

/* expected: json text (NULL if an error is expected) */
static void compare(const char *file, const char *name, const char *got,
                    const char *want_json, const char *want_err)
{
    if (want_json) {
        CHECK_MSG(!strncmp(got, "json:", 5) && !strcmp(got + 5, want_json),
                  "%s %s: got %s, want json:%s", file, name, got,
                  want_json);
    } else {
        CHECK_MSG(!strncmp(got, "error:", 6)
                  && error_agrees(got + 6, want_err),
                  "%s %s: got %s, want the error '%s'", file, name, got,
                  want_err ? want_err : "");
    }
}

/* ==== resolve.yaml: go-yaml v2 decode tables ============================ */

static const struct skip_row resolve_skips[] = {
    {"unmarshalTests[130]", "a string of NUL bytes (!!binary): claimcheck's "
     "tree keeps strings NUL-terminated, so it ends at the first NUL; no "
     "Kubernetes field claimcheck reads takes binary data"},
    {NULL, NULL}
};

static void run_resolve(struct arena *a)
{
    const struct tnode *root = data_file(a, DATA "resolve.yaml");
    const struct tnode *cases = tree_get(root, "cases");
    size_t i;

    CHECK(tree_is_seq(cases) && cases->n > 200);
    for (i = 0; cases && i < cases->n; i++) {
        const struct tnode *c = cases->kids[i];
        const char *name = field(c, "case"), *why;
        const char *text = field(c, "yaml"), *b64 = field(c, "yaml_base64");
        size_t len;
        char *buf = NULL;

        why = skipped(resolve_skips, name);
        if (why) {
            skip("resolve.yaml", name, why);
            continue;
        }
        if (b64) {
            buf = arena_alloc(a, strlen(b64) + 1);
            len = unbase64(b64, buf);
            text = buf;
        } else {
            len = strlen(text);
        }
        compare("resolve.yaml", name,
                yaml_to_json(a, arena_strndup(a, text, len), len),
                field(c, "json"), field(c, "error"));
    }
}

/* ==== yaml2json.yaml: sigs.k8s.io/yaml ================================== */

static int fatal_for(const struct tnode *c, const char *fn)
{
    const struct tnode *f = tree_get(c, "fatal");
    size_t i;

    for (i = 0; tree_is_seq(f) && i < f->n; i++)
        if (tree_str(f->kids[i]) && !strcmp(tree_str(f->kids[i]), fn))
            return 1;
    return 0;
}

/* The json name of Go field `name` of struct `into` (targets section) */
static const char *target_json(const struct tnode *targets, const char *into,
                               const char *name)
{
    const struct tnode *t = tree_get(targets, into[0] == '*' ? into + 1
                                                             : into);
    size_t i;

    for (i = 0; tree_is_seq(t) && i < t->n; i++)
        if (!strcmp(field(t->kids[i], "field"), name))
            return field(t->kids[i], "json") ? field(t->kids[i], "json")
                                             : name;
    return NULL;
}

static void run_yaml2json(struct arena *a)
{
    const struct tnode *root = data_file(a, DATA "yaml2json.yaml");
    const struct tnode *sec = tree_get(root, "yaml_to_json");
    const struct tnode *targets = tree_get(root, "targets");
    size_t i;

    CHECK(tree_is_seq(sec) && sec->n > 20);
    for (i = 0; sec && i < sec->n; i++) {
        const struct tnode *c = sec->kids[i];
        const char *name = field(c, "case"), *text = field(c, "yaml");

        compare("yaml2json.yaml", name,
                yaml_to_json(a, text, strlen(text)),
                fatal_for(c, "YAMLToJSON") ? NULL : field(c, "json"),
                field(c, "error"));
    }
    /* unmarshal: sigs.k8s.io/yaml.Unmarshal into Go structs, whose field
     * names match case-insensitively (the API path never does that:
     * STRICT.md 2). What carries over is the key each YAML key becomes:
     * a one-field result names the field the key matched. */
    sec = tree_get(root, "unmarshal");
    for (i = 0; sec && i < sec->n; i++) {
        const struct tnode *c = sec->kids[i];
        const char *name = field(c, "case"), *text = field(c, "yaml");
        const char *dec = field(c, "decoded"), *into = field(c, "into");
        const char *got, *colon, *want;
        char fname[64];

        colon = dec ? strchr(dec, ':') : NULL;
        if (fatal_for(c, "Unmarshal") || tree_get(c, "options") || !dec
            || !into || dec[0] != '{' || strchr(dec, ',') || !colon
            || colon - dec - 1 >= 63) {
            skip("yaml2json.yaml", name, "decodes into Go values with "
                 "sigs.k8s.io/yaml.Unmarshal (case-insensitive Go field "
                 "matching, Go types); the API path decodes YAMLToJSON's "
                 "output with sigs.k8s.io/json instead (STRICT.md 2), and "
                 "the YAMLToJSON half is in yaml_to_json");
            continue;
        }
        memcpy(fname, dec + 1, (size_t)(colon - dec - 1));
        fname[colon - dec - 1] = '\0';
        got = yaml_to_json(a, text, strlen(text));
        if (!strncmp(into, "*map[string]", 12) && fname[0] == '"') {
            /* a string map: the decoded key is the JSON key itself */
            CHECK_MSG(!strncmp(got, "json:{", 6)
                      && !strncmp(got + 6, fname, strlen(fname))
                      && got[6 + strlen(fname)] == ':',
                      "yaml2json.yaml %s: got %s, want the key %s", name,
                      got, fname);
            continue;
        }
        want = target_json(targets, into, fname);
        if (!want || strncmp(got, "json:{\"", 7)) {
            skip("yaml2json.yaml", name, "not a one-key mapping into a "
                 "known target field");
            continue;
        }
        /* encoding/json matches the key to the json name exactly, else
         * case-insensitively */
        CHECK_MSG(!strncasecmp(got + 7, want, strlen(want))
                  && got[7 + strlen(want)] == '"',
                  "yaml2json.yaml %s: key of %s does not match field %s "
                  "(json name %s)", name, got, fname, want);
    }
    sec = tree_get(root, "errors");
    for (i = 0; sec && i < sec->n; i++) {
        const struct tnode *c = sec->kids[i];
        const char *name = field(c, "case"), *text = field(c, "yaml");
        const struct tnode *p = tree_get(c, "prefix");

        const char *got = yaml_to_json(a, text, strlen(text));
        int want_err = field(p, "YAMLToJSON") != NULL;

        CHECK_MSG(want_err == !strncmp(got, "error:", 6), "yaml2json.yaml "
                  "%s: got %s, want %s", name, got, want_err
                  ? "an error" : "json");
    }
}

/* ==== split.yaml: apimachinery's stream readers ========================== */

/* A stream as claimcheck reads it (peek: the JSON guess's reach; 0: YAML
 * only, as NewYAMLToJSONDecoder): the documents as JSON, one per line,
 * empty and null ones left out (kubectl skips them: SPLIT.md 4), and
 * whether a document failed and whether the reader ended in JSON mode. */
struct read_result {
    struct buf docs;        /* JSON texts, '\n' after each */
    int errors;
    int json;               /* every document was JSON */
    size_t before_error;    /* documents before the first error */
    const char *first_error;    /* its message */
    int first_error_json;       /* ... is the JSON reader's */
};

static void read_stream(struct arena *a, const char *text, size_t peek,
                        struct read_result *r)
{
    struct sdocs docs;
    size_t i, n = 0;

    memset(r, 0, sizeof(*r));
    buf_init(&r->docs, 1 << 20);
    stream_split(a, text, strlen(text), peek, &docs);
    r->json = docs.n > 0;
    for (i = 0; i < docs.n; i++) {
        struct ydoc d;
        const char *why;
        size_t at = r->docs.len;
        r->json &= docs.v[i].json;
        stream_load_doc(NULL, a, NULL, &docs.v[i], &d);
        if (d.error) {
            if (!r->errors++) {
                r->before_error = n;
                r->first_error = d.error;
                r->first_error_json = docs.v[i].json
                                      || d.error == docs.v[i].error;
            }
            continue;
        }
        if (!d.root || d.root->kind == T_NULL
            || (d.root->kind == T_MAP && !d.root->n))
            continue;
        if (tree_to_json(&r->docs, d.root, &why) < 0) {
            r->docs.len = at;
            if (!r->errors++)
                r->before_error = n;
            continue;
        }
        buf_addc(&r->docs, '\n');
        n++;
    }
    if (!r->errors)
        r->before_error = n;
}

/* The expected documents, '\n'-joined, without '{}' (see read_stream) */
static void want_docs(const struct tnode *list, struct buf *out,
                      size_t *n)
{
    size_t i;

    buf_init(out, 1 << 20);
    *n = 0;
    for (i = 0; tree_is_seq(list) && i < list->n; i++) {
        const char *d = tree_str(list->kids[i]);
        if (!d || !strcmp(d, "{}"))
            continue;
        buf_adds(out, d);
        buf_addc(out, '\n');
        ++*n;
    }
}

/* kubectl stops at an error (and loses the document before a bad `---`);
 * claimcheck reports it and reads on: what kubectl returned must be what
 * claimcheck read before its first error. */
static void compare_stream(const char *name, const struct read_result *r,
                           const struct tnode *want_list, int want_error,
                           const char *want_mode)
{
    struct buf want;
    size_t nwant, i, off = 0;

    want_docs(want_list, &want, &nwant);
    for (i = 0; i < nwant && off <= r->docs.len; i++) {
        const char *nl = memchr(r->docs.p + off, '\n', r->docs.len - off);
        if (!nl)
            break;
        off = (size_t)(nl - r->docs.p) + 1;
    }
    if (want_error)
        CHECK_MSG(r->errors && nwant <= r->before_error
                  && !strncmp(r->docs.p, want.p, want.len),
                  "split.yaml %s: got %d errors and\n%s(%zu before the "
                  "first error), want an error after\n%s", name,
                  r->errors, r->docs.p, r->before_error, want.p);
    else
        CHECK_MSG(!r->errors && !strcmp(r->docs.p, want.p),
                  "split.yaml %s: got %d errors and\n%swant\n%s", name,
                  r->errors, r->docs.p, want.p);
    if (want_mode)
        CHECK_MSG(!strcmp(want_mode, r->json ? "json" : "yaml"),
                  "split.yaml %s: ended in %s mode, want %s", name,
                  r->json ? "json" : "yaml", want_mode);
    if (want_error && r->before_error > nwant)
        printf("note split.yaml %s: claimcheck also read %zu document(s) "
               "kubectl loses at its error\n", name,
               r->before_error - nwant);
    buf_release(&want);
}

static void run_split(struct arena *a)
{
    const struct tnode *root = data_file(a, DATA "split.yaml");
    const struct tnode *sec = tree_get(root, "yaml_or_json_decoder");
    size_t i;

    CHECK(tree_is_seq(sec) && sec->n > 20);
    for (i = 0; sec && i < sec->n; i++) {
        const struct tnode *c = sec->kids[i];
        const struct tnode *obs = tree_get(c, "observed");
        struct read_result r;
        long long peek;

        CHECK(tree_int(tree_get(c, "buffer_size"), &peek) == 0);
        read_stream(a, field(c, "stream"), (size_t)peek, &r);
        compare_stream(field(c, "case"), &r, tree_get(obs, "documents"),
                       field(obs, "error") != NULL, field(obs, "decoder"));
        buf_release(&r.docs);
    }
    sec = tree_get(root, "split_yaml_document");
    for (i = 0; sec && i < sec->n; i++)
        skip("split.yaml", field(sec->kids[i], "case"), "the apiserver's "
             "watch/stream framer (splitYAMLDocument), not how kubectl "
             "reads a file");
    sec = tree_get(root, "decoders");
    for (i = 0; sec && i < sec->n; i++) {
        const struct tnode *c = sec->kids[i];
        const char *name = field(c, "case"), *reader = field(c, "reader");
        const struct tnode *exp = tree_get(c, "expect");
        const struct tnode *obs = tree_get(c, "observed");
        struct read_result r;

        if (!strcmp(reader, "NewYAMLToJSONDecoder")) {
            read_stream(a, field(c, "stream"), 0, &r);
            compare_stream(name, &r, tree_get(exp, "documents"),
                           tree_get(exp, "error_type") != NULL, NULL);
        } else if (!strcmp(reader, "NewYAMLOrJSONDecoder")) {
            const char *type = field(obs, "error_type");
            long long peek;
            if (!type)
                type = field(exp, "error_type");
            CHECK(type && tree_int(tree_get(c, "buffer_size"), &peek) == 0);
            read_stream(a, field(c, "stream"), (size_t)peek, &r);
            compare_stream(name, &r, NULL, 1, NULL);
            /* when both readers fail, kubectl reports the JSON error */
            CHECK_MSG(type && r.errors
                      && (strcmp(type, "JSONSyntaxError") == 0)
                         == r.first_error_json,
                      "split.yaml %s: the first error is %s's, want a %s",
                      name, r.first_error_json ? "JSON" : "YAML", type);
            if (field(exp, "error") && strstr(field(exp, "error"), "offset ")
                && r.first_error) {
                /* Go's offset counts the bytes read, the bad one too: our
                 * byte is that one's index */
                const char *off = strstr(field(exp, "error"), "offset ") + 7;
                char at[32];
                snprintf(at, sizeof(at), "byte %ld ",
                         strtol(off, NULL, 10) - 1);
                CHECK_MSG(strstr(r.first_error, at) != NULL, "split.yaml "
                          "%s: '%s' does not name the %s", name,
                          r.first_error, at);
            }
        } else if (!strcmp(reader, "GuessJSONStream")) {
            long long peek;
            CHECK(tree_int(tree_get(c, "buffer_size"), &peek) == 0);
            read_stream(a, field(c, "stream"), (size_t)peek, &r);
            CHECK_MSG(r.json == tree_true(tree_get(exp, "is_json")),
                      "split.yaml %s: JSON guess", name);
        } else {
            skip("split.yaml", name, "the apiserver's document framer "
                 "(NewDocumentDecoder, bufio.Scanner), not how kubectl "
                 "reads a file");
            continue;
        }
        buf_release(&r.docs);
    }
    sec = tree_get(root, "unmarshal");
    for (i = 0; sec && i < sec->n; i++) {
        const struct tnode *c = sec->kids[i];
        const char *name = field(c, "case"), *text = field(c, "yaml");
        const char *expect = field(c, "expect");
        struct ychunk ch;
        struct ydoc d;
        const struct tnode *v;

        if (!strstr(expect, "is int64")) {
            skip("split.yaml", name, "a Go map with int keys as the target, "
                 "not the interface{} decoding manifests get");
            continue;
        }
        memset(&ch, 0, sizeof(ch));
        ch.text = text;
        ch.len = strlen(text);
        load_yaml_chunk(a, NULL, &ch, &d);
        v = d.root;
        if (tree_is_map(v) || tree_is_seq(v))
            v = v->kids[0];
        CHECK_MSG(v && v->kind == T_INT, "split.yaml %s: %s", name, expect);
    }
}

/* SPLIT.md section 6: the splits observed with kubectl's reader (4096
 * peek), as rows: the stream, the documents ('\n' after each, empty and
 * null ones left out), whether kubectl fails */
static const struct {
    const char *stream, *docs;
    int error;
} observed_splits[] = {
    {"a: 1\n...\nb: 2\n", "{\"a\":1}\n", 0},
    {"a: 1\n...\n---\nb: 2\n", "{\"a\":1}\n{\"b\":2}\n", 0},
    {"a: 1\n... # end\nb: 2\n", "{\"a\":1}\n", 0},
    {"--- !!map\na: 1\n", "", 1},
    {"a: 1\n--- |\n  text\n", "", 1},
    {"a: 1\n----\nb: 2\n", "", 1},
    {"a: 1\n ---\nb: 2\n", "{\"a\":\"1 ---\",\"b\":2}\n", 0},
    {"a: 1\n---#c\nb: 2\n", "{\"a\":1}\n{\"b\":2}\n", 0},
    {"---\n# only a comment\n---\na: 1\n", "{\"a\":1}\n", 0},
    {"# leading comment\n---\na: 1\n", "{\"a\":1}\n", 0},
    {"# leading comment\n{\"a\": 1}\n", "{\"a\":1}\n", 0},
    {"---\n---\na: 1\n", "{\"a\":1}\n", 0},
    {"a: 1\n---\n\n---\nb: 2\n", "{\"a\":1}\n{\"b\":2}\n", 0},
    {"null\n---\na: 1\n", "{\"a\":1}\n", 0},
    {"a: 1\r\n---\r\nb: 2\r\n", "{\"a\":1}\n{\"b\":2}\n", 0},
    {"\xef\xbb\xbf" "a: 1\n---\nb: 2\n", "{\"a\":1}\n{\"b\":2}\n", 0},
    {"%YAML 1.1\n---\na: 1\n", "", 1},
    {"{\"a\": 1}\n{\"b\": 2}\n", "{\"a\":1}\n{\"b\":2}\n", 0},
    {"{\"a\": 1}\n---\n{\"b\": 2}\n{\"c\": 3}\n",
     "{\"a\":1}\n{\"b\":2}\n", 0},
    {"{\"a\": 1, \"a\": 2}\n", "{\"a\":2}\n", 0},
    {"a: 1\na: 2\n", "{\"a\":2}\n", 0},
};

static void run_observed_splits(struct arena *a)
{
    size_t i;

    for (i = 0; i < sizeof(observed_splits) / sizeof(observed_splits[0]);
         i++) {
        struct read_result r;
        read_stream(a, observed_splits[i].stream, STREAM_PEEK, &r);
        if (observed_splits[i].error)
            CHECK_MSG(r.errors && !strncmp(r.docs.p, observed_splits[i].docs,
                                           strlen(observed_splits[i].docs)),
                      "SPLIT.md row %zu: got %d errors and\n%s", i + 1,
                      r.errors, r.docs.p);
        else
            CHECK_MSG(!r.errors && !strcmp(r.docs.p, observed_splits[i].docs),
                      "SPLIT.md row %zu: got %d errors and\n%swant\n%s",
                      i + 1, r.errors, r.docs.p, observed_splits[i].docs);
        buf_release(&r.docs);
    }
}

int main(void)
{
    struct arena a;

    setvbuf(stdout, NULL, _IOLBF, 0);

    arena_init(&a, 1 << 20);
    run_resolve(&a);
    run_yaml2json(&a);
    run_split(&a);
    run_observed_splits(&a);
    arena_release(&a);
    printf("%d passed, %d failed, %d skipped\n", check_counts_.passed,
           check_counts_.failed, skips);
    return check_counts_.failed ? 1 : 0;
}
