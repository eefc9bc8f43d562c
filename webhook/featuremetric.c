/*
 * featuremetric.c - the samples of kubernetes_feature_enabled in a
 * Prometheus text page (see featuremetric.h): a line splitter, a strict
 * reader of one sample line, and the gate table lookup. Reads nothing but
 * the text it is given.
 */
#include "featuremetric.h"

#include <string.h>

#include "../validate/err.h"
#include "../validate/k8s/gates.h"

#define LABEL_MAX 128           /* a label's name or value we keep */

static int blank(char c)
{
    return c == ' ' || c == '\t';
}

static const char *skip_blanks(const char *p, const char *end)
{
    while (p < end && blank(*p))
        p++;
    return p;
}

static int name_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static int name_char(char c)
{
    return name_start(c) || (c >= '0' && c <= '9');
}

/* A quoted label value at *pp (after the opening quote) into out
 * (unescaped, NUL-terminated); *pp moves past the closing quote. 0 or
 * -1 with what is wrong in *why. */
static int label_value(const char **pp, const char *end, char *out,
                       size_t max, const char **why)
{
    const char *p = *pp;
    size_t n = 0;

    for (;;) {
        char c;
        if (p >= end) {
            *why = "a label value has no closing quote";
            return -1;
        }
        c = *p++;
        if (c == '"')
            break;
        if (c == '\\') {
            if (p >= end || (*p != '\\' && *p != '"' && *p != 'n')) {
                *why = "a label value has an escape other than \\\\, \\\" "
                       "or \\n";
                return -1;
            }
            c = *p == 'n' ? '\n' : *p;
            p++;
        }
        if (n + 1 >= max) {
            *why = "a label value is too long";
            return -1;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    *pp = p;
    return 0;
}

/* The label set at *pp (after '{') up to and past '}'; the `name` label's
 * value into gate. 0 or -1 with *why. */
static int labels(const char **pp, const char *end, char *gate, size_t max,
                  const char **why)
{
    const char *p = *pp;
    char value[LABEL_MAX];

    gate[0] = '\0';
    for (;;) {
        const char *lname;
        size_t llen;
        p = skip_blanks(p, end);
        if (p < end && *p == '}')
            break;
        if (p >= end || !name_start(*p)) {
            *why = "a label name is missing or malformed";
            return -1;
        }
        for (lname = p; p < end && name_char(*p); p++)
            ;
        llen = (size_t)(p - lname);
        p = skip_blanks(p, end);
        if (p >= end || *p != '=') {
            *why = "a label has no '='";
            return -1;
        }
        p = skip_blanks(p + 1, end);
        if (p >= end || *p != '"') {
            *why = "a label value is not quoted";
            return -1;
        }
        p++;
        if (label_value(&p, end, value, sizeof(value), why) < 0)
            return -1;
        if (llen == 4 && !memcmp(lname, "name", 4)) {
            if (gate[0]) {
                *why = "the 'name' label is given twice";
                return -1;
            }
            if (strlen(value) >= max) {
                *why = "the gate name is too long";
                return -1;
            }
            memcpy(gate, value, strlen(value) + 1);
        }
        p = skip_blanks(p, end);
        if (p < end && *p == ',') {
            p++;
            continue;
        }
        if (p >= end || *p != '}') {
            *why = "the label set has no closing '}'";
            return -1;
        }
        break;
    }
    *pp = p + 1;
    return 0;
}

static int gate_name_ok(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z')
              || (*s >= '0' && *s <= '9')))
            return 0;
    return 1;
}

/* One sample line of the metric (p after the metric name). The gate's
 * name into gate and its value into *on; 0 or -1 with *why. */
static int sample(const char *p, const char *end, char *gate, size_t max,
                  int *on, const char **why)
{
    const char *v;

    gate[0] = '\0';
    if (skip_blanks(p, end) < end && *skip_blanks(p, end) == '{') {
        p = skip_blanks(p, end) + 1;
        if (labels(&p, end, gate, max, why) < 0)
            return -1;
    }
    if (!gate_name_ok(gate)) {
        *why = gate[0] ? "the 'name' label is not a feature gate name"
                       : "the sample has no 'name' label";
        return -1;
    }
    if (p >= end || !blank(*p)) {
        *why = "the value is missing";
        return -1;
    }
    p = skip_blanks(p, end);
    for (v = p; p < end && !blank(*p); p++)
        ;
    if (p - v != 1 || (*v != '0' && *v != '1')) {
        *why = "the value is not 0 or 1";
        return -1;
    }
    *on = *v == '1';
    p = skip_blanks(p, end);
    if (p < end && *p == '-')   /* a timestamp in milliseconds */
        p++;
    for (v = p; p < end && *p >= '0' && *p <= '9'; p++)
        ;
    if ((p == v && v[-1] == '-') || skip_blanks(p, end) != end) {
        *why = "the line goes on after the value and timestamp";
        return -1;
    }
    return 0;
}

int featuremetric_parse(struct featuremetric *fm, const char *text,
                        size_t len, struct err *err)
{
    const size_t nlen = sizeof(FEATUREMETRIC_NAME) - 1;
    const char *p = text, *end = text + len;
    char gate[LABEL_MAX];
    size_t line = 0;

    memset(fm, 0, sizeof(*fm));
    memset(fm->on, -1, sizeof(fm->on));
    if (memchr(text, '\0', len))
        return err_set(err, "the metrics text holds a NUL byte");
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *eol = nl ? nl : end, *s = skip_blanks(p, eol);
        const char *why = NULL;
        int on = 0, idx;
        line++;
        p = nl ? nl + 1 : end;
        if ((size_t)(eol - s) <= nlen || memcmp(s, FEATUREMETRIC_NAME, nlen)
            || (s[nlen] != '{' && !blank(s[nlen])))
            continue;           /* a comment, a blank or another metric */
        if (++fm->samples > FEATUREMETRIC_MAX_SAMPLES)
            why = "too many samples of the metric";
        else if ((size_t)(eol - s) > FEATUREMETRIC_LINE_MAX)
            why = "the line is too long";
        else
            sample(s + nlen, eol, gate, sizeof(gate), &on, &why);
        if (why) {
            memset(fm->on, -1, sizeof(fm->on));
            return err_set(err, "line %zu of the metrics text ('%s'): %s",
                           line, FEATUREMETRIC_NAME, why);
        }
        idx = gate_find(gate);
        if (idx < 0 || idx >= TARGET_MAX_GATES)
            continue;
        if (fm->on[idx] >= 0 && fm->on[idx] != on) {
            memset(fm->on, -1, sizeof(fm->on));
            return err_set(err, "line %zu of the metrics text: gate '%s' "
                           "is both on and off", line, gate);
        }
        if (fm->on[idx] < 0)
            fm->known++;
        fm->on[idx] = (signed char)on;
    }
    return 0;
}
