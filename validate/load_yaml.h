/*
 * load_yaml.h - YAML text -> document trees with positions, read as kubectl
 * reads a manifest (tests/k8s/decode/SPLIT.md, RESOLVE.md). The only file
 * that includes <yaml.h> is load_yaml.c.
 *
 * A stream is split into documents on `---` lines FIRST, as apimachinery's
 * YAMLReader splits it, so a document that does not parse is reported on
 * its own and the others are still loaded. Each chunk is one document
 * (go-yaml reads the first; text after `...` in the same chunk is ignored).
 * Limits (validate/limits.h): nesting depth, alias expansion budget.
 */
#ifndef CLAIMCHECK_LOAD_YAML_H
#define CLAIMCHECK_LOAD_YAML_H

#include <stddef.h>

struct arena;
struct strmap;
struct tnode;

struct ydoc {
    struct tnode *root;     /* NULL: empty document, or error below */
    const char *error;      /* parse error message (arena-owned) or NULL */
    unsigned line, col;     /* error position; else the document's start */
    const char *text;       /* the document's source text (not copied) */
    size_t text_len;
};

struct ydocs {
    struct ydoc *v;
    size_t n;
};

/* One document's text, found by splitting the stream on `---` lines. */
struct ychunk {
    const char *text;       /* points into the caller's data */
    size_t len;
    unsigned line_off;      /* lines before it in the stream */
    unsigned col_off;       /* columns before it on its first line */
    const char *error;      /* not a document: a problem of the stream at
                               line_off + 1 (a bad `---` line) */
};

struct ychunks {
    struct ychunk *v;
    size_t n;
};

/* Walks the document chunks of `in` one at a time, so that a caller that
 * handles each chunk at once keeps none of them (a stream of many tiny
 * documents costs no memory per document). Don't touch the fields. */
struct ysplit {
    const char *p, *end, *start;
    unsigned line, start_line, start_col;
    int have;                   /* kubectl's buffer holds a line */
    int pending;                /* bad is the next chunk */
    struct ychunk bad;
};
void load_yaml_split_init(struct ysplit *s, const struct ychunk *in);
/* The next chunk of load_yaml_split() into *out: 1, or 0 at the end (and
 * ever after). An error chunk's message is written into a. */
int load_yaml_split_next(struct ysplit *s, struct arena *a,
                         struct ychunk *out);
/* Splits the text of `in` (a file, or what follows its JSON objects,
 * positioned by in's offsets) into document chunks as kubectl's YAMLReader
 * does: a line starting with `---` ends the document before it when that
 * one has a line (else it stays in it); only a comment may follow the
 * `---`, anything else is an error chunk. Comment-only chunks are dropped
 * (kubectl skips their null documents). */
void load_yaml_split(struct arena *a, const struct ychunk *in,
                     struct ychunks *out);
/* Parses one chunk into *d (positions relative to the whole stream).
 * strs: NULL, or a map whose copies of keys and scalars the tree shares
 * (strmap_intern(): a tree that is kept, among many of one kind, repeats
 * most of its strings); the nodes are in a either way. */
void load_yaml_chunk(struct arena *a, struct strmap *strs,
                     const struct ychunk *c, struct ydoc *d);

/* One libyaml parser for many chunks (a parser's set-up was a tenth of
 * the work on streams of tiny documents): yreader_load() gives exactly
 * what load_yaml_chunk() gives, whatever chunks come in any order, and
 * never reads a chunk before it is asked to. */
struct yreader;
struct yreader *yreader_new(void);
void yreader_free(struct yreader *r);
/* load_yaml_chunk(), with r's parser where the chunk reads the same in
 * it (r NULL: load_yaml_chunk() itself). */
void yreader_load(struct yreader *r, struct arena *a, struct strmap *strs,
                  const struct ychunk *c, struct ydoc *d);
/* How many chunks r read with its shared parser, and how many parsers it
 * set up for them (tests). */
void yreader_counts(const struct yreader *r, size_t *shared, size_t *parsers);

/* Loads every document of data[0..len), with one yreader. Never fails as
 * a whole: problems are per document. Everything is allocated in a. */
void load_yaml(struct arena *a, const char *data, size_t len,
               struct ydocs *out);

#endif
