/*
 * cmds.h - the `claimcheck` commands, one file each (cmd_<name>.c): the
 * function main.c's command table runs, the option table it parses with,
 * and the text its --help prints before the options.
 */
#ifndef CLAIMCHECK_CMDS_H
#define CLAIMCHECK_CMDS_H

#include <stdio.h>

#include "../validate/opt.h"

struct cli;

int cmd_lint(const struct cli *cli, int argc, char **argv);
int cmd_rules(const struct cli *cli, int argc, char **argv);
int cmd_explain(const struct cli *cli, int argc, char **argv);
int cmd_gates(const struct cli *cli, int argc, char **argv);
int cmd_cel(const struct cli *cli, int argc, char **argv);
int cmd_match(const struct cli *cli, int argc, char **argv);
int cmd_version(const struct cli *cli, int argc, char **argv);
int cmd_completion(const struct cli *cli, int argc, char **argv);

extern const struct opt_table lint_options, rules_options, explain_options,
    gates_options, cel_options, match_options, version_options,
    completion_options;
extern const char gates_about[], cel_about[], match_about[],
    completion_about[];
/* lint's help after its options: the formats, PATH, the exit status */
void lint_help_more(FILE *f);

#endif
