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
/* execs claimcheck-webhook audit, which parses audit_options */
int cmd_audit(const struct cli *cli, int argc, char **argv);

extern const struct opt_table lint_options, rules_options, explain_options,
    gates_options, cel_options, match_options, version_options,
    completion_options, audit_options;
extern const char gates_about[], cel_about[], match_about[],
    completion_about[], audit_about[];
/* lint's help after its options: the formats, PATH, the exit status */
void lint_help_more(FILE *f);
/* audit's help after its options: the exit status */
void audit_help_more(FILE *f);

/* audit_options' own ids (the target options are cli.h's CLI_*) */
enum {
    AUDIT_KUBECONFIG = 1, AUDIT_CONTEXT, AUDIT_IN_CLUSTER, AUDIT_APISERVER,
    AUDIT_SA_DIR, AUDIT_NAMESPACE, AUDIT_PAGE_SIZE, AUDIT_IDLE_AFTER,
    AUDIT_FORMAT, AUDIT_OUTPUT, AUDIT_FAIL_ON, AUDIT_CONFIG, AUDIT_ENABLE,
    AUDIT_DISABLE, AUDIT_SHOW_SUPPRESSED, AUDIT_NO_COLOR, AUDIT_NO_HINTS
};

#endif
