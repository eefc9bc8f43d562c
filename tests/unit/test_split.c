/*
 * test_split.c - validate/load_yaml.c's splitter (load_yaml_split_next(),
 * which scans a word at a time) against a straightforward reference kept
 * here, that walks the text a line at a time as kubectl's YAMLReader
 * does (tests/k8s/decode/SPLIT.md section 3): the same chunks, at the
 * same places, with the same offsets and errors, over hand-picked streams
 * and over streams generated from lines that matter to the rule (BOM,
 * `---` at the start and the end, `--- #c`, `---x`, CRLF, no final
 * newline, comment-only chunks, `---` inside block scalars), at every
 * alignment and with the offsets stream.c gives a YAML rest after JSON.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/arena.h"
#include "../../validate/load_json.h"
#include "../../validate/load_yaml.h"
#include "check.h"

static CHECK_INIT;

#define MAX_CHUNKS 256

struct ref_chunk {
    size_t at, len;             /* offsets into the text */
    unsigned line_off, col_off;
    char error[256];            /* "" when a document */
};

/* 1 when [p, end) has only blank and comment lines */
static int ref_blank(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ' ' || *p == '\t' || *p == '\r'))
            p++;
        if (p < end && *p != '#' && *p != '\n')
            return 0;
        while (p < end && *p != '\n')
            p++;
        if (p < end)
            p++;
    }
    return 1;
}

/* Go's strings.TrimSpace(rest) is empty or starts with '#' */
static int ref_rest_ok(const char *p, const char *eol)
{
    size_t k;

    for (k = utf8_space_len(p, eol); k; k = utf8_space_len(p, eol))
        p += k;
    return p == eol || *p == '#';
}

static void ref_add(struct ref_chunk *v, size_t *n, const char *text,
                    const char *start, const char *end, unsigned line,
                    unsigned col)
{
    if (ref_blank(start, end) || *n == MAX_CHUNKS)
        return;
    memset(&v[*n], 0, sizeof(v[*n]));
    v[*n].at = (size_t)(start - text);
    v[*n].len = (size_t)(end - start);
    v[*n].line_off = line;
    v[*n].col_off = col;
    (*n)++;
}

/* The reference: one line at a time, kubectl's buffer as `have`. */
static size_t ref_split(const char *text, size_t len, unsigned line_off,
                        unsigned col_off, struct ref_chunk *v)
{
    const char *p = text, *end = text + len, *start;
    unsigned line = line_off, start_line, start_col = col_off;
    int have = 0;
    size_t n = 0;

    if (len >= 3 && !memcmp(p, "\xef\xbb\xbf", 3))
        p += 3;
    start = p;
    start_line = line;
    while (p < end) {
        const char *eol = p, *next;

        while (eol < end && *eol != '\n')
            eol++;
        next = eol < end ? eol + 1 : end;
        if (eol - p < 3 || strncmp(p, "---", 3) != 0) {
            have = 1;
        } else if (!ref_rest_ok(p + 3, eol)) {
            ref_add(v, &n, text, start, p, start_line, start_col);
            if (n < MAX_CHUNKS) {
                memset(&v[n], 0, sizeof(v[n]));
                v[n].at = (size_t)(p - text);
                v[n].line_off = line;
                snprintf(v[n].error, sizeof(v[n].error),
                         "invalid document separator '%.*s': kubectl "
                         "accepts only '---' alone or followed by a comment",
                         (int)(eol - p), p);
                n++;
            }
            have = p[3] == ' ' || p[3] == '\t';
            start = have ? p : next;
            start_line = have ? line : line + 1;
            start_col = 0;
        } else if (have) {
            ref_add(v, &n, text, start, p, start_line, start_col);
            start = next;
            start_line = line + 1;
            start_col = 0;
            have = 0;
        } else {
            have = 1;
        }
        line++;
        p = next;
    }
    if (start < end)
        ref_add(v, &n, text, start, end, start_line, start_col);
    return n;
}

static int cases;

/* The splitter gives the reference's chunks for text[0..len). */
static void same(const char *text, size_t len, unsigned line_off,
                 unsigned col_off)
{
    struct ref_chunk want[MAX_CHUNKS];
    struct arena a;
    struct ychunk in, c;
    struct ysplit s;
    size_t n = 0, nwant = ref_split(text, len, line_off, col_off, want);
    int ok = 1;

    arena_init(&a, 4096);
    memset(&in, 0, sizeof(in));
    in.text = text;
    in.len = len;
    in.line_off = line_off;
    in.col_off = col_off;
    load_yaml_split_init(&s, &in);
    while (ok && load_yaml_split_next(&s, &a, &c)) {
        const struct ref_chunk *w = &want[n];
        ok = n < nwant && c.text == text + w->at
             && c.line_off == w->line_off && c.col_off == w->col_off
             && (w->error[0] ? c.error && !strcmp(c.error, w->error)
                             : !c.error && c.len == w->len);
        CHECK_MSG(ok, "chunk %zu of \"%.*s\" (offsets %u,%u): at %zd len "
                  "%zu line %u col %u error %s; want at %zu len %zu line %u "
                  "col %u error %s", n, (int)len, text, line_off, col_off,
                  c.text - text, c.len, c.line_off, c.col_off,
                  c.error ? c.error : "-", n < nwant ? want[n].at : 0,
                  n < nwant ? want[n].len : 0,
                  n < nwant ? want[n].line_off : 0,
                  n < nwant ? want[n].col_off : 0,
                  n < nwant && want[n].error[0] ? want[n].error : "-");
        n++;
    }
    if (ok)
        CHECK_MSG(n == nwant, "%zu chunks, want %zu: \"%.*s\"", n, nwant,
                  (int)len, text);
    CHECK(!load_yaml_split_next(&s, &a, &c));
    arena_release(&a);
    cases++;
}

static void same_str(const char *text)
{
    same(text, strlen(text), 0, 0);
    same(text, strlen(text), 3, 7);
}

static void test_picked(void)
{
    same_str("");
    same_str("\n");
    same_str("a: 1");
    same_str("---");
    same_str("---\n");
    same_str("--");
    same_str("-\n--\n");
    same_str("\xef\xbb\xbf---\na: 1\n");
    same_str("\xef\xbb\xbf");
    same_str("a: 1\n---");
    same_str("a: 1\n---\n");
    same_str("a: 1\n---x\nb: 2\n");
    same_str("a: 1\n--- x\nb: 2\n");
    same_str("a: 1\n--- # c\nb: 2\n---#c\nc: 3");
    same_str("a: 1\r\n---\r\nb: 2\r\n");
    same_str("# only\n# comments\n---\na: 1\n---\n# more\n");
    same_str("a: |\n  text\n  ---\n  more\n---\nb: 1\n");
    same_str("a: |\n---\n  in the scalar for YAML, a separator for kubectl\n");
    same_str("---\n---\n---\na: 1\n");
    same_str("a: 1\n----\nb: 2\n");
    same_str("a: 1\n---\t\nb: 2\n---\xc2\xa0\nc: 3\n");
    same_str("a: 1\n---\xc2\xa0x\nb: 2\n");
    same_str("- a\n- b\n-\n--\n---\n- c\n");
    same_str("abcdefg\n---\nabcdefgh\n---\nabcdefghi\n---\n");
    same_str("\n\n\n\n\n\n\n\n\n---\n\n\n\n\n\n\n\n---");
}

/* Lines that matter to the rule, and some that do not. */
static const char *const pieces[] = {
    "---", "--- # c", "---#c", "---x", "--- x", "---\r", "--- \t",
    "----", "--", "-", "- item", "a: 1", "b: |", "  ---", "  text",
    "# comment", "", "...", "---\xc2\xa0", "x: \"\xc3\xa9\"",
    "abcdefghijklmnop: q",
};

/* A stream of up to 12 lines from pieces, with LF or CRLF, with or
 * without a final newline or a BOM, at every start in an 8-byte word. */
static void test_generated(void)
{
    unsigned long long seed = 17;
    char text[1024];
    int i;

    for (i = 0; i < 40000; i++) {
        size_t len, shift;
        int k, nl;

        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        shift = (size_t)(seed >> 60) % 8;
        len = shift;
        memset(text, 'z', shift);
        if ((seed >> 40) % 8 == 0) {
            memcpy(text + len, "\xef\xbb\xbf", 3);
            len += 3;
        }
        nl = (int)((seed >> 20) % 13);
        for (k = 0; k < nl; k++) {
            const char *piece;
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            piece = pieces[(seed >> 33) % (sizeof(pieces)
                                           / sizeof(pieces[0]))];
            memcpy(text + len, piece, strlen(piece));
            len += strlen(piece);
            if (k + 1 < nl || (seed >> 50) % 3) {
                if ((seed >> 45) % 5 == 0)
                    text[len++] = '\r';
                text[len++] = '\n';
            }
        }
        same(text + shift, len - shift, (unsigned)(seed >> 56) % 3,
             (unsigned)(seed >> 58) % 2);
    }
}

int main(void)
{
    test_picked();
    test_generated();
    printf("%d streams compared\n", cases);
    return CHECK_DONE();
}
