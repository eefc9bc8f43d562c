/*
 * opt.c - the option-table parser and the help text generated from a
 * table. Owns the command-line syntax (long and short forms, values,
 * groups, "--", "-") and its error messages; what an option means, and
 * which values it accepts, belongs to the command that owns the table.
 */
#include "opt.h"

#include <string.h>

#include "err.h"
#include "suggest.h"

void opt_init(struct opt_parser *p, const struct opt_table *t, int argc,
              char **argv)
{
    memset(p, 0, sizeof(*p));
    p->t = t;
    p->argc = argc;
    p->argv = argv;
    p->i = 1;
}

const char *opt_typed(const struct opt_parser *p)
{
    return p->typed;
}

const struct opt *opt_find(const struct opt_table *t, int id)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if ((t->v[i].name || t->v[i].letter) && t->v[i].id == id)
            return &t->v[i];
    return NULL;
}

static const struct opt *find_long(const struct opt_table *t,
                                   const char *name, size_t len)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (t->v[i].name && strlen(t->v[i].name) == len
            && !strncmp(t->v[i].name, name, len))
            return &t->v[i];
    return NULL;
}

static const struct opt *find_short(const struct opt_table *t, char c)
{
    size_t i;

    for (i = 0; i < t->n; i++)
        if (t->v[i].letter && t->v[i].letter == c)
            return &t->v[i];
    return NULL;
}

static int unknown_long(struct opt_parser *p, const char *name, size_t len,
                        struct err *err)
{
    struct suggest s;
    char word[SUGGEST_MAX_LEN + 1];
    size_t i;

    if (len > SUGGEST_MAX_LEN)
        return err_set(err, "unknown option '%s'", p->typed);
    memcpy(word, name, len);
    word[len] = '\0';
    suggest_init(&s, word);
    for (i = 0; i < p->t->n; i++)
        if (p->t->v[i].help)    /* hidden aliases are not suggested */
            suggest_add(&s, p->t->v[i].name);
    if (suggest_best(&s))
        return err_set(err, "unknown option '%s' (did you mean '--%s'?)",
                       p->typed, suggest_best(&s));
    return err_set(err, "unknown option '%s'", p->typed);
}

/* A value from the rest of the argument, or from the next one. */
static int take_value(struct opt_parser *p, const char *inline_value,
                      const char **value, struct err *err)
{
    if (inline_value) {
        *value = inline_value;
        return 0;
    }
    if (p->i >= p->argc)
        return err_set(err, "option '%s' needs a value", p->typed);
    *value = p->argv[p->i++];
    return 0;
}

static int next_short(struct opt_parser *p, const char **value,
                      struct err *err)
{
    char c = *p->group++;
    const struct opt *o = find_short(p->t, c);

    snprintf(p->typed, sizeof(p->typed), "-%c", c);
    if (!*p->group)
        p->group = NULL;
    if (!o) {
        p->group = NULL;
        err_set(err, "unknown option '%s'", p->typed);
        return OPT_ERROR;
    }
    *value = NULL;
    if (o->arg == OPT_FLAG)
        return o->id;
    if (take_value(p, p->group, value, err) < 0)
        return OPT_ERROR;
    p->group = NULL;
    return o->id;
}

static int next_long(struct opt_parser *p, const char *a, const char **value,
                     struct err *err)
{
    const char *name = a + 2, *eq = strchr(name, '=');
    size_t len = eq ? (size_t)(eq - name) : strlen(name);
    const struct opt *o = find_long(p->t, name, len);

    snprintf(p->typed, sizeof(p->typed), "--%.*s",
             len > sizeof(p->typed) - 3 ? (int)sizeof(p->typed) - 3
                                        : (int)len, name);
    *value = NULL;
    if (!o) {
        unknown_long(p, name, len, err);
        return OPT_ERROR;
    }
    if (o->arg == OPT_FLAG) {
        if (eq) {
            err_set(err, "option '%s' takes no value", p->typed);
            return OPT_ERROR;
        }
        return o->id;
    }
    if (take_value(p, eq ? eq + 1 : NULL, value, err) < 0)
        return OPT_ERROR;
    return o->id;
}

int opt_next(struct opt_parser *p, const char **value, struct err *err)
{
    const char *a;

    *value = NULL;
    if (p->group)
        return next_short(p, value, err);
    for (;;) {
        if (p->i >= p->argc)
            return OPT_DONE;
        a = p->argv[p->i++];
        if (p->operands_only || a[0] != '-' || a[1] == '\0') {
            *value = a;
            return OPT_OPERAND;
        }
        if (strcmp(a, "--") != 0)
            break;
        p->operands_only = 1;
    }
    if (a[1] == '-')
        return next_long(p, a, value, err);
    p->group = a + 1;
    return next_short(p, value, err);
}

/* ==== help ============================================================== */

static void help_lines(FILE *f, const char *help, int col)
{
    for (;;) {
        const char *nl = strchr(help, '\n');
        int n = nl ? (int)(nl - help) : (int)strlen(help);
        fprintf(f, "%.*s\n", n, help);
        if (!nl)
            return;
        help = nl + 1;
        fprintf(f, "%*s", col, "");
    }
}

void opt_help(FILE *f, const struct opt_table *t)
{
    size_t i;

    for (i = 0; i < t->n; i++) {
        const struct opt *o = &t->v[i];
        int n = 0;
        if (!o->name && !o->letter) {
            if (o->help)
                fprintf(f, "%s\n", o->help);
            continue;
        }
        if (!o->help)
            continue;
        n += fprintf(f, "  ");
        if (o->letter)
            n += fprintf(f, "-%c%s", o->letter, o->name ? ", " : "");
        else
            n += fprintf(f, "    ");
        if (o->name)
            n += fprintf(f, "--%s", o->name);
        if (o->arg == OPT_VALUE)
            n += fprintf(f, " %s", o->metavar ? o->metavar : "VALUE");
        fprintf(f, "%*s", n + 2 <= OPT_HELP_COLUMN ? OPT_HELP_COLUMN - n : 2,
                "");
        help_lines(f, o->help, OPT_HELP_COLUMN);
    }
}
