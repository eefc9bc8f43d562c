/*
 * names.h - Kubernetes name formats (apimachinery validation): DNS labels
 * and subdomains, C identifiers, qualified names, extended resource names.
 */
#ifndef CLAIMCHECK_NAMES_H
#define CLAIMCHECK_NAMES_H

int name_is_dns_label(const char *s);       /* RFC 1123 label, <= 63 */
int name_is_dns_subdomain(const char *s);   /* RFC 1123 subdomain, <= 253 */
int name_is_c_identifier(const char *s);    /* [A-Za-z_][A-Za-z0-9_]* */
/* A label key (IsLabelKey, alias IsQualifiedName): an optional DNS
 * subdomain prefix and '/', then a name <= 63 of alphanumerics, '-', '_',
 * '.' that starts and ends alphanumeric. */
int name_is_label_key(const char *s);
/* A label value (IsValidLabelValue): empty, or a name as above (<= 63). */
int name_is_label_value(const char *s);    /* [A-Za-z_][A-Za-z0-9_]* */
/* DRA FullyQualifiedName: "<dns subdomain>/<C identifier, <= 32>" */
int name_is_fully_qualified(const char *s);
/* An extended resource name: "<domain>/<name>", domain not *kubernetes.io
 * (except deviceclass.resource.kubernetes.io), not requests.* */
int name_is_extended_resource(const char *s);

#endif
