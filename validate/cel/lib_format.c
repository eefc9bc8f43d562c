/*
 * lib_format.c - the Kubernetes Format CEL library (1.31+): format.named(),
 * format.<name>() for the thirteen named formats, and
 * <Format>.validate(string) -> optional list of messages (none when valid).
 * The name validators and their messages follow apimachinery's
 * IsDNS1123Label / IsDNS1123Subdomain / IsDNS1035Label / IsQualifiedName /
 * IsValidLabelValue; the CRD formats (uri, uuid, byte, date, datetime)
 * follow kube-openapi's strfmt checks. Matching is hand-written (no regex).
 */
#include "cel_internal.h"

#include <stdio.h>
#include <string.h>

enum { FM_DNS1123LABEL, FM_DNS1123SUBDOMAIN, FM_DNS1035LABEL,
       FM_QUALIFIEDNAME, FM_DNS1123LABELPREFIX, FM_DNS1123SUBDOMAINPREFIX,
       FM_DNS1035LABELPREFIX, FM_LABELVALUE, FM_URI, FM_UUID, FM_BYTE,
       FM_DATE, FM_DATETIME, FM_COUNT };

static const char *const fmt_names[FM_COUNT] = {
    "dns1123Label", "dns1123Subdomain", "dns1035Label", "qualifiedName",
    "dns1123LabelPrefix", "dns1123SubdomainPrefix", "dns1035LabelPrefix",
    "labelValue", "uri", "uuid", "byte", "date", "datetime",
};

/* format.go's MaxRegexSize per format: the runtime cost of validate()
 * (uuid and date/datetime: the lengths of kube-openapi's UUIDPattern and
 * DateTimePattern, uri and byte govalidator's estimates) */
static const int fmt_regex_size[FM_COUNT] = {
    30, 60, 30, 60, 30, 60, 30, 40, 1103, 85, 84, 71, 71,
};

int cel_format_max_regex(const struct cel_value *f)
{
    return f->sub < FM_COUNT ? fmt_regex_size[f->sub] : 0;
}

#define DNS1123_LABEL_MSG "a lowercase RFC 1123 label must consist of lower " \
    "case alphanumeric characters or '-', and must start and end with an " \
    "alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for " \
    "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
#define DNS1123_SUB_MSG "a lowercase RFC 1123 subdomain must consist of " \
    "lower case alphanumeric characters, '-' or '.', and must start and " \
    "end with an alphanumeric character (e.g. 'example.com', regex used " \
    "for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]" \
    "([-a-z0-9]*[a-z0-9])?)*')"
#define DNS1035_MSG "a DNS-1035 label must consist of lower case " \
    "alphanumeric characters or '-', start with an alphabetic character, " \
    "and end with an alphanumeric character (e.g. 'my-name',  or " \
    "'abc-123', regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')"
#define QNAME_MSG "must consist of alphanumeric characters, '-', '_' or " \
    "'.', and must start and end with an alphanumeric character (e.g. " \
    "'MyName',  or 'my.name',  or '123-abc', regex used for validation is " \
    "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"
#define LABEL_VALUE_MSG "a valid label must be an empty string or consist " \
    "of alphanumeric characters, '-', '_' or '.', and must start and end " \
    "with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or " \
    "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?" \
    "[A-Za-z0-9])?')"

struct msgs { const char *m[4]; char buf[2][96]; int n; };

static void add(struct msgs *o, const char *m)
{
    if (o->n < 4)
        o->m[o->n++] = m;
}

static int lower_alnum(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int alnum(char c)
{
    return lower_alnum(c) || (c >= 'A' && c <= 'Z');
}

/* [a-z0-9]([-a-z0-9]*[a-z0-9])? (first_alpha: [a-z] first) */
static int is_label(const char *s, size_t n, int first_alpha)
{
    size_t i;

    if (n == 0)
        return 0;
    if (first_alpha ? !(s[0] >= 'a' && s[0] <= 'z') : !lower_alnum(s[0]))
        return 0;
    if (!lower_alnum(s[n - 1]))
        return 0;
    for (i = 0; i < n; i++) {
        if (!lower_alnum(s[i]) && s[i] != '-')
            return 0;
    }
    return 1;
}

static int is_subdomain(const char *s, size_t n)
{
    size_t i = 0;

    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != '.')
            j++;
        if (!is_label(s + i, j - i, 0))
            return 0;
        i = j + 1;
    }
    return 1;
}

/* ([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9] */
static int is_qname_part(const char *s, size_t n)
{
    size_t i;

    if (n == 0 || !alnum(s[0]) || !alnum(s[n - 1]))
        return 0;
    for (i = 0; i < n; i++) {
        if (!alnum(s[i]) && s[i] != '-' && s[i] != '_' && s[i] != '.')
            return 0;
    }
    return 1;
}

static void dns_label(struct msgs *o, const char *s, size_t n, int prefix,
                      int rfc1035)
{
    char tmp[300];

    if (prefix && n > 1 && s[n - 1] == '-' && n < sizeof(tmp)) {
        memcpy(tmp, s, n);
        tmp[n - 1] = 'a';       /* apimachinery's maskTrailingDash */
        s = tmp;
    }
    if (n > 63)
        add(o, "must be no more than 63 characters");
    if (!is_label(s, n, rfc1035))
        add(o, rfc1035 ? DNS1035_MSG : DNS1123_LABEL_MSG);
}

static void dns_subdomain(struct msgs *o, const char *s, size_t n,
                          int prefix, const char *lead, int slot)
{
    char tmp[300];

    if (prefix && n > 1 && s[n - 1] == '-' && n < sizeof(tmp)) {
        memcpy(tmp, s, n);
        tmp[n - 1] = 'a';
        s = tmp;
    }
    if (n > 253) {
        snprintf(o->buf[slot], sizeof(o->buf[slot]), "%smust be no more "
                 "than 253 characters", lead);
        add(o, o->buf[slot]);
    }
    if (!is_subdomain(s, n))
        add(o, *lead ? "prefix part " DNS1123_SUB_MSG : DNS1123_SUB_MSG);
}

static void qualified_name(struct msgs *o, const char *s, size_t n)
{
    const char *slash = memchr(s, '/', n);
    const char *name = s;
    size_t nn = n;

    if (slash && memchr(slash + 1, '/', n - (size_t)(slash - s) - 1)) {
        add(o, "a qualified name " QNAME_MSG " with an optional DNS "
            "subdomain prefix and '/' (e.g. 'example.com/MyName')");
        return;
    }
    if (slash) {
        size_t pn = (size_t)(slash - s);
        if (pn == 0)
            add(o, "prefix part must be non-empty");
        else
            dns_subdomain(o, s, pn, 0, "prefix part ", 0);
        name = slash + 1;
        nn = n - pn - 1;
    }
    if (nn == 0)
        add(o, "name part must be non-empty");
    else if (nn > 63)
        add(o, "name part must be no more than 63 characters");
    if (!is_qname_part(name, nn))
        add(o, "name part " QNAME_MSG);
}

static int hexd(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
           (c >= 'A' && c <= 'F');
}

static int is_uuid(const char *s, size_t n)
{
    size_t i;

    if (n == 32) {
        for (i = 0; i < n; i++) {
            if (!hexd(s[i]))
                return 0;
        }
        return 1;
    }
    if (n != 36)
        return 0;
    for (i = 0; i < n; i++) {
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (s[i] != '-')
                return 0;
        } else if (!hexd(s[i])) {
            return 0;
        }
    }
    return 1;
}

static int is_base64(const char *s, size_t n)
{
    size_t i, pad = 0;

    if (n % 4)
        return 0;
    for (i = 0; i < n; i++) {
        char c = s[i];
        if (c == '=') {
            pad++;
            continue;
        }
        if (pad || !(alnum(c) || c == '+' || c == '/'))
            return 0;
    }
    return pad <= 2;
}

static int is_date(const char *s, size_t n)
{
    static const int mdays[] = { 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30,
                                 31 };
    int y = 0, m, d, i;

    if (n != 10 || s[4] != '-' || s[7] != '-')
        return 0;
    for (i = 0; i < 10; i++) {
        if (i != 4 && i != 7 && !(s[i] >= '0' && s[i] <= '9'))
            return 0;
    }
    for (i = 0; i < 4; i++)
        y = y * 10 + (s[i] - '0');
    m = (s[5] - '0') * 10 + (s[6] - '0');
    d = (s[8] - '0') * 10 + (s[9] - '0');
    if (m < 1 || m > 12 || d < 1 || d > mdays[m - 1])
        return 0;
    if (m == 2 && d == 29 && !(y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)))
        return 0;
    return 1;
}

/* the URL check of lib_url.c, through its public function table entry */
static int is_uri(struct cel_eval *ev, const struct cel_node *n,
                  const struct cel_value *s)
{
    const struct cel_func *f = cel_func_lookup("isURL", 5);
    struct cel_value r;

    if (!f)
        return 0;
    r = f->impl(ev, n, s, 1);
    return r.kind == CEL_V_BOOL && r.v.b;
}

static int is_datetime(struct cel_eval *ev, const struct cel_node *n,
                       const struct cel_value *s)
{
    const struct cel_func *f = cel_func_lookup("timestamp", 9);
    struct cel_value r;

    if (!f)
        return 0;
    r = f->impl(ev, n, s, 1);
    return r.kind == CEL_V_TIMESTAMP;
}

F(f_validate)
{
    struct msgs o;
    const char *s = a[1].v.s.p;
    size_t len = a[1].v.s.n;
    struct cel_value *items, list;
    int i;

    (void)na;
    if (a[0].kind != CEL_V_FORMAT || a[1].kind != CEL_V_STRING)
        return cel_verr(ev, "no such overload: validate");
    memset(&o, 0, sizeof(o));
    switch (a[0].sub) {
    case FM_DNS1123LABEL: dns_label(&o, s, len, 0, 0); break;
    case FM_DNS1123LABELPREFIX: dns_label(&o, s, len, 1, 0); break;
    case FM_DNS1035LABEL: dns_label(&o, s, len, 0, 1); break;
    case FM_DNS1035LABELPREFIX: dns_label(&o, s, len, 1, 1); break;
    case FM_DNS1123SUBDOMAIN: dns_subdomain(&o, s, len, 0, "", 0); break;
    case FM_DNS1123SUBDOMAINPREFIX: dns_subdomain(&o, s, len, 1, "", 0);
        break;
    case FM_QUALIFIEDNAME: qualified_name(&o, s, len); break;
    case FM_LABELVALUE:
        if (len > 63)
            add(&o, "must be no more than 63 characters");
        if (len && !is_qname_part(s, len))
            add(&o, LABEL_VALUE_MSG);
        break;
    case FM_URI:
        if (!is_uri(ev, n, &a[1]))
            add(&o, "invalid URI for request");
        break;
    case FM_UUID:
        if (!is_uuid(s, len))
            add(&o, "does not match the UUID format");
        break;
    case FM_BYTE:
        if (!is_base64(s, len))
            add(&o, "invalid base64");
        break;
    case FM_DATE:
        if (!is_date(s, len))
            add(&o, "invalid date");
        break;
    default:
        if (!is_datetime(ev, n, &a[1]))
            add(&o, "invalid datetime");
        break;
    }
    if (o.n == 0)
        return cel_vopt(ev, NULL);
    items = (struct cel_value *)cel_ev_alloc(ev, (size_t)o.n *
                                             sizeof(*items));
    for (i = 0; i < o.n; i++) {
        size_t l = strlen(o.m[i]);
        char *p = cel_ev_alloc(ev, l + 1);
        memcpy(p, o.m[i], l + 1);
        items[i] = cel_vstr(p, l);
    }
    list = cel_vlist(ev, items, (size_t)o.n);
    return cel_vopt(ev, &list);
}

static struct cel_value format_value(int k)
{
    struct cel_value v;

    memset(&v, 0, sizeof(v));
    v.kind = CEL_V_FORMAT;
    v.sub = (unsigned char)k;
    return v;
}

F(f_named)
{
    int k;

    (void)n;
    (void)na;
    if (a[0].kind != CEL_V_STRING)
        return cel_verr(ev, "no such overload: format.named");
    for (k = 0; k < FM_COUNT; k++) {
        if (strlen(fmt_names[k]) == a[0].v.s.n &&
            memcmp(fmt_names[k], a[0].v.s.p, a[0].v.s.n) == 0) {
            struct cel_value v = format_value(k);
            return cel_vopt(ev, &v);
        }
    }
    return cel_vopt(ev, NULL);
}

/* format.<name>(): the function name selects the format */
F(f_const)
{
    int k;

    (void)a;
    (void)na;
    for (k = 0; k < FM_COUNT; k++) {
        size_t l = strlen(fmt_names[k]);
        if (n->name_len == l + 7 && memcmp(n->name + 7, fmt_names[k], l) == 0)
            return format_value(k);
    }
    return cel_verr(ev, "unknown format '%.*s'", (int)n->name_len, n->name);
}

const struct cel_func cel_lib_format[] = {
    { "format.named",
      "format-named:(string)->opt(format)",
      0, f_named },
    { "validate",
      "format-validate:format.(string)->opt(list(string))",
      0, f_validate },
    { "format.dns1123Label",
      "format.dns1123Label:()->format",
      0, f_const },
    { "format.dns1123Subdomain",
      "format.dns1123Subdomain:()->format",
      0, f_const },
    { "format.dns1035Label",
      "format.dns1035Label:()->format",
      0, f_const },
    { "format.qualifiedName",
      "format.qualifiedName:()->format",
      0, f_const },
    { "format.dns1123LabelPrefix",
      "format.dns1123LabelPrefix:()->format",
      0, f_const },
    { "format.dns1123SubdomainPrefix",
      "format.dns1123SubdomainPrefix:()->format",
      0, f_const },
    { "format.dns1035LabelPrefix",
      "format.dns1035LabelPrefix:()->format",
      0, f_const },
    { "format.labelValue",
      "format.labelValue:()->format",
      0, f_const },
    { "format.uri",
      "format.uri:()->format",
      0, f_const },
    { "format.uuid",
      "format.uuid:()->format",
      0, f_const },
    { "format.byte",
      "format.byte:()->format",
      0, f_const },
    { "format.date",
      "format.date:()->format",
      0, f_const },
    { "format.datetime",
      "format.datetime:()->format",
      0, f_const },
};
const size_t cel_lib_format_n =
    sizeof(cel_lib_format) / sizeof(cel_lib_format[0]);
