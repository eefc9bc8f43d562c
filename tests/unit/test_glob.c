/*
 * test_glob.c - validate/glob.c: '*', '?', classes, escapes and '**'
 * segments over paths, and patterns that would blow up a naive matcher.
 */
#include <string.h>

#include "../../validate/glob.h"
#include "check.h"

int main(void)
{
    static const struct { const char *pat, *text; int want; } cases[] = {
        { "a.yaml", "a.yaml", 1 },
        { "a.yaml", "b.yaml", 0 },
        { "*.yaml", "a.yaml", 1 },
        { "*.yaml", "dir/a.yaml", 0 },      /* '*' stays in its segment */
        { "*/*.yaml", "dir/a.yaml", 1 },
        { "?.yaml", "a.yaml", 1 },
        { "?.yaml", "ab.yaml", 0 },
        { "a?b", "a/b", 0 },                /* '?' never takes '/' */
        { "[ab].yaml", "b.yaml", 1 },
        { "[ab].yaml", "c.yaml", 0 },
        { "[!ab].yaml", "c.yaml", 1 },
        { "[^ab].yaml", "a.yaml", 0 },
        { "[a-c]x", "bx", 1 },
        { "[a-c]x", "dx", 0 },
        { "[]]x", "]x", 1 },
        { "[x", "[x", 1 },                  /* unclosed: a plain '[' */
        { "\\*x", "*x", 1 },
        { "\\*x", "ax", 0 },
        { "**", "a/b/c.yaml", 1 },
        { "**", "c.yaml", 1 },
        { "vendor/**", "vendor/a.yaml", 1 },
        { "vendor/**", "vendor/x/y/a.yaml", 1 },
        { "vendor/**", "vendors/a.yaml", 0 },
        { "**/test/*.yaml", "test/a.yaml", 1 },     /* zero segments */
        { "**/test/*.yaml", "x/y/test/a.yaml", 1 },
        { "**/test/*.yaml", "x/test/y/a.yaml", 0 },
        { "a/**/b", "a/b", 1 },
        { "a/**/b", "a/x/y/b", 1 },
        { "a/**/b", "a/x/y/c", 0 },
        { "**/*.json", "deep/er/x.json", 1 },
        { "**/*.json", "deep/er/x.yaml", 0 },
        { "a**b", "axxb", 1 },              /* not a segment: '*' twice */
        { "a**b", "ax/xb", 0 },
        { "gpu-*", "gpu-train", 1 },
        { "gpu-*", "cpu-train", 0 },
        { "*", "", 1 },
        { "", "", 1 },
        { "", "a", 0 },
    };
    static const char pat[] = "a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b";
    char text[200];
    size_t i;
    CHECK_INIT;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        CHECK_MSG(glob_match(cases[i].pat, cases[i].text) == cases[i].want,
                  "glob_match('%s', '%s') != %d", cases[i].pat,
                  cases[i].text, cases[i].want);

    /* a*a*a*...b against aaaa...: linear backtracking, not exponential */
    memset(text, 'a', sizeof(text) - 1);
    text[sizeof(text) - 1] = '\0';
    CHECK(glob_match(pat, text) == 0);
    /* '**' segments likewise over many segments */
    for (i = 0; i + 1 < sizeof(text) - 1; i += 2)
        text[i + 1] = '/';
    CHECK(glob_match("**/**/**/**/**/**/**/**/b", text) == 0);
    CHECK(glob_match("**/**/**/**/**/**/**/**/a", text) == 1);
    return CHECK_DONE();
}
