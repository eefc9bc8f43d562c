/*
 * bench.c - the JSON reader's micro-benchmark (validate/load_json.c): an
 * AdmissionReview as the apiserver sends it (compact) and a 2,000-Pod
 * List as a relist returns it, each parsed without positions (the
 * webhook's hot path) and with them (the linter's JSON files), against
 * cJSON on the same bytes as the baseline. Median of 7 runs; prints
 * figures, fails on nothing.
 *   bench REVIEW.json
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cJSON.h>

#include "../../../validate/arena.h"
#include "../../../validate/buf.h"
#include "../../../validate/err.h"
#include "../../../validate/load_json.h"

#define RUNS 7

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* median ns per parse of text; mode 0 ours, 1 ours with positions,
 * 2 cJSON */
static double bench(const char *text, size_t len, int iters, int mode)
{
    double t[RUNS];
    struct arena a;
    struct err e;
    int r, i;

    arena_init(&a, 64u << 20);  /* one chunk, reused: no page faults */
    for (r = 0; r < RUNS; r++) {
        double t0 = now();
        for (i = 0; i < iters; i++) {
            struct json_in in;
            struct tnode *root;
            arena_clear(&a);
            if (mode == 2) {
                cJSON_Delete(cJSON_ParseWithLength(text, len));
                continue;
            }
            memset(&in, 0, sizeof(in));
            in.data = text;
            in.len = len;
            in.line = mode == 1;
            in.col = 1;
            if (load_json_read(&a, &in, &root, &e) < 0) {
                fprintf(stderr, "%s\n", e.msg);
                exit(1);
            }
        }
        t[r] = (now() - t0) / iters * 1e9;
    }
    arena_release(&a);
    qsort(t, RUNS, sizeof(t[0]), cmp);
    return t[RUNS / 2];
}

static void report(const char *name, const char *text, size_t len,
                   int iters)
{
    double base = bench(text, len, iters, 0);
    double pos = bench(text, len, iters, 1);
    double cj = bench(text, len, iters, 2);

    printf("%-28s %8zu bytes  %9.0f ns (%6.0f MB/s)  positions %9.0f ns "
           "(+%.0f%%)  cJSON %9.0f ns (%.1fx ours)\n", name, len, base,
           (double)len / base * 1e3, pos, (pos / base - 1) * 100, cj,
           cj / base);
}

int main(int argc, char **argv)
{
    struct buf list, review;
    FILE *f;
    char chunk[4096];
    size_t n;
    int i;

    if (argc != 2)
        return 2;
    buf_init(&review, 1u << 24);
    f = fopen(argv[1], "rb");
    if (!f)
        return 1;
    for (n = fread(chunk, 1, sizeof(chunk), f); n > 0;
         n = fread(chunk, 1, sizeof(chunk), f))
        buf_add(&review, chunk, n);
    fclose(f);
    buf_init(&list, 1u << 26);
    buf_adds(&list, "{\"apiVersion\":\"v1\",\"kind\":\"List\",\"items\":[");
    for (i = 0; i < 2000; i++)
        buf_addf(&list, "%s{\"apiVersion\":\"v1\",\"kind\":\"Pod\","
                 "\"metadata\":{\"name\":\"p%d\",\"namespace\":\"ml\","
                 "\"labels\":{\"app\":\"train\",\"n\":\"%d\"}},\"spec\":"
                 "{\"containers\":[{\"name\":\"c\",\"image\":\"busybox:1.%d\","
                 "\"resources\":{\"limits\":{\"nvidia.com/gpu\":1,\"cpu\":"
                 "\"500m\"},\"requests\":{\"cpu\":0.5}}}]}}", i ? "," : "",
                 i, i, i);
    buf_adds(&list, "]}");
    report("AdmissionReview (compact)", review.p, review.len, 20000);
    report("List of 2,000 Pods", list.p, list.len, 20);
    buf_release(&list);
    buf_release(&review);
    return 0;
}
