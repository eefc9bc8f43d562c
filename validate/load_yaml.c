/*
 * load_yaml.c - libyaml's event stream -> struct tnode trees with 1-based
 * positions. The only file that includes <yaml.h>.
 *
 * Owns: splitting a stream into documents on `---` lines (so one broken
 * document does not hide the others: libyaml cannot resume after an error),
 * the nesting cap applied while streaming events (libyaml's scanner is
 * quadratic on deep flow nesting), alias expansion under a node budget
 * (billion laughs), merge keys (`<<`, explicit keys win, as go-yaml does)
 * and duplicate keys (the last wins, as Kubernetes' decoder does; each
 * duplicate is recorded as a warning). JSON files are loaded here too: JSON
 * is valid YAML flow syntax and libyaml gives us positions, which cJSON
 * cannot (cJSON is used only for webhook bodies, where speed matters and no
 * positions exist).
 */
#include "load_yaml.h"

#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "arena.h"
#include "limits.h"
#include "tree.h"

/* ==== building state ==================================================== */

struct frame {
    struct tnode *node;         /* the map or sequence being built */
    struct tnode **kids;        /* malloc'd scratch, copied into the arena */
    size_t n, cap;
    int want_key;               /* map: next scalar is a key */
    const char *key;            /* map: pending key */
    unsigned key_line, key_col;
    struct tnode **merges;      /* values of `<<` keys, applied at the end */
    size_t nmerges, capmerges;
    size_t *hash;               /* map: open-addressed key index (n > 16) */
    size_t hcap;
};

struct anchor {
    const char *name;
    struct tnode *node;
};

struct builder {
    struct arena *a;
    unsigned line_off;          /* lines before this chunk */
    struct frame *st;           /* frame stack */
    size_t depth, stcap;
    struct anchor *anchors;
    size_t nanchors, capanchors;
    size_t nodes;               /* nodes built from the text */
    size_t alias_nodes;         /* nodes created by alias expansion */
    unsigned alias_line, alias_col; /* the alias being expanded */
    struct tnode *root;
    const char *error;
    unsigned eline, ecol;
    struct ydoc *doc;
};

static void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        abort();
    return q;
}

static void add_warning(struct builder *b, unsigned line, unsigned col,
                        const char *msg)
{
    struct ydoc *d = b->doc;
    size_t n = d->nwarnings;

    d->warnings = arena_grow(b->a, d->warnings, n, n + 1, sizeof(char *));
    d->wline = arena_grow(b->a, d->wline, n, n + 1, sizeof(unsigned));
    d->wcol = arena_grow(b->a, d->wcol, n, n + 1, sizeof(unsigned));
    d->warnings[n] = msg;
    d->wline[n] = line;
    d->wcol[n] = col;
    d->nwarnings = n + 1;
}

static size_t hash_str(const char *s)
{
    size_t h = 1469598103934665603ull & (size_t)-1;

    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * (size_t)1099511628211ull;
    return h;
}

static void frame_rehash(struct frame *f)
{
    size_t i, cap = f->hcap ? f->hcap * 2 : 64;

    while (cap < f->n * 2 + 2)
        cap *= 2;
    free(f->hash);
    f->hash = xrealloc(NULL, cap * sizeof(size_t));
    for (i = 0; i < cap; i++)
        f->hash[i] = (size_t)-1;
    f->hcap = cap;
    for (i = 0; i < f->n; i++) {
        size_t h = hash_str(f->kids[i]->key) & (cap - 1);
        while (f->hash[h] != (size_t)-1)
            h = (h + 1) & (cap - 1);
        f->hash[h] = i;
    }
}

/* Index of key in the map frame, or (size_t)-1. */
static size_t frame_find(struct frame *f, const char *key)
{
    size_t i;

    if (f->n <= 16) {
        for (i = 0; i < f->n; i++)
            if (strcmp(f->kids[i]->key, key) == 0)
                return i;
        return (size_t)-1;
    }
    if (!f->hash || f->hcap < f->n * 2)
        frame_rehash(f);
    i = hash_str(key) & (f->hcap - 1);
    while (f->hash[i] != (size_t)-1) {
        if (strcmp(f->kids[f->hash[i]]->key, key) == 0)
            return f->hash[i];
        i = (i + 1) & (f->hcap - 1);
    }
    return (size_t)-1;
}

static void frame_push_kid(struct frame *f, struct tnode *kid)
{
    if (f->n == f->cap) {
        f->cap = f->cap ? f->cap * 2 : 8;
        f->kids = xrealloc(f->kids, f->cap * sizeof(*f->kids));
    }
    f->kids[f->n++] = kid;
    if (f->hash && f->node->kind == T_MAP) {
        if (f->n * 2 > f->hcap) {
            frame_rehash(f);
        } else {
            size_t h = hash_str(kid->key) & (f->hcap - 1);
            while (f->hash[h] != (size_t)-1)
                h = (h + 1) & (f->hcap - 1);
            f->hash[h] = f->n - 1;
        }
    }
}

/* Adds a member to a map frame; a duplicate key replaces the old value in
 * place (last wins) and is recorded. explicit_key = 0 for merged members,
 * which never replace. */
static void map_put(struct builder *b, struct frame *f, struct tnode *v,
                    int explicit_key)
{
    size_t at = frame_find(f, v->key);

    if (at != (size_t)-1) {
        if (!explicit_key)
            return;
        add_warning(b, v->key_line, v->key_col,
                    arena_printf(b->a, "duplicate key '%s': the last value "
                                 "is used, as Kubernetes does", v->key));
        f->kids[at] = v;
        return;
    }
    frame_push_kid(f, v);
}

static void fail(struct builder *b, unsigned line, unsigned col,
                 const char *msg)
{
    if (b->error)
        return;
    b->error = msg;
    b->eline = line;
    b->ecol = col;
}

/* ==== alias expansion ==================================================== */

static struct tnode *copy_tree(struct builder *b, const struct tnode *src,
                               int depth)
{
    struct tnode *n;
    size_t i;

    if (b->error)
        return NULL;
    if (depth > LIMIT_NEST_DEPTH) {
        fail(b, src->line, src->col, "alias expands deeper than the "
             "nesting limit");
        return NULL;
    }
    if (++b->alias_nodes > LIMIT_ALIAS_NODES
        || b->alias_nodes > (b->nodes + 1000) * LIMIT_ALIAS_FACTOR) {
        fail(b, b->alias_line, b->alias_col, "alias expansion exceeds the "
             "node budget (possible \"billion laughs\" document)");
        return NULL;
    }
    n = arena_alloc(b->a, sizeof(*n));
    *n = *src;
    n->parent = NULL;
    n->key = NULL;
    if (src->n) {
        n->kids = arena_alloc(b->a, src->n * sizeof(*n->kids));
        for (i = 0; i < src->n; i++) {
            struct tnode *k = copy_tree(b, src->kids[i], depth + 1);
            if (!k)
                return NULL;
            k->parent = n;
            k->key = src->kids[i]->key;
            k->key_line = src->kids[i]->key_line;
            k->key_col = src->kids[i]->key_col;
            n->kids[i] = k;
        }
    }
    return n;
}

static struct tnode *find_anchor(struct builder *b, const char *name)
{
    size_t i = b->nanchors;

    while (i-- > 0)
        if (strcmp(b->anchors[i].name, name) == 0)
            return b->anchors[i].node;
    return NULL;
}

static void add_anchor(struct builder *b, const char *name, struct tnode *n)
{
    if (b->nanchors == b->capanchors) {
        b->capanchors = b->capanchors ? b->capanchors * 2 : 8;
        b->anchors = xrealloc(b->anchors,
                              b->capanchors * sizeof(*b->anchors));
    }
    b->anchors[b->nanchors].name = arena_strdup(b->a, name);
    b->anchors[b->nanchors].node = n;
    b->nanchors++;
}

/* ==== event handling ===================================================== */

/* Attaches a finished value to the top frame (or makes it the root). */
static void attach(struct builder *b, struct tnode *v)
{
    struct frame *f;

    if (b->depth == 0) {
        b->root = v;
        return;
    }
    f = &b->st[b->depth - 1];
    v->parent = f->node;
    if (f->node->kind == T_SEQ) {
        frame_push_kid(f, v);
        return;
    }
    v->key = f->key;
    v->key_line = f->key_line;
    v->key_col = f->key_col;
    f->want_key = 1;
    if (strcmp(v->key, "<<") == 0 && f->key_line && !v->quoted
        && (v->kind == T_MAP || v->kind == T_SEQ)) {
        if (f->nmerges == f->capmerges) {
            f->capmerges = f->capmerges ? f->capmerges * 2 : 4;
            f->merges = xrealloc(f->merges,
                                 f->capmerges * sizeof(*f->merges));
        }
        f->merges[f->nmerges++] = v;
        return;
    }
    map_put(b, f, v, 1);
}

static void push_frame(struct builder *b, struct tnode *n)
{
    struct frame *f;

    if (b->depth == b->stcap) {
        size_t old = b->stcap;
        b->stcap = b->stcap ? b->stcap * 2 : 16;
        b->st = xrealloc(b->st, b->stcap * sizeof(*b->st));
        memset(b->st + old, 0, (b->stcap - old) * sizeof(*b->st));
    }
    f = &b->st[b->depth++];
    f->node = n;
    f->n = 0;
    f->want_key = n->kind == T_MAP;
    f->key = NULL;
    f->nmerges = 0;
    if (f->hash) {
        free(f->hash);
        f->hash = NULL;
        f->hcap = 0;
    }
}

static void apply_merge_source(struct builder *b, struct frame *f,
                               const struct tnode *src)
{
    size_t i;

    if (src->kind != T_MAP) {
        fail(b, src->line, src->col, "merge key '<<' needs a mapping or a "
             "sequence of mappings");
        return;
    }
    b->alias_line = src->line;
    b->alias_col = src->col;
    for (i = 0; i < src->n && !b->error; i++) {
        struct tnode *k = copy_tree(b, src->kids[i], 0);
        if (!k)
            return;
        k->key = src->kids[i]->key;
        k->key_line = src->kids[i]->key_line;
        k->key_col = src->kids[i]->key_col;
        k->parent = f->node;
        map_put(b, f, k, 0);
    }
}

static void pop_frame(struct builder *b)
{
    struct frame *f = &b->st[b->depth - 1];
    struct tnode *n = f->node;
    size_t i;

    /* merged members: explicit keys win, earlier merge sources win */
    for (i = 0; i < f->nmerges && !b->error; i++) {
        const struct tnode *m = f->merges[i];
        if (m->kind == T_SEQ) {
            size_t j;
            for (j = 0; j < m->n; j++)
                apply_merge_source(b, f, m->kids[j]);
        } else {
            apply_merge_source(b, f, m);
        }
    }
    n->n = (unsigned)f->n;
    if (f->n) {
        n->kids = arena_alloc(b->a, f->n * sizeof(*n->kids));
        memcpy(n->kids, f->kids, f->n * sizeof(*n->kids));
    }
    b->depth--;
    attach(b, n);
}

static unsigned mline(const struct builder *b, yaml_mark_t m)
{
    return (unsigned)m.line + 1 + b->line_off;
}

static unsigned mcol(yaml_mark_t m)
{
    return (unsigned)m.column + 1;
}

static void on_scalar(struct builder *b, const yaml_event_t *ev)
{
    const char *val = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    struct frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    struct tnode *n;

    if (len > LIMIT_SCALAR_BYTES) {
        fail(b, mline(b, ev->start_mark), mcol(ev->start_mark),
             "scalar larger than the 64 MiB limit");
        return;
    }
    if (f && f->node->kind == T_MAP && f->want_key) {
        if (memchr(val, '\0', len)) {
            fail(b, mline(b, ev->start_mark), mcol(ev->start_mark),
                 "mapping key contains a NUL character");
            return;
        }
        f->key = arena_strndup(b->a, val, len);
        f->key_line = mline(b, ev->start_mark);
        f->key_col = mcol(ev->start_mark);
        f->want_key = 0;
        if (ev->data.scalar.anchor) {
            n = tree_new(b->a, T_STR, f->key_line, f->key_col);
            n->str = f->key;
            add_anchor(b, (const char *)ev->data.scalar.anchor, n);
        }
        /* a quoted "<<" is an ordinary key; mark plain merge keys */
        if (strcmp(f->key, "<<") == 0
            && ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE)
            f->key_line = 0;
        return;
    }
    b->nodes++;
    n = tree_new(b->a, T_STR, mline(b, ev->start_mark), mcol(ev->start_mark));
    n->str = arena_strndup(b->a, val, len);
    n->quoted = ev->data.scalar.style != YAML_PLAIN_SCALAR_STYLE;
    if (tag) {
        if (strcmp(tag, YAML_STR_TAG) == 0 || strcmp(tag, "!") == 0) {
            n->quoted = 1;
        } else if (strncmp(tag, "tag:yaml.org,2002:", 18) == 0) {
            n->quoted = 0;   /* !!int, !!bool...: resolve from the text */
        }
    }
    tree_resolve_scalar(n);
    if (ev->data.scalar.anchor)
        add_anchor(b, (const char *)ev->data.scalar.anchor, n);
    attach(b, n);
}

static void on_alias(struct builder *b, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    struct tnode *src = find_anchor(b, name);
    struct frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    struct tnode *n;

    if (!src) {
        fail(b, mline(b, ev->start_mark), mcol(ev->start_mark),
             arena_printf(b->a, "found undefined alias '%s'", name));
        return;
    }
    if (f && f->node->kind == T_MAP && f->want_key) {
        if (src->kind == T_MAP || src->kind == T_SEQ) {
            fail(b, mline(b, ev->start_mark), mcol(ev->start_mark),
                 "a mapping key must be a scalar");
            return;
        }
        f->key = src->str;
        f->key_line = mline(b, ev->start_mark);
        f->key_col = mcol(ev->start_mark);
        f->want_key = 0;
        return;
    }
    b->alias_line = mline(b, ev->start_mark);
    b->alias_col = mcol(ev->start_mark);
    n = copy_tree(b, src, 0);
    if (!n)
        return;
    n->line = mline(b, ev->start_mark);
    n->col = mcol(ev->start_mark);
    attach(b, n);
}

static void on_start(struct builder *b, const yaml_event_t *ev, enum tkind k,
                     const char *anchor)
{
    struct frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    struct tnode *n;

    if (f && f->node->kind == T_MAP && f->want_key) {
        fail(b, mline(b, ev->start_mark), mcol(ev->start_mark),
             "a mapping key must be a scalar, not a mapping or sequence");
        return;
    }
    if (b->depth >= LIMIT_NEST_DEPTH) {
        fail(b, mline(b, ev->start_mark), mcol(ev->start_mark),
             arena_printf(b->a, "nesting deeper than %d levels",
                          LIMIT_NEST_DEPTH));
        return;
    }
    b->nodes++;
    n = tree_new(b->a, k, mline(b, ev->start_mark), mcol(ev->start_mark));
    if (anchor)
        add_anchor(b, anchor, n);
    push_frame(b, n);
}

/* Offset of the first byte that is not valid UTF-8, or (size_t)-1. libyaml
 * detects it too, but reports the position of its read buffer, not of the
 * byte. */
static size_t utf8_invalid_at(const char *data, size_t len)
{
    const unsigned char *s = (const unsigned char *)data;
    size_t i = 0, n, k;

    while (i < len) {
        unsigned cp;
        if (s[i] < 0x80) {
            i++;
            continue;
        }
        if ((s[i] & 0xe0) == 0xc0) {
            n = 2;
            cp = s[i] & 0x1f;
        } else if ((s[i] & 0xf0) == 0xe0) {
            n = 3;
            cp = s[i] & 0x0f;
        } else if ((s[i] & 0xf8) == 0xf0) {
            n = 4;
            cp = s[i] & 0x07;
        } else {
            return i;
        }
        if (i + n > len)
            return i;
        for (k = 1; k < n; k++) {
            if ((s[i + k] & 0xc0) != 0x80)
                return i;
            cp = (cp << 6) | (s[i + k] & 0x3f);
        }
        if ((n == 2 && cp < 0x80) || (n == 3 && cp < 0x800)
            || (n == 4 && (cp < 0x10000 || cp > 0x10ffff))
            || (cp >= 0xd800 && cp <= 0xdfff))
            return i;
        i += n;
    }
    return (size_t)-1;
}

/* Parses one chunk (one document, possibly with a leading `---`). */
static void parse_chunk(struct arena *a, const char *data, size_t len,
                        unsigned line_off, struct ydoc *doc)
{
    yaml_parser_t p;
    yaml_event_t ev;
    struct builder b;
    int done = 0, docs = 0;
    size_t i, bad;

    memset(&b, 0, sizeof(b));
    b.a = a;
    b.line_off = line_off;
    b.doc = doc;
    doc->line = line_off + 1;
    doc->col = 1;
    bad = utf8_invalid_at(data, len);
    if (bad != (size_t)-1) {
        unsigned line = line_off + 1, col = 1;
        for (i = 0; i < bad; i++) {
            if (data[i] == '\n') {
                line++;
                col = 1;
            } else if (((unsigned char)data[i] & 0xc0) != 0x80) {
                col++;
            }
        }
        doc->error = arena_printf(a, "invalid UTF-8 byte 0x%02x",
                                  (unsigned char)data[bad]);
        doc->line = line;
        doc->col = col;
        return;
    }
    if (!yaml_parser_initialize(&p)) {
        doc->error = "cannot initialise the YAML parser";
        return;
    }
    yaml_parser_set_input_string(&p, (const unsigned char *)data, len);
    while (!done && !b.error) {
        if (!yaml_parser_parse(&p, &ev)) {
            const char *ctx = p.context ? p.context : NULL;
            fail(&b, (unsigned)p.problem_mark.line + 1 + line_off,
                 (unsigned)p.problem_mark.column + 1,
                 ctx ? arena_printf(a, "%s (%s)", p.problem ? p.problem
                                    : "syntax error", ctx)
                     : arena_strdup(a, p.problem ? p.problem
                                    : "syntax error"));
            break;
        }
        switch (ev.type) {
        case YAML_STREAM_END_EVENT:
            done = 1;
            break;
        case YAML_DOCUMENT_START_EVENT:
            if (++docs > 1)
                fail(&b, mline(&b, ev.start_mark), mcol(ev.start_mark),
                     "unexpected second document in one chunk");
            break;
        case YAML_SCALAR_EVENT:
            on_scalar(&b, &ev);
            break;
        case YAML_ALIAS_EVENT:
            on_alias(&b, &ev);
            break;
        case YAML_SEQUENCE_START_EVENT:
            on_start(&b, &ev, T_SEQ,
                     (const char *)ev.data.sequence_start.anchor);
            break;
        case YAML_MAPPING_START_EVENT:
            on_start(&b, &ev, T_MAP,
                     (const char *)ev.data.mapping_start.anchor);
            break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
            if (b.depth)
                pop_frame(&b);
            break;
        case YAML_NO_EVENT:
        case YAML_STREAM_START_EVENT:
        case YAML_DOCUMENT_END_EVENT:
            break;
        }
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    for (i = 0; i < b.stcap; i++) {
        free(b.st[i].kids);
        free(b.st[i].merges);
        free(b.st[i].hash);
    }
    free(b.st);
    free(b.anchors);
    if (b.error) {
        doc->error = b.error;
        doc->line = b.eline;
        doc->col = b.ecol;
        doc->root = NULL;
        return;
    }
    doc->root = b.root;
    if (b.root) {
        doc->line = b.root->line;
        doc->col = b.root->col;
    }
}

/* ==== splitting ========================================================== */

static int is_marker(const char *p, const char *end, char c)
{
    if (end - p < 3 || p[0] != c || p[1] != c || p[2] != c)
        return 0;
    return end - p == 3 || p[3] == ' ' || p[3] == '\t' || p[3] == '\n'
           || p[3] == '\r';
}

/* 1 if the text has only blanks, comments and directives so far */
static int chunk_is_preamble(const char *p, const char *end)
{
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q = p;
        if (!eol)
            eol = end;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < eol && *q != '#' && *q != '%')
            return 0;
        p = eol + (eol < end);
    }
    return 1;
}

static void add_chunk(struct arena *a, struct ychunks *out, size_t *cap,
                      const char *start, const char *end, unsigned line)
{
    struct ychunk *c;

    if (chunk_is_preamble(start, end) && !is_marker(start, end, '-'))
        return;     /* nothing but comments: no document */
    if (out->n == *cap) {
        size_t ncap = *cap ? *cap * 2 : 8;
        out->v = arena_grow(a, out->v, out->n, ncap, sizeof(*out->v));
        *cap = ncap;
    }
    c = &out->v[out->n++];
    c->text = start;
    c->len = (size_t)(end - start);
    c->line_off = line;
}

void load_yaml_split(struct arena *a, const char *data, size_t len,
                     struct ychunks *out)
{
    const char *p = data, *end = data + len, *start;
    unsigned line = 0, start_line = 0;
    size_t cap = 0;

    out->v = NULL;
    out->n = 0;
    if (len >= 3 && (unsigned char)p[0] == 0xef
        && (unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf)
        p += 3;
    start = p;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *next = eol ? eol + 1 : end;
        if (is_marker(p, eol ? eol : end, '-') && p > start
            && !chunk_is_preamble(start, p)) {
            add_chunk(a, out, &cap, start, p, start_line);
            start = p;
            start_line = line;
        } else if (is_marker(p, eol ? eol : end, '.')) {
            /* document end: the next document starts after this line */
            add_chunk(a, out, &cap, start, next, start_line);
            start = next;
            start_line = line + 1;
        }
        p = next;
        line++;
    }
    if (start < end)
        add_chunk(a, out, &cap, start, end, start_line);
}

void load_yaml_chunk(struct arena *a, const struct ychunk *c, struct ydoc *d)
{
    memset(d, 0, sizeof(*d));
    d->text = c->text;
    d->text_len = c->len;
    parse_chunk(a, c->text, c->len, c->line_off, d);
}

void load_yaml(struct arena *a, const char *data, size_t len,
               struct ydocs *out)
{
    struct ychunks chunks;
    size_t i;

    load_yaml_split(a, data, len, &chunks);
    out->n = chunks.n;
    out->v = chunks.n ? arena_alloc(a, chunks.n * sizeof(*out->v)) : NULL;
    for (i = 0; i < chunks.n; i++)
        load_yaml_chunk(a, &chunks.v[i], &out->v[i]);
}
