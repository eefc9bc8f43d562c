/*
 * fuzz_yaml.c - libFuzzer target: bytes -> load_yaml() -> every tree walked
 * with tree_path()/tree_pos()/tree_text() on every node. Finds crashes,
 * leaks and hangs in the YAML loader (split, libyaml events, anchors and
 * merge keys, scalar resolution, limits) and in tree.c; and any document
 * that load_yaml() (one parser shared by the chunks: yreader) reads
 * otherwise than a parser of its own reads it (load_yaml_chunk()).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/limits.h"
#include "../../validate/load_yaml.h"
#include "../../validate/tree.h"
#include "../unit/ydoc_same.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static size_t walk(struct arena *a, const struct tnode *root,
                   const struct tnode *n, unsigned depth)
{
    size_t total = 0;
    unsigned i, line, col;
    char *path = tree_path(a, root, n);

    if (strlen(path) > LIMIT_PATH_BYTES + 64)
        __builtin_trap();       /* paths are bounded */
    tree_pos(n, &line, &col);
    (void)tree_text(n);
    (void)tree_kind_desc(n);
    if (depth > LIMIT_NEST_DEPTH + 2)
        __builtin_trap();       /* the loader caps nesting */
    if (n->kind == T_MAP)
        for (i = 0; i < n->n; i++)
            if (n->kids[i]->key)
                (void)tree_get(n, n->kids[i]->key);
    for (i = 0; i < n->n; i++) {
        if (n->kids[i]->parent != n)
            __builtin_trap();   /* parent links are consistent */
        total += walk(a, root, n->kids[i], depth + 1);
    }
    return total + 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    struct ydocs docs;
    size_t i;

    struct ychunks chunks;
    struct ychunk all;

    arena_init(&a, ARENA_CHUNK_BYTES);
    load_yaml(&a, (const char *)data, size, &docs);
    memset(&all, 0, sizeof(all));
    all.text = (const char *)data;
    all.len = size;
    load_yaml_split(&a, &all, &chunks);
    if (chunks.n != docs.n)
        __builtin_trap();
    for (i = 0; i < docs.n; i++) {
        const struct ydoc *d = &docs.v[i];
        struct ydoc alone;
        if (d->root)
            walk(&a, d->root, d->root, 0);
        if (d->error && !d->error[0])
            __builtin_trap();   /* an error always says something */
        load_yaml_chunk(&a, NULL, &chunks.v[i], &alone);
        if (!same_doc(d, &alone))
            __builtin_trap();   /* the shared parser reads as one alone */
    }
    arena_release(&a);
    return 0;
}
