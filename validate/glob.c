/*
 * glob.c - shell-style pattern matching with '**' segments (glob.h).
 * Owns the pattern language only; which paths or names it is applied to
 * is the caller's (the engine's exceptions, pathignore.c's ignorePaths).
 *
 * Both levels are the classic two-pointer wildcard match: within a
 * segment every element but '*' takes exactly one character, across
 * segments every segment pattern but '**' takes exactly one segment, so
 * remembering the last star and retrying from one further is complete.
 */
#include "glob.h"

#include <string.h>

/* Does the element at p (before pend) take c? *next is set past it: a
 * class "[...]" (an unclosed '[' is a plain character), "\x" or one
 * character; '?' takes any. */
static int elem_match(const char *p, const char *pend, char c,
                      const char **next)
{
    if (*p == '[') {
        const char *q = p + 1;
        int neg = 0, in = 0;
        if (q < pend && (*q == '!' || *q == '^')) {
            neg = 1;
            q++;
        }
        if (q < pend && *q == ']') {        /* a ']' first is a member */
            in = c == ']';
            q++;
        }
        while (q < pend && *q != ']') {
            char lo = *q, hi;
            if (lo == '\\' && q + 1 < pend)
                lo = *++q;
            hi = lo;
            if (q + 2 < pend && q[1] == '-' && q[2] != ']') {
                q += 2;
                hi = *q;
                if (hi == '\\' && q + 1 < pend)
                    hi = *++q;
            }
            if (c >= lo && c <= hi)
                in = 1;
            q++;
        }
        if (q < pend) {
            *next = q + 1;
            return in != neg;
        }
        *next = p + 1;          /* not closed: a plain '[' */
        return c == '[';
    }
    if (*p == '\\' && p + 1 < pend) {
        *next = p + 2;
        return c == p[1];
    }
    *next = p + 1;
    return *p == '?' || *p == c;
}

/* One segment pattern [p, pend) against one segment [t, tend). */
static int seg_match(const char *p, const char *pend, const char *t,
                     const char *tend)
{
    const char *star_p = NULL, *star_t = NULL, *next;

    while (t < tend) {
        if (p < pend && *p == '*') {
            star_p = ++p;
            star_t = t;
            continue;
        }
        if (p < pend && elem_match(p, pend, *t, &next)) {
            p = next;
            t++;
            continue;
        }
        if (!star_p)
            return 0;
        p = star_p;
        t = ++star_t;
    }
    while (p < pend && *p == '*')
        p++;
    return p == pend;
}

/* The end of the segment starting at s (its '/' or the string's end). */
static const char *seg_end(const char *s)
{
    const char *e = strchr(s, '/');

    return e ? e : s + strlen(s);
}

static int is_globstar(const char *p, const char *pe)
{
    return pe - p == 2 && p[0] == '*' && p[1] == '*';
}

/* Past the segment ending at e: the next one's start, or NULL at the
 * end. */
static const char *seg_next(const char *e)
{
    return *e ? e + 1 : NULL;
}

int glob_match(const char *pattern, const char *text)
{
    const char *p = pattern, *t = text;
    const char *star_p = NULL, *star_t = NULL;

    while (t) {
        const char *pe = p ? seg_end(p) : NULL, *te = seg_end(t);
        if (p && is_globstar(p, pe)) {
            star_p = seg_next(pe);      /* what follows "**" */
            star_t = t;
            p = star_p;
            if (!p)
                return 1;               /* a trailing "**" takes the rest */
            continue;
        }
        if (p && seg_match(p, pe, t, te)) {
            p = seg_next(pe);
            t = seg_next(te);
            continue;
        }
        if (!star_t)
            return 0;
        star_t = seg_next(seg_end(star_t));     /* "**" takes one more */
        p = star_p;
        t = star_t;
    }
    /* text used up: what is left of the pattern must be "**" only */
    while (p && is_globstar(p, seg_end(p)))
        p = seg_next(seg_end(p));
    return p == NULL;
}
