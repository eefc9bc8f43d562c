/*
 * names.c - Kubernetes name format checks.
 */
#include "names.h"

#include <string.h>

static int alnum_lower(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int label_n(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || n > 63 || !alnum_lower(s[0]) || !alnum_lower(s[n - 1]))
        return 0;
    for (i = 0; i < n; i++)
        if (!alnum_lower(s[i]) && s[i] != '-')
            return 0;
    return 1;
}

int name_is_dns_label(const char *s)
{
    return label_n(s, strlen(s));
}

/* IsDNS1123Subdomain: <= 253 and [a-z0-9]([-a-z0-9]*[a-z0-9])? parts
 * joined by '.'; the parts have no length limit of their own. */
static int subdomain_n(const char *s, size_t n)
{
    size_t start = 0, i, j;

    if (n == 0 || n > 253)
        return 0;
    for (i = 0; i <= n; i++) {
        if (i < n && s[i] != '.')
            continue;
        if (i == start || !alnum_lower(s[start]) || !alnum_lower(s[i - 1]))
            return 0;
        for (j = start; j < i; j++)
            if (!alnum_lower(s[j]) && s[j] != '-')
                return 0;
        start = i + 1;
    }
    return 1;
}

int name_is_dns_subdomain(const char *s)
{
    return subdomain_n(s, strlen(s));
}

static int alnum(char c)
{
    return alnum_lower(c) || (c >= 'A' && c <= 'Z');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], or empty when empty_ok */
static int qname_part(const char *s, size_t n, int empty_ok)
{
    size_t i;

    if (n == 0)
        return empty_ok;
    if (n > 63 || !alnum(s[0]) || !alnum(s[n - 1]))
        return 0;
    for (i = 0; i < n; i++)
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    return 1;
}

int name_is_label_key(const char *s)
{
    const char *slash = strchr(s, '/');

    if (!slash)
        return qname_part(s, strlen(s), 0);
    if (strchr(slash + 1, '/'))
        return 0;
    return subdomain_n(s, (size_t)(slash - s))
           && qname_part(slash + 1, strlen(slash + 1), 0);
}

int name_is_label_value(const char *s)
{
    return qname_part(s, strlen(s), 1);
}

int name_is_c_identifier(const char *s)
{
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
        return 0;
    for (s++; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9') || *s == '_'))
            return 0;
    return 1;
}

int name_is_fully_qualified(const char *s)
{
    const char *slash = strchr(s, '/');

    if (!slash || strchr(slash + 1, '/'))
        return 0;
    return subdomain_n(s, (size_t)(slash - s)) && strlen(slash + 1) <= 32
           && name_is_c_identifier(slash + 1);
}

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t l = strlen(suffix);
    return n >= l && memcmp(s + n - l, suffix, l) == 0;
}

int name_is_extended_resource(const char *s)
{
    const char *slash = strchr(s, '/');
    size_t dl;

    if (!slash || !slash[1])
        return 0;
    dl = (size_t)(slash - s);
    if (strncmp(s, "requests.", 9) == 0)
        return 0;
    if (dl == strlen("deviceclass.resource.kubernetes.io")
        && memcmp(s, "deviceclass.resource.kubernetes.io", dl) == 0)
        return 1;
    if (ends_with(s, dl, "kubernetes.io"))
        return 0;
    return 1;
}
