/*
 * registry.c - THE rule table: one row per rule, sorted by id (checked by
 * a meta-test). Adding a rule is one row here, one check function in the
 * file of its family (declared in checks.h) and one tests/rules/<id>/
 * folder. Ids are stable forever: never rename or reuse one.
 */
#include "rules.h"

#include <string.h>

#include "../validate/object.h"
#include "checks.h"

const struct rule rules[] = {
    {
        .id = "admin-access-namespace",
        .category = CAT_SHARING,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE,
        .check = check_admin_access_namespace,
        .summary = "adminAccess requested in a namespace without the "
                   "admin-access label",
        .hint = "label the namespace resource.kubernetes.io/admin-access="
                "\"true\" (cluster admins only), or drop adminAccess",
        .why = "The apiserver rejects (Forbidden) a ResourceClaim or "
               "ResourceClaimTemplate that sets adminAccess: true unless its "
               "namespace carries the label resource.kubernetes.io/"
               "admin-access: \"true\". Admin access hands out devices that "
               "are already in use, so it is reserved for namespaces an "
               "administrator marked. Checked when the Namespace object is "
               "known (input or inventory).",
        .bad = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitor\n"
               "---\napiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
               "metadata: {name: all-gpus, namespace: monitor}\nspec:\n"
               "  devices:\n    requests:\n    - name: gpus\n      exactly:\n"
               "        deviceClassName: gpu.example.com\n"
               "        allocationMode: All\n        adminAccess: true\n",
        .good = "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitor\n"
                "  labels:\n    resource.kubernetes.io/admin-access: "
                "\"true\"\n",
    },
    {
        .id = "allocation-all-unbounded",
        .category = CAT_SHARING,
        .default_sev = SEV_WARN,
        .kinds = K_CLAIMLIKE,
        .check = check_allocation_all_unbounded,
        .summary = "allocationMode: All without any selector takes every "
                   "device of the class on the node",
        .hint = "add a CEL selector that narrows the devices, or use "
                "allocationMode: ExactCount with a count",
        .why = "With allocationMode: All the claim gets every matching "
               "device on the chosen node. When neither the request nor its "
               "DeviceClass has a selector, that is every device the class "
               "admits: other pods on the node can get none. Requests with "
               "adminAccess (monitoring) are exempt. Checked when the "
               "DeviceClass is known.",
        .bad = "exactly:\n  deviceClassName: plain-class   # no selectors\n"
               "  allocationMode: All\n",
        .good = "exactly:\n  deviceClassName: plain-class\n"
                "  allocationMode: All\n  selectors:\n  - cel:\n"
                "      expression: device.attributes['gpu.example.com']."
                "model == 'A100'\n",
    },
    {
        .id = "claim-not-found",
        .category = CAT_REFERENCE,
        .default_sev = SEV_WARN,
        .kinds = K_PODLIKE,
        .check = check_claim_not_found,
        .summary = "a referenced ResourceClaim or ResourceClaimTemplate does "
                   "not exist in the pod's namespace",
        .hint = "create the claim or template in the pod's namespace, or fix "
                "the name or namespace",
        .why = "A Pod whose resourceClaimName or resourceClaimTemplateName "
               "names no object in its own namespace stays Pending until "
               "one appears. Checked against the inventory when it holds "
               "objects of that kind, and against the input when it defines "
               "an object of that name in another namespace.",
        .bad = "spec:\n  resourceClaims:\n  - name: gpu\n"
               "    resourceClaimTemplateName: gpu-templ   # not in ns\n",
        .good = "spec:\n  resourceClaims:\n  - name: gpu\n"
                "    resourceClaimTemplateName: single-gpu\n",
    },
    {
        .id = "claim-request-unknown",
        .category = CAT_REFERENCE,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_claim_request_unknown,
        .summary = "a container picks a request the claim does not have",
        .hint = "use one of the request names of the ResourceClaim or "
                "ResourceClaimTemplate, or drop `request` to use all of them",
        .why = "resources.claims[].request selects one request of the "
               "referenced claim; a name the claim does not define makes "
               "the Pod invalid or unschedulable.",
        .bad = "resources:\n  claims:\n  - name: gpu\n    request: gpus\n"
               "# the template only defines request 'gpu'\n",
        .good = "resources:\n  claims:\n  - name: gpu\n    request: gpu\n",
    },
    {
        .id = "claim-schema",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE | K_CLASS,
        .check = check_claim_schema,
        .summary = "ResourceClaim, ResourceClaimTemplate or DeviceClass "
                   "structure the apiserver rejects",
        .hint = "fix the field as the message says; see the resource.k8s.io "
                "API reference for the version in apiVersion",
        .why = "The apiserver validates device requests strictly: request "
               "names are unique DNS labels; a v1 request has exactly one of "
               "`exactly` and `firstAvailable`; deviceClassName is required; "
               "count must be positive for ExactCount and unset for All; "
               "lists have maximum sizes; constraints and config must name "
               "existing requests; matchAttribute must be a fully qualified "
               "name. Catching this before commit saves a failed apply.",
        .bad = "requests:\n- name: gpu\n  exactly:\n"
               "    deviceClassName: gpu.example.com\n  firstAvailable:\n"
               "  - name: a\n    deviceClassName: gpu.example.com\n",
        .good = "requests:\n- name: gpu\n  exactly:\n"
                "    deviceClassName: gpu.example.com\n",
    },
    {
        .id = "device-class-not-found",
        .category = CAT_REFERENCE,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE,
        .check = check_device_class_not_found,
        .summary = "a request names a DeviceClass that does not exist",
        .hint = "use the name of an installed DeviceClass (kubectl get "
                "deviceclasses), or install the driver that provides it",
        .why = "A request's deviceClassName must name a DeviceClass; the "
               "apiserver does not check it, so the claim is accepted and "
               "then never allocated. Checked when DeviceClasses are known "
               "from the inventory or the input.",
        .bad = "exactly:\n  deviceClassName: gpu.nvidia.con\n",
        .good = "exactly:\n  deviceClassName: gpu.nvidia.com\n",
    },
    {
        .id = "extended-resource-limits",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_extended_resource_limits,
        .summary = "an extended resource in requests without an equal limit, "
                   "or a non-integer amount",
        .hint = "set the extended resource (e.g. nvidia.com/gpu) in limits; "
                "requests may be omitted or must equal limits; use whole "
                "numbers",
        .why = "Extended resources such as nvidia.com/gpu cannot be "
               "overcommitted: the apiserver rejects a container whose "
               "request has no limit or differs from it, and amounts must be "
               "integers.",
        .bad = "resources:\n  requests:\n    nvidia.com/gpu: 1\n",
        .good = "resources:\n  limits:\n    nvidia.com/gpu: 1\n",
    },
    {
        .id = "input-object",
        .category = CAT_INPUT,
        .default_sev = SEV_ERROR,
        .kinds = 0,
        .check = NULL,
        .summary = "a document meant as a Kubernetes object is not one",
        .hint = "give the document both apiVersion and kind as strings, and "
                "make metadata and spec mappings",
        .why = "A document with apiVersion but no kind (or the reverse), or "
               "with metadata/spec of the wrong type, is rejected by kubectl "
               "and the apiserver. Documents with neither apiVersion nor kind "
               "(CI files, Helm values) are skipped quietly.",
        .bad = "apiVersion: v1\nmetadata:\n  name: trainer\n",
        .good = "apiVersion: v1\nkind: Pod\nmetadata:\n  name: trainer\n",
    },
    {
        .id = "input-parse",
        .category = CAT_INPUT,
        .default_sev = SEV_ERROR,
        .kinds = 0,
        .check = NULL,
        .summary = "YAML or JSON that does not parse (or has duplicate keys)",
        .hint = "fix the syntax at the position shown; the other documents "
                "of the file are still checked",
        .why = "A document that does not parse cannot be applied. Each "
               "document of a multi-document file is parsed on its own, so "
               "one broken document does not hide findings in the others. "
               "Duplicate keys are reported too: kubectl's strict decoding "
               "rejects them, and otherwise the last value silently wins.",
        .bad = "metadata:\n  name: [unclosed\n",
        .good = "metadata:\n  name: closed\n",
    },
    {
        .id = "pod-claim-source",
        .category = CAT_REFERENCE,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_pod_claim_source,
        .summary = "a pod resourceClaims entry needs exactly one of "
                   "resourceClaimName and resourceClaimTemplateName, and a "
                   "unique name",
        .hint = "set exactly one of resourceClaimName (a shared claim) or "
                "resourceClaimTemplateName (one claim per pod), and give "
                "each entry a unique name",
        .why = "The apiserver rejects a Pod whose spec.resourceClaims entry "
               "sets both or neither source, has no name, or repeats a name.",
        .bad = "resourceClaims:\n- name: gpu\n  resourceClaimName: a\n"
               "  resourceClaimTemplateName: b\n",
        .good = "resourceClaims:\n- name: gpu\n"
                "  resourceClaimTemplateName: b\n",
    },
    {
        .id = "pod-claim-undeclared",
        .category = CAT_REFERENCE,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_pod_claim_undeclared,
        .summary = "a container uses a claim not declared in "
                   "spec.resourceClaims",
        .hint = "add the claim to spec.resourceClaims, or fix the name in "
                "resources.claims",
        .why = "resources.claims[].name must match an entry of the Pod's "
               "spec.resourceClaims; otherwise the apiserver rejects the Pod.",
        .bad = "containers:\n- name: app\n  resources:\n    claims:\n"
               "    - name: gpu   # no resourceClaims entry 'gpu'\n",
        .good = "resourceClaims:\n- name: gpu\n"
                "  resourceClaimTemplateName: single-gpu\n",
    },
    {
        .id = "pod-claim-unused",
        .category = CAT_REFERENCE,
        .default_sev = SEV_WARN,
        .kinds = K_PODLIKE,
        .check = check_pod_claim_unused,
        .summary = "a declared pod claim is used by no container",
        .hint = "reference the claim in a container's resources.claims, or "
                "remove it from spec.resourceClaims",
        .why = "Devices of a claim that no container (init containers "
               "included) lists in resources.claims are allocated and "
               "prepared but never made available to a container: they sit "
               "idle. Claims of network devices (attached to the pod, not a "
               "container) are exempt when their class is known to be one "
               "(DRA network drivers such as dra.net).",
        .bad = "resourceClaims:\n- name: gpu\n"
               "  resourceClaimTemplateName: single-gpu\n"
               "containers:\n- name: app   # no resources.claims\n",
        .good = "containers:\n- name: app\n  resources:\n    claims:\n"
                "    - name: gpu\n",
    },
    {
        .id = "shared-claim-replicas",
        .category = CAT_SHARING,
        .default_sev = SEV_WARN,
        .kinds = K_WORKLOADS,
        .check = check_shared_claim_replicas,
        .summary = "replicas of a workload share one named ResourceClaim",
        .hint = "use resourceClaimTemplateName to get one claim per pod, or "
                "suppress if sharing the devices is intended",
        .why = "A resourceClaimName in a pod template makes every replica "
               "use the same claim: all replicas share its devices and are "
               "pinned to the node where it was allocated, so they cannot "
               "spread. Usually a ResourceClaimTemplate was meant.",
        .bad = "kind: Deployment\nspec:\n  replicas: 3\n  template:\n"
               "    spec:\n      resourceClaims:\n      - name: gpu\n"
               "        resourceClaimName: shared-gpu\n",
        .good = "      resourceClaims:\n      - name: gpu\n"
                "        resourceClaimTemplateName: single-gpu\n",
    },
    {
        .id = "suppression-invalid",
        .category = CAT_INPUT,
        .default_sev = SEV_WARN,
        .kinds = 0,
        .check = NULL,
        .summary = "an ignore.claimcheck.dev/ annotation names no rule or "
                   "gives no reason",
        .hint = "write ignore.claimcheck.dev/<rule-id>: \"<why this is "
                "fine>\" with a rule id from `claimcheck rules`",
        .why = "A suppression must name an existing rule and carry a "
               "non-empty reason so reviewers can judge it; one without a "
               "reason does not apply.",
        .bad = "annotations:\n  ignore.claimcheck.dev/shared-claim-replicas: "
               "\"\"\n",
        .good = "annotations:\n  ignore.claimcheck.dev/shared-claim-replicas: "
                "\"IMEX channel is shared on purpose\"\n",
    },
};

const size_t nrules = sizeof(rules) / sizeof(rules[0]);

const struct rule *rule_find(const char *id)
{
    size_t lo = 0, hi = nrules;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(id, rules[mid].id);
        if (c == 0)
            return &rules[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

static const char *const category_names[] = {
    [CAT_INPUT] = "input",
    [CAT_SCHEMA] = "schema",
    [CAT_REFERENCE] = "reference",
    [CAT_CONFLICT] = "conflict",
    [CAT_FEATURE_GATE] = "feature-gate",
    [CAT_API_VERSION] = "api-version",
    [CAT_SELECTOR] = "selector",
    [CAT_SATISFIABILITY] = "satisfiability",
    [CAT_SHARING] = "sharing",
};

const char *category_name(enum category c)
{
    return category_names[c];
}

int category_parse(const char *s, enum category *out)
{
    size_t i;

    for (i = 0; i < sizeof(category_names) / sizeof(category_names[0]); i++)
        if (strcmp(s, category_names[i]) == 0) {
            *out = (enum category)i;
            return 0;
        }
    return -1;
}
