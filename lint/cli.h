/*
 * cli.h - what every `claimcheck` command shares: the row of the command
 * table (main.c), the parse loop over a command's option table (--help
 * included), usage and error messages, and the target options (-k, -g,
 * --runtime-config) that lint, gates, cel and match take alike.
 *
 * A command is one file (cmd_<name>.c) with its option table next to the
 * code that reads it; main.c's table names the command's function,
 * synopsis, summary and options. Messages go to stderr as
 * "claimcheck: MESSAGE"; usage errors add "(see 'claimcheck NAME --help')"
 * and exit 2.
 */
#ifndef CLAIMCHECK_CLI_H
#define CLAIMCHECK_CLI_H

#include <stddef.h>
#include <stdio.h>

#include "../validate/opt.h"

struct config;
struct err;
struct cli;

/* The report options of lint and audit, rows of their option tables: P
 * is the prefix of the command's own ids (P##FORMAT ... P##NO_HINTS). */
#define CLI_REPORT_ROWS(P) \
    { "format", 'o', OPT_VALUE, "FORMAT", \
      "an output format (repeatable; each may be\nfollowed by --output " \
      "FILE)", P##FORMAT }, \
    { "output", 0, OPT_VALUE, "FILE", \
      "write the preceding --format to FILE", P##OUTPUT }, \
    { "fail-on", 0, OPT_VALUE, "error|warning|never", \
      "the lowest severity that exits 1 (default\nerror); RULE=LEVEL: " \
      "that rule's own (repeatable)", P##FAIL_ON }, \
    { "config", 'c', OPT_VALUE, "FILE", \
      "config file (default: ./.claimcheck.yaml if present)", P##CONFIG }, \
    { "enable", 0, OPT_VALUE, "ID,..", "turn rules or categories on", \
      P##ENABLE }, \
    { "disable", 0, OPT_VALUE, "ID,..", "turn rules or categories off", \
      P##DISABLE }, \
    { "show-suppressed", 0, OPT_FLAG, NULL, \
      "also list findings suppressed by annotations", P##SHOW_SUPPRESSED }, \
    { "no-color", 0, OPT_FLAG, NULL, "never colour the text output", \
      P##NO_COLOR }, \
    { "no-hints", 0, OPT_FLAG, NULL, \
      "leave out the hint lines (text output)", P##NO_HINTS }, \
    { "no-hint", 0, OPT_FLAG, NULL, NULL, P##NO_HINTS }

struct command {
    const char *name;               /* "lint" */
    int (*run)(const struct cli *cli, int argc, char **argv);
                                    /* argv[0] is the name; returns the
                                       exit code */
    const char *synopsis;           /* after the name in usage lines */
    const char *operands;           /* what its operands are, as a
                                       metavar ("PATH", "RULE"), or NULL */
    const char *summary;            /* one line, for claimcheck --help */
    const char *about;              /* NAME --help's text before the
                                       options, or NULL */
    const struct opt_table *opts;   /* --help at least */
    void (*more)(FILE *f);          /* help after the options, or NULL */
};

struct cli {
    const struct command *cmds;     /* the command table */
    size_t ncmds;
    const struct command *cmd;      /* the one running */
};

/* option ids several commands' tables share (each table's own ids are
 * below 1000) */
enum {
    CLI_HELP = 1000,                /* -h, --help: handled by cli_parse() */
    CLI_KUBE_VERSION,               /* -k, --kube-version X.Y */
    CLI_FEATURE_GATES,              /* -g, --feature-gates K=V,... */
    CLI_RUNTIME_CONFIG              /* --runtime-config GV=B,... */
};

/* Parses argv with the running command's option table, calling on() for
 * each option (its id and value) and each operand (OPT_OPERAND and the
 * operand); on() returns 0, or -1 with *err filled. Returns 0 to go on,
 * or -1 to stop with *exit_code: 0 after --help (printed to stdout), 2
 * after an error (printed). */
int cli_parse(const struct cli *cli, int argc, char **argv,
              int (*on)(void *ctx, int id, const char *value,
                        struct err *err),
              void *ctx, int *exit_code);
/* -k, -g, --runtime-config into cfg: 0, or -1 and *err. Any other id is a
 * BUG (a table row without a case). */
int cli_target_option(struct config *cfg, int id, const char *value,
                      struct err *err);

/* -o text|json of the commands that print one or the other: *json set,
 * 0; or -1 and *err. */
int cli_text_or_json(const char *value, int *json, struct err *err);
/* "usage: claimcheck NAME SYNOPSIS", the about text, the options and
 * the command's more(). */
void cli_help(const struct cli *cli, FILE *f);
/* "claimcheck: MESSAGE" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The same plus "(see 'claimcheck NAME --help')"; returns 2. */
int cli_usage_error(const struct cli *cli, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

#endif
