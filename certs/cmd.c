/*
 * cmd.c - the `claimcheck-webhook certs` subcommand: its option table
 * (parsed by validate/opt.c) and which options go with --check, usage,
 * exit codes, and what gets printed (the caBundle on stdout, a summary on
 * stderr). The work itself is certs_generate() (gen.c) and
 * certs_check_dir() (check.c).
 */
#include "certs.h"
#include "certs_int.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../validate/err.h"
#include "../validate/opt.h"
#include "../validate/xalloc.h"

#define EXIT_CHECK 1
#define EXIT_USAGE 2

enum opt_id {
    O_SERVICE, O_NAMESPACE, O_OUT, O_DAYS, O_RSA, O_DNS, O_IP, O_CA_CERT,
    O_CA_KEY, O_FORCE, O_CHECK, O_MIN_DAYS, O_HELP, N_OPTS
};

enum { M_GEN = 1 << 0, M_CHECK = 1 << 1 };

static const struct opt cmd_rows[] = {
    { "service", 0, OPT_VALUE, "NAME", "the webhook Service name (required)",
      O_SERVICE },
    { "namespace", 0, OPT_VALUE, "NS", "its namespace (required)",
      O_NAMESPACE },
    { "out", 0, OPT_VALUE, "DIR",
      "output directory, created if missing (default .)", O_OUT },
    { "days", 0, OPT_VALUE, "N",
      "serving certificate validity, 1-3650 (default 365)", O_DAYS },
    { "rsa", 0, OPT_VALUE, "BITS",
      "RSA 2048 or 3072 keys instead of ECDSA P-256", O_RSA },
    { "dns", 0, OPT_VALUE, "NAME", "an extra DNS SAN (repeatable)", O_DNS },
    { "ip", 0, OPT_VALUE, "ADDR", "an extra IP SAN (repeatable)", O_IP },
    { "ca-cert", 0, OPT_VALUE, "FILE",
      "reuse this CA certificate (PEM) ...", O_CA_CERT },
    { "ca-key", 0, OPT_VALUE, "FILE",
      "... and its unencrypted private key (PEM)", O_CA_KEY },
    { "force", 0, OPT_FLAG, NULL, "overwrite existing files", O_FORCE },
    { NULL, 0, OPT_FLAG, NULL, "", 0 },
    { "check", 0, OPT_VALUE, "DIR",
      "inspect DIR/{ca.crt,tls.crt,tls.key}: print the\n"
      "subject, SANs and validity; fail (exit 1) if a\n"
      "required SAN (the four above, --dns, --ip) is\n"
      "missing, the chain does not verify, the key does\n"
      "not match or fewer than --min-days remain\n"
      "(on tls.crt or on a certificate of ca.crt)", O_CHECK },
    { "min-days", 0, OPT_VALUE, "N", "(default 30)", O_MIN_DAYS },
    { "help", 'h', OPT_FLAG, NULL, "show this help", O_HELP },
};
static const struct opt_table cmd_table = OPT_TABLE(cmd_rows);

/* per option: the modes it applies to, and whether it may repeat */
static const unsigned opt_modes[N_OPTS] = {
    [O_SERVICE] = M_GEN | M_CHECK, [O_NAMESPACE] = M_GEN | M_CHECK,
    [O_OUT] = M_GEN, [O_DAYS] = M_GEN, [O_RSA] = M_GEN,
    [O_DNS] = M_GEN | M_CHECK, [O_IP] = M_GEN | M_CHECK, [O_CA_CERT] = M_GEN,
    [O_CA_KEY] = M_GEN, [O_FORCE] = M_GEN, [O_CHECK] = M_CHECK,
    [O_MIN_DAYS] = M_CHECK, [O_HELP] = M_GEN | M_CHECK,
};
static const unsigned char opt_repeats[N_OPTS] = {
    [O_DNS] = 1, [O_IP] = 1, [O_HELP] = 1,
};

static const char usage_short[] =
    "usage: claimcheck-webhook certs --service NAME --namespace NS "
    "[--out DIR] [--days N]\n"
    "           [--rsa 2048|3072] [--dns NAME]... [--ip ADDR]... "
    "[--ca-cert FILE --ca-key FILE] [--force]\n"
    "   or: claimcheck-webhook certs --check DIR --service NAME "
    "--namespace NS [--min-days N]\n"
    "           [--dns NAME]... [--ip ADDR]...\n";

static const char usage_about[] =
    "\n"
    "Creates a CA and a serving certificate for the webhook Service, writes\n"
    "DIR/ca.crt, DIR/tls.crt and DIR/tls.key (mode 0600) and prints the\n"
    "base64 caBundle for the ValidatingWebhookConfiguration on stdout.\n"
    "The SANs are NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local.\n"
    "A new CA's key is not kept: pass --ca-cert/--ca-key to sign with your\n"
    "own CA (for example to rotate under an unchanged caBundle).\n"
    "\n"
    "options:\n";

static const char usage_exit[] =
    "\n"
    "Exit status: 0 ok, 1 failed, 2 usage error or existing files without\n"
    "--force.\n";

struct cmd {
    const char *val[N_OPTS];    /* last value of each single option */
    int seen[N_OPTS];
    const char **dns, **ip;     /* repeatable values, argc-sized arrays */
    size_t n_dns, n_ip;
};

static int usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int usage_error(const char *fmt, ...)
{
    va_list ap;

    fputs("error: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    fputs(usage_short, stderr);
    return EXIT_USAGE;
}

/* Fills c from argv; returns 0 or an exit code. */
static int parse_args(int argc, char **argv, struct cmd *c)
{
    struct opt_parser p;
    struct err e;
    const char *v;
    int id;

    opt_init(&p, &cmd_table, argc, argv);
    for (;;) {
        id = opt_next(&p, &v, &e);
        if (id == OPT_DONE)
            return 0;
        if (id == OPT_ERROR)
            return usage_error("%s", e.msg);
        if (id == OPT_OPERAND)
            return usage_error("unexpected argument '%s'", v);
        if (v && !*v)
            return usage_error("option '%s' needs a non-empty value",
                               opt_typed(&p));
        if (c->seen[id] && !opt_repeats[id])
            return usage_error("option '%s' given more than once",
                               opt_typed(&p));
        c->seen[id]++;
        c->val[id] = v;
        if (id == O_DNS)
            c->dns[c->n_dns++] = v;
        else if (id == O_IP)
            c->ip[c->n_ip++] = v;
    }
}

/* Every option given must be allowed in the chosen mode. */
static int check_modes(const struct cmd *c, unsigned mode)
{
    size_t i;

    for (i = 0; i < cmd_table.n; i++) {
        const struct opt *o = &cmd_table.v[i];
        if (!o->name || !c->seen[o->id] || (opt_modes[o->id] & mode))
            continue;
        if (mode == M_CHECK)
            return usage_error("option '--%s' cannot be used with --check",
                               o->name);
        return usage_error("option '--%s' only applies to --check",
                           o->name);
    }
    return 0;
}

static int parse_int(const char *name, const char *s, int min, int max,
                     int *out)
{
    char *end;
    long v;

    errno = 0;
    v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < min || v > max) {
        fprintf(stderr, "error: option '%s' needs a number from %d to %d, "
                "not '%s'\n", name, min, max, s);
        fputs(usage_short, stderr);
        return -1;
    }
    *out = (int)v;
    return 0;
}

static int run_generate(const struct cmd *c, struct certs_opts *o)
{
    struct err e = { { 0 } };
    char ca[PATH_MAX], crt[PATH_MAX];
    const char *dir;
    char *b64;
    int exists;

    if (c->val[O_DAYS] &&
        parse_int("--days", c->val[O_DAYS], 1, CERTS_MAX_DAYS, &o->days) < 0)
        return EXIT_USAGE;
    if (c->val[O_RSA]) {
        if (parse_int("--rsa", c->val[O_RSA], 0, 65536, &o->rsa_bits) < 0)
            return EXIT_USAGE;
        if (o->rsa_bits != 2048 && o->rsa_bits != 3072)
            return usage_error("option '--rsa' must be 2048 or 3072, not "
                               "'%s'", c->val[O_RSA]);
    }
    if (certs_opts_check(o, &e) < 0)
        return usage_error("%s", e.msg);
    if (certs_generate_ex(o, &exists, &e) < 0) {
        fprintf(stderr, "error: %s\n", e.msg);
        return exists ? EXIT_USAGE : EXIT_CHECK;
    }

    dir = o->out_dir ? o->out_dir : ".";
    snprintf(ca, sizeof(ca), "%s/%s", dir, CERTS_CA_CRT);
    snprintf(crt, sizeof(crt), "%s/%s", dir, CERTS_TLS_CRT);
    b64 = certs_ca_bundle_b64(ca, &e);
    if (!b64) {
        fprintf(stderr, "error: %s\n", e.msg);
        return EXIT_CHECK;
    }
    printf("%s\n", b64);
    free(b64);
    if (fflush(stdout) != 0) {
        fprintf(stderr, "error: cannot write the caBundle to stdout: %s\n",
                strerror(errno));
        return EXIT_CHECK;
    }
    fprintf(stderr, "wrote %s/%s, %s/%s, %s/%s (%s)\n", dir, CERTS_CA_CRT,
            dir, CERTS_TLS_CRT, dir, CERTS_TLS_KEY,
            o->ca_cert ? "signed by the given CA" : "new CA, key discarded");
    if (certs_print_summary(stderr, "  ", crt, &e) < 0)
        fprintf(stderr, "warning: %s\n", e.msg);
    fprintf(stderr, "the caBundle (base64 of %s) is on stdout\n", ca);
    return 0;
}

static int run_check(const struct cmd *c, const struct certs_opts *o)
{
    struct err e = { { 0 } };
    char sans[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1];
    int min_days = CERTS_DEFAULT_MIN_DAYS;

    if (c->val[O_MIN_DAYS] &&
        parse_int("--min-days", c->val[O_MIN_DAYS], 0, 100 * 366,
                  &min_days) < 0)
        return EXIT_USAGE;
    size_t i;

    if (certs_svc_sans(o->service, o->namespace_, sans, &e) < 0)
        return usage_error("%s", e.msg);
    for (i = 0; i < o->n_extra_dns; i++)
        if (!certs_is_dns_name(o->extra_dns[i]))
            return usage_error("'%s' is not a valid DNS name",
                               o->extra_dns[i]);
    for (i = 0; i < o->n_extra_ip; i++)
        if (!certs_is_ip(o->extra_ip[i]))
            return usage_error("'%s' is not an IP address", o->extra_ip[i]);
    fflush(stdout);
    return certs_check_dir(c->val[O_CHECK], o, min_days, stdout, stderr);
}

int certs_main(int argc, char **argv)
{
    struct certs_opts o;
    struct cmd c;
    size_t n = argc > 0 ? (size_t)argc : 1;
    int ret;

    memset(&c, 0, sizeof(c));
    memset(&o, 0, sizeof(o));
    c.dns = xcalloc(n, sizeof(*c.dns));
    c.ip = xcalloc(n, sizeof(*c.ip));
    ret = parse_args(argc, argv, &c);
    if (ret)
        goto out;
    if (c.seen[O_HELP]) {
        fputs(usage_short, stdout);
        fputs(usage_about, stdout);
        opt_help(stdout, &cmd_table);
        fputs(usage_exit, stdout);
        ret = 0;
        goto out;
    }
    ret = check_modes(&c, c.seen[O_CHECK] ? M_CHECK : M_GEN);
    if (ret)
        goto out;
    if (!c.val[O_SERVICE] || !c.val[O_NAMESPACE]) {
        ret = usage_error("%s", !c.val[O_SERVICE] ? "missing --service"
                                                  : "missing --namespace");
        goto out;
    }
    o.service = c.val[O_SERVICE];
    o.namespace_ = c.val[O_NAMESPACE];
    o.out_dir = c.val[O_OUT];
    o.extra_dns = c.dns;
    o.n_extra_dns = c.n_dns;
    o.extra_ip = c.ip;
    o.n_extra_ip = c.n_ip;
    o.ca_cert = c.val[O_CA_CERT];
    o.ca_key = c.val[O_CA_KEY];
    o.force = c.seen[O_FORCE] > 0;
    if (c.seen[O_CHECK])
        ret = run_check(&c, &o);
    else
        ret = run_generate(&c, &o);
out:
    free(c.dns);
    free(c.ip);
    return ret;
}
