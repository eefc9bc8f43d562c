/*
 * lex.c - CEL tokenizer (cel-spec langdef lexis): identifiers, reserved
 * words, int/uint/double literals (decimal, hex), string and bytes literals
 * in every quoting style (single, double, triple, raw) with all escapes, and
 * // comments. It decodes literals into the arena; it knows no grammar.
 */
#include "lex.h"

#include "cel_internal.h"
#include "../arena.h"

#include <stdlib.h>
#include <string.h>

static int is_ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static int hexval(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

static int tok_error(struct cel_lexer *lx, struct cel_token *t, size_t off,
                     const char *msg)
{
    t->kind = TK_ERROR;
    t->offset = (unsigned)off;
    cel_error_set(lx->err, CEL_ERR_PARSE, lx->src, (unsigned)off, "%s", msg);
    return -1;
}

static size_t put_utf8(char *o, uint32_t cp)
{
    if (cp < 0x80) {
        o[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        o[0] = (char)(0xC0 | (cp >> 6));
        o[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        o[0] = (char)(0xE0 | (cp >> 12));
        o[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        o[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    o[0] = (char)(0xF0 | (cp >> 18));
    o[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
    o[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

static const struct { const char *w; int tk; } words[] = {
    { "true", TK_TRUE }, { "false", TK_FALSE }, { "null", TK_NULL },
    { "in", TK_IN },
    { "as", TK_RESERVED }, { "break", TK_RESERVED }, { "const", TK_RESERVED },
    { "continue", TK_RESERVED }, { "else", TK_RESERVED },
    { "for", TK_RESERVED }, { "function", TK_RESERVED }, { "if", TK_RESERVED },
    { "import", TK_RESERVED }, { "let", TK_RESERVED }, { "loop", TK_RESERVED },
    { "package", TK_RESERVED }, { "namespace", TK_RESERVED },
    { "return", TK_RESERVED }, { "var", TK_RESERVED }, { "void", TK_RESERVED },
    { "while", TK_RESERVED },
};

/* Decodes a quoted literal starting at pos (after any prefix). */
static int lex_string(struct cel_lexer *lx, struct cel_token *t, size_t start,
                       int raw, int bytes)
{
    const char *s = lx->src;
    size_t pos = lx->pos, n = lx->len;
    char q = s[pos];
    int triple = pos + 2 < n && s[pos + 1] == q && s[pos + 2] == q;
    size_t body, end;
    char *out;
    size_t o = 0;

    pos += triple ? 3 : 1;
    body = pos;
    /* find the end */
    for (;;) {
        if (pos >= n)
            return tok_error(lx, t, start, "unterminated string literal");
        if (s[pos] == '\\' && !raw) {
            pos += 2;
            continue;
        }
        if (triple) {
            if (pos + 2 < n + 0 && s[pos] == q && s[pos + 1] == q &&
                s[pos + 2] == q)
                break;
        } else {
            if (s[pos] == q)
                break;
            if (s[pos] == '\n' || s[pos] == '\r')
                return tok_error(lx, t, start, "unterminated string literal");
        }
        pos++;
    }
    end = pos;
    lx->pos = end + (triple ? 3 : 1);
    out = arena_alloc(lx->a, (end - body) + 1);
    t->kind = bytes ? TK_BYTES : TK_STRING;
    if (raw) {
        memcpy(out, s + body, end - body);
        o = end - body;
        goto done;
    }
    for (pos = body; pos < end;) {
        char c = s[pos];
        uint32_t cp;
        int k, digits;

        if (c != '\\') {
            out[o++] = c;
            pos++;
            continue;
        }
        if (pos + 1 >= end)
            return tok_error(lx, t, pos, "invalid escape sequence");
        c = s[pos + 1];
        pos += 2;
        switch (c) {
        case 'a': out[o++] = '\a'; continue;
        case 'b': out[o++] = '\b'; continue;
        case 'f': out[o++] = '\f'; continue;
        case 'n': out[o++] = '\n'; continue;
        case 'r': out[o++] = '\r'; continue;
        case 't': out[o++] = '\t'; continue;
        case 'v': out[o++] = '\v'; continue;
        case '\\': case '?': case '"': case '\'': case '`':
            out[o++] = c;
            continue;
        case 'x': case 'X': digits = 2; break;
        case 'u': digits = 4; break;
        case 'U': digits = 8; break;
        default:
            if (c >= '0' && c <= '3') {
                if (pos + 2 > end || s[pos] < '0' || s[pos] > '7' ||
                    s[pos + 1] < '0' || s[pos + 1] > '7')
                    return tok_error(lx, t, pos - 2,
                                     "invalid octal escape sequence");
                cp = (uint32_t)((c - '0') * 64 + (s[pos] - '0') * 8 +
                                (s[pos + 1] - '0'));
                pos += 2;
                if (bytes)
                    out[o++] = (char)cp;
                else
                    o += put_utf8(out + o, cp);
                continue;
            }
            return tok_error(lx, t, pos - 2, "invalid escape sequence");
        }
        if (bytes && digits != 2)
            return tok_error(lx, t, pos - 2,
                             "unicode escape in bytes literal");
        if (pos + (size_t)digits > end)
            return tok_error(lx, t, pos - 2, "invalid escape sequence");
        cp = 0;
        for (k = 0; k < digits; k++) {
            int h = hexval((unsigned char)s[pos + (size_t)k]);
            if (h < 0)
                return tok_error(lx, t, pos - 2, "invalid escape sequence");
            cp = cp * 16 + (uint32_t)h;
        }
        pos += (size_t)digits;
        if (bytes) {
            out[o++] = (char)cp;
            continue;
        }
        if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
            return tok_error(lx, t, pos - (size_t)digits - 2,
                             "invalid unicode code point");
        o += put_utf8(out + o, cp);
    }
done:
    out[o] = 0;
    t->s = out;
    t->n = o;
    return 0;
}

static int lex_number(struct cel_lexer *lx, struct cel_token *t)
{
    const char *s = lx->src;
    size_t pos = lx->pos, n = lx->len, start = pos;
    int is_double = 0;

    if (s[pos] == '0' && pos + 1 < n &&
        (s[pos + 1] == 'x' || s[pos + 1] == 'X')) {
        uint64_t v = 0;
        int ovf = 0, nd = 0;
        pos += 2;
        while (pos < n && hexval((unsigned char)s[pos]) >= 0) {
            if (v > (UINT64_MAX >> 4))
                ovf = 1;
            v = v * 16 + (uint64_t)hexval((unsigned char)s[pos]);
            pos++;
            nd++;
        }
        if (nd == 0)
            return tok_error(lx, t, start, "invalid hex literal");
        t->u = v;
        t->int_overflow = ovf;
        goto suffix;
    }
    while (pos < n && is_digit((unsigned char)s[pos]))
        pos++;
    if (pos + 1 < n && s[pos] == '.' && is_digit((unsigned char)s[pos + 1])) {
        is_double = 1;
        pos++;
        while (pos < n && is_digit((unsigned char)s[pos]))
            pos++;
    }
    if (pos < n && (s[pos] == 'e' || s[pos] == 'E')) {
        size_t p2 = pos + 1;
        if (p2 < n && (s[p2] == '+' || s[p2] == '-'))
            p2++;
        if (p2 < n && is_digit((unsigned char)s[p2])) {
            is_double = 1;
            pos = p2;
            while (pos < n && is_digit((unsigned char)s[pos]))
                pos++;
        }
    }
    if (is_double) {
        char tmp[128];
        size_t l = pos - start;
        if (l >= sizeof(tmp))
            return tok_error(lx, t, start, "double literal too long");
        memcpy(tmp, s + start, l);
        tmp[l] = 0;
        t->d = strtod(tmp, NULL);
        t->kind = TK_DOUBLE;
        t->len = (unsigned)(pos - start);
        lx->pos = pos;
        return 0;
    } else {
        uint64_t v = 0;
        int ovf = 0;
        size_t i;
        for (i = start; i < pos; i++) {
            unsigned dg = (unsigned)(s[i] - '0');
            if (v > (UINT64_MAX - dg) / 10)
                ovf = 1;
            v = v * 10 + dg;
        }
        t->u = v;
        t->int_overflow = ovf;
    }
suffix:
    if (pos < n && (s[pos] == 'u' || s[pos] == 'U')) {
        pos++;
        t->kind = TK_UINT;
        if (t->int_overflow)
            return tok_error(lx, t, start, "uint literal out of range");
    } else {
        t->kind = TK_INT;
    }
    t->len = (unsigned)(pos - start);
    lx->pos = pos;
    return 0;
}

void cel_lex_next(struct cel_lexer *lx, struct cel_token *t)
{
    const char *s = lx->src;
    size_t n = lx->len;
    size_t pos;
    char c, c2;

    memset(t, 0, sizeof(*t));
    for (;;) {
        while (lx->pos < n && (s[lx->pos] == ' ' || s[lx->pos] == '\t' ||
                               s[lx->pos] == '\n' || s[lx->pos] == '\r' ||
                               s[lx->pos] == '\f'))
            lx->pos++;
        if (lx->pos + 1 < n && s[lx->pos] == '/' && s[lx->pos + 1] == '/') {
            while (lx->pos < n && s[lx->pos] != '\n')
                lx->pos++;
            continue;
        }
        break;
    }
    pos = lx->pos;
    t->offset = (unsigned)pos;
    if (pos >= n) {
        t->kind = TK_EOF;
        return;
    }
    c = s[pos];
    c2 = pos + 1 < n ? s[pos + 1] : 0;
    if (is_ident_start((unsigned char)c)) {
        /* string prefixes: r, b, rb, br (any case) */
        size_t p = pos;
        int raw = 0, bytes = 0, k;
        for (k = 0; k < 2 && p < n; k++) {
            if ((s[p] == 'r' || s[p] == 'R') && !raw)
                raw = 1;
            else if ((s[p] == 'b' || s[p] == 'B') && !bytes)
                bytes = 1;
            else
                break;
            p++;
            if (p < n && (s[p] == '"' || s[p] == '\'')) {
                lx->pos = p;
                lex_string(lx, t, pos, raw, bytes);
                if (t->kind != TK_ERROR)
                    t->len = (unsigned)(lx->pos - pos);
                return;
            }
        }
        p = pos;
        while (p < n && (is_ident_start((unsigned char)s[p]) ||
                         is_digit((unsigned char)s[p])))
            p++;
        t->kind = TK_IDENT;
        t->s = s + pos;
        t->n = p - pos;
        t->len = (unsigned)(p - pos);
        lx->pos = p;
        for (k = 0; k < (int)(sizeof(words) / sizeof(words[0])); k++) {
            if (strlen(words[k].w) == t->n &&
                memcmp(words[k].w, t->s, t->n) == 0) {
                t->kind = words[k].tk;
                break;
            }
        }
        return;
    }
    if (is_digit((unsigned char)c) ||
        (c == '.' && is_digit((unsigned char)c2))) {
        lex_number(lx, t);
        return;
    }
    if (c == '`') {
        /* quoted field name: .`foo-bar` */
        size_t p = pos + 1;
        while (p < n && s[p] != '`' && s[p] != '\n')
            p++;
        if (p >= n || s[p] != '`' || p == pos + 1) {
            tok_error(lx, t, pos, "unterminated quoted identifier");
            return;
        }
        t->kind = TK_IDENT;
        t->s = s + pos + 1;
        t->n = p - pos - 1;
        t->len = (unsigned)(p + 1 - pos);
        lx->pos = p + 1;
        return;
    }
    if (c == '"' || c == '\'') {
        lex_string(lx, t, pos, 0, 0);
        if (t->kind != TK_ERROR)
            t->len = (unsigned)(lx->pos - pos);
        return;
    }
    t->len = 1;
    lx->pos = pos + 1;
    switch (c) {
    case '(': t->kind = TK_LPAREN; return;
    case ')': t->kind = TK_RPAREN; return;
    case '[': t->kind = TK_LBRACK; return;
    case ']': t->kind = TK_RBRACK; return;
    case '{': t->kind = TK_LBRACE; return;
    case '}': t->kind = TK_RBRACE; return;
    case '.': t->kind = TK_DOT; return;
    case ',': t->kind = TK_COMMA; return;
    case ':': t->kind = TK_COLON; return;
    case '?': t->kind = TK_QUEST; return;
    case '+': t->kind = TK_PLUS; return;
    case '-': t->kind = TK_MINUS; return;
    case '*': t->kind = TK_STAR; return;
    case '/': t->kind = TK_SLASH; return;
    case '%': t->kind = TK_PERCENT; return;
    case '!':
        if (c2 == '=') {
            t->kind = TK_NE;
            t->len = 2;
            lx->pos++;
        } else {
            t->kind = TK_NOT;
        }
        return;
    case '=':
        if (c2 == '=') {
            t->kind = TK_EQ;
            t->len = 2;
            lx->pos++;
            return;
        }
        break;
    case '<':
    case '>':
        if (c2 == '=') {
            t->kind = c == '<' ? TK_LE : TK_GE;
            t->len = 2;
            lx->pos++;
        } else {
            t->kind = c == '<' ? TK_LT : TK_GT;
        }
        return;
    case '&':
        if (c2 == '&') {
            t->kind = TK_AND;
            t->len = 2;
            lx->pos++;
            return;
        }
        break;
    case '|':
        if (c2 == '|') {
            t->kind = TK_OR;
            t->len = 2;
            lx->pos++;
            return;
        }
        break;
    default:
        break;
    }
    tok_error(lx, t, pos, "unexpected character");
}
