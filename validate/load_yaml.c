/*
 * load_yaml.c - libyaml's event stream -> struct tnode trees with 1-based
 * positions. The only file that includes <yaml.h>.
 *
 * Owns reading YAML as kubectl does (facts: tests/k8s/decode/SPLIT.md and
 * RESOLVE.md): the stream is split on `---` lines as apimachinery's
 * YAMLReader splits it (a `---` line with anything but a comment after it
 * is an error; `...` is no separator; each chunk is one document for
 * go-yaml, which reads its first document only, so text after a `...` line
 * up to the next `---` line is ignored), and each chunk becomes the tree
 * sigs.k8s.io/yaml would make of it: scalars and keys resolved as go-yaml v2
 * does (tree_resolve(), tree_json_key()), merge keys applied where `<<`
 * stands (a key written before it is overwritten, keys after it win, in a
 * sequence of maps the earlier wins), duplicate keys collapsed (the last
 * wins, flagged TF_DUP). Also: the nesting cap applied while streaming
 * events (libyaml's scanner is quadratic on deep flow nesting) and alias
 * expansion under a node budget (billion laughs). JSON text is read by
 * load_json.c; stream.c decides which reader a file gets.
 */
#include "load_yaml.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <yaml.h>

#include "arena.h"
#include "limits.h"
#include "load_json.h"
#include "strmap.h"
#include "tree.h"
#include "xalloc.h"

#define YAML_MERGE_TAG "tag:yaml.org,2002:merge"

/* ==== building state ==================================================== */

/* The first frames and their first kids live on parse_chunk()'s stack:
 * most documents are shallow and small, and a malloc and free per frame
 * and document was a tenth of the loader's own work on a stream of tiny
 * documents (issue 17) */
#define INLINE_FRAMES 16
#define INLINE_KIDS 8

struct frame {
    struct tnode *node;         /* the map or sequence being built */
    struct tnode **kids;        /* scratch, copied into the arena: the
                                   frame's inline kids or malloc'd */
    size_t n, cap;
    int inline_kids;            /* kids are the inline ones (not freed) */
    int want_key;               /* map: next scalar is a key */
    const char *key;            /* map: pending key */
    unsigned key_line, key_col;
    int key_merge;              /* the pending key is a merge key `<<` */
    size_t *hash;               /* map: open-addressed key index (n > 16) */
    size_t hcap;
};

struct anchor {
    const char *name;
    struct tnode *node;
};

struct builder {
    struct arena *a;
    struct strmap *strs;        /* shared copies of strings, or NULL */
    unsigned line_off;          /* lines before this chunk */
    unsigned col_off;           /* columns before it on its first line */
    size_t base;                /* libyaml's line of the chunk's first line
                                   (0 unless a yreader shares the parser) */
    struct frame *st;           /* frame stack: st0 or malloc'd */
    size_t depth, stcap;
    size_t used;                /* frames set up (the deepest reached) */
    struct frame *st0;          /* INLINE_FRAMES frames ... */
    struct tnode *(*kids0)[INLINE_KIDS];   /* ... and their first kids */
    struct anchor *anchors;
    size_t nanchors, capanchors;
    size_t nodes;               /* nodes built from the text */
    size_t alias_nodes;         /* nodes created by alias expansion */
    unsigned alias_line, alias_col; /* the alias being expanded */
    struct tnode *root;
    const char *error;
    unsigned eline, ecol;
};

#define TF_MERGED 0x80  /* while its map is built: a member a merge made */

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
        /* the first byte first: a map's keys mostly differ there */
        for (i = 0; i < f->n; i++)
            if (f->kids[i]->key[0] == key[0]
                && strcmp(f->kids[i]->key, key) == 0)
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
        if (f->inline_kids) {   /* outgrown: to the heap */
            struct tnode **p = xrealloc(NULL, f->cap * sizeof(*f->kids));
            memcpy(p, f->kids, f->n * sizeof(*f->kids));
            f->kids = p;
            f->inline_kids = 0;
        } else {
            f->kids = xrealloc(f->kids, f->cap * sizeof(*f->kids));
        }
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

/* Adds a member to a map frame. A key set before is replaced in place:
 * the last value wins, as in go-yaml. merged: the member comes from a merge
 * key, which overwrites what came before it (go-yaml merges where `<<`
 * stands); an explicit key that replaces an explicit one is a duplicate
 * (TF_DUP), one that replaces a merged member is the merge's purpose. */
static void map_put(struct frame *f, struct tnode *v, int merged)
{
    size_t at = frame_find(f, v->key);

    if (merged)
        v->flags |= TF_MERGED;
    if (at != (size_t)-1) {
        if (!merged && !(f->kids[at]->flags & TF_MERGED))
            v->flags |= TF_DUP;
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
    n = tree_new(b->a, T_NULL, 0, 0);
    *n = *src;
    n->parent = NULL;
    n->key = NULL;
    if (src->n) {
        n->kids = tree_kids_new(b->a, src->n);
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

/* A merge key's value: its members go into f where `<<` stands (go-yaml's
 * decoder.merge: a mapping or an alias of one, or a sequence of those with
 * the earlier winning). Alias values are already copies: nodes move. */
static void apply_merge(struct builder *b, struct frame *f,
                        struct tnode *v)
{
    size_t i, j;

    if (v->kind == T_SEQ) {
        for (i = 0; i < v->n; i++)
            if (v->kids[i]->kind != T_MAP)
                break;
        if (i == v->n) {
            for (i = v->n; i-- > 0;) {
                const struct tnode *m = v->kids[i];
                for (j = 0; j < m->n; j++) {
                    m->kids[j]->parent = f->node;
                    map_put(f, m->kids[j], 1);
                }
            }
            return;
        }
    } else if (v->kind == T_MAP) {
        for (j = 0; j < v->n; j++) {
            v->kids[j]->parent = f->node;
            map_put(f, v->kids[j], 1);
        }
        return;
    }
    fail(b, v->line, v->col, "map merge requires map or sequence of maps "
         "as the value");
}

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
    f->want_key = 1;
    if (f->key_merge) {
        apply_merge(b, f, v);
        return;
    }
    v->key = f->key;
    v->key_line = f->key_line;
    v->key_col = f->key_col;
    map_put(f, v, 0);
}

static void push_frame(struct builder *b, struct tnode *n)
{
    struct frame *f;

    if (b->depth == b->stcap) {
        struct frame *st = xrealloc(NULL, b->stcap * 2 * sizeof(*b->st));
        memcpy(st, b->st, b->stcap * sizeof(*b->st));
        if (b->st != b->st0)
            free(b->st);
        b->st = st;
        b->stcap *= 2;
    }
    f = &b->st[b->depth];
    if (b->depth == b->used) {  /* first time this deep: scratch */
        f->inline_kids = b->depth < INLINE_FRAMES;
        f->kids = f->inline_kids ? b->kids0[b->depth] : NULL;
        f->cap = f->inline_kids ? INLINE_KIDS : 0;
        f->hash = NULL;
        f->hcap = 0;
        b->used++;
    }
    b->depth++;
    f->node = n;
    f->n = 0;
    f->want_key = n->kind == T_MAP;
    f->key = NULL;
    f->key_merge = 0;
    if (f->hash) {
        free(f->hash);
        f->hash = NULL;
        f->hcap = 0;
    }
}

static void pop_frame(struct builder *b)
{
    struct frame *f = &b->st[b->depth - 1];
    struct tnode *n = f->node;
    size_t i;

    n->n = (unsigned)f->n;
    if (f->n) {
        n->kids = tree_kids_new(b->a, f->n);
        memcpy(n->kids, f->kids, f->n * sizeof(*n->kids));
        for (i = 0; i < f->n; i++)
            n->kids[i]->flags &= (unsigned char)~TF_MERGED;
    }
    b->depth--;
    attach(b, n);
}

static unsigned mline(const struct builder *b, yaml_mark_t m)
{
    return (unsigned)(m.line - b->base) + 1 + b->line_off;
}

static unsigned mcol(const struct builder *b, yaml_mark_t m)
{
    return (unsigned)m.column + 1 + (m.line == b->base ? b->col_off : 0);
}

/* The pending key of map frame f is k (a resolved scalar): its JSON name
 * as sigs.k8s.io/yaml makes it, or a failure for a null key. */
static void set_key(struct builder *b, struct frame *f, const struct tnode *k,
                    unsigned line, unsigned col)
{
    const char *key = tree_json_key(b->a, k);

    if (!key) {
        fail(b, line, col, "a null key cannot become a JSON field name "
             "(sigs.k8s.io/yaml refuses it)");
        return;
    }
    f->key = key;
    f->key_line = line;
    f->key_col = col;
    f->want_key = 0;
}

static void on_scalar(struct builder *b, const yaml_event_t *ev)
{
    const char *val = (const char *)ev->data.scalar.value;
    size_t len = ev->data.scalar.length;
    const char *tag = (const char *)ev->data.scalar.tag;
    int plain = ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE;
    struct frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    unsigned line = mline(b, ev->start_mark), col = mcol(b, ev->start_mark);
    const char *why;
    struct tnode *n, key;
    int is_key;

    if (len > LIMIT_SCALAR_BYTES) {
        fail(b, line, col, "scalar larger than the 64 MiB limit");
        return;
    }
    if (f && f->node->kind == T_MAP && f->want_key
        && memchr(val, '\0', len)) {
        fail(b, line, col, "mapping key contains a NUL character");
        return;
    }
    is_key = f && f->node->kind == T_MAP && f->want_key;
    if (is_key) {
        /* a key is resolved in a node of its own only if an alias may
         * copy it later: its JSON name is all the tree keeps */
        memset(&key, 0, sizeof(key));
        key.line = line;
        key.col = col;
        n = &key;
    } else {
        n = tree_new(b->a, T_STR, line, col);
    }
    /* libyaml's value is NUL-terminated; what follows a NUL inside it
     * is unreachable through str either way */
    n->str = !len ? "" : b->strs ? strmap_intern(b->strs, val)
                                 : arena_strndup(b->a, val, len);
    /* quoted: not plain, or made a string by its tag ("!", !!str) */
    n->quoted = !plain || (tag && (!strcmp(tag, "!")
                                   || !strcmp(tag, YAML_STR_TAG)));
    if (plain && !tag && tree_plain_is_str(*n->str)) {
        n->kind = T_STR;        /* what tree_resolve() would say, sooner */
    } else if (tree_resolve(b->a, n, tag, plain, &why) < 0) {
        fail(b, line, col, why);
        return;
    }
    if (ev->data.scalar.anchor) {
        if (is_key) {
            n = tree_new(b->a, T_STR, line, col);
            *n = key;
        }
        add_anchor(b, (const char *)ev->data.scalar.anchor, n);
    }
    if (is_key) {
        /* go-yaml's isMerge: a plain `<<` or one tagged !!merge */
        if (!strcmp(n->str, "<<")
            && ((plain && !tag) || (tag && !strcmp(tag, YAML_MERGE_TAG)))) {
            f->key_merge = 1;
            f->want_key = 0;
            return;
        }
        f->key_merge = 0;
        set_key(b, f, n, line, col);
        return;
    }
    if (n->kind == T_FLOAT && !isfinite(n->fval)) {
        /* YAMLToJSON cannot write it: kubectl fails the document */
        fail(b, line, col, arena_printf(b->a, "'%s' has no JSON form, so "
                                        "kubectl cannot convert the document "
                                        "(json: unsupported value: %s)",
                                        n->str, isnan(n->fval) ? "NaN"
                                        : n->fval > 0 ? "+Inf" : "-Inf"));
        return;
    }
    b->nodes++;
    attach(b, n);
}

static void on_alias(struct builder *b, const yaml_event_t *ev)
{
    const char *name = (const char *)ev->data.alias.anchor;
    struct tnode *src = find_anchor(b, name);
    struct frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    unsigned line = mline(b, ev->start_mark), col = mcol(b, ev->start_mark);
    struct tnode *n;
    size_t k;

    if (!src) {
        fail(b, line, col, arena_printf(b->a, "unknown anchor '%s' "
                                        "referenced", name));
        return;
    }
    for (k = 0; k < b->depth; k++)
        if (b->st[k].node == src) {
            fail(b, line, col, arena_printf(b->a, "anchor '%s' value "
                                            "contains itself", name));
            return;
        }
    if (f && f->node->kind == T_MAP && f->want_key) {
        if (src->kind == T_MAP || src->kind == T_SEQ) {
            fail(b, line, col, "a mapping key must be a scalar");
            return;
        }
        f->key_merge = 0;
        set_key(b, f, src, line, col);
        return;
    }
    b->alias_line = line;
    b->alias_col = col;
    n = copy_tree(b, src, 0);
    if (!n)
        return;
    n->line = line;
    n->col = col;
    attach(b, n);
}

static void on_start(struct builder *b, const yaml_event_t *ev, enum tkind k,
                     const char *anchor)
{
    struct frame *f = b->depth ? &b->st[b->depth - 1] : NULL;
    struct tnode *n;

    if (f && f->node->kind == T_MAP && f->want_key) {
        fail(b, mline(b, ev->start_mark), mcol(b, ev->start_mark),
             "a mapping key must be a scalar, not a mapping or sequence");
        return;
    }
    if (b->depth >= LIMIT_NEST_DEPTH) {
        fail(b, mline(b, ev->start_mark), mcol(b, ev->start_mark),
             arena_printf(b->a, "nesting deeper than %d levels",
                          LIMIT_NEST_DEPTH));
        return;
    }
    b->nodes++;
    n = tree_new(b->a, k, mline(b, ev->start_mark), mcol(b, ev->start_mark));
    if (anchor)
        add_anchor(b, anchor, n);
    push_frame(b, n);
}

/* Offset of the first byte that is not valid UTF-8, or (size_t)-1 and
 * *chars (unless NULL) the characters of the text. libyaml detects it
 * too, but reports the position of its read buffer, not of the byte. */
static size_t utf8_invalid_at(const char *data, size_t len,
                              size_t *chars)
{
    const unsigned char *s = (const unsigned char *)data;
    size_t i = 0, n, k, extra = 0;

    while (i < len) {
        unsigned cp;
        if (s[i] < 0x80) {
            uint64_t w;
            /* ASCII: eight bytes at a time while no high bit is set */
            while (i + 8 <= len) {
                memcpy(&w, s + i, 8);
                if (w & 0x8080808080808080ull)
                    break;
                i += 8;
            }
            if (i < len && s[i] < 0x80)
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
        extra += n - 1;
    }
    if (chars)
        *chars = len - extra;
    return (size_t)-1;
}

/* 1 (and *doc the error) if data[0..len) is not valid UTF-8: libyaml
 * (like go-yaml) transcodes UTF-16 with a byte order mark, and kubectl's
 * reader finds no `---` line in it, so a UTF-16 file is one chunk and
 * its first document is all that is read */
static int bad_utf8(struct arena *a, const char *data, size_t len,
                    unsigned line_off, unsigned col_off, struct ydoc *doc,
                    size_t *chars)
{
    unsigned line = line_off + 1, col = col_off + 1;
    size_t i, bad;

    if (len >= 2 && (((unsigned char)data[0] == 0xff
                      && (unsigned char)data[1] == 0xfe)
                     || ((unsigned char)data[0] == 0xfe
                         && (unsigned char)data[1] == 0xff)))
        return 0;
    bad = utf8_invalid_at(data, len, chars);
    if (bad == (size_t)-1)
        return 0;
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
    return 1;
}

/* A builder for one document; st0 and kids0 are the caller's stack. */
static void builder_init(struct builder *b, struct arena *a,
                         struct strmap *strs, const struct ychunk *c,
                         struct frame *st0,
                         struct tnode *(*kids0)[INLINE_KIDS])
{
    memset(b, 0, sizeof(*b));
    b->st = b->st0 = st0;
    b->stcap = INLINE_FRAMES;
    b->kids0 = kids0;
    b->a = a;
    b->strs = strs;
    b->line_off = c->line_off;
    b->col_off = c->col_off;
}

/* A libyaml failure as the document's error */
static void fail_parser(struct builder *b, const yaml_parser_t *p)
{
    const char *ctx = p->context ? p->context : NULL;

    fail(b, mline(b, p->problem_mark), mcol(b, p->problem_mark),
         ctx ? arena_printf(b->a, "%s (%s)", p->problem ? p->problem
                            : "syntax error", ctx)
             : arena_strdup(b->a, p->problem ? p->problem : "syntax error"));
}

/* Builds from one event: 1 once the document is over. go-yaml reads the
 * first document only: what follows a `...` line in the same chunk is
 * never parsed. */
static int on_event(struct builder *b, const yaml_event_t *ev)
{
    switch (ev->type) {
    case YAML_STREAM_END_EVENT:
    case YAML_DOCUMENT_END_EVENT:
        return 1;
    case YAML_SCALAR_EVENT:
        on_scalar(b, ev);
        break;
    case YAML_ALIAS_EVENT:
        on_alias(b, ev);
        break;
    case YAML_SEQUENCE_START_EVENT:
        on_start(b, ev, T_SEQ, (const char *)ev->data.sequence_start.anchor);
        break;
    case YAML_MAPPING_START_EVENT:
        on_start(b, ev, T_MAP, (const char *)ev->data.mapping_start.anchor);
        break;
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
        if (b->depth)
            pop_frame(b);
        break;
    case YAML_NO_EVENT:
    case YAML_STREAM_START_EVENT:
    case YAML_DOCUMENT_START_EVENT:
        break;
    }
    return 0;
}

/* Frees the builder's scratch and gives *doc its root or its error. */
static void builder_done(struct builder *b, struct ydoc *doc)
{
    size_t i;

    for (i = 0; i < b->used; i++) {
        if (!b->st[i].inline_kids)
            free(b->st[i].kids);
        free(b->st[i].hash);
    }
    if (b->st != b->st0)
        free(b->st);
    free(b->anchors);
    if (b->error) {
        doc->error = b->error;
        doc->line = b->eline;
        doc->col = b->ecol;
        doc->root = NULL;
        return;
    }
    doc->root = b->root;
    if (b->root) {
        doc->line = b->root->line;
        doc->col = b->root->col;
    }
}

/* Parses one chunk (one document, possibly with a leading `---`) with a
 * parser of its own. */
static void parse_chunk(struct arena *a, struct strmap *strs,
                        const struct ychunk *c, struct ydoc *doc)
{
    yaml_parser_t p;
    yaml_event_t ev;
    struct builder b;
    struct frame st0[INLINE_FRAMES];
    struct tnode *kids0[INLINE_FRAMES][INLINE_KIDS];
    int done = 0;

    doc->line = c->line_off + 1;
    doc->col = c->col_off + 1;
    if (bad_utf8(a, c->text, c->len, c->line_off, c->col_off, doc, NULL))
        return;
    if (!yaml_parser_initialize(&p)) {
        doc->error = "cannot initialise the YAML parser";
        return;
    }
    builder_init(&b, a, strs, c, st0, kids0);
    yaml_parser_set_input_string(&p, (const unsigned char *)c->text, c->len);
    while (!done && !b.error) {
        if (!yaml_parser_parse(&p, &ev)) {
            fail_parser(&b, &p);
            break;
        }
        done = on_event(&b, &ev);
        yaml_event_delete(&ev);
    }
    yaml_parser_delete(&p);
    builder_done(&b, doc);
}

/* Each byte of x that is zero as 0x80, every other byte 0 (no carry
 * crosses a byte: (b & 0x7f) + 0x7f <= 0xfe). */
static uint64_t zero_bytes(uint64_t x)
{
    const uint64_t low7 = 0x7f7f7f7f7f7f7f7full;

    return ~(((x & low7) + low7) | x | low7);
}

/* ==== one parser for chunk after chunk ================================ */

/* A libyaml parser costs two buffers (64 KiB) to set up and tear down:
 * on a stream of tiny documents that was a tenth of the work (issue 17).
 * A yreader keeps one and feeds it, through a read handler, each chunk
 * it is asked to load followed by a `---` line of its own, and nothing
 * more until the next chunk is asked for: libyaml ends a document at the
 * `---` token without reading past it, and if it ever asked for more, it
 * would get the end of the stream, which ends the document as the end of
 * the chunk's own text does.
 *
 * A chunk reads in such a stream as it reads alone, event for event, as
 * long as its document ends at that `---` line: the parser starts it in
 * the same state (no indentation, no flow, a simple key allowed) and sees
 * the same characters. What could end it sooner (a `...` line, a
 * directive, a `---` after a line break only libyaml knows: lone CR, NEL,
 * LS, PS) shows in the document end's mark, checked against the
 * separator's place, and so does a document with nothing in it but what
 * only libyaml takes for blank (libyaml makes a null of it here, and no
 * document alone); what would change its start (a first line that is a
 * byte order mark, a directive, `---` or `...`) is looked at first. Such
 * a chunk, and any whose reading fails, is read again alone, from
 * scratch (the next one gets a new shared parser): the reader's answer is
 * always load_yaml_chunk()'s. */
struct yreader {
    yaml_parser_t p;
    int open;                   /* p is set up */
    int ended;                  /* p was given the end of its stream */
    int docs;                   /* documents p has read */
    size_t fed;                 /* characters p was given before the chunk */
    const char *at, *end;       /* what p is still to be given: the chunk, */
    const char *sep;            /* ... then the rest of this `---` line */
    size_t shared, parsers;     /* yreader_counts() */
};

#define YREADER_SEP "---\n"

static int yreader_input(void *data, unsigned char *buf, size_t size,
                         size_t *got)
{
    struct yreader *r = data;
    size_t n = 0, k;

    k = (size_t)(r->end - r->at);
    k = k < size ? k : size;
    memcpy(buf, r->at, k);
    r->at += k;
    n += k;
    k = strlen(r->sep);
    k = k < size - n ? k : size - n;
    memcpy(buf + n, r->sep, k);
    r->sep += k;
    n += k;
    if (!n)
        r->ended = 1;           /* libyaml takes 0 as the stream's end */
    *got = n;
    return 1;
}

struct yreader *yreader_new(void)
{
    struct yreader *r = xcalloc(1, sizeof(*r));

    r->sep = "";
    return r;
}

static void yreader_close(struct yreader *r)
{
    if (r->open)
        yaml_parser_delete(&r->p);
    r->open = 0;
}

void yreader_free(struct yreader *r)
{
    if (!r)
        return;
    yreader_close(r);
    free(r);
}

/* 1 if chunk c may be read by the shared parser: a chunk of text at a
 * line's start, ending with a newline, whose first line is not a byte
 * order mark (or UTF-16's), a directive, `---` or `...` */
static int shared(const struct ychunk *c)
{
    const unsigned char *s = (const unsigned char *)c->text;

    if (c->error || c->col_off || !c->len || c->text[c->len - 1] != '\n')
        return 0;
    if (*s == '%' || *s == 0xef || *s == 0xfe || *s == 0xff)
        return 0;
    return c->len < 3 || (memcmp(s, "...", 3) && memcmp(s, "---", 3));
}

/* Reads chunk c (chars characters) with the shared parser: 0, or -1 if
 * it must be read alone (the parser is closed). */
static int yreader_parse(struct yreader *r, struct arena *a,
                         struct strmap *strs, const struct ychunk *c,
                         size_t chars, struct ydoc *d)
{
    yaml_event_t ev;
    struct builder b;
    struct frame st0[INLINE_FRAMES];
    struct tnode *kids0[INLINE_FRAMES][INLINE_KIDS];
    int done = 0, failed = 0;

    if (r->open && (r->ended || r->at != r->end || *r->sep))
        yreader_close(r);       /* (the last chunk was not all read) */
    if (!r->open) {
        if (!yaml_parser_initialize(&r->p))
            return -1;
        yaml_parser_set_input(&r->p, yreader_input, r);
        r->open = 1;
        r->ended = 0;
        r->docs = 0;
        r->fed = 0;
        r->parsers++;
    }
    r->at = c->text;
    r->end = c->text + c->len;
    r->sep = YREADER_SEP;
    builder_init(&b, a, strs, c, st0, kids0);
    while (!done && !b.error && !failed) {
        if (!yaml_parser_parse(&r->p, &ev)) {
            failed = 1;
            break;
        }
        switch (ev.type) {
        case YAML_DOCUMENT_START_EVENT:
            /* after the first, a document starts on the line after its
             * `---`: lines count from there as they count alone from the
             * top */
            failed = r->docs && ev.data.document_start.implicit;
            if (r->docs)
                b.base = ev.start_mark.line + 1;
            break;
        case YAML_DOCUMENT_END_EVENT:
            /* ended by the `---` after the chunk, not by its own text */
            failed = !ev.data.document_end.implicit
                     || ev.start_mark.index != r->fed + chars;
            break;
        case YAML_SCALAR_EVENT:
            /* an empty document's null, at the `---` after it: alone,
             * libyaml reads no document there */
            failed = !b.depth && ev.start_mark.index == r->fed + chars;
            break;
        case YAML_STREAM_END_EVENT:
            failed = 1;         /* cannot be: the document ends first */
            break;
        default:
            break;
        }
        if (!failed)
            done = on_event(&b, &ev);
        yaml_event_delete(&ev);
    }
    r->docs++;
    r->fed += chars + strlen(YREADER_SEP);
    builder_done(&b, d);
    if (failed || b.error) {
        yreader_close(r);
        return -1;
    }
    r->shared++;
    return 0;
}

void yreader_counts(const struct yreader *r, size_t *shared, size_t *parsers)
{
    *shared = r->shared;
    *parsers = r->parsers;
}

void yreader_load(struct yreader *r, struct arena *a, struct strmap *strs,
                  const struct ychunk *c, struct ydoc *d)
{
    struct arena_mark m;
    size_t chars;

    if (!r || !shared(c)) {
        load_yaml_chunk(a, strs, c, d);
        return;
    }
    memset(d, 0, sizeof(*d));
    d->text = c->text;
    d->text_len = c->len;
    d->line = c->line_off + 1;
    d->col = c->col_off + 1;
    if (bad_utf8(a, c->text, c->len, c->line_off, c->col_off, d, &chars))
        return;
    arena_mark(a, &m);
    if (yreader_parse(r, a, strs, c, chars, d) < 0) {
        arena_rollback(a, &m);  /* the nodes of the try */
        load_yaml_chunk(a, strs, c, d);
    }
}

/* ==== splitting ========================================================== */

/* 1 if the text has only blank and comment lines */
static int chunk_is_blank(const char *p, const char *end)
{
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        const char *q = p;
        if (!eol)
            eol = end;
        while (q < eol && (*q == ' ' || *q == '\t' || *q == '\r'))
            q++;
        if (q < eol && *q != '#')
            return 0;
        p = eol + (eol < end);
    }
    return 1;
}

/* What follows `---` on a separator line, trimmed as Go's strings.TrimSpace
 * trims; *n its length. */
static const char *separator_rest(const char *p, const char *eol, size_t *n)
{
    size_t k;

    for (k = utf8_space_len(p, eol); k; k = utf8_space_len(p, eol))
        p += k;
    while (eol > p) {
        const char *q = eol - 1;
        while (q > p && ((unsigned char)*q & 0xc0) == 0x80)
            q--;
        if (utf8_space_len(q, eol) != (size_t)(eol - q))
            break;
        eol = q;
    }
    *n = (size_t)(eol - p);
    return p;
}

/* The start of the first line after p's own (p starts a line) that starts
 * with `---`, or end; *lines increased by the lines before it (a last line
 * without newline included). Eight bytes at a time, with no call per line
 * (issue 17): a word is looked at byte by byte only where a newline in it
 * is followed by '-'. */
static const char *next_dash_line(const char *p, const char *end,
                                  unsigned *lines)
{
    const uint64_t ones = 0x0101010101010101ull;
    size_t n = 0;

    while (p < end) {
        if (end - p > 8) {      /* the word and the byte after it */
            uint64_t w, next, nl;
            memcpy(&w, p, 8);
            memcpy(&next, p + 1, 8);
            nl = zero_bytes(w ^ (ones * '\n'));
            if (!(nl & zero_bytes(next ^ (ones * '-')))) {
                n += (size_t)(((nl >> 7) * ones) >> 56);
                p += 8;
                continue;
            }
        }
        if (*p++ != '\n')
            continue;
        n++;
        if (end - p >= 3 && !memcmp(p, "---", 3)) {
            *lines += (unsigned)n;
            return p;
        }
    }
    *lines += (unsigned)n + (end[-1] != '\n');
    return end;
}

/* Fills *out with [start, end) unless it holds nothing but comments
 * (kubectl skips their null documents): 1 if it did. */
static int take_chunk(struct ychunk *out, const char *start, const char *end,
                      unsigned line, unsigned col)
{
    if (chunk_is_blank(start, end))
        return 0;
    memset(out, 0, sizeof(*out));
    out->text = start;
    out->len = (size_t)(end - start);
    out->line_off = line;
    out->col_off = col;
    return 1;
}

void load_yaml_split_init(struct ysplit *s, const struct ychunk *in)
{
    memset(s, 0, sizeof(*s));
    s->p = in->text;
    s->end = in->text + in->len;
    s->line = in->line_off;
    s->start_col = in->col_off;
    if (in->len >= 3 && (unsigned char)s->p[0] == 0xef
        && (unsigned char)s->p[1] == 0xbb && (unsigned char)s->p[2] == 0xbf)
        s->p += 3;
    s->start = s->p;
    s->start_line = s->line;
}

int load_yaml_split_next(struct ysplit *s, struct arena *a,
                         struct ychunk *out)
{
    if (s->pending) {
        *out = s->bad;
        s->pending = 0;
        return 1;
    }
    while (s->p < s->end) {
        const char *p = s->p, *start = s->start, *eol, *next;
        unsigned line = s->line, start_line = s->start_line;
        unsigned start_col = s->start_col;
        const char *rest;
        size_t n;
        int got = 0;

        if (s->end - p < 3 || memcmp(p, "---", 3) != 0) {
            /* lines of the document up to the next `---` line */
            s->p = next_dash_line(p, s->end, &s->line);
            s->have = 1;
            continue;
        }
        eol = memchr(p, '\n', (size_t)(s->end - p));
        next = eol ? eol + 1 : s->end;
        if (!eol)
            eol = s->end;
        s->p = next;
        s->line++;
        rest = separator_rest(p + 3, eol, &n);
        if (n && *rest != '#') {
            /* kubectl stops the file here; we report it and read on, the
             * text after the `---` with the next document */
            got = take_chunk(out, start, p, start_line, start_col);
            memset(&s->bad, 0, sizeof(s->bad));
            s->bad.text = p;
            s->bad.line_off = line;
            s->bad.error = arena_printf(a, "invalid document separator "
                                        "'%.*s': kubectl accepts only '---' "
                                        "alone or followed by a comment",
                                        (int)(eol - p), p);
            s->have = p[3] == ' ' || p[3] == '\t';  /* still a YAML marker */
            s->start = s->have ? p : next;
            s->start_line = s->have ? line : line + 1;
            s->start_col = 0;
            if (!got) {
                *out = s->bad;
                return 1;
            }
            s->pending = 1;
            return 1;
        } else if (s->have) {
            got = take_chunk(out, start, p, start_line, start_col);
            s->start = next;
            s->start_line = line + 1;
            s->start_col = 0;
            s->have = 0;
            if (got)
                return 1;
        } else {
            s->have = 1;   /* a `---` with nothing before it stays */
        }
    }
    if (s->start < s->end) {
        const char *start = s->start;
        s->start = s->end;
        return take_chunk(out, start, s->end, s->start_line, s->start_col);
    }
    return 0;
}

void load_yaml_split(struct arena *a, const struct ychunk *in,
                     struct ychunks *out)
{
    struct ysplit s;
    struct ychunk c;
    size_t cap = 0;

    out->v = NULL;
    out->n = 0;
    load_yaml_split_init(&s, in);
    while (load_yaml_split_next(&s, a, &c)) {
        if (out->n == cap) {
            size_t ncap = cap ? cap * 2 : 8;
            out->v = arena_grow(a, out->v, out->n, ncap, sizeof(*out->v));
            cap = ncap;
        }
        out->v[out->n++] = c;
    }
}

void load_yaml_chunk(struct arena *a, struct strmap *strs,
                     const struct ychunk *c, struct ydoc *d)
{
    memset(d, 0, sizeof(*d));
    d->text = c->text;
    d->text_len = c->len;
    if (c->error) {
        d->error = c->error;
        d->line = c->line_off + 1;
        d->col = c->col_off + 1;
        return;
    }
    parse_chunk(a, strs, c, d);
}

void load_yaml(struct arena *a, const char *data, size_t len,
               struct ydocs *out)
{
    struct yreader *rd = yreader_new();
    struct ychunks chunks;
    struct ychunk all;
    size_t i;

    memset(&all, 0, sizeof(all));
    all.text = data;
    all.len = len;
    load_yaml_split(a, &all, &chunks);
    out->n = chunks.n;
    out->v = chunks.n ? arena_alloc(a, chunks.n * sizeof(*out->v)) : NULL;
    for (i = 0; i < chunks.n; i++)
        yreader_load(rd, a, NULL, &chunks.v[i], &out->v[i]);
    yreader_free(rd);
}
