/*
 * certs_int.h - helpers shared by the files of certs/ only. Unlike certs.h
 * this header includes OpenSSL, which is why it must never be included
 * from outside certs/.
 */
#ifndef CLAIMCHECK_CERTS_INT_H
#define CLAIMCHECK_CERTS_INT_H

#include <stddef.h>
#include <stdio.h>
#include <time.h>

#include <openssl/evp.h>
#include <openssl/x509.h>

struct err;
struct certs_opts;

/* Number of SANs every serving certificate must carry: NAME, NAME.NS,
 * NAME.NS.svc, NAME.NS.svc.cluster.local. */
#define CERTS_N_SVC_SANS 4
#define CERTS_DNS_MAX    253    /* RFC 1035 name length, without the dot */

/* ---- pem.c: reading PEM files, OpenSSL error text, names, time ---- */

/* Like err_set(), then appends ": REASON" from the OpenSSL error queue if
 * it holds one, and clears the queue. Returns -1. */
int certs_ossl_err(struct err *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* All certificates of a PEM file, at least one. The caller frees with
 * sk_X509_pop_free(sk, X509_free). NULL and *err on failure. */
STACK_OF(X509) *certs_load_certs(const char *path, struct err *err);
/* The first certificate of a PEM file; caller X509_free()s. */
X509 *certs_load_cert(const char *path, struct err *err);
/* The first private key of a PEM file (never prompts for a passphrase:
 * encrypted keys are an error); caller EVP_PKEY_free()s. */
EVP_PKEY *certs_load_key(const char *path, struct err *err);

/* 0 if key is the private half of cert's public key (and passes the
 * pairwise consistency test), -1 and *err naming both files otherwise. */
int certs_key_matches(X509 *cert, EVP_PKEY *key, const char *cert_path,
                      const char *key_path, struct err *err);

/* ASN1_TIME as a Unix time, or -1 if it does not parse. */
long long certs_time_unix(const ASN1_TIME *t);
/* "2027-11-29 16:00:00 UTC" into out (at least 32 bytes). */
void certs_format_time(long long t, char *out, size_t n);

/* 1 if s is a DNS-1123 label (a Service or Namespace name), else 0. */
int certs_is_label(const char *s);
/* 1 if s is a DNS name usable as a SAN (labels of [A-Za-z0-9-], the
 * first may be "*"), else 0. */
int certs_is_dns_name(const char *s);

/* 1 if s is an IPv4 or IPv6 address, else 0. */
int certs_is_ip(const char *s);

/* Fills names[] with the CERTS_N_SVC_SANS service names. -1 and *err if
 * service or namespace is not a DNS-1123 label. */
int certs_svc_sans(const char *service, const char *ns,
                   char names[CERTS_N_SVC_SANS][CERTS_DNS_MAX + 1],
                   struct err *err);

/* "EC prime256v1", "RSA 2048", ... into out. */
void certs_describe_key(const EVP_PKEY *k, char *out, size_t n);

/* ---- gen.c ---- */

/* certs_generate() that also sets *exists to 1 when it failed because an
 * output file exists (the CLI's exit 2), else 0. */
int certs_generate_ex(const struct certs_opts *o, int *exists,
                      struct err *err);

/* Validates o as certs_generate() would before touching anything: names,
 * days, key size, extra SANs, CA options. 0 or -1 and *err. */
int certs_opts_check(const struct certs_opts *o, struct err *err);

/* ---- check.c ---- */

/* Prints subject, issuer, key, SANs and validity of the first certificate
 * in cert_path, each line prefixed by indent. 0 or -1 and *err. */
int certs_print_summary(FILE *f, const char *indent, const char *cert_path,
                        struct err *err);

/* `certs --check`: the report for dir on out, one "error: ..." line per
 * failed check on errout. Required SANs come from o (service, namespace,
 * extra_dns, extra_ip). Returns 0 if every check passed, else 1. */
int certs_check_dir(const char *dir, const struct certs_opts *o,
                    int min_days, FILE *out, FILE *errout);

#endif
