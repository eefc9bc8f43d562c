/*
 * lib_net.c - the Kubernetes IP and CIDR CEL libraries (base environment
 * since 1.30): ip(), isIP(), ip.isCanonical(), family(), isUnspecified(),
 * isLoopback(), isLinkLocalMulticast(), isLinkLocalUnicast(),
 * isGlobalUnicast(); cidr(), isCIDR(), containsIP(), containsCIDR(), ip(),
 * masked(), prefixLength(). As in Kubernetes (Go netip), zones and
 * IPv4-mapped IPv6 addresses are rejected; text is RFC 5952 canonical.
 */
#include "cel_internal.h"

#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>

/* 0 ok, -1 invalid, -2 zone, -3 IPv4-mapped */
static int parse_ip(const char *s, size_t n, struct cel_value *out)
{
    char buf[64];

    memset(out, 0, sizeof(*out));
    out->kind = CEL_V_IP;
    if (n == 0 || n >= sizeof(buf))
        return -1;
    memcpy(buf, s, n);
    buf[n] = 0;
    if (memchr(buf, '%', n))
        return -2;
    if (memchr(buf, ':', n)) {
        static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0,
                                                  0, 0xff, 0xff };
        if (inet_pton(AF_INET6, buf, out->v.ip) != 1)
            return -1;
        if (memcmp(out->v.ip, mapped, 12) == 0)
            return -3;
        out->sub = 6;
        return 0;
    }
    if (inet_pton(AF_INET, buf, out->v.ip) != 1)
        return -1;
    out->sub = 4;
    return 0;
}

static struct cel_value ip_err(struct cel_eval *ev, int rc,
                               const struct cel_value *s)
{
    if (rc == -2)
        return cel_verr(ev, "IP address with zone value is not allowed");
    if (rc == -3)
        return cel_verr(ev, "IPv4-mapped IPv6 address is not allowed");
    return cel_verr(ev, "IP Address '%.*s' parse error", (int)s->v.s.n,
                    s->v.s.p);
}

static int parse_cidr(const char *s, size_t n, struct cel_value *out)
{
    const char *slash = memchr(s, '/', n);
    size_t i, bn;
    unsigned bits = 0;
    int rc;

    if (!slash)
        return -1;
    rc = parse_ip(s, (size_t)(slash - s), out);
    if (rc < 0)
        return rc;
    bn = n - (size_t)(slash - s) - 1;
    if (bn == 0 || bn > 3 || (bn > 1 && slash[1] == '0'))
        return -1;
    for (i = 0; i < bn; i++) {
        char c = slash[1 + i];
        if (c < '0' || c > '9')
            return -1;
        bits = bits * 10 + (unsigned)(c - '0');
    }
    if (bits > (out->sub == 4 ? 32u : 128u))
        return -1;
    out->kind = CEL_V_CIDR;
    out->aux = (unsigned short)bits;
    return 0;
}

void cel_net_format(const struct cel_value *v, char *out, size_t outsz)
{
    char tmp[64];
    size_t o = 0;

    if (v->sub == 4) {
        snprintf(tmp, sizeof(tmp), "%u.%u.%u.%u", v->v.ip[0], v->v.ip[1],
                 v->v.ip[2], v->v.ip[3]);
        o = strlen(tmp);
    } else {
        unsigned w[8];
        int i, best = -1, bestlen = 0, run = -1, runlen = 0;
        for (i = 0; i < 8; i++)
            w[i] = (unsigned)(v->v.ip[2 * i] << 8) | v->v.ip[2 * i + 1];
        for (i = 0; i < 8; i++) {
            if (w[i] == 0) {
                if (run < 0) {
                    run = i;
                    runlen = 0;
                }
                runlen++;
                if (runlen > bestlen) {
                    best = run;
                    bestlen = runlen;
                }
            } else {
                run = -1;
            }
        }
        if (bestlen < 2)
            best = -1;
        for (i = 0; i < 8; i++) {
            if (i == best) {
                o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "::");
                i += bestlen - 1;
                continue;
            }
            if (i && !(best >= 0 && i == best + bestlen))
                tmp[o++] = ':';
            o += (size_t)snprintf(tmp + o, sizeof(tmp) - o, "%x", w[i]);
        }
        tmp[o] = 0;
    }
    if (v->kind == CEL_V_CIDR)
        snprintf(out, outsz, "%s/%u", tmp, v->aux);
    else
        snprintf(out, outsz, "%s", tmp);
}

/* ================= IP ================= */

F(f_ip)
{
    struct cel_value v;
    int rc;

    (void)na;
    if (a[0].kind == CEL_V_CIDR) {     /* <CIDR>.ip() */
        v = a[0];
        v.kind = CEL_V_IP;
        v.aux = 0;
        return v;
    }
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    rc = parse_ip(a[0].v.s.p, a[0].v.s.n, &v);
    if (rc < 0)
        return ip_err(ev, rc, &a[0]);
    return v;
}

F(f_is_ip)
{
    struct cel_value v;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    return cel_vbool(parse_ip(a[0].v.s.p, a[0].v.s.n, &v) == 0);
}

F(f_is_canonical)
{
    struct cel_value v;
    char buf[64];
    int rc;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    rc = parse_ip(a[0].v.s.p, a[0].v.s.n, &v);
    if (rc < 0)
        return ip_err(ev, rc, &a[0]);
    cel_net_format(&v, buf, sizeof(buf));
    return cel_vbool(strlen(buf) == a[0].v.s.n &&
                     memcmp(buf, a[0].v.s.p, a[0].v.s.n) == 0);
}

F(f_family)
{
    (void)na;
    if (a[0].kind != CEL_V_IP)
        return cel_no_overload(ev, n, a, 1);
    return cel_vint(a[0].sub);
}

static int is_zero(const unsigned char *p, size_t n)
{
    size_t i;
    for (i = 0; i < n; i++) {
        if (p[i])
            return 0;
    }
    return 1;
}

enum { Q_UNSPEC, Q_LOOP, Q_LLMCAST, Q_LLUCAST, Q_GLOBAL };

static int ip_query(const struct cel_value *v, int q)
{
    const unsigned char *p = v->v.ip;
    int v4 = v->sub == 4;
    int unspec = v4 ? is_zero(p, 4) : is_zero(p, 16);
    int loop = v4 ? p[0] == 127
                  : (is_zero(p, 15) && p[15] == 1);
    int mcast = v4 ? (p[0] & 0xF0) == 0xE0 : p[0] == 0xFF;
    int llm = v4 ? (p[0] == 224 && p[1] == 0 && p[2] == 0)
                 : (p[0] == 0xFF && p[1] == 0x02);
    int llu = v4 ? (p[0] == 169 && p[1] == 254)
                 : (p[0] == 0xFE && (p[1] & 0xC0) == 0x80);
    int bcast = v4 && p[0] == 255 && p[1] == 255 && p[2] == 255 &&
                p[3] == 255;

    switch (q) {
    case Q_UNSPEC: return unspec;
    case Q_LOOP: return loop;
    case Q_LLMCAST: return llm;
    case Q_LLUCAST: return llu;
    default: return !(unspec || loop || mcast || llu || bcast);
    }
}

#define IPQ(fname, q)                                   \
    F(fname)                                            \
    {                                                   \
        (void)na;                                       \
        if (a[0].kind != CEL_V_IP)                      \
            return cel_no_overload(ev, n, a, 1);                    \
        return cel_vbool(ip_query(&a[0], q));           \
    }
IPQ(f_is_unspec, Q_UNSPEC)
IPQ(f_is_loop, Q_LOOP)
IPQ(f_is_llm, Q_LLMCAST)
IPQ(f_is_llu, Q_LLUCAST)
IPQ(f_is_global, Q_GLOBAL)

/* ================= CIDR ================= */

F(f_cidr)
{
    struct cel_value v;
    int rc;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    rc = parse_cidr(a[0].v.s.p, a[0].v.s.n, &v);
    if (rc == -1)
        return cel_verr(ev, "network address parse error during conversion "
                        "from string: '%.*s'", (int)a[0].v.s.n, a[0].v.s.p);
    if (rc < 0)
        return ip_err(ev, rc, &a[0]);
    return v;
}

F(f_is_cidr)
{
    struct cel_value v;

    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_no_overload(ev, n, a, 1);
    return cel_vbool(parse_cidr(a[0].v.s.p, a[0].v.s.n, &v) == 0);
}

static int prefix_contains(const struct cel_value *c, const unsigned char *ip,
                           unsigned bits)
{
    unsigned full = bits / 8, rest = bits % 8;

    if (memcmp(c->v.ip, ip, full) != 0)
        return 0;
    if (rest) {
        unsigned char m = (unsigned char)(0xFF << (8 - rest));
        if ((c->v.ip[full] & m) != (ip[full] & m))
            return 0;
    }
    return 1;
}

F(f_contains_ip)
{
    struct cel_value ip = a[1];

    (void)na;
    if (a[0].kind != CEL_V_CIDR)
        return cel_no_overload(ev, n, a, 2);
    if (ip.kind == CEL_V_STRING) {
        int rc = parse_ip(a[1].v.s.p, a[1].v.s.n, &ip);
        if (rc < 0)
            return ip_err(ev, rc, &a[1]);
    }
    if (ip.kind != CEL_V_IP)
        return cel_no_overload(ev, n, a, 2);
    if (ip.sub != a[0].sub)
        return cel_vbool(0);
    return cel_vbool(prefix_contains(&a[0], ip.v.ip, a[0].aux));
}

F(f_contains_cidr)
{
    struct cel_value o = a[1];

    (void)na;
    if (a[0].kind != CEL_V_CIDR)
        return cel_no_overload(ev, n, a, 2);
    if (o.kind == CEL_V_STRING) {
        int rc = parse_cidr(a[1].v.s.p, a[1].v.s.n, &o);
        if (rc < 0)
            return cel_verr(ev, "network address parse error during "
                            "conversion from string: '%.*s'",
                            (int)a[1].v.s.n, a[1].v.s.p);
    }
    if (o.kind != CEL_V_CIDR)
        return cel_no_overload(ev, n, a, 2);
    if (o.sub != a[0].sub || o.aux < a[0].aux)
        return cel_vbool(0);
    return cel_vbool(prefix_contains(&a[0], o.v.ip, a[0].aux));
}

F(f_masked)
{
    struct cel_value v;
    unsigned i, bits;

    (void)na;
    if (a[0].kind != CEL_V_CIDR)
        return cel_no_overload(ev, n, a, 1);
    v = a[0];
    bits = v.aux;
    for (i = 0; i < 16; i++) {
        if (bits >= 8) {
            bits -= 8;
            continue;
        }
        v.v.ip[i] &= (unsigned char)(bits ? 0xFF << (8 - bits) : 0);
        bits = 0;
    }
    return v;
}

F(f_prefix_len)
{
    (void)na;
    if (a[0].kind != CEL_V_CIDR)
        return cel_no_overload(ev, n, a, 1);
    return cel_vint(a[0].aux);
}

const struct cel_func cel_lib_net[] = {
    { "ip",
      "string_to_ip:(string)->ip cidr_ip:cidr.()->ip",
      0, f_ip },
    { "isIP",
      "is_ip:(string)->bool",
      0, f_is_ip },
    { "ip.isCanonical",
      "ip_is_canonical:(string)->bool",
      0, f_is_canonical },
    { "family",
      "ip_family:ip.()->int",
      0, f_family },
    { "isUnspecified",
      "ip_is_unspecified:ip.()->bool",
      0, f_is_unspec },
    { "isLoopback",
      "ip_is_loopback:ip.()->bool",
      0, f_is_loop },
    { "isLinkLocalMulticast",
      "ip_is_link_local_multicast:ip.()->bool",
      0, f_is_llm },
    { "isLinkLocalUnicast",
      "ip_is_link_local_unicast:ip.()->bool",
      0, f_is_llu },
    { "isGlobalUnicast",
      "ip_is_global_unicast:ip.()->bool",
      0, f_is_global },
    { "cidr",
      "string_to_cidr:(string)->cidr",
      0, f_cidr },
    { "isCIDR",
      "is_cidr:(string)->bool",
      0, f_is_cidr },
    { "containsIP",
      "cidr_contains_ip_string:cidr.(string)->bool "
      "cidr_contains_ip_ip:cidr.(ip)->bool",
      0, f_contains_ip },
    { "containsCIDR",
      "cidr_contains_cidr_string:cidr.(string)->bool "
      "cidr_contains_cidr:cidr.(cidr)->bool",
      0, f_contains_cidr },
    { "masked",
      "cidr_masked:cidr.()->cidr",
      0, f_masked },
    { "prefixLength",
      "cidr_prefix_length:cidr.()->int",
      0, f_prefix_len },
};
const size_t cel_lib_net_n = sizeof(cel_lib_net) / sizeof(cel_lib_net[0]);
