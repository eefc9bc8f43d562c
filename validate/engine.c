/*
 * engine.c - objects x rules -> findings.
 *
 * Owns: the engine (effective rule severities and the target, resolved
 * once from the config), a run (documents of all inputs read one at a
 * time, the objects of checked kinds kept from them, a name index for
 * cross-object references), the check context
 * rules see, report() with suppression annotations, and the input-parse /
 * input-object findings the loader's results turn into. It does not print.
 */
#include "engine.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "budget.h"
#include "cel/cel.h"
#include "clock.h"
#include "config.h"
#include "err.h"
#include "glob.h"
#include "inventory.h"
#include "limits.h"
#include "load_yaml.h"
#include "stream.h"
#include "object.h"
#include "rule.h"
#include "run.h"
#include "strmap.h"
#include "target.h"
#include "tree.h"
#include "verdict.h"
#include "xalloc.h"

#define SUPPRESS_PREFIX "ignore.claimcheck.dev/"

#define KIND_SLOTS 17        /* the 16 K_* bits and K_OTHER */
#define ANY_SLOT KIND_SLOTS  /* ... then every rule, for any other kind */

struct slot_rule {              /* what check_object needs of a rule */
    void (*check)(struct check_ctx *cx, const struct object *obj);
    const struct rule *rule;
    unsigned kinds;             /* rule->kinds */
    enum sev sev;               /* its effective severity, not SEV_OFF */
    int live;                   /* RULE_LIVE */
};

struct engine {
    struct verdict_cache *verdicts; /* admission verdicts, no inventory */
    const struct config *cfg;
    const struct ruleset *rules;    /* handed in by the front end */
    enum sev *sev;              /* per rule, by index in rules->v */
    enum config_action *act;    /* per rule: the webhook's action */
    struct target target;
    struct cel_env cel_env;     /* target_cel_env(), once per engine */
    /* per kind bit (0-15, then K_OTHER, then ANY_SLOT): the rules with a
     * check for that kind that are not off, in rule order (check_object's
     * loop) */
    struct slot_rule *by_kind[KIND_SLOTS + 1];
    size_t nby_kind[KIND_SLOTS + 1];
    size_t suppression_rule;    /* suppression-invalid's index */
};

struct run_pod {                /* a pod-like document, checked last */
    struct ychunk chunk;        /* its text, as the first pass cut it */
    const char *file;           /* its file (helm: the template's) */
    unsigned index;             /* its index in the file's stream */
};

struct name_list {             /* input objects sharing kind and name */
    const struct object *o;
    struct name_list *next;
};

#define MEMO_RECENT 8   /* cx_memo()'s keys found by address */

struct memo_entry {             /* a cx_memo() slot and its key */
    void *value;
    char text[];                /* the memo map's key (borrowed) */
};

struct run {
    const struct engine *e;
    const struct inventory *inv;
    struct arena *arena;
    struct diag_list *out;
    struct object **objs;       /* input objects of checked kinds */
    size_t nobjs, capobjs;
    struct strmap by_name;      /* "kind\x1fname" -> struct name_list *,
                                   the latest first */
    unsigned kinds;             /* K_* bits present in the input */
    size_t nk8s;                /* Kubernetes objects seen */
    int parse_errors;
    struct arena doc;           /* scratch: one input document at a time */
    struct arena kept;          /* YAML documents whose objects are kept,
                                   as loaded (the others are rolled back);
                                   the caller's arena adopts it at the end */
    struct run_pod *pods;       /* pod-like documents, for run_check();
                                   a block of their own (arena_free) */
    size_t npods, cappods;
    struct run_obj *checked;    /* identities, for per-object reports */
    size_t nchecked, capchecked;
    int checked_heap;           /* checked was malloc'ed (note_checked) */
    struct strmap memo;         /* cx_memo(): rule families' run caches */
    struct memo_recent {        /* ... its last keys, by address */
        const char *key;        /* the caller's pointer */
        struct memo_entry *e;
    } memo_recent[MEMO_RECENT];
    unsigned memo_next;         /* the entry replaced next */
    struct strmap strings;      /* kept trees' keys and scalars, shared */
    struct yreader *yaml;       /* the YAML parser documents share, made
                                   at the first */
    struct run_cleanup *cleanups;   /* cx_at_run_end(), run last first */
    run_read_fn *on_read;       /* run_on_read() */
    void *on_read_arg;
    struct work_budget *budget; /* admission's (budget.h), NULL = none */
    enum input_inventory input_inv; /* run_inventory_from_input() */
    int input_used;             /* ... and some check used them */
    int stored_selectors;       /* objects added: selectors as stored */
    int expired;                /* ... passed: the findings are void */
};

struct run_cleanup {
    void (*fn)(void *arg);
    void *arg;
    struct run_cleanup *next;
};

struct check_ctx {
    struct run *run;
    const struct object *obj;
    const struct rule *rule;
    enum sev sev;
    const char *hint;           /* report_hint(): for the next finding */
    int from_input;             /* report_from_input(): this check's
                                   findings used input slices or nodes */
};

/* ==== engine ============================================================ */

static size_t rule_index(const struct engine *e, const struct rule *r)
{
    return (size_t)(r - e->rules->v);
}

/* The rules the engine itself reports (loader results, suppressions):
 * every rule set handed in must have them. */
static const char *const engine_reports[] = {
    "input-object", "input-parse", "suppression-invalid"
};

/* "unknown rule 'x'" with the nearest id and where the config has it */
static int unknown_rule(const struct engine *e, const char *where,
                        const char *what, const char *id, struct err *err)
{
    const char *near = ruleset_suggest(e->rules, id);

    return err_set(err, "%s%sunknown %s '%s'%s%s%s", where ? where : "",
                   where ? ": " : "", what, id, near ? " (did you mean '"
                   : "", near ? near : "", near ? "'?)" : "");
}

/* Marks in on[] the rules id names: a rule id or a category. 0, or -1
 * with err for an unknown one. */
static int select_rules(const struct engine *e, const char *id,
                        const char *where, unsigned char *on,
                        struct err *err)
{
    const struct rule *r = ruleset_find(e->rules, id);
    enum category c;
    size_t i;

    if (r) {
        on[rule_index(e, r)] = 1;
        return 0;
    }
    if (category_parse(id, &c) < 0)
        return unknown_rule(e, where, "rule or category", id, err);
    for (i = 0; i < e->rules->n; i++)
        if (e->rules->v[i].category == c)
            on[i] = 1;
    return 0;
}

/* Severities and actions from the config, in order (later entries win),
 * and the exceptions' rule ids checked. 0, or -1 with err. */
static int engine_resolve(struct engine *e, const struct config *cfg,
                          struct err *err)
{
    const struct ruleset *rules = e->rules;
    unsigned char *on = xcalloc(rules->n ? rules->n : 1, 1);
    size_t i, j;
    int rc = 0;

    for (j = 0; rc == 0 && j < cfg->nsevs; j++) {
        const struct config_sev *s = &cfg->sevs[j];
        memset(on, 0, rules->n);
        rc = select_rules(e, s->rule, s->where, on, err);
        for (i = 0; rc == 0 && i < rules->n; i++)
            if (on[i])
                e->sev[i] = s->use_default ? rules->v[i].default_sev
                                           : s->sev;
    }
    for (j = 0; rc == 0 && j < cfg->nacts; j++) {
        memset(on, 0, rules->n);
        rc = select_rules(e, cfg->acts[j].rule, cfg->acts[j].where, on, err);
        for (i = 0; rc == 0 && i < rules->n; i++)
            if (on[i])
                e->act[i] = cfg->acts[j].action;
    }
    for (j = 0; rc == 0 && j < cfg->nexceptions; j++) {
        const struct config_exception *x = &cfg->exceptions[j];
        for (i = 0; rc == 0 && i < x->nrules; i++)
            if (!ruleset_find(rules, x->rules[i]))
                rc = unknown_rule(e, x->rules_where[i], "rule", x->rules[i],
                                  err);
    }
    free(on);
    return rc;
}

/* The by_kind slot of a kind: its bit's number, K_OTHER after them;
 * ANY_SLOT for anything else (no bit, several bits). */
static int kind_slot(unsigned kind)
{
    int b;

    if (kind == K_OTHER)
        return KIND_SLOTS - 1;
    for (b = 0; b < KIND_SLOTS - 1; b++)
        if (kind == 1u << b)
            return b;
    return ANY_SLOT;
}

/* Fills e->by_kind: check_object then visits the few rules of an object's
 * kind that are on, not all of them (the severities are final here). */
static void index_rules(struct engine *e)
{
    size_t k;
    int b;

    for (b = 0; b <= ANY_SLOT; b++) {
        unsigned bit = b == ANY_SLOT ? ~0u
                       : b == KIND_SLOTS - 1 ? K_OTHER : 1u << b;
        e->by_kind[b] = xcalloc(e->rules->n ? e->rules->n : 1,
                                sizeof(*e->by_kind[b]));
        for (k = 0; k < e->rules->n; k++) {
            const struct rule *rule = &e->rules->v[k];
            struct slot_rule *sr;
            if (!rule->check || !(rule->kinds & bit)
                || e->sev[k] == SEV_OFF)
                continue;
            sr = &e->by_kind[b][e->nby_kind[b]++];
            sr->check = rule->check;
            sr->rule = rule;
            sr->kinds = rule->kinds;
            sr->sev = e->sev[k];
            sr->live = (rule->flags & RULE_LIVE) != 0;
        }
    }
    e->suppression_rule =
        rule_index(e, ruleset_find(e->rules, "suppression-invalid"));
}

struct engine *engine_new(const struct config *cfg,
                          const struct ruleset *rules, struct err *err)
{
    struct engine *e = xcalloc(1, sizeof(*e));
    size_t i;

    for (i = 0; i < sizeof(engine_reports) / sizeof(engine_reports[0]); i++)
        if (!ruleset_find(rules, engine_reports[i]))
            BUG("rule '%s' is not in the rule set", engine_reports[i]);
    e->cfg = cfg;
    e->rules = rules;
    e->verdicts = verdict_cache_new();
    e->sev = xcalloc(rules->n ? rules->n : 1, sizeof(*e->sev));
    e->act = xcalloc(rules->n ? rules->n : 1, sizeof(*e->act));
    for (i = 0; i < rules->n; i++)
        e->sev[i] = rules->v[i].default_sev;
    if (engine_resolve(e, cfg, err) < 0
        || target_init(&e->target, cfg, err) < 0) {
        engine_free(e);
        return NULL;
    }
    target_cel_env(&e->target, &e->cel_env);
    index_rules(e);
    return e;
}

enum config_action engine_rule_action(const struct engine *e,
                                      const struct rule *r)
{
    return e->act[rule_index(e, r)];
}

const char *engine_kube_version(const struct engine *e)
{
    return e->target.version;
}

const struct config *engine_config(const struct engine *e)
{
    return e->cfg;
}

int engine_list_attributes(const struct engine *e)
{
    return target_gate_on(&e->target, "DRAListTypeAttributes");
}

const struct ruleset *engine_rules(const struct engine *e)
{
    return e->rules;
}

void engine_free(struct engine *e)
{
    int b;

    if (!e)
        return;
    verdict_cache_free(e->verdicts);
    for (b = 0; b <= ANY_SLOT; b++)
        free(e->by_kind[b]);
    free(e->sev);
    free(e->act);
    free(e);
}

/* ==== reporting ========================================================= */

static struct diag *new_diag(struct run *r, const struct rule *rule,
                             enum sev sev, const char *file, unsigned line,
                             unsigned col)
{
    struct diag *d = diag_list_add(r->out);

    d->rule = rule;
    d->sev = sev;
    d->file = file;
    d->line = line;
    d->col = col;
    d->kind = "";
    d->ns = "";
    d->name = "";
    d->api_version = "";
    d->path = "";
    return d;
}

/* Copies the object's identity: pod documents are parsed into a scratch
 * arena that is reused for the next document. */
static void fill_object(struct arena *a, struct diag *d,
                        const struct object *o)
{
    d->api_version = arena_strdup(a, o->api_version ? o->api_version : "");
    d->kind = arena_strdup(a, o->kind_name ? o->kind_name : "");
    d->ns = arena_strdup(a, o->ns ? o->ns : "");
    d->name = arena_strdup(a, o->name ? o->name : "");
    d->doc_index = o->doc_index;
}

static void raw_report(struct run *r, const char *id, const char *file,
                       unsigned line, unsigned col, const struct object *o,
                       const char *path, const char *msg)
{
    const struct rule *rule = ruleset_find(r->e->rules, id);
    struct diag *d;
    enum sev sev;

    if (!rule)
        BUG("rule '%s' is not in the rule set", id);
    sev = r->e->sev[rule_index(r->e, rule)];
    if (sev == SEV_OFF)
        return;
    d = new_diag(r, rule, sev, file, line, col);
    if (o)
        fill_object(r->arena, d, o);
    d->path = path ? path : "";
    d->msg = arena_strdup(r->arena, msg);   /* msg may live in scratch */
}

/* The annotation value suppressing rule id in metadata meta, or NULL. */
static const struct tnode *suppression_in(const struct tnode *meta,
                                          const char *id)
{
    const struct tnode *ann = tree_get(meta, "annotations");
    size_t i;

    if (!tree_is_map(ann))
        return NULL;
    for (i = 0; i < ann->n; i++) {
        const char *k = ann->kids[i]->key;
        if (strncmp(k, SUPPRESS_PREFIX, strlen(SUPPRESS_PREFIX)) == 0
            && strcmp(k + strlen(SUPPRESS_PREFIX), id) == 0)
            return ann->kids[i];
    }
    return NULL;
}

/* The annotation value suppressing rule id on o, or NULL: its own
 * metadata, then (workloads) its pod template's, which is where users put
 * annotations about the pods it makes. */
static const struct tnode *suppression(const struct object *o, const char *id)
{
    const struct tnode *sup = suppression_in(o->metadata, id);

    if (!sup && o->pod && o->pod->meta)
        sup = suppression_in(o->pod->meta, id);
    return sup;
}

static int in_list(const char *const *v, size_t n, const char *s, int glob)
{
    size_t i;

    if (!n)
        return 1;               /* no list: anything */
    for (i = 0; i < n; i++)
        if (glob ? glob_match(v[i], s) : !strcmp(v[i], s))
            return 1;
    return 0;
}

/* The config's first exception that takes rule id's findings on o, or
 * NULL: a suppression like an annotation, its reason the exception's. */
static const struct config_exception *exception(const struct config *cfg,
                                                const struct object *o,
                                                const char *id)
{
    size_t i;

    for (i = 0; i < cfg->nexceptions; i++) {
        const struct config_exception *x = &cfg->exceptions[i];
        if (in_list((const char *const *)x->rules, x->nrules, id, 0)
            && in_list((const char *const *)x->kinds, x->nkinds,
                       o->kind_name ? o->kind_name : "", 0)
            && in_list((const char *const *)x->namespaces, x->nnamespaces,
                       object_ns(o), 0)
            && in_list((const char *const *)x->names, x->nnames,
                       o->name ? o->name : "", 1))
            return x;
    }
    return NULL;
}

/* pos_line/pos_col: 0 = the position of `at`; path: NULL = at's */
static void vreport(struct check_ctx *cx, const struct tnode *at,
                    const char *path, unsigned pos_line, unsigned pos_col,
                    const char **details, size_t ndetails, const char *fmt,
                    va_list ap)
{
    struct run *r = cx->run;
    const struct object *o = cx->obj;
    const struct tnode *sup;
    struct diag *d;
    unsigned line, col;

    if (o->inventory)
        return;
    if (!at)
        at = o->kind_node ? o->kind_node : o->root;
    tree_pos(at, &line, &col);
    if (pos_line && line) {     /* only where the tree has positions */
        line = pos_line;
        col = pos_col;
    }
    d = new_diag(r, cx->rule, cx->sev, o->file, line, col);
    fill_object(r->arena, d, o);
    d->path = path ? arena_strdup(r->arena, path)
                   : tree_path(r->arena, o->root, at);
    d->msg = arena_vprintf(r->arena, fmt, ap);
    if (cx->from_input && !r->e->cfg->audit.on) {
        const char **v = arena_alloc(r->arena, (ndetails + 1) * sizeof(*v));
        if (ndetails)
            memcpy(v, details, ndetails * sizeof(*v));
        v[ndetails++] = INPUT_INVENTORY_NOTE;
        details = v;
    }
    d->details = details;
    d->ndetails = ndetails;
    d->hint = cx->hint;
    cx->hint = NULL;
    sup = suppression(o, cx->rule->id);
    if (sup && tree_str(sup) && *tree_str(sup)) {
        /* an annotation value that is no string (`yes`) is no reason:
         * the apiserver rejects the object */
        d->suppressed = 1;
        d->suppress_reason = arena_strdup(r->arena, tree_str(sup));
    } else {
        const struct config_exception *x = exception(r->e->cfg, o,
                                                     cx->rule->id);
        if (x) {
            d->suppressed = 1;
            d->suppress_reason = x->reason;     /* the config outlives d */
        }
    }
}

void report_hint(struct check_ctx *cx, const char *s)
{
    cx->hint = s;
}

void report_from_input(struct check_ctx *cx)
{
    cx->from_input = 1;
    cx->run->input_used = 1;
}

void report(struct check_ctx *cx, const struct tnode *at, const char *fmt,
            ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport(cx, at, NULL, 0, 0, NULL, 0, fmt, ap);
    va_end(ap);
}

void report_path(struct check_ctx *cx, const struct tnode *at,
                 const char *path, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport(cx, at, path, 0, 0, NULL, 0, fmt, ap);
    va_end(ap);
}

void report_capped(struct check_ctx *cx, enum sev max, const struct tnode *at,
                   const char *fmt, ...)
{
    enum sev sev = cx->sev;
    va_list ap;

    if (cx->sev > max)
        cx->sev = max;
    va_start(ap, fmt);
    vreport(cx, at, NULL, 0, 0, NULL, 0, fmt, ap);
    va_end(ap);
    cx->sev = sev;
}

void report_details(struct check_ctx *cx, const struct tnode *at,
                    const char **details, size_t ndetails, const char *fmt,
                    ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport(cx, at, NULL, 0, 0, details, ndetails, fmt, ap);
    va_end(ap);
}

void report_at(struct check_ctx *cx, const struct tnode *at, unsigned line,
               unsigned col, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vreport(cx, at, NULL, line, col, NULL, 0, fmt, ap);
    va_end(ap);
}

/* ==== what checks may look at ============================================ */

struct arena *cx_arena(struct check_ctx *cx)
{
    return cx->run->arena;
}

const struct target *cx_target(struct check_ctx *cx)
{
    return &cx->run->e->target;
}

const struct cel_env *cx_cel_env(struct check_ctx *cx)
{
    return &cx->run->e->cel_env;
}

const struct inventory *cx_inventory(struct check_ctx *cx)
{
    return cx->run->inv;
}

/* The run's index keys, written into key[KEY_BYTES]: "kind\x1fname"
 * (by_name) with ns NULL, else "kind\x1fns\x1fname" (object_key()'s
 * form, only to see that it fits: an object whose key does not is not
 * found by namespace). 0, or -1 when they do not fit. Lookups come by the
 * tens of thousands: no printf. */
#define KEY_BYTES 1024
static int index_key(char *key, unsigned kind, const char *ns,
                     const char *name)
{
    char num[16];
    size_t nl = 0, k = 0, l;

    do {
        num[nl++] = (char)('0' + kind % 10);
        kind /= 10;
    } while (kind);
    while (nl)
        key[k++] = num[--nl];
    key[k++] = '\x1f';
    if (ns) {
        l = strlen(ns);
        if (k + l + 1 >= KEY_BYTES)
            return -1;
        memcpy(key + k, ns, l);
        k += l;
        key[k++] = '\x1f';
    }
    l = strlen(name);
    if (k + l >= KEY_BYTES)
        return -1;
    memcpy(key + k, name, l + 1);
    return 0;
}

/* The input object of that kind, namespace and name added last, or NULL
 * (by_name lists hold every namespace; they are short). */
static const struct object *by_ns(const struct run *r, unsigned kind,
                                  const char *ns, const char *name)
{
    char key[KEY_BYTES];
    const struct name_list *nl;

    if (index_key(key, kind, ns, name) < 0
        || index_key(key, kind, NULL, name) < 0)
        return NULL;
    for (nl = strmap_get(&r->by_name, key); nl; nl = nl->next)
        if (!strcmp(object_ns(nl->o), ns))
            return nl->o;
    return NULL;
}

const struct object *cx_lookup(struct check_ctx *cx, unsigned kind,
                               const char *ns, const char *name)
{
    struct run *r = cx->run;
    char key[KEY_BYTES];
    const struct object *o;

    if (!name || index_key(key, kind, ns ? ns : "", name) < 0)
        return NULL;
    /* an object of the same file first: a bundle may hold several
     * versions of one object in different files */
    if (cx->obj && cx->obj->file) {
        const struct name_list *nl;
        char nkey[KEY_BYTES];
        for (nl = index_key(nkey, kind, NULL, name) == 0
                  ? strmap_get(&r->by_name, nkey) : NULL; nl; nl = nl->next)
            if (nl->o->file && !strcmp(nl->o->file, cx->obj->file)
                && !strcmp(object_ns(nl->o), ns ? ns : ""))
                return nl->o;
    }
    o = by_ns(r, kind, ns ? ns : "", name);
    if (o)
        return o;
    return inventory_lookup(r->inv, kind, ns, name);
}

int run_has_inventory(const struct run *r)
{
    return r->inv != NULL;
}

void run_inventory_from_input(struct run *r, enum input_inventory mode)
{
    r->input_inv = mode;
}

/* 1 when the input's ResourceSlices and Nodes serve as inventory: always
 * in an audit (the input is the cluster), else as --inventory-from-input
 * says; auto: when the inventory has neither (a cluster snapshot's slices
 * are not mixed with a repository's samples). */
static int input_serves(const struct run *r)
{
    if (r->e->cfg->audit.on || r->input_inv == INPUT_INV_ALWAYS)
        return 1;
    if (r->input_inv == INPUT_INV_NEVER)
        return 0;
    return !r->inv || !(r->inv->kinds & INPUT_INV_KINDS);
}

int run_input_inventory(const struct run *r)
{
    return r->input_used && !r->e->cfg->audit.on;
}

int run_inventory_object(const struct run *r, const struct object *o)
{
    return o->inventory || !(o->kind & INPUT_INV_KINDS) || input_serves(r);
}

int cx_inventory_object(struct check_ctx *cx, const struct object *o)
{
    return run_inventory_object(cx->run, o);
}

size_t run_not_run(const struct run *r, const struct rule **out, size_t max)
{
    const struct ruleset *rs = r->e->rules;
    unsigned inv = r->inv ? r->inv->kinds : 0;
    unsigned input = input_serves(r) ? r->kinds : r->kinds & ~INPUT_INV_KINDS;
    size_t i, n = 0;

    for (i = 0; i < rs->n; i++) {
        const struct rule *ru = &rs->v[i];
        unsigned have = ru->needs & NEEDS_INVENTORY ? inv : inv | input;
        if (!ru->needs || (ru->needs & have & K_ALL)
            || r->e->sev[i] == SEV_OFF)
            continue;
        if (n < max)
            out[n] = ru;
        n++;
    }
    return n;
}

int cx_have(struct check_ctx *cx, unsigned kinds)
{
    return (cx->run->kinds & kinds)
           || (cx->run->inv && (cx->run->inv->kinds & kinds));
}

const struct object *cx_lookup_elsewhere(struct check_ctx *cx, unsigned kind,
                                         const char *name, const char *ns)
{
    char key[KEY_BYTES];
    const struct name_list *nl;
    const struct object *found = NULL;

    if (!name || index_key(key, kind, NULL, name) < 0)
        return NULL;
    for (nl = strmap_get(&cx->run->by_name, key); nl; nl = nl->next) {
        if (!strcmp(object_ns(nl->o), ns))
            continue;
        if (cx->obj && cx->obj->file && nl->o->file
            && !strcmp(cx->obj->file, nl->o->file))
            return nl->o;           /* the pod's own file first */
        if (!found)
            found = nl->o;
    }
    return found;
}

int cx_expired(struct check_ctx *cx)
{
    struct run *r = cx->run;

    if (!r->expired && work_budget_over(r->budget))
        r->expired = 1;
    return r->expired;
}

uint64_t cx_deadline(struct check_ctx *cx)
{
    return cx->run->budget ? cx->run->budget->deadline_ns : 0;
}

unsigned long cx_steps_left(struct check_ctx *cx)
{
    return work_budget_steps_left(cx->run->budget);
}

void cx_charge(struct check_ctx *cx, uint64_t cel_cost, uint64_t steps)
{
    struct work_budget *b = cx->run->budget;

    if (b) {
        b->cel_cost += cel_cost;
        b->alloc_steps += steps;
    }
}

int cx_input_has(struct check_ctx *cx, unsigned kinds)
{
    return (cx->run->kinds & kinds) != 0;
}

int cx_inventory_has(struct check_ctx *cx, unsigned kinds)
{
    return cx->run->inv && (cx->run->inv->kinds & kinds);
}

void cx_each(struct check_ctx *cx, unsigned kinds,
             void (*fn)(void *arg, const struct object *o), void *arg)
{
    run_each(cx->run, kinds, fn, arg);
}

void run_each(const struct run *r, unsigned kinds,
              void (*fn)(void *arg, const struct object *o), void *arg)
{
    size_t i;

    for (i = 0; i < r->nobjs; i++)
        if (r->objs[i]->kind & kinds)
            fn(arg, r->objs[i]);
    if (!r->inv)
        return;
    for (i = 0; i < r->inv->n; i++) {
        const struct object *o = r->inv->objs[i];
        if (!(o->kind & kinds))
            continue;
        if (by_ns(r, o->kind, object_ns(o), o->name))
            continue;   /* shadowed by an input object */
        fn(arg, o);
    }
}

/* A slot per key that lives as long as the run (NULL at first): rule
 * families keep what they compute once per run there (satisfiability: the
 * device model of input ResourceSlices, selector results). */
void **cx_memo(struct check_ctx *cx, const char *key)
{
    struct run *r = cx->run;
    struct memo_recent *m;
    struct memo_entry *e;
    size_t i, len;

    /* families ask for their fixed keys per object, each from the same
     * string: found again by its address and the text still there (a
     * key built in a buffer comes from one address with other texts),
     * without hashing it (issue 17: four lookups an object) */
    for (i = 0; i < MEMO_RECENT; i++) {
        m = &r->memo_recent[i];
        if (m->key == key && strcmp(m->e->text, key) == 0)
            return &m->e->value;
    }
    e = strmap_get(&r->memo, key);
    if (!e) {
        len = strlen(key);
        e = arena_alloc(r->arena, sizeof(*e) + len + 1);
        memcpy(e->text, key, len + 1);
        strmap_put_borrowed(&r->memo, e->text, e);
    }
    /* a buffer's address keeps one entry, whatever its texts */
    for (i = 0; i < MEMO_RECENT && r->memo_recent[i].key != key; i++)
        ;
    m = &r->memo_recent[i < MEMO_RECENT ? i
                                        : r->memo_next++ % MEMO_RECENT];
    m->key = key;
    m->e = e;
    return &e->value;
}

/* cx_memo() of a string constant: its address alone finds it among the
 * recent keys, no text compared (issue 17: six lookups a pod) */
void **cx_memo_fixed(struct check_ctx *cx, const char *key)
{
    struct run *r = cx->run;
    size_t i;

    for (i = 0; i < MEMO_RECENT; i++)
        if (r->memo_recent[i].key == key)
            return &r->memo_recent[i].e->value;
    return cx_memo(cx, key);
}

/* fn(arg) runs when the run is freed: for memory a family keeps outside
 * the run's arena (satisfiability's per-object scratch). */
void cx_at_run_end(struct check_ctx *cx, void (*fn)(void *arg), void *arg)
{
    struct run *r = cx->run;
    struct run_cleanup *c = arena_alloc(r->arena, sizeof(*c));

    c->fn = fn;
    c->arg = arg;
    c->next = r->cleanups;
    r->cleanups = c;
}

/* ==== runs ============================================================== */

struct run *run_new(const struct engine *e, const struct inventory *inv,
                    struct arena *a, struct diag_list *out)
{
    struct run *r = arena_alloc(a, sizeof(*r));

    r->e = e;
    r->inv = inv;
    r->arena = a;
    r->out = out;
    strmap_init(&r->by_name, a);
    strmap_init(&r->memo, a);
    strmap_init(&r->strings, a);
    arena_init(&r->doc, ARENA_CHUNK_BYTES);
    arena_meter(&r->doc, a->meter);     /* counted with the caller's */
    arena_init(&r->kept, ARENA_RUN_BYTES);
    arena_meter(&r->kept, a->meter);
    return r;
}

void run_free(struct run *r)
{
    /* everything else lives in the caller's arena */
    while (r->cleanups) {
        struct run_cleanup *c = r->cleanups;
        r->cleanups = c->next;
        c->fn(c->arg);
    }
    yreader_free(r->yaml);
    arena_release(&r->doc);
    arena_meter(&r->kept, NULL);        /* a counts it from now on */
    arena_adopt(r->arena, &r->kept);
    if (r->checked_heap)
        free(r->checked);
}

size_t run_objects(const struct run *r)
{
    return r->nk8s;
}

const struct run_obj *run_checked(const struct run *r, size_t *n)
{
    *n = r->nchecked;
    return r->checked;
}

int run_list_attributes(const struct run *r)
{
    return engine_list_attributes(r->e);
}

int run_parse_errors(const struct run *r)
{
    return r->parse_errors;
}

/* prev when it reads s, else s interned in the run's strings */
static const char *same_or_interned(struct run *r, const char *prev,
                                    const char *s)
{
    return prev && strcmp(prev, s) == 0 ? prev
                                        : strmap_intern(&r->strings, s);
}

/* copy: strings of scratch objects die with the next document (the
 * identity parts that repeat are the previous entry's or interned, the
 * name is copied). The first 64 entries are in the run's arena (an
 * admission run has one object); past them the list moves to malloc: a
 * pod per line of a big stream makes it long, and an arena would keep
 * every smaller copy it grew out of. */
static void note_checked(struct run *r, const struct object *o, int copy)
{
    struct run_obj *c, *prev;

    if (r->nchecked == r->capchecked) {
        size_t cap = r->capchecked ? r->capchecked * 2 : 64;
        if (!r->capchecked) {
            r->checked = arena_alloc(r->arena, cap * sizeof(*r->checked));
        } else if (!r->checked_heap) {
            c = xmalloc(cap * sizeof(*r->checked));
            memcpy(c, r->checked, r->nchecked * sizeof(*r->checked));
            r->checked = c;
            r->checked_heap = 1;
        } else {
            r->checked = xrealloc(r->checked, cap * sizeof(*r->checked));
        }
        r->capchecked = cap;
    }
    c = &r->checked[r->nchecked++];
    c->file = o->file;
    if (!copy) {
        c->api_version = o->api_version;
        c->kind = o->kind_name;
        c->ns = o->ns;
        c->name = o->name;
        return;
    }
    /* a stream's pods mostly share these with the one before (whose
     * strings live as long as the run) */
    prev = r->nchecked > 1 ? c - 1 : NULL;
    c->api_version = same_or_interned(r, prev ? prev->api_version : NULL,
                                      o->api_version);
    c->kind = same_or_interned(r, prev ? prev->kind : NULL, o->kind_name);
    c->ns = same_or_interned(r, prev ? prev->ns : NULL, o->ns);
    c->name = arena_strdup(r->arena, o->name);
}

static void add_object(struct run *r, struct object *o)
{
    if (r->nobjs == r->capobjs) {
        size_t cap = r->capobjs ? r->capobjs * 2 : 64;
        r->objs = arena_grow(r->arena, r->objs, r->nobjs, cap,
                             sizeof(*r->objs));
        r->capobjs = cap;
    }
    r->objs[r->nobjs++] = o;
    r->kinds |= o->kind;
    if (*o->name) {
        char key[KEY_BYTES];
        if (index_key(key, o->kind, NULL, o->name) == 0) {
            struct name_list *nl = arena_alloc(r->arena, sizeof(*nl));
            nl->o = o;
            nl->next = strmap_get(&r->by_name, key);
            strmap_put(&r->by_name, key, nl);
        }
    }
}

static void check_object(struct run *r, const struct object *o);

/* What becomes of a document's objects (add_one) */
enum keep {
    KEEP_AS_IS,     /* the root lives in the run's arena (webhook) */
    KEEP_COPY,      /* the root is in r->doc: objects of checked kinds are
                       copied into the run's arena, the rest is dropped */
    KEEP_LOADED,    /* the root is in r->kept, its strings in r->strings:
                       an object of a checked kind stays as it is */
    CHECK_NOW,      /* a pod-like document in r->doc: checked at once */
};

/* Reads one document root into an object. Objects of pod-like documents
 * are checked at once and forgotten; the others are kept and indexed for
 * cross-object references. 1 if the object is kept where it was loaded
 * (KEEP_LOADED: its document must stay). */
static int add_one(struct run *r, enum keep how, const struct tnode *root,
                   const char *file, unsigned doc_index,
                   const char *default_ns, int derived)
{
    struct arena *a = how == KEEP_AS_IS ? r->arena
                      : how == KEEP_LOADED ? &r->kept : &r->doc;
    struct object *o = arena_alloc(a, sizeof(*o));
    const struct tnode *bad;
    const char *why;
    unsigned line, col;

    switch (object_read(a, root, file, doc_index, o, &bad, &why)) {
    case OBJ_NOT_K8S:
        return 0;
    case OBJ_OTHER:
        r->nk8s++;
        o->kind = K_OTHER;      /* only rules that read the tree see it */
        check_object(r, o);
        return 0;
    case OBJ_BAD:
        r->nk8s++;
        tree_pos(bad, &line, &col);
        raw_report(r, "input-object", file, line, col, o,
                   tree_path(r->arena, root, bad), why);
        return 0;
    case OBJ_OK:
        break;
    }
    r->nk8s++;
    if (how == KEEP_COPY) {
        /* the same reading of the copy: the document's scratch is reused
         * for the next one */
        a = r->arena;
        o = arena_alloc(a, sizeof(*o));
        if (object_read(a, tree_clone(a, &r->strings, root), file,
                        doc_index, o, &bad, &why) != OBJ_OK)
            BUG("a copied object reads differently");
    }
    o->derived = derived;
    o->stored_selectors = r->stored_selectors;
    if (default_ns && *default_ns && !*o->ns)
        o->ns = arena_strdup(a, default_ns);
    if (how == CHECK_NOW) {
        note_checked(r, o, 1);
        check_object(r, o);
    } else {
        add_object(r, o);
    }
    return how == KEEP_LOADED;
}

/* add_one() for the document root or each item of a List: 1 if an object
 * is kept where it was loaded. A List's items are copied (a copy's root
 * has no parent, as an item's would), so the List is not kept. */
static int add_root(struct run *r, enum keep how, const struct tnode *root,
                    const char *file, unsigned doc_index,
                    const char *default_ns, int derived)
{
    size_t i;

    if (object_is_list(root)) {
        const struct tnode *items = tree_get(root, "items");
        for (i = 0; i < items->n; i++)
            add_one(r, how == KEEP_LOADED ? KEEP_COPY : how,
                    items->kids[i], file, doc_index, default_ns, derived);
        return 0;
    }
    return add_one(r, how, root, file, doc_index, default_ns, derived);
}

void run_add_root(struct run *r, const struct tnode *root, const char *file,
                  unsigned doc_index, const char *default_ns)
{
    add_root(r, KEEP_AS_IS, root, file, doc_index, default_ns, 0);
}

void run_add_derived(struct run *r, const struct tnode *root,
                     const char *file)
{
    add_root(r, KEEP_AS_IS, root, file, 0, NULL, 1);
}

/* 1 if a line of the document has `{{` outside quotes: an unrendered
 * Helm/Go template, skipped quietly. */
static int is_template(const char *s, size_t len)
{
    const char *end = s + len;
    const char *b = memchr(s, '{', len);
    char q = 0;

    /* most documents have no `{{` at all: find that out with memchr */
    while (b && b + 1 < end && b[1] != '{')
        b = memchr(b + 1, '{', (size_t)(end - b - 1));
    if (!b || b + 1 >= end)
        return 0;
    for (; s < end; s++) {
        if (*s == '\n') {
            q = 0;
        } else if (q) {
            if (*s == q)
                q = 0;
            else if (*s == '\\' && q == '"' && s + 1 < end)
                s++;
        } else if (*s == '"' || *s == '\'') {
            q = *s;
        } else if (*s == '#') {
            while (s < end && *s != '\n')
                s++;
            s--;
        } else if (*s == '{' && s + 1 < end && s[1] == '{') {
            return 1;
        }
    }
    return 0;
}

/* The value of the document's top-level `kind:` line (a block mapping at
 * column 0, the only `kind:` there), *vlen bytes of it, or NULL. A guess
 * for where a document goes (pod-like ones are parsed later, others of
 * no kind the rules know are parsed as scratch): a miss costs time or
 * memory, never a difference in what is read. */
static const char *chunk_kind(const char *s, size_t len, size_t *vlen)
{
    const char *end = s + len, *p = s, *val = NULL;
    int found = 0;

    /* lines that start with `kind:`: found by their 'k' (memchr), not
     * line by line */
    while (p < end) {
        const char *eol;
        p = memchr(p, 'k', (size_t)(end - p));
        if (!p)
            break;
        if ((p > s && p[-1] != '\n') || end - p <= 5
            || memcmp(p, "kind:", 5)) {
            p++;
            continue;
        }
        eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        if (eol - p > 5) {
            const char *v = p + 5, *e = eol;
            if (found++)
                return NULL;
            while (v < e && (*v == ' ' || *v == '\t'))
                v++;
            while (e > v && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r'))
                e--;
            if (e - v >= 2 && (*v == '"' || *v == '\'') && e[-1] == *v) {
                v++;
                e--;
            }
            val = v;
            *vlen = (size_t)(e - v);
        }
        p = eol + 1;
    }
    return val;
}

/* Loads one document and reads its objects: into r->doc (emptied
 * first), or, for KEEP_LOADED (a YAML document whose objects may be
 * kept), into r->kept, which gives it back unless an object stays there:
 * what is kept is not copied. */
static void add_doc(struct run *r, enum keep how, const char *file,
                    const struct sdoc *s, unsigned doc_index)
{
    struct arena_mark m;
    struct ydoc d;

    arena_clear(&r->doc);
    if (!s->json && !r->yaml)
        r->yaml = yreader_new();
    if (how == KEEP_LOADED) {
        arena_mark(&r->kept, &m);
        stream_load_doc(r->yaml, &r->kept, &r->strings, s, &d);
    } else {
        stream_load_doc(r->yaml, &r->doc, NULL, s, &d);
    }
    if (d.error) {
        r->parse_errors++;
        raw_report(r, "input-parse", file, d.line, d.col, NULL, "",
                   d.error);
    } else if (d.root && add_root(r, how, d.root, file, doc_index, NULL, 0)) {
        return;
    }
    if (how == KEEP_LOADED)
        arena_rollback(&r->kept, &m);
}

/* Remembers a pod-like YAML document for run_check(), which reads it
 * once every object it may reference is known: the text is cut once. */
static void note_pod(struct run *r, const struct ychunk *c, const char *file,
                     unsigned index)
{
    struct run_pod *p;

    if (r->npods == r->cappods) {
        size_t cap = r->cappods ? r->cappods * 2 : 64;
        p = arena_alloc_block(r->arena, cap * sizeof(*p));
        if (r->npods)
            memcpy(p, r->pods, r->npods * sizeof(*p));
        arena_free(r->arena, r->pods, r->cappods * sizeof(*p));
        r->pods = p;
        r->cappods = cap;
    }
    p = &r->pods[r->npods++];
    p->chunk = *c;
    p->file = file;
    p->index = index;
}

void run_on_read(struct run *r, run_read_fn *fn, void *arg)
{
    r->on_read = fn;
    r->on_read_arg = arg;
}

/* the document of chunk c read: said to run_on_read()'s function */
static void chunk_read(const struct run *r, const struct ychunk *c)
{
    if (r->on_read && c->text)
        r->on_read(r->on_read_arg, c->text, c->text + c->len);
}

void run_add_text(struct run *r, const char *file, const char *data,
                  size_t len)
{
    struct arena tmp;           /* JSON values, bad-separator messages */
    struct sstream st;
    struct sdoc sd;
    unsigned i;

    arena_init(&tmp, ARENA_TINY_BYTES);
    stream_open(&st, &tmp, data, len);
    for (i = 0; stream_next(&st, &tmp, &sd); i++) {
        const struct ychunk *c = &sd.chunk;
        const struct kind_info *k;
        const char *src, *kind;
        size_t klen = 0;
        if (sd.json) {
            /* the value is parsed already (in tmp): copied if kept */
            add_doc(r, KEEP_COPY, file, &sd, i);
            continue;
        }
        if (is_template(c->text, c->len)) {
            chunk_read(r, c);
            continue;           /* unrendered: skipped quietly */
        }
        /* helm template: the document's `# Source:` names its file */
        src = c->error ? NULL : stream_helm_source(r->arena, &sd.chunk);
        kind = chunk_kind(c->text, c->len, &klen);
        k = kind ? kind_by_name(kind, klen) : NULL;
        if (k && (k->bit & K_PODLIKE))
            note_pod(r, c, src ? src : file, i);
        else    /* a kind no rule knows is read and dropped: scratch */
            add_doc(r, kind && !k ? KEEP_COPY : KEEP_LOADED,
                    src ? src : file, &sd, i);
        chunk_read(r, c);
    }
    arena_release(&tmp);
}

/* Reports ignore.claimcheck.dev/ annotations of metadata meta (the
 * object's, or a workload's pod template's) that name no rule or give no
 * reason: such a suppression does not apply. */
static void check_suppressions_in(struct check_ctx *cx,
                                  const struct tnode *meta)
{
    const struct tnode *ann = tree_get(meta, "annotations");
    size_t i, plen = strlen(SUPPRESS_PREFIX);

    for (i = 0; tree_is_map(ann) && i < ann->n; i++) {
        const struct tnode *a = ann->kids[i];
        const char *id;
        if (strncmp(a->key, SUPPRESS_PREFIX, plen) != 0)
            continue;
        id = a->key + plen;
        if (!ruleset_find(cx->run->e->rules, id)) {
            const char *near = ruleset_suggest(cx->run->e->rules, id);
            report(cx, a, "suppression names unknown rule '%s'%s%s%s", id,
                   near ? " (did you mean '" : "", near ? near : "",
                   near ? "'?)" : "");
        } else if (!tree_text(a) || !*tree_text(a)) {
            report(cx, a, "suppression of '%s' has no reason: it does not "
                   "apply until one is given", id);
        }
    }
}

static void check_suppressions(struct run *r, const struct object *o)
{
    struct check_ctx cx;

    cx.run = r;
    cx.obj = o;
    cx.hint = NULL;
    cx.from_input = 0;
    cx.rule = &r->e->rules->v[r->e->suppression_rule];
    cx.sev = r->e->sev[r->e->suppression_rule];
    if (cx.sev == SEV_OFF)
        return;
    check_suppressions_in(&cx, o->metadata);
    if (o->pod && o->pod->meta)
        check_suppressions_in(&cx, o->pod->meta);
}

static void check_object(struct run *r, const struct object *o)
{
    const struct slot_rule *v = r->e->by_kind[kind_slot(o->kind)];
    size_t i, n = r->e->nby_kind[kind_slot(o->kind)];
    struct check_ctx cx;

    cx.run = r;
    cx.obj = o;
    cx.hint = NULL;
    for (i = 0; i < n; i++) {
        if (!(v[i].kinds & o->kind)     /* ANY_SLOT's */
            || (v[i].live ? !r->e->cfg->audit.on : o->derived))
            continue;
        cx.rule = v[i].rule;
        cx.sev = v[i].sev;
        /* no budget, no expiry (cx_expired) */
        if (r->budget && cx_expired(&cx))
            return;
        cx.hint = NULL;
        cx.from_input = 0;
        v[i].check(&cx, o);
    }
    /* other kinds have no suppressions; a derived object's owner's
     * annotations were checked */
    if (o->kind != K_OTHER && !o->derived)
        check_suppressions(r, o);
}

void run_check(struct run *r)
{
    size_t i;

    for (i = 0; i < r->nobjs; i++) {
        note_checked(r, r->objs[i], 0);
        check_object(r, r->objs[i]);
    }
    /* pod-like documents, one at a time, now that every object they may
     * reference is known */
    for (i = 0; i < r->npods; i++) {
        struct sdoc sd;
        memset(&sd, 0, sizeof(sd));
        sd.chunk = r->pods[i].chunk;
        add_doc(r, CHECK_NOW, r->pods[i].file, &sd, r->pods[i].index);
        chunk_read(r, &sd.chunk);
    }
    arena_free(r->arena, r->pods, r->cappods * sizeof(*r->pods));
    r->pods = NULL;
    r->npods = r->cappods = 0;
}

/* ==== admission ========================================================= */

int engine_check_admission(const struct engine *e, const struct inventory *inv,
                           const struct tnode *object, const char *ns,
                           uint64_t deadline_ns, struct diag_list *out,
                           struct err *err)
{
    struct work_budget b;

    memset(&b, 0, sizeof(b));
    b.deadline_ns = deadline_ns;
    return engine_check_update(e, inv, object, ns, 0, &b, out, err);
}

int engine_check_update(const struct engine *e, const struct inventory *inv,
                        const struct tnode *object, const char *ns,
                        int stored_selectors, struct work_budget *budget,
                        struct diag_list *out, struct err *err)
{
    struct verdict_cache *vc = inv ? inv->verdicts : e->verdicts;
    struct verdict_key key;
    struct run *r;
    size_t from = out->n;
    int cacheable;

    if (!tree_is_map(object))
        return err_set(err, "request.object is not an object");
    /* the pods of one ReplicaSet have one spec: judge it once */
    cacheable = vc && !stored_selectors &&
                verdict_key(out->arena, object, ns, &key) == 0;
    if (cacheable) {
        const struct tnode *md = tree_get(object, "metadata");
        const char *name = tree_str(tree_get(md, "name"));
        const char *ons = tree_str(tree_get(md, "namespace"));
        if (!name)
            name = tree_str(tree_get(md, "generateName"));
        if (verdict_cache_get(vc, &key, out, "Pod",
                              ons && *ons ? ons : ns, name))
            return 0;
    }
    r = run_new(e, inv, out->arena, out);
    r->budget = budget;
    r->stored_selectors = stored_selectors;
    run_add_root(r, object, NULL, 0, ns);
    run_check(r);
    run_free(r);
    if (r->expired || work_budget_over(budget)) {
        out->n = from;          /* half a verdict is no verdict */
        return 1;
    }
    if (cacheable)
        verdict_cache_put(vc, &key, out, from);
    return 0;
}
