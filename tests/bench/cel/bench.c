/*
 * bench.c - CEL selector benchmark: 20 typical DRA selectors (corpus and
 * reference), compiled and evaluated against 10,000 generated devices.
 * Prints ns per compile and per evaluation, and writes the devices,
 * expressions and match counts as JSON (argv[1]) so bench.mjs can run the
 * same workload through @bufbuild/cel and cross-check the results.
 */
#include "../../../validate/cel/cel.h"
#include "../../../validate/arena.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NDEV 10000

static const char *const exprs[] = {
    "device.driver == 'gpu.example.com'",
    "device.driver == 'gpu.nvidia.com' && "
    "device.attributes['gpu.nvidia.com'].type == 'gpu'",
    "device.attributes['gpu.example.com'].model == 'LATEST-GPU-MODEL'",
    "device.capacity['gpu.example.com'].memory.compareTo(quantity('10Gi')) >= 0",
    "device.attributes[\"gpu.intel.com\"].family.startsWith(\"Arc\")",
    "device.attributes[\"gpu.nvidia.com\"].index <= 2",
    "has(device.attributes[\"dra.net\"].ifName) && "
    "device.attributes[\"dra.net\"].ifName == \"dummy0\"",
    "device.attributes[\"dra.net\"].rdma == true",
    "device.attributes[\"dra.net\"].cloudNetwork.contains(\"dranet-net\")",
    "device.driver == 'gpu.nvidia.com' && "
    "device.attributes['gpu.nvidia.com'].type == 'mig' && "
    "device.attributes['gpu.nvidia.com'].profile == '1g.12gb'",
    "device.attributes[\"gpu.example.com\"].someBool && "
    "device.attributes[\"gpu.example.com\"].anotherBool",
    "device.attributes[\"gpu.example.com\"].driverVersion"
    ".isGreaterThan(semver(\"1.2.0\"))",
    "device.capacity[\"gpu.example.com\"].memory"
    ".compareTo(quantity(\"40Gi\")) >= 0",
    "device.attributes[\"qat.intel.com\"].services == \"sym\" || "
    "device.attributes[\"qat.intel.com\"].services == \"sym;asym\" || "
    "device.attributes[\"qat.intel.com\"].services == \"sym;dc\" || "
    "device.attributes[\"qat.intel.com\"].services == \"asym;sym\"",
    "device.attributes['gpu.nvidia.com'].productName.matches('^.*A100.*$')",
    "device.capacity['gpu.nvidia.com'].multiprocessors"
    ".isLessThan(quantity(\"30\"))",
    "has(device.attributes[\"gpu.example.com\"].model) ? "
    "device.attributes[\"gpu.example.com\"].model == \"A100\" : false",
    "device.driver in ['gpu.example.com', 'gpu.nvidia.com']",
    "device.attributes[\"gpu.nvidia.com\"].index == 0 || "
    "device.attributes[\"gpu.nvidia.com\"].index == 1",
    "device.attributes['gpu.example.com'].model.startsWith('A1') && "
    "device.capacity['gpu.example.com'].memory"
    ".isGreaterThan(quantity('16Gi'))",
};
#define NEXPR (sizeof(exprs) / sizeof(exprs[0]))

#define NATTR 15
#define NCAP 3

struct gen {
    struct cel_attr attrs[NATTR];
    struct cel_capacity caps[NCAP];
    char strs[8][40];
    struct cel_device dev;
};

static const char *const drivers[] = { "gpu.example.com", "gpu.nvidia.com",
                                       "gpu.intel.com", "dra.net" };
static const char *const models[] = { "A100", "LATEST-GPU-MODEL", "A10",
                                      "T4", "H100" };
static const char *const types[] = { "gpu", "mig" };
static const char *const profiles[] = { "1g.12gb", "2g.24gb", "3g.40gb" };
static const char *const families[] = { "Arc", "Flex", "Max" };
static const char *const services[] = { "sym", "asym", "dc", "sym;asym",
                                        "asym;sym", "sym;dc" };
static const char *const mems[] = { "4Gi", "16Gi", "40Gi", "80Gi", "10240Mi",
                                    "48G" };
static const char *const versions[] = { "1.0.0", "1.2.0", "1.10.3",
                                        "2.0.0-rc.1", "1.2.1" };
static const char *const nets[] = { "dranet-net-a", "other", "dranet-net-b" };

static void attr_s(struct cel_attr *a, const char *d, const char *id,
                   const char *s, int version)
{
    memset(a, 0, sizeof(*a));
    a->domain = d;
    a->id = id;
    a->type = version ? CEL_ATTR_VERSION : CEL_ATTR_STRING;
    a->s = s;
}

static void attr_i(struct cel_attr *a, const char *d, const char *id,
                   long long v)
{
    memset(a, 0, sizeof(*a));
    a->domain = d;
    a->id = id;
    a->type = CEL_ATTR_INT;
    a->i = v;
}

static void attr_b(struct cel_attr *a, const char *d, const char *id, int v)
{
    memset(a, 0, sizeof(*a));
    a->domain = d;
    a->id = id;
    a->type = CEL_ATTR_BOOL;
    a->b = v;
}

static void gen_device(struct gen *g, unsigned i)
{
    unsigned r = i * 2654435761u;
    struct cel_attr *a = g->attrs;
    const char *ex = "gpu.example.com", *nv = "gpu.nvidia.com";

    snprintf(g->strs[0], sizeof(g->strs[0]), "NVIDIA %s-SXM",
             (r >> 3) % 2 ? "A100" : "H100");
    snprintf(g->strs[1], sizeof(g->strs[1]), "%u", 20 + (r >> 7) % 40);
    snprintf(g->strs[2], sizeof(g->strs[2]), "dummy%u", (r >> 9) % 3);
    attr_s(a++, ex, "model", models[(r >> 1) % 5], 0);
    attr_b(a++, ex, "someBool", (r >> 2) & 1);
    attr_b(a++, ex, "anotherBool", (r >> 4) & 1);
    attr_s(a++, ex, "driverVersion", versions[(r >> 5) % 5], 1);
    attr_s(a++, nv, "type", types[(r >> 6) % 2], 0);
    attr_s(a++, nv, "profile", profiles[(r >> 8) % 3], 0);
    attr_s(a++, nv, "productName", g->strs[0], 0);
    attr_i(a++, nv, "index", (long long)((r >> 10) % 8));
    attr_s(a++, "gpu.intel.com", "family", families[(r >> 11) % 3], 0);
    attr_s(a++, "dra.net", "ifName", g->strs[2], 0);
    attr_b(a++, "dra.net", "rdma", (r >> 12) & 1);
    attr_s(a++, "dra.net", "cloudNetwork", nets[(r >> 13) % 3], 0);
    attr_s(a++, "qat.intel.com", "services", services[(r >> 14) % 6], 0);
    attr_i(a++, ex, "cores", (long long)((r >> 15) % 128));
    attr_s(a++, ex, "uuid", "GPU-0000", 0);
    g->caps[0].domain = ex;
    g->caps[0].id = "memory";
    g->caps[0].quantity = mems[(r >> 16) % 6];
    g->caps[1].domain = nv;
    g->caps[1].id = "multiprocessors";
    g->caps[1].quantity = g->strs[1];
    g->caps[2].domain = nv;
    g->caps[2].id = "memory";
    g->caps[2].quantity = mems[(r >> 17) % 6];
    g->dev.driver = drivers[(r >> 18) % 4];
    g->dev.attrs = g->attrs;
    g->dev.nattrs = NATTR;
    g->dev.caps = g->caps;
    g->dev.ncaps = NCAP;
    g->dev.allow_multiple_allocations = 0;
    cel_device_prepare(&g->dev);    /* once per device, as devmodel.c */
}

static double now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fputc('\\', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void write_json(const char *path, struct gen *devs,
                       const long *matches, const long *errors)
{
    FILE *f = fopen(path, "w");
    size_t i, j;

    if (!f)
        return;
    fprintf(f, "{\"exprs\": [");
    for (i = 0; i < NEXPR; i++) {
        fprintf(f, i ? ", " : "");
        json_str(f, exprs[i]);
    }
    fprintf(f, "], \"matches\": [");
    for (i = 0; i < NEXPR; i++)
        fprintf(f, "%s%ld", i ? ", " : "", matches[i]);
    fprintf(f, "], \"errors\": [");
    for (i = 0; i < NEXPR; i++)
        fprintf(f, "%s%ld", i ? ", " : "", errors[i]);
    fprintf(f, "], \"devices\": [\n");
    for (i = 0; i < NDEV; i++) {
        struct cel_device *d = &devs[i].dev;
        const char *cur = NULL;
        fprintf(f, "%s{\"driver\": ", i ? ",\n" : "");
        json_str(f, d->driver);
        fprintf(f, ", \"attributes\": [");
        for (j = 0; j < d->nattrs; j++) {
            const struct cel_attr *a = &d->attrs[j];
            fprintf(f, "%s[", j ? ", " : "");
            json_str(f, a->domain);
            fprintf(f, ", ");
            json_str(f, a->id);
            if (a->type == CEL_ATTR_INT)
                fprintf(f, ", \"int\", %lld]", a->i);
            else if (a->type == CEL_ATTR_BOOL)
                fprintf(f, ", \"bool\", %s]", a->b ? "true" : "false");
            else {
                fprintf(f, ", \"%s\", ", a->type == CEL_ATTR_VERSION
                                         ? "version" : "string");
                json_str(f, a->s);
                fprintf(f, "]");
            }
        }
        fprintf(f, "], \"capacity\": [");
        for (j = 0; j < d->ncaps; j++) {
            fprintf(f, "%s[", j ? ", " : "");
            json_str(f, d->caps[j].domain);
            fprintf(f, ", ");
            json_str(f, d->caps[j].id);
            fprintf(f, ", ");
            json_str(f, d->caps[j].quantity);
            fprintf(f, "]");
        }
        fprintf(f, "]}");
        (void)cur;
    }
    fprintf(f, "]}\n");
    fclose(f);
}

int main(int argc, char **argv)
{
    static struct gen devs[NDEV];
    struct cel_program *progs[NEXPR];
    struct arena keep;
    struct cel_env env = { 0, 0, 0, 0, 0 };
    long matches[NEXPR], errors[NEXPR];
    double t0, t1, best_eval = 1e30, compile_ns;
    size_t i, j;
    int round, reps = 200;

    for (i = 0; i < NDEV; i++)
        gen_device(&devs[i], (unsigned)i);
    /* compile: fresh arena per compile, as the webhook does */
    t0 = now_ns();
    for (round = 0; round < reps; round++) {
        for (i = 0; i < NEXPR; i++) {
            struct arena a;
            struct cel_program *p;
            struct cel_error err;
            arena_init(&a, 16384);
            if (cel_compile(&a, &env, exprs[i], strlen(exprs[i]), &p,
                            &err) < 0) {
                printf("compile failed: %s: %s\n", exprs[i], err.msg);
                return 1;
            }
            arena_release(&a);
        }
    }
    t1 = now_ns();
    compile_ns = (t1 - t0) / (reps * (double)NEXPR);

    arena_init(&keep, 65536);
    if (argc > 2 && !strcmp(argv[2], "jit"))
        env.regex_jit = 1;
    for (i = 0; i < NEXPR; i++) {
        struct cel_error err;
        if (cel_compile(&keep, &env, exprs[i], strlen(exprs[i]), &progs[i],
                        &err) < 0)
            return 1;
    }
    printf("%-4s %10s %8s %7s  %s\n", "#", "ns/eval", "matches", "errors",
           "expression");
    for (round = 0; round < 3; round++) {
        double total = 0;
        for (i = 0; i < NEXPR; i++) {
            struct cel_error err;
            double e0, e1;
            long m = 0, er = 0;
            e0 = now_ns();
            for (j = 0; j < NDEV; j++) {
                int r = cel_eval_device(progs[i], &devs[j].dev, &err);
                if (r == 1)
                    m++;
                else if (r < 0)
                    er++;
            }
            e1 = now_ns();
            total += e1 - e0;
            matches[i] = m;
            errors[i] = er;
            if (round == 2)
                printf("%-4zu %10.1f %8ld %7ld  %.70s\n", i + 1,
                       (e1 - e0) / NDEV, m, er, exprs[i]);
        }
        if (total / (NDEV * (double)NEXPR) < best_eval)
            best_eval = total / (NDEV * (double)NEXPR);
    }
    printf("claimcheck: %.1f ns/compile (mean of %zu selectors), "
           "%.1f ns/eval (mean over %zu selectors x %d devices)%s\n",
           compile_ns, NEXPR, best_eval, NEXPR, NDEV,
           env.regex_jit ? " [regex JIT]" : "");
    for (i = 0; i < NEXPR; i++)
        cel_program_release(progs[i]);
    arena_release(&keep);
    if (argc > 1)
        write_json(argv[1], devs, matches, errors);
    printf("RESULT compile_ns=%.1f eval_ns=%.1f\n", compile_ns, best_eval);
    return 0;
}
