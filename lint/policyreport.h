/*
 * policyreport.h - findings as wgpolicyk8s.io/v1alpha2 policy reports, so
 * existing report viewers show them: a PolicyReport per namespace of the
 * checked objects and one ClusterPolicyReport for cluster-scoped ones
 * (always written, empty or not). Results: policy "claimcheck", the rule
 * id, fail (error) / warn (warning, info) / skip (suppressed) / pass (a
 * checked object without a finding), severity high / medium / info, the
 * message, the object as a resource, the time of the run. `-o
 * policyreport` writes every report as YAML documents; the webhook's
 * writer applies them one by one (render_policyreport(), render_int.h,
 * writes them all as one YAML stream).
 */
#ifndef CLAIMCHECK_POLICYREPORT_H
#define CLAIMCHECK_POLICYREPORT_H

struct buf;
struct diag_list;
struct render_opts;

#define POLICYREPORT_NAME "claimcheck"     /* metadata.name of each report */
#define POLICYREPORT_API "wgpolicyk8s.io/v1alpha2"

/* Calls fn once per report: ns is its namespace, NULL for the
 * ClusterPolicyReport (last); doc is one YAML document (no "---"),
 * valid during the call. */
void policyreport_each(const struct diag_list *l, const struct render_opts *o,
                       void (*fn)(void *cls, const char *ns,
                                  const struct buf *doc),
                       void *cls);

#endif
