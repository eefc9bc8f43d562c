/*
 * stream.c - which reader a manifest file gets, and the JSON half of
 * reading it, as apimachinery's YAMLOrJSONDecoder does for kubectl
 * (decoder.go, SPLIT.md section 2). The YAML half is load_yaml.c's.
 */
#include "stream.h"

#include <string.h>

#include "arena.h"
#include "err.h"
#include "load_json.h"
#include "tree.h"

/* A position in the text, moved forward as it is consumed. */
struct pos {
    const char *at;
    unsigned line, col;         /* 1-based, of at */
};

static void pos_advance(struct pos *p, const char *to)
{
    for (; p->at < to; p->at++) {
        if (*p->at == '\n') {
            p->line++;
            p->col = 1;
        } else if (((unsigned char)*p->at & 0xc0) != 0x80) {
            p->col++;
        }
    }
}

/* IsJSONBuffer on the first peek bytes: '{' after white space */
static int looks_json(const char *data, size_t len, size_t peek)
{
    const char *p = data, *end = data + (len < peek ? len : peek);
    size_t k;

    for (k = utf8_space_len(p, end); k; k = utf8_space_len(p, end))
        p += k;
    return p < end && *p == '{';
}

static struct sdoc *new_doc(struct arena *a, struct sdocs *out, size_t *cap)
{
    struct sdoc *d;

    if (out->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        out->v = arena_grow(a, out->v, out->n, ncap, sizeof(*out->v));
        *cap = ncap;
    }
    d = &out->v[out->n++];
    memset(d, 0, sizeof(*d));
    return d;
}

/* The YAML text from p on, its first document answering for the JSON
 * error first_err (NULL: none) when it does not parse. */
static void add_yaml(struct arena *a, const struct pos *p, const char *end,
                     const char *first_err, unsigned eline, unsigned ecol,
                     struct sdocs *out, size_t *cap)
{
    struct ychunks chunks;
    struct ychunk in;
    size_t i;

    memset(&in, 0, sizeof(in));
    in.text = p->at;
    in.len = (size_t)(end - p->at);
    in.line_off = p->line - 1;
    in.col_off = p->col - 1;
    load_yaml_split(a, &in, &chunks);
    for (i = 0; i < chunks.n; i++) {
        struct sdoc *d = new_doc(a, out, cap);
        d->chunk = chunks.v[i];
        if (i == 0 && first_err) {
            d->error = first_err;
            d->line = eline;
            d->col = ecol;
        }
    }
    if (chunks.n == 0 && first_err) {
        /* nothing but white space and comments after the bad value */
        struct sdoc *d = new_doc(a, out, cap);
        d->json = 1;
        d->error = first_err;
        d->line = eline;
        d->col = ecol;
    }
}

void stream_split(struct arena *a, const char *data, size_t len, size_t peek,
                  struct sdocs *out)
{
    const char *end = data + len;
    struct pos p = {data, 1, 1};
    char *copy;
    size_t cap = 0, count = 0;

    out->v = NULL;
    out->n = 0;
    if (!looks_json(data, len, peek)) {
        add_yaml(a, &p, end, NULL, 0, 0, out, &cap);
        return;
    }
    copy = arena_strndup(a, data, len);     /* one for all the values */
    for (;;) {
        struct json_in in;
        struct tnode *root;
        struct err err;
        struct pos good = p;        /* the end of the last good value */
        const char *q = p.at;
        size_t k;

        while (q < end && (*q == ' ' || *q == '\t' || *q == '\r'
                           || *q == '\n'))
            q++;
        if (q == end)
            return;
        pos_advance(&p, q);
        memset(&in, 0, sizeof(in));
        in.data = q;
        in.len = (size_t)(end - q);
        in.copy = copy + (q - data);
        in.line = p.line;
        in.col = p.col;
        in.stream = 1;
        if (load_json_read(a, &in, &root, &err) == 0) {
            struct sdoc *d = new_doc(a, out, &cap);
            d->json = 1;
            d->root = root;
            pos_advance(&p, q + in.used);
            count++;
            continue;
        }
        if (count > 1) {
            /* unambiguously JSON: the error ends the stream */
            struct sdoc *d = new_doc(a, out, &cap);
            d->json = 1;
            d->error = arena_strdup(a, err.msg);
            d->line = in.err_line;
            d->col = in.err_col;
            return;
        }
        /* kubectl rewinds to the end of the last good value, eats white
         * space up to and including the first newline, and reads the rest
         * as YAML */
        p = good;
        for (k = utf8_space_len(p.at, end); k;
             k = utf8_space_len(p.at, end)) {
            int nl = *p.at == '\n';
            pos_advance(&p, p.at + k);
            if (nl)
                break;
        }
        add_yaml(a, &p, end, arena_strdup(a, err.msg), in.err_line,
                 in.err_col, out, &cap);
        return;
    }
}

void stream_open(struct sstream *s, struct arena *a, const char *data,
                 size_t len)
{
    struct ychunk in;

    memset(s, 0, sizeof(*s));
    if (looks_json(data, len, STREAM_PEEK)) {
        s->json = 1;
        stream_split(a, data, len, STREAM_PEEK, &s->docs);
        return;
    }
    memset(&in, 0, sizeof(in));
    in.text = data;
    in.len = len;
    load_yaml_split_init(&s->ys, &in);
}

int stream_next(struct sstream *s, struct arena *a, struct sdoc *out)
{
    if (s->json) {
        if (s->i == s->docs.n)
            return 0;
        *out = s->docs.v[s->i++];
        return 1;
    }
    memset(out, 0, sizeof(*out));
    return load_yaml_split_next(&s->ys, a, &out->chunk);
}

void stream_load_doc(struct yreader *rd, struct arena *a,
                     struct strmap *strs, const struct sdoc *s,
                     struct ydoc *d)
{
    if (s->json) {
        memset(d, 0, sizeof(*d));
        d->root = s->root;
        d->error = s->error;
        d->line = s->line;
        d->col = s->col;
        return;
    }
    yreader_load(rd, a, strs, &s->chunk, d);
    if (d->error && s->error) {
        d->error = s->error;
        d->line = s->line;
        d->col = s->col;
    }
}

void stream_load(struct arena *a, struct strmap *strs, const char *data,
                 size_t len, struct ydocs *out)
{
    struct yreader *rd = yreader_new();
    struct sdocs docs;
    size_t i;

    stream_split(a, data, len, STREAM_PEEK, &docs);
    out->n = docs.n;
    out->v = docs.n ? arena_alloc(a, docs.n * sizeof(*out->v)) : NULL;
    for (i = 0; i < docs.n; i++)
        stream_load_doc(rd, a, strs, &docs.v[i], &out->v[i]);
    yreader_free(rd);
}

#define HELM_SOURCE "# Source: "

const char *stream_helm_source(struct arena *a, struct ychunk *c)
{
    const char *p = c->text, *end = c->text + c->len;

    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q = p, *stop = eol ? eol : end;
        while (q < stop && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < stop && *q != '#')
            return NULL;            /* content: no leading comment left */
        if ((size_t)(stop - q) > strlen(HELM_SOURCE)
            && !strncmp(q, HELM_SOURCE, strlen(HELM_SOURCE))) {
            const char *name = q + strlen(HELM_SOURCE);
            size_t n = (size_t)(stop - name);
            while (n && (name[n - 1] == ' ' || name[n - 1] == '\r'))
                n--;
            if (!n || !eol)
                return NULL;
            c->len -= (size_t)(eol + 1 - c->text);
            c->text = eol + 1;
            c->line_off = 0;
            c->col_off = 0;
            return arena_strndup(a, name, n);
        }
        if (!eol)
            return NULL;
        p = eol + 1;
    }
    return NULL;
}
