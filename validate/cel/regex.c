/*
 * regex.c - RE2-syntax regular expressions for matches()/find()/findAll(),
 * run by PCRE2 (the only file in the project that includes <pcre2.h>).
 * A pre-scanner rejects what RE2 lacks (backreferences, lookaround, atomic
 * groups, possessive quantifiers, recursion, conditionals, verbs, \G \K \Z
 * \R \X \h \e \c \C \u ..., repeat counts over 1000) and rewrites \s to
 * RE2's [\t\n\f\r ]; the pattern is then compiled with PCRE2_UTF |
 * PCRE2_DOLLAR_ENDONLY | PCRE2_NEVER_BACKSLASH_C (no UCP) and matched under
 * match and depth limits, retrying in the interpreter when the JIT stack
 * runs out (-46). Compiled code and match contexts are read-only after
 * compile, so concurrent searches are safe (match data is per call).
 */
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "cel_internal.h"
#include "../arena.h"
#include "../xalloc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REGEX_DFA_WORKSPACE 2000   /* ints for pcre2_dfa_match() */

struct cel_regex {
    pcre2_code *code;
    pcre2_code *dfa;                /* the same without MATCH_INVALID_UTF,
                                       which DFA matching does not support */
    pcre2_match_context *mctx;
    pcre2_general_context *gctx;    /* arena-backed, or NULL */
    int jit;
    int owned;                      /* malloc'd (no arena): free all */
};

static void *arena_malloc_fn(size_t n, void *data)
{
    return arena_alloc(data, n);
}

static void arena_free_fn(void *p, void *data)
{
    (void)p;
    (void)data;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static int reject(char *msg, const char *what, const char *p, size_t n)
{
    snprintf(msg, 256, "invalid regular expression: %s: '%.*s'", what,
             (int)(n > 40 ? 40 : n), p);
    return -1;
}

/* Checks an escape at p[0] == '\\'; returns its length or -1. */
static int scan_escape(const char *p, size_t left, char *msg)
{
    char c;

    if (left < 2)
        return reject(msg, "trailing backslash", p, left);
    c = p[1];
    if (c >= '1' && c <= '7') {
        if (left >= 3 && is_digit(p[2]))
            return 2;   /* octal, as RE2 */
        return reject(msg, "backreferences are not supported", p, 2);
    }
    if (c == '8' || c == '9')
        return reject(msg, "backreferences are not supported", p, 2);
    if (strchr("gkGKZRXhHVNceCuLlUoO", c))
        return reject(msg, "invalid escape sequence", p, 2);
    return 2;
}

/* RE2's POSIX classes ([:alpha:], [:^alpha:] ...) */
static int posix_class_ok(const char *name, size_t n)
{
    static const char *const ok[] = { "alnum", "alpha", "ascii", "blank",
                                      "cntrl", "digit", "graph", "lower",
                                      "print", "punct", "space", "upper",
                                      "word", "xdigit" };
    size_t i;

    if (n > 0 && name[0] == '^') {
        name++;
        n--;
    }
    for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        if (strlen(ok[i]) == n && memcmp(ok[i], name, n) == 0)
            return 1;
    }
    return 0;
}

/* Validates RE2 syntax; writes the PCRE2 pattern (with \s rewritten). */
static int prescan(const char *p, size_t n, char *out, size_t *outn,
                   char *msg)
{
    size_t i = 0, o = 0;
    int in_class = 0;
    int quant = 0;  /* 1: a quantifier just ended, 2: ... and its lazy '?' */

    while (i < n) {
        char c = p[i];
        int was = quant;

        quant = 0;

        if (c == '\\') {
            int l;
            if (i + 1 < n && p[i + 1] == 'Q') {
                size_t j = i + 2;
                while (j + 1 < n && !(p[j] == '\\' && p[j + 1] == 'E'))
                    j++;
                j = j + 1 < n ? j + 2 : n;
                memcpy(out + o, p + i, j - i);
                o += j - i;
                i = j;
                continue;
            }
            l = scan_escape(p + i, n - i, msg);
            if (l < 0)
                return -1;
            if (p[i + 1] == 's' || p[i + 1] == 'S' || p[i + 1] == 'v') {
                /* RE2's \s lacks VT, PCRE2's has it; RE2's \v is VT */
                const char *rep;
                if (p[i + 1] == 'v')
                    rep = "\\x0b";
                else if (in_class)
                    rep = p[i + 1] == 's' ? "\\t\\n\\f\\r " : "\\S\\x0b";
                else
                    rep = p[i + 1] == 's' ? "[\\t\\n\\f\\r ]"
                                          : "[^\\t\\n\\f\\r ]";
                memcpy(out + o, rep, strlen(rep));
                o += strlen(rep);
                i += 2;
                continue;
            }
            memcpy(out + o, p + i, (size_t)l);
            o += (size_t)l;
            i += (size_t)l;
            continue;
        }
        if (in_class) {
            if (c == '[' && i + 1 < n && p[i + 1] == ':') {
                const char *e = NULL;
                size_t j;
                for (j = i + 2; j + 1 < n; j++) {
                    if (p[j] == ':' && p[j + 1] == ']') {
                        e = p + j;
                        break;
                    }
                }
                if (e) {
                    size_t l = (size_t)(e - (p + i)) + 2;
                    if (!posix_class_ok(p + i + 2, (size_t)(e - (p + i)) - 2))
                        return reject(msg, "invalid character class range",
                                      p + i, l);
                    memcpy(out + o, p + i, l);
                    o += l;
                    i += l;
                    continue;
                }
            }
            if (c == ']')
                in_class = 0;
            out[o++] = c;
            i++;
            continue;
        }
        if (c == '[') {
            in_class = 1;
            out[o++] = c;
            i++;
            if (i < n && p[i] == '^')
                out[o++] = p[i++];
            if (i < n && p[i] == ']')
                out[o++] = p[i++];
            continue;
        }
        if (c == '(') {
            if (i + 1 < n && p[i + 1] == '*')
                return reject(msg, "backtracking verbs are not supported",
                              p + i, 2);
            if (i + 1 < n && p[i + 1] == '?') {
                char d = i + 2 < n ? p[i + 2] : 0;
                char e = i + 3 < n ? p[i + 3] : 0;
                if (d == 'P' && e == '<') {
                    /* named group (?P<name>...) */
                } else if (d == '<' && e != '=' && e != '!') {
                    /* named group (?<name>...) */
                } else if (d == 'i' || d == 'm' || d == 's' || d == 'U' ||
                           d == '-' || d == ':') {
                    size_t j = i + 2;
                    while (j < n && strchr("imsU-", p[j]))
                        j++;
                    if (d == '-' && j < n && is_digit(p[j]))
                        return reject(msg, "recursion is not supported",
                                      p + i, 3);
                    if (j >= n || (p[j] != ')' && p[j] != ':'))
                        return reject(msg, "invalid or unsupported Perl "
                                      "syntax", p + i, j - i + 1);
                } else {
                    return reject(msg, "invalid or unsupported Perl syntax",
                                  p + i, 3);
                }
            }
            out[o++] = c;
            i++;
            continue;
        }
        if (c == '{') {
            /* {n}, {n,}, {n,m}: check bounds; else a literal brace */
            size_t j = i + 1;
            long lo = 0, hi = -1;
            int ok = 0, nd = 0;
            while (j < n && is_digit(p[j]) && nd < 8) {
                lo = lo * 10 + (p[j] - '0');
                j++;
                nd++;
            }
            if (nd && j < n && p[j] == '}') {
                ok = 1;
                hi = lo;
            } else if (nd && j < n && p[j] == ',') {
                int nd2 = 0;
                j++;
                hi = 0;
                while (j < n && is_digit(p[j]) && nd2 < 8) {
                    hi = hi * 10 + (p[j] - '0');
                    j++;
                    nd2++;
                }
                if (!nd2)
                    hi = -1;
                ok = j < n && p[j] == '}';
            }
            if (ok) {
                if (lo > 1000 || hi > 1000 || (hi >= 0 && hi < lo))
                    return reject(msg, "invalid repeat count", p + i,
                                  j - i + 1);
                if (was)
                    return reject(msg, "invalid nested repetition operator",
                                  p + i, j - i + 1);
                quant = 1;
                memcpy(out + o, p + i, j - i + 1);
                o += j - i + 1;
                i = j + 1;
                if (i < n && p[i] == '+')
                    return reject(msg, "possessive quantifiers are not "
                                  "supported", p + i - 1, 2);
                continue;
            }
        }
        if ((c == '*' || c == '+' || c == '?') && i + 1 < n &&
            p[i + 1] == '+')
            return reject(msg, "possessive quantifiers are not supported",
                          p + i, 2);
        if (c == '*' || c == '+' || c == '?') {
            if (c == '?' && was == 1)
                quant = 2;                      /* lazy modifier */
            else if (was)
                return reject(msg, "invalid nested repetition operator",
                              p + i - 1, 2);
            else
                quant = 1;
        }
        out[o++] = c;
        i++;
    }
    *outn = o;
    return 0;
}

struct cel_regex *cel_regex_compile(struct arena *a, const char *pat,
                                    size_t n, int jit, char *msg)
{
    struct cel_regex *re;
    pcre2_general_context *g = NULL;
    char stackbuf[512];
    char *buf = stackbuf;
    size_t outn = 0;
    int ecode;
    PCRE2_SIZE eoff;
    pcre2_code *code, *dfa;

    if (n * 12 + 1 > sizeof(stackbuf)) {
        buf = xmalloc(n * 12 + 1);
    }
    if (prescan(pat, n, buf, &outn, msg) < 0) {
        if (buf != stackbuf)
            free(buf);
        return NULL;
    }
    if (a)
        g = pcre2_general_context_create(arena_malloc_fn, arena_free_fn, a);
    code = pcre2_compile((PCRE2_SPTR)buf, outn,
                         PCRE2_UTF | PCRE2_DOLLAR_ENDONLY |
                         PCRE2_NEVER_BACKSLASH_C | PCRE2_MATCH_INVALID_UTF,
                         &ecode, &eoff, a ? pcre2_compile_context_create(g)
                                          : NULL);
    dfa = code ? pcre2_compile((PCRE2_SPTR)buf, outn,
                               PCRE2_UTF | PCRE2_DOLLAR_ENDONLY |
                               PCRE2_NEVER_BACKSLASH_C, &ecode, &eoff,
                               a ? pcre2_compile_context_create(g) : NULL)
               : NULL;
    if (buf != stackbuf)
        free(buf);
    if (!code) {
        char em[160];
        pcre2_get_error_message(ecode, (PCRE2_UCHAR *)em, sizeof(em));
        snprintf(msg, 256, "invalid regular expression: %s", em);
        return NULL;
    }
    if (a)
        re = arena_alloc(a, sizeof(*re));
    else
        re = xcalloc(1, sizeof(*re));
    re->code = code;
    re->dfa = dfa;
    re->gctx = g;
    re->owned = a == NULL;
    re->mctx = pcre2_match_context_create(g);
    if (re->mctx) {
        pcre2_set_match_limit(re->mctx, CEL_REGEX_MATCH_LIMIT);
        pcre2_set_depth_limit(re->mctx, CEL_REGEX_DEPTH_LIMIT);
        pcre2_set_heap_limit(re->mctx, CEL_REGEX_HEAP_LIMIT_KIB);
    }
    if (jit && pcre2_jit_compile(code, PCRE2_JIT_COMPLETE) == 0)
        re->jit = 1;
    return re;
}

void cel_regex_free(struct cel_regex *re)
{
    if (!re)
        return;
    if (re->owned) {
        pcre2_code_free(re->code);
        pcre2_code_free(re->dfa);
        pcre2_match_context_free(re->mctx);
        free(re);
    } else if (re->jit) {
        /* arena-backed: only the JIT's executable memory needs freeing */
        pcre2_code_free(re->code);
        re->code = NULL;
        re->jit = 0;
    }
}

/* Yes/no without backtracking: PCRE2's DFA matcher walks all
 * alternatives at once (time linear in the subject for a given pattern,
 * like RE2), so catastrophic patterns such as (a+)+$ answer instead of
 * hitting the match limit. 1 match, 0 none, -1 a limit or error. */
static int dfa_test(const struct cel_regex *re, const char *s, size_t n)
{
    pcre2_match_data *md = pcre2_match_data_create(1, NULL);
    int ws[REGEX_DFA_WORKSPACE];
    int rc;

    if (!md)
        return -1;
    if (!re->dfa) {
        pcre2_match_data_free(md);
        return -1;
    }
    rc = pcre2_dfa_match(re->dfa, (PCRE2_SPTR)s, n, 0, 0, md, NULL, ws,
                         REGEX_DFA_WORKSPACE);
    pcre2_match_data_free(md);
    if (rc >= 0)    /* 0: a match, the ovector was too small */
        return 1;
    return rc == PCRE2_ERROR_NOMATCH ? 0 : -1;
}

int cel_regex_test(const struct cel_regex *re, const char *s, size_t n,
                   char *msg)
{
    size_t so, eo;
    int rc = cel_regex_search(re, s, n, 0, &so, &eo, msg);

    if (rc >= 0 || strcmp(msg, "regex match limit exceeded"))
        return rc;
    rc = dfa_test(re, s, n);
    return rc;     /* -1: msg still says the limit was exceeded */
}

int cel_regex_search(const struct cel_regex *re, const char *s, size_t n,
                     size_t start, size_t *so, size_t *eo, char *msg)
{
    pcre2_match_data *md;
    int rc;

    if (!re->code) {
        snprintf(msg, 256, "regex released");
        return -1;
    }
    md = pcre2_match_data_create(1, NULL);
    if (!md) {
        snprintf(msg, 256, "out of memory");
        return -1;
    }
    rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, start, 0, md, re->mctx);
    if (rc == PCRE2_ERROR_JIT_STACKLIMIT)
        rc = pcre2_match(re->code, (PCRE2_SPTR)s, n, start, PCRE2_NO_JIT, md,
                         re->mctx);
    if (rc >= 0) {
        PCRE2_SIZE *ov = pcre2_get_ovector_pointer(md);
        *so = ov[0];
        *eo = ov[1];
        pcre2_match_data_free(md);
        return 1;
    }
    pcre2_match_data_free(md);
    if (rc == PCRE2_ERROR_NOMATCH)
        return 0;
    if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT ||
        rc == PCRE2_ERROR_HEAPLIMIT || rc == PCRE2_ERROR_JIT_STACKLIMIT) {
        snprintf(msg, 256, "regex match limit exceeded");
        return -1;
    }
    {
        char em[160];
        pcre2_get_error_message(rc, (PCRE2_UCHAR *)em, sizeof(em));
        snprintf(msg, 256, "regex match failed: %s", em);
    }
    return -1;
}
