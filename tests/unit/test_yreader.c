/*
 * test_yreader.c - validate/load_yaml.c's shared parser (yreader_load(),
 * one libyaml parser fed chunk after chunk) against a parser per chunk
 * (load_yaml_chunk(), the reference): the same tree, node by node with
 * every position, or the same error at the same place, for
 *   - every chunk of every YAML file under tests/ (and ../shared/corpus
 *     when it is there), read in order;
 *   - streams generated from lines that matter to libyaml's documents
 *     (`...`, directives, `---` lines, byte order marks, lone CR, NEL, LS,
 *     PS, unclosed flows and quotes, block scalars, anchors, tabs, invalid
 *     UTF-8, NUL and control bytes, deep nesting, no final newline), read
 *     in order, and again with chunks skipped and out of order (the
 *     linter reads pods last);
 * and that plain chunks do share one parser (yreader_counts()).
 *
 * Run from the repository root (make test does).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/buf.h"
#include "../../validate/limits.h"
#include "../../validate/load_yaml.h"
#include "check.h"
#include "ydoc_same.h"

static CHECK_INIT;

/* The chunks of text[0..len), split as kubectl splits (in a) */
static void split(struct arena *a, const char *text, size_t len,
                  struct ychunks *c)
{
    struct ychunk in;

    memset(&in, 0, sizeof(in));
    in.text = text;
    in.len = len;
    load_yaml_split(a, &in, c);
}

/* 1 if r read `shared` chunks with its parsers, set up `parsers` times */
static int counts_are(const struct yreader *r, size_t shared, size_t parsers)
{
    size_t s, p;

    yreader_counts(r, &s, &p);
    if (s == shared && p == parsers)
        return 1;
    printf("  shared %zu (not %zu), parsers %zu (not %zu)\n", s, shared, p,
           parsers);
    return 0;
}

/* Reads chunks v[order[0..n)] with reader r and alone: 1 if all agree
 * (the first difference is printed, named by what). */
static int agree(struct yreader *r, const struct ychunks *c,
                 const size_t *order, size_t n, const char *what)
{
    struct arena a;
    size_t i;
    int ok = 1;

    arena_init(&a, 1 << 16);
    for (i = 0; i < n && ok; i++) {
        const struct ychunk *ch = &c->v[order ? order[i] : i];
        struct ydoc alone, shared;
        load_yaml_chunk(&a, NULL, ch, &alone);
        yreader_load(r, &a, NULL, ch, &shared);
        ok = same_doc(&alone, &shared);
        if (!ok)
            printf("  %s: chunk at line %u differs: alone %s (%u:%u), "
                   "shared %s (%u:%u)\n", what, ch->line_off + 1,
                   alone.error ? alone.error : "ok", alone.line, alone.col,
                   shared.error ? shared.error : "ok", shared.line,
                   shared.col);
    }
    arena_release(&a);
    return ok;
}

/* text's chunks (nchunks of them) read in order by a fresh reader agree
 * with reading them alone, `shared` of them by its parsers, set up
 * `parsers` times */
static void check_reading(const char *text, size_t len, size_t nchunks,
                          size_t shared, size_t parsers, const char *what)
{
    struct arena a;
    struct ychunks c;
    struct yreader *r = yreader_new();

    arena_init(&a, 1 << 16);
    split(&a, text, len, &c);
    CHECK_MSG(c.n == nchunks, "%s: %zu chunks", what, c.n);
    CHECK(agree(r, &c, NULL, c.n, what));
    CHECK_MSG(counts_are(r, shared, parsers), "%s", what);
    yreader_free(r);
    arena_release(&a);
}

/* The text's chunks read in order by a fresh reader, then every other
 * one from the last back (another fresh reader): both agree with
 * reading alone. */
static int agree_text(const char *text, size_t len, const char *what)
{
    struct arena a;
    struct ychunks c;
    struct yreader *r;
    size_t *order, i, n = 0;
    int ok;

    arena_init(&a, 1 << 16);
    split(&a, text, len, &c);
    r = yreader_new();
    ok = agree(r, &c, NULL, c.n, what);
    yreader_free(r);
    order = malloc((c.n + 1) * sizeof(*order));
    for (i = c.n; i-- > 0;)
        if (i % 2 == 0)
            order[n++] = i;
    r = yreader_new();
    ok &= agree(r, &c, order, n, what);
    yreader_free(r);
    free(order);
    arena_release(&a);
    return ok;
}

/* every YAML file under dir */
static void test_files(const char *dir)
{
    char cmd[512], path[4096];
    FILE *p;
    int files = 0, bad = 0;

    snprintf(cmd, sizeof(cmd), "find %s -type f \\( -name '*.yaml' -o "
             "-name '*.yml' \\) 2>/dev/null | sort", dir);
    p = popen(cmd, "r");
    if (!p) {
        CHECK_MSG(0, "cannot list %s", dir);
        return;
    }
    while (fgets(path, sizeof(path), p)) {
        size_t len;
        char *text;
        path[strcspn(path, "\n")] = '\0';
        text = check_read_file(path, &len);
        if (!text)
            continue;
        files++;
        if (!agree_text(text, len, path))
            bad++;
        free(text);
    }
    pclose(p);
    CHECK_MSG(bad == 0, "%d of %d files under %s read differently", bad,
              files, dir);
    printf("%d files under %s\n", files, dir);
}

/* Lines that matter to where libyaml's documents begin and end, or that
 * make one fail (length: strlen, except the one with a NUL). */
static const struct {
    const char *s;
    size_t len;
} lines[] = {
#define L(x) { x, sizeof(x) - 1 }
    L("a: 1\n"), L("b:\n  - x\n  - y\n"), L("c: |\n  text\n\n"),
    L("d: |+\n  keep\n\n\n"), L("e: >-\n  fold\n  ed\n"),
    L("f: &anc {k: v}\n"), L("g: *anc\n"), L("h: *nope\n"),
    L("<<: {m: 1}\n"), L("i: [1, 2\n"), L("j: 'open\n"),
    L("k: \"dq\\\n  cont\"\n"), L("...\n"), L("... # end\n"), L("...x\n"),
    L("%YAML 1.1\n"), L("%TAG ! tag:x,2000:\n"), L("%FOO bar\n"),
    L("--- # c\n"), L("---\n"), L("---x\n"), L("--- a\n"),
    L("\xef\xbb\xbfl: bom\n"), L("m: crlf\r\n"), L("n: lone\rcr: 2\n"),
    L("o: nel\xc2\x85p: 1\n"), L("q: ls\xe2\x80\xa8r: 1\n"),
    L("q2: ps\xe2\x80\xa9\n"), L("r: \xff\n"), L("s: tab\there\n"),
    L("\tt: 1\n"), L("u: nul\0x\n"), L("v: .nan\n"), L("x: {a: [b, {c: d}]}\n"),
    L("y:\n  z: 1\n   bad: 2\n"), L("- seq\n"), L("plain words\n"),
    L("# comment\n"), L("\n"), L("  \n"), L("dup: 1\ndup: 2\n"),
    L("\x01ctl: 1\n"), L("? complex\n: value\n"), L(": nokey\n"),
    L("\xc3\xa9: \xc3\xbc\n"), L("emoji: \xf0\x9f\x98\x80\n"),
    L("w: '\n...\n'\n"), L("w2: \"\n---\n\"\n"), L("w3: |\n---\n"),
    L("- - - deep\n"), L("key: [a,\n b]\n"), L("z: !!str 1\n"),
    L("z2: !custom x\n"), L("%\n"), L(".\n"), L("-\n"), L("-- x\n"),
    L("q3: \"a\xc2\x85" "b\"\n"), L("nel\xc2\x85"), L("ls\xe2\x80\xa8"),
    L("ps\xe2\x80\xa9"), L("cr\r"), L("\xe2\x80\xa8\n"), L("\r\n"), L("\r"),
#undef L
};
#define NLINES (sizeof(lines) / sizeof(lines[0]))

static unsigned long rng_state = 88172645463325252ul;

static unsigned long rng(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

/* streams of random lines, with deep nesting now and then and no final
 * newline sometimes */
static void test_generated(void)
{
    char *text = malloc(1 << 16);
    int round, bad = 0, rounds = 3000;

    for (round = 0; round < rounds; round++) {
        size_t len = 0, k, i, n = 1 + rng() % 30;
        char what[64];
        for (i = 0; i < n; i++) {
            if (rng() % 50 == 0) {      /* past the nesting limit */
                memcpy(text + len, "deep: ", 6);
                len += 6;
                for (k = 0; k < LIMIT_NEST_DEPTH + 2; k++)
                    text[len++] = '[';
                text[len++] = '\n';
                continue;
            }
            k = rng() % NLINES;
            memcpy(text + len, lines[k].s, lines[k].len);
            len += lines[k].len;
            if (rng() % 3 == 0) {       /* a separator after most lines */
                memcpy(text + len, "---\n", 4);
                len += 4;
            }
        }
        if (rng() % 5 == 0 && len && text[len - 1] == '\n')
            len--;
        snprintf(what, sizeof(what), "generated stream %d", round);
        if (!agree_text(text, len, what))
            bad++;
    }
    CHECK_MSG(bad == 0, "%d of %d generated streams read differently", bad,
              rounds);
    free(text);
}

/* plain chunks share one parser; an odd one is read alone and the
 * parser goes on; a failing one closes it */
static void test_sharing(void)
{
    const char *text = "a: 1\n---\nb: [1, 2]\n---\nc: |\n  x\n---\n"
                       "d: 1\n...\n---\ne: {f: g}\n---\ni: [1,\n---\n"
                       "j: 2\n---\nk: 3\n";
    struct arena a;
    struct ychunks c;
    size_t i;

    /* a, b, c by the first parser; d ends at its `...` in it and is read
     * alone; e by a second; i fails in it and is read alone; j, k by a
     * third */
    check_reading(text, strlen(text), 8, 6, 3, "sharing");
    arena_init(&a, 1 << 16);
    split(&a, text, strlen(text), &c);
    /* no reader: every chunk alone */
    for (i = 0; i < c.n; i++) {
        struct ydoc d1, d2;
        load_yaml_chunk(&a, NULL, &c.v[i], &d1);
        yreader_load(NULL, &a, NULL, &c.v[i], &d2);
        CHECK(same_doc(&d1, &d2));
    }
    arena_release(&a);
}

/* a chunk that is not UTF-8 is refused before the parser sees it: the
 * parser goes on */
static void test_bad_utf8(void)
{
    const char *text = "a: 1\n---\nb: \xff\n---\nc: \xc3\xa9\n---\nd: 1\n";

    check_reading(text, strlen(text), 4, 3, 1, "bad UTF-8");
}

/* a chunk read again alone leaves no nodes of the shared try behind: the
 * arena holds what reading it alone holds */
static void test_try_rolled_back(void)
{
    struct buf text;
    struct ychunk c;
    struct arena a1, a2;
    atomic_size_t m1 = 0, m2 = 0;
    struct ydoc d1, d2;
    struct yreader *r = yreader_new();
    int i;

    buf_init(&text, 1 << 20);
    for (i = 0; i < 4000; i++)
        buf_addf(&text, "key%d: value %d\n", i, i);
    buf_adds(&text, "...\n");      /* ends the document in the parser */
    memset(&c, 0, sizeof(c));
    c.text = text.p;
    c.len = text.len;
    arena_init(&a1, 1 << 16);
    arena_meter(&a1, &m1);
    arena_init(&a2, 1 << 16);
    arena_meter(&a2, &m2);
    load_yaml_chunk(&a1, NULL, &c, &d1);
    yreader_load(r, &a2, NULL, &c, &d2);
    CHECK(same_doc(&d1, &d2) && d1.root && d1.root->n == 4000);
    CHECK(counts_are(r, 0, 1));
    CHECK_MSG(m1 == m2, "alone %zu bytes, through the reader %zu",
              (size_t)m1, (size_t)m2);
    arena_release(&a1);
    arena_release(&a2);
    yreader_free(r);
    buf_release(&text);
}

/* many documents, one parser: and the lines still count right far in */
static void test_long_stream(void)
{
    size_t len = 0, i, n = 5000;
    char *text = malloc(n * 64);

    for (i = 0; i < n; i++)
        len += (size_t)snprintf(text + len, 64, "kind: ConfigMap\nmetadata:\n"
                               "  name: c%zu\n---\n", i);
    CHECK(agree_text(text, len, "long stream"));
    check_reading(text, len, n, n, 1, "long stream");
    free(text);
}

int main(void)
{
    test_sharing();
    test_long_stream();
    test_bad_utf8();
    test_try_rolled_back();
    test_generated();
    test_files("tests");
    if (access("../shared/corpus", R_OK) == 0)
        test_files("../shared/corpus");
    else
        printf("skip ../shared/corpus: not here\n");
    return CHECK_DONE();
}
