/*
 * cmd_gates.c - `claimcheck gates [-k X.Y] [-g K=V,...] [--runtime-config
 * GV=B,...] [-o text|json]`: the DRA feature gates of one Kubernetes
 * version from validate/k8s/gates.c (stage, default, the effective value
 * after -g, lock, GA and removal versions, the fields each gate controls)
 * and the resource.k8s.io versions the apiserver serves. Flags are
 * resolved with target_init(), exactly as lint and the webhook do, so a
 * bad gate is the same usage error (exit 2) everywhere.
 */
#include "cmds.h"

#include <stdio.h>
#include <string.h>

#include "../validate/k8s/gates.h"
#include "../validate/config.h"
#include "../validate/err.h"
#include "../validate/object.h"
#include "../validate/target.h"
#include "cli.h"

enum { O_FORMAT };

static const struct opt rows[] = {
    { "kube-version", 'k', OPT_VALUE, "X.Y",
      "target Kubernetes version (default: newest known)", CLI_KUBE_VERSION },
    { "feature-gates", 'g', OPT_VALUE, "GATE=true|false,..",
      "feature gate overrides (kube-apiserver syntax)", CLI_FEATURE_GATES },
    { "runtime-config", 0, OPT_VALUE, "GV=true|false,..",
      "API versions enabled beyond the defaults", CLI_RUNTIME_CONFIG },
    { "format", 'o', OPT_VALUE, "text|json", "output; default text",
      O_FORMAT },
    { "help", 'h', OPT_FLAG, NULL, "show this help", CLI_HELP },
};
const struct opt_table gates_options = OPT_TABLE(rows);

const char gates_about[] =
"Prints the DRA feature gates of a Kubernetes version: stage, default,\n"
"effective value (after -g), lock, GA and planned removal, and the fields\n"
"each gate controls; then the resource.k8s.io API versions served.\n";

/* ==== shared bits ======================================================= */

static const char *kind_label(unsigned kinds)
{
    if (kinds & K_PODLIKE)
        return "Pod";
    if (kinds & K_CLAIMLIKE)
        return "ResourceClaim";
    if (kinds & K_CLASS)
        return "DeviceClass";
    if (kinds & K_SLICE)
        return "ResourceSlice";
    return "object";
}

static const char *shape_label(unsigned shapes)
{
    switch (shapes) {
    case SHAPE_FLAT: return "v1alpha3, v1beta1";
    case SHAPE_EXACTLY: return "v1beta2, v1";
    default: return "";
    }
}

static int field_of(const struct gated_field *f, const char *gate)
{
    return !strcmp(f->gate, gate) || (f->gate2 && !strcmp(f->gate2, gate));
}

/* Writes s as a JSON string (our table's strings are ASCII). */
static void json_str(FILE *o, const char *s)
{
    if (!s) {
        fputs("null", o);
        return;
    }
    fputc('"', o);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(o, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(o, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, o);
    }
    fputc('"', o);
}

static void json_minor(FILE *o, int m)
{
    if (m)
        fprintf(o, "\"1.%d\"", m);
    else
        fputs("null", o);
}

/* ==== text ============================================================== */

static void text_gate(FILE *o, const struct target *t, size_t i)
{
    const struct gate *g = &gate_table[i];
    struct gate_state s;
    char notes[256];
    const char *en;
    size_t n = 0, k;
    int ga = gate_ga_minor(g);

    gate_state_at(g, t->minor, &s);
    notes[0] = '\0';
    if (s.locked)
        n += (size_t)snprintf(notes + n, sizeof(notes) - n, "locked; ");
    if (t->gate_set[i] && n < sizeof(notes))
        n += (size_t)snprintf(notes + n, sizeof(notes) - n, "set by -g; ");
    if (ga && n < sizeof(notes))
        n += (size_t)snprintf(notes + n, sizeof(notes) - n, "GA %s1.%d; ",
                              ga > GATE_RELEASED_MINOR ? "planned for " : "",
                              ga);
    else if (g->plan && n < sizeof(notes))
        n += (size_t)snprintf(notes + n, sizeof(notes) - n, "%s; ", g->plan);
    if (g->removal && n < sizeof(notes))
        n += (size_t)snprintf(notes + n, sizeof(notes) - n,
                              "removal planned for %s; ", g->removal);
    if (g->unconfirmed && n < sizeof(notes))
        n += (size_t)snprintf(notes + n, sizeof(notes) - n,
                              "partly unconfirmed; ");
    if (n >= 2 && n < sizeof(notes))
        notes[n - 2] = '\0';
    en = s.stage == GATE_REMOVED ? "-" : t->gate_on[i] ? "on" : "off";
    fprintf(o, "%-44s %-8s %-8s %s%*s%s\n", g->name,
            gate_stage_name(s.stage),
            s.stage == GATE_REMOVED ? "-" : s.on ? "on" : "off", en,
            *notes ? 9 - (int)strlen(en) : 0, "", notes);
    fprintf(o, "    %s (KEP %s)\n", g->controls, g->kep);
    for (k = 0; k < gated_field_count; k++) {
        const struct gated_field *f = &gated_fields[k];
        if (!field_of(f, g->name))
            continue;
        fprintf(o, "    - %s spec.%s", kind_label(f->kinds), f->path);
        if (*shape_label(f->shapes))
            fprintf(o, " (%s)", shape_label(f->shapes));
        if (f->since)
            fprintf(o, " from 1.%d", f->since);
        if (f->until)
            fprintf(o, " until 1.%d", f->until - 1);
        fputc('\n', o);
    }
}

static void text_out(FILE *o, const struct target *t)
{
    size_t i;
    int absent = 0;

    fprintf(o, "DRA feature gates in Kubernetes %s%s\n\n", t->version,
            t->prerelease ? " (pre-release: the table's data may still "
            "change)" : t->minor == GATE_RELEASED_MINOR
            ? " (newest release in the table)" : "");
    fprintf(o, "%-44s %-8s %-8s %-8s %s\n", "GATE", "STAGE", "DEFAULT",
            "ENABLED", "NOTES");
    for (i = 0; i < gate_count; i++) {
        struct gate_state s;
        gate_state_at(&gate_table[i], t->minor, &s);
        if (s.stage != GATE_ABSENT)
            text_gate(o, t, i);
    }
    for (i = 0; i < gate_count; i++) {
        struct gate_state s;
        gate_state_at(&gate_table[i], t->minor, &s);
        if (s.stage != GATE_ABSENT)
            continue;
        fprintf(o, "%s%s (from 1.%d)", absent++ ? ", " : "\nnot yet in "
                "this version: ", gate_table[i].name,
                gate_first_minor(&gate_table[i]));
    }
    if (absent)
        fputc('\n', o);
    fprintf(o, "\nresource.k8s.io API versions in Kubernetes %s\n",
            t->version);
    for (i = 0; i < api_version_count; i++) {
        const struct api_version *v = &api_versions[i];
        fprintf(o, "  %-9s ", v->version);
        if (t->minor < v->introduced)
            fprintf(o, "not yet (added in 1.%d)", v->introduced);
        else if (v->removed && t->minor >= v->removed)
            fprintf(o, "removed in 1.%d", v->removed);
        else
            fprintf(o, "served, %s%s", t->api_on[i] ? "enabled" : "disabled",
                    t->api_set[i] ? " by --runtime-config"
                    : v->default_on ? " by default"
                    : " by default (needs --runtime-config)");
        if (v->deprecated && t->minor >= v->deprecated)
            fprintf(o, "; deprecated since 1.%d", v->deprecated);
        if (v->removal_planned)
            fprintf(o, "; removal planned for 1.%d", v->removal_planned);
        fprintf(o, "  [%s]\n", v->note);
    }
}

/* ==== JSON ============================================================== */

static void json_gate(FILE *o, const struct target *t, size_t i)
{
    const struct gate *g = &gate_table[i];
    struct gate_state s;
    size_t k;
    int first = 1, ga = gate_ga_minor(g);

    gate_state_at(g, t->minor, &s);
    fputs("{\"name\":", o);
    json_str(o, g->name);
    fputs(",\"kep\":", o);
    json_str(o, g->kep);
    fprintf(o, ",\"stage\":\"%s\",\"default\":%s,\"enabled\":%s,"
            "\"overridden\":%s,\"locked\":%s,\"gaVersion\":",
            gate_stage_name(s.stage), s.on ? "true" : "false",
            t->gate_on[i] ? "true" : "false",
            t->gate_set[i] ? "true" : "false", s.locked ? "true" : "false");
    json_minor(o, ga);
    fputs(",\"onByDefaultFrom\":", o);
    json_minor(o, gate_on_minor(g));
    fputs(",\"gaPlan\":", o);
    json_str(o, g->plan);
    fputs(",\"removalPlanned\":", o);
    json_str(o, g->removal);
    fprintf(o, ",\"unconfirmed\":%s,\"controls\":",
            g->unconfirmed ? "true" : "false");
    json_str(o, g->controls);
    fputs(",\"fields\":[", o);
    for (k = 0; k < gated_field_count; k++) {
        const struct gated_field *f = &gated_fields[k];
        if (!field_of(f, g->name))
            continue;
        fputs(first ? "" : ",", o);
        first = 0;
        fputs("{\"kind\":", o);
        json_str(o, kind_label(f->kinds));
        fputs(",\"path\":", o);
        fprintf(o, "\"spec.%s\"", f->path);
        fputs(",\"apiVersions\":", o);
        json_str(o, *shape_label(f->shapes) ? shape_label(f->shapes) : NULL);
        fputs(",\"since\":", o);
        json_minor(o, f->since);
        fputs(",\"until\":", o);
        json_minor(o, f->until);
        fputs(",\"alsoNeeds\":", o);
        json_str(o, f->gate2 && strcmp(f->gate2, g->name) ? f->gate2
                    : strcmp(f->gate, g->name) ? f->gate : NULL);
        fputc('}', o);
    }
    fputs("]}", o);
}

static void json_out(FILE *o, const struct target *t)
{
    size_t i;
    int first = 1;

    fprintf(o, "{\"version\":1,\"kubeVersion\":\"%s\",\"prerelease\":%s,"
            "\"gates\":[", t->version, t->prerelease ? "true" : "false");
    for (i = 0; i < gate_count; i++) {
        struct gate_state s;
        gate_state_at(&gate_table[i], t->minor, &s);
        if (s.stage == GATE_ABSENT)
            continue;
        fputs(first ? "" : ",", o);
        first = 0;
        json_gate(o, t, i);
    }
    fputs("],\"apiVersions\":[", o);
    for (i = 0; i < api_version_count; i++) {
        const struct api_version *v = &api_versions[i];
        fprintf(o, "%s{\"version\":\"%s\",\"served\":%s,\"enabled\":%s,"
                "\"defaultEnabled\":%s,\"introduced\":", i ? "," : "",
                v->version, api_version_served(v, t->minor) ? "true"
                : "false", t->api_on[i] ? "true" : "false",
                v->default_on ? "true" : "false");
        json_minor(o, v->introduced);
        fputs(",\"deprecated\":", o);
        json_minor(o, v->deprecated);
        fputs(",\"removed\":", o);
        json_minor(o, v->removed);
        fputs(",\"removalPlanned\":", o);
        json_minor(o, v->removal_planned);
        fputc('}', o);
    }
    fputs("]}\n", o);
}

/* ==== the command ======================================================= */

struct gates_args {
    struct config cfg;
    int json;
};

static int on_option(void *ctx, int id, const char *v, struct err *err)
{
    struct gates_args *a = ctx;

    switch (id) {
    case O_FORMAT:
        return cli_text_or_json(v, &a->json, err);
    case OPT_OPERAND:
        return err_set(err, "gates takes no operand, not '%s'", v);
    default:
        return cli_target_option(&a->cfg, id, v, err);
    }
}

int cmd_gates(const struct cli *cli, int argc, char **argv)
{
    struct gates_args a;
    struct target t;
    struct err err;
    int ret = 2;

    memset(&a, 0, sizeof(a));
    config_init(&a.cfg);
    if (cli_parse(cli, argc, argv, on_option, &a, &ret) < 0)
        goto out;
    if (target_init(&t, &a.cfg, &err) < 0) {
        cli_error("%s", err.msg);
        goto out;
    }
    if (a.json)
        json_out(stdout, &t);
    else
        text_out(stdout, &t);
    ret = fflush(stdout) == 0 ? 0 : 2;
out:
    config_release(&a.cfg);
    return ret;
}
