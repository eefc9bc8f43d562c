/*
 * cmd.c - the `claimcheck-webhook certs` subcommand: argument parsing (a
 * table of options, `--opt VALUE` and `--opt=VALUE`), usage, exit codes,
 * and what gets printed (the caBundle on stdout, a summary on stderr). The
 * work itself is certs_generate() (gen.c) and certs_check_dir() (check.c).
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

#define EXIT_CHECK 1
#define EXIT_USAGE 2

enum opt_id {
    O_SERVICE, O_NAMESPACE, O_OUT, O_DAYS, O_RSA, O_DNS, O_IP, O_CA_CERT,
    O_CA_KEY, O_FORCE, O_CHECK, O_MIN_DAYS, O_HELP, N_OPTS
};

enum { M_GEN = 1 << 0, M_CHECK = 1 << 1 };

static const struct cmd_opt {
    const char *name;
    enum opt_id id;
    int takes_arg;          /* 1: --name VALUE or --name=VALUE */
    int repeat;             /* may be given more than once */
    unsigned modes;         /* M_GEN and/or M_CHECK */
} cmd_opts[] = {
    { "--service",   O_SERVICE,   1, 0, M_GEN | M_CHECK },
    { "--namespace", O_NAMESPACE, 1, 0, M_GEN | M_CHECK },
    { "--out",       O_OUT,       1, 0, M_GEN },
    { "--days",      O_DAYS,      1, 0, M_GEN },
    { "--rsa",       O_RSA,       1, 0, M_GEN },
    { "--dns",       O_DNS,       1, 1, M_GEN | M_CHECK },
    { "--ip",        O_IP,        1, 1, M_GEN | M_CHECK },
    { "--ca-cert",   O_CA_CERT,   1, 0, M_GEN },
    { "--ca-key",    O_CA_KEY,    1, 0, M_GEN },
    { "--force",     O_FORCE,     0, 0, M_GEN },
    { "--check",     O_CHECK,     1, 0, M_CHECK },
    { "--min-days",  O_MIN_DAYS,  1, 0, M_CHECK },
    { "--help",      O_HELP,      0, 0, M_GEN | M_CHECK },
    { "-h",          O_HELP,      0, 0, M_GEN | M_CHECK },
};
#define N_CMD_OPTS (sizeof(cmd_opts) / sizeof(cmd_opts[0]))

static const char usage_short[] =
    "usage: claimcheck-webhook certs --service NAME --namespace NS "
    "[--out DIR] [--days N]\n"
    "           [--rsa 2048|3072] [--dns NAME]... [--ip ADDR]... "
    "[--ca-cert FILE --ca-key FILE] [--force]\n"
    "   or: claimcheck-webhook certs --check DIR --service NAME "
    "--namespace NS [--min-days N]\n"
    "           [--dns NAME]... [--ip ADDR]...\n";

static const char usage_long[] =
    "\n"
    "Creates a CA and a serving certificate for the webhook Service, writes\n"
    "DIR/ca.crt, DIR/tls.crt and DIR/tls.key (mode 0600) and prints the\n"
    "base64 caBundle for the ValidatingWebhookConfiguration on stdout.\n"
    "The SANs are NAME, NAME.NS, NAME.NS.svc, NAME.NS.svc.cluster.local.\n"
    "A new CA's key is not kept: pass --ca-cert/--ca-key to sign with your\n"
    "own CA (for example to rotate under an unchanged caBundle).\n"
    "\n"
    "    --service NAME     the webhook Service name (required)\n"
    "    --namespace NS     its namespace (required)\n"
    "    --out DIR          output directory, created if missing "
    "(default .)\n"
    "    --days N           serving certificate validity, 1-3650 "
    "(default 365)\n"
    "    --rsa BITS         RSA 2048 or 3072 keys instead of ECDSA P-256\n"
    "    --dns NAME         an extra DNS SAN (repeatable)\n"
    "    --ip ADDR          an extra IP SAN (repeatable)\n"
    "    --ca-cert FILE     reuse this CA certificate (PEM) ...\n"
    "    --ca-key FILE      ... and its unencrypted private key (PEM)\n"
    "    --force            overwrite existing files\n"
    "\n"
    "    --check DIR        inspect DIR/{ca.crt,tls.crt,tls.key}: print the\n"
    "                       subject, SANs and validity; fail (exit 1) if a\n"
    "                       required SAN (the four above, --dns, --ip) is\n"
    "                       missing, the chain does not verify, the key does\n"
    "                       not match or fewer than --min-days remain\n"
    "                       (on tls.crt or on a certificate of ca.crt)\n"
    "    --min-days N       (default 30)\n"
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

static const struct cmd_opt *find_opt(const char *arg, size_t len)
{
    size_t i;

    for (i = 0; i < N_CMD_OPTS; i++)
        if (strlen(cmd_opts[i].name) == len &&
            !strncmp(cmd_opts[i].name, arg, len))
            return &cmd_opts[i];
    return NULL;
}

/* Fills c from argv; returns 0 or an exit code. */
static int parse_args(int argc, char **argv, struct cmd *c)
{
    const struct cmd_opt *opt;
    const char *arg, *eq, *v;
    int i;

    for (i = 1; i < argc; i++) {
        arg = argv[i];
        if (arg[0] != '-')
            return usage_error("unexpected argument '%s'", arg);
        eq = strchr(arg, '=');
        opt = find_opt(arg, eq ? (size_t)(eq - arg) : strlen(arg));
        if (!opt)
            return usage_error("unknown option '%s'", arg);
        if (!opt->takes_arg && eq)
            return usage_error("option '%s' takes no value", opt->name);
        v = eq ? eq + 1 : NULL;
        if (opt->takes_arg && !v) {
            if (i + 1 >= argc)
                return usage_error("option '%s' requires a value",
                                   opt->name);
            v = argv[++i];
        }
        if (opt->takes_arg && !*v)
            return usage_error("option '%s' needs a non-empty value",
                               opt->name);
        if (c->seen[opt->id] && !opt->repeat && opt->id != O_HELP)
            return usage_error("option '%s' given more than once",
                               opt->name);
        c->seen[opt->id]++;
        c->val[opt->id] = v;
        if (opt->id == O_DNS)
            c->dns[c->n_dns++] = v;
        else if (opt->id == O_IP)
            c->ip[c->n_ip++] = v;
    }
    return 0;
}

/* Every option given must be allowed in the chosen mode. */
static int check_modes(const struct cmd *c, unsigned mode)
{
    size_t i;

    for (i = 0; i < N_CMD_OPTS; i++) {
        if (!c->seen[cmd_opts[i].id] || (cmd_opts[i].modes & mode))
            continue;
        if (mode == M_CHECK)
            return usage_error("option '%s' cannot be used with --check",
                               cmd_opts[i].name);
        return usage_error("option '%s' only applies to --check",
                           cmd_opts[i].name);
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
    c.dns = calloc(n, sizeof(*c.dns));
    c.ip = calloc(n, sizeof(*c.ip));
    if (!c.dns || !c.ip) {
        fputs("error: out of memory\n", stderr);
        ret = EXIT_CHECK;
        goto out;
    }
    ret = parse_args(argc, argv, &c);
    if (ret)
        goto out;
    if (c.seen[O_HELP]) {
        fputs(usage_short, stdout);
        fputs(usage_long, stdout);
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
