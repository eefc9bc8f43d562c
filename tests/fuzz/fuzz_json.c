/*
 * fuzz_json.c - libFuzzer target: bytes -> load_json() (the webhook's JSON
 * parser) -> the tree walked with tree_path() on every node; also
 * utf8_valid() on the raw bytes. Differential: whatever load_json accepts,
 * cJSON (tests/unit/json_oracle.h) must accept with an equal tree.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/tree.h"
#include "../unit/json_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void walk(struct arena *a, const struct tnode *root,
                 const struct tnode *n, unsigned depth)
{
    unsigned i;

    (void)tree_path(a, root, n);
    (void)tree_text(n);
    if (depth > LIMIT_NEST_DEPTH + 2)
        __builtin_trap();
    if (n->kind == T_STR && !utf8_valid(n->str, strlen(n->str)))
        __builtin_trap();       /* strings are valid UTF-8 */
    for (i = 0; i < n->n; i++) {
        if (n->kids[i]->parent != n)
            __builtin_trap();
        walk(a, root, n->kids[i], depth + 1);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    struct tnode *root = NULL;
    struct err err;

    (void)utf8_valid((const char *)data, size);
    arena_init(&a, ARENA_CHUNK_BYTES);
    if (load_json(&a, (const char *)data, size, &root, &err) == 0) {
        if (!root)
            __builtin_trap();
        struct tnode *ref = NULL;
        walk(&a, root, root, 0);
        if (json_oracle(&a, (const char *)data, size, &ref) < 0
            || !json_tree_equal(root, ref))
            __builtin_trap();   /* accepted what cJSON reads otherwise */
    } else if (!err.msg[0]) {
        __builtin_trap();
    }
    arena_release(&a);
    return 0;
}
