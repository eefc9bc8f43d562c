/*
 * test_opt.c - validate/opt.c: every accepted form of an option, operands
 * between options, "--" and "-", repeated options, grouped short flags,
 * each error message (with the "did you mean" of a mistyped long option),
 * and the help text generated from the table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/err.h"
#include "../../validate/opt.h"
#include "check.h"

enum { O_KUBE, O_FORMAT, O_OUTPUT, O_COLOR, O_VERBOSE, O_HELP, O_HINTS };

static const struct opt rows[] = {
    { "kube-version", 'k', OPT_VALUE, "X.Y", "target version", O_KUBE },
    { "format", 'o', OPT_VALUE, "FORMAT", "text or json\n(repeatable)",
      O_FORMAT },
    { "output", 0, OPT_VALUE, "FILE", "write the format to FILE", O_OUTPUT },
    { NULL, 0, OPT_FLAG, NULL, "text row", 0 },
    { "no-color", 0, OPT_FLAG, NULL, "never colour", O_COLOR },
    { NULL, 'v', OPT_FLAG, NULL, "more output", O_VERBOSE },
    { "help", 'h', OPT_FLAG, NULL, "this help", O_HELP },
    { "no-hints", 0, OPT_FLAG, NULL, "no hint lines", O_HINTS },
    { "no-hint", 0, OPT_FLAG, NULL, NULL, O_HINTS },   /* hidden alias */
    { "a-very-long-option-name", 0, OPT_VALUE, "VALUE", "long", 99 },
};
static const struct opt_table table = OPT_TABLE(rows);

/* Parses the space-separated words of line and writes what opt_next()
 * returned, one token each: "id=value", "op=operand", "err=message". */
static char *run(const char *line)
{
    static char out[1024];
    char copy[512], *argv[32], *tok, *save = NULL;
    struct opt_parser p;
    struct err err;
    const char *v;
    int argc = 0, id;
    size_t n = 0;

    snprintf(copy, sizeof(copy), "cmd %s", line);
    for (tok = strtok_r(copy, " ", &save); tok && argc < 31;
         tok = strtok_r(NULL, " ", &save))
        argv[argc++] = tok;
    argv[argc] = NULL;
    out[0] = '\0';
    opt_init(&p, &table, argc, argv);
    for (;;) {
        id = opt_next(&p, &v, &err);
        if (id == OPT_DONE)
            break;
        if (id == OPT_ERROR)
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%serr=%s",
                                  n ? " " : "", err.msg);
        else if (id == OPT_OPERAND)
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%sop=%s",
                                  n ? " " : "", v);
        else
            n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%d=%s",
                                  n ? " " : "", id, v ? v : "-");
        if (id == OPT_ERROR)
            break;
    }
    return out;
}

static char *help_text(void)
{
    static char out[2048];
    FILE *f = tmpfile();
    size_t n;

    if (!f)
        abort();
    opt_help(f, &table);
    rewind(f);
    n = fread(out, 1, sizeof(out) - 1, f);
    out[n] = '\0';
    fclose(f);
    return out;
}

int main(void)
{
    struct opt_parser p;
    struct err err;
    const char *v;
    char a0[] = "cmd", a1[] = "--format=json";
    char *argv[] = { a0, a1, NULL };
    CHECK_INIT;

    /* every form of a value */
    CHECK_STR(run("--kube-version 1.34"), "0=1.34");
    CHECK_STR(run("--kube-version=1.34"), "0=1.34");
    CHECK_STR(run("-k 1.34"), "0=1.34");
    CHECK_STR(run("-k1.34"), "0=1.34");
    CHECK_STR(run("--kube-version="), "0=");            /* empty, but given */
    CHECK_STR(run("--output -"), "2=-");                /* a value may be - */
    CHECK_STR(run("-k --format"), "0=--format");        /* taken as the value */
    /* flags, groups, repeats */
    CHECK_STR(run("--no-color -v"), "3=- 4=-");
    CHECK_STR(run("-vh"), "4=- 5=-");
    CHECK_STR(run("-vk1.35"), "4=- 0=1.35");
    CHECK_STR(run("-vk 1.35 x"), "4=- 0=1.35 op=x");
    CHECK_STR(run("-o json -o text --output f"), "1=json 1=text 2=f");
    CHECK_STR(run("--no-hint --no-hints"), "6=- 6=-");  /* the alias */
    /* operands */
    CHECK_STR(run("a -k 1.3 b"), "op=a 0=1.3 op=b");
    CHECK_STR(run("-"), "op=-");
    CHECK_STR(run("- -v"), "op=- 4=-");
    CHECK_STR(run("-- -v --no-color -"), "op=-v op=--no-color op=-");
    CHECK_STR(run("-v -- --"), "4=- op=--");
    CHECK_STR(run(""), "");
    /* errors name the option as typed */
    CHECK_STR(run("--fromat json"),
              "err=unknown option '--fromat' (did you mean '--format'?)");
    CHECK_STR(run("--fromat=json"),
              "err=unknown option '--fromat' (did you mean '--format'?)");
    CHECK_STR(run("--no-colour"),
              "err=unknown option '--no-colour' (did you mean '--no-color'?)");
    CHECK_STR(run("--bogus"), "err=unknown option '--bogus'");
    CHECK_STR(run("-x"), "err=unknown option '-x'");
    CHECK_STR(run("-vx"), "4=- err=unknown option '-x'");
    CHECK_STR(run("--format"), "err=option '--format' needs a value");
    CHECK_STR(run("-o"), "err=option '-o' needs a value");
    CHECK_STR(run("-vo"), "4=- err=option '-o' needs a value");
    CHECK_STR(run("--no-color=yes"),
              "err=option '--no-color' takes no value");
    CHECK_STR(run("--"), "");
    /* what was typed, for the caller's own messages */
    opt_init(&p, &table, 2, argv);
    CHECK(opt_next(&p, &v, &err) == O_FORMAT);
    CHECK_STR(v, "json");
    CHECK_STR(opt_typed(&p), "--format");
    CHECK(opt_next(&p, &v, &err) == OPT_DONE);
    CHECK(opt_next(&p, &v, &err) == OPT_DONE);          /* stays done */
    CHECK(opt_find(&table, O_OUTPUT) == &rows[2]);
    CHECK(opt_find(&table, 12345) == NULL);

    /* the help text */
    CHECK_STR(help_text(),
              "  -k, --kube-version X.Y      target version\n"
              "  -o, --format FORMAT         text or json\n"
              "                              (repeatable)\n"
              "      --output FILE           write the format to FILE\n"
              "text row\n"
              "      --no-color              never colour\n"
              "  -v                          more output\n"
              "  -h, --help                  this help\n"
              "      --no-hints              no hint lines\n"
              "      --a-very-long-option-name VALUE  long\n");
    return CHECK_DONE();
}
