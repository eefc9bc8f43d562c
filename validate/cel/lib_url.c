/*
 * lib_url.c - the Kubernetes URL CEL library: url(), isURL(), getScheme(),
 * getHost(), getHostname(), getPort(), getEscapedPath(), getQuery(). As in
 * Kubernetes (Go url.ParseRequestURI) a URL is an absolute URI or an
 * absolute path, without fragment handling. A URL value keeps its validated
 * text; the getters re-split it (cheap, and no allocation to own).
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

struct url_parts {
    const char *scheme; size_t nscheme;
    const char *host; size_t nhost;     /* with port and brackets */
    const char *path; size_t npath;     /* escaped, as written */
    const char *query; size_t nquery;   /* without '?', NULL if none */
    int opaque;                         /* scheme:opaque form */
};

static int is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int hexv(char c)
{
    if (is_digit(c))
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int escapes_ok(const char *s, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        if (s[i] != '%')
            continue;
        if (i + 2 >= n || hexv(s[i + 1]) < 0 || hexv(s[i + 2]) < 0)
            return 0;
        i += 2;
    }
    return 1;
}

/* Go url.ParseRequestURI, reduced to what the getters need. 0 or -1. */
static int url_split(const char *s, size_t n, struct url_parts *u)
{
    size_t i, rest = 0, q;

    memset(u, 0, sizeof(*u));
    if (n == 0)
        return -1;
    for (i = 0; i < n; i++) {
        if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
            return -1;
    }
    /* scheme */
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (is_alpha(c))
            continue;
        if (is_digit(c) || c == '+' || c == '-' || c == '.') {
            if (i == 0)
                break;
            continue;
        }
        if (c == ':') {
            if (i == 0)
                return -1;      /* missing protocol scheme */
            u->scheme = s;
            u->nscheme = i;
            rest = i + 1;
        }
        break;
    }
    q = rest;
    while (q < n && s[q] != '?')
        q++;
    if (q < n) {
        u->query = s + q + 1;
        u->nquery = n - q - 1;
    }
    if (rest >= q || s[rest] != '/') {
        if (u->scheme) {
            u->opaque = 1;
            return 0;
        }
        return -1;              /* invalid URI for request */
    }
    if (u->scheme && q - rest >= 2 && s[rest + 1] == '/') {
        size_t h = rest + 2, e = h, colon;
        while (e < q && s[e] != '/')
            e++;
        u->host = s + h;
        u->nhost = e - h;
        /* drop userinfo */
        for (i = e; i > h; i--) {
            if (s[i - 1] == '@') {
                u->host = s + i;
                u->nhost = e - i;
                break;
            }
        }
        if (u->nhost && u->host[0] == '[') {
            const char *rb = memchr(u->host, ']', u->nhost);
            if (!rb)
                return -1;
            colon = (size_t)(rb - u->host) + 1;
            if (colon < u->nhost && u->host[colon] != ':')
                return -1;
        } else {
            const char *c = memchr(u->host, ':', u->nhost);
            colon = c ? (size_t)(c - u->host) : u->nhost;
        }
        for (i = colon + 1; i < u->nhost; i++) {
            if (!is_digit(u->host[i]))
                return -1;      /* invalid port */
        }
        if (!escapes_ok(u->host, u->nhost))
            return -1;
        rest = e;
    }
    u->path = s + rest;
    u->npath = q - rest;
    if (!escapes_ok(u->path, u->npath))
        return -1;
    return 0;
}

F(f_url)
{
    struct url_parts u;
    struct cel_value v;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    if (url_split(a[0].v.s.p, a[0].v.s.n, &u) < 0)
        return cel_verr(ev, "URL parse error during conversion from string: "
                        "'%.*s'", (int)a[0].v.s.n, a[0].v.s.p);
    v = a[0];
    v.kind = CEL_V_URL;
    return v;
}

F(f_is_url)
{
    struct url_parts u;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    return cel_vbool(url_split(a[0].v.s.p, a[0].v.s.n, &u) == 0);
}

static int parts(const struct cel_value *v, struct url_parts *u)
{
    return v->kind == CEL_V_URL && url_split(v->v.s.p, v->v.s.n, u) == 0;
}

F(f_scheme)
{
    struct url_parts u;
    char *p;
    size_t i;

    (void)na;
    if (!parts(&a[0], &u))
        return cel_no_overload(ev, n, a, 1);
    p = cel_ev_alloc(ev, u.nscheme + 1);
    for (i = 0; i < u.nscheme; i++) {
        char c = u.scheme[i];
        p[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
    }
    p[u.nscheme] = 0;
    return cel_vstr(p, u.nscheme);
}

F(f_host)
{
    struct url_parts u;

    (void)na;
    if (!parts(&a[0], &u))
        return cel_no_overload(ev, n, a, 1);
    return cel_vstr(u.host ? u.host : "", u.nhost);
}

/* hostname and port, as Go's URL.Hostname() / Port() */
static void host_port(const struct url_parts *u, const char **h, size_t *hn,
                      const char **p, size_t *pn)
{
    const char *s = u->host;
    size_t n = u->nhost;
    const char *c;

    *h = s ? s : "";
    *hn = n;
    *p = "";
    *pn = 0;
    if (!s)
        return;
    if (n && s[0] == '[') {
        const char *rb = memchr(s, ']', n);
        if (rb) {
            *h = s + 1;
            *hn = (size_t)(rb - s) - 1;
            if ((size_t)(rb - s) + 1 < n && rb[1] == ':') {
                *p = rb + 2;
                *pn = n - (size_t)(rb - s) - 2;
            }
        }
        return;
    }
    c = memchr(s, ':', n);
    if (c) {
        *hn = (size_t)(c - s);
        *p = c + 1;
        *pn = n - (size_t)(c - s) - 1;
    }
}

F(f_hostname)
{
    struct url_parts u;
    const char *h, *p;
    size_t hn, pn;

    (void)na;
    if (!parts(&a[0], &u))
        return cel_no_overload(ev, n, a, 1);
    host_port(&u, &h, &hn, &p, &pn);
    return cel_vstr(h, hn);
}

F(f_port)
{
    struct url_parts u;
    const char *h, *p;
    size_t hn, pn;

    (void)na;
    if (!parts(&a[0], &u))
        return cel_no_overload(ev, n, a, 1);
    host_port(&u, &h, &hn, &p, &pn);
    return cel_vstr(p, pn);
}

F(f_path)
{
    struct url_parts u;

    (void)na;
    if (!parts(&a[0], &u))
        return cel_no_overload(ev, n, a, 1);
    return cel_vstr(u.path ? u.path : "", u.npath);
}

/* query unescaping: %XX and '+' -> ' '; returns -1 on a bad escape */
static int unescape(struct cel_eval *ev, const char *s, size_t n,
                    struct cel_value *out)
{
    char *d = cel_ev_alloc(ev, n + 1);
    size_t i, o = 0;

    for (i = 0; i < n; i++) {
        if (s[i] == '+') {
            d[o++] = ' ';
        } else if (s[i] == '%') {
            if (i + 2 >= n || hexv(s[i + 1]) < 0 || hexv(s[i + 2]) < 0)
                return -1;
            d[o++] = (char)(hexv(s[i + 1]) * 16 + hexv(s[i + 2]));
            i += 2;
        } else {
            d[o++] = s[i];
        }
    }
    d[o] = 0;
    *out = cel_vstr(d, o);
    return 0;
}

F(f_query)
{
    struct url_parts u;
    struct cel_value *keys, *vals, r;
    struct cel_map *m;
    size_t cnt = 1, i, k = 0, start;

    (void)na;
    if (!parts(&a[0], &u))
        return cel_no_overload(ev, n, a, 1);
    for (i = 0; i < u.nquery; i++)
        cnt += u.query[i] == '&';
    keys = (struct cel_value *)cel_ev_alloc(ev, cnt * sizeof(*keys));
    vals = (struct cel_value *)cel_ev_alloc(ev, cnt * sizeof(*vals));
    start = 0;
    for (i = 0; u.query && i <= u.nquery; i++) {
        const char *pair;
        size_t pn, j;
        const char *eq;
        struct cel_value kv, vv;
        if (i < u.nquery && u.query[i] != '&')
            continue;
        pair = u.query + start;
        pn = i - start;
        start = i + 1;
        if (pn == 0 || memchr(pair, ';', pn))
            continue;
        eq = memchr(pair, '=', pn);
        if (unescape(ev, pair, eq ? (size_t)(eq - pair) : pn, &kv) < 0 ||
            unescape(ev, eq ? eq + 1 : "", eq ? pn - (size_t)(eq - pair) - 1
                                              : 0, &vv) < 0)
            continue;
        for (j = 0; j < k; j++) {
            if (cel_value_equal(&keys[j], &kv) == 1)
                break;
        }
        if (j == k) {
            keys[k] = kv;
            vals[k] = cel_vlist(ev, NULL, 0);
            k++;
        }
        {
            const struct cel_list *old = vals[j].v.l;
            struct cel_value *items = (struct cel_value *)cel_ev_alloc(
                ev, (old->n + 1) * sizeof(*items));
            if (old->n)
                memcpy(items, old->v, old->n * sizeof(*items));
            items[old->n] = vv;
            vals[j] = cel_vlist(ev, items, old->n + 1);
        }
    }
    m = (struct cel_map *)cel_ev_alloc(ev, sizeof(*m));
    m->n = k;
    m->k = keys;
    m->v = vals;
    memset(&r, 0, sizeof(r));
    r.kind = CEL_V_MAP;
    r.v.m = m;
    return r;
}

const struct cel_func cel_lib_url[] = {
    { "url",
      "string_to_url:(string)->url",
      0, f_url },
    { "isURL",
      "is_url_string:(string)->bool",
      0, f_is_url },
    { "getScheme",
      "url_get_scheme:url.()->string",
      0, f_scheme },
    { "getHost",
      "url_get_host:url.()->string",
      0, f_host },
    { "getHostname",
      "url_get_hostname:url.()->string",
      0, f_hostname },
    { "getPort",
      "url_get_port:url.()->string",
      0, f_port },
    { "getEscapedPath",
      "url_get_escaped_path:url.()->string",
      0, f_path },
    { "getQuery",
      "url_get_query:url.()->map(string,list(string))",
      0, f_query },
};
const size_t cel_lib_url_n = sizeof(cel_lib_url) / sizeof(cel_lib_url[0]);
