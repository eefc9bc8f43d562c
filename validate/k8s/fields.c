/*
 * fields.c - lookups in the generated field tables (fields_data.c): kinds
 * by apiVersion and kind, fields by name, both by binary search.
 */
#include "fields.h"

#include <string.h>

const struct k8s_kind *k8s_kind_find(const char *api_version,
                                     const char *kind)
{
    size_t lo = 0, hi = K8S_KIND_COUNT;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const struct k8s_kind *k = &k8s_kinds[mid];
        int c = strcmp(api_version, k->api_version);
        if (!c)
            c = strcmp(kind, k->kind);
        if (!c)
            return k;
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const struct k8s_field *k8s_field_find(const struct k8s_type *t,
                                       const char *name)
{
    size_t lo = t->first, hi = (size_t)t->first + t->n;

    /* the first row of the name: a lower bound */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(k8s_fields[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < (size_t)t->first + t->n && !strcmp(k8s_fields[lo].name, name))
        return &k8s_fields[lo];
    return NULL;
}
