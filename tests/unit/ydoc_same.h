/*
 * ydoc_same.h - whether two loaded documents are the same, node by node
 * with every position: the shared YAML parser's answer against a parser
 * per chunk (test_yreader.c, tests/fuzz/fuzz_yaml.c). Header-only.
 */
#ifndef CLAIMCHECK_TEST_YDOC_SAME_H
#define CLAIMCHECK_TEST_YDOC_SAME_H

#include <string.h>

#include "../../validate/load_yaml.h"
#include "../../validate/tree.h"

static inline int same_str(const char *a, const char *b)
{
    return a == b || (a && b && !strcmp(a, b));
}

/* 1 if trees a and b are the same, node by node, positions included */
static inline int same_tree(const struct tnode *a, const struct tnode *b)
{
    unsigned i;

    if (!a || !b)
        return a == b;
    if (a->kind != b->kind || a->n != b->n || a->line != b->line
        || a->col != b->col || a->key_line != b->key_line
        || a->key_col != b->key_col || a->quoted != b->quoted
        || a->flags != b->flags || !same_str(a->key, b->key)
        || !same_str(a->str, b->str))
        return 0;
    switch (a->kind) {
    case T_INT:
        if (a->ival != b->ival)
            return 0;
        break;
    case T_FLOAT:
        if (memcmp(&a->fval, &b->fval, sizeof(a->fval)))
            return 0;
        break;
    case T_BOOL:
        if (a->boolean != b->boolean)
            return 0;
        break;
    case T_MAP:
    case T_SEQ:
        for (i = 0; i < a->n; i++)
            if (!same_tree(a->kids[i], b->kids[i])
                || (a->kids[i]->parent == a) != (b->kids[i]->parent == b))
                return 0;
        break;
    default:
        break;
    }
    return 1;
}

static inline int same_doc(const struct ydoc *a, const struct ydoc *b)
{
    return same_str(a->error, b->error) && a->line == b->line
           && a->col == b->col && a->text == b->text
           && a->text_len == b->text_len && same_tree(a->root, b->root);
}

#endif
