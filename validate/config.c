/*
 * config.c - the YAML config file and the command-line forms of the same
 * settings. The file is loaded with load_yaml (positions for errors);
 * unknown keys are an error naming file:line:col, like kube-linter's
 * strict config. Validation of gate names and rule ids happens later, in
 * engine_new(), against the tables.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "file.h"
#include "limits.h"
#include "load_yaml.h"
#include "suggest.h"
#include "tree.h"

void config_init(struct config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    arena_init(&cfg->arena, ARENA_SMALL_BYTES);
    cfg->beta_on_sev = SEV_INFO;
}

void config_release(struct config *cfg)
{
    arena_release(&cfg->arena);
    memset(cfg, 0, sizeof(*cfg));
}

int config_load_under_flags(struct config *cfg, const char *path,
                            struct err *err)
{
    struct config flags = *cfg;
    size_t i;

    config_init(cfg);
    if (config_load_file(cfg, path, err) < 0) {
        config_release(cfg);
        *cfg = flags;
        return -1;
    }
    if (flags.kube_version)
        cfg->kube_version = arena_strdup(&cfg->arena, flags.kube_version);
    for (i = 0; i < flags.ngates; i++)
        config_add_gates(cfg, arena_printf(&cfg->arena, "%s=%s",
                                           flags.gates[i].key,
                                           flags.gates[i].value), err);
    for (i = 0; i < flags.nruntime; i++)
        config_add_runtime(cfg, arena_printf(&cfg->arena, "%s=%s",
                                             flags.runtime[i].key,
                                             flags.runtime[i].value), err);
    for (i = 0; i < flags.nsevs; i++)
        config_add_enable(cfg, flags.sevs[i].rule,
                          flags.sevs[i].use_default, err);
    cfg->show_suppressed |= flags.show_suppressed;
    cfg->audit = flags.audit;
    config_release(&flags);
    return 0;
}

static void add_kv(struct config *cfg, struct config_kv **v, size_t *n,
                   const char *k, const char *val)
{
    *v = arena_grow(&cfg->arena, *v, *n, *n + 1, sizeof(**v));
    (*v)[*n].key = arena_strdup(&cfg->arena, k);
    (*v)[*n].value = arena_strdup(&cfg->arena, val);
    (*n)++;
}

/* where: "file:line:col" of the entry in the config file, or NULL */
static void add_sev(struct config *cfg, const char *rule, enum sev s,
                    int use_default, const char *where)
{
    cfg->sevs = arena_grow(&cfg->arena, cfg->sevs, cfg->nsevs, cfg->nsevs + 1,
                           sizeof(*cfg->sevs));
    cfg->sevs[cfg->nsevs].rule = arena_strdup(&cfg->arena, rule);
    cfg->sevs[cfg->nsevs].sev = s;
    cfg->sevs[cfg->nsevs].use_default = use_default;
    cfg->sevs[cfg->nsevs].where = where;
    cfg->nsevs++;
}

int config_set_kube_version(struct config *cfg, const char *v,
                            struct err *err)
{
    const char *p = v[0] == 'v' ? v + 1 : v;
    char *end;
    long maj, min;

    errno = 0;
    maj = strtol(p, &end, 10);
    if (end == p || *end != '.' || maj != 1)
        return err_set(err, "invalid Kubernetes version '%s' (want 1.Y, "
                       "e.g. 1.34)", v);
    p = end + 1;
    min = strtol(p, &end, 10);
    if (end == p || min < 0 || min > 99 || (*end && *end != '.'))
        return err_set(err, "invalid Kubernetes version '%s' (want 1.Y, "
                       "e.g. 1.34)", v);
    cfg->kube_version = arena_printf(&cfg->arena, "1.%ld", min);
    return 0;
}

/* Splits "A=x,B=y" and calls add for each pair; values must be booleans. */
static int add_bool_list(struct config *cfg, struct config_kv **v, size_t *n,
                         const char *list, const char *what, struct err *err)
{
    const char *p = list;

    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[256], *eq;
        if (len == 0) {
            p += comma ? 1 : 0;
            if (!comma)
                break;
            continue;
        }
        if (len >= sizeof(item))
            return err_set(err, "%s entry too long", what);
        memcpy(item, p, len);
        item[len] = '\0';
        eq = strchr(item, '=');
        if (!eq || eq == item)
            return err_set(err, "invalid %s entry '%s' (want NAME=true|false)",
                           what, item);
        *eq = '\0';
        if (strcmp(eq + 1, "true") && strcmp(eq + 1, "false"))
            return err_set(err, "invalid %s value '%s' for '%s' (want true "
                           "or false)", what, eq + 1, item);
        add_kv(cfg, v, n, item, eq + 1);
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

int config_add_gates(struct config *cfg, const char *list, struct err *err)
{
    return add_bool_list(cfg, &cfg->gates, &cfg->ngates, list,
                         "--feature-gates", err);
}

int config_add_runtime(struct config *cfg, const char *list, struct err *err)
{
    return add_bool_list(cfg, &cfg->runtime, &cfg->nruntime, list,
                         "--runtime-config", err);
}

int config_add_enable(struct config *cfg, const char *list, int on,
                      struct err *err)
{
    const char *p = list;

    (void)err;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len) {
            char *id = arena_strndup(&cfg->arena, p, len);
            add_sev(cfg, id, on ? SEV_ERROR : SEV_OFF, on, NULL);
        }
        p += len + (comma ? 1 : 0);
    }
    return 0;
}

/* ==== the file ========================================================== */

/* "file:line:col" of n (of its key, for a mapping entry) */
static const char *pos(struct config *cfg, const char *file,
                       const struct tnode *n)
{
    return arena_printf(&cfg->arena, "%s:%u:%u", file, n->key_line
                        ? n->key_line : n->line, n->key_line ? n->key_col
                        : n->col);
}

static int at_err(struct err *err, const char *file, const struct tnode *n,
                  const char *msg)
{
    return err_set(err, "%s:%u:%u: %s", file, n->key_line ? n->key_line
                   : n->line, n->key_line ? n->key_col : n->col, msg);
}

static int scalar_text(const struct tnode *n, const char **out)
{
    *out = tree_text(n);
    return *out ? 0 : -1;
}

static int load_string_list(struct config *cfg, const char *file,
                            const struct tnode *n, const char ***out,
                            size_t *nout, struct err *err)
{
    size_t i;

    if (!tree_is_seq(n))
        return at_err(err, file, n, "expected a list of strings");
    for (i = 0; i < n->n; i++) {
        const char *s;
        if (scalar_text(n->kids[i], &s) < 0)
            return at_err(err, file, n->kids[i], "expected a string");
        *out = arena_grow(&cfg->arena, *out, *nout, *nout + 1, sizeof(char *));
        (*out)[(*nout)++] = arena_strdup(&cfg->arena, s);
    }
    return 0;
}

static int load_bool_map(struct config *cfg, const char *file,
                         const struct tnode *n, struct config_kv **v,
                         size_t *nv, struct err *err)
{
    size_t i;

    if (!tree_is_map(n))
        return at_err(err, file, n, "expected a mapping of NAME: true|false");
    for (i = 0; i < n->n; i++) {
        const struct tnode *e = n->kids[i];
        if (e->kind != T_BOOL)
            return at_err(err, file, e, "expected true or false");
        add_kv(cfg, v, nv, e->key, e->boolean ? "true" : "false");
    }
    return 0;
}

/* "unknown key 'PREFIXkey' (did you mean 'k'?)", or the known keys */
static const char *unknown_key(struct config *cfg, const char *prefix,
                               const char *key, const char *const *keys,
                               size_t nkeys)
{
    struct suggest s;
    const char *known = "";
    size_t i;

    suggest_init(&s, key);
    for (i = 0; i < nkeys; i++) {
        suggest_add(&s, keys[i]);
        known = arena_printf(&cfg->arena, "%s%s%s", known, i ? ", " : "",
                             keys[i]);
    }
    if (suggest_best(&s))
        return arena_printf(&cfg->arena, "unknown key '%s%s' (did you mean "
                            "'%s'?)", prefix, key, suggest_best(&s));
    return arena_printf(&cfg->arena, "unknown key '%s%s' (known: %s)",
                        prefix, key, known);
}

#define NKEYS(t) (sizeof(t) / sizeof((t)[0]))

/* A severity as the rules map takes it for rule entry r: error|warning|
 * info|off, or on (back to the default); YAML's booleans are on and off.
 * e is the value's node. */
static int load_severity(struct config *cfg, const char *file,
                         const struct tnode *r, const struct tnode *e,
                         struct err *err)
{
    const char *s = e->kind == T_BOOL ? (e->boolean ? "on" : "off")
                                      : tree_text(e);
    enum sev sev;

    if (s && !strcmp(s, "on")) {
        add_sev(cfg, r->key, SEV_ERROR, 1, pos(cfg, file, r));
        return 0;
    }
    if (!s || sev_parse(s, &sev) < 0)
        return at_err(err, file, e, "expected error, warning, info or off");
    add_sev(cfg, r->key, sev, 0, pos(cfg, file, r));
    return 0;
}

static int load_action(struct config *cfg, const char *file,
                       const struct tnode *r, const struct tnode *e,
                       struct err *err)
{
    static const char *const names[] = { "deny", "warn", "off" };
    const char *s = e->kind == T_BOOL && !e->boolean ? "off" : tree_str(e);
    size_t i;

    for (i = 0; s && i < NKEYS(names); i++)
        if (!strcmp(s, names[i]))
            break;
    if (!s || i == NKEYS(names))
        return at_err(err, file, e, "expected deny, warn or off");
    cfg->acts = arena_grow(&cfg->arena, cfg->acts, cfg->nacts,
                           cfg->nacts + 1, sizeof(*cfg->acts));
    cfg->acts[cfg->nacts].rule = arena_strdup(&cfg->arena, r->key);
    cfg->acts[cfg->nacts].action = (enum config_action)i;
    cfg->acts[cfg->nacts].where = pos(cfg, file, r);
    cfg->nacts++;
    return 0;
}

/* rules: ID: SEVERITY, or ID: {severity: SEVERITY, action: ACTION} */
static int load_rules(struct config *cfg, const char *file,
                      const struct tnode *n, struct err *err)
{
    static const char *const keys[] = { "severity", "action" };
    size_t i, j;

    if (!tree_is_map(n))
        return at_err(err, file, n, "'rules' must map rule ids or "
                      "categories to error|warning|info|off or to "
                      "{severity, action}");
    for (i = 0; i < n->n; i++) {
        const struct tnode *e = n->kids[i];
        int rc = 0;
        if (!tree_is_map(e)) {
            if (load_severity(cfg, file, e, e, err) < 0)
                return -1;
            continue;
        }
        for (j = 0; rc == 0 && j < e->n; j++) {
            const struct tnode *k = e->kids[j];
            if (!strcmp(k->key, "severity"))
                rc = load_severity(cfg, file, e, k, err);
            else if (!strcmp(k->key, "action"))
                rc = load_action(cfg, file, e, k, err);
            else
                rc = at_err(err, file, k, unknown_key(cfg, arena_printf(
                            &cfg->arena, "rules.%s.", e->key), k->key, keys,
                            NKEYS(keys)));
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

/* exceptions: [{kinds, namespaces, names, rules, reason}] */
static int load_exceptions(struct config *cfg, const char *file,
                           const struct tnode *n, struct err *err)
{
    static const char *const keys[] = {
        "kinds", "namespaces", "names", "rules", "reason"
    };
    size_t i, j;

    if (!tree_is_seq(n))
        return at_err(err, file, n, "'exceptions' must be a list of {kinds, "
                      "namespaces, names, rules, reason}");
    for (i = 0; i < n->n; i++) {
        const struct tnode *e = n->kids[i], *rules = NULL;
        struct config_exception x;
        int rc = 0;
        memset(&x, 0, sizeof(x));
        if (!tree_is_map(e))
            return at_err(err, file, e, "an exceptions entry must be a "
                          "mapping of kinds, namespaces, names, rules and "
                          "reason");
        for (j = 0; rc == 0 && j < e->n; j++) {
            const struct tnode *k = e->kids[j];
            if (!strcmp(k->key, "kinds"))
                rc = load_string_list(cfg, file, k, &x.kinds, &x.nkinds, err);
            else if (!strcmp(k->key, "namespaces"))
                rc = load_string_list(cfg, file, k, &x.namespaces,
                                      &x.nnamespaces, err);
            else if (!strcmp(k->key, "names"))
                rc = load_string_list(cfg, file, k, &x.names, &x.nnames, err);
            else if (!strcmp(k->key, "rules")) {
                rules = k;
                rc = load_string_list(cfg, file, k, &x.rules, &x.nrules, err);
            } else if (!strcmp(k->key, "reason")) {
                x.reason = tree_str(k);
                if (!x.reason || !*x.reason)
                    rc = at_err(err, file, k, "an exception's reason must "
                                "be a string saying why the findings are "
                                "accepted");
            } else {
                rc = at_err(err, file, k, unknown_key(cfg, "exceptions.",
                            k->key, keys, NKEYS(keys)));
            }
        }
        if (rc < 0)
            return -1;
        if (!x.reason)
            return at_err(err, file, e, "an exception needs a reason (why "
                          "the findings are accepted)");
        if (!x.nrules)
            return at_err(err, file, rules ? rules : e, "an exception needs "
                          "rules (the rule ids it suppresses)");
        x.reason = arena_strdup(&cfg->arena, x.reason);
        x.rules_where = arena_alloc(&cfg->arena,
                                    x.nrules * sizeof(*x.rules_where));
        for (j = 0; j < x.nrules; j++)
            x.rules_where[j] = pos(cfg, file, rules->kids[j]);
        cfg->exceptions = arena_grow(&cfg->arena, cfg->exceptions,
                                     cfg->nexceptions, cfg->nexceptions + 1,
                                     sizeof(*cfg->exceptions));
        cfg->exceptions[cfg->nexceptions++] = x;
    }
    return 0;
}

static void add_map(struct config *cfg, const char *res, const char *cls,
                    const char *drv)
{
    struct config_map *m;

    cfg->maps = arena_grow(&cfg->arena, cfg->maps, cfg->nmaps, cfg->nmaps + 1,
                           sizeof(*cfg->maps));
    m = &cfg->maps[cfg->nmaps++];
    m->resource = res ? arena_strdup(&cfg->arena, res) : NULL;
    m->class_name = cls ? arena_strdup(&cfg->arena, cls) : NULL;
    m->driver = arena_strdup(&cfg->arena, drv);
}

static int load_maps(struct config *cfg, const char *file,
                     const struct tnode *n, struct err *err)
{
    size_t i, j;

    if (!tree_is_seq(n))
        return at_err(err, file, n, "'devicePlugins' must be a list of "
                      "{resource, driver}");
    for (i = 0; i < n->n; i++) {
        const struct tnode *e = n->kids[i];
        const char *res = tree_str(tree_get(e, "resource"));
        const char *drv = tree_str(tree_get(e, "driver"));
        for (j = 0; tree_is_map(e) && j < e->n; j++)
            if (strcmp(e->kids[j]->key, "resource")
                && strcmp(e->kids[j]->key, "driver"))
                return at_err(err, file, e->kids[j], "unknown key (want "
                              "resource and driver)");
        if (!res || !drv)
            return at_err(err, file, e, "a devicePlugins entry needs "
                          "resource and driver strings");
        add_map(cfg, res, NULL, drv);
    }
    return 0;
}

/* drivers: [{driver, classes: [...], devicePlugins: [...]}] */
static int load_drivers(struct config *cfg, const char *file,
                        const struct tnode *n, struct err *err)
{
    size_t i, j;

    if (!tree_is_seq(n))
        return at_err(err, file, n, "'drivers' must be a list of {driver, "
                      "classes, devicePlugins}");
    for (i = 0; i < n->n; i++) {
        const struct tnode *e = n->kids[i];
        const char *drv = tree_str(tree_get(e, "driver"));
        const char **cls = NULL, **res = NULL;
        size_t ncls = 0, nres = 0;
        if (!tree_is_map(e) || !drv)
            return at_err(err, file, e, "a drivers entry needs a driver "
                          "string");
        for (j = 0; j < e->n; j++) {
            const struct tnode *k = e->kids[j];
            int rc = 0;
            if (!strcmp(k->key, "classes"))
                rc = load_string_list(cfg, file, k, &cls, &ncls, err);
            else if (!strcmp(k->key, "devicePlugins"))
                rc = load_string_list(cfg, file, k, &res, &nres, err);
            else if (strcmp(k->key, "driver"))
                return at_err(err, file, k, "unknown key (want driver, "
                              "classes and devicePlugins)");
            if (rc < 0)
                return -1;
        }
        for (j = 0; j < ncls; j++)
            add_map(cfg, NULL, cls[j], drv);
        for (j = 0; j < nres; j++)
            add_map(cfg, res[j], NULL, drv);
    }
    return 0;
}

static int load_webhook(struct config *cfg, const char *file,
                        const struct tnode *n, struct err *err)
{
    size_t i;

    if (!tree_is_map(n))
        return at_err(err, file, n, "'webhook' must be a mapping");
    for (i = 0; i < n->n; i++) {
        const struct tnode *e = n->kids[i];
        if (!strcmp(e->key, "excludedNamespaces")) {
            if (load_string_list(cfg, file, e, &cfg->excluded_ns,
                                 &cfg->nexcluded, err) < 0)
                return -1;
        } else {
            return at_err(err, file, e, arena_printf(&cfg->arena,
                          "unknown key 'webhook.%s'", e->key));
        }
    }
    return 0;
}

static const char *const config_keys[] = {
    "kubeVersion", "featureGates", "runtimeConfig", "rules", "enable",
    "disable", "devicePlugins", "drivers", "webhook", "betaOnByDefault",
    "exceptions", "ignorePaths"
};

/* The directory path is in: what ignorePaths are relative to. */
static const char *dir_of(struct config *cfg, const char *path)
{
    const char *slash = strrchr(path, '/');

    if (!slash)
        return ".";
    if (slash == path)
        return "/";
    return arena_strndup(&cfg->arena, path, (size_t)(slash - path));
}

int config_load_file(struct config *cfg, const char *path, struct err *err)
{
    char *raw, *data;
    size_t len = 0, i;
    struct ydocs docs;
    const struct tnode *root;
    const char *file = arena_strdup(&cfg->arena, path);

    if (file_read(path, LIMIT_CONFIG_BYTES, &raw, &len, err) < 0)
        return -1;
    data = arena_strndup(&cfg->arena, raw, len);  /* trees point into it */
    free(raw);
    load_yaml(&cfg->arena, data, len, &docs);
    if (docs.n == 0)
        return 0;
    if (docs.v[0].error)
        return err_set(err, "%s:%u:%u: %s", path, docs.v[0].line,
                       docs.v[0].col, docs.v[0].error);
    if (docs.n > 1)
        return err_set(err, "%s: the config must be one YAML document", path);
    root = docs.v[0].root;
    if (!root || root->kind == T_NULL)
        return 0;
    if (!tree_is_map(root))
        return err_set(err, "%s: the config must be a mapping", path);
    for (i = 0; i < root->n; i++) {
        const struct tnode *e = root->kids[i];
        const char *s;
        int rc = 0;
        if (!strcmp(e->key, "kubeVersion")) {
            if (scalar_text(e, &s) < 0)
                return at_err(err, file, e, "kubeVersion must be a string "
                              "like \"1.34\"");
            rc = config_set_kube_version(cfg, e->kind == T_FLOAT
                   ? arena_strdup(&cfg->arena, e->str) : s, err);
        } else if (!strcmp(e->key, "featureGates")) {
            rc = load_bool_map(cfg, file, e, &cfg->gates, &cfg->ngates, err);
        } else if (!strcmp(e->key, "runtimeConfig")) {
            rc = load_bool_map(cfg, file, e, &cfg->runtime, &cfg->nruntime,
                               err);
        } else if (!strcmp(e->key, "rules")) {
            rc = load_rules(cfg, file, e, err);
        } else if (!strcmp(e->key, "disable") || !strcmp(e->key, "enable")) {
            const char **ids = NULL;
            size_t nids = 0, k;
            rc = load_string_list(cfg, file, e, &ids, &nids, err);
            for (k = 0; rc == 0 && k < nids; k++)
                add_sev(cfg, ids[k], e->key[0] == 'e' ? SEV_ERROR : SEV_OFF,
                        e->key[0] == 'e', pos(cfg, file, e->kids[k]));
        } else if (!strcmp(e->key, "devicePlugins")) {
            rc = load_maps(cfg, file, e, err);
        } else if (!strcmp(e->key, "betaOnByDefault")) {
            s = e->kind == T_BOOL && !e->boolean ? "off" : tree_str(e);
            if (!s || sev_parse(s, &cfg->beta_on_sev) < 0)
                return at_err(err, file, e, "betaOnByDefault: expected "
                              "error, warning, info or off");
        } else if (!strcmp(e->key, "drivers")) {
            rc = load_drivers(cfg, file, e, err);
        } else if (!strcmp(e->key, "webhook")) {
            rc = load_webhook(cfg, file, e, err);
        } else if (!strcmp(e->key, "exceptions")) {
            rc = load_exceptions(cfg, file, e, err);
        } else if (!strcmp(e->key, "ignorePaths")) {
            rc = load_string_list(cfg, file, e, &cfg->ignore_paths,
                                  &cfg->nignore, err);
            cfg->ignore_base = dir_of(cfg, file);
        } else {
            return at_err(err, file, e, unknown_key(cfg, "", e->key,
                          config_keys, NKEYS(config_keys)));
        }
        if (rc < 0) {
            if (!strchr(err->msg, ':'))
                at_err(err, file, e, arena_strdup(&cfg->arena, err->msg));
            return -1;
        }
    }
    return 0;
}
