/*
 * tree.c - lookups, scalar type resolution and path rendering for the
 * document tree. Loading lives in load_yaml.c and load_json.c.
 */
#include "tree.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "buf.h"
#include "limits.h"

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
    if (!n || n->kind != T_INT)
        return -1;
    *out = n->ival;
    return 0;
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

struct tnode *tree_new(struct arena *a, enum tkind kind, unsigned line,
                       unsigned col)
{
    struct tnode *n = arena_alloc(a, sizeof(*n));

    n->kind = (unsigned char)kind;
    n->line = line;
    n->col = col;
    n->str = "";
    return n;
}

/* YAML 1.1 core types as go-yaml v2 (and so sigs.k8s.io/yaml) resolves them */
static int is_one_of(const char *s, const char *const *list)
{
    for (; *list; list++)
        if (strcmp(s, *list) == 0)
            return 1;
    return 0;
}

static int parse_int_text(const char *s, long long *out, int *overflow)
{
    char clean[80];
    size_t j = 0;
    const char *p = s;
    int base = 10, neg = 0;
    char *end;
    unsigned long long v;

    *overflow = 0;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        p++;
    }
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'o')) {
        base = 8;
        p += 2;
    } else if (p[0] == '0' && (p[1] == 'b')) {
        base = 2;
        p += 2;
    } else if (p[0] == '0' && p[1]) {
        base = 8;       /* YAML 1.1 octal: 0755 */
        p += 1;
    }
    if (!*p)
        return -1;
    for (; *p; p++) {
        if (*p == '_')
            continue;
        if (j + 1 >= sizeof(clean))
            return -1;
        clean[j++] = *p;
    }
    clean[j] = '\0';
    for (size_t i = 0; i < j; i++) {
        int d = clean[i];
        int ok = base == 16 ? ((d >= '0' && d <= '9') || (d >= 'a' && d <= 'f')
                               || (d >= 'A' && d <= 'F'))
               : base == 8 ? (d >= '0' && d <= '7')
               : base == 2 ? (d == '0' || d == '1')
               : (d >= '0' && d <= '9');
        if (!ok)
            return -1;
    }
    errno = 0;
    v = strtoull(clean, &end, base);
    if (errno == ERANGE || *end) {
        *overflow = 1;
        return -1;
    }
    if (neg) {
        if (v > (unsigned long long)LLONG_MAX + 1) {
            *overflow = 1;
            return -1;
        }
        *out = v == (unsigned long long)LLONG_MAX + 1 ? LLONG_MIN
                                                      : -(long long)v;
    } else {
        if (v > (unsigned long long)LLONG_MAX) {
            *overflow = 1;
            return -1;
        }
        *out = (long long)v;
    }
    return 0;
}

static int looks_float(const char *s)
{
    const char *p = s;
    int digits = 0, dot = 0, exp = 0;

    if (*p == '+' || *p == '-')
        p++;
    if (!strcmp(p, ".inf") || !strcmp(p, ".Inf") || !strcmp(p, ".INF"))
        return 1;
    for (; *p; p++) {
        if (*p >= '0' && *p <= '9')
            digits++;
        else if (*p == '_' && digits)
            continue;
        else if (*p == '.' && !dot && !exp)
            dot = 1;
        else if ((*p == 'e' || *p == 'E') && digits && !exp) {
            exp = 1;
            if (p[1] == '+' || p[1] == '-')
                p++;
            if (!p[1])
                return 0;
        } else
            return 0;
    }
    return digits > 0 && (dot || exp);
}

void tree_resolve_scalar(struct tnode *n)
{
    static const char *const nulls[] = {"", "~", "null", "Null", "NULL", 0};
    static const char *const trues[] = {"true", "True", "TRUE", "yes", "Yes",
        "YES", "on", "On", "ON", "y", "Y", 0};
    static const char *const falses[] = {"false", "False", "FALSE", "no",
        "No", "NO", "off", "Off", "OFF", "n", "N", 0};
    const char *s = n->str;
    long long iv;
    int overflow;

    n->kind = T_STR;
    if (n->quoted)
        return;
    if (is_one_of(s, nulls)) {
        n->kind = T_NULL;
        return;
    }
    /* go-yaml v2 resolves y/n as strings in practice for map values; only
     * the long forms are booleans there. Keep y/Y/n/N strings. */
    if (is_one_of(s, trues) && strcmp(s, "y") && strcmp(s, "Y")) {
        n->kind = T_BOOL;
        n->boolean = 1;
        return;
    }
    if (is_one_of(s, falses) && strcmp(s, "n") && strcmp(s, "N")) {
        n->kind = T_BOOL;
        n->boolean = 0;
        return;
    }
    if ((s[0] >= '0' && s[0] <= '9') || s[0] == '-' || s[0] == '+'
        || s[0] == '.') {
        if (parse_int_text(s, &iv, &overflow) == 0) {
            n->kind = T_INT;
            n->ival = iv;
            return;
        }
        if (overflow || looks_float(s)) {
            /* an integer beyond int64 becomes a float, as in go-yaml */
            char clean[128];
            size_t j = 0;
            for (const char *p = s; *p && j + 1 < sizeof(clean); p++)
                if (*p != '_')
                    clean[j++] = *p;
            clean[j] = '\0';
            if (strstr(clean, "inf") || strstr(clean, "Inf")
                || strstr(clean, "INF"))
                n->fval = clean[0] == '-' ? -HUGE_VAL : HUGE_VAL;
            else
                n->fval = strtod(clean, NULL);
            n->kind = T_FLOAT;
            return;
        }
        if (!strcmp(s, ".nan") || !strcmp(s, ".NaN") || !strcmp(s, ".NAN")) {
            n->kind = T_FLOAT;
            n->fval = NAN;
        }
    }
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
