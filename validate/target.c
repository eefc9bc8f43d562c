/*
 * target.c - resolves the target cluster from the config: the Kubernetes
 * version, its feature gates (the table's defaults, then -g overrides with
 * kube-apiserver's rules) and the enabled resource.k8s.io versions (the
 * defaults, then --runtime-config). The data is validate/k8s/gates.c; this
 * file only applies it.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cel/cel.h"
#include "k8s/gates.h"
#include "config.h"
#include "err.h"

#define GROUP "resource.k8s.io/"

const char *target_newest(void)
{
    static char v[16];

    if (!v[0])
        snprintf(v, sizeof(v), "1.%d", GATE_RELEASED_MINOR);
    return v;
}

static int parse_version(struct target *t, const char *v, struct err *err)
{
    const char *s = v;
    char *end;
    long maj, min;

    if (s[0] == 'v')
        s++;
    maj = strtol(s, &end, 10);
    if (end == s || *end != '.')
        return err_set(err, "invalid Kubernetes version '%s' (want X.Y)", v);
    s = end + 1;
    min = strtol(s, &end, 10);
    if (end == s || (*end && *end != '.'))
        return err_set(err, "invalid Kubernetes version '%s' (want X.Y)", v);
    if (maj != 1 || min < GATE_MIN_MINOR || min > GATE_MAX_MINOR)
        return err_set(err, "Kubernetes version '%s' is outside the gate "
                       "table (1.%d to 1.%d)", v, GATE_MIN_MINOR,
                       GATE_MAX_MINOR);
    t->major = (int)maj;
    t->minor = (int)min;
    t->prerelease = min > GATE_RELEASED_MINOR;
    snprintf(t->version, sizeof(t->version), "%d.%d", t->major, t->minor);
    return 0;
}

static int set_gate(struct target *t, const char *name, const char *value,
                    struct err *err)
{
    int on = !strcmp(value, "true");
    int i = gate_find(name);
    struct gate_state s;

    if (i < 0)
        return err_set(err, "unknown feature gate '%s'", name);
    if (i >= TARGET_MAX_GATES)
        BUG("gate table larger than TARGET_MAX_GATES");
    gate_state_at(&gate_table[i], t->minor, &s);
    if (s.stage == GATE_ABSENT)
        return err_set(err, "unknown feature gate '%s' in Kubernetes %s "
                       "(it exists from 1.%d)", name, t->version,
                       gate_first_minor(&gate_table[i]));
    if (s.stage == GATE_REMOVED)
        return err_set(err, "unknown feature gate '%s': it was removed "
                       "before Kubernetes %s", name, t->version);
    if (s.locked && on != s.on)
        return err_set(err, "cannot set feature gate %s to %s, feature is "
                       "locked to %s", name, value, s.on ? "true" : "false");
    t->gate_on[i] = (unsigned char)on;
    t->gate_set[i] = 1;
    return 0;
}

/* kube-apiserver's --runtime-config keys this target understands:
 * resource.k8s.io/<version>, and api/all, api/beta, api/alpha. Other
 * groups are accepted and ignored: no rule looks at them. */
static int set_runtime(struct target *t, const char *key, const char *value,
                       struct err *err)
{
    int on = !strcmp(value, "true");
    size_t i;

    if (!strcmp(key, "api/all") || !strcmp(key, "api/beta")
        || !strcmp(key, "api/alpha")) {
        const char *kind = key + 4;
        for (i = 0; i < api_version_count; i++) {
            const char *v = api_versions[i].version;
            if (!api_version_served(&api_versions[i], t->minor)
                && !kind_version_serves(v, t->minor))
                continue;
            if (strcmp(kind, "all") && !strstr(v, kind))
                continue;
            t->api_on[i] = (unsigned char)on;
            t->api_set[i] = 1;
        }
        return 0;
    }
    if (!strncmp(key, GROUP, strlen(GROUP))) {
        int k = api_version_find(key + strlen(GROUP));
        if (k < 0)
            return err_set(err, "unknown API version '%s' in "
                           "--runtime-config", key);
        if (!api_version_served(&api_versions[k], t->minor)
            && !kind_version_serves(api_versions[k].version, t->minor))
            return 0;   /* the finding says it is not served */
        t->api_on[k] = (unsigned char)on;
        t->api_set[k] = 1;
        return 0;
    }
    if (!strcmp(key, "resource.k8s.io"))
        return err_set(err, "--runtime-config entry '%s' needs a version "
                       "(resource.k8s.io/v1beta2=true)", key);
    return 0;
}

int target_init(struct target *t, const struct config *cfg, struct err *err)
{
    size_t i;

    memset(t, 0, sizeof(*t));
    t->cfg = cfg;
    if (parse_version(t, cfg->kube_version ? cfg->kube_version
                      : target_newest(), err) < 0)
        return -1;
    if (gate_count > TARGET_MAX_GATES || api_version_count > TARGET_MAX_APIS)
        BUG("gate or API table larger than struct target");
    for (i = 0; i < gate_count; i++) {
        struct gate_state s;
        gate_state_at(&gate_table[i], t->minor, &s);
        t->gate_on[i] = (unsigned char)(s.on && s.stage != GATE_ABSENT
                                        && s.stage != GATE_REMOVED);
    }
    for (i = 0; i < api_version_count; i++)
        t->api_on[i] = (unsigned char)(api_versions[i].default_on
                                       && api_version_served(&api_versions[i],
                                                             t->minor));
    for (i = 0; i < cfg->ngates; i++)
        if (set_gate(t, cfg->gates[i].key, cfg->gates[i].value, err) < 0)
            return -1;
    for (i = 0; i < cfg->nruntime; i++)
        if (set_runtime(t, cfg->runtime[i].key, cfg->runtime[i].value,
                        err) < 0)
            return -1;
    return 0;
}

int target_gate_on(const struct target *t, const char *name)
{
    int i = gate_find(name);

    return i >= 0 && t->gate_on[i];
}

void target_cel_env(const struct target *t, struct cel_env *env)
{
    memset(env, 0, sizeof(*env));
    env->consumable_capacity = target_gate_on(t, "DRAConsumableCapacity");
    env->list_attributes = target_gate_on(t, "DRAListTypeAttributes");
    env->kube_minor = t->minor;
}
