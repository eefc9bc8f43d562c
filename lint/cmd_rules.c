/*
 * cmd_rules.c - the rule catalogue: `claimcheck rules [-o text|json]` (id,
 * category, default severity, summary; JSON adds the hint) and
 * `claimcheck explain RULE` (what it catches, why, a failing and a fixed
 * example, the fix and how to suppress it). Both read the registry only.
 */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

#include "../rules/rules.h"
#include "../validate/buf.h"
#include "../validate/err.h"
#include "cli.h"

enum { O_FORMAT };

static const struct opt rules_rows[] = {
    { "format", 'o', OPT_VALUE, "text|json", "output; default text",
      O_FORMAT },
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table rules_options = OPT_TABLE(rules_rows);

static const struct opt explain_rows[] = {
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table explain_options = OPT_TABLE(explain_rows);

struct rules_args {
    int json;
    const char *operand;        /* explain: the rule id */
    size_t noperands;
};

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct rules_args *a = ctx;

    switch (id) {
    case O_FORMAT:
        return cli_text_or_json(v, &a->json, err);
    case OPT_OPERAND:
        a->operand = v;
        a->noperands++;
        return 0;
    default:
        BUG("option id %d has no case", id);
    }
}

static void print_rule(struct buf *b, const struct rule *r, int json,
                       int first)
{
    if (!json) {
        buf_addf(b, "%-28s %-15s %-8s %s\n", r->id,
                 category_name(r->category), sev_name(r->default_sev),
                 r->summary);
        return;
    }
    buf_adds(b, first ? "\n{\"id\":" : ",\n{\"id\":");
    buf_add_json_str(b, r->id);
    buf_adds(b, ",\"category\":");
    buf_add_json_str(b, category_name(r->category));
    buf_adds(b, ",\"severity\":");
    buf_add_json_str(b, sev_name(r->default_sev));
    buf_adds(b, ",\"summary\":");
    buf_add_json_str(b, r->summary);
    buf_adds(b, ",\"hint\":");
    buf_add_json_str(b, r->hint);
    buf_adds(b, "}");
}

int cmd_rules(const struct cli *cli, int argc, char **argv)
{
    struct rules_args a = {0, NULL, 0};
    struct buf b;
    size_t i;
    int ret;

    if (cli_parse(cli, argc, argv, on_option, &a, &ret) < 0)
        return ret;
    if (a.noperands)
        return cli_usage_error(cli, "rules takes no operand, not '%s'",
                               a.operand);
    buf_init(&b, 1 << 20);
    if (a.json)
        buf_adds(&b, "[");
    for (i = 0; i < rules_builtin.n; i++)
        print_rule(&b, &rules_builtin.v[i], a.json, i == 0);
    if (a.json)
        buf_adds(&b, "\n]\n");
    fwrite(b.p, 1, b.len, stdout);
    buf_release(&b);
    return 0;
}

static void print_indented(const char *s)
{
    while (*s) {
        const char *nl = strchr(s, '\n');
        size_t l = nl ? (size_t)(nl - s) : strlen(s);
        printf("    %.*s\n", (int)l, s);
        s += l + (nl ? 1 : 0);
    }
}

int cmd_explain(const struct cli *cli, int argc, char **argv)
{
    struct rules_args a = {0, NULL, 0};
    const struct rule *r;
    int ret;

    if (cli_parse(cli, argc, argv, on_option, &a, &ret) < 0)
        return ret;
    if (a.noperands != 1)
        return cli_usage_error(cli, "give one rule id (see 'claimcheck "
                               "rules')");
    r = ruleset_find(&rules_builtin, a.operand);
    if (!r) {
        const char *near = ruleset_suggest(&rules_builtin, a.operand);
        if (near)
            cli_error("unknown rule '%s' (did you mean '%s'?)", a.operand,
                      near);
        else
            cli_error("unknown rule '%s' (see 'claimcheck rules')",
                      a.operand);
        return 2;
    }
    printf("%s (%s, default severity %s)\n\n%s\n\n", r->id,
           category_name(r->category), sev_name(r->default_sev), r->summary);
    if (r->why)
        printf("Why it matters:\n%s\n\n", r->why);
    if (r->bad) {
        printf("Fails:\n");
        print_indented(r->bad);
        printf("\n");
    }
    if (r->good) {
        printf("Fixed:\n");
        print_indented(r->good);
        printf("\n");
    }
    printf("Fix: %s\n", r->hint);
    printf("Suppress on one object: annotation ignore.claimcheck.dev/%s: "
           "\"<reason>\"\n", r->id);
    return 0;
}
