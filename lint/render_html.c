/*
 * render_html.c - the `-o html` report (see render_html.h): the page's
 * JSON (string tables for nodes, drivers and pools; compact arrays for
 * devices, counters, claims and findings) written between the two halves
 * of the generated page. How it looks and behaves is page.html's business;
 * this file only says what there is.
 */
#include "render_html.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "../validate/allocated.h"
#include "../validate/arena.h"
#include "../validate/buf.h"
#include "../validate/devicemap.h"
#include "../validate/diag.h"
#include "../validate/inventory.h"
#include "../validate/limits.h"
#include "../validate/object.h"
#include "../validate/rule.h"
#include "../validate/strmap.h"
#include "../validate/tree.h"
#include "render.h"

#define HTML_DATA_MAX ((size_t)1 << 30)
#define HTML_ATTR_TEXT 80       /* a device's attribute summary, bytes */

static void str(struct buf *b, const char *s)
{
    buf_add_json_str(b, s ? s : "");
}

static void sep(struct buf *b, size_t i)
{
    if (i)
        buf_addc(b, ',');
}

/* "model=A100, memory=80Gi" */
static void device_summary(struct buf *b, const struct dm_device *d)
{
    char out[HTML_ATTR_TEXT + 1];
    size_t len = 0, i;
    int n;

    out[0] = '\0';
    for (i = 0; i < d->cel.nattrs + d->cel.ncaps && len < HTML_ATTR_TEXT;
         i++) {
        const struct cel_attr *at = i < d->cel.nattrs ? &d->cel.attrs[i]
                                                      : NULL;
        const char *pre = len ? ", " : "";
        size_t room = sizeof(out) - len;
        if (!at)
            n = snprintf(out + len, room, "%s%s=%s", pre,
                         d->cel.caps[i - d->cel.nattrs].id,
                         d->cel.caps[i - d->cel.nattrs].quantity);
        else if (at->type == CEL_ATTR_STRING || at->type == CEL_ATTR_VERSION)
            n = snprintf(out + len, room, "%s%s=%s", pre, at->id, at->s);
        else if (at->type == CEL_ATTR_INT)
            n = snprintf(out + len, room, "%s%s=%lld", pre, at->id, at->i);
        else if (at->type == CEL_ATTR_BOOL)
            n = snprintf(out + len, room, "%s%s=%s", pre, at->id,
                         at->b ? "true" : "false");
        else
            continue;
        if (n > 0)
            len += (size_t)n;
    }
    if (len > HTML_ATTR_TEXT)
        len = HTML_ATTR_TEXT;
    out[len] = '\0';
    str(b, out);
}

/* ==== the device map ===================================================== */

struct tables {
    struct arena a;
    struct strmap drivers;      /* driver -> index + 1 */
    size_t ndrivers;
    long *pool_node;            /* per pool: its one node, or -1 */
    long *holder;               /* per device: claim index, or -1 */
};

static void tables_build(struct tables *t, const struct devicemap *dm)
{
    const struct devmodel *m = dm->m;
    size_t i, k;

    arena_init(&t->a, ARENA_CHUNK_BYTES);
    strmap_init(&t->drivers, &t->a);
    t->ndrivers = 0;
    for (i = 0; i < m->npools; i++)
        if (!strmap_get(&t->drivers, m->pools[i].driver))
            strmap_put(&t->drivers, m->pools[i].driver,
                       (void *)(uintptr_t)++t->ndrivers);
    t->pool_node = arena_alloc(&t->a, (m->npools + 1) * sizeof(long));
    for (i = 0; i < m->npools; i++)
        t->pool_node[i] = -2;
    t->holder = arena_alloc(&t->a, (m->ndevs + 1) * sizeof(long));
    for (i = 0; i < m->ndevs; i++) {
        const struct dm_device *d = &m->devs[i];
        long n = d->place == DM_NODE ? (long)d->node_idx : -1;
        long *pn = &t->pool_node[d->pool_idx];
        *pn = *pn == -2 || *pn == n ? n : -1;
        t->holder[i] = -1;
    }
    for (i = 0; i < dm->nclaims; i++)
        for (k = 0; k < dm->claims[i].nheld; k++)
            t->holder[dm->claims[i].held[k]] = (long)i;
}

static void map_json(struct buf *b, const struct devicemap *dm)
{
    const struct devmodel *m = dm->m;
    struct tables t;
    size_t i, k;

    tables_build(&t, dm);
    buf_adds(b, ",\"nodes\":[");
    for (i = 0; i < m->nnodes; i++) {
        sep(b, i);
        str(b, m->nodes[i].name);
    }
    buf_adds(b, "],\"drivers\":[");
    for (i = 0, k = 0; i < m->npools; i++)
        if ((uintptr_t)strmap_get(&t.drivers, m->pools[i].driver) == k + 1) {
            sep(b, k++);
            str(b, m->pools[i].driver);
        }
    buf_adds(b, "],\"pools\":[");
    for (i = 0; i < m->npools; i++) {
        sep(b, i);
        buf_addf(b, "[%zu,",
                 (size_t)(uintptr_t)strmap_get(&t.drivers,
                                               m->pools[i].driver) - 1);
        str(b, m->pools[i].name);
        buf_addf(b, ",%ld]", t.pool_node[i] < 0 ? -1 : t.pool_node[i]);
    }
    buf_adds(b, "],\"devs\":[");
    for (i = 0; i < m->ndevs; i++) {
        const struct dm_device *d = &m->devs[i];
        sep(b, i);
        buf_addf(b, "[%zu,", d->pool_idx);
        str(b, d->name);
        buf_addf(b, ",%ld,%ld,%d,", d->place == DM_NODE ? (long)d->node_idx
                                                        : -1L,
                 t.holder[i], d->taints && d->taints->n ? 1 : 0);
        device_summary(b, d);
        buf_addc(b, ']');
    }
    buf_adds(b, "],\"counters\":[");
    for (i = 0; i < dm->ncounters; i++) {
        const struct devicemap_counter *c = &dm->counters[i];
        sep(b, i);
        buf_addf(b, "[%zu,", c->pool);
        str(b, c->set);
        buf_addc(b, ',');
        str(b, c->name);
        buf_addc(b, ',');
        str(b, c->total);
        buf_addf(b, ",%.6g,%.6g]", c->total_v, c->used_v);
    }
    buf_adds(b, "],\"claims\":[");
    for (i = 0; i < dm->nclaims; i++) {
        const struct devicemap_claim *c = &dm->claims[i];
        sep(b, i);
        buf_addc(b, '[');
        str(b, c->obj->kind_name);
        buf_addc(b, ',');
        str(b, c->obj->ns);
        buf_addc(b, ',');
        str(b, c->obj->name);
        buf_addf(b, ",%d,", c->allocated);
        str(b, c->requests);
        buf_adds(b, ",[");
        for (k = 0; k < c->nheld; k++) {
            sep(b, k);
            buf_addf(b, "%zu", c->held[k]);
        }
        buf_adds(b, "],[");
        for (k = 0; k < c->ncould; k++) {
            sep(b, k);
            buf_addf(b, "%zu", c->could[k]);
        }
        buf_addf(b, "],%zu]", c->ncould_total);
    }
    buf_addc(b, ']');
    arena_release(&t.a);
}

/* ==== findings =========================================================== */

static void findings_json(struct buf *b, const struct diag_list *l,
                          const struct render_opts *o)
{
    size_t i, k, n = 0;

    buf_adds(b, ",\"findings\":[");
    for (i = 0; i < l->n; i++) {
        const struct diag *d = &l->v[i];
        if (d->suppressed && !o->show_suppressed)
            continue;
        sep(b, n++);
        buf_addf(b, "[%d,", (int)d->sev);
        str(b, d->rule->id);
        buf_addc(b, ',');
        str(b, category_name(d->rule->category));
        buf_addc(b, ',');
        str(b, d->kind);
        buf_addc(b, ',');
        str(b, d->ns);
        buf_addc(b, ',');
        str(b, d->name);
        buf_addc(b, ',');
        str(b, d->line ? (d->file ? d->file : "-") : "");
        buf_addf(b, ",%u,%u,", d->line, d->col);
        str(b, d->path);
        buf_addc(b, ',');
        str(b, d->msg);
        buf_adds(b, ",[");
        for (k = 0; k < d->ndetails; k++) {
            sep(b, k);
            str(b, d->details[k]);
        }
        buf_addf(b, "],%d]", d->suppressed);
    }
    buf_addc(b, ']');
}

/* ==== the page =========================================================== */

static void data_json(struct buf *b, const struct diag_list *l,
                      const struct render_opts *o)
{
    size_t e = 0, w = 0, n = 0, i;

    for (i = 0; i < l->n; i++) {
        if (l->v[i].suppressed)
            continue;
        e += l->v[i].sev == SEV_ERROR;
        w += l->v[i].sev == SEV_WARN;
        n += l->v[i].sev == SEV_INFO;
    }
    buf_adds(b, "{\"v\":1,\"source\":");
    if (o->cluster) {
        str(b, o->cluster);
    } else {
        char src[64];
        snprintf(src, sizeof(src), "%zu file%s", o->files,
                 o->files == 1 ? "" : "s");
        str(b, src);
    }
    buf_adds(b, ",\"kube\":");
    str(b, o->kube_version);
    buf_addf(b, ",\"summary\":{\"errors\":%zu,\"warnings\":%zu,\"infos\":%zu,"
             "\"objects\":%zu}", e, w, n, o->objects);
    if (o->devicemap)
        map_json(b, o->devicemap);
    else
        buf_adds(b, ",\"nodes\":[],\"drivers\":[],\"pools\":[],\"devs\":[],"
                 "\"counters\":[],\"claims\":[]");
    findings_json(b, l, o);
    buf_addc(b, '}');
}

void render_html(struct buf *b, const struct diag_list *l,
                 const struct render_opts *o)
{
    struct buf data;
    size_t i, start;

    for (i = 0; render_html_head[i]; i++)
        buf_adds(b, render_html_head[i]);
    buf_init(&data, HTML_DATA_MAX);
    data_json(&data, l, o);
    /* inside <script>: no "</script" can close it early */
    for (i = 0, start = 0; i < data.len; i++)
        if (data.p[i] == '<') {
            buf_add(b, data.p + start, i - start);
            buf_adds(b, "\\u003c");
            start = i + 1;
        }
    buf_add(b, data.p + start, data.len - start);
    buf_release(&data);
    for (i = 0; render_html_tail[i]; i++)
        buf_adds(b, render_html_tail[i]);
}
