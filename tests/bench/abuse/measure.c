/*
 * measure.c - what real manifests spend of the webhook's work budget
 * (--budget-cel-cost, --budget-alloc-steps): every document of FILE is
 * checked on its own, as the webhook checks one object, against an
 * inventory made of FILE's own inventory objects and the INVENTORY files
 * given, with an unlimited budget (validate/budget.h); prints the largest
 * CEL cost and allocator steps one document spent, and which. Built and
 * run over tests/rules and the upstream corpus by run.sh --measure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "validate/arena.h"
#include "validate/budget.h"
#include "validate/config.h"
#include "validate/diag.h"
#include "validate/engine.h"
#include "validate/err.h"
#include "validate/file.h"
#include "validate/load_yaml.h"
#include "validate/tree.h"
#include "rules/rules.h"

/* a file, or NULL (file.h's reader; its size limit: 64 MiB) */
static char *slurp(const char *path, size_t *len)
{
    struct err err;
    char *p;

    return file_read(path, 64u << 20, &p, len, &err) == 0 ? p : NULL;
}

/* usage: measure FILE [INVENTORY...]; prints "CEL STEPS FILE#DOC" */
int main(int argc, char **argv)
{
    struct config cfg;
    struct engine *e;
    struct inventory *inv;
    struct err err;
    struct arena docs_arena;
    struct ydocs docs;
    char *text;
    size_t len, i;
    unsigned long long cel = 0, steps = 0;
    size_t cel_doc = 0, steps_doc = 0;
    int k;

    if (argc < 2) {
        fprintf(stderr, "usage: measure FILE [INVENTORY...]\n");
        return 2;
    }
    config_init(&cfg);
    e = engine_new(&cfg, &rules_builtin, &err);
    text = e ? slurp(argv[1], &len) : NULL;
    if (!text) {
        fprintf(stderr, "%s: cannot read\n", argv[1]);
        return 2;
    }
    inv = inventory_new();
    for (k = 1; k < argc; k++) {
        size_t ilen;
        char *itext = k == 1 ? text : slurp(argv[k], &ilen);
        if (!itext || inventory_add_text(inv, argv[k], itext,
                                         k == 1 ? len : ilen, &err) < 0)
            continue;   /* a file that does not parse: no inventory */
        if (k > 1)
            free(itext);
    }
    arena_init(&docs_arena, 1 << 20);
    load_yaml(&docs_arena, text, len, &docs);
    for (i = 0; i < docs.n; i++) {
        struct work_budget b;
        struct arena a;
        struct diag_list out;
        const char *ns;
        if (!docs.v[i].root || !tree_is_map(docs.v[i].root))
            continue;
        ns = tree_str(tree_at(docs.v[i].root, "metadata.namespace"));
        memset(&b, 0, sizeof(b));
        arena_init(&a, 64 * 1024);
        diag_list_init(&out, &a);
        engine_check_update(e, inv, docs.v[i].root, ns ? ns : "default", 0,
                            &b, &out, &err);
        if (b.cel_cost > cel) {
            cel = b.cel_cost;
            cel_doc = i;
        }
        if (b.alloc_steps > steps) {
            steps = b.alloc_steps;
            steps_doc = i;
        }
        arena_release(&a);
    }
    printf("%llu %llu %s#%zu %s#%zu\n", cel, steps, argv[1], cel_doc,
           argv[1], steps_doc);
    arena_release(&docs_arena);
    inventory_free(inv);
    engine_free(e);
    config_release(&cfg);
    free(text);
    return 0;
}
