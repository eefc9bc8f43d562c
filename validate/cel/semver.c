/*
 * semver.c - Semantic Versioning 2.0.0 as the Kubernetes SemverLib uses it
 * (blang/semver): strict parsing of MAJOR.MINOR.PATCH[-PRE][+BUILD], the
 * optional normalization of semver(s, true) (leading 'v', missing minor or
 * patch, leading zeros), ordering with prerelease precedence, formatting.
 * Build metadata is accepted and ignored.
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int is_idchar(char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-';
}

/* one numeric component; strict forbids leading zeros */
static int num(const char *s, size_t n, int strict, uint64_t *out)
{
    size_t i;
    uint64_t v = 0;

    if (n == 0)
        return -1;
    if (strict && n > 1 && s[0] == '0')
        return -1;
    for (i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        if (v > (UINT64_MAX - (uint64_t)(s[i] - '0')) / 10)
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    *out = v;
    return 0;
}

/* dot-separated identifiers; prerelease numeric ids have no leading 0 */
static int ids_ok(const char *s, size_t n, int pre)
{
    size_t i = 0;

    if (n == 0)
        return -1;
    while (i <= n) {
        size_t j = i, k;
        int all_digits = 1;
        while (j < n && s[j] != '.')
            j++;
        if (j == i)
            return -1;
        for (k = i; k < j; k++) {
            if (!is_idchar(s[k]))
                return -1;
            all_digits &= is_digit(s[k]);
        }
        if (pre && all_digits && j - i > 1 && s[i] == '0')
            return -1;
        i = j + 1;
    }
    return 0;
}

int cel_semver_parse(const char *s, size_t n, int normalize,
                     struct cel_semver *out)
{
    size_t i = 0, end, dots[2], nd = 0;
    const char *pre = NULL, *build = NULL;
    size_t npre = 0, nbuild = 0;
    uint64_t parts[3] = { 0, 0, 0 };
    size_t k, start;

    memset(out, 0, sizeof(*out));
    if (normalize && n > 0 && (s[0] == 'v' || s[0] == 'V')) {
        s++;
        n--;
    }
    end = n;
    for (k = 0; k < n; k++) {
        if (s[k] == '-' || s[k] == '+') {
            end = k;
            break;
        }
    }
    if (end < n && s[end] == '-') {
        size_t j = end + 1;
        pre = s + j;
        while (j < n && s[j] != '+')
            j++;
        npre = (size_t)(s + j - pre);
        if (j < n) {
            build = s + j + 1;
            nbuild = n - j - 1;
        }
    } else if (end < n) {
        build = s + end + 1;
        nbuild = n - end - 1;
    }
    if (pre && ids_ok(pre, npre, 1) < 0)
        return -1;
    if (build && ids_ok(build, nbuild, 0) < 0)
        return -1;
    for (k = 0; k < end; k++) {
        if (s[k] == '.') {
            if (nd == 2)
                return -1;
            dots[nd++] = k;
        }
    }
    if (!normalize && nd != 2)
        return -1;
    start = 0;
    for (i = 0; i <= nd; i++) {
        size_t stop = i < nd ? dots[i] : end;
        if (num(s + start, stop - start, !normalize, &parts[i]) < 0)
            return -1;
        start = stop + 1;
    }
    out->major = parts[0];
    out->minor = parts[1];
    out->patch = parts[2];
    out->pre = pre;
    out->npre = npre;
    return 0;
}

int cel_semver_valid(const char *s)
{
    struct cel_semver v;

    return cel_semver_parse(s, strlen(s), 0, &v) == 0;
}

static int cmp_u(uint64_t a, uint64_t b)
{
    return a < b ? -1 : a > b;
}

static int all_digits(const char *s, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return 0;
    }
    return n > 0;
}

int cel_semver_cmp(const struct cel_semver *a, const struct cel_semver *b)
{
    int r = cmp_u(a->major, b->major);
    size_t i = 0, j = 0;

    if (!r)
        r = cmp_u(a->minor, b->minor);
    if (!r)
        r = cmp_u(a->patch, b->patch);
    if (r)
        return r;
    if (!a->npre || !b->npre)
        return a->npre ? -1 : (b->npre ? 1 : 0);
    while (i < a->npre && j < b->npre) {
        size_t ie = i, je = j;
        int an, bn;
        while (ie < a->npre && a->pre[ie] != '.')
            ie++;
        while (je < b->npre && b->pre[je] != '.')
            je++;
        an = all_digits(a->pre + i, ie - i);
        bn = all_digits(b->pre + j, je - j);
        if (an && bn) {
            uint64_t x = 0, y = 0;
            num(a->pre + i, ie - i, 0, &x);
            num(b->pre + j, je - j, 0, &y);
            r = cmp_u(x, y);
        } else if (an != bn) {
            r = an ? -1 : 1;
        } else {
            size_t la = ie - i, lb = je - j, m = la < lb ? la : lb;
            r = memcmp(a->pre + i, b->pre + j, m);
            r = r < 0 ? -1 : (r > 0 ? 1 : cmp_u(la, lb));
        }
        if (r)
            return r;
        i = ie + 1;
        j = je + 1;
    }
    if (i < a->npre)
        return 1;
    if (j < b->npre)
        return -1;
    return 0;
}

void cel_semver_format(const struct cel_semver *v, char *out, size_t outsz)
{
    if (v->npre)
        snprintf(out, outsz, "%llu.%llu.%llu-%.*s",
                 (unsigned long long)v->major, (unsigned long long)v->minor,
                 (unsigned long long)v->patch, (int)v->npre, v->pre);
    else
        snprintf(out, outsz, "%llu.%llu.%llu", (unsigned long long)v->major,
                 (unsigned long long)v->minor, (unsigned long long)v->patch);
}
