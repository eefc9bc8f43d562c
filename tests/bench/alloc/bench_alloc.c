/*
 * bench_alloc.c - the allocator benchmark driver: loads an inventory once
 * (shared, as the webhook does), then checks every object of a second file
 * one at a time through engine_check_admission() - a run per object, so no
 * selector result is shared between objects - and prints the load time,
 * the total, per-object p50/p99/max and peak RSS. Built by run.sh against
 * build/libcore.a.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "validate/arena.h"
#include "validate/config.h"
#include "validate/diag.h"
#include "validate/engine.h"
#include "validate/err.h"
#include "validate/inventory.h"
#include "validate/load_yaml.h"
#include "validate/tree.h"
#include "rules/rules.h"
#include "tests/bench/bench_util.h"

int main(int argc, char **argv)
{
    struct config cfg;
    struct engine *e;
    struct inventory *inv;
    struct err err;
    struct arena docs_arena;
    struct ydocs docs;
    struct rusage ru;
    char *itext, *otext;
    size_t ilen, olen, i, n = 0, errors = 0, infos = 0;
    double t0, t1, t2, c0, c1, c2, *lat, *wall;

    if (argc != 3 && argc != 4) {
        fprintf(stderr, "usage: bench_alloc INVENTORY OBJECTS [TIMES]\n");
        return 2;
    }
    e = bench_engine(&cfg);
    itext = slurp(argv[1], &ilen);
    otext = slurp(argv[2], &olen);
    t0 = now();
    c0 = cpu();
    inv = inventory_new();
    if (inventory_add_text(inv, argv[1], itext, ilen, &err) < 0) {
        fprintf(stderr, "%s\n", err.msg);
        return 2;
    }
    inventory_devices(inv);     /* the device model, built once */
    t1 = now();
    c1 = cpu();
    arena_init(&docs_arena, 1 << 20);
    load_yaml(&docs_arena, otext, olen, &docs);
    lat = calloc(docs.n + 1, sizeof(*lat));
    wall = calloc(docs.n + 1, sizeof(*wall));
    for (i = 0; i < docs.n; i++) {
        struct arena a;
        struct diag_list out;
        double s, sc;
        size_t k;
        if (!docs.v[i].root)
            continue;
        arena_init(&a, 64 * 1024);
        diag_list_init(&out, &a);
        s = now();
        sc = cpu();
        engine_check_admission(e, inv, docs.v[i].root, "ml", 0, &out, &err);
        lat[n] = cpu() - sc;
        if (getenv("BENCH_SLOW") && lat[n] > atof(getenv("BENCH_SLOW")) / 1e3)
            fprintf(stderr, "slow: %s %.2f ms\n",
                    tree_str(tree_at(docs.v[i].root, "metadata.name")),
                    lat[n] * 1e3);
        wall[n++] = now() - s;
        for (k = 0; k < out.n; k++) {
            errors += out.v[k].sev == SEV_ERROR;
            infos += out.v[k].sev == SEV_INFO;
        }
        arena_release(&a);
    }
    t2 = now();
    c2 = cpu();
    if (argc == 4) {    /* per-object CPU seconds, in object order */
        FILE *tf = fopen(argv[3], "w");
        if (!tf)
            return 2;
        for (i = 0; i < n; i++)
            fprintf(tf, "%.9f\n", lat[i]);
        fclose(tf);
    }
    qsort(lat, n, sizeof(*lat), cmp_double);
    qsort(wall, n, sizeof(*wall), cmp_double);
    getrusage(RUSAGE_SELF, &ru);
    printf("inventory: %zu objects, %zu devices on %zu nodes, loaded and "
           "modelled in %.0f ms CPU (%.0f ms wall)\n", inventory_size(inv),
           inventory_devices(inv)->ndevs, inventory_devices(inv)->nnodes,
           (c1 - c0) * 1e3, (t1 - t0) * 1e3);
    printf("objects: %zu checked in %.0f ms CPU (%.0f ms wall; %zu errors, "
           "%zu infos)\n", n, (c2 - c1) * 1e3, (t2 - t1) * 1e3, errors,
           infos);
    if (n)
        printf("per object (CPU): p50 %.2f ms, p99 %.2f ms, max %.2f ms; "
               "wall p99 %.2f ms\n", lat[n / 2] * 1e3,
               lat[(n * 99) / 100] * 1e3, lat[n - 1] * 1e3,
               wall[(n * 99) / 100] * 1e3);
    printf("total: %.0f ms CPU (%.0f ms wall); peak RSS %ld MB\n",
           (c2 - c0) * 1e3, (t2 - t0) * 1e3, ru.ru_maxrss / 1024);
    free(lat);
    free(wall);
    arena_release(&docs_arena);
    inventory_free(inv);
    engine_free(e);
    config_release(&cfg);
    free(itext);
    free(otext);
    return 0;
}
