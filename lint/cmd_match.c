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

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/allocate.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/cel/cel.h"
#include "../validate/config.h"
#include "../validate/engine.h"
#include "../validate/err.h"
#include "../validate/inventory.h"
#include "../validate/limits.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "../validate/tree.h"
#include "../validate/xalloc.h"
#include "cli.h"
#include "inputs.h"

#define MATCH_LIST_DEFAULT 20   /* devices / nodes listed per section */

enum { O_INVENTORY, O_CLASS, O_FORMAT, O_ALL };

static const struct opt rows[] = {
    { "inventory", 'i', OPT_VALUE, "PATH",
      "ResourceSlices, DeviceClasses, Nodes (YAML or\n"
      "JSON, e.g. kubectl get -o yaml; a file, a\n"
      "directory or - for stdin); repeatable", O_INVENTORY },
    { "class", 0, OPT_VALUE, "NAME",
      "apply the DeviceClass's selectors first", O_CLASS },
    { "kube-version", 'k', OPT_VALUE, "X.Y",
      "target version (selects the CEL environment)", CLI_KUBE_VERSION },
    { "feature-gates", 'g', OPT_VALUE, "K=V",
      "gate overrides (DRAConsumableCapacity,\n"
      "DRAListTypeAttributes change the environment)", CLI_FEATURE_GATES },
    { "format", 'o', OPT_VALUE, "text|json", "output; default text",
      O_FORMAT },
    { "all", 0, OPT_FLAG, NULL,
      "list every device (text lists 20 per section)", O_ALL },
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table match_options = OPT_TABLE(rows);

const char match_about[] =
"Evaluates a CEL device selector against every device of the inventory\n"
"(ResourceSlices of the newest pool generations) and shows which devices\n"
"match, which do not, and which raise a runtime error, with their node\n"
"placement and counts per node.\n"
"\n"
"Exit status: 0 some device matches and none raises an error; 1 no device\n"
"matches, or a runtime error (the scheduler would abort the claim);\n"
"2 usage error, unreadable inventory, unknown class or a compile error.\n";

struct match_opts {
    const char **inv;
    size_t ninv;
    const char *cls;
    const char *expr;
    size_t nexprs;
    int json, all;
    struct config cfg;
};

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct match_opts *o = ctx;

    switch (id) {
    case OPT_OPERAND:
        o->expr = v;
        o->nexprs++;
        return 0;
    case O_ALL:
        o->all = 1;
        return 0;
    case O_INVENTORY:
        o->inv = xrealloc(o->inv, (o->ninv + 1) * sizeof(*o->inv));
        o->inv[o->ninv++] = v;
        return 0;
    case O_CLASS:
        o->cls = v;
        return 0;
    case O_FORMAT:
        return cli_text_or_json(v, &o->json, err);
    default:
        return cli_target_option(&o->cfg, id, v, err);
    }
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
            k += (size_t)dm_device_on_node(m, (size_t)(d - m->devs), n);
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
    size_t *have = xcalloc(m->nnodes + 1, sizeof(size_t));
    size_t *match = xcalloc(m->nnodes + 1, sizeof(size_t));
    size_t i, n, first;

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
    size_t *have = xcalloc(m->nnodes + 1, sizeof(size_t));
    size_t *match = xcalloc(m->nnodes + 1, sizeof(size_t));
    size_t i, n, shown, nwith = 0, k;

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

int cmd_match(const struct cli *cli, int argc, char **argv)
{
    struct match_opts o;
    struct inventory *inv = NULL;
    struct arena a;
    struct target t;
    struct cel_env env;
    const struct devmodel *m;
    const struct object *cls = NULL;
    struct sel *sels = NULL;
    struct result r;
    struct err err;
    struct inputs texts = {0};
    size_t i, nsels = 0;
    int ret = 2;

    memset(&o, 0, sizeof(o));
    memset(&r, 0, sizeof(r));
    config_init(&o.cfg);
    arena_init(&a, ARENA_CHUNK_BYTES);
    if (cli_parse(cli, argc, argv, on_option, &o, &ret) < 0)
        goto out;
    if (o.nexprs != 1) {
        ret = cli_usage_error(cli, o.nexprs ? "give one expression (quote "
                              "it)" : "no expression given");
        goto out;
    }
    if (!o.ninv) {
        ret = cli_usage_error(cli, "no inventory given (-i FILE)");
        goto out;
    }
    if (target_init(&t, &o.cfg, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    target_cel_env(&t, &env);
    for (i = 0; i < o.ninv; i++)
        inputs_add(&texts, o.inv[i]);
    if (texts.failed)
        goto out;
    inv = inventory_new();
    inventory_set_list_attributes(inv, env.list_attributes);
    if (inputs_to_inventory(&texts, inv, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    inputs_release(&texts);     /* parsed: the inventory holds no text */
    m = inventory_devices(inv);
    if (o.cls) {
        cls = inventory_lookup(inv, K_CLASS, "", o.cls);
        if (!cls || !cls->cls) {
            cli_error("DeviceClass '%s' is not in the inventory", o.cls);
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
            cli_error("%s is not a string", sels[i].label);
            goto out;
        }
        sels[i].expr = e;
        if (cel_compile(&a, &env, e, strlen(e), &p, &ce) < 0) {
            cli_error("%s: %u:%u: %s", sels[i].label, ce.line, ce.col,
                      ce.msg);
            goto out;
        }
        alloc_eval(&a, m, p, 0, &sels[i].m);  /* asked for: no budget */
    }
    evaluate(m, sels, nsels, &r, &a);
    if (o.json)
        print_json(stdout, &o, m, sels, &r);
    else
        print_text(stdout, &o, m, sels, nsels, &r, &a);
    ret = r.nmatch && !r.nerr ? 0 : 1;
out:
    inventory_free(inv);
    inputs_release(&texts);
    arena_release(&a);
    config_release(&o.cfg);
    free(o.inv);
    return ret;
}
