/*
 * stream.h - a manifest file -> its documents, as kubectl reads one
 * (apimachinery's NewYAMLOrJSONDecoder with kubectl's 4096-byte peek;
 * facts in tests/k8s/decode/SPLIT.md).
 *
 * A file whose first character that is not white space (Go's
 * unicode.IsSpace), within the first 4096 bytes, is '{' is a stream of
 * JSON values: each is read by load_json (strict RFC 8259, positions on).
 * When a value does not parse and at most one came before it, the rest of
 * the file, from the end of the last good value and past the white space
 * up to its first newline, is read as YAML instead (kubectl switches for
 * good; JSON with a trailing comma is valid YAML, so kubectl applies it);
 * if that YAML does not parse either, the JSON error is what kubectl
 * reports. After two good values a failure is the stream's last word.
 * Any other file is YAML, split by load_yaml_split(). YAML documents are
 * only cut here and parsed later (load_yaml_chunk()), so a caller can
 * defer them; JSON values are parsed here (their end is only known then).
 */
#ifndef CLAIMCHECK_STREAM_H
#define CLAIMCHECK_STREAM_H

#include <stddef.h>

#include "load_yaml.h"

#define STREAM_PEEK 4096        /* kubectl's bufferSize for the guess */

struct sdoc {
    int json;                   /* 1: a JSON value (root, or error) */
    struct tnode *root;         /* JSON: the value (arena-owned) */
    struct ychunk chunk;        /* YAML: the document's text */
    const char *error;          /* JSON: why the value does not parse;
                                   YAML: the error kubectl reports instead
                                   of the document's own if it does not
                                   parse (its first JSON error) */
    unsigned line, col;         /* where error is */
};

struct sdocs {
    struct sdoc *v;
    size_t n;
};

/* The documents of data[0..len) (the text must outlive them). peek is
 * how far the JSON guess looks: STREAM_PEEK (kubectl), other values for
 * apimachinery's own test tables. Never fails as a whole. */
void stream_split(struct arena *a, const char *data, size_t len, size_t peek,
                  struct sdocs *out);

/* A document of stream_split() parsed: YAML chunks through
 * yreader_load() (rd and strs: as there), with the JSON error in place of
 * their own when kubectl would report that one. A JSON value is the one
 * stream_split() parsed, in its arena. */
void stream_load_doc(struct yreader *rd, struct arena *a,
                     struct strmap *strs, const struct sdoc *s,
                     struct ydoc *d);

/* The documents of stream_split() one at a time: a YAML file is cut as
 * it is walked, so a caller that handles each document at once keeps
 * none of them; a JSON file is split at once into the arena given to
 * stream_open() (its values are parsed to find their ends). */
struct sstream {
    int json;
    struct ysplit ys;           /* YAML */
    struct sdocs docs;          /* JSON */
    size_t i;
};
void stream_open(struct sstream *s, struct arena *a, const char *data,
                 size_t len);
/* The next document into *out: 1, or 0 at the end. a holds the message
 * of a bad separator (as stream_split() does). */
int stream_next(struct sstream *s, struct arena *a, struct sdoc *out);

/* `helm template` output: when the YAML chunk's leading comment lines hold
 * `# Source: chart/templates/x.yaml`, returns that path (arena-owned) and
 * moves the chunk's start past the comment, so that its lines count from
 * the rendered document's first line (line 1 = the line after the
 * comment). NULL and the chunk untouched otherwise. */
const char *stream_helm_source(struct arena *a, struct ychunk *c);

/* Every document of data[0..len), parsed (inventories, the CLI's small
 * files); strs as load_yaml_chunk()'s. */
void stream_load(struct arena *a, struct strmap *strs, const char *data,
                 size_t len, struct ydocs *out);

#endif
