/*
 * bench_scale.c - the scale benchmark driver: loads a generated inventory
 * (gen.py: one or more files) and prints one "name value" line a figure
 * (run.sh tabulates them): the YAML load (into a compact snapshot, as the
 * webhook keeps it) and the device model build timed apart (CPU and wall),
 * the memory of both per device (arena bytes, and the process's RSS
 * growth), then admission of every Pod of a second file, each its own run
 * (engine_check_admission, as the webhook does), p50/p99 of its CPU time,
 * and the p99 apart for the Pods that fit and the ones with an error;
 * before the Pods, inventory_prepare (the passes learnt before a snapshot
 * is published, warm_cpu_ms; BENCH_COLD=1 skips it) and the first Pods'
 * own times.
 * Built by run.sh against libcore.a; helpers in ../bench_util.h.
 *
 * bench_scale --next UPDATES INVENTORY...: the model built from the one
 * before (devmodel_build_next, as the webhook's snapshots build theirs)
 * after one ResourceSlice changed (a copy of a slice, a new object, in its
 * place; a different slice each time), UPDATES times in a chain, against
 * the full build of the same objects: CPU of each (ms), their ratio, the
 * devices taken, and the bytes the last model holds (its arena and its
 * pieces) against the full build's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "validate/arena.h"
#include "validate/config.h"
#include "validate/devmodel.h"
#include "validate/diag.h"
#include "validate/engine.h"
#include "validate/err.h"
#include "validate/inventory.h"
#include "validate/kinds.h"
#include "validate/load_yaml.h"
#include "validate/object.h"
#include "validate/tree.h"
#include "rules/rules.h"
#include "tests/bench/bench_util.h"

#define FIRST_SHOWN 3    /* Pods whose own time is printed */

/* resident set size in KiB, from /proc/self/status */
static long rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = 0;

    if (!f)
        return 0;
    while (fgets(line, sizeof(line), f))
        if (!strncmp(line, "VmRSS:", 6)) {
            kb = strtol(line + 6, NULL, 10);
            break;
        }
    fclose(f);
    return kb;
}

/* The bytes a model holds: its arena, its devs array, and its pieces of
 * device memory (shared with the models before and after it). */
static double model_bytes(const struct devmodel *m)
{
    double b = (double)m->own.total;
    size_t i;

    if (m->devblock)
        b += (double)(m->ndevs * sizeof(*m->devs));

    for (i = 0; i < m->npieces; i++)
        b += (double)atomic_load(&m->pieces[i]->bytes);
    return b;
}

static int next_mode(int argc, char **argv)
{
    struct inventory *inv = inventory_new(), *upd = inventory_new();
    const struct object **objs;
    struct devmodel *m, *next;
    struct err err;
    size_t n, i, *slices, nslices = 0, reused = 0;
    long updates = strtol(argv[2], NULL, 10), u;
    double c, full, one = 0, full_bytes;
    char *text;
    size_t len;
    int f;

    inventory_set_compact(inv, 1);
    inventory_set_compact(upd, 1);
    for (f = 3; f < argc; f++) {
        text = slurp(argv[f], &len);
        if (inventory_add_text(inv, argv[f], text, len, &err) < 0) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        free(text);
    }
    n = inv->n;
    objs = calloc(n + 1, sizeof(*objs));
    slices = calloc(n + 1, sizeof(*slices));
    for (i = 0; i < n; i++) {
        objs[i] = inv->objs[i];
        if (objs[i]->kind == K_SLICE)
            slices[nslices++] = i;
    }
    if (!nslices || updates < 1) {
        fprintf(stderr, "bench_scale --next: no slices or no updates\n");
        return 2;
    }
    c = cpu();
    m = devmodel_build_next(NULL, objs, n, 1);
    full = cpu() - c;
    full_bytes = model_bytes(m);
    for (u = 0; u < updates; u++) {
        size_t k = slices[((size_t)u * 7919u) % nslices];
        inventory_add_tree(upd, objs[k]->root, &err);
        objs[k] = upd->objs[upd->n - 1];
        c = cpu();
        next = devmodel_build_next(m, objs, n, 1);
        one += cpu() - c;
        reused += next->reused;
        devmodel_free(m);
        m = next;
    }
    printf("devices %zu\n", m->ndevs);
    printf("next_full_cpu_ms %.1f\n", full * 1e3);
    printf("next_one_slice_cpu_ms %.2f\n", one * 1e3 / (double)updates);
    printf("next_ratio %.4f\n", one / (double)updates / full);
    printf("next_devices_taken %.4f\n",
           (double)reused / (double)updates / (double)m->ndevs);
    printf("next_pieces %zu\n", m->npieces);
    printf("next_full_mb %.1f\n", full_bytes / 1048576);
    printf("next_held_mb %.1f\n", model_bytes(m) / 1048576);
    devmodel_free(m);
    free(objs);
    free(slices);
    inventory_free(upd);
    inventory_free(inv);
    return 0;
}

int main(int argc, char **argv)
{
    struct config cfg;
    struct engine *e;
    struct inventory *inv;
    const struct devmodel *m;
    struct err err;
    struct arena docs_arena;
    struct ydocs docs;
    char *itext, *ptext;
    size_t ilen, plen, i, n = 0, npart[2] = {0, 0};
    int f;
    long rss0, rss1, rss2;
    double c0, c1, c2, t0, t1, t2, *lat, *part[2];

    if (argc >= 4 && !strcmp(argv[1], "--next"))
        return next_mode(argc, argv);
    if (argc < 3) {
        fprintf(stderr, "usage: bench_scale PODS INVENTORY...\n"
                "       bench_scale --next UPDATES INVENTORY...\n");
        return 2;
    }
    e = bench_engine(&cfg);
    ptext = slurp(argv[1], &plen);
    rss0 = rss_kb();
    t0 = now();
    c0 = cpu();
    inv = inventory_new();
    inventory_set_compact(inv, 1);      /* as the webhook keeps it */
    /* the target's gate, as the webhook sets it (invstore.c): the model
     * and the selectors warmed then agree with the reviews */
    inventory_set_list_attributes(inv, engine_list_attributes(e));
    for (f = 2; f < argc; f++) {
        itext = slurp(argv[f], &ilen);
        if (inventory_add_text(inv, argv[f], itext, ilen, &err) < 0) {
            fprintf(stderr, "%s\n", err.msg);
            return 2;
        }
        free(itext);
    }
    t1 = now();
    c1 = cpu();
    rss1 = rss_kb();
    m = inventory_devices(inv);
    t2 = now();
    c2 = cpu();
    rss2 = rss_kb();
    printf("devices %zu\n", m->ndevs);
    printf("nodes %zu\n", m->nnodes);
    printf("load_cpu_ms %.0f\n", (c1 - c0) * 1e3);
    printf("load_wall_ms %.0f\n", (t1 - t0) * 1e3);
    printf("model_cpu_ms %.0f\n", (c2 - c1) * 1e3);
    printf("model_wall_ms %.0f\n", (t2 - t1) * 1e3);
    printf("model_ns_per_device %.0f\n", (c2 - c1) * 1e9 / (double)m->ndevs);
    printf("model_bytes_per_device %.0f\n",
           (double)m->own.total / (double)m->ndevs);
    printf("objects_bytes_per_device %.0f\n",
           (double)inv->arena.total / (double)m->ndevs);
    printf("rss_load_mb %.0f\n", (double)(rss1 - rss0) / 1024);
    printf("rss_model_mb %.0f\n", (double)(rss2 - rss1) / 1024);
    printf("rss_bytes_per_device %.0f\n",
           (double)(rss2 - rss0) * 1024 / (double)m->ndevs);
    /* what the webhook does before it publishes a snapshot (the model is
     * built: the passes the first review would pay for); BENCH_COLD=1
     * leaves them to the first reviews */
    c1 = cpu();
    if (!getenv("BENCH_COLD"))
        inventory_prepare(inv);
    printf("warm_cpu_ms %.0f\n", (cpu() - c1) * 1e3);

    arena_init(&docs_arena, 1 << 20);
    load_yaml(&docs_arena, ptext, plen, &docs);
    lat = calloc(docs.n + 1, sizeof(*lat));
    part[0] = calloc(docs.n + 1, sizeof(*lat));
    part[1] = calloc(docs.n + 1, sizeof(*lat));
    for (i = 0; i < docs.n; i++) {
        struct arena a;
        struct diag_list out;
        double s;
        size_t k;
        int fails = 0;
        if (!docs.v[i].root)
            continue;
        arena_init(&a, 64 * 1024);
        diag_list_init(&out, &a);
        s = cpu();
        engine_check_admission(e, inv, docs.v[i].root, "ml", 0, &out, &err);
        lat[n++] = cpu() - s;
        if (n <= FIRST_SHOWN)   /* the first reviews of a snapshot */
            printf("admission_pod%zu_ms %.2f\n", n - 1, lat[n - 1] * 1e3);
        for (k = 0; k < out.n; k++)
            fails |= out.v[k].sev == SEV_ERROR;
        part[fails][npart[fails]++] = lat[n - 1];
        arena_release(&a);
    }
    qsort(lat, n, sizeof(*lat), cmp_double);
    if (n) {
        printf("admission_p50_ms %.2f\n", lat[n / 2] * 1e3);
        printf("admission_p99_ms %.2f\n", lat[(n * 99) / 100] * 1e3);
    }
    /* apart: the Pods that fit somewhere (the search stops at 100 nodes
     * that fit) and the ones with an error (judged on every node) */
    for (f = 0; f < 2; f++) {
        qsort(part[f], npart[f], sizeof(*lat), cmp_double);
        if (npart[f])
            printf("admission_%s_n %zu\nadmission_%s_p99_ms %.3f\n",
                   f ? "error" : "ok", npart[f], f ? "error" : "ok",
                   part[f][(npart[f] * 99) / 100] * 1e3);
        free(part[f]);
    }
    free(lat);
    arena_release(&docs_arena);
    inventory_free(inv);
    engine_free(e);
    config_release(&cfg);
    free(ptext);
    return 0;
}
