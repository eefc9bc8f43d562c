/*
 * names.c - Kubernetes name format checks (apimachinery's
 * pkg/util/validation rules, byte for byte: no locale, ASCII only).
 */
#include "names.h"

#include <string.h>

static int alnum_lower(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? of any length */
static int label_chars(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || !alnum_lower(s[0]) || !alnum_lower(s[n - 1]))
        return 0;
    for (i = 0; i < n; i++)
        if (!alnum_lower(s[i]) && s[i] != '-')
            return 0;
    return 1;
}

static int label_n(const char *s, size_t n)
{
    return n <= NAME_LABEL_MAX && label_chars(s, n);
}

int name_is_dns_label(const char *s)
{
    return label_n(s, strlen(s));
}

/* Labels of label_chars() joined by dots, in one pass: every byte
 * [a-z0-9.-], the first and last [a-z0-9], a dot between two of them
 * (issue 17: every object's name) */
static int subdomain_n(const char *s, size_t n)
{
    size_t i;

    /* the labels of a subdomain have no length limit of their own in
     * apimachinery's regex: only the whole is limited */
    if (n == 0 || n > NAME_SUBDOMAIN_MAX)
        return 0;
    for (i = 0; i < n; i++) {
        if (alnum_lower(s[i]))
            continue;
        if ((s[i] != '-' && s[i] != '.') || i == 0 || i == n - 1)
            return 0;
        if (s[i] == '.' && (!alnum_lower(s[i - 1]) || !alnum_lower(s[i + 1])))
            return 0;
    }
    return 1;
}

int name_is_dns_subdomain(const char *s)
{
    return subdomain_n(s, strlen(s));
}

int name_is_dns_subdomain_n(const char *s, size_t n)
{
    return subdomain_n(s, n);
}

int name_is_dns1035_label(const char *s)
{
    return name_is_dns_label(s) && s[0] >= 'a' && s[0] <= 'z';
}

static int alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
           || (c >= '0' && c <= '9');
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9], at most 63 */
static int qualified_part(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || n > NAME_LABEL_MAX || !alnum(s[0]) || !alnum(s[n - 1]))
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
        return qualified_part(s, strlen(s));
    if (strchr(slash + 1, '/') || slash == s)
        return 0;
    return subdomain_n(s, (size_t)(slash - s))
           && qualified_part(slash + 1, strlen(slash + 1));
}

int name_is_label_value(const char *s)
{
    return !*s || qualified_part(s, strlen(s));
}

void name_mask_trailing_dash(const char *prefix, char *out)
{
    size_t n = strlen(prefix);

    memcpy(out, prefix, n + 1);
    if (n > 1 && prefix[n - 1] == '-') {
        out[n - 2] = 'a';
        out[n - 1] = '\0';
    }
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
    /* the quota name "requests.<name>" must be a label key */
    return subdomain_n(s, dl)
           && qualified_part(slash + 1, strlen(slash + 1))
           && dl + strlen("requests.") <= NAME_SUBDOMAIN_MAX;
}
