/*
 * gates.c - lookups on the gate table. The rows are data: gates.yaml,
 * turned into gates_data.c by gen.py (`make generate`). When the reference
 * changes, change gates.yaml, regenerate and run build/tests/test_gates,
 * which checks that stages only move forward, locks sit on GA gates and
 * every path walks the objects it names.
 */
#include "gates.h"

#include <string.h>


/* ==== lookups =========================================================== */

int gate_find(const char *name)
{
    size_t i;

    for (i = 0; i < gate_count; i++)
        if (!strcmp(gate_table[i].name, name))
            return (int)i;
    return -1;
}

int gate_state_at(const struct gate *g, int minor, struct gate_state *out)
{
    const char *p = g->stages;
    int v = GATE_MIN_MINOR;

    memset(out, 0, sizeof(*out));
    if (minor < GATE_MIN_MINOR || minor > GATE_MAX_MINOR)
        return 0;
    for (;;) {
        const char *tok;
        size_t len;
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        tok = p;
        while (*p && *p != ' ')
            p++;
        len = (size_t)(p - tok);
        if (v++ != minor)
            continue;
        if (len == 1 && tok[0] == '-')
            return 0;
        if (len == 1 && tok[0] == 'x') {
            out->stage = GATE_REMOVED;
            return 0;
        }
        if (len < 2 || len > 3 || (tok[1] != '0' && tok[1] != '1')
            || (len == 3 && tok[2] != 'L'))
            return -1;
        switch (tok[0]) {
        case 'A': out->stage = GATE_ALPHA; break;
        case 'B': out->stage = GATE_BETA; break;
        case 'G': out->stage = GATE_GA; break;
        default: return -1;
        }
        out->on = tok[1] == '1';
        out->locked = len == 3;
        return 0;
    }
}

static int first_minor(const struct gate *g, int (*pred)(
                           const struct gate_state *))
{
    int m;

    for (m = GATE_MIN_MINOR; m <= GATE_MAX_MINOR; m++) {
        struct gate_state s;
        if (gate_state_at(g, m, &s) == 0 && pred(&s))
            return m;
    }
    return 0;
}

static int is_ga(const struct gate_state *s)
{
    return s->stage == GATE_GA;
}

static int is_on(const struct gate_state *s)
{
    return s->on && s->stage != GATE_REMOVED && s->stage != GATE_ABSENT;
}

static int exists(const struct gate_state *s)
{
    return s->stage != GATE_ABSENT;
}

int gate_ga_minor(const struct gate *g)
{
    return first_minor(g, is_ga);
}

int gate_on_minor(const struct gate *g)
{
    return first_minor(g, is_on);
}

int gate_first_minor(const struct gate *g)
{
    return first_minor(g, exists);
}

const char *gate_stage_name(enum gate_stage s)
{
    switch (s) {
    case GATE_ALPHA: return "alpha";
    case GATE_BETA: return "beta";
    case GATE_GA: return "GA";
    case GATE_REMOVED: return "removed";
    case GATE_ABSENT: return "absent";
    }
    return "?";
}

int api_version_find(const char *version)
{
    size_t i;

    for (i = 0; i < api_version_count; i++)
        if (!strcmp(api_versions[i].version, version))
            return (int)i;
    return -1;
}

int api_version_served(const struct api_version *v, int minor)
{
    return minor >= v->introduced && (!v->removed || minor < v->removed);
}

int kind_has_versions(const char *kind)
{
    size_t i;

    for (i = 0; i < kind_version_count; i++)
        if (!strcmp(kind_versions[i].kind, kind))
            return 1;
    return 0;
}

const struct kind_version *kind_version_find(const char *kind,
                                             const char *version)
{
    size_t i;

    for (i = 0; i < kind_version_count; i++)
        if (!strcmp(kind_versions[i].kind, kind)
            && !strcmp(kind_versions[i].version, version))
            return &kind_versions[i];
    return NULL;
}

int kind_version_serves(const char *version, int minor)
{
    size_t i;

    for (i = 0; i < kind_version_count; i++)
        if (!strcmp(kind_versions[i].version, version)
            && minor >= kind_versions[i].introduced)
            return 1;
    return 0;
}
