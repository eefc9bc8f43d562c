/*
 * test_cel_conformance.c - runs the official CEL conformance suite
 * (@bufbuild/cel-spec 0.6.1 testdata/conformance.js, dumped to JSON by
 * tests/cel/run.sh) through the engine's general environment. Prints
 * passed/failed/skipped per section, every skip with its reason, and a
 * final "N passed, N failed" line; exits non-zero on failures.
 *
 * Usage: test_cel_conformance [conformance.json] [-v] [-s section]
 * Without the JSON file (npm unavailable) it reports a skip and passes.
 */
#include "../../validate/cel/cel_internal.h"
#include "../../validate/arena.h"
#include "check.h"

static CHECK_INIT;

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sections we run, and why the others are skipped */
static const char *const supported[] = {
    "basic", "comparisons", "logic", "integer_math", "fp_math", "string",
    "string_ext", "lists", "macros", "macros2", "optionals", "conversions",
    "parse", "plumbing", "fields", "bindings_ext", "type_deductions",
    "timestamps",
};

static const struct { const char *name, *why; } unsupported[] = {
    { "block_ext", "cel.block is an internal optimizer form, not in the "
      "DRA env" },
    { "dynamic", "protobuf well-known types and messages" },
    { "encoders_ext", "base64 encoders are not in the DRA env" },
    { "enums", "protobuf enums" },
    { "math_ext", "ext math is not in the DRA env" },
    { "namespace", "protobuf containers" },
    { "proto2", "protobuf messages" },
    { "proto2_ext", "protobuf extensions" },
    { "proto3", "protobuf messages" },
    
    { "unknowns", "unknown sets are not used by the DRA env" },
    { "wrappers", "protobuf wrapper types" },
};

struct stats { int pass, fail, skip; };

static int verbose;

/* ================= proto-JSON value -> cel_value ================= */

static int b64val(int c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+' || c == '-')
        return 62;
    if (c == '/' || c == '_')
        return 63;
    return -1;
}

/* a JSON string, or {"$u8b64": ...} for strings holding NUL (run.sh) */
static const char *jstr(struct arena *a, const cJSON *c, size_t *len)
{
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(c, "$u8b64");
    const char *s;
    size_t n, o = 0, i;
    char *d;
    unsigned acc = 0;
    int bits = 0;

    if (cJSON_IsString(c)) {
        *len = strlen(c->valuestring);
        return c->valuestring;
    }
    if (!cJSON_IsString(b)) {
        *len = 0;
        return "";
    }
    s = b->valuestring;
    n = strlen(s);
    d = arena_alloc(a, n + 1);
    for (i = 0; i < n; i++) {
        int v = b64val((unsigned char)s[i]);
        if (v < 0)
            continue;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            d[o++] = (char)((acc >> bits) & 0xFF);
        }
    }
    d[o] = 0;
    *len = o;
    return d;
}

static int conv(struct arena *a, const cJSON *j, struct cel_value *out,
                const char **why)
{
    const cJSON *c;

    memset(out, 0, sizeof(*out));
    if (!cJSON_IsObject(j)) {
        *why = "malformed value";
        return -1;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "int64Value");
    if (c) {
        *out = cel_vint(cJSON_IsString(c) ? strtoll(c->valuestring, NULL, 10)
                                          : (int64_t)c->valuedouble);
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "uint64Value");
    if (c) {
        *out = cel_vuint(cJSON_IsString(c) ? strtoull(c->valuestring, NULL, 10)
                                           : (uint64_t)c->valuedouble);
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "doubleValue");
    if (c) {
        double d = c->valuedouble;
        if (cJSON_IsString(c)) {
            if (!strcmp(c->valuestring, "NaN"))
                d = NAN;
            else if (!strcmp(c->valuestring, "Infinity"))
                d = INFINITY;
            else if (!strcmp(c->valuestring, "-Infinity"))
                d = -INFINITY;
            else
                d = strtod(c->valuestring, NULL);
        }
        *out = cel_vdouble(d);
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "stringValue");
    if (c) {
        size_t n;
        const char *s = jstr(a, c, &n);
        *out = cel_vstr(arena_strndup(a, s, n), n);
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "bytesValue");
    if (c) {
        const char *s = c->valuestring;
        size_t n = strlen(s), o = 0, i;
        char *d = arena_alloc(a, n + 1);
        unsigned acc = 0;
        int bits = 0;
        for (i = 0; i < n; i++) {
            int v = b64val((unsigned char)s[i]);
            if (v < 0)
                continue;
            acc = (acc << 6) | (unsigned)v;
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                d[o++] = (char)((acc >> bits) & 0xFF);
            }
        }
        *out = cel_vbytes(d, o);
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "boolValue");
    if (c) {
        *out = cel_vbool(cJSON_IsTrue(c));
        return 0;
    }
    if (cJSON_GetObjectItemCaseSensitive(j, "nullValue")) {
        *out = cel_vnull();
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "listValue");
    if (c) {
        const cJSON *vals = cJSON_GetObjectItemCaseSensitive(c, "values");
        int n = cJSON_GetArraySize(vals), i;
        struct cel_value *items = arena_alloc(a, (size_t)(n + 1) *
                                              sizeof(*items));
        struct cel_list *l = arena_alloc(a, sizeof(*l));
        for (i = 0; i < n; i++) {
            if (conv(a, cJSON_GetArrayItem(vals, i), &items[i], why) < 0)
                return -1;
        }
        l->n = (size_t)n;
        l->v = items;
        out->kind = CEL_V_LIST;
        out->v.l = l;
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "mapValue");
    if (c) {
        const cJSON *ents = cJSON_GetObjectItemCaseSensitive(c, "entries");
        int n = cJSON_GetArraySize(ents), i;
        struct cel_value *k = arena_alloc(a, (size_t)(n + 1) * sizeof(*k));
        struct cel_value *v = arena_alloc(a, (size_t)(n + 1) * sizeof(*v));
        struct cel_map *m = arena_alloc(a, sizeof(*m));
        for (i = 0; i < n; i++) {
            const cJSON *e = cJSON_GetArrayItem(ents, i);
            if (conv(a, cJSON_GetObjectItemCaseSensitive(e, "key"), &k[i],
                     why) < 0 ||
                conv(a, cJSON_GetObjectItemCaseSensitive(e, "value"), &v[i],
                     why) < 0)
                return -1;
        }
        m->n = (size_t)n;
        m->k = k;
        m->v = v;
        out->kind = CEL_V_MAP;
        out->v.m = m;
        return 0;
    }
    c = cJSON_GetObjectItemCaseSensitive(j, "typeValue");
    if (c) {
        int t = cel_type_lookup(c->valuestring, strlen(c->valuestring));
        if (t < 0) {
            *why = "protobuf message types";
            return -1;
        }
        *out = cel_vtype(t);
        return 0;
    }
    if (cJSON_GetObjectItemCaseSensitive(j, "objectValue")) {
        *why = "protobuf messages (objectValue)";
        return -1;
    }
    if (cJSON_GetObjectItemCaseSensitive(j, "enumValue")) {
        *why = "protobuf enums";
        return -1;
    }
    *why = "unsupported value kind";
    return -1;
}

/* strict equality: same kinds all the way down (1 != 1u here) */
static int strict_eq(const struct cel_value *x, const struct cel_value *y)
{
    size_t i;

    if (x->kind != y->kind)
        return 0;
    switch (x->kind) {
    case CEL_V_DOUBLE:
        if (isnan(x->v.d) && isnan(y->v.d))
            return 1;
        return x->v.d == y->v.d;
    case CEL_V_LIST:
        if (x->v.l->n != y->v.l->n)
            return 0;
        for (i = 0; i < x->v.l->n; i++) {
            if (!strict_eq(&x->v.l->v[i], &y->v.l->v[i]))
                return 0;
        }
        return 1;
    case CEL_V_MAP:
        if (x->v.m->n != y->v.m->n)
            return 0;
        for (i = 0; i < x->v.m->n; i++) {
            size_t j;
            int found = 0;
            for (j = 0; j < y->v.m->n && !found; j++) {
                if (strict_eq(&x->v.m->k[i], &y->v.m->k[j])) {
                    if (!strict_eq(&x->v.m->v[i], &y->v.m->v[j]))
                        return 0;
                    found = 1;
                }
            }
            if (!found)
                return 0;
        }
        return 1;
    case CEL_V_OPT:
        if (x->sub != y->sub)
            return 0;
        return !x->sub || strict_eq(x->v.opt, y->v.opt);
    default:
        return cel_value_equal(x, y) == 1;
    }
}

/* ================= one test ================= */

static int in_list(const char *s, const char *const *l, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!strcmp(s, l[i]))
            return 1;
    }
    return 0;
}

static const char *skip_reason(const cJSON *o, const char *text)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(o, "container");

    if (c && cJSON_IsString(c) && c->valuestring[0])
        return "protobuf containers (container set)";
    if (strstr(text, "google.protobuf") || strstr(text, "cel.expr.conformance")
        || strstr(text, "TestAllTypes") || strstr(text, "objectValue") ||
        strstr(text, "messageType"))
        return "protobuf messages";
    if (strstr(text, "timestampValue") || strstr(text, "durationValue"))
        return "protobuf Timestamp/Duration values in bindings";
    if (strstr(text, "\"unknown\""))
        return "unknown sets";
    if (cJSON_GetObjectItemCaseSensitive(o, "typeEnv") &&
        strstr(text, "\"function\""))
        return "test declares custom functions";
    return NULL;
}

static void run_test(const char *section, const char *sub, const cJSON *t,
                     struct stats *st)
{
    const cJSON *o = cJSON_GetObjectItemCaseSensitive(t, "original");
    const cJSON *name = cJSON_GetObjectItemCaseSensitive(o, "name");
    const cJSON *expr = cJSON_GetObjectItemCaseSensitive(o, "expr");
    const cJSON *bind = cJSON_GetObjectItemCaseSensitive(o, "bindings");
    const cJSON *tenv = cJSON_GetObjectItemCaseSensitive(o, "typeEnv");
    const cJSON *val = cJSON_GetObjectItemCaseSensitive(o, "value");
    const cJSON *everr = cJSON_GetObjectItemCaseSensitive(o, "evalError");
    const cJSON *typed = cJSON_GetObjectItemCaseSensitive(o, "typedResult");
    const cJSON *nocheck = cJSON_GetObjectItemCaseSensitive(o, "disableCheck");
    const cJSON *checkonly = cJSON_GetObjectItemCaseSensitive(o, "checkOnly");
    char *text = cJSON_PrintUnformatted(o);
    const char *why = skip_reason(o, text);
    const char *names[CEL_MAX_SLOTS];
    struct cel_binding binds[CEL_MAX_SLOTS];
    size_t nv = 0;
    struct arena a;
    struct cel_program *p = NULL;
    struct cel_error err;
    struct cel_value want, got;
    struct cel_scratch *sc = NULL;
    const cJSON *it;
    int rc, ok = 0;
    char gs[512], ws[512];
    const char *src;
    size_t srclen;

    arena_init(&a, 65536);
    src = jstr(&a, expr, &srclen);
    if (why)
        goto skip;
    /* declared variables: bindings and typeEnv idents */
    cJSON_ArrayForEach(it, bind) {
        if (nv >= CEL_MAX_SLOTS / 2)
            break;
        names[nv] = it->string;
        if (conv(&a, cJSON_GetObjectItemCaseSensitive(it, "value"),
                 &binds[nv].value, &why) < 0)
            goto skip;
        binds[nv].name = it->string;
        nv++;
    }
    cJSON_ArrayForEach(it, tenv) {
        const cJSON *nm = cJSON_GetObjectItemCaseSensitive(it, "name");
        size_t k;
        int dup = 0;
        if (!nm || nv >= CEL_MAX_SLOTS / 2)
            continue;
        for (k = 0; k < nv; k++)
            dup |= !strcmp(names[k], nm->valuestring);
        if (dup)
            continue;
        names[nv] = nm->valuestring;
        memset(&binds[nv], 0, sizeof(binds[nv]));
        binds[nv].name = nm->valuestring;
        binds[nv].value = cel_verr(NULL, "unbound");
        nv++;
    }
    if (val && conv(&a, val, &want, &why) < 0)
        goto skip;
    if (typed) {
        const cJSON *r = cJSON_GetObjectItemCaseSensitive(typed, "result");
        if (!r) {
            why = "typed result without a value";
            goto skip;
        }
        if (conv(&a, r, &want, &why) < 0)
            goto skip;
        val = r;
    }
    if (!val && !everr)
        want = cel_vbool(1);
    rc = cel_compile_vars(&a, NULL, src, srclen, names, nv,
                          !cJSON_IsTrue(nocheck), &p, &err);
    if (rc < 0) {
        ok = everr != NULL;
        snprintf(gs, sizeof(gs), "compile error: %s (col %u)", err.msg,
                 err.col);
        if (ok && verbose)
            printf("  note %s/%s/%s: expected runtime error reported at "
                   "compile time: %s\n", section, sub,
                   name ? name->valuestring : "?", err.msg);
        goto done;
    }
    if (cJSON_IsTrue(checkonly)) {
        ok = 1;
        goto done;
    }
    sc = malloc(sizeof(*sc));
    cel_scratch_init(sc);
    rc = cel_eval_bindings(p, binds, nv, sc, &got, NULL, &err);
    if (rc < 0) {
        ok = everr != NULL;
        snprintf(gs, sizeof(gs), "eval error: %s", err.msg);
    } else if (everr) {
        ok = 0;
        if (cel_value_render(&got, gs, sizeof(gs)) < 0)
            snprintf(gs, sizeof(gs), "(large value)");
    } else {
        ok = strict_eq(&got, &want);
        if (cel_value_render(&got, gs, sizeof(gs)) < 0)
            snprintf(gs, sizeof(gs), "(large value)");
    }
done:
    if (ok) {
        st->pass++;
    } else {
        st->fail++;
        if (everr)
            snprintf(ws, sizeof(ws), "an error");
        else if (cel_value_render(&want, ws, sizeof(ws)) < 0)
            snprintf(ws, sizeof(ws), "(large value)");
        printf("FAIL %s/%s/%s: %s\n     want %s, got %s\n", section, sub,
               name ? name->valuestring : "?", src, ws, gs);
    }
    goto out;
skip:
    st->skip++;
    if (verbose)
        printf("  skip %s/%s/%s: %s\n", section, sub,
               name ? name->valuestring : "?", why);
    else
        printf("  skip %s/%s/%s: %s\n", section, sub,
               name ? name->valuestring : "?", why);
out:
    if (p)
        cel_program_release(p);
    if (sc) {
        cel_scratch_release(sc);
        free(sc);
    }
    free(text);
    arena_release(&a);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    if (!f)
        return NULL;
    n = fseek(f, 0, SEEK_END) != 0 ? -1 : ftell(f);
    if (n < 0) {
        fclose(f);
        return NULL;
    }
    rewind(f);
    buf = malloc((size_t)n + 1);
    if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        fclose(f);
        return NULL;
    }
    buf[n] = 0;
    fclose(f);
    *len = (size_t)n;
    return buf;
}

int main(int argc, char **argv)
{
    const char *path = "build/cel/conformance.json", *only = NULL;
    struct stats total = { 0, 0, 0 };
    cJSON *root, *suites, *s;
    size_t len;
    char *data;
    int i;

    for (i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-v"))
            verbose = 1;
        else if (!strcmp(argv[i], "-s") && i + 1 < argc)
            only = argv[++i];
        else
            path = argv[i];
    }
    data = slurp(path, &len);
    if (!data) {
        printf("skipped: conformance data '%s' not found (npm unavailable?)\n",
               path);
        printf("0 passed, 0 failed, 1 skipped\n");
        return 0;
    }
    root = cJSON_ParseWithLength(data, len);
    free(data);
    if (!root) {
        CHECK_MSG(0, "cannot parse '%s'", path);
        return CHECK_DONE();
    }
    suites = cJSON_GetObjectItemCaseSensitive(root, "suites");
    cJSON_ArrayForEach(s, suites) {
        const char *sn = cJSON_GetObjectItemCaseSensitive(s, "name")->valuestring;
        const cJSON *subs = cJSON_GetObjectItemCaseSensitive(s, "suites"), *ss;
        struct stats st = { 0, 0, 0 };
        size_t k;

        if (only && strcmp(only, sn))
            continue;
        if (!in_list(sn, supported, sizeof(supported) / sizeof(*supported))) {
            const char *why = "not applicable to the DRA env";
            int n = 0;
            for (k = 0; k < sizeof(unsupported) / sizeof(*unsupported); k++) {
                if (!strcmp(unsupported[k].name, sn))
                    why = unsupported[k].why;
            }
            cJSON_ArrayForEach(ss, subs)
                n += cJSON_GetArraySize(
                    cJSON_GetObjectItemCaseSensitive(ss, "tests"));
            printf("section %-16s skipped %d tests: %s\n", sn, n, why);
            total.skip += n;
            continue;
        }
        cJSON_ArrayForEach(ss, subs) {
            const char *sub =
                cJSON_GetObjectItemCaseSensitive(ss, "name")->valuestring;
            const cJSON *t;
            cJSON_ArrayForEach(t, cJSON_GetObjectItemCaseSensitive(ss, "tests"))
                run_test(sn, sub, t, &st);
        }
        printf("section %-16s %3d passed, %3d failed, %3d skipped\n", sn,
               st.pass, st.fail, st.skip);
        total.pass += st.pass;
        total.fail += st.fail;
        total.skip += st.skip;
    }
    cJSON_Delete(root);
    printf("conformance: %d passed, %d failed, %d skipped\n", total.pass,
           total.fail, total.skip);
    CHECK_COUNTS->passed = total.pass;      /* tallied per section above */
    CHECK_COUNTS->failed = total.fail;
    return CHECK_DONE();
}
