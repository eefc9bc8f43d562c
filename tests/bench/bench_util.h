/*
 * bench_util.h - what the C benchmark drivers (alloc/bench_alloc.c,
 * scale/bench_scale.c) share: wall and thread CPU clocks, reading a whole
 * file, sorting latencies, the engine with the built-in rules and the
 * default config. Static functions: each driver is one
 * translation unit built by its run.sh.
 */
#ifndef CLAIMCHECK_BENCH_UTIL_H
#define CLAIMCHECK_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "rules/rules.h"
#include "validate/config.h"
#include "validate/engine.h"
#include "validate/err.h"

static double now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* CPU time of this thread: what the work costs on one core, unaffected by
 * other processes sharing the machine (wall time is printed too) */
static double cpu(void)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* The whole file, NUL-terminated; exits 2 when it cannot be read. */
static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *p;
    long n;

    if (!f) {
        perror(path);
        exit(2);
    }
    fseek(f, 0, SEEK_END);
    n = ftell(f);
    fseek(f, 0, SEEK_SET);
    p = malloc((size_t)n + 1);
    if (!p || fread(p, 1, (size_t)n, f) != (size_t)n)
        exit(2);
    fclose(f);
    p[n] = 0;
    *len = (size_t)n;
    return p;
}

/* qsort() order of doubles */
static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

/* An engine with the built-in rules and cfg's defaults; exits 2 on
 * failure. */
static struct engine *bench_engine(struct config *cfg)
{
    struct engine *e;
    struct err err;

    config_init(cfg);
    e = engine_new(cfg, &rules_builtin, &err);
    if (!e) {
        fprintf(stderr, "%s\n", err.msg);
        exit(2);
    }
    return e;
}

#endif
