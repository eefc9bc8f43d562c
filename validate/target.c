/*
 * target.c - resolves the target Kubernetes version from the config.
 * Feature gates are resolved by rules/gates.c once the gate table lands;
 * until then only the version is known.
 */
#include "target.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "err.h"

const char *target_newest(void)
{
    return "1.36";
}

int target_init(struct target *t, const struct config *cfg, struct err *err)
{
    const char *v = cfg->kube_version ? cfg->kube_version : target_newest();
    char *end;
    long maj, min;

    memset(t, 0, sizeof(*t));
    t->cfg = cfg;
    if (v[0] == 'v')
        v++;
    maj = strtol(v, &end, 10);
    if (end == v || *end != '.')
        return err_set(err, "invalid Kubernetes version '%s' (want X.Y)", v);
    v = end + 1;
    min = strtol(v, &end, 10);
    if (end == v || (*end && *end != '.'))
        return err_set(err, "invalid Kubernetes version '%s' (want X.Y)", v);
    t->major = (int)maj;
    t->minor = (int)min;
    snprintf(t->version, sizeof(t->version), "%d.%d", t->major, t->minor);
    return 0;
}
