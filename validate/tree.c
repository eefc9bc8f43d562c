/*
 * tree.c - lookups, scalar type resolution and path rendering for the
 * document tree. Loading lives in load_yaml.c and load_json.c.
 */
#include "tree.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "limits.h"
#include "strmap.h"
#include "xalloc.h"

const struct tnode *tree_get(const struct tnode *n, const char *key)
{
    size_t i;

    if (!n || n->kind != T_MAP)
        return NULL;
    for (i = 0; i < n->n; i++)
        if (n->kids[i]->key[0] == key[0]
            && strcmp(n->kids[i]->key, key) == 0)
            return n->kids[i];
    return NULL;
}

void tree_get_many(const struct tnode *m, const char *const *keys,
                   const struct tnode **got, size_t n)
{
    size_t i, k;

    for (k = 0; k < n; k++)
        got[k] = NULL;
    if (!m || m->kind != T_MAP)
        return;
    for (i = 0; i < m->n; i++) {
        const char *key = m->kids[i]->key;
        for (k = 0; k < n; k++)
            if (keys[k][0] == key[0] && !strcmp(keys[k], key)) {
                got[k] = m->kids[i];
                break;
            }
    }
}

int tree_same(const struct tnode *a, const struct tnode *b,
              const char *const *ignore)
{
    size_t i, j, na = 0, nb = 0;

    if (!a || !b)
        return a == b;
    if (a->kind != b->kind)
        return 0;
    if (a->kind == T_SEQ) {
        if (a->n != b->n)
            return 0;
        for (i = 0; i < a->n; i++)
            if (!tree_same(a->kids[i], b->kids[i], NULL))
                return 0;
        return 1;
    }
    if (a->kind != T_MAP)
        return a->kind == T_NULL || !strcmp(a->str ? a->str : "",
                                            b->str ? b->str : "");
    for (i = 0; i < a->n; i++) {
        const char *k = a->kids[i]->key;
        for (j = 0; ignore && ignore[j] && strcmp(ignore[j], k); j++)
            ;
        if (ignore && ignore[j])
            continue;
        na++;
        if (!tree_same(a->kids[i], tree_get(b, k), NULL))
            return 0;
    }
    for (i = 0; i < b->n; i++) {
        for (j = 0; ignore && ignore[j] && strcmp(ignore[j], b->kids[i]->key);
             j++)
            ;
        if (!(ignore && ignore[j]))
            nb++;
    }
    return na == nb;
}

const struct tnode *tree_at(const struct tnode *n, const char *dotted)
{
    char part[128];
    const char *p = dotted, *dot;

    while (n && *p) {
        size_t len;
        dot = strchr(p, '.');
        len = dot ? (size_t)(dot - p) : strlen(p);
        if (len >= sizeof(part))
            return NULL;
        memcpy(part, p, len);
        part[len] = '\0';
        n = tree_get(n, part);
        p += len;
        if (*p == '.')
            p++;
    }
    return n;
}

const char *tree_str(const struct tnode *n)
{
    return n && n->kind == T_STR ? n->str : NULL;
}

const char *tree_text(const struct tnode *n)
{
    if (!n)
        return NULL;
    switch ((enum tkind)n->kind) {
    case T_BOOL: case T_INT: case T_FLOAT: case T_STR:
        return n->str;
    case T_NULL: case T_MAP: case T_SEQ:
        return NULL;
    }
    return NULL;
}

int tree_is_map(const struct tnode *n) { return n && n->kind == T_MAP; }
int tree_is_seq(const struct tnode *n) { return n && n->kind == T_SEQ; }

int tree_is_scalar(const struct tnode *n)
{
    return n && n->kind != T_MAP && n->kind != T_SEQ && n->kind != T_NULL;
}

int tree_true(const struct tnode *n)
{
    return n && n->kind == T_BOOL && n->boolean;
}

int tree_int(const struct tnode *n, long long *out)
{
    if (!n)
        return -1;
    if (n->kind == T_INT && !(n->flags & TF_UINT)) {
        *out = n->ival;
        return 0;
    }
    /* 2^63 is exact in a double; [-2^63, 2^63) converts without overflow */
    if (n->kind == T_FLOAT && n->fval == floor(n->fval)
        && n->fval >= -9223372036854775808.0
        && n->fval < 9223372036854775808.0) {
        *out = (long long)n->fval;
        return 0;
    }
    return -1;
}

const char *tree_kind_name(const struct tnode *n)
{
    if (!n)
        return "nothing";
    switch ((enum tkind)n->kind) {
    case T_NULL: return "null";
    case T_BOOL: return "boolean";
    case T_INT: return "integer";
    case T_FLOAT: return "number";
    case T_STR: return "string";
    case T_MAP: return "mapping";
    case T_SEQ: return "sequence";
    }
    return "value";
}

const char *tree_kind_desc(const struct tnode *n)
{
    if (!n)
        return "nothing";
    switch ((enum tkind)n->kind) {
    case T_NULL: return "null";
    case T_BOOL: return "a boolean";
    case T_INT: return "an integer";
    case T_FLOAT: return "a number";
    case T_STR: return "a string";
    case T_MAP: return "a mapping";
    case T_SEQ: return "a sequence";
    }
    return "a value";
}

static const char *clone_str(struct arena *a, struct strmap *intern,
                             const char *s)
{
    if (!*s)
        return "";
    return intern ? strmap_intern(intern, s) : arena_strdup(a, s);
}

static struct tnode *clone_at(struct arena *a, struct strmap *intern,
                              const struct tnode *src,
                              const struct tnode *parent, int depth)
{
    struct tnode *n = tree_new(a, T_NULL, 0, 0);
    size_t i;

    *n = *src;
    n->parent = parent;
    if (src->key)
        n->key = clone_str(a, intern, src->key);
    n->str = clone_str(a, intern, src->str);
    if (src->n) {
        n->kids = tree_kids_new(a, src->n);
        for (i = 0; i < src->n; i++)
            n->kids[i] = depth < 512
                         ? clone_at(a, intern, src->kids[i], n, depth + 1)
                         : tree_new(a, T_NULL, 0, 0);
    }
    return n;
}

struct tnode *tree_clone(struct arena *a, struct strmap *intern,
                         const struct tnode *n)
{
    return clone_at(a, intern, n, NULL, 0);
}

struct tnode **tree_kids_new(struct arena *a, size_t n)
{
    if (n > SIZE_MAX / sizeof(struct tnode *))
        xalloc_die(n);
    return arena_alloc_aligned(a, n * sizeof(struct tnode *),
                               _Alignof(struct tnode *));
}

struct tnode *tree_new(struct arena *a, enum tkind kind, unsigned line,
                       unsigned col)
{
    struct tnode *n = arena_alloc_aligned(a, sizeof(*n),
                                          _Alignof(struct tnode));

    n->kind = (unsigned char)kind;
    n->line = line;
    n->col = col;
    n->str = "";
    return n;
}

/* ==== go-yaml v2 resolution (RESOLVE.md; go-yaml resolve.go) ============= */

/* What a text resolves to, as go-yaml's resolve() returns it */
enum rtag { R_STR, R_BOOL, R_INT, R_FLOAT, R_NULL, R_TIMESTAMP };

static const char *const rtag_name[] = {
    "!!str", "!!bool", "!!int", "!!float", "!!null", "!!timestamp"
};

struct resolved {
    enum rtag tag;
    long long ival;
    unsigned long long uval;    /* R_INT past INT64_MAX */
    int is_uint;
    double fval;
    int boolean;
};

/* resolve.go's exact map: case-sensitive, these spellings only. Rows
 * with the same first byte stand together: map_from finds them. */
static const struct {
    const char *spelling;
    enum rtag tag;
    int sign;           /* R_BOOL: the value; R_FLOAT: 0 NaN, +1, -1 Inf */
} resolve_table[] = {
    {"y", R_BOOL, 1}, {"yes", R_BOOL, 1},                       /* 0 */
    {"Y", R_BOOL, 1}, {"Yes", R_BOOL, 1}, {"YES", R_BOOL, 1},   /* 2 */
    {"true", R_BOOL, 1},                                        /* 5 */
    {"True", R_BOOL, 1}, {"TRUE", R_BOOL, 1},                   /* 6 */
    {"on", R_BOOL, 1}, {"off", R_BOOL, 0},                      /* 8 */
    {"On", R_BOOL, 1}, {"ON", R_BOOL, 1},                       /* 10 */
    {"Off", R_BOOL, 0}, {"OFF", R_BOOL, 0},
    {"n", R_BOOL, 0}, {"no", R_BOOL, 0}, {"null", R_NULL, 0},   /* 14 */
    {"N", R_BOOL, 0}, {"No", R_BOOL, 0}, {"NO", R_BOOL, 0},     /* 17 */
    {"Null", R_NULL, 0}, {"NULL", R_NULL, 0},
    {"false", R_BOOL, 0},                                       /* 22 */
    {"False", R_BOOL, 0}, {"FALSE", R_BOOL, 0},                 /* 23 */
    {"", R_NULL, 0},                                            /* 25 */
    {"~", R_NULL, 0},                                           /* 26 */
    {".nan", R_FLOAT, 0}, {".NaN", R_FLOAT, 0}, {".NAN", R_FLOAT, 0},
    {".inf", R_FLOAT, 1}, {".Inf", R_FLOAT, 1}, {".INF", R_FLOAT, 1},
    {"+.inf", R_FLOAT, 1}, {"+.Inf", R_FLOAT, 1}, {"+.INF", R_FLOAT, 1},
    {"-.inf", R_FLOAT, -1}, {"-.Inf", R_FLOAT, -1}, {"-.INF", R_FLOAT, -1},
};

/* 1 + the row where the spellings that start with a byte begin (0: none
 * does): a scalar is resolved per node, and most keys and values start
 * with a byte no spelling has or share it with a few rows only */
static const unsigned char map_from[128] = {
    ['y'] = 1, ['Y'] = 3, ['t'] = 6, ['T'] = 7, ['o'] = 9, ['O'] = 11,
    ['n'] = 15, ['N'] = 18, ['f'] = 23, ['F'] = 24, ['\0'] = 26,
    ['~'] = 27, ['.'] = 28, ['+'] = 34, ['-'] = 37,
};

static int resolve_map(const char *s, struct resolved *r)
{
    const size_t rows = sizeof(resolve_table) / sizeof(resolve_table[0]);
    unsigned char c = (unsigned char)s[0];
    size_t i;

    if (c >= sizeof(map_from) || !map_from[c] || strnlen(s, 6) > 5)
        return 0;       /* longer than every spelling of the map */
    for (i = map_from[c] - 1u;
         i < rows && resolve_table[i].spelling[0] == s[0]; i++) {
        /* the second byte too before the call: "name" and "null" */
        if ((s[0] && resolve_table[i].spelling[1] != s[1])
            || strcmp(s, resolve_table[i].spelling))
            continue;
        r->tag = resolve_table[i].tag;
        r->boolean = resolve_table[i].sign;
        if (r->tag == R_FLOAT)
            r->fval = resolve_table[i].sign ? resolve_table[i].sign
                                              * HUGE_VAL : NAN;
        return 1;
    }
    return 0;
}

/* Go's strconv.ParseUint(s, 0, 64) on text without underscores: a 0x/0o/0b
 * prefix (any case) with at least one digit after it, a leading 0 for
 * octal, else decimal; no sign. 0, or -1 (syntax or range). */
static int go_parse_uint(const char *s, unsigned long long *out)
{
    unsigned base = 10;
    unsigned long long v = 0;

    if (!*s)
        return -1;
    if (s[0] == '0') {
        char c = (char)(s[1] | 0x20);
        if (s[1] && s[2] && (c == 'b' || c == 'o' || c == 'x')) {
            base = c == 'b' ? 2 : c == 'o' ? 8 : 16;
            s += 2;
        } else {
            base = 8;
            s += 1;
        }
    }
    for (; *s; s++) {
        unsigned d;
        char c = *s;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
            d = (unsigned)((c | 0x20) - 'a' + 10);
        else
            return -1;
        if (d >= base)
            return -1;
        if (v > (ULLONG_MAX - d) / base)
            return -1;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

/* Go's strconv.ParseInt(s, 0, 64): an optional sign, then as ParseUint */
static int go_parse_int(const char *s, long long *out)
{
    unsigned long long u;
    int neg = 0;

    if (*s == '+' || *s == '-') {
        neg = *s == '-';
        s++;
    }
    if (go_parse_uint(s, &u) < 0)
        return -1;
    if (neg) {
        if (u > (unsigned long long)LLONG_MAX + 1)
            return -1;
        *out = u == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
                                                      : -(long long)u;
    } else {
        if (u > (unsigned long long)LLONG_MAX)
            return -1;
        *out = (long long)u;
    }
    return 0;
}

/* ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ (resolve.go's
 * yamlStyleFloat) */
static int yaml_style_float(const char *s)
{
    const char *p = s;

    if (*p == '+' || *p == '-')
        p++;
    if (*p == '.') {
        p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    } else {
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
        if (*p == '.') {
            p++;
            while (*p >= '0' && *p <= '9')
                p++;
        }
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-')
            p++;
        if (*p < '0' || *p > '9')
            return 0;
        while (*p >= '0' && *p <= '9')
            p++;
    }
    return *p == '\0';
}

/* Go's strconv.ParseFloat(s, 64) for decimal text (the callers checked the
 * syntax): 0, or -1 when the value is out of range (1e400; an underflow to
 * 0 or a denormal is not an error in Go). */
static int go_parse_float(const char *s, double *out)
{
    char *end;
    double v;

    errno = 0;
    v = strtod(s, &end);
    if (*end)
        return -1;
    if (errno == ERANGE && isinf(v))
        return -1;
    *out = v;
    return 0;
}

/* The text of hint '.' for ParseFloat: "." then digits (underscores only
 * between digits, as Go allows), an optional exponent. */
static int dot_float(const char *in, char *clean, size_t cap)
{
    size_t j = 0;
    const char *p;

    for (p = in; *p; p++) {
        if (*p == '_') {
            if (p == in || p[-1] < '0' || p[-1] > '9' || p[1] < '0'
                || p[1] > '9')
                return 0;
            continue;
        }
        if (j + 1 >= cap)
            return 0;
        clean[j++] = *p;
    }
    clean[j] = '\0';
    return clean[0] == '.' && clean[1] >= '0' && clean[1] <= '9'
           && yaml_style_float(clean);
}

/* "YYYY-M-D" then optional [Tt ]H:M:S[.frac] then, for T/t, Z or +hh:mm
 * (resolve.go's allowedTimestampFormats through Go's time.Parse) */
static int is_timestamp(const char *s)
{
    const char *p = s;
    int i, n, sep;

    for (i = 0; i < 4; i++)
        if (p[i] < '0' || p[i] > '9')
            return 0;
    p += 4;
    for (n = 0; n < 2; n++) {
        if (*p++ != '-')
            return 0;
        for (i = 0; *p >= '0' && *p <= '9'; i++, p++)
            ;
        if (i < 1 || i > 2)
            return 0;
    }
    if (!*p)
        return 1;
    sep = *p;
    if (sep != 'T' && sep != 't' && sep != ' ')
        return 0;
    p++;
    for (n = 0; n < 3; n++) {
        if (n && *p++ != ':')
            return 0;
        for (i = 0; *p >= '0' && *p <= '9'; i++, p++)
            ;
        if (i < 1 || i > 2)
            return 0;
    }
    if (*p == '.') {
        p++;
        for (i = 0; *p >= '0' && *p <= '9'; i++, p++)
            ;
        if (i < 1)
            return 0;
    }
    if (sep == ' ')
        return *p == '\0';
    if (*p == 'Z')
        return p[1] == '\0';
    if (*p != '+' && *p != '-')
        return 0;
    return p[1] >= '0' && p[1] <= '9' && p[2] >= '0' && p[2] <= '9'
           && p[3] == ':' && p[4] >= '0' && p[4] <= '9' && p[5] >= '0'
           && p[5] <= '9' && p[6] == '\0';
}

/* resolve.go's hint of a text's first byte: 'N' (empty), 'S' (sign), 'D'
 * (digit), 'M' (the first byte of a spelling in the map), '.', or 0 for a
 * plain string (most keys and values: decided here, with no call) */
static char resolve_hint(char c)
{
    if (c >= '0' && c <= '9')
        return 'D';
    switch (c) {
    case '\0':
        return 'N';
    case '+':
    case '-':
        return 'S';
    case '.':
        return '.';
    case 'y': case 'Y': case 'n': case 'N': case 't': case 'T':
    case 'f': case 'F': case 'o': case 'O': case '~':
        return 'M';
    default:
        return 0;
    }
}

int tree_plain_is_str(char c)
{
    return !resolve_hint(c);
}

/* resolve.go's resolve(tag, in) for a resolvable tag: what the text is.
 * want: the explicit tag (-1: none; R_STR: "!!str") */
static void resolve_text(const char *in, int want, struct resolved *r)
{
    char hint, clean[128];
    size_t j = 0;
    const char *p;

    r->tag = R_STR;
    if (want == (int)R_STR)
        return;
    hint = resolve_hint(*in);
    if (!hint)
        return;         /* a string: what tree_resolve() reads is set */
    memset(r, 0, sizeof(*r));
    r->tag = R_STR;
    if (hint != 'D' && resolve_map(in, r))
        return;         /* (no spelling starts with a digit) */
    if (hint == '.') {
        double f;
        if (dot_float(in, clean, sizeof(clean))
            && go_parse_float(clean, &f) == 0) {
            r->tag = R_FLOAT;
            r->fval = f;
        }
        return;
    }
    if (hint != 'S' && hint != 'D')
        return;
    if ((want < 0 || want == (int)R_TIMESTAMP) && is_timestamp(in)) {
        r->tag = R_TIMESTAMP;
        return;
    }
    for (p = in; *p; p++) {
        if (*p == '_')
            continue;
        if (j + 1 >= sizeof(clean))
            return;     /* longer than any number: a string */
        clean[j++] = *p;
    }
    clean[j] = '\0';
    if (go_parse_int(clean, &r->ival) == 0) {
        r->tag = R_INT;
        return;
    }
    if (go_parse_uint(clean, &r->uval) == 0) {
        r->tag = R_INT;
        r->is_uint = 1;
        return;
    }
    if (yaml_style_float(clean) && go_parse_float(clean, &r->fval) == 0)
        r->tag = R_FLOAT;
}

#define YAML_TAG "tag:yaml.org,2002:"

int tree_resolve(struct arena *a, struct tnode *n, const char *tag, int plain,
                 const char **why)
{
    static const char *const names[] = {"str", "bool", "int", "float",
        "null", "timestamp"};
    struct resolved r;
    int want = -1;
    size_t i;

    *why = NULL;
    n->kind = T_STR;
    if (!tag) {
        if (!plain)
            return 0;
    } else if (strncmp(tag, YAML_TAG, strlen(YAML_TAG)) != 0) {
        return 0;       /* "!", !local, other schemes: the text */
    } else {
        const char *t = tag + strlen(YAML_TAG);
        if (!strcmp(t, "binary")) {
            size_t len = strlen(n->str);
            struct buf out;
            int rc;
            buf_init(&out, len + 1);
            rc = buf_add_base64(&out, n->str, len, 1);
            if (rc == 0)    /* a NUL byte inside ends the string */
                n->str = arena_strdup(a, out.p);
            buf_release(&out);
            if (rc < 0) {
                *why = "!!binary value contains invalid base64 data";
                return -1;
            }
            return 0;
        }
        for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
            if (!strcmp(t, names[i]))
                want = (int)i;
        if (want < 0)
            return 0;   /* !!set, !!map, !!merge ...: the text */
    }
    resolve_text(n->str, want, &r);
    if (want >= 0 && want != (int)r.tag && want != (int)R_STR) {
        if (want == (int)R_FLOAT && r.tag == R_INT && !r.is_uint) {
            r.tag = R_FLOAT;    /* the one conversion go-yaml allows */
            r.fval = (double)r.ival;
        } else {
            *why = arena_printf(a, "cannot decode %s `%s` as a %s",
                                rtag_name[r.tag], n->str, rtag_name[want]);
            return -1;
        }
    }
    switch (r.tag) {
    case R_STR:
    case R_TIMESTAMP:   /* into interface{}, go-yaml gives back the text */
        n->kind = T_STR;
        break;
    case R_BOOL:
        n->kind = T_BOOL;
        n->boolean = r.boolean;
        break;
    case R_NULL:
        n->kind = T_NULL;
        break;
    case R_INT:
        n->kind = T_INT;
        if (r.is_uint) {
            n->ival = (long long)r.uval;
            n->flags |= TF_UINT;
        } else {
            n->ival = r.ival;
        }
        break;
    case R_FLOAT:
        n->kind = T_FLOAT;
        n->fval = r.fval;
        break;
    }
    return 0;
}

/* ==== JSON text as Go's encoding/json writes it =========================== */

/* Shortest decimal digits that read back as v (as float32 if f32): the
 * digits without trailing zeros in digs, *dp the decimal point position
 * (v = 0.digs x 10^dp). v is finite and not 0. */
static void shortest_digits(double v, int f32, char *digs, int *dp)
{
    char tmp[40], *e;
    int prec, nd = 0;
    size_t i;

    for (prec = 1; prec <= 17; prec++) {
        double back;
        snprintf(tmp, sizeof(tmp), "%.*e", prec - 1, fabs(v));
        back = strtod(tmp, NULL);
        if (f32 ? (float)back == (float)fabs(v) : back == fabs(v))
            break;
    }
    e = strchr(tmp, 'e');
    for (i = 0; tmp + i < e; i++)
        if (tmp[i] != '.')
            digs[nd++] = tmp[i];
    while (nd > 1 && digs[nd - 1] == '0')
        nd--;
    digs[nd] = '\0';
    *dp = (int)strtol(e + 1, NULL, 10) + 1;
}

/* strconv.AppendFloat(v, fmt, -1, f32 ? 32 : 64) for fmt 'f', 'e' and 'g':
 * the shortest digits that read back as v, placed as Go places them */
static void go_format_float(struct buf *b, double v, char fmt, int f32)
{
    char digs[24];
    int dp, nd, i;

    if (signbit(v))
        buf_addc(b, '-');
    if (v == 0) {
        buf_addc(b, '0');
        return;
    }
    shortest_digits(v, f32, digs, &dp);
    nd = (int)strlen(digs);
    if (fmt == 'g') {
        /* shortest 'g' decides with precision 6, as Go's ftoa.go */
        int exp = dp - 1;
        fmt = exp < -4 || exp >= 6 ? 'e' : 'f';
    }
    if (fmt == 'e') {
        int exp = dp - 1;
        buf_addc(b, digs[0]);
        if (nd > 1) {
            buf_addc(b, '.');
            buf_add(b, digs + 1, (size_t)(nd - 1));
        }
        buf_addf(b, "e%c%02d", exp < 0 ? '-' : '+', exp < 0 ? -exp : exp);
        return;
    }
    if (dp <= 0) {
        buf_add(b, "0.", 2);
        for (i = 0; i < -dp; i++)
            buf_addc(b, '0');
        buf_add(b, digs, (size_t)nd);
    } else if (dp >= nd) {
        buf_add(b, digs, (size_t)nd);
        for (i = nd; i < dp; i++)
            buf_addc(b, '0');
    } else {
        buf_add(b, digs, (size_t)dp);
        buf_addc(b, '.');
        buf_add(b, digs + dp, (size_t)(nd - dp));
    }
}

/* encoding/json's floatEncoder: 'f', or 'e' below 1e-6 and from 1e21 on,
 * with the exponent's leading zero dropped (e-07 -> e-7) */
static void json_float(struct buf *b, double v)
{
    double av = fabs(v);
    size_t at = b->len;

    if (av != 0 && (av < 1e-6 || av >= 1e21)) {
        go_format_float(b, v, 'e', 0);
        if (b->len >= at + 4 && b->p[b->len - 4] == 'e'
            && b->p[b->len - 3] == '-' && b->p[b->len - 2] == '0') {
            b->p[b->len - 2] = b->p[b->len - 1];
            b->len--;
            b->p[b->len] = '\0';
        }
        return;
    }
    go_format_float(b, v, 'f', 0);
}

/* a scalar's JSON text into b; -1 for NaN and infinities */
static int scalar_json(struct buf *b, const struct tnode *n)
{
    switch ((enum tkind)n->kind) {
    case T_NULL:
        return buf_adds(b, "null");
    case T_BOOL:
        return buf_adds(b, n->boolean ? "true" : "false");
    case T_INT:
        if (n->flags & TF_JSON)
            return buf_adds(b, n->str);
        if (n->flags & TF_UINT)
            return buf_addf(b, "%llu", (unsigned long long)n->ival);
        return buf_addf(b, "%lld", n->ival);
    case T_FLOAT:
        if (!isfinite(n->fval))
            return -1;
        if (n->flags & TF_JSON)
            return buf_adds(b, n->str);
        json_float(b, n->fval);
        return 0;
    case T_STR:
        return buf_add_json_str_go(b, n->str);
    case T_MAP:
    case T_SEQ:
        return -1;
    }
    return -1;
}

const char *tree_json_text(struct arena *a, const struct tnode *n)
{
    struct buf b;
    const char *out = NULL;

    if (!n)
        return NULL;
    buf_init(&b, LIMIT_SCALAR_BYTES);
    if (scalar_json(&b, n) == 0)
        out = arena_strndup(a, b.p, b.len);
    buf_release(&b);
    return out;
}

const char *tree_json_key(struct arena *a, const struct tnode *k)
{
    struct buf b;
    const char *out;

    switch ((enum tkind)k->kind) {
    case T_STR:
        return k->str;
    case T_NULL:
        return NULL;
    case T_BOOL:
        return k->boolean ? "true" : "false";
    case T_FLOAT:
        if (isnan(k->fval))
            return ".nan";
        if (isinf(k->fval))
            return k->fval > 0 ? ".inf" : "-.inf";
        buf_init(&b, 64);
        go_format_float(&b, k->fval, 'g', 1);
        out = arena_strndup(a, b.p, b.len);
        buf_release(&b);
        return out;
    case T_INT:
        if (k->flags & TF_UINT)
            return arena_printf(a, "%llu", (unsigned long long)k->ival);
        return arena_printf(a, "%lld", k->ival);
    case T_MAP:
    case T_SEQ:
        return NULL;
    }
    return NULL;
}

static int cmp_kids(const void *x, const void *y)
{
    const struct tnode *const *a = x, *const *b = y;

    return strcmp((*a)->key, (*b)->key);
}

int tree_to_json(struct buf *out, const struct tnode *n, const char **why)
{
    unsigned i;

    *why = NULL;
    if (n->kind == T_SEQ) {
        buf_addc(out, '[');
        for (i = 0; i < n->n; i++) {
            if (i)
                buf_addc(out, ',');
            if (tree_to_json(out, n->kids[i], why) < 0)
                return -1;
        }
        return buf_addc(out, ']');
    }
    if (n->kind == T_MAP) {
        const struct tnode **kids = xmalloc((n->n ? n->n : 1) * sizeof(*kids));
        int rc = 0;
        if (n->n)
            memcpy(kids, n->kids, n->n * sizeof(*kids));
        qsort(kids, n->n, sizeof(*kids), cmp_kids);
        buf_addc(out, '{');
        for (i = 0; i < n->n && rc == 0; i++) {
            if (i)
                buf_addc(out, ',');
            buf_add_json_str_go(out, kids[i]->key);
            buf_addc(out, ':');
            rc = tree_to_json(out, kids[i], why);
        }
        free(kids);
        if (rc < 0)
            return -1;
        return buf_addc(out, '}');
    }
    if (scalar_json(out, n) < 0) {
        if (n->kind == T_FLOAT)
            *why = isnan(n->fval) ? "json: unsupported value: NaN"
                   : n->fval > 0 ? "json: unsupported value: +Inf"
                                 : "json: unsupported value: -Inf";
        else
            *why = "output too large";
        return -1;
    }
    return 0;
}

static int plain_key(const char *k)
{
    if (!*k)
        return 0;
    for (; *k; k++) {
        unsigned char c = (unsigned char)*k;
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
              || (c >= '0' && c <= '9') || c == '_' || c == '-'))
            return 0;
    }
    return 1;
}

char *tree_path(struct arena *a, const struct tnode *root,
                const struct tnode *n)
{
    const struct tnode *chain[256];
    size_t depth = 0, i;
    struct buf b;
    char *out;

    for (; n && n != root && depth < 256; n = n->parent)
        chain[depth++] = n;
    buf_init(&b, LIMIT_PATH_BYTES);
    for (i = depth; i-- > 0;) {
        const struct tnode *c = chain[i];
        if (c->key) {
            if (plain_key(c->key))
                buf_addf(&b, "%s%s", b.len ? "." : "", c->key);
            else
                buf_addf(&b, "[%s]", c->key);
        } else if (c->parent && c->parent->kind == T_SEQ) {
            /* the index is found when a path is rendered (findings only) */
            unsigned k;
            for (k = 0; k < c->parent->n && c->parent->kids[k] != c; k++)
                ;
            buf_addf(&b, "[%u]", k);
        }
    }
    out = arena_strndup(a, b.p, b.len);
    buf_release(&b);
    return out;
}

void tree_pos(const struct tnode *n, unsigned *line, unsigned *col)
{
    *line = 0;
    *col = 0;
    if (!n)
        return;
    if (n->key && n->key_line) {
        *line = n->key_line;
        *col = n->key_col;
    } else {
        *line = n->line;
        *col = n->col;
    }
}
