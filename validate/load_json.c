/*
 * load_json.c - JSON text -> document tree in one pass, straight into arena
 * nodes (no intermediate library tree, no malloc but one scratch stack for
 * deep or wide input; the text is copied once and strings are cut out of
 * the copy). This is the webhook's hot path: every AdmissionReview
 * body and every list/watch object from the apiserver goes through here.
 *
 * Strict RFC 8259 as Go's encoding/json reads it (the apiserver's side):
 * no leading zeros, no "1." or ".5", whitespace is space/tab/CR/LF only,
 * one value then only whitespace (or, for a stream, the next value).
 * Kubernetes' decoder choices where the RFC is loose: a duplicate key keeps
 * the LAST value (at the first one's place in key order, flagged TF_DUP),
 * keys are case-sensitive, a number is an integer only when written
 * without fraction or exponent and within int64 (sigs.k8s.io/json's
 * PreserveInts; its literal stays in str). Our own limits: nesting is
 * capped at LIMIT_NEST_DEPTH, strings must be valid UTF-8 without NUL (raw
 * or \u0000) and without lone surrogates and at most LIMIT_SCALAR_BYTES,
 * numbers are at most JSON_NUMBER_MAX characters. Errors name the byte
 * offset, line and column. Positions of nodes are optional (the linter
 * wants them, the webhook's hot path does not): when asked, they are
 * counted on from one node to the next, one more pass over the bytes.
 * tests/unit/test_load_json.c and tests/fuzz/fuzz_json.c check this parser
 * against cJSON (tests/fuzz/json_oracle.c) on every input both accept.
 */
#include "load_json.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "err.h"
#include "limits.h"
#include "tree.h"
#include "xalloc.h"

#define SMALL_MAP 16        /* maps up to this size dedupe by linear scan */
#define JSON_NUMBER_MAX 63  /* characters in one number (cJSON's limit too) */
#define STACK_INLINE 256    /* scratch stack slots before it goes to malloc */
#define NODE_BLOCK 32       /* nodes taken from the arena at a time */
#define STR_(x) #x
#define STR(x) STR_(x)

int utf8_valid(const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + n;

    while (p < end) {
        unsigned c = *p;
        size_t need;
        unsigned cp, min;

        if (c < 0x80) {
            /* ASCII fast path: 8 bytes at a time while no high bit */
            while ((size_t)(end - p) >= 8) {
                uint64_t w;
                memcpy(&w, p, 8);
                if (w & 0x8080808080808080u)
                    break;
                p += 8;
            }
            while (p < end && *p < 0x80)
                p++;
            continue;
        }
        if (c >= 0xc2 && c <= 0xdf) {
            need = 1;
            cp = c & 0x1f;
            min = 0x80;
        } else if (c >= 0xe0 && c <= 0xef) {
            need = 2;
            cp = c & 0x0f;
            min = 0x800;
        } else if (c >= 0xf0 && c <= 0xf4) {
            need = 3;
            cp = c & 0x07;
            min = 0x10000;
        } else {
            return 0;
        }
        if ((size_t)(end - p) <= need)
            return 0;
        for (size_t i = 1; i <= need; i++) {
            if ((p[i] & 0xc0) != 0x80)
                return 0;
            cp = (cp << 6) | (p[i] & 0x3f);
        }
        if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
            return 0;
        p += need + 1;
    }
    return 1;
}

size_t utf8_space_len(const char *s, const char *end)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = (size_t)(end - s);

    if (!n)
        return 0;
    if (u[0] == ' ' || (u[0] >= '\t' && u[0] <= '\r'))
        return 1;
    if (n >= 2 && u[0] == 0xc2 && (u[1] == 0x85 || u[1] == 0xa0))
        return 2;                               /* NEL, NBSP */
    if (n < 3)
        return 0;
    if (u[0] == 0xe1 && u[1] == 0x9a && u[2] == 0x80)
        return 3;                               /* U+1680 */
    if (u[0] == 0xe2 && u[1] == 0x80
        && (u[2] <= 0x8a || u[2] == 0xa8 || u[2] == 0xa9 || u[2] == 0xaf))
        return 3;                   /* U+2000..200A, U+2028/9, U+202F */
    if (u[0] == 0xe2 && u[1] == 0x81 && u[2] == 0x9f)
        return 3;                               /* U+205F */
    if (u[0] == 0xe3 && u[1] == 0x80 && u[2] == 0x80)
        return 3;                               /* U+3000 */
    return 0;
}

/* ---- the parser ------------------------------------------------------- */

struct jp {
    struct arena *a;
    struct err *err;
    const unsigned char *b, *p, *end;
    char *copy;     /* the text copied once: strings are cut out of it */
    unsigned depth;
    const struct json_skip *skip;   /* members checked but not kept */
    unsigned discard;               /* > 0: inside such a member */
    struct tnode scratch;           /* the node of discarded values */
    struct tnode *free_nodes;       /* the rest of the current node block */
    size_t nfree;
    int positions;                  /* nodes get line/col */
    unsigned line0, col0;           /* the position of b */
    const unsigned char *pos_at;    /* pos_of()'s last answer was for... */
    unsigned pos_line, pos_col;     /* ... this line and column */
    unsigned err_line, err_col;     /* where the failure is */
    /* scratch stack of finished kids of the open containers: a container
     * copies its run into an exact-size arena array when it closes */
    struct tnode **stk, *inline_stk[STACK_INLINE];
    size_t top, cap;
};

/* The 1-based line and column (in characters) of at, counted on from the
 * last answer (positions only grow while parsing), so a document costs
 * one more pass over its bytes, and none when positions are off. */
static void pos_of(struct jp *j, const unsigned char *at, unsigned *line,
                   unsigned *col)
{
    const unsigned char *q = j->pos_at;

    for (; q < at; q++) {
        if (*q == '\n') {
            j->pos_line++;
            j->pos_col = 1;
        } else if ((*q & 0xc0) != 0x80) {
            j->pos_col++;
        }
    }
    j->pos_at = q;
    *line = j->pos_line + j->line0 - 1;
    *col = j->pos_col + (j->pos_line == 1 ? j->col0 - 1 : 0);
}

/* -1 with "invalid JSON at byte N (line L, column C): what". Line and
 * column are counted again here, from the start, on the error path only
 * (at may be before the current line). */
static int jp_fail(struct jp *j, const unsigned char *at, const char *what)
{
    const unsigned char *q, *ls = j->b;
    unsigned line = 1, col = 1;

    if (at > j->end)
        at = j->end;
    for (q = j->b; q < at; q++)
        if (*q == '\n') {
            line++;
            ls = q + 1;
        }
    for (q = ls; q < at; q++)
        if ((*q & 0xc0) != 0x80)
            col++;
    j->err_line = line + j->line0 - 1;
    j->err_col = col + (line == 1 ? j->col0 - 1 : 0);
    return err_set(j->err, "invalid JSON at byte %zu (line %u, column %u): "
                   "%s", (size_t)(at - j->b), j->err_line, j->err_col,
                   what);
}

static inline void skip_ws(struct jp *j)
{
    /* every byte above ' ' ends it: most calls return at once */
    while (j->p < j->end && *j->p <= ' '
           && (*j->p == ' ' || *j->p == '\n' || *j->p == '\r'
               || *j->p == '\t'))
        j->p++;
}

static void push(struct jp *j, struct tnode *n)
{
    if (j->top == j->cap) {
        size_t want = j->cap * 2;
        struct tnode **s = j->stk == j->inline_stk ? NULL : j->stk;

        s = xrealloc(s, want * sizeof(*s));
        if (j->stk == j->inline_stk)
            memcpy(s, j->inline_stk, j->top * sizeof(*s));
        j->stk = s;
        j->cap = want;
    }
    j->stk[j->top++] = n;
}

static unsigned hex4(const unsigned char *p)
{
    unsigned v = 0, i;

    for (i = 0; i < 4; i++) {
        unsigned c = p[i], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
            d = (c | 0x20) - 'a' + 10;
        else
            return 0x110000;    /* not hex */
        v = v << 4 | d;
    }
    return v;
}

static char *put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) {
        *o++ = (char)cp;
    } else if (cp < 0x800) {
        *o++ = (char)(0xc0 | cp >> 6);
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xe0 | cp >> 12);
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    } else {
        *o++ = (char)(0xf0 | cp >> 18);
        *o++ = (char)(0x80 | (cp >> 12 & 0x3f));
        *o++ = (char)(0x80 | (cp >> 6 & 0x3f));
        *o++ = (char)(0x80 | (cp & 0x3f));
    }
    return o;
}

/* Decodes escapes of the raw string [s, e) (valid: checked by scan_string)
 * into out, which has room for e - s + 1 bytes: the result is never longer
 * than the source. */
static const char *unescape(char *out, const unsigned char *s,
                            const unsigned char *e)
{
    char *o = out;

    while (s < e) {
        const unsigned char *q = s;
        while (q < e && *q != '\\')
            q++;
        memcpy(o, s, (size_t)(q - s));
        o += q - s;
        if (q >= e)
            break;
        switch (q[1]) {
        case 'b': *o++ = '\b'; break;
        case 'f': *o++ = '\f'; break;
        case 'n': *o++ = '\n'; break;
        case 'r': *o++ = '\r'; break;
        case 't': *o++ = '\t'; break;
        case 'u': {
            unsigned cp = hex4(q + 2);
            if (cp >= 0xd800 && cp <= 0xdbff) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (hex4(q + 8) - 0xdc00);
                q += 6;
            }
            o = put_utf8(o, cp);
            q += 4;
            break;
        }
        default: *o++ = (char)q[1]; break;     /* " \ / */
        }
        s = q + 2;
    }
    *o = '\0';
    return out;
}

/* A string at j->p (the opening quote). *out gets its decoded text. */
static int scan_string(struct jp *j, const char **out)
{
    const unsigned char *s = ++j->p, *p = s, *end = j->end;
    int escaped = 0;

    for (;;) {
        /* plain ASCII content, most of the bytes: 8 at a time while none
         * is '"', '\\', a control character or non-ASCII. The lowest
         * flagged byte of a word is exact (the subtractions only borrow
         * upwards from a flagged byte), so it is where the run ends. */
        while (end - p >= 8) {
            uint64_t w, q, b, m;
            memcpy(&w, p, 8);
            q = w ^ 0x2222222222222222u;
            b = w ^ 0x5c5c5c5c5c5c5c5cu;
            m = (w | ((w - 0x2020202020202020u) & ~w)
                 | ((q - 0x0101010101010101u) & ~q)
                 | ((b - 0x0101010101010101u) & ~b))
                & 0x8080808080808080u;
            if (m) {
                p += __builtin_ctzll(m) >> 3;
                goto stop;
            }
            p += 8;
        }
        while (p < end && *p >= 0x20 && *p < 0x80 && *p != '"' && *p != '\\')
            p++;
stop:
        if (p >= end)
            return jp_fail(j, s - 1, "unterminated string");
        if (*p == '"') {
            if ((size_t)(p - s) > LIMIT_SCALAR_BYTES)
                return jp_fail(j, s - 1, "scalar larger than the 64 MiB "
                               "limit");
            break;
        }
        if (*p == '\\') {
            unsigned cp;
            if (end - p < 2)
                return jp_fail(j, p, "unterminated string");
            escaped = 1;
            if (p[1] != 'u') {
                if (!strchr("\"\\/bfnrt", p[1]) || !p[1])
                    return jp_fail(j, p, "invalid escape in string");
                p += 2;
                continue;
            }
            cp = end - p < 6 ? 0x10000 : hex4(p + 2);
            if (cp > 0xffff)
                return jp_fail(j, p, "invalid \\u escape in string");
            if (cp == 0)
                return jp_fail(j, p, "NUL character (\\u0000) in string");
            if (cp >= 0xdc00 && cp <= 0xdfff)
                return jp_fail(j, p, "lone surrogate in string");
            if (cp >= 0xd800 && cp <= 0xdbff) {
                unsigned lo = end - p < 12 || p[6] != '\\' || p[7] != 'u'
                              ? 0 : hex4(p + 8);
                if (lo < 0xdc00 || lo > 0xdfff)
                    return jp_fail(j, p, "lone surrogate in string");
                p += 6;
            }
            p += 6;
            continue;
        }
        if (*p < 0x20)
            return jp_fail(j, p, "control character in string");
        /* a multi-byte UTF-8 sequence */
        {
            size_t n = *p >= 0xf0 ? 4 : *p >= 0xe0 ? 3 : 2;
            if ((size_t)(end - p) < n || !utf8_valid((const char *)p, n))
                return jp_fail(j, p, "invalid UTF-8 in string");
            p += n;
        }
    }
    /* the parser reads the caller's text; the copy's closing quote (or
     * the bytes before it) are overwritten to end this string */
    if (escaped) {
        *out = unescape(j->copy + (s - j->b), s, p);
    } else {
        j->copy[p - j->b] = '\0';
        *out = j->copy + (s - j->b);
    }
    j->p = p + 1;
    return 0;
}

static int scan_number(struct jp *j, struct tnode *n)
{
    const unsigned char *s = j->p, *p = s, *end = j->end;
    int integral = 1;
    size_t len;
    char tmp[JSON_NUMBER_MAX + 1];

    if (p < end && *p == '-')
        p++;
    if (p >= end || *p < '0' || *p > '9')
        return jp_fail(j, s, "invalid number");
    if (*p == '0')
        p++;
    else
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    if (p < end && *p == '.') {
        integral = 0;
        if (++p >= end || *p < '0' || *p > '9')
            return jp_fail(j, s, "invalid number (digits must follow '.')");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        integral = 0;
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        if (p >= end || *p < '0' || *p > '9')
            return jp_fail(j, s, "invalid number (digits must follow the "
                           "exponent)");
        while (p < end && *p >= '0' && *p <= '9')
            p++;
    }
    len = (size_t)(p - s);
    if (len > JSON_NUMBER_MAX)
        return jp_fail(j, s, "number longer than 63 characters");
    j->p = p;
    n->flags |= TF_JSON;
    /* the common case: an integer of at most 18 digits fits int64 */
    if (integral && len <= 18) {
        long long iv = 0;
        size_t i = s[0] == '-';
        for (; i < len; i++)
            iv = iv * 10 + (s[i] - '0');
        n->kind = T_INT;
        n->ival = s[0] == '-' ? -iv : iv;
        n->str = j->copy + (s - j->b);
        j->copy[p - j->b] = '\0';  /* a delimiter or the copy's NUL */
        return 0;
    }
    memcpy(tmp, s, len);
    tmp[len] = '\0';
    errno = 0;
    if (integral) {
        long long iv = strtoll(tmp, NULL, 10);
        if (errno != ERANGE) {
            n->kind = T_INT;
            n->ival = iv;
        } else {
            integral = 0;
        }
    }
    if (!integral) {
        /* past int64, or with fraction or exponent: a float64, as
         * sigs.k8s.io/json reads it into interface{} */
        n->kind = T_FLOAT;
        n->fval = strtod(tmp, NULL);
        if (!isfinite(n->fval))
            return jp_fail(j, s, "number out of range");
    }
    if (j->discard)
        return 0;
    n->str = j->copy + (s - j->b);
    j->copy[p - j->b] = '\0';
    return 0;
}

static size_t hash_key(const char *s)
{
    size_t h = 1469598103934665603u;     /* FNV-1a */

    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211u;
    }
    return h;
}

/* Moves the kids stk[from..top) into m, keeping the last of duplicate keys
 * at the first one's place. */
static void close_map(struct jp *j, struct tnode *m, size_t from)
{
    size_t count = j->top - from, i, k, *table = NULL, mask = 0;

    m->kids = tree_kids_new(j->a, count);
    if (count > SMALL_MAP) {
        size_t size = 1;
        while (size < count * 2)
            size <<= 1;
        table = arena_alloc(j->a, size * sizeof(*table));
        mask = size - 1;
    }
    for (i = from; i < j->top; i++) {
        struct tnode *kid = j->stk[i];
        long dup = -1;

        kid->parent = m;
        if (!table) {
            /* two bytes before strcmp: a key's second byte is its NUL or
             * still inside the copy when the first is not NUL */
            const char *key = kid->key;
            for (k = 0; k < m->n && dup < 0; k++) {
                const char *o = m->kids[k]->key;
                if (o[0] == key[0]
                    && (!key[0] || (o[1] == key[1] && !strcmp(o, key))))
                    dup = (long)k;
            }
        } else {
            for (k = hash_key(kid->key) & mask; table[k];
                 k = (k + 1) & mask)
                if (strcmp(m->kids[table[k] - 1]->key, kid->key) == 0) {
                    dup = (long)(table[k] - 1);
                    break;
                }
            if (dup < 0)
                table[k] = m->n + 1;
        }
        if (dup >= 0) {
            kid->flags |= TF_DUP;
            m->kids[dup] = kid;     /* Kubernetes keeps the last value */
        } else
            m->kids[m->n++] = kid;
    }
    j->top = from;
}

static void close_seq(struct jp *j, struct tnode *s, size_t from)
{
    size_t count = j->top - from, i;

    s->kids = tree_kids_new(j->a, count);
    for (i = 0; i < count; i++) {
        s->kids[i] = j->stk[from + i];
        s->kids[i]->parent = s;
    }
    s->n = (unsigned)count;
    j->top = from;
}

static struct tnode *parse_value(struct jp *j);

/* A node, or the scratch node while discarding (checked, not kept). */
static inline struct tnode *node_new(struct jp *j, enum tkind kind)
{
    static const struct tnode zero = {0};
    struct tnode *n;

    if (j->discard) {
        n = &j->scratch;
    } else {
        /* nodes come from blocks of NODE_BLOCK: one arena call for many */
        if (j->nfree == 0) {
            j->free_nodes = arena_alloc(j->a, NODE_BLOCK * sizeof(*n));
            j->nfree = NODE_BLOCK;
        }
        n = j->free_nodes++;
        j->nfree--;
    }
    *n = zero;      /* a few wide stores: cheaper than a memset call */
    n->kind = (unsigned char)kind;
    n->str = "";
    return n;
}

static int skipped(const struct jp *j, const char *key)
{
    const char *const *k;

    if (!j->skip || j->depth != j->skip->depth || j->discard)
        return 0;
    for (k = j->skip->keys; *k; k++)
        if ((*k)[0] == key[0] && strcmp(*k, key) == 0)
            return 1;
    return 0;
}

static struct tnode *parse_container(struct jp *j, int is_map)
{
    struct tnode *c = node_new(j, is_map ? T_MAP : T_SEQ);
    size_t from = j->top;
    unsigned char close = is_map ? '}' : ']';

    if (++j->depth > LIMIT_NEST_DEPTH) {
        jp_fail(j, j->p, "nesting deeper than " STR(LIMIT_NEST_DEPTH)
                " levels");
        return NULL;
    }
    j->p++;
    skip_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        j->depth--;
        return c;
    }
    for (;;) {
        const char *key = NULL;
        struct tnode *v;
        unsigned kline = 0, kcol = 0;

        if (is_map) {
            if (j->p >= j->end || *j->p != '"') {
                jp_fail(j, j->p, j->p >= j->end ? "unexpected end of input"
                        : "expected a string key");
                return NULL;
            }
            if (j->positions)
                pos_of(j, j->p, &kline, &kcol);
            if (scan_string(j, &key) < 0)
                return NULL;
            skip_ws(j);
            if (j->p >= j->end || *j->p != ':') {
                jp_fail(j, j->p, "expected ':' after a key");
                return NULL;
            }
            j->p++;
            skip_ws(j);
        }
        if (key && skipped(j, key)) {
            j->discard++;
            v = parse_value(j);
            j->discard--;
        } else {
            v = parse_value(j);
            if (v && !j->discard) {
                v->key = key;
                if (j->positions) {
                    v->key_line = kline;
                    v->key_col = kcol;
                }
                push(j, v);
            }
        }
        if (!v)
            return NULL;
        skip_ws(j);
        if (j->p < j->end && *j->p == ',') {
            j->p++;
            skip_ws(j);
            continue;
        }
        if (j->p < j->end && *j->p == close) {
            j->p++;
            break;
        }
        jp_fail(j, j->p, j->p >= j->end ? "unexpected end of input"
                : is_map ? "expected ',' or '}'" : "expected ',' or ']'");
        return NULL;
    }
    if (j->discard)
        c = &j->scratch;
    else if (is_map)
        close_map(j, c, from);
    else
        close_seq(j, c, from);
    j->depth--;
    return c;
}

static int literal(struct jp *j, const char *word, size_t len)
{
    if ((size_t)(j->end - j->p) < len || memcmp(j->p, word, len) != 0)
        return jp_fail(j, j->p, "invalid literal");
    j->p += len;
    return 0;
}

/* A value at j->p (whitespace skipped). Recursion is bounded by depth. */
static struct tnode *parse_value(struct jp *j)
{
    struct tnode *n;
    unsigned line = 0, col = 0;

    if (j->p >= j->end) {
        jp_fail(j, j->p, "unexpected end of input");
        return NULL;
    }
    /* one test per value when positions are off: the webhook's case */
    if (j->positions)
        pos_of(j, j->p, &line, &col);
    switch (*j->p) {
    case '{':
    case '[':
        n = parse_container(j, *j->p == '{');
        break;
    case '"':
        n = node_new(j, T_STR);
        n->quoted = 1;
        if (scan_string(j, &n->str) < 0)
            return NULL;
        break;
    case 't':
    case 'f':
        n = node_new(j, T_BOOL);
        n->boolean = *j->p == 't';
        n->str = n->boolean ? "true" : "false";
        if (literal(j, n->str, n->boolean ? 4 : 5) < 0)
            return NULL;
        break;
    case 'n':
        n = node_new(j, T_NULL);
        n->str = "null";
        if (literal(j, "null", 4) < 0)
            return NULL;
        break;
    case '\0':
        jp_fail(j, j->p, "NUL byte");
        return NULL;
    default:
        if (*j->p != '-' && (*j->p < '0' || *j->p > '9')) {
            jp_fail(j, j->p, "unexpected character");
            return NULL;
        }
        n = node_new(j, T_INT);
        if (scan_number(j, n) < 0)
            return NULL;
    }
    if (n && j->positions) {
        n->line = line;
        n->col = col;
    }
    return n;
}

int load_json_read(struct arena *a, struct json_in *in, struct tnode **out,
                   struct err *err)
{
    struct jp j;
    struct tnode *t;

    *out = NULL;
    in->used = 0;
    in->err_line = in->err_col = 0;
    memset(&j, 0, offsetof(struct jp, inline_stk));
    j.a = a;
    j.err = err;
    j.b = j.p = j.pos_at = (const unsigned char *)in->data;
    j.end = j.b + in->len;
    j.pos_line = j.pos_col = 1;
    j.positions = in->line != 0;
    j.line0 = in->line ? in->line : 1;
    j.col0 = in->line ? in->col : 1;
    if (!in->data || in->len == 0) {
        jp_fail(&j, j.p, "empty JSON text");
        in->err_line = in->line ? j.err_line : 0;
        in->err_col = in->line ? j.err_col : 0;
        return -1;
    }
    j.copy = in->copy ? in->copy : arena_strndup(a, in->data, in->len);
    j.skip = in->skip;
    j.stk = j.inline_stk;
    j.top = 0;
    j.cap = STACK_INLINE;
    skip_ws(&j);
    t = parse_value(&j);
    if (t) {
        in->used = (size_t)(j.p - j.b);
        skip_ws(&j);
        if (!in->stream && j.p != j.end) {
            jp_fail(&j, j.p, "trailing data after the value");
            t = NULL;
        }
    }
    if (j.stk != j.inline_stk)
        free(j.stk);
    if (!t) {
        in->err_line = in->line ? j.err_line : 0;
        in->err_col = in->line ? j.err_col : 0;
        return -1;
    }
    *out = t;
    return 0;
}

int load_json(struct arena *a, const char *data, size_t len,
              struct tnode **out, struct err *err)
{
    return load_json_skipping(a, data, len, NULL, out, err);
}

int load_json_skipping(struct arena *a, const char *data, size_t len,
                       const struct json_skip *skip, struct tnode **out,
                       struct err *err)
{
    struct json_in in;

    memset(&in, 0, sizeof(in));
    in.data = data;
    in.len = len;
    in.skip = skip;
    return load_json_read(a, &in, out, err);
}
