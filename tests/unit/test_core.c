/*
 * test_core.c - unit tests for the core's building blocks: arena, buf,
 * tree scalars and paths, the YAML loader's limits and edge cases, name
 * formats, the object model's normalisation, and the rule registry's
 * invariants (the meta-test: sorted unique ids, summaries, hints and a
 * golden folder with fail and pass cases for every rule).
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "../../rules/rules.h"
#include "../../validate/arena.h"
#include "../../validate/k8s/fields.h"
#include "../../validate/limits.h"
#include "../../validate/inventory.h"
#include "../../validate/err.h"
#include "../../validate/engine.h"
#include "../../validate/buf.h"
#include "../../validate/load_yaml.h"
#include "../../validate/names.h"
#include "../../validate/object.h"
#include "../../validate/strmap.h"
#include "../../validate/tree.h"
#include "check.h"

static CHECK_INIT;

static struct ydocs load(struct arena *a, const char *text)
{
    struct ydocs d;

    load_yaml(a, text, strlen(text), &d);
    return d;
}

static void test_arena(void)
{
    struct arena a;
    char *big, *s;
    int i, misaligned = 0;

    arena_init(&a, 1024);
    for (i = 0; i < 1000; i++) {
        char *p = arena_alloc(&a, 24);
        misaligned += ((size_t)p % _Alignof(max_align_t)) != 0;
    }
    CHECK(misaligned == 0);
    big = arena_alloc(&a, 100000);      /* a chunk of its own */
    big[99999] = 'x';
    CHECK(big[0] == 0);
    s = arena_printf(&a, "%s-%d", "gpu", 7);
    CHECK_STR(s, "gpu-7");
    CHECK_STR(arena_strndup(&a, "abcdef", 3), "abc");
    arena_release(&a);
}

/* arena_alloc() memory is zero whether it is fresh, reused after
 * arena_clear() in part (small allocations and strings before it), or
 * in a chunk big enough to come zeroed from calloc (issue 17: such a
 * chunk is only cleared where it was handed out before) */
static void test_arena_zero(void)
{
    /* malloc'd chunks; mapped ones (a run arena's: 1 MiB) */
    static const size_t sizes[] = {1024, 256 * 1024, 1024 * 1024};
    struct arena a;
    size_t k, i, j, m, nonzero = 0;

    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        arena_init(&a, sizes[k]);
        for (i = 0; i < 3; i++) {
            /* strings (unaligned) and blocks, all written over */
            for (j = 0; j < 40; j++) {
                char *s = arena_strndup(&a, "xxxxxxxxxxxxx", 1 + j % 13);
                unsigned char *p = arena_alloc(&a, 1 + j * 7);
                for (m = 0; m < 1 + j * 7; m++)
                    nonzero += p[m] != 0;
                memset(p, 0xff, 1 + j * 7);
                s[0] = 'y';
            }
            {   /* a large block of its own, past any chunk size */
                unsigned char *big = arena_alloc(&a, 3 * 1024 * 1024);
                for (m = 0; m < 3 * 1024 * 1024; m++)
                    nonzero += big[m] != 0;
                memset(big, 0xff, 3 * 1024 * 1024);
            }
            arena_clear(&a);
        }
        arena_release(&a);
    }
    CHECK(nonzero == 0);
}

/* arena_alloc_aligned(): items of 56 bytes at 8-byte alignment pack
 * without the 16-byte padding of arena_alloc() (tree nodes, issue 17),
 * come zeroed after arena_clear() too, and the next arena_alloc() is
 * aligned for anything again */
static void test_arena_aligned(void)
{
    struct arena a;
    size_t i, nonzero = 0, packed = 0;
    unsigned char *prev = NULL;

    arena_init(&a, 1024 * 1024);
    for (int round = 0; round < 2; round++) {
        for (i = 0; i < 1000; i++) {
            unsigned char *p = arena_alloc_aligned(&a, 56, 8);
            size_t m;
            CHECK((uintptr_t)p % 8 == 0);
            if (prev && p == prev + 56)
                packed++;
            for (m = 0; m < 56; m++)
                nonzero += p[m] != 0;
            memset(p, 0xff, 56);
            prev = p;
        }
        CHECK((uintptr_t)arena_alloc(&a, 24) % _Alignof(max_align_t) == 0);
        CHECK((uintptr_t)arena_alloc_aligned(&a, 8, 64)
              % _Alignof(max_align_t) == 0);
        arena_clear(&a);
        prev = NULL;
    }
    CHECK(nonzero == 0);
    CHECK_MSG(packed == 2 * 999, "%zu of 1998 nodes packed", packed);
    CHECK(sizeof(struct tnode) <= 56);
    arena_release(&a);
}

/* An inventory kept as loaded (the linter's) holds each string of a file
 * once: two objects' equal keys and values are one copy (issue 17: a
 * tenth of the memory at 20,000 nodes); a compact one shares them across
 * files too */
static void test_inventory_strings_shared(void)
{
    static const char text[] =
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata: {name: a}\nspec: {selectors: [{cel: {expression: "
        "\"device.driver == 'gpu.example.com'\"}}]}\n---\n"
        "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
        "metadata: {name: b}\nspec: {selectors: [{cel: {expression: "
        "\"device.driver == 'gpu.example.com'\"}}]}\n";
    int compact;

    for (compact = 0; compact < 2; compact++) {
        struct inventory *inv = inventory_new();
        struct err e;
        const struct tnode *x, *y;
        inventory_set_compact(inv, compact);
        CHECK(inventory_add_text(inv, "i.yaml", text, strlen(text), &e)
              == 0);
        CHECK(inventory_size(inv) == 2);
        if (inventory_size(inv) == 2) {
            x = tree_get(tree_get(inv->objs[0]->root, "metadata"), "name");
            y = tree_get(tree_get(inv->objs[1]->root, "metadata"), "name");
            CHECK(x && y && x->key == y->key);
            CHECK(inv->objs[0]->api_version == inv->objs[1]->api_version);
            x = tree_at(inv->objs[0]->root, "spec.selectors");
            y = tree_at(inv->objs[1]->root, "spec.selectors");
            CHECK(x && y && x->n == 1 && y->n == 1
                  && tree_at(x->kids[0], "cel.expression")->str
                     == tree_at(y->kids[0], "cel.expression")->str);
        }
        inventory_free(inv);
    }
}

/* inventory_add_texts(): files parsed on two threads give the objects,
 * their order, the counts per file and the first error of
 * inventory_add_text() one file at a time, compact too (the webhook's
 * snapshots: two files at a time); nothing points into the texts once
 * it returns (the linter lets its inventory files go then) */
static void test_inventory_texts(int compact)
{
    enum { NF = 7 };
    char text[NF][512];
    struct inventory_text t[NF];
    struct inventory *seq, *par;
    struct err e1, e2;
    size_t i, f;
    int r1 = 0, r2;

    static const int bads[] = {-1, 0, 3, NF - 1};  /* the file that fails */

    for (size_t b = 0; b < sizeof(bads) / sizeof(bads[0]); b++) {
        int bad = bads[b];
        seq = inventory_new();
        par = inventory_new();
        inventory_set_compact(seq, compact);
        inventory_set_compact(par, compact);
        for (f = 0; f < NF; f++) {
            snprintf(text[f], sizeof(text[f]),
                     "apiVersion: resource.k8s.io/v1\nkind: DeviceClass\n"
                     "metadata: {name: c%zu}\n---\n"
                     "apiVersion: v1\nkind: List\nitems:\n"
                     "- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, "
                     "metadata: {name: d%zu}}\n"
                     "- {apiVersion: resource.k8s.io/v1, kind: DeviceClass, "
                     "metadata: {name: e%zu}}\n%s",
                     f, f, f, (int)f == bad ? "---\nkey: [unclosed\n" : "");
            t[f].file = f % 2 ? "odd.yaml" : "even.yaml";
            t[f].data = text[f];
            t[f].len = strlen(text[f]);
            t[f].objects = 99;
        }
        for (f = 0; f < NF; f++) {
            r1 = inventory_add_text(seq, t[f].file, t[f].data, t[f].len, &e1);
            if (r1 < 0)
                break;
        }
        r2 = inventory_add_texts(par, t, NF, &e2);
        memset(text, 'x', sizeof(text));
        CHECK(r1 == r2);
        if (r1 < 0 && r2 < 0)
            CHECK_STR(e2.msg, e1.msg);
        CHECK(inventory_size(par) == inventory_size(seq));
        CHECK(inventory_size(par) == 3 * (size_t)(bad < 0 ? NF : bad));
        for (i = 0; i < seq->n && i < par->n; i++) {
            char want[32];
            snprintf(want, sizeof(want), "%c%zu", "cde"[i % 3], i / 3);
            CHECK_STR(par->objs[i]->name, want);
            CHECK_STR(seq->objs[i]->name, want);
            CHECK_STR(par->objs[i]->api_version, "resource.k8s.io/v1");
            CHECK_STR(tree_str(tree_get(par->objs[i]->root, "kind")),
                      "DeviceClass");
        }
        for (f = 0; f < NF; f++)
            CHECK(t[f].objects == (bad >= 0 && (int)f >= bad ? 0 : 3));
        CHECK((inventory_lookup(par, K_CLASS, "", "e2") != NULL)
              == (bad < 0 || bad > 2));
        inventory_free(seq);
        inventory_free(par);
    }
}

/* arena_meter: one counter follows every chunk of several arenas, and
 * is back where it started once they are cleared and released */
static void test_arena_meter(void)
{
    atomic_size_t meter;
    struct arena a, b;
    size_t after_a;

    atomic_init(&meter, 7);
    arena_init(&a, 1024);
    arena_init(&b, 1024);
    arena_alloc(&a, 100);
    arena_meter(&a, &meter);            /* what a holds is added at once */
    CHECK(atomic_load(&meter) == 7 + a.total);
    arena_meter(&b, &meter);
    arena_alloc(&a, 5000);              /* a large block */
    arena_alloc(&a, 900);               /* a new chunk */
    after_a = a.total;
    arena_alloc(&b, 300);
    CHECK(atomic_load(&meter) == 7 + after_a + b.total);
    CHECK(after_a > 5000 + 1024);
    arena_clear(&a);                    /* keeps its first chunk */
    CHECK(atomic_load(&meter) == 7 + a.total + b.total);
    CHECK(a.total < after_a);
    arena_release(&b);
    CHECK(atomic_load(&meter) == 7 + a.total);
    arena_meter(&a, NULL);              /* taken back, no longer counted */
    CHECK(atomic_load(&meter) == 7);
    arena_alloc(&a, 5000);
    CHECK(atomic_load(&meter) == 7);
    arena_release(&a);
}

/* arena_rollback: what was handed out after the mark goes (new chunks,
 * large blocks behind either chunk, counted off the meter), what came
 * before stays, and the current chunk is handed out again from the mark,
 * zeroed: a document loaded into a run's arena and not kept costs
 * nothing (issue 17) */
static void test_arena_rollback(void)
{
    static const size_t sizes[] = {1024, 1024 * 1024};  /* malloc'd, mapped */
    atomic_size_t meter;
    struct arena a;
    struct arena_mark m;
    size_t k, i, total, nonzero = 0;

    for (k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
        char *keep, *again;
        atomic_init(&meter, 0);
        arena_init(&a, sizes[k]);
        arena_meter(&a, &meter);
        arena_mark(&a, &m);             /* an empty arena */
        arena_alloc(&a, 100);
        arena_alloc(&a, 3 * sizes[k]);
        arena_rollback(&a, &m);
        CHECK(a.total == 0 && atomic_load(&meter) == 0);
        keep = arena_strdup(&a, "kept");
        arena_alloc(&a, 3 * sizes[k]);  /* a large block before the mark */
        total = a.total;
        arena_mark(&a, &m);
        for (i = 0; i < 3; i++) {
            unsigned char *p = arena_alloc(&a, 200);
            memset(p, 0xff, 200);
            memset(arena_alloc(&a, 2 * sizes[k]), 0xff, 2 * sizes[k]);
            for (size_t j = 0; j < 2 * sizes[k] / 200; j++)
                memset(arena_alloc(&a, 200), 0xff, 200);
        }
        CHECK(a.total > total);
        arena_rollback(&a, &m);
        CHECK(a.total == total && atomic_load(&meter) == total);
        CHECK_STR(keep, "kept");
        again = arena_alloc(&a, 200);   /* where the first 200 were */
        for (i = 0; i < 200; i++)
            nonzero += again[i] != 0;
        arena_mark(&a, &m);             /* nothing after it: no change */
        arena_rollback(&a, &m);
        CHECK(a.total == total);
        arena_release(&a);
        CHECK(atomic_load(&meter) == 0);
    }
    CHECK(nonzero == 0);
}

/* arena_free: a block of its own goes back (counted off the meter too);
 * memory sharing a chunk stays. A strmap keeps only its last table: 20,000
 * keys hold the final table, the keys and a chunk's slack, where every
 * table it outgrew (as much again) stayed before (issue 17). */
/* arena_move_block: a block of its own (a large block, one grown with
 * arena_grow, a mapped one) changes arena with its contents, counted and
 * freed by the new one; memory that shares a chunk does not move. */
static void test_arena_move(void)
{
    atomic_size_t msrc, mdst;
    struct arena src, dst, run;
    size_t s0, d0;
    char *small, *big, *grown = NULL, *mapped;
    size_t i;

    atomic_init(&msrc, 0);
    atomic_init(&mdst, 0);
    arena_init(&src, 4096);
    arena_init(&dst, 4096);
    arena_meter(&src, &msrc);
    arena_meter(&dst, &mdst);
    small = arena_alloc(&src, 64);
    d0 = dst.total;
    CHECK(arena_move_block(&dst, &src, small) == -1 && dst.total == d0);
    CHECK(arena_move_block(&dst, &src, NULL) == -1);
    big = arena_alloc(&src, 5000);      /* a large block */
    memset(big, 'x', 5000);
    s0 = src.total;
    CHECK(arena_move_block(&dst, &src, big) == 0);
    CHECK(src.total < s0 && dst.total == d0 + (s0 - src.total)
          && atomic_load(&msrc) == src.total
          && atomic_load(&mdst) == dst.total);
    CHECK(arena_move_block(&dst, &src, big) == -1);   /* src's no more */
    for (i = 0; i < 3000; i++) {        /* outgrows its chunk */
        grown = arena_grow(&src, grown, i, i + 1, 1);
        grown[i] = (char)i;
    }
    CHECK(arena_move_block(&dst, &src, grown) == 0);
    arena_release(&src);                /* what moved stays */
    CHECK(atomic_load(&msrc) == 0);
    for (i = 0; i < 5000 && big[i] == 'x'; i++)
        ;
    CHECK(i == 5000);
    for (i = 0; i < 3000 && grown[i] == (char)i; i++)
        ;
    CHECK(i == 3000);
    /* and back: a moved block moves again, then goes with its arena */
    arena_init(&src, 4096);
    CHECK(arena_move_block(&src, &dst, big) == 0);
    arena_release(&src);
    arena_release(&dst);
    CHECK(atomic_load(&mdst) == 0);
    /* a mapped block (a run arena's) into a malloc'd arena's list */
    arena_init(&run, ARENA_RUN_BYTES);
    arena_init(&dst, 4096);
    mapped = arena_alloc(&run, 512 * 1024);
    mapped[512 * 1024 - 1] = 1;
    CHECK(arena_move_block(&dst, &run, mapped) == 0);
    arena_release(&run);
    CHECK(mapped[512 * 1024 - 1] == 1);
    arena_release(&dst);
}

static void test_arena_free(void)
{
    atomic_size_t meter;
    struct arena a;
    struct strmap m;
    size_t before, i;
    char *blk, *small, key[32];

    atomic_init(&meter, 0);
    arena_init(&a, 4096);
    arena_meter(&a, &meter);
    small = arena_alloc(&a, 64);
    before = a.total;
    blk = arena_alloc_block(&a, 100);   /* own chunk, though small */
    CHECK(blk[0] == 0 && blk[99] == 0);
    CHECK(a.total > before);
    arena_free(&a, blk, 100);
    CHECK(a.total == before && atomic_load(&meter) == before);
    arena_free(&a, small, 64);          /* shares the chunk: stays */
    CHECK(a.total == before);
    small[63] = 1;
    blk = arena_alloc(&a, 5000);        /* a large block */
    arena_free(&a, blk, 5000);
    CHECK(a.total == before);
    arena_release(&a);
    CHECK(atomic_load(&meter) == 0);

    arena_init(&a, 65536);
    strmap_init(&m, &a);
    for (i = 0; i < 20000; i++) {
        snprintf(key, sizeof(key), "k%zu", i);
        strmap_put(&m, key, &m);
    }
    CHECK(strmap_get(&m, "k0") == &m && strmap_get(&m, "k19999") == &m);
    CHECK(a.total < m.cap * sizeof(*m.slots) + 5 * 65536);
    /* a borrowed key is the caller's string, not a copy; a copied one is
     * a copy */
    {
        static const char lent[] = "lent";
        strmap_put_borrowed(&m, lent, &a);
        CHECK(strmap_get(&m, "lent") == &a && strmap_intern(&m, "lent") == lent);
        snprintf(key, sizeof(key), "kept");
        strmap_put(&m, key, &a);
        CHECK(strmap_intern(&m, "kept") != key);
    }
    arena_release(&a);
}

/* len 'x's with byte pos 'A' + v */
static void spread_key(char *key, size_t len, size_t pos, size_t v)
{
    memset(key, 'x', len);
    key[len] = '\0';
    key[pos] = (char)('A' + v);
}

/* Keys that differ in one byte only, anywhere in an eight-byte word or
 * in the tail after the last whole word, all found again and spread over
 * the table: a hash whose low bits (which pick the slot) missed some
 * bytes would pile such keys into long probe runs. */
static void test_strmap_spread(void)
{
    struct arena a;
    struct strmap m;
    char key[48];
    size_t len, pos, v, i, n = 0, moved = 0, found = 0;

    arena_init(&a, 65536);
    strmap_init(&m, &a);
    for (len = 1; len <= 40; len++)
        for (pos = 0; pos < len; pos++)
            for (v = 0; v < 16; v++) {
                spread_key(key, len, pos, v);
                strmap_put(&m, key, (void *)(uintptr_t)(len * 1000 + pos));
                n++;
            }
    CHECK(m.n == n);
    for (len = 1; len <= 40; len++)
        for (pos = 0; pos < len; pos++)
            for (v = 0; v < 16; v++) {
                spread_key(key, len, pos, v);
                found += strmap_get(&m, key)
                         == (void *)(uintptr_t)(len * 1000 + pos)
                         && strmap_get_hashed(&m, key, strmap_hash(key))
                            == strmap_get(&m, key);
            }
    CHECK(found == n);
    memset(key, 'x', 40);
    key[40] = '\0';
    CHECK(strmap_get(&m, key) == NULL);
    key[39] = '\0';
    CHECK(strmap_get(&m, key) == NULL);
    /* how far each key sits from its home slot (load <= 1/2) */
    for (i = 0; i < m.cap; i++) {
        size_t home;
        if (!m.slots[i].key)
            continue;
        home = m.slots[i].hash & (m.cap - 1);
        moved += (i - home) & (m.cap - 1);
    }
    CHECK(moved < n);
    arena_release(&a);
}

/* strmap_reserve() makes the table once: no growing (a table made and
 * touched per doubling) while the keys reserved for are added, and the
 * same lookups; strmap_intern_borrowed() keeps the first pointer given
 * for a text, which strmap_get() answers too. */
static void test_strmap_reserve(void)
{
    struct arena a;
    struct strmap m;
    const struct strmap_slot *table;
    size_t i, cap;
    char key[32];
    static const char one[] = "same", two[] = "same";

    arena_init(&a, 65536);
    strmap_init(&m, &a);
    strmap_reserve(&m, 5000);
    table = m.slots;
    cap = m.cap;
    CHECK(cap >= 2 * 5001 && cap < 4 * 5001);
    for (i = 0; i < 5000; i++) {
        snprintf(key, sizeof(key), "k%zu", i);
        strmap_put(&m, key, &m);
    }
    CHECK(m.slots == table && m.cap == cap && m.n == 5000);
    CHECK(strmap_get(&m, "k0") == &m && strmap_get(&m, "k4999") == &m
          && !strmap_get(&m, "k5000"));
    strmap_reserve(&m, 100);            /* smaller: nothing changes */
    CHECK(m.slots == table && m.cap == cap);
    strmap_put(&m, "k5000", &a);        /* past it: grows as before */
    CHECK(strmap_get(&m, "k5000") == &a && strmap_get(&m, "k17") == &m);

    CHECK(strmap_intern_borrowed(&m, one) == one);
    CHECK(strmap_intern_borrowed(&m, two) == one);
    CHECK(strmap_get(&m, "same") == one);
    strmap_put_borrowed(&m, "other", (void *)&a);   /* an entry's value */
    CHECK(strmap_intern_borrowed(&m, "other") != NULL
          && strmap_get(&m, "other") == &a);
    arena_release(&a);
}

static void test_buf(void)
{
    struct buf b;

    buf_init(&b, 5000);                 /* a body of known length */
    CHECK(buf_adds(&b, "ab") == 0);
    CHECK(buf_presize(&b, 3000) == 0);
    CHECK(b.cap == 2 + 3000 + 1);       /* exactly, no doubling */
    CHECK(buf_presize(&b, 10) == 0 && b.cap == 3003);
    CHECK(buf_presize(&b, 4999) == -1); /* past max: refused, unchanged */
    CHECK(b.cap == 3003 && b.len == 2 && strcmp(b.p, "ab") == 0);
    buf_release(&b);
    buf_init(&b, 8);
    CHECK(buf_adds(&b, "12345678") == 0);
    CHECK(buf_addc(&b, '9') == -1);     /* past the limit: refused */
    CHECK(b.len == 8);
    CHECK_STR(b.p, "12345678");
    buf_release(&b);
    buf_init(&b, 100);
    buf_add_json_str(&b, "a\"b\\\n\x01\xff");
    CHECK_STR(b.p, "\"a\\\"b\\\\\\n\\u0001\\ufffd\"");
    buf_release(&b);
    /* base64 (kubeconfig -data fields): padding optional, line breaks
     * ignored, anything else refused with the buffer left as it was */
    buf_init(&b, 100);
    CHECK(buf_add_base64(&b, "aGVsbG8=", 8, 0) == 0);
    CHECK_STR(b.p, "hello");
    CHECK(buf_add_base64(&b, "IHdv\ncmxk", 9, 0) == 0);
    CHECK_STR(b.p, "hello world");
    CHECK(buf_add_base64(&b, "IQ", 2, 0) == 0);
    CHECK_STR(b.p, "hello world!");
    CHECK(buf_add_base64(&b, "a*b=", 4, 0) == -1);
    CHECK(buf_add_base64(&b, "aGVsbG8=x", 9, 0) == -1);
    CHECK(buf_add_base64(&b, "aGVsb", 5, 0) == -1);     /* 6 bits left over */
    CHECK_STR(b.p, "hello world!");
    buf_release(&b);
    buf_init(&b, 4);
    CHECK(buf_add_base64(&b, "aGVsbG8=", 8, 0) == -1);  /* past the max */
    CHECK(b.len == 0);
    buf_release(&b);
    /* strict: Go's StdEncoding, as YAML's !!binary is decoded */
    buf_init(&b, 100);
    CHECK(buf_add_base64(&b, "aGVs\r\nbG8=", 10, 1) == 0);
    CHECK_STR(b.p, "hello");
    CHECK(buf_add_base64(&b, "aGVsbG8", 7, 1) == -1);   /* no padding */
    CHECK(buf_add_base64(&b, "aGVs bG8=", 9, 1) == -1); /* a space */
    CHECK(buf_add_base64(&b, "aGVsbG9=", 8, 1) == -1);  /* bits in the pad */
    CHECK_STR(b.p, "hello");
    buf_release(&b);
    /* for a terminal or a CI log: controls, C1, stray bytes escaped;
     * UTF-8 kept; a leading "::" (after spaces) only at a line start */
    buf_init(&b, 200);
    buf_add_visible(&b, "a\nb\r\t\x1b]0;\x07\x7f\xc2\x9b\x9b \xc3\xa9::x", 0);
    CHECK_STR(b.p, "a\\nb\\r\\t\\e]0;\\x07\\x7f\\u009b\\x9b \xc3\xa9::x");
    buf_reset(&b);
    buf_add_visible(&b, "  ::error::x", 1);
    CHECK_STR(b.p, "  \\x3a:error::x");
    buf_reset(&b);
    buf_add_visible(&b, "::x", 0);
    CHECK_STR(b.p, "::x");
    buf_release(&b);
}

static void test_scalars(void)
{
    struct arena a;
    struct ydocs d;
    const struct tnode *r;
    long long v;

    arena_init(&a, 4096);
    d = load(&a, "a: 12\nb: \"12\"\nc: yes\nd: 'on'\ne: 1.5\nf: ~\n"
                 "g: 0x1F\nh: 99999999999999999999\ni: -9223372036854775808\n"
                 "j: !!str 7\nk: 1e3\n");
    CHECK(d.n == 1 && d.v[0].root);
    r = d.v[0].root;
    CHECK(tree_int(tree_get(r, "a"), &v) == 0 && v == 12);
    CHECK_STR(tree_str(tree_get(r, "b")), "12");
    CHECK(tree_true(tree_get(r, "c")));
    CHECK_STR(tree_str(tree_get(r, "d")), "on");
    CHECK(tree_get(r, "e")->kind == T_FLOAT);
    CHECK(tree_get(r, "f")->kind == T_NULL);
    CHECK(tree_int(tree_get(r, "g"), &v) == 0 && v == 31);
    CHECK(tree_get(r, "h")->kind == T_FLOAT);   /* beyond int64 */
    CHECK(tree_int(tree_get(r, "i"), &v) == 0 && v == (-9223372036854775807LL - 1));
    CHECK(tree_get(r, "j")->kind == T_STR);
    CHECK(tree_get(r, "k")->kind == T_FLOAT);
    arena_release(&a);
}

/* Every spelling of go-yaml v2's resolve map, and texts that only look
 * like one (another case, a byte more or less): tree.c finds the map's
 * rows by their first byte, so a row it cannot reach shows here */
static void test_resolve_spellings(void)
{
    static const char *const yes[] = {"y", "Y", "yes", "Yes", "YES",
        "true", "True", "TRUE", "on", "On", "ON"};
    static const char *const no[] = {"n", "N", "no", "No", "NO", "false",
        "False", "FALSE", "off", "Off", "OFF"};
    static const char *const nulls[] = {"~", "null", "Null", "NULL"};
    static const char *const floats[] = {".nan", ".NaN", ".NAN", ".inf",
        ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf",
        "-.INF"};
    static const char *const strs[] = {"yES", "yeS", "tRUE", "oN", "oFF",
        "nO", "nULL", "fALSE", ".NaNa", ".iNF", "+.nan", "-.nan", "+inf",
        "ye", "yess", "tru", "nul", "nulls", "of", "offf", "~~", "o", "t",
        "f", "F", "T", "O", "name", "type", "node", "Never", "ok", "+",
        "-x", ".", "falsy", "Falsey", "x", "\xc3\xa9"};
    struct arena a;
    struct ydocs d;
    const struct tnode *r;
    char text[64];
    size_t i;

    arena_init(&a, 4096);
    for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
        snprintf(text, sizeof(text), "v: %s\n%s: 1\n", yes[i], yes[i]);
        d = load(&a, text);
        r = d.v[0].root;
        CHECK(r->kids[0]->kind == T_BOOL && tree_true(r->kids[0]));
        CHECK_STR(r->kids[1]->key, "true");
    }
    for (i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
        snprintf(text, sizeof(text), "v: %s\n%s: 1\n", no[i], no[i]);
        d = load(&a, text);
        r = d.v[0].root;
        CHECK(r->kids[0]->kind == T_BOOL && !tree_true(r->kids[0]));
        CHECK_STR(r->kids[1]->key, "false");
    }
    for (i = 0; i < sizeof(nulls) / sizeof(nulls[0]); i++) {
        snprintf(text, sizeof(text), "v: %s\n", nulls[i]);
        d = load(&a, text);
        CHECK(d.v[0].root->kids[0]->kind == T_NULL);
    }
    d = load(&a, "v:\n");
    CHECK(d.v[0].root->kids[0]->kind == T_NULL);
    for (i = 0; i < sizeof(floats) / sizeof(floats[0]); i++) {
        snprintf(text, sizeof(text), "%s: 1\n", floats[i]);
        d = load(&a, text);     /* a value has no JSON form: as a key */
        CHECK(d.v[0].root->kids[0]->key != NULL);
        CHECK_STR(d.v[0].root->kids[0]->key,
                  floats[i][1] == 'n' || floats[i][1] == 'N' ? ".nan"
                  : floats[i][0] == '-' ? "-.inf" : ".inf");
    }
    for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
        snprintf(text, sizeof(text), "v: %s\n", strs[i]);
        d = load(&a, text);
        CHECK(d.v[0].root != NULL);
        if (!d.v[0].root)
            continue;
        CHECK(d.v[0].root->kids[0]->kind == T_STR);
        CHECK_STR(tree_str(d.v[0].root->kids[0]), strs[i]);
    }
    /* a tag decides, whatever the first byte says */
    d = load(&a, "v: !!int abc\n");
    CHECK(d.n == 1 && d.v[0].error != NULL);
    d = load(&a, "v: !!binary aGk=\n");
    CHECK(d.n == 1 && d.v[0].root
          && !strcmp(tree_str(d.v[0].root->kids[0]), "hi"));
    arena_release(&a);
}

/* Maps and sequences deeper and wider than the loader's inline scratch
 * (16 frames of 8 kids on the stack, then the heap), twice in one stream
 * (the scratch of the first document is reused by nothing): every member
 * in its place, in source order, with its value. */
static void test_deep_wide(void)
{
    struct arena a;
    struct buf b;
    struct ydocs d;
    const struct tnode *m;
    int depth, k, doc, ok;

    arena_init(&a, 65536);
    buf_init(&b, 1 << 20);
    for (doc = 0; doc < 2; doc++) {
        buf_adds(&b, "---\n");
        for (depth = 0; depth < 40; depth++) {
            for (k = 0; k < 20; k++)
                buf_addf(&b, "%*sk%d: %d\n", depth * 2, "", k,
                         depth * 100 + k);
            buf_addf(&b, "%*ss: [", depth * 2, "");
            for (k = 0; k < 12; k++)
                buf_addf(&b, "%s%d", k ? ", " : "", k + depth);
            buf_addf(&b, "]\n%*snext:\n", depth * 2, "");
        }
        buf_addf(&b, "%*send: 1\n", depth * 2, "");
    }
    load_yaml(&a, b.p, b.len, &d);
    CHECK(d.n == 2);
    for (doc = 0; doc < (int)d.n; doc++) {
        ok = 1;
        m = d.v[doc].root;
        for (depth = 0; depth < 40 && ok; depth++) {
            ok = m && m->kind == T_MAP && m->n == 22;
            for (k = 0; k < 20 && ok; k++) {
                char key[16];
                long long v;
                snprintf(key, sizeof(key), "k%d", k);
                ok = !strcmp(m->kids[k]->key, key)
                     && tree_int(m->kids[k], &v) == 0
                     && v == depth * 100 + k;
            }
            ok = ok && !strcmp(m->kids[20]->key, "s")
                 && m->kids[20]->kind == T_SEQ && m->kids[20]->n == 12;
            for (k = 0; k < 12 && ok; k++) {
                long long v;
                ok = tree_int(m->kids[20]->kids[k], &v) == 0
                     && v == k + depth;
            }
            ok = ok && !strcmp(m->kids[21]->key, "next");
            m = ok ? m->kids[21] : NULL;
        }
        CHECK_MSG(ok, "document %d: level %d differs", doc, depth - 1);
        CHECK(m && m->kind == T_MAP && m->n == 1
              && !strcmp(m->kids[0]->key, "end"));
    }
    buf_release(&b);
    arena_release(&a);
}

static void test_positions_and_paths(void)
{
    struct arena a;
    struct ydocs d;
    const struct tnode *r, *lim;
    unsigned line, col;

    arena_init(&a, 4096);
    d = load(&a, "# comment\n---\napiVersion: v1\nkind: Pod\nspec:\n"
                 "  containers:\n  - name: a\n    resources:\n      limits:\n"
                 "        nvidia.com/gpu: 1\n");
    CHECK(d.n == 1);
    r = d.v[0].root;
    lim = tree_get(tree_get(tree_get(tree_at(r, "spec.containers")->kids[0],
                                     "resources"), "limits"), "nvidia.com/gpu");
    CHECK(lim != NULL);
    tree_pos(lim, &line, &col);
    CHECK(line == 10 && col == 9);
    CHECK_STR(tree_path(&a, r, lim),
              "spec.containers[0].resources.limits[nvidia.com/gpu]");
    arena_release(&a);
}

static void test_documents(void)
{
    struct arena a;
    struct ydocs d;

    arena_init(&a, 4096);
    /* a comment-only document is dropped (kubectl skips its null) */
    d = load(&a, "a: 1\n---\nb: [\n---\nc: 3\n...\n---\n# only a comment\n");
    CHECK(d.n == 3);
    CHECK(d.v[0].root && !d.v[0].error);
    CHECK(d.v[1].error != NULL && d.v[1].line >= 3);
    CHECK(d.v[2].root && tree_get(d.v[2].root, "c"));
    /* `...` is no separator: go-yaml reads the first document only */
    d = load(&a, "a: 1\n...\nb: 2\n---\nc: 3\n");
    CHECK(d.n == 2 && d.v[0].root && tree_get(d.v[0].root, "a")
          && !tree_get(d.v[0].root, "b") && tree_get(d.v[1].root, "c"));
    d = load(&a, "");
    CHECK(d.n == 0);
    d = load(&a, "\xef\xbb\xbf" "a: 1\n");    /* BOM */
    CHECK(d.n == 1 && d.v[0].root);
    /* kubectl's reader cuts a directive from its document: an error */
    d = load(&a, "%YAML 1.1\n---\na: 1\n");
    CHECK(d.n == 2 && d.v[0].error && d.v[1].root && !d.v[1].error);
    /* only a comment may follow `---`: the rest is still read */
    d = load(&a, "a: 1\n--- !!map\nb: 2\n");
    CHECK(d.n == 3 && d.v[0].root && d.v[1].error && d.v[1].line == 2
          && strstr(d.v[1].error, "!!map") && tree_get(d.v[2].root, "b"));
    arena_release(&a);
}

static void test_limits(void)
{
    struct arena a;
    struct ydocs d;
    char *deep;
    size_t i, n = 100000;
    clock_t t0;

    arena_init(&a, 65536);
    deep = malloc(2 * n + 1);
    for (i = 0; i < n; i++) {
        deep[i] = '[';
        deep[n + i] = ']';
    }
    deep[2 * n] = '\0';
    t0 = clock();
    load_yaml(&a, deep, 2 * n, &d);
    CHECK(d.n == 1 && d.v[0].error && strstr(d.v[0].error, "nesting"));
    /* the cap is applied while streaming: far below libyaml's quadratic
     * time for the whole input (a generous bound, not a benchmark) */
    CHECK((double)(clock() - t0) / CLOCKS_PER_SEC < 5.0);
    free(deep);

    /* block nesting is capped too */
    {
        struct buf b;
        buf_init(&b, 1 << 24);
        for (i = 0; i < 300; i++) {
            size_t k;
            for (k = 0; k < i; k++)
                buf_addc(&b, ' ');
            buf_adds(&b, "k:\n");
        }
        load_yaml(&a, b.p, b.len, &d);
        CHECK(d.n == 1 && d.v[0].error);
        buf_release(&b);
    }
    /* alias bomb */
    d = load(&a, "a: &a [1,1,1,1,1,1,1,1,1,1]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\n"
                 "c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\n"
                 "e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\n"
                 "g: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n");
    CHECK(d.n == 1 && d.v[0].error && strstr(d.v[0].error, "alias"));
    d = load(&a, "a: *nope\n");
    CHECK(d.n == 1 && d.v[0].error && strstr(d.v[0].error, "unknown anchor"));
    /* merge keys: keys after `<<` win (tests/k8s/decode has the rest) */
    d = load(&a, "base: &b {x: 1, z: 2}\nm:\n  <<: *b\n  z: 3\n");
    CHECK(d.n == 1 && d.v[0].root);
    {
        long long v;
        const struct tnode *m = tree_get(d.v[0].root, "m");
        CHECK(tree_int(tree_get(m, "x"), &v) == 0 && v == 1);
        CHECK(tree_int(tree_get(m, "z"), &v) == 0 && v == 3);
        CHECK(m->n == 2);
    }
    /* duplicate keys: last wins, flagged */
    d = load(&a, "a: 1\na: 2\n");
    CHECK(d.n == 1 && d.v[0].root && d.v[0].root->n == 1);
    {
        long long v;
        CHECK(tree_int(tree_get(d.v[0].root, "a"), &v) == 0 && v == 2);
        CHECK(tree_get(d.v[0].root, "a")->flags & TF_DUP);
    }
    /* NUL bytes, binary garbage, invalid UTF-8 */
    d.n = 0;
    load_yaml(&a, "a: 1\0b: 2\n", 10, &d);
    CHECK(d.n == 1 && d.v[0].error);
    load_yaml(&a, "\x89PNG\r\n\x1a\n\0\0\0\rIHDR", 16, &d);
    CHECK(d.n == 1 && d.v[0].error);
    d = load(&a, "a: \xc3\x28\n");
    CHECK(d.n == 1 && d.v[0].error && strstr(d.v[0].error, "UTF-8"));
    /* many empty documents: a `---` with nothing before it stays in the
     * next document, as in kubectl's reader, so they come in pairs */
    {
        struct buf b;
        buf_init(&b, 1 << 20);
        for (i = 0; i < 10000; i++)
            buf_adds(&b, "---\n");
        load_yaml(&a, b.p, b.len, &d);
        CHECK(d.n == 5000);
        for (i = 0; i < d.n && !d.v[i].error
             && (!d.v[i].root || d.v[i].root->kind == T_NULL); i++)
            ;
        CHECK(i == 5000);
        buf_release(&b);
    }
    /* a big map keeps lookups right (hashing past 16 keys) */
    {
        struct buf b;
        buf_init(&b, 1 << 20);
        for (i = 0; i < 5000; i++)
            buf_addf(&b, "k%zu: %zu\n", i, i);
        buf_adds(&b, "k42: dup\n");
        load_yaml(&a, b.p, b.len, &d);
        CHECK(d.n == 1 && d.v[0].root && d.v[0].root->n == 5000);
        CHECK_STR(tree_str(tree_get(d.v[0].root, "k42")), "dup");
        CHECK(tree_get(d.v[0].root, "k42")->flags & TF_DUP);
        CHECK(!(tree_get(d.v[0].root, "k41")->flags & TF_DUP));
        buf_release(&b);
    }
    arena_release(&a);
}

static void test_names(void)
{
    CHECK(name_is_dns_label("gpu-0"));
    CHECK(!name_is_dns_label("GPU"));
    CHECK(!name_is_dns_label("-a"));
    CHECK(!name_is_dns_label("a.b"));
    CHECK(name_is_dns_subdomain("gpu.nvidia.com"));
    CHECK(!name_is_dns_subdomain("gpu..com"));
    CHECK(!name_is_dns_subdomain("gpu.-a.com"));
    CHECK(!name_is_dns_subdomain("gpu.com."));
    CHECK(name_is_dns_subdomain("a") && name_is_dns_subdomain("0.a-b.c")
          && name_is_dns_subdomain("a--b.9"));
    CHECK(!name_is_dns_subdomain("") && !name_is_dns_subdomain(".a")
          && !name_is_dns_subdomain("-a") && !name_is_dns_subdomain("a-")
          && !name_is_dns_subdomain("a-.b") && !name_is_dns_subdomain("a.")
          && !name_is_dns_subdomain("a_b") && !name_is_dns_subdomain("aB")
          && !name_is_dns_subdomain("a b") && !name_is_dns_subdomain("-")
          && !name_is_dns_subdomain("."));
    {
        /* IsDNS1123Subdomain limits the whole name to 253, not its parts
         * to 63 (IsDNS1123Label's limit): a 64-character part is valid */
        char s[80];
        memset(s, 'a', 64);
        memcpy(s + 64, ".example.com", 13);
        CHECK(name_is_dns_subdomain(s));
    }
    CHECK(name_is_label_key("kubernetes.io/hostname"));
    CHECK(name_is_label_key("GPU"));
    CHECK(name_is_label_key("a_b.c-d"));
    CHECK(!name_is_label_key(""));
    CHECK(!name_is_label_key("invalid key"));
    CHECK(!name_is_label_key("/a"));
    CHECK(!name_is_label_key("Example.com/a"));
    CHECK(!name_is_label_key("a/b/c"));
    CHECK(!name_is_label_key("a/"));
    CHECK(!name_is_label_key("a-"));
    CHECK(name_is_label_value(""));
    CHECK(name_is_label_value("NVIDIA-GRID-K1"));
    CHECK(!name_is_label_value("-1"));
    CHECK(!name_is_label_value("a b"));
    CHECK(!name_is_label_value("a/b"));
    CHECK(name_is_fully_qualified("resource.kubernetes.io/pcieRoot"));
    CHECK(!name_is_fully_qualified("pcieRoot"));
    CHECK(!name_is_fully_qualified("a/b/c"));
    CHECK(name_is_extended_resource("nvidia.com/gpu"));
    CHECK(name_is_extended_resource("deviceclass.resource.kubernetes.io/gpu"));
    CHECK(!name_is_extended_resource("cpu"));
    CHECK(!name_is_extended_resource("kubernetes.io/foo"));
    CHECK(!name_is_extended_resource("requests.nvidia.com/gpu"));
    /* apimachinery's rules (issue 14) */
    {
        char long_label[80], masked[16];
        memset(long_label, 'a', 70);
        memcpy(long_label + 70, ".com", 5);
        /* the labels of a subdomain have no limit of their own */
        CHECK(name_is_dns_subdomain(long_label));
        CHECK(!name_is_dns_label(long_label));
        name_mask_trailing_dash("pvc-", masked);
        CHECK(strcmp(masked, "pva") == 0);
        name_mask_trailing_dash("-", masked);
        CHECK(strcmp(masked, "-") == 0);
    }
    CHECK(name_is_label_key("example.com/My_Name.1"));
    CHECK(name_is_label_key("team"));
    CHECK(!name_is_label_key("/team"));
    CHECK(!name_is_label_key("a/b/c"));
    CHECK(!name_is_label_key("Example.com/x"));
    CHECK(!name_is_label_key("team-"));
    CHECK(name_is_label_value(""));
    CHECK(!name_is_label_value("ml platform"));
    CHECK(name_is_dns1035_label("a1"));
    CHECK(!name_is_dns1035_label("1a"));
    CHECK(!name_is_extended_resource("example.com/bad name"));
    CHECK(!name_is_extended_resource("Example.com/gpu"));
}

/* The kinds table (validate/kinds.h): one row per K_* bit, consistent
 * with what the readers assume. */
static void test_kinds(void)
{
    unsigned seen = 0;
    size_t i, j;

    CHECK(kind_count <= KIND_MAX);
    for (i = 0; i < kind_count; i++) {
        const struct kind_info *k = &kind_table[i];
        const char *p;
        CHECK_MSG(k->bit && !(k->bit & (k->bit - 1)) && !(seen & k->bit),
                  "kind '%s': not one bit of its own", k->name);
        seen |= k->bit;
        CHECK_MSG(kind_by_name(k->name, strlen(k->name)) == k
                  && kind_by_bit(k->bit) == k
                  && !strcmp(kind_bit_name(k->bit), k->name),
                  "kind '%s': lookups miss it", k->name);
        CHECK_MSG(kind_group_ok(k, k->group), "kind '%s': its group is not "
                  "among its groups", k->name);
        CHECK_MSG(!!k->pod_path == !!(k->bit & K_PODLIKE)
                  && !!k->meta_path == !!(k->bit & K_WORKLOADS),
                  "kind '%s': pod template paths disagree with K_PODLIKE",
                  k->name);
        for (p = k->plural; *p; p++)
            if (*p < 'a' || *p > 'z')
                break;
        CHECK_MSG(*k->plural && !*p, "kind '%s': plural '%s'", k->name,
                  k->plural);
        for (j = 0; j < i; j++)
            CHECK_MSG(strcmp(kind_table[j].plural, k->plural),
                      "plural '%s' twice", k->plural);
    }
    CHECK_MSG(seen == K_ALL, "bits without a row: 0x%x", K_ALL & ~seen);
    CHECK(kind_by_name("Pods", 4) == NULL && kind_by_name("Po", 2) == NULL);
    CHECK(!kind_group_ok(kind_by_bit(K_POD), "apps")
          && !kind_group_ok(kind_by_bit(K_NODE), "x")
          && kind_group_ok(kind_by_bit(K_DEPLOYMENT), "extensions")
          && !kind_group_ok(kind_by_bit(K_DEPLOYMENT), "")
          && !kind_group_ok(kind_by_bit(K_DEPLOYMENT), "app"));
    /* a name is len bytes of a longer text, not a C string */
    CHECK(kind_by_name("PodX", 3) == kind_by_bit(K_POD)
          && kind_by_name("ResourceClaimTemplate", 13)
             == kind_by_bit(K_CLAIM)
          && kind_by_name("", 0) == NULL && kind_by_name("Cron", 4) == NULL
          && kind_by_name("pod", 3) == NULL);
    CHECK(!strcmp(kind_bit_name(0), "object"));
    CHECK(kind_group_ok(kind_by_bit(K_DEPLOYMENT), "extensions")
          && !kind_group_ok(kind_by_bit(K_DEPLOYMENT), "app")
          && !kind_group_ok(kind_by_bit(K_POD), "apps"));
    /* cluster-scoped kinds: no namespace in object keys */
    CHECK(!kind_by_bit(K_NODE)->namespaced && kind_by_bit(K_CLAIM)->namespaced);
    CHECK((kind_bits(KIND_INVENTORY) & K_PODLIKE) == 0
          && (kind_bits(KIND_INVENTORY) & K_SLICE));
}

static void test_object_model(void)
{
    struct arena a;
    struct ydocs d;
    struct object o;
    const struct tnode *bad;
    const char *why;

    arena_init(&a, 4096);
    d = load(&a, "apiVersion: resource.k8s.io/v1beta1\nkind: ResourceClaimTemplate\n"
                 "metadata: {name: t, namespace: ml}\nspec:\n  spec:\n    devices:\n"
                 "      requests:\n      - name: gpu\n        deviceClassName: gpu.example.com\n"
                 "        count: 2\n        selectors:\n        - cel: {expression: 'true'}\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OK);
    CHECK(o.kind == K_TEMPLATE && o.claim && o.claim->shape == DRA_FLAT);
    CHECK(o.claim->nreqs == 1);
    CHECK_STR(o.claim->reqs[0].class_name, "gpu.example.com");
    CHECK(o.claim->reqs[0].count == 2 && o.claim->reqs[0].nsel == 1);
    CHECK_STR(o.claim->reqs[0].sel[0].expr, "true");

    d = load(&a, "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                 "metadata: {name: c}\nspec:\n  devices:\n    requests:\n"
                 "    - name: gpu\n      firstAvailable:\n      - name: big\n"
                 "        deviceClassName: big.example.com\n"
                 "    - name: nic\n      exactly: {deviceClassName: nic, allocationMode: All}\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OK);
    CHECK(o.claim->shape == DRA_EXACTLY && o.claim->nreqs == 2);
    CHECK(o.claim->reqs[0].nsubs == 1);
    CHECK_STR(o.claim->reqs[0].subs[0].class_name, "big.example.com");
    CHECK(o.claim->reqs[0].subs[0].parent == &o.claim->reqs[0]);
    CHECK_STR(o.claim->reqs[1].mode, "All");
    CHECK_STR(object_ns(&o), "default");

    d = load(&a, "apiVersion: batch/v1\nkind: CronJob\nmetadata: {name: nightly}\n"
                 "spec:\n  jobTemplate:\n    spec:\n      parallelism: 3\n      template:\n"
                 "        spec:\n          containers: [{name: a}]\n"
                 "          resourceClaims: [{name: g, resourceClaimName: x}]\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OK);
    CHECK(o.kind == K_CRONJOB && o.replicas == 3 && o.pod->nclaims == 1);
    CHECK_STR(o.pod->claims[0].claim_name, "x");

    /* the members object_read() takes in one pass, in any order */
    d = load(&a, "spec: {containers: [{name: a}, {name: b}]}\n"
                 "metadata: {generateName: g-, namespace: ns1}\nkind: Pod\n"
                 "apiVersion: v1\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OK);
    CHECK(o.kind == K_POD && o.spec && o.pod && o.pod->nctrs == 2);
    CHECK_STR(o.name, "g-");
    CHECK_STR(o.ns, "ns1");
    CHECK_STR(o.api_version, "v1");
    d = load(&a, "kind: Pod\nmetadata: {generateName: g-, name: p}\n"
                 "apiVersion: v1\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OK);
    CHECK(o.kind == K_POD && !o.spec && *o.ns == '\0');
    CHECK_STR(o.name, "p");
    CHECK(o.pod && !o.pod->spec && !o.pod->meta && !o.pod->nctrs);
    /* an empty pod spec is read as none, its template's metadata kept */
    d = load(&a, "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: d}\n"
                 "spec: {template: {metadata: {labels: {a: b}}, spec: {}}}\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OK);
    CHECK(o.pod && o.pod->spec && o.pod->spec->kind == T_MAP
          && tree_get(o.pod->meta, "labels") && !o.pod->nctrs
          && !o.pod->claims_node);

    d = load(&a, "apiVersion: example.com/v1\nkind: Pod\nmetadata: {name: x}\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_OTHER);
    d = load(&a, "foo: bar\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_NOT_K8S);
    d = load(&a, "apiVersion: v1\n");
    CHECK(object_read(&a, d.v[0].root, "f", 0, &o, &bad, &why) == OBJ_BAD);
    d = load(&a, "apiVersion: v1\nkind: List\nitems: [{apiVersion: v1, kind: Node}]\n");
    CHECK(object_is_list(d.v[0].root));
    /* both a kind ending in List and a sequence of items */
    d = load(&a, "items: []\nkind: ConfigMapList\n---\nkind: List\n"
                 "items: {a: 1}\n---\nkind: Pod\nitems: []\n---\n"
                 "kind: 1\nitems: []\n---\nkind: List\n");
    CHECK(d.n == 5 && object_is_list(d.v[0].root));
    CHECK(d.n == 5 && !object_is_list(d.v[1].root)
          && !object_is_list(d.v[2].root) && !object_is_list(d.v[3].root)
          && !object_is_list(d.v[4].root));
    arena_release(&a);
}

static int dir_has(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int found = 0;

    if (!d)
        return 0;
    for (e = readdir(d); e; e = readdir(d))
        if (!strncmp(e->d_name, prefix, strlen(prefix))
            && strstr(e->d_name, ".yaml"))
            found = 1;
    closedir(d);
    return found;
}

static void test_registry(void)
{
    size_t i, j;
    char dir[512];

    CHECK(rules_builtin.n > 0);
    for (i = 0; i < rules_builtin.n; i++) {
        const struct rule *r = &rules_builtin.v[i];
        int id_ok = *r->id != 0;
        for (j = 0; r->id[j]; j++)
            if (!((r->id[j] >= 'a' && r->id[j] <= 'z')
                  || (r->id[j] >= '0' && r->id[j] <= '9') || r->id[j] == '-'))
                id_ok = 0;
        if (!id_ok)
            printf("rule id '%s' is not [a-z0-9-]+\n", r->id);
        CHECK(id_ok);
        if (i > 0 && strcmp(rules_builtin.v[i - 1].id, r->id) >= 0)
            printf("rules '%s' and '%s' are not sorted/unique\n",
                   rules_builtin.v[i - 1].id, r->id);
        CHECK(i == 0 || strcmp(rules_builtin.v[i - 1].id, r->id) < 0);
        CHECK(r->summary && *r->summary);
        CHECK(r->hint && *r->hint);
        CHECK(r->why && *r->why);
        CHECK(ruleset_find(&rules_builtin, r->id) == r);
        CHECK(r->check != NULL || r->kinds == 0);
        snprintf(dir, sizeof(dir), "tests/rules/%s", r->id);
        if (!dir_has(dir, "fail-") || !dir_has(dir, "pass-"))
            printf("rule '%s' needs tests/rules/%s/ with fail-*.yaml and "
                   "pass-*.yaml\n", r->id, r->id);
        CHECK(dir_has(dir, "fail-"));
        CHECK(dir_has(dir, "pass-"));
    }
    CHECK(ruleset_find(&rules_builtin, "no-such-rule") == NULL);
}

/* k8s_kind_rows(): exactly the rows of an apiVersion, each of them once
 * across all apiVersions; none for one the tables lack */
/* tree_get_many() answers what tree_get() answers, key by key: the first
 * member of a key, none for an absent one or a map's absence, whatever
 * the order of keys and members */
static void test_get_many(void)
{
    static const char *const texts[] = {
        "b: 1\na: 2\nab: 3\nc: 4\n", "{}\n", "- a\n", "x\n",
        "ab: 1\na: {b: 2}\n",
    };
    static const char *const keys[] = {"a", "ab", "b", "zz", "c", ""};
    size_t t, k, bad = 0;

    for (t = 0; t < sizeof(texts) / sizeof(texts[0]); t++) {
        struct arena a;
        struct ydocs d;
        const struct tnode *got[6];
        arena_init(&a, 1 << 14);
        load_yaml(&a, texts[t], strlen(texts[t]), &d);
        tree_get_many(d.n ? d.v[0].root : NULL, keys, got, 6);
        for (k = 0; k < 6; k++)
            bad += got[k] != tree_get(d.n ? d.v[0].root : NULL, keys[k]);
        arena_release(&a);
    }
    CHECK_MSG(bad == 0, "%zu answers differ from tree_get()", bad);
}

static void test_kind_rows(void)
{
    size_t i, lo, hi, seen = 0;

    for (i = 0; i < K8S_KIND_COUNT; i = hi) {
        size_t k;
        hi = k8s_kind_rows(k8s_kinds[i].api_version, &lo);
        CHECK(lo == i && hi > lo);
        if (lo != i || hi <= lo)
            break;
        for (k = lo; k < hi; k++)
            CHECK_STR(k8s_kinds[k].api_version, k8s_kinds[i].api_version);
        CHECK(hi == K8S_KIND_COUNT
              || strcmp(k8s_kinds[hi].api_version,
                        k8s_kinds[i].api_version) != 0);
        seen += hi - lo;
    }
    CHECK(seen == K8S_KIND_COUNT);
    hi = k8s_kind_rows("example.com/v1", &lo);
    CHECK(hi == lo);
    hi = k8s_kind_rows("", &lo);
    CHECK(hi == lo && lo == 0);
}

int main(void)
{
    test_arena();
    test_kind_rows();
    test_get_many();
    test_arena_meter();
    test_arena_free();
    test_strmap_reserve();
    test_strmap_spread();
    test_arena_rollback();
    test_arena_move();
    test_arena_zero();
    test_arena_aligned();
    test_inventory_strings_shared();
    test_inventory_texts(0);
    test_inventory_texts(1);
    test_buf();
    test_scalars();
    test_resolve_spellings();
    test_deep_wide();
    test_positions_and_paths();
    test_documents();
    test_limits();
    test_names();
    test_kinds();
    test_object_model();
    test_registry();
    return CHECK_DONE();
}
