/*
 * fuzz_yaml.c - libFuzzer target: bytes -> load_yaml() -> every tree walked
 * with tree_path()/tree_pos()/tree_text() on every node. Finds crashes,
 * leaks and hangs in the YAML loader (split, libyaml events, anchors and
 * merge keys, scalar resolution, limits) and in tree.c.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/limits.h"
#include "../../validate/load_yaml.h"
#include "../../validate/tree.h"

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

    arena_init(&a, ARENA_CHUNK_BYTES);
    load_yaml(&a, (const char *)data, size, &docs);
    for (i = 0; i < docs.n; i++) {
        const struct ydoc *d = &docs.v[i];
        if (d->root)
            walk(&a, d->root, d->root, 0);
        if (d->error && !d->error[0])
            __builtin_trap();   /* an error always says something */
    }
    arena_release(&a);
    return 0;
}
