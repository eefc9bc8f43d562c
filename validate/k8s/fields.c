/*
 * fields.c - lookups in the generated field tables (fields_data.c): kinds
 * by apiVersion and kind, the kinds of an apiVersion, fields by name, by
 * binary search.
 */
#include "fields.h"

#include <stdlib.h>
#include <string.h>

/* strcmp's order; a first byte that differs decides without the call */
static int first_cmp(const char *a, const char *b)
{
    if (*a != *b)
        return (unsigned char)*a - (unsigned char)*b;
    return strcmp(a, b);
}

static int cmp_kind(const void *key, const void *elem)
{
    const struct k8s_kind *k = key, *e = elem;
    int c = first_cmp(k->api_version, e->api_version);

    return c ? c : first_cmp(k->kind, e->kind);
}

const struct k8s_kind *k8s_kind_find(const char *api_version,
                                     const char *kind)
{
    struct k8s_kind key = {api_version, kind, 0, 0};

    return bsearch(&key, k8s_kinds, K8S_KIND_COUNT, sizeof(k8s_kinds[0]),
                   cmp_kind);
}

size_t k8s_kind_rows(const char *api_version, size_t *lo)
{
    size_t a = 0, b = K8S_KIND_COUNT;

    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (strcmp(k8s_kinds[mid].api_version, api_version) < 0)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    /* its rows mostly share one string: compared by address first */
    while (b < K8S_KIND_COUNT
           && ((b > a && k8s_kinds[b].api_version
                         == k8s_kinds[b - 1].api_version)
               || !strcmp(k8s_kinds[b].api_version, api_version)))
        b++;
    return b;
}

static int cmp_field(const void *key, const void *elem)
{
    return first_cmp(key, ((const struct k8s_field *)elem)->name);
}

const struct k8s_field *k8s_field_find(const struct k8s_type *t,
                                       const char *name)
{
    const struct k8s_field *f = bsearch(name, k8s_fields + t->first, t->n,
                                        sizeof(k8s_fields[0]), cmp_field);

    /* the first row of the name: its rows for other minors follow it */
    while (f && f > k8s_fields + t->first && f[-1].name[0] == name[0]
           && !strcmp(f[-1].name, name))
        f--;
    return f;
}
