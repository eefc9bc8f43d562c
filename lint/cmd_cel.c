/*
 * cmd_cel.c - `claimcheck cel [--device FILE] [-k X.Y] [-g K=V] [--selector]
 * [--stored] [--cost] EXPR`: evaluates one CEL expression in the DRA
 * environment of the target version and gates (NewExpressions, or
 * StoredExpressions with --stored) and prints the result as a CEL literal,
 * or `error: <message>` (exit 1). An expression may have any type; with
 * --selector it is compiled and evaluated as the apiserver and the
 * scheduler treat a selector (bool or the unknown type, the cost limit,
 * DeviceMatches' binding and bool conversion). --cost adds a line with
 * Kubernetes' estimated cost range and the runtime cost. --device binds
 * `device` to one device
 * written as ResourceSlice device YAML plus `driver:` (v1 flat shape, or
 * v1beta1 with `basic:`); it is read through the same device model as
 * inventories, so attributes and capacity behave as in the scheduler.
 */
#include "cmds.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/arena.h"
#include "../validate/cel/cel.h"
#include "../validate/config.h"
#include "../validate/err.h"
#include "../validate/file.h"
#include "../validate/inventory.h"
#include "../validate/limits.h"
#include "../validate/load_yaml.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"
#include "cli.h"

#define CEL_DEVICE_FILE_MAX (1u << 20)
#define CEL_OUT_MAX (64u * 1024)

enum { O_DEVICE, O_SELECTOR, O_STORED, O_COST };

static const struct opt rows[] = {
    { "device", 0, OPT_VALUE, "FILE",
      "bind `device` to the device in FILE: a\n"
      "ResourceSlice device (name, attributes,\n"
      "capacity, ...) plus `driver: NAME`", O_DEVICE },
    { "kube-version", 'k', OPT_VALUE, "X.Y",
      "target version (selects the environment)", CLI_KUBE_VERSION },
    { "feature-gates", 'g', OPT_VALUE, "K=V",
      "gate overrides (DRAConsumableCapacity declares\n"
      "device.allowMultipleAllocations,\n"
      "DRAListTypeAttributes types attribute values\n"
      "dyn, binds list values, declares includes())", CLI_FEATURE_GATES },
    { "selector", 0, OPT_FLAG, NULL,
      "EXPR is a selector: it must be bool (or an\n"
      "attribute), its result is converted to bool\n"
      "as the scheduler does, and an estimated cost\n"
      "over the apiserver's limit is reported", O_SELECTOR },
    { "stored", 0, OPT_FLAG, NULL,
      "the StoredExpressions environment (a stored\n"
      "selector, the scheduler): every library and\n"
      "field whatever the version and features", O_STORED },
    { "cost", 0, OPT_FLAG, NULL,
      "also print `cost: estimated MIN..MAX,\n"
      "runtime N` (Kubernetes' cost units)", O_COST },
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table cel_options = OPT_TABLE(rows);

const char cel_about[] =
"Evaluates EXPR in the DRA CEL environment and prints the result as a CEL\n"
"literal, or `error: <message>` with exit status 1 (a compile error:\n"
"`error: compilation failed: <message> (column N)`).\n"
"\n"
"example:\n"
"  claimcheck cel --device gpu.yaml \\\n"
"    \"device.capacity['gpu.example.com'].memory.compareTo("
"quantity('40Gi')) >= 0\"\n";

static struct tnode *scalar(struct arena *a, const char *s)
{
    struct tnode *n = tree_new(a, T_STR, 0, 0);

    n->str = arena_strdup(a, s);
    return n;
}

/* A map node from key/value pairs (kids' parent/key set). */
static struct tnode *map_of(struct arena *a, const char *const *keys,
                            struct tnode **vals, unsigned n)
{
    struct tnode *m = tree_new(a, T_MAP, 0, 0);
    unsigned i;

    m->kids = arena_alloc(a, n * sizeof(*m->kids));
    for (i = 0; i < n; i++) {
        vals[i]->key = keys[i];
        vals[i]->parent = m;
        m->kids[i] = vals[i];
    }
    m->n = n;
    return m;
}

/* Reads the device file and wraps it in a one-device ResourceSlice, so
 * the inventory's device model converts it. */
static int load_device(struct arena *a, const char *path,
                       struct cel_device *out, struct devmodel **model,
                       struct err *err)
{
    char *raw, *data;
    size_t len;
    struct ydocs docs;
    struct tnode *dev;
    const char *driver;
    struct tnode *seq, *spec, *root, *v[4];
    static const char *const pool_keys[] = {"name", "generation",
                                            "resourceSliceCount"};
    static const char *const spec_keys[] = {"driver", "pool", "allNodes",
                                            "devices"};
    static const char *const meta_keys[] = {"name"};
    static const char *const root_keys[] = {"apiVersion", "kind", "metadata",
                                            "spec"};
    struct tnode *pv[3], *mv[1], *rv[4], *t;
    struct object *o;
    const struct tnode *bad;
    const char *why;
    struct devmodel *m;

    if (file_read(path, CEL_DEVICE_FILE_MAX, &raw, &len, err) < 0)
        return -1;
    data = arena_strndup(a, raw, len);      /* the trees point into it */
    free(raw);
    load_yaml(a, data, len, &docs);
    if (docs.n != 1 || docs.v[0].error || !tree_is_map(docs.v[0].root))
        return err_set(err, "%s: %s", path, docs.n && docs.v[0].error
                       ? arena_printf(a, "%u:%u: %s", docs.v[0].line,
                                      docs.v[0].col, docs.v[0].error)
                       : "want one device mapping with a driver");
    dev = docs.v[0].root;
    driver = tree_str(tree_get(dev, "driver"));
    if (!driver)
        return err_set(err, "%s: the device needs 'driver: NAME'", path);
    if (!tree_get(dev, "name")) {
        /* the model keys devices by name: give an anonymous one a name */
        struct tnode *copy = tree_new(a, T_MAP, dev->line, dev->col);
        struct tnode *nm = scalar(a, "device");
        unsigned i;
        copy->kids = arena_alloc(a, (dev->n + 1) * sizeof(*copy->kids));
        for (i = 0; i < dev->n; i++)
            copy->kids[i] = dev->kids[i];
        nm->key = "name";
        nm->parent = copy;
        copy->kids[dev->n] = nm;
        copy->n = dev->n + 1;
        dev = copy;
    }
    seq = tree_new(a, T_SEQ, 0, 0);
    seq->kids = arena_alloc(a, sizeof(*seq->kids));
    seq->kids[0] = dev;
    seq->n = 1;
    pv[0] = scalar(a, "cel");
    pv[1] = tree_new(a, T_INT, 0, 0);
    pv[1]->str = "0";
    pv[2] = tree_new(a, T_INT, 0, 0);
    pv[2]->str = "1";
    pv[2]->ival = 1;
    v[0] = scalar(a, driver);
    v[1] = map_of(a, pool_keys, pv, 3);
    t = tree_new(a, T_BOOL, 0, 0);
    t->str = "true";
    t->boolean = 1;
    v[2] = t;
    v[3] = seq;
    spec = map_of(a, spec_keys, v, 4);
    mv[0] = scalar(a, "claimcheck-cel");
    rv[0] = scalar(a, tree_get(dev, "basic") ? "resource.k8s.io/v1beta1"
                                            : "resource.k8s.io/v1");
    rv[1] = scalar(a, "ResourceSlice");
    rv[2] = map_of(a, meta_keys, mv, 1);
    rv[3] = spec;
    root = map_of(a, root_keys, rv, 4);
    o = arena_alloc(a, sizeof(*o));
    if (object_read(a, root, path, 0, o, &bad, &why) != OBJ_OK)
        return err_set(err, "%s: %s", path, why ? why : "not a device");
    /* list values kept: DeviceMatches itself refuses them with the gate
     * off, as compile.go does */
    m = devmodel_build(a, (const struct object *const *)&o, 1, 1);
    *model = m;     /* its caches are malloc'ed: the caller frees it */
    if (m->ndevs != 1)
        return err_set(err, "%s: not a ResourceSlice device (want name, "
                       "attributes, capacity...)", path);
    *out = m->devs[0].cel;
    return 0;
}

struct cel_args {
    struct config cfg;
    const char *device_file, *expr;
    size_t nexprs;
    int selector, stored, cost;
};

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct cel_args *a = ctx;

    switch (id) {
    case O_DEVICE:
        a->device_file = v;
        return 0;
    case O_SELECTOR:
        a->selector = 1;
        return 0;
    case O_STORED:
        a->stored = 1;
        return 0;
    case O_COST:
        a->cost = 1;
        return 0;
    case OPT_OPERAND:
        a->expr = v;
        a->nexprs++;
        return 0;
    default:
        return cli_target_option(&a->cfg, id, v, err);
    }
}

int cmd_cel(const struct cli *cli, int argc, char **argv)
{
    struct cel_args ca;
    struct target t;
    struct arena a;
    struct err err;
    struct cel_env env;
    struct cel_device dev, *devp = NULL;
    struct devmodel *model = NULL;
    struct cel_program *p;
    struct cel_error cerr;
    char *out = NULL;
    int ret = 2, rc;
    uint64_t cmin, cmax, used = 0;

    memset(&ca, 0, sizeof(ca));
    config_init(&ca.cfg);
    arena_init(&a, ARENA_CHUNK_BYTES);
    if (cli_parse(cli, argc, argv, on_option, &ca, &ret) < 0)
        goto out;
    if (ca.nexprs != 1) {
        ret = cli_usage_error(cli, ca.nexprs ? "give one expression (quote "
                              "it)" : "missing expression");
        goto out;
    }
    if (target_init(&t, &ca.cfg, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (ca.device_file) {
        if (load_device(&a, ca.device_file, &dev, &model, &err) < 0) {
            cli_error("%s", err.msg);
            goto out;
        }
        devp = &dev;
    }
    target_cel_env(&t, &env);
    env.stored = ca.stored;
    out = xmalloc(CEL_OUT_MAX);
    rc = ca.selector
         ? cel_compile_selector(&a, &env, ca.expr, strlen(ca.expr), &p, &cerr)
         : cel_compile_expr(&a, &env, ca.expr, strlen(ca.expr), &p, &cerr);
    if (rc < 0) {
        if (cerr.kind == CEL_ERR_LIMIT)
            printf("error: %s\n", cerr.msg);
        else
            printf("error: compilation failed: %s (column %u)\n", cerr.msg,
                   cerr.col);
        ret = 1;
        goto out;
    }
    cel_program_cost(p, &cmin, &cmax);
    if (ca.selector && cmax > CEL_MAX_COST)
        cli_error("the estimated cost %llu is over the limit %d: the "
                  "apiserver rejects this selector (too complex)",
                  (unsigned long long)cmax, CEL_MAX_COST);
    if (ca.selector) {
        rc = cel_eval_device_costed(p, devp, &used, &cerr);
        if (rc >= 0)
            snprintf(out, CEL_OUT_MAX, "%s", rc ? "true" : "false");
    } else {
        rc = cel_eval_to_string_costed(p, devp, out, CEL_OUT_MAX, &used,
                                       &cerr);
    }
    if (rc < 0)
        printf("error: %s\n", cerr.msg);
    else
        printf("%s\n", out);
    if (ca.cost)
        printf("cost: estimated %llu..%llu, runtime %llu\n",
               (unsigned long long)cmin, (unsigned long long)cmax,
               (unsigned long long)used);
    cel_program_release(p);
    ret = rc < 0 ? 1 : 0;
out:
    free(out);
    devmodel_free(model);
    arena_release(&a);
    config_release(&ca.cfg);
    return ret;
}
