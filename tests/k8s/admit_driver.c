/*
 * admit_driver.c - the webhook's admission handler without HTTP, for
 * tests/k8s/validation/run.py: each FILE is an AdmissionReview request
 * body, handed to admission_handle() (webhook/admission.c) exactly as
 * server.c hands a POST /validate body over; the response body is printed
 * on one line per file. The engine is built from -k/-g/--runtime-config
 * like the webhook's (no inventory, no deadline, enforce mode).
 *   admit_driver [-k X.Y] [-g K=V,..] [--runtime-config GV=true,..] FILE...
 * Exit 0, or 2 on a usage error or a file that cannot be read.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/config.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../webhook/admission.h"

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

static int options(struct config *cfg, int argc, char **argv, int *first,
                   struct err *err)
{
    int i;

    for (i = 1; i < argc; i++) {
        const char *o = argv[i];
        int r;
        if (o[0] != '-')
            break;
        if (i + 1 >= argc)
            return err_set(err, "option '%s' needs a value", o);
        if (!strcmp(o, "-k"))
            r = config_set_kube_version(cfg, argv[++i], err);
        else if (!strcmp(o, "-g"))
            r = config_add_gates(cfg, argv[++i], err);
        else if (!strcmp(o, "--runtime-config"))
            r = config_add_runtime(cfg, argv[++i], err);
        else
            return err_set(err, "unknown option '%s'", o);
        if (r < 0)
            return -1;
    }
    *first = i;
    return 0;
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct engine *e = NULL;
    struct admission_cfg c;
    struct err err = { "" };
    int i, first = 0, ret = 0;

    config_init(&cfg);
    if (options(&cfg, argc, argv, &first, &err) < 0 || first >= argc) {
        fprintf(stderr, "admit_driver: %s\nusage: admit_driver [-k X.Y] "
                "[-g K=V,..] [--runtime-config GV=true,..] FILE...\n",
                err.msg[0] ? err.msg : "no file");
        config_release(&cfg);
        return 2;
    }
    e = engine_new(&cfg, &rules_builtin, &err);
    if (!e) {
        fprintf(stderr, "admit_driver: %s\n", err.msg);
        config_release(&cfg);
        return 2;
    }
    memset(&c, 0, sizeof(c));
    c.engine = e;
    for (i = first; i < argc; i++) {
        struct admission_out out;
        struct arena a;
        struct buf resp;
        size_t len = 0;
        char *src = read_all(argv[i], &len);

        if (!src) {
            perror(argv[i]);
            ret = 2;
            continue;
        }
        arena_init(&a, ARENA_CHUNK_BYTES);
        buf_init(&resp, LIMIT_BODY_BYTES);
        admission_handle(&c, NULL, &a, src, len, &resp, &out);
        printf("%.*s\n", (int)resp.len, resp.p);
        buf_release(&resp);
        arena_release(&a);
        free(src);
    }
    engine_free(e);
    config_release(&cfg);
    return ret;
}
