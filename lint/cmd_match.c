/*
 * cmd_match.c - `claimcheck match -i INVENTORY [--class NAME] EXPR`: a CEL
 * selector (after the class's selectors, in the scheduler's order) against
 * every device of the inventory: which devices match, which do not (and
 * which selector rejected them), which raise a runtime error, where the
 * devices are (node, node selector, all nodes) and how many match per
 * node. Text or JSON. It reuses the device model and the allocator's
 * selector evaluation; it checks nothing else.
 */
#include "cmds.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../validate/k8s/gates.h"
#include "../validate/allocate.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/cel/cel.h"
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/inventory.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"

#define MATCH_LIST_DEFAULT 20   /* devices / nodes listed per section */
#define MATCH_MAX_FILE (512u << 20)

static const char match_usage[] =
"usage: claimcheck match -i INVENTORY [options] EXPR\n"
"\n"
"Evaluates a CEL device selector against every device of the inventory\n"
"(ResourceSlices of the newest pool generations) and shows which devices\n"
"match, which do not, and which raise a runtime error, with their node\n"
"placement and counts per node.\n"
"\n"
"  -i, --inventory PATH      ResourceSlices, DeviceClasses, Nodes (YAML or\n"
"                            JSON, e.g. kubectl get -o yaml; a file, a\n"
"                            directory or - for stdin); repeatable\n"
"  --class NAME              apply the DeviceClass's selectors first\n"
"  -k, --kube-version X.Y    target version (selects the CEL environment)\n"
"  -g, --feature-gates K=V   gate overrides (DRAConsumableCapacity,\n"
"                            DRAListTypeAttributes change the environment)\n"
"  -o, --format text|json    output; default text\n"
"  --all                     list every device (text lists 20 per section)\n"
"\n"
"Exit status: 0 some device matches and none raises an error; 1 no device\n"
"matches, or a runtime error (the scheduler would abort the claim);\n"
"2 usage error, unreadable inventory, unknown class or a compile error.\n";

struct match_opts {
    const char **inv;
    size_t ninv;
    const char *cls;
    const char *expr;
    int json, all;
    struct config cfg;
};

static int usage(const char *msg)
{
    fprintf(stderr, "claimcheck match: %s\n(see 'claimcheck match "
            "--help')\n", msg);
    return 2;
}

static int read_all(const char *path, char **out, size_t *len,
                    struct err *err)
{
    FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
    size_t cap = 1 << 16, n = 0;
    char *p;

    if (!f)
        return err_set(err, "cannot read '%s': %s", path, strerror(errno));
    p = malloc(cap);
    if (!p)
        abort();
    for (;;) {
        size_t r;
        if (n == cap) {
            if (cap >= MATCH_MAX_FILE) {
                free(p);
                if (f != stdin)
                    fclose(f);
                return err_set(err, "'%s' is too large", path);
            }
            cap *= 2;
            p = realloc(p, cap);
            if (!p)
                abort();
        }
        r = fread(p + n, 1, cap - n, f);
        n += r;
        if (r == 0)
            break;
    }
    if (ferror(f)) {
        free(p);
        if (f != stdin)
            fclose(f);
        return err_set(err, "cannot read '%s'", path);
    }
    if (f != stdin)
        fclose(f);
    *out = p;
    *len = n;
    return 0;
}

struct texts {                  /* inventory file contents, kept to the end */
    char **v;
    size_t n, cap;
};

static int has_manifest_ext(const char *p)
{
    size_t n = strlen(p);

    return (n > 5 && !strcmp(p + n - 5, ".yaml"))
           || (n > 4 && !strcmp(p + n - 4, ".yml"))
           || (n > 5 && !strcmp(p + n - 5, ".json"));
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Adds a file, or every manifest under a directory (sorted, hidden entries
 * skipped), to the inventory. Returns 0, or -1 with err filled. */
static int add_path(struct inventory *inv, struct texts *t, const char *path,
                    int top, int depth, struct err *err)
{
    struct stat st;
    char *data = NULL;
    size_t len = 0;

    if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *d;
        struct dirent *de;
        char **names = NULL;
        size_t n = 0, i;
        int rc = 0;
        if (depth > 64)
            return err_set(err, "'%s': directories nested too deep", path);
        d = opendir(path);
        if (!d)
            return err_set(err, "cannot open directory '%s': %s", path,
                           strerror(errno));
        for (de = readdir(d); de; de = readdir(d)) {
            size_t sz = strlen(path) + strlen(de->d_name) + 2;
            if (de->d_name[0] == '.')
                continue;
            names = realloc(names, (n + 1) * sizeof(*names));
            if (!names)
                abort();
            names[n] = malloc(sz);
            if (!names[n])
                abort();
            snprintf(names[n++], sz, "%s/%s", path, de->d_name);
        }
        closedir(d);
        qsort(names, n, sizeof(*names), cmp_str);
        for (i = 0; i < n; i++) {
            if (!rc)
                rc = add_path(inv, t, names[i], 0, depth + 1, err);
            free(names[i]);
        }
        free(names);
        return rc;
    }
    if (!top && (stat(path, &st) < 0 || !S_ISREG(st.st_mode)
                 || !has_manifest_ext(path)))
        return 0;
    if (read_all(path, &data, &len, err) < 0)
        return -1;
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 8;
        t->v = realloc(t->v, t->cap * sizeof(*t->v));
        if (!t->v)
            abort();
    }
    t->v[t->n++] = data;    /* kept until the end, like the linter does */
    return inventory_add_text(inv, path, data, len, err);
}

static int parse(int argc, char **argv, struct match_opts *o)
{
    struct err err;
    int i;

    for (i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = NULL;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            fputs(match_usage, stdout);
            return 1;
        }
        if (a[0] != '-' || !a[1]) {
            if (o->expr)
                return usage("give one expression (quote it)");
            o->expr = a;
            continue;
        }
        if (!strcmp(a, "--all")) {
            o->all = 1;
            continue;
        }
        if (!strncmp(a, "--", 2) && strchr(a, '=')) {
            v = strchr(a, '=') + 1;
        } else if (!strcmp(a, "-i") || !strcmp(a, "--inventory")
                   || !strcmp(a, "--class") || !strcmp(a, "-k")
                   || !strcmp(a, "--kube-version") || !strcmp(a, "-g")
                   || !strcmp(a, "--feature-gates") || !strcmp(a, "-o")
                   || !strcmp(a, "--format")) {
            if (i + 1 >= argc)
                return usage(a[1] == '-' ? "an option needs a value"
                                         : "an option needs a value");
            v = argv[++i];
        } else {
            fprintf(stderr, "claimcheck match: unknown option '%s'\n", a);
            return 2;
        }
        if (!strcmp(a, "-i") || !strncmp(a, "--inventory", 11)) {
            o->inv = realloc(o->inv, (o->ninv + 1) * sizeof(*o->inv));
            if (!o->inv)
                abort();
            o->inv[o->ninv++] = v;
        } else if (!strncmp(a, "--class", 7)) {
            o->cls = v;
        } else if (!strcmp(a, "-k") || !strncmp(a, "--kube-version", 14)) {
            if (config_set_kube_version(&o->cfg, v, &err) < 0)
                return usage(err.msg);
        } else if (!strcmp(a, "-g") || !strncmp(a, "--feature-gates", 15)) {
            if (config_add_gates(&o->cfg, v, &err) < 0)
                return usage(err.msg);
        } else if (!strcmp(a, "-o") || !strncmp(a, "--format", 8)) {
            if (!strcmp(v, "json"))
                o->json = 1;
            else if (strcmp(v, "text"))
                return usage("format must be text or json");
        } else {
            fprintf(stderr, "claimcheck match: unknown option '%s'\n", a);
            return 2;
        }
    }
    if (!o->expr)
        return usage("no expression given");
    if (!o->ninv)
        return usage("no inventory given (-i FILE)");
    return 0;
}

/* ==== evaluation ========================================================= */

struct sel {                    /* one selector in evaluation order */
    const char *label;          /* "class selector #1" / "expression" */
    const char *expr;
    struct alloc_match m;
};

enum outcome { OUT_MATCH, OUT_NO, OUT_ERR };

struct result {
    enum outcome *out;          /* per device */
    size_t *by;                 /* per device: deciding selector */
    size_t nmatch, nno, nerr;
};

static void evaluate(const struct devmodel *m, struct sel *sels,
                     size_t nsels, struct result *r, struct arena *a)
{
    size_t i, k;

    r->out = arena_alloc(a, (m->ndevs + 1) * sizeof(*r->out));
    r->by = arena_alloc(a, (m->ndevs + 1) * sizeof(*r->by));
    for (i = 0; i < m->ndevs; i++) {
        enum outcome o = OUT_MATCH;
        for (k = 0; k < nsels && o == OUT_MATCH; k++) {
            if (sels[k].m.v[i] == AM_NO)
                o = OUT_NO;
            else if (sels[k].m.v[i] == AM_ERR)
                o = OUT_ERR;
            r->by[i] = k;
        }
        r->out[i] = o;
        r->nmatch += o == OUT_MATCH;
        r->nno += o == OUT_NO;
        r->nerr += o == OUT_ERR;
    }
}

static const char *placement(struct arena *a, const struct devmodel *m,
                             const struct dm_device *d)
{
    size_t n, k = 0;

    switch (d->place) {
    case DM_NODE:
        return arena_printf(a, "node %s", m->nodes[d->node_idx].name);
    case DM_SELECTOR:
        for (n = 0; n < m->nnodes; n++)
            k += (size_t)dm_node_selector_match(&m->nodes[n],
                                                d->node_selector);
        return arena_printf(a, "nodeSelector (%zu node%s)", k,
                            k == 1 ? "" : "s");
    case DM_ALL:
        return "all nodes";
    }
    return "?";
}

/* ==== output ============================================================= */

static void json_str(struct buf *b, const char *k, const char *v)
{
    buf_add_json_str(b, k);
    buf_addc(b, ':');
    if (v)
        buf_add_json_str(b, v);
    else
        buf_adds(b, "null");
}

static void json_device(struct buf *b, const struct devmodel *m, size_t i)
{
    const struct dm_device *d = &m->devs[i];

    buf_addc(b, '{');
    json_str(b, "driver", d->driver);
    buf_addc(b, ',');
    json_str(b, "pool", d->pool);
    buf_addc(b, ',');
    json_str(b, "device", d->name);
    buf_addc(b, ',');
    json_str(b, "node", d->place == DM_NODE ? m->nodes[d->node_idx].name
                                            : NULL);
    buf_addc(b, ',');
    json_str(b, "placement", d->place == DM_NODE ? "nodeName"
                             : d->place == DM_SELECTOR ? "nodeSelector"
                                                       : "allNodes");
}

static void node_counts(const struct devmodel *m, const struct result *r,
                        size_t *have, size_t *match)
{
    size_t n, i;

    for (n = 0; n < m->nnodes; n++) {
        const struct dm_node *nd = &m->nodes[n];
        have[n] = match[n] = 0;
        for (i = 0; i < nd->nlocal; i++) {
            have[n]++;
            match[n] += r->out[nd->local[i]] == OUT_MATCH;
        }
        for (i = 0; i < m->nshared; i++)
            if (dm_device_on_node(m, m->shared[i], n)) {
                have[n]++;
                match[n] += r->out[m->shared[i]] == OUT_MATCH;
            }
    }
}

static void print_json(FILE *f, const struct match_opts *o,
                       const struct devmodel *m, const struct sel *sels,
                       const struct result *r)
{
    struct buf b;
    size_t *have = calloc(m->nnodes + 1, sizeof(size_t));
    size_t *match = calloc(m->nnodes + 1, sizeof(size_t));
    size_t i, n, first;

    if (!have || !match)
        abort();
    node_counts(m, r, have, match);
    for (n = 0, first = 0; n < m->nnodes; n++)
        first += match[n] > 0;
    buf_init(&b, (size_t)1 << 30);
    buf_adds(&b, "{\"version\":1,");
    json_str(&b, "expression", o->expr);
    buf_addc(&b, ',');
    json_str(&b, "class", o->cls);
    buf_addf(&b, ",\"counts\":{\"devices\":%zu,\"match\":%zu,\"noMatch\":%zu,"
             "\"error\":%zu,\"nodes\":%zu,\"nodesWithMatch\":%zu,"
             "\"incompletePools\":%zu},", m->ndevs, r->nmatch, r->nno,
             r->nerr, m->nnodes, first, m->nincomplete);
    buf_adds(&b, "\"devices\":[");
    for (i = 0; i < m->ndevs; i++) {
        if (i)
            buf_addc(&b, ',');
        json_device(&b, m, i);
        buf_addc(&b, ',');
        json_str(&b, "result", r->out[i] == OUT_MATCH ? "match"
                 : r->out[i] == OUT_NO ? "noMatch" : "error");
        if (r->out[i] != OUT_MATCH) {
            buf_addc(&b, ',');
            json_str(&b, "selector", sels[r->by[i]].label);
        }
        if (r->out[i] == OUT_ERR) {
            buf_addc(&b, ',');
            json_str(&b, "error", sels[r->by[i]].m.err[i]);
        }
        buf_addc(&b, '}');
    }
    buf_adds(&b, "],\"nodes\":[");
    for (n = 0, first = 1; n < m->nnodes; n++) {
        if (!have[n])
            continue;
        if (!first)
            buf_addc(&b, ',');
        first = 0;
        buf_addc(&b, '{');
        json_str(&b, "name", m->nodes[n].name);
        buf_addf(&b, ",\"devices\":%zu,\"match\":%zu}", have[n], match[n]);
    }
    buf_adds(&b, "]}\n");
    fputs(b.p, f);
    buf_release(&b);
    free(have);
    free(match);
}

static void print_text(FILE *f, const struct match_opts *o,
                       const struct devmodel *m, const struct sel *sels,
                       size_t nsels, const struct result *r,
                       struct arena *a)
{
    size_t limit = o->all ? (size_t)-1 : MATCH_LIST_DEFAULT;
    size_t *have = calloc(m->nnodes + 1, sizeof(size_t));
    size_t *match = calloc(m->nnodes + 1, sizeof(size_t));
    size_t i, n, shown, nwith = 0, k;

    if (!have || !match)
        abort();
    node_counts(m, r, have, match);
    for (n = 0; n < m->nnodes; n++)
        nwith += match[n] > 0;
    fprintf(f, "%zu device%s in %zu pool%s on %zu node%s: %zu match, %zu "
            "do not, %zu raise an error\n", m->ndevs,
            m->ndevs == 1 ? "" : "s", m->npools, m->npools == 1 ? "" : "s",
            m->nnodes, m->nnodes == 1 ? "" : "s", r->nmatch, r->nno,
            r->nerr);
    for (k = 0; k + 1 < nsels; k++)
        fprintf(f, "  %s: %s\n", sels[k].label, sels[k].expr);
    if (m->nincomplete)
        fprintf(f, "note: %zu pool%s incomplete (slices missing): devices "
                "may be missing\n", m->nincomplete,
                m->nincomplete == 1 ? " is" : "s are");
    if (r->nmatch) {
        fprintf(f, "\nmatch (%zu device%s on %zu node%s):\n", r->nmatch,
                r->nmatch == 1 ? "" : "s", nwith, nwith == 1 ? "" : "s");
        for (i = 0, shown = 0; i < m->ndevs; i++) {
            if (r->out[i] != OUT_MATCH)
                continue;
            if (shown++ < limit)
                fprintf(f, "  %s  (%s, %s%s)\n", m->devs[i].ref,
                        m->devs[i].driver, placement(a, m, &m->devs[i]),
                        m->devs[i].taints && m->devs[i].taints->n
                        ? ", tainted" : "");
        }
        if (shown > limit)
            fprintf(f, "  ... and %zu more (--all lists them)\n",
                    shown - limit);
    }
    if (r->nerr) {
        fprintf(f, "\nruntime error (%zu device%s; the scheduler aborts "
                "allocation of the claim; guard with has() or "
                ".?x.orValue()):\n", r->nerr, r->nerr == 1 ? "" : "s");
        for (i = 0, shown = 0; i < m->ndevs; i++) {
            if (r->out[i] != OUT_ERR)
                continue;
            if (shown++ < limit)
                fprintf(f, "  %s  %s: %s\n", m->devs[i].ref,
                        sels[r->by[i]].label, sels[r->by[i]].m.err[i]);
        }
        if (shown > limit)
            fprintf(f, "  ... and %zu more\n", shown - limit);
    }
    if (r->nno) {
        fprintf(f, "\nno match (%zu device%s):\n", r->nno,
                r->nno == 1 ? "" : "s");
        for (i = 0, shown = 0; i < m->ndevs; i++) {
            if (r->out[i] != OUT_NO)
                continue;
            if (shown++ < limit)
                fprintf(f, "  %s  rejected by %s\n", m->devs[i].ref,
                        sels[r->by[i]].label);
        }
        if (shown > limit)
            fprintf(f, "  ... and %zu more\n", shown - limit);
    }
    fprintf(f, "\nper node (matching / devices):\n");
    for (n = 0, shown = 0; n < m->nnodes; n++) {
        if (!have[n])
            continue;
        if (shown++ < limit)
            fprintf(f, "  %s: %zu / %zu\n", m->nodes[n].name, match[n],
                    have[n]);
    }
    if (shown > limit)
        fprintf(f, "  ... and %zu more nodes\n", shown - limit);
    free(have);
    free(match);
}

int cmd_match(int argc, char **argv)
{
    struct match_opts o;
    struct inventory *inv = NULL;
    struct arena a;
    struct target t;
    struct cel_env env = {1, 1, 0};
    const struct devmodel *m;
    const struct object *cls = NULL;
    struct sel *sels = NULL;
    struct result r;
    struct err err;
    struct texts texts = {NULL, 0, 0};
    size_t i, nsels = 0;
    int ret = 2, g;

    memset(&o, 0, sizeof(o));
    memset(&r, 0, sizeof(r));
    config_init(&o.cfg);
    arena_init(&a, 1 << 16);
    g = parse(argc, argv, &o);
    if (g) {
        ret = g == 1 ? 0 : 2;
        goto out;
    }
    if (target_init(&t, &o.cfg, &err) < 0) {
        fprintf(stderr, "claimcheck match: %s\n", err.msg);
        goto out;
    }
    g = gate_find("DRAConsumableCapacity");
    env.consumable_capacity = g >= 0 ? t.gate_on[g] : 1;
    g = gate_find("DRAListTypeAttributes");
    env.list_attributes = g >= 0 ? t.gate_on[g] : 1;
    inv = inventory_new();
    for (i = 0; i < o.ninv; i++) {
        if (add_path(inv, &texts, o.inv[i], 1, 0, &err) < 0) {
            fprintf(stderr, "claimcheck match: %s\n", err.msg);
            goto out;
        }
    }
    m = inventory_devices(inv);
    if (o.cls) {
        cls = inventory_lookup(inv, K_CLASS, "", o.cls);
        if (!cls || !cls->cls) {
            fprintf(stderr, "claimcheck match: DeviceClass '%s' is not in "
                    "the inventory\n", o.cls);
            goto out;
        }
    }
    nsels = (cls ? cls->cls->nsel : 0) + 1;
    sels = arena_alloc(&a, nsels * sizeof(*sels));
    for (i = 0; i < nsels; i++) {
        struct cel_program *p;
        struct cel_error ce;
        const char *e = i + 1 < nsels ? cls->cls->sel[i].expr : o.expr;
        sels[i].label = i + 1 < nsels
            ? arena_printf(&a, "class selector #%zu", i + 1) : "expression";
        if (!e) {
            fprintf(stderr, "claimcheck match: %s is not a string\n",
                    sels[i].label);
            goto out;
        }
        sels[i].expr = e;
        if (cel_compile(&a, &env, e, strlen(e), &p, &ce) < 0) {
            fprintf(stderr, "claimcheck match: %s: %u:%u: %s\n",
                    sels[i].label, ce.line, ce.col, ce.msg);
            goto out;
        }
        alloc_eval(&a, m, p, e, 0, &sels[i].m);  /* asked for: no budget */
    }
    evaluate(m, sels, nsels, &r, &a);
    if (o.json)
        print_json(stdout, &o, m, sels, &r);
    else
        print_text(stdout, &o, m, sels, nsels, &r, &a);
    ret = r.nmatch && !r.nerr ? 0 : 1;
out:
    inventory_free(inv);
    for (i = 0; i < texts.n; i++)
        free(texts.v[i]);
    free(texts.v);
    arena_release(&a);
    config_release(&o.cfg);
    free(o.inv);
    return ret;
}
