/*
 * fuzz_config.c - libFuzzer target: the settings path shared by the linter
 * and the webhook: config_load_file() on arbitrary bytes (through a file in
 * /dev/shm, as the loader takes a path), the command-line forms
 * (-k, -g, --runtime-config, --enable/--disable), then engine_new(), which
 * resolves the target version, gates and rule severities, and a lint of a
 * small fixed document with the resulting engine.
 *
 * Input: up to five parts separated by NUL bytes: config file, kube
 * version, gate list, runtime-config list, enable list (the disable list
 * is the enable list again).
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "../../validate/arena.h"
#include "../../validate/diag.h"
#include "../../validate/limits.h"
#include "../../validate/run.h"
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char probe[] =
    "apiVersion: resource.k8s.io/v1beta1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: c, namespace: ml}\n"
    "spec:\n"
    "  devices:\n"
    "    requests:\n"
    "    - name: r\n"
    "      deviceClassName: gpu.example.com\n"
    "      adminAccess: true\n"
    "      firstAvailable: [{name: a, deviceClassName: x}]\n";

static char path[64];

static void remove_file(void)
{
    unlink(path);
}

static char *part(const uint8_t **p, size_t *n)
{
    const uint8_t *nul = memchr(*p, '\0', *n);
    size_t len = nul ? (size_t)(nul - *p) : *n;
    char *s = malloc(len + 1);

    if (!s)
        abort();
    memcpy(s, *p, len);
    s[len] = '\0';
    *p += nul ? len + 1 : len;
    *n -= nul ? len + 1 : len;
    return s;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct config cfg;
    struct engine *e;
    struct err err;
    const uint8_t *p = data;
    size_t n = size;
    char *file, *kv, *gates, *rt, *en;
    FILE *f;

    if (!path[0]) {
        snprintf(path, sizeof(path), "/dev/shm/fuzz_config.%ld.yaml",
                 (long)getpid());
        atexit(remove_file);
    }
    file = part(&p, &n);
    kv = part(&p, &n);
    gates = part(&p, &n);
    rt = part(&p, &n);
    en = part(&p, &n);
    f = fopen(path, "wb");
    if (!f)
        abort();
    fwrite(file, 1, strlen(file), f);
    fclose(f);

    config_init(&cfg);
    if (config_load_file(&cfg, path, &err) < 0 && !err.msg[0])
        __builtin_trap();
    if (kv[0])
        (void)config_set_kube_version(&cfg, kv, &err);
    if (gates[0])
        (void)config_add_gates(&cfg, gates, &err);
    if (rt[0])
        (void)config_add_runtime(&cfg, rt, &err);
    if (en[0]) {
        (void)config_add_enable(&cfg, en, 1, &err);
        (void)config_add_enable(&cfg, en, 0, &err);
    }
    e = engine_new(&cfg, &rules_builtin, &err);
    if (e) {
        struct arena a;
        struct diag_list dl;
        struct run *r;

        (void)engine_kube_version(e);
        arena_init(&a, ARENA_CHUNK_BYTES);
        diag_list_init(&dl, &a);
        r = run_new(e, NULL, &a, &dl);
        run_add_text(r, "probe.yaml", probe, sizeof(probe) - 1);
        run_check(r);
        run_free(r);
        arena_release(&a);
        engine_free(e);
    } else if (!err.msg[0]) {
        __builtin_trap();       /* a refused config says why */
    }
    config_release(&cfg);
    free(file);
    free(kv);
    free(gates);
    free(rt);
    free(en);
    return 0;
}
