/*
 * test_fuzz_regress.c - regression tests for what fuzzing and the hostile
 * inputs of issue 8 found (tests/fuzz/, tests/e2e/hostile.sh). Every input
 * that once crashed, leaked or hung goes into files[] (fed to load_yaml,
 * load_json and a whole linting run) or cel_rows[] with the answer it must
 * give now. Rows marked xfail record a known divergence owned by another
 * module: they print XFAIL while the bug is there and count as a failure
 * once it is fixed (so the mark gets removed, not forgotten).
 */
#include "../../validate/arena.h"
#include "../../validate/cel/cel.h"
#include "../../validate/config.h"
#include "../../validate/diag.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../validate/limits.h"
#include "../../validate/load_json.h"
#include "../../validate/load_yaml.h"
#include "../../validate/run.h"
#include "../../rules/rules.h"
#include "check.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- documents: must load and lint without crashing ---- */
struct doc_row {
    const char *what;
    const char *text;
    size_t len;             /* 0: strlen(text) */
};

static const struct doc_row docs[] = {
    { "empty", "", 0 },
    { "lone marker", "---", 0 },
    { "document end only", "...\n...\n", 0 },
    { "BOM only", "\xef\xbb\xbf", 0 },
    { "anchor on the root with merge", "&a {<<: *a}", 0 },
    { "NUL inside", "a: b\0c", 6 },
};

static void test_docs(struct check_counts *cc, struct engine *e)
{
    struct check_counts check_counts_ = *cc;
    size_t i;

    for (i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
        const struct doc_row *r = &docs[i];
        size_t len = r->len ? r->len : strlen(r->text);
        struct arena a;
        struct ydocs yd;
        struct tnode *root;
        struct err err;
        struct diag_list dl;
        struct run *run;

        arena_init(&a, ARENA_CHUNK_BYTES);
        load_yaml(&a, r->text, len, &yd);
        (void)load_json(&a, r->text, len, &root, &err);
        diag_list_init(&dl, &a);
        run = run_new(e, NULL, &a, &dl);
        run_add_text(run, "regress.yaml", r->text, len);
        run_check(run);
        run_free(run);
        arena_release(&a);
        CHECK(r->what != NULL);     /* reaching here is the test */
    }
    *cc = check_counts_;
}

/* ---- CEL ---- */
struct cel_row {
    const char *expr;
    const char *want;       /* rendering, or "!substring" of the error */
    int xfail;              /* known divergence, see the comment */
};

static const struct cel_row cel_rows[] = {
    /* Hostile-input finding (2026-11-29): PCRE2 backtracks exponentially
     * on nested quantifiers, so a 17-character subject exhausted
     * CEL_REGEX_MATCH_LIMIT where Kubernetes (RE2, linear) answers false.
     * Fixed: matches() falls back to PCRE2's DFA matcher past the
     * backtracking limits. */
    { "'aaaaaaaaaaaaaaaaa!'.matches('(a+)+$')", "false", 0 },
    { "'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa!'"
      ".matches('^(a|aa)+$')", "false", 0 },
    /* fuzz_cel finding (2026-11-29, tests/fuzz/regress/fuzz_cel/):
     * string.format() took any precision into an int without a bound and
     * handed it to snprintf("%.*f") into a 400-byte buffer ("%.2000000000f"
     * took 9.3 GB; longer results were cut). Fixed: at most 1000 digits,
     * rendered in full; more is an error. */
    { "'%.1000f'.format([1.5]).size()", "1002", 0 },
    { "'%.1001f'.format([1.5]).size()", "!precision over 1000", 0 },
    /* bounded answers the hostile suite relies on */
    { "99999999999999999999999 > 0", "!out of range", 0 },
    { "18446744073709551616u > 0u", "!out of range", 0 },
    { "9223372036854775807 + 1 > 0", "!overflow", 0 },
    { "lists.range(100000).all(x, lists.range(100000).all(y, true))",
      "!cost limit", 0 },
    /* the precision that overflowed an int: now refused before */
    { "'%.2147483648f'.format([1.5]).size() > 8", "!precision", 0 },
};

static void test_cel(struct check_counts *cc)
{
    struct check_counts check_counts_ = *cc;
    struct cel_env env = { 0, 1, 0, 0, 0 };
    size_t i;

    for (i = 0; i < sizeof(cel_rows) / sizeof(cel_rows[0]); i++) {
        const struct cel_row *r = &cel_rows[i];
        struct arena a;
        struct cel_program *p;
        struct cel_error err;
        char out[256];
        const char *got;
        int ok;

        arena_init(&a, ARENA_CHUNK_BYTES);
        memset(&err, 0, sizeof(err));
        if (cel_compile_expr(&a, &env, r->expr, strlen(r->expr), &p, &err) < 0
            || cel_eval_to_string(p, NULL, out, sizeof(out), &err) < 0)
            got = NULL;
        else
            got = out;
        if (r->want[0] == '!')
            ok = !got && strstr(err.msg, r->want + 1) != NULL;
        else
            ok = got && strcmp(got, r->want) == 0;
        if (r->xfail && !ok) {
            printf("XFAIL %s: %s (known, see test_fuzz_regress.c)\n",
                   r->expr, got ? got : err.msg);
            check_counts_.passed++;
        } else if (r->xfail) {
            printf("FAIL %s: fixed now, remove the xfail mark\n", r->expr);
            check_counts_.failed++;
        } else {
            if (!ok)
                printf("FAIL %s: got %s\n", r->expr, got ? got : err.msg);
            CHECK(ok);
        }
        arena_release(&a);
    }
    *cc = check_counts_;
}

/* fuzz_cel finding (2026-11-29, tests/fuzz/seeds/fuzz_cel/
 * not-chain-stack-overflow): 848 `!` before `true` compile (the AST height
 * limit is 1,000), and cel_conj_unsat() recursed once per `!` in atom_of()
 * (validate/cel/analysis.c) with an ~11 KiB frame: a stack overflow in -O0
 * and -O1 (SANITIZE) builds. Fixed in dc7f241 (the chain is a loop). Run
 * in a child so a regression is reported instead of ending this binary. */
static void test_deep_not(struct check_counts *cc)
{
    struct check_counts check_counts_ = *cc;
    pid_t pid;
    int status = 0;

    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        static char expr[1100];
        struct cel_env env = { 0, 0, 0, 0, 0 };
        const struct cel_program *progs[2];
        struct cel_program *p0, *p1;
        struct cel_error err;
        struct arena a;
        char why[256];
        size_t which;
        unsigned off;

        memset(expr, '!', 998);
        memcpy(expr + 998, "true", 5);
        arena_init(&a, ARENA_CHUNK_BYTES);
        if (cel_compile(&a, &env, "device.driver == 'x'", 20, &p0, &err) < 0
            || cel_compile(&a, &env, expr, strlen(expr), &p1, &err) < 0)
            _exit(3);
        progs[0] = p0;
        progs[1] = p1;
        (void)cel_conj_unsat(progs, 2, why, sizeof(why), &which, &off);
        _exit(0);
    }
    CHECK(pid > 0);
    if (pid > 0)
        waitpid(pid, &status, 0);
    /* 0: analysed; 3: refused at compile time (also fine); anything else
     * (a signal, or ASan's exit 1) is the crash */
    if (pid > 0 && (WIFSIGNALED(status)
                    || (WEXITSTATUS(status) != 0
                        && WEXITSTATUS(status) != 3)))
        printf("FAIL cel_conj_unsat on 998 nested '!' crashed (%s %d)\n",
               WIFSIGNALED(status) ? "signal" : "exit",
               WIFSIGNALED(status) ? WTERMSIG(status) : WEXITSTATUS(status));
    CHECK(pid > 0 && !WIFSIGNALED(status)
          && (WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 3));
    *cc = check_counts_;
}

int main(void)
{
    CHECK_INIT;
    struct config cfg;
    struct engine *e;
    struct err err;

    config_init(&cfg);
    e = engine_new(&cfg, &rules_builtin, &err);
    CHECK(e != NULL);
    if (e)
        test_docs(&check_counts_, e);
    test_cel(&check_counts_);
    test_deep_not(&check_counts_);
    engine_free(e);
    config_release(&cfg);
    return CHECK_DONE();
}
