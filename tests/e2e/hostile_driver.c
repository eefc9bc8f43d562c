/*
 * hostile_driver.c - a tiny front end for tests/e2e/hostile.sh to the two
 * loaders the `claimcheck` CLI does not reach (or not yet): the CEL engine
 * and the webhook's JSON loader (cJSON). Reads the whole of FILE and
 *   hostile_driver cel FILE    compiles it as a CEL expression (list
 *                              attributes on) and evaluates it against a
 *                              fixed device whose gpu.example.com/long
 *                              attribute is 100,000 'a's and a '!'
 *   hostile_driver json FILE   load_json() on it
 *   hostile_driver admission [-k X.Y] [-g K=V,..] [--runtime-config ..]
 *                  FILE...     the webhook's admission_handle() on each as a
 *                              request body (one engine for all, built from
 *                              the options like the webhook's; no
 *                              inventory; only with -DHAVE_ADMISSION). Also
 *                              tests/k8s/validation/run.py's admission run
 *                              (make builds it as build/tests/hostile_driver)
 * Prints "ok: ..." and exits 0, or "error: ..." and exits 2 (admission:
 * "ok: <decision> <HTTP status> <the response body>", one line per file).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/cel/cel.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"
#include "../../rules/rules.h"
#ifdef HAVE_ADMISSION
#include "../../validate/buf.h"
#include "../../validate/config.h"
#include "../../validate/engine.h"
#include "../../webhook/admission.h"
#endif

#define LONG_ATTR 100000

static char *read_all(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p = NULL;
    size_t cap = 0, n = 0, got;

    if (!f)
        return NULL;
    for (;;) {
        if (n == cap) {
            cap = cap ? cap * 2 : 65536;
            p = realloc(p, cap);
            if (!p)
                abort();
        }
        got = fread(p + n, 1, cap - n, f);
        if (got == 0)
            break;
        n += got;
    }
    fclose(f);
    *len = n;
    return p;
}

static int run_cel(const char *src, size_t len)
{
    static struct cel_attr attrs[2];
    struct cel_device dev;
    struct cel_env env = { 0, 1, 0, 0, 0 };
    struct cel_program *p;
    struct cel_error err;
    struct arena a;
    char out[4096];
    char *lng = malloc(LONG_ATTR + 2);
    int ret = 2;

    if (!lng)
        abort();
    memset(lng, 'a', LONG_ATTR);
    lng[LONG_ATTR] = '!';
    lng[LONG_ATTR + 1] = '\0';
    attrs[0].domain = "gpu.example.com";
    attrs[0].id = "long";
    attrs[0].type = CEL_ATTR_STRING;
    attrs[0].s = lng;
    attrs[1].domain = "gpu.example.com";
    attrs[1].id = "index";
    attrs[1].type = CEL_ATTR_INT;
    attrs[1].i = 3;
    memset(&dev, 0, sizeof(dev));
    dev.driver = "gpu.example.com";
    dev.attrs = attrs;
    dev.nattrs = 2;
    arena_init(&a, ARENA_CHUNK_BYTES);
    if (cel_compile_expr(&a, &env, src, len, &p, &err) < 0) {
        printf("error: compile: %s\n", err.msg);
    } else if (cel_eval_to_string(p, &dev, out, sizeof(out), &err) < 0) {
        printf("error: eval: %s\n", err.msg);
    } else {
        printf("ok: %.200s\n", out);
        ret = 0;
    }
    arena_release(&a);
    free(lng);
    return ret;
}

static int run_json(const char *src, size_t len)
{
    struct arena a;
    struct tnode *root;
    struct err err;
    int ret = 2;

    arena_init(&a, ARENA_CHUNK_BYTES);
    if (load_json(&a, src, len, &root, &err) < 0) {
        printf("error: %s\n", err.msg);
    } else {
        printf("ok: %s\n", tree_kind_name(root));
        ret = 0;
    }
    arena_release(&a);
    return ret;
}

#ifdef HAVE_ADMISSION
/* Handles every file as one request body, with one engine for all of them
 * (as the webhook does): a memcheck run over many requests finds per-request
 * leaks. */
/* -k, -g and --runtime-config before the files; *first: the first file */
static int engine_options(struct config *cfg, char **argv, int argc,
                          int *first, struct err *err)
{
    int i;

    for (i = 0; i + 1 < argc && argv[i][0] == '-'; i += 2) {
        int r;
        if (!strcmp(argv[i], "-k"))
            r = config_set_kube_version(cfg, argv[i + 1], err);
        else if (!strcmp(argv[i], "-g"))
            r = config_add_gates(cfg, argv[i + 1], err);
        else if (!strcmp(argv[i], "--runtime-config"))
            r = config_add_runtime(cfg, argv[i + 1], err);
        else
            return err_set(err, "unknown option '%s'", argv[i]);
        if (r < 0)
            return -1;
    }
    *first = i;
    return 0;
}

static int run_admission(char **files, int nfiles)
{
    struct config cfg;
    struct engine *e;
    struct admission_cfg c;
    struct err err;
    int i, first = 0, ret = 0;

    config_init(&cfg);
    if (engine_options(&cfg, files, nfiles, &first, &err) < 0) {
        printf("error: %s\n", err.msg);
        config_release(&cfg);
        return 2;
    }
    e = engine_new(&cfg, &rules_builtin, &err);
    if (!e) {
        printf("error: engine: %s\n", err.msg);
        config_release(&cfg);
        return 2;
    }
    memset(&c, 0, sizeof(c));
    c.engine = e;
    for (i = first; i < nfiles; i++) {
        struct admission_out out;
        struct arena a;
        struct buf resp;
        size_t len = 0;
        char *src = read_all(files[i], &len);

        if (!src) {
            perror(files[i]);
            ret = 2;
            continue;
        }
        arena_init(&a, ARENA_CHUNK_BYTES);
        buf_init(&resp, LIMIT_BODY_BYTES);
        admission_handle(&c, NULL, &a, src, len, 0, &resp, &out);
        printf("ok: %s %d %.*s\n", out.decision ? out.decision : "-",
               out.status, (int)resp.len, resp.p);
        buf_release(&resp);
        arena_release(&a);
        free(src);
    }
    engine_free(e);
    config_release(&cfg);
    return ret;
}
#endif

int main(int argc, char **argv)
{
    size_t len = 0;
    char *src;
    int ret;

    if (argc < 3 || (argc > 3 && strcmp(argv[1], "admission") != 0)) {
        fprintf(stderr, "usage: hostile_driver cel|json FILE\n"
                "       hostile_driver admission FILE...\n");
        return 2;
    }
#ifdef HAVE_ADMISSION
    if (strcmp(argv[1], "admission") == 0)
        return run_admission(argv + 2, argc - 2);
#endif
    src = read_all(argv[2], &len);
    if (!src) {
        perror(argv[2]);
        return 2;
    }
    if (strcmp(argv[1], "cel") == 0)
        ret = run_cel(src, len);
    else
        ret = run_json(src, len);
    free(src);
    return ret;
}
