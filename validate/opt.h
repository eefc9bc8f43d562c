/*
 * opt.h - command-line options from a table: one parser for every
 * command of claimcheck, claimcheck-webhook and its certs command, and the
 * options part of their --help text, generated from the same table (git's
 * parse-options, in small).
 *
 * A row names an option once: long name, short letter, whether it takes a
 * value, the value's name in help, one help line, and the id opt_next()
 * returns for it. Recognised forms: `--name`, `--name=VALUE`,
 * `--name VALUE`, `-k VALUE`, `-kVALUE`, `-abc` (flags grouped), `--` (every
 * later argument is an operand), and `-` (an operand: stdin by
 * convention). Operands may come between options. An option given twice
 * is returned twice: what that means is the caller's business.
 *
 * Errors (opt_next() returns OPT_ERROR and fills *err) name the option as
 * typed: "unknown option '--fromat' (did you mean '--format'?)", "option
 * '--format' needs a value", "option '--no-color' takes no value".
 * Nothing here prints but opt_help(); nothing is allocated.
 */
#ifndef CLAIMCHECK_OPT_H
#define CLAIMCHECK_OPT_H

#include <stddef.h>
#include <stdio.h>

struct err;

enum opt_arg { OPT_FLAG, OPT_VALUE };  /* takes no value / takes one */

struct opt {
    const char *name;       /* long name without "--"; NULL: a text row */
    char letter;            /* short option letter, or 0 */
    enum opt_arg arg;
    const char *metavar;    /* the value's name in help ("FILE") */
    const char *help;       /* one line ('\n' continues it, aligned); a
                               text row's help is printed as it is; NULL:
                               a hidden alias */
    int id;                 /* what opt_next() returns; >= 0 */
};

struct opt_table {
    const struct opt *v;
    size_t n;
};
#define OPT_TABLE(rows) { (rows), sizeof(rows) / sizeof((rows)[0]) }

/* opt_next()'s answers that are not option ids */
enum { OPT_DONE = -1, OPT_OPERAND = -2, OPT_ERROR = -3 };

struct opt_parser {         /* on the stack; do not touch the fields */
    const struct opt_table *t;
    int argc;
    char **argv;
    int i;                  /* next argument */
    const char *group;      /* rest of a "-abc" group, or NULL */
    int operands_only;      /* after "--" */
    char typed[80];         /* the last option as typed, for messages */
};

/* argv[0] is the command's name: parsing starts at argv[1]. */
void opt_init(struct opt_parser *p, const struct opt_table *t, int argc,
              char **argv);
/* The next option's id (its value in *value, NULL for a flag),
 * OPT_OPERAND (the operand in *value), OPT_DONE, or OPT_ERROR (*err). */
int opt_next(struct opt_parser *p, const char **value, struct err *err);
/* The option opt_next() returned last, as typed ("--format", "-o"). */
const char *opt_typed(const struct opt_parser *p);
/* The row of id, or NULL. */
const struct opt *opt_find(const struct opt_table *t, int id);

/* Writes one line per visible row to f: "  -k, --kube-version X.Y" padded
 * to column OPT_HELP_COLUMN (or two spaces past a longer left part), then
 * the help; continuation lines are aligned to the column. */
#define OPT_HELP_COLUMN 30
void opt_help(FILE *f, const struct opt_table *t);

#endif
