/*
 * buf.c - bounded growable byte string.
 */
#include "buf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

static char empty_buf[1];

void buf_init(struct buf *b, size_t max)
{
    b->p = empty_buf;
    b->len = 0;
    b->cap = 0;
    b->max = max;
}

static int buf_reserve(struct buf *b, size_t n)
{
    size_t want, cap;
    char *p;

    if (n > b->max || b->len > b->max - n)
        return -1;
    want = b->len + n + 1;
    if (want <= b->cap)
        return 0;
    cap = b->cap ? b->cap : 256;     /* most lines and replies fit */
    while (cap < want)
        cap = cap * 2 > cap ? cap * 2 : want;
    if (cap > b->max + 1)
        cap = b->max + 1;
    p = xrealloc(b->cap ? b->p : NULL, cap);
    if (!b->cap)
        p[0] = '\0';
    b->p = p;
    b->cap = cap;
    return 0;
}

int buf_presize(struct buf *b, size_t n)
{
    char *p;

    if (n > b->max || b->len > b->max - n)
        return -1;
    if (b->len + n + 1 <= b->cap)
        return 0;
    p = xrealloc(b->cap ? b->p : NULL, b->len + n + 1);
    if (!b->cap)
        p[0] = '\0';
    b->p = p;
    b->cap = b->len + n + 1;
    return 0;
}

int buf_add(struct buf *b, const void *s, size_t n)
{
    if (buf_reserve(b, n) < 0)
        return -1;
    if (n)
        memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return 0;
}

int buf_adds(struct buf *b, const char *s)
{
    return buf_add(b, s, strlen(s));
}

int buf_addc(struct buf *b, char c)
{
    return buf_add(b, &c, 1);
}

int buf_vaddf(struct buf *b, const char *fmt, va_list ap)
{
    va_list cp;
    int n;

    va_copy(cp, ap);
    n = vsnprintf(NULL, 0, fmt, cp);
    va_end(cp);
    if (n < 0 || buf_reserve(b, (size_t)n) < 0)
        return -1;
    vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
    b->len += (size_t)n;
    return 0;
}

int buf_addf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    int rc;

    va_start(ap, fmt);
    rc = buf_vaddf(b, fmt, ap);
    va_end(ap);
    return rc;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if invalid. */
static size_t utf8_len(const unsigned char *s)
{
    size_t n, i;
    unsigned cp;

    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0) {
        n = 2;
        cp = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        n = 3;
        cp = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        n = 4;
        cp = s[0] & 0x07;
    } else {
        return 0;
    }
    for (i = 1; i < n; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800)
        || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
        || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return n;
}

/* go: as Go's encoding/json.Marshal writes a string (sigs.k8s.io/yaml's
 * YAMLToJSON output): also <, > and & as \u003c..., U+2028 and U+2029
 * escaped, DEL as it is */
static int add_json_str(struct buf *b, const char *s, int go)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *u = (const unsigned char *)s;

    if (buf_addc(b, '"') < 0)
        return -1;
    while (*u) {
        const unsigned char *run = u;
        int rc;
        size_t n = 1;
        /* a run of printable ASCII needing no escape goes in at once */
        while (*run >= 0x20 && *run < 0x7f && *run != '"' && *run != '\\'
               && !(go && (*run == '<' || *run == '>' || *run == '&')))
            run++;
        if (run > u) {
            if (buf_add(b, u, (size_t)(run - u)) < 0)
                return -1;
            u = run;
            continue;
        }
        switch (*u) {
        case '"': rc = buf_add(b, "\\\"", 2); break;
        case '\\': rc = buf_add(b, "\\\\", 2); break;
        case '\n': rc = buf_add(b, "\\n", 2); break;
        case '\r': rc = buf_add(b, "\\r", 2); break;
        case '\t': rc = buf_add(b, "\\t", 2); break;
        default:
            if (*u < 0x20 || (*u == 0x7f && !go)
                || (go && (*u == '<' || *u == '>' || *u == '&'))) {
                char e[6] = {'\\', 'u', '0', '0', hex[*u >> 4], hex[*u & 15]};
                rc = buf_add(b, e, 6);
            } else if (*u == 0x7f) {
                rc = buf_addc(b, '\x7f');
            } else {
                n = utf8_len(u);
                if (n == 0) {
                    rc = buf_add(b, "\\ufffd", 6);   /* invalid UTF-8 */
                    n = 1;
                } else if (go && n == 3 && u[0] == 0xe2 && u[1] == 0x80
                           && (u[2] == 0xa8 || u[2] == 0xa9)) {
                    rc = buf_add(b, u[2] == 0xa8 ? "\\u2028" : "\\u2029", 6);
                } else {
                    rc = buf_add(b, u, n);
                }
            }
        }
        if (rc < 0)
            return -1;
        u += n;
    }
    return buf_addc(b, '"');
}

int buf_add_json_str(struct buf *b, const char *s)
{
    return add_json_str(b, s, 0);
}

int buf_add_json_str_go(struct buf *b, const char *s)
{
    return add_json_str(b, s, 1);
}

static int b64_value(char c)
{
    if (c >= 'A' && c <= 'Z')
        return c - 'A';
    if (c >= 'a' && c <= 'z')
        return c - 'a' + 26;
    if (c >= '0' && c <= '9')
        return c - '0' + 52;
    if (c == '+')
        return 62;
    if (c == '/')
        return 63;
    return -1;
}

int buf_add_base64(struct buf *b, const char *s, size_t n, int strict)
{
    size_t len0 = b->len, i, pad = 0, chars = 0;
    unsigned acc = 0, bits = 0;

    for (i = 0; i < n; i++) {
        int v;
        if (s[i] == '\n' || s[i] == '\r'
            || (!strict && (s[i] == ' ' || s[i] == '\t')))
            continue;
        chars++;
        if (s[i] == '=') {
            pad++;
            continue;
        }
        v = b64_value(s[i]);
        if (v < 0 || pad)
            goto bad;
        acc = (acc << 6) | (unsigned)v;
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            if (buf_addc(b, (char)((acc >> bits) & 0xff)) < 0)
                goto bad;
        }
    }
    /* 0, 2 or 4 bits left over: a whole number of bytes was encoded */
    if (bits >= 6 || pad > 2)
        goto bad;
    /* Go's StdEncoding: whole quanta, the padding's bits zero */
    if (strict && (chars % 4 || (pad && (acc & ((1u << bits) - 1)))))
        goto bad;
    return 0;
bad:
    b->len = len0;
    if (b->cap)
        b->p[len0] = '\0';
    return -1;
}

/* One character of buf_add_visible(): n bytes of s escaped or as they are;
 * *n is how many bytes it took. */
static int add_visible_char(struct buf *b, const unsigned char *u, size_t *n)
{
    static const char hex[] = "0123456789abcdef";

    *n = 1;
    switch (*u) {
    case '\n': return buf_add(b, "\\n", 2);
    case '\r': return buf_add(b, "\\r", 2);
    case '\t': return buf_add(b, "\\t", 2);
    case 0x1b: return buf_add(b, "\\e", 2);
    default:
        break;
    }
    if (*u < 0x20 || *u == 0x7f) {
        char e[4] = {'\\', 'x', hex[*u >> 4], hex[*u & 15]};
        return buf_add(b, e, 4);
    }
    if (*u < 0x80)
        return buf_addc(b, (char)*u);
    *n = utf8_len(u);
    if (*n == 0) {          /* not UTF-8: a lone byte (0x9b is CSI) */
        char e[4] = {'\\', 'x', hex[*u >> 4], hex[*u & 15]};
        *n = 1;
        return buf_add(b, e, 4);
    }
    if (*n == 2 && u[0] == 0xc2 && u[1] < 0xa0) {  /* C1: U+0080-U+009F */
        char e[6] = {'\\', 'u', '0', '0', hex[u[1] >> 4], hex[u[1] & 15]};
        return buf_add(b, e, 6);
    }
    return buf_add(b, u, *n);
}

int buf_add_visible(struct buf *b, const char *s, int line_start)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n;

    if (line_start) {       /* "  ::cmd": the runner trims, then parses */
        while (*u == ' ') {
            if (buf_addc(b, ' ') < 0)
                return -1;
            u++;
        }
        if (u[0] == ':' && u[1] == ':') {
            if (buf_add(b, "\\x3a", 4) < 0)
                return -1;
            u++;
        }
    }
    for (; *u; u += n) {
        const unsigned char *run = u;
        while (*run >= 0x20 && *run < 0x7f)     /* printable ASCII at once */
            run++;
        if (run > u) {
            if (buf_add(b, u, (size_t)(run - u)) < 0)
                return -1;
            n = (size_t)(run - u);
            continue;
        }
        if (add_visible_char(b, u, &n) < 0)
            return -1;
    }
    return 0;
}

void buf_reset(struct buf *b)
{
    b->len = 0;
    if (b->cap)
        b->p[0] = '\0';
}

void buf_release(struct buf *b)
{
    if (b->cap)
        free(b->p);
    buf_init(b, b->max);
}
