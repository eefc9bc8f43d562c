/*
 * names.h - Kubernetes name formats, as apimachinery's
 * pkg/util/validation and the apiserver's validators define them: DNS
 * labels and subdomains, C identifiers, label keys (qualified names) and
 * values, DRA qualified names, extended resource names, generated names.
 * Predicates only: the rules word their own messages.
 */
#ifndef CLAIMCHECK_NAMES_H
#define CLAIMCHECK_NAMES_H

#include <stddef.h>

#define NAME_LABEL_MAX 63           /* DNS-1123 label, label value */
#define NAME_SUBDOMAIN_MAX 253      /* DNS-1123 subdomain */
#define NAME_GENERATED_BASE 58      /* generateName is cut to this */

int name_is_dns_label(const char *s);       /* RFC 1123 label, <= 63 */
int name_is_dns_subdomain(const char *s);   /* RFC 1123 subdomain, <= 253 */
/* The same on s[0..n) */
int name_is_dns_subdomain_n(const char *s, size_t n);
int name_is_dns1035_label(const char *s);   /* [a-z]([-a-z0-9]*[a-z0-9])? */
int name_is_c_identifier(const char *s);    /* [A-Za-z_][A-Za-z0-9_]* */
/* A label key (IsLabelKey, alias IsQualifiedName): an optional DNS
 * subdomain prefix and '/', then a name <= 63 of alphanumerics, '-', '_',
 * '.' that starts and ends alphanumeric. */
int name_is_label_key(const char *s);
/* A label value (IsValidLabelValue): empty, or a name as above (<= 63). */
int name_is_label_value(const char *s);
/* DRA FullyQualifiedName: "<dns subdomain>/<C identifier, <= 32>" */
int name_is_fully_qualified(const char *s);
/* An extended resource name: "<domain>/<name>", domain not *kubernetes.io
 * (except deviceclass.resource.kubernetes.io), not requests.*, and
 * "requests.<name>" a valid label key */
int name_is_extended_resource(const char *s);
/* The name the apiserver validates for a generateName prefix: a trailing
 * '-' (of a prefix longer than one) replaces the last TWO characters with
 * "a", as apimachinery's maskTrailingDash does. Writes into out (at least
 * strlen(prefix) + 1 bytes). */
void name_mask_trailing_dash(const char *prefix, char *out);

#endif
