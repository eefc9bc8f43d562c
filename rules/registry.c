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

static const struct rule rules[] = {
    {
        .id = "admin-access-namespace",
        .category = CAT_SHARING,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE,
        .check = check_admin_access_namespace,
        .flags = RULE_APISERVER,
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
        .id = "api-version-deprecated",
        .category = CAT_API_VERSION,
        .default_sev = SEV_WARN,
        .kinds = K_DRA | K_TAINTRULE | K_POOLREQ,
        .check = check_api_version_deprecated,
        .summary = "a resource.k8s.io apiVersion that is served but "
                   "deprecated at the target version",
        .hint = "move the object to the apiVersion the message names "
                "(kubectl convert, or edit the shape by hand)",
        .why = "Deprecated resource.k8s.io versions keep working until "
               "their announced removal, and then every manifest still "
               "using them fails to apply. v1beta1 (flat requests, devices "
               "under `basic`) is deprecated from 1.35 and v1beta2 from "
               "1.36; resource.k8s.io/v1 is the GA version from 1.34.",
        .bad = "apiVersion: resource.k8s.io/v1beta2   # with "
               "--runtime-config=resource.k8s.io/v1beta2=true on 1.36\n"
               "kind: ResourceClaimTemplate\n",
        .good = "apiVersion: resource.k8s.io/v1\nkind: "
                "ResourceClaimTemplate\n",
    },
    {
        .id = "api-version-unavailable",
        .category = CAT_API_VERSION,
        .default_sev = SEV_ERROR,
        .kinds = K_DRA | K_TAINTRULE | K_POOLREQ,
        .check = check_api_version_unavailable,
        .flags = RULE_APISERVER,
        .summary = "a resource.k8s.io apiVersion the target apiserver does "
                   "not serve (not added yet, removed, or off by default)",
        .hint = "use the apiVersion the message names, or enable the version "
                "with --runtime-config on the apiserver (and pass the same "
                "--runtime-config to claimcheck)",
        .why = "An apiserver rejects objects of a version it does not serve "
               "('no matches for kind'). Alpha versions and beta versions "
               "added after 1.24 (v1beta1 in 1.32, v1beta2 in 1.33) are off "
               "unless enabled with --runtime-config; v1alpha3 claims, "
               "classes and slices were removed in 1.34; resource.k8s.io/v1 "
               "is on by default from 1.34.",
        .bad = "apiVersion: resource.k8s.io/v1beta1   # on 1.36 without "
               "--runtime-config\nkind: ResourceClaim\n",
        .good = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n",
    },
    {
        .id = "claim-blocked",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_ERROR,
        .flags = RULE_LIVE,
        .kinds = K_CLAIM | K_POD,
        .check = check_claim_blocked,
        .summary = "(audit) a pending claim or Pod that cannot get devices "
                   "now because other claims hold them, though an empty "
                   "cluster could satisfy it",
        .hint = "free the devices (delete the idle or finished claims "
                "holding them), add capacity, or relax the request; the "
                "details name who holds what",
        .why = "On a live cluster the allocator only hands out devices no "
               "other claim holds (status.allocation). A claim the cluster "
               "could satisfy when empty but not now stays pending, and so "
               "do the Pods waiting for it, until the holders let go. "
               "Reported on pending ResourceClaims and on Pending, "
               "unscheduled Pods (their claims together), with the "
               "devices each request would need and the claims holding "
               "them. Only `claimcheck audit` judges it.",
        .bad = "# two GPUs on the node, both allocated to ResourceClaim "
               "ml/old-run:\napiVersion: resource.k8s.io/v1\n"
               "kind: ResourceClaim\nmetadata: {name: train, namespace: "
               "ml}\nspec:\n  devices:\n    requests:\n    - name: gpu\n"
               "      exactly: {deviceClassName: gpu.example.com, count: 2}\n",
        .good = "# ml/old-run deleted (or its Pods finished): both GPUs are "
                "free\n",
    },
    {
        .id = "claim-idle",
        .category = CAT_SHARING,
        .default_sev = SEV_WARN,
        .flags = RULE_LIVE,
        .kinds = K_CLAIM,
        .check = check_claim_idle,
        .summary = "(audit) a claim allocated for longer than the idle "
                   "threshold that no running Pod uses",
        .hint = "delete the claim (or the Pod stuck holding it) so its "
                "devices return to the pool; raise --idle-after if this "
                "is expected",
        .why = "An allocated ResourceClaim keeps its devices from every "
               "other claim. When no Running Pod uses it - its Pods are "
               "stuck Pending or gone, or nothing references it - the "
               "devices sit idle while other workloads wait. Idle time is "
               "measured from the claim's last status change (the newest "
               "managedFields entry of its status), against --idle-after "
               "(default 24h). Claims reserved for something other than a "
               "Pod are not judged. Only `claimcheck audit` judges it.",
        .bad = "status:\n  allocation: {devices: {results: [{request: gpu, "
               "driver: gpu.example.com, pool: node-1, device: gpu-0}]}}\n"
               "  reservedFor: [{resource: pods, name: stuck, uid: u1}]   "
               "# Pending for 3 days\n",
        .good = "# the claim deleted, or its Pod Running\n",
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
        .id = "claim-scarce",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_INFO,
        .kinds = K_CLAIMLIKE | K_PODLIKE,
        .check = check_claim_scarce,
        .needs = K_SLICE,
        .summary = "a claim or Pod can be allocated on only a few nodes of "
                   "the inventory",
        .hint = "widen the selectors or the Pod's placement, or expect the "
                "Pod to wait for one of the few nodes that fit",
        .why = "When only one or two nodes (or under 10 % of the nodes with "
               "matching devices, and fewer than the 100 the scheduler "
               "looks for) can satisfy a claim - or all of a Pod's "
               "claims together with its nodeSelector and node affinity - "
               "every Pod that uses it competes for those nodes and waits "
               "whenever they are busy. Checked against the devices of the "
               "inventory (ResourceSlices, Nodes).",
        .bad = "selectors:\n- cel:\n    expression: device.attributes['gpu."
               "example.com'].productName == 'H200'   # 2 of 400 nodes\n",
        .good = "selectors:\n- cel:\n    expression: device.capacity['gpu."
                "example.com'].memory.compareTo(quantity('80Gi')) >= 0\n",
    },
    {
        .id = "claim-schema",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE | K_CLASS,
        .check = check_claim_schema,
        .flags = RULE_APISERVER,
        .summary = "ResourceClaim, ResourceClaimTemplate or DeviceClass "
                   "structure the apiserver rejects",
        .hint = "fix the field as the message says; see the resource.k8s.io "
                "API reference for the version in apiVersion",
        .why = "The apiserver validates device requests strictly, after "
               "defaulting them (an empty allocationMode is ExactCount, a "
               "zero count then 1, an empty toleration operator Equal): "
               "request names are unique DNS labels; a request has exactly "
               "one of `exactly` and `firstAvailable`; deviceClassName is a "
               "DNS subdomain; count must be positive for ExactCount and "
               "unset for All; tolerations have label keys and values, "
               "operator Equal or Exists and effect NoSchedule, NoExecute "
               "or None; lists have maximum sizes (past one, nothing inside "
               "is checked); constraints and config must name existing "
               "requests; matchAttribute and distinctAttribute are fully "
               "qualified names; opaque config names a driver (a DNS "
               "subdomain, any case) and parameters that are a JSON object "
               "of at most 10 KiB; a class's extendedResourceName is an "
               "extended resource name. Findings carry the apiserver's field "
               "path (v1beta1 flat fields under `exactly`, as it prints "
               "them). Catching this before commit saves a failed apply.",
        .bad = "requests:\n- name: gpu\n  exactly:\n"
               "    deviceClassName: gpu.example.com\n  firstAvailable:\n"
               "  - name: a\n    deviceClassName: gpu.example.com\n",
        .good = "requests:\n- name: gpu\n  exactly:\n"
                "    deviceClassName: gpu.example.com\n",
    },
    {
        .id = "claim-unsatisfiable",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE | K_PODLIKE,
        .check = check_claim_unsatisfiable,
        .needs = K_SLICE,
        .summary = "devices match, but no single node can satisfy the whole "
                   "claim, or all of a Pod's claims together",
        .hint = "lower the count, relax the constraints or tolerations, or "
                "change the Pod's nodeSelector / affinity; the details say "
                "what fails on each node",
        .why = "All devices of one claim - and of every claim of a Pod - "
               "must come from one node (or be reachable from it). Counts, "
               "allocationMode: All, firstAvailable alternatives, "
               "matchAttribute / distinctAttribute constraints, device "
               "taints, shared counters of partitionable devices and the "
               "Pod's nodeName, nodeSelector and required node affinity "
               "can each make that impossible even though devices match: "
               "the Pod stays Pending for ever. Where Kubernetes' allocator "
               "itself stops with an error (allocationMode: All on a node "
               "with a pool being updated or invalid, or against a "
               "constraint; more than 32 devices for one claim) the "
               "scheduling attempt is aborted and the message says so. "
               "Checked against the devices of the inventory; when the "
               "search is too large nothing is reported.",
        .bad = "requests:\n- name: gpus\n  exactly:\n    deviceClassName: "
               "gpu.example.com\n    count: 4\nconstraints:\n- "
               "matchAttribute: resource.kubernetes.io/pcieRoot   # 2+2 per "
               "node\n",
        .good = "requests:\n- name: gpus\n  exactly:\n    deviceClassName: "
                "gpu.example.com\n    count: 2\nconstraints:\n- "
                "matchAttribute: resource.kubernetes.io/pcieRoot\n",
    },
    {
        .id = "device-class-not-found",
        .category = CAT_REFERENCE,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE,
        .check = check_device_class_not_found,
        .needs = K_CLASS | NEEDS_INVENTORY,
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
        .id = "device-plugin-dra-conflict",
        .category = CAT_CONFLICT,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_device_plugin_dra_conflict,
        .summary = "a pod asks for the same vendor's devices from a device "
                   "plugin and through a DRA claim",
        .hint = "get the devices one way: drop the extended resource and "
                "use the claim (or a DeviceClass extendedResourceName), or "
                "drop the claim",
        .why = "A device plugin counts GPUs in node.status.capacity and a "
               "DRA driver publishes the same GPUs in ResourceSlices; "
               "nothing reconciles the two. A pod that asks for both "
               "(nvidia.com/gpu limits and a claim of gpu.nvidia.com) gets "
               "two independent allocations: on a node where both manage "
               "the GPUs the same device can be handed out twice, and on a "
               "node where only one does the pod never fits. The claim's "
               "driver comes from its DeviceClass selector, the request's "
               "own selectors, or a class's extendedResourceName; claims "
               "for other hardware (NICs, IMEX channels) are no conflict. "
               "The device-plugin map is extendable with devicePlugins in "
               "the config file.",
        .bad = "containers:\n- name: train\n  resources:\n    limits:\n"
               "      nvidia.com/gpu: 1\n    claims:\n    - name: gpu\n"
               "resourceClaims:\n- name: gpu\n"
               "  resourceClaimTemplateName: single-gpu   # gpu.nvidia.com\n",
        .good = "containers:\n- name: train\n  resources:\n    claims:\n"
                "    - name: gpu\nresourceClaims:\n- name: gpu\n"
                "  resourceClaimTemplateName: single-gpu\n",
    },
    {
        .id = "extended-resource-limits",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_extended_resource_limits,
        .flags = RULE_APISERVER,
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
        .id = "extended-resource-mapping",
        .category = CAT_CONFLICT,
        .default_sev = SEV_WARN,
        .kinds = K_CLASS,
        .check = check_extended_resource_mapping,
        .summary = "a DeviceClass extendedResourceName that another class "
                   "also maps, or that nodes also advertise through a "
                   "device plugin",
        .hint = "give every DeviceClass its own extendedResourceName, and "
                "remove the device plugin from nodes whose devices a DRA "
                "driver publishes",
        .why = "With DRAExtendedResource, a DeviceClass extendedResourceName "
               "lets plain resources.limits requests be served by DRA. The "
               "name should be unique: when two classes map it, the class "
               "created later silently wins and the other serves nothing. "
               "A node that also advertises the name through a device "
               "plugin makes the source ambiguous (KEP 5004: one node "
               "cannot have both). Checked when DRAExtendedResource is on.",
        .bad = "kind: DeviceClass\nmetadata: {name: gpu-a}\nspec:\n"
               "  extendedResourceName: example.com/gpu\n---\n"
               "kind: DeviceClass\nmetadata: {name: gpu-b}\nspec:\n"
               "  extendedResourceName: example.com/gpu\n",
        .good = "kind: DeviceClass\nmetadata: {name: gpu-b}\nspec:\n"
                "  extendedResourceName: example.com/gpu-b\n",
    },
    {
        .id = "feature-gate-disabled",
        .category = CAT_FEATURE_GATE,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE | K_DRA,
        .check = check_feature_gate_disabled,
        .summary = "a field whose feature gate is off (or that does not exist "
                   "yet) at the target Kubernetes version",
        .hint = "enable the gate on the cluster (and pass -g GATE=true), "
                "target a newer Kubernetes with -k, or drop the field",
        .why = "When a feature gate is off, the apiserver does not reject a "
               "gated field: it drops it silently and stores the object "
               "without it. The object then behaves differently: a Pod "
               "whose resourceClaims were dropped runs without its devices; "
               "a claim whose firstAvailable was dropped is rejected "
               "because neither exactly nor firstAvailable remains. Fields "
               "newer than the target version are dropped the same way. "
               "The gate table is in validate/k8s/gates.c; `claimcheck gates` "
               "prints it for a version. The webhook does not report it: "
               "the apiserver drops such fields before it asks.",
        .bad = "# claimcheck lint -k 1.33\nrequests:\n- name: gpu\n"
               "  firstAvailable:   # DRAPrioritizedList: alpha, off\n"
               "  - name: big\n    deviceClassName: gpu.example.com\n",
        .good = "# claimcheck lint -k 1.33 -g DRAPrioritizedList=true\n"
                "# (with the gate enabled on the cluster too)\n",
    },
    {
        .id = "feature-gate-prerelease",
        .category = CAT_FEATURE_GATE,
        .default_sev = SEV_WARN,
        .kinds = K_PODLIKE | K_DRA,
        .check = check_feature_gate_prerelease,
        .summary = "a field whose feature gate is on but still alpha or beta",
        .hint = "expect the field to change; pin the Kubernetes version, or "
                "disable the rule for clusters where this is accepted",
        .why = "Alpha and beta fields can change shape or be removed between "
               "releases (nodeAllocatableResourceMappings was replaced in "
               "1.37), and managed clusters often turn alpha gates off. The "
               "message names the gate, its stage at the target version and "
               "when it goes GA, if known.",
        .bad = "# claimcheck lint -k 1.35\nrequests:\n- name: gpu\n"
               "  firstAvailable:   # DRAPrioritizedList: beta in 1.35\n",
        .good = "# claimcheck lint -k 1.36   (GA from 1.36)\n",
    },
    {
        .id = "input-object",
        .category = CAT_INPUT,
        .default_sev = SEV_ERROR,
        .kinds = K_ALL | K_OTHER,
        .check = check_input_types,
        .flags = RULE_APISERVER,
        .summary = "a document meant as a Kubernetes object is not one, or a "
                   "field holds a value of the wrong type",
        .hint = "give the document apiVersion and kind (case-sensitive), and "
                "each field the type its API wants: quote strings that look "
                "like numbers or booleans (\"2\", \"yes\"), leave numbers and "
                "booleans unquoted",
        .why = "A document with apiVersion but no kind (or the reverse), a "
               "kind kubectl cannot map, or a field whose value has the wrong "
               "JSON type is rejected by kubectl and the apiserver: it decodes "
               "the object into its Go types, and `count: \"2\"`, "
               "`adminAccess: \"true\"`, a list where a mapping belongs or "
               "an unquoted `yes` as a label value (a YAML 1.1 boolean) all "
               "fail there, with the message shown. A float with an integral "
               "value (2.0, 1e1) is an integer in a manifest, as kubectl "
               "sends it, but not in the raw JSON of an API request. "
               "Documents with neither apiVersion nor kind (CI files, Helm "
               "values) are skipped quietly.",
        .bad = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
               "metadata:\n  name: gpus\n  labels:\n    shared: yes\n"
               "spec:\n  devices:\n    requests:\n    - name: gpu\n"
               "      exactly:\n        deviceClassName: gpu.example.com\n"
               "        count: \"2\"\n",
        .good = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
                "metadata:\n  name: gpus\n  labels:\n    shared: \"yes\"\n"
                "spec:\n  devices:\n    requests:\n    - name: gpu\n"
                "      exactly:\n        deviceClassName: gpu.example.com\n"
                "        count: 2\n",
    },
    {
        .id = "input-parse",
        .category = CAT_INPUT,
        .default_sev = SEV_ERROR,
        .kinds = 0,
        .check = NULL,
        .summary = "YAML or JSON that does not parse as kubectl reads it",
        .hint = "fix the syntax at the position shown; the other documents "
                "of the file are still checked",
        .why = "A document that does not parse cannot be applied. Files are "
               "read as kubectl reads them: split on `---` lines (a `---` "
               "followed by anything but a comment stops kubectl), each "
               "document resolved as sigs.k8s.io/yaml resolves it (YAML 1.1), "
               "and a file starting with '{' read as a stream of JSON "
               "values. Each document is parsed on its own, so one broken "
               "document does not hide findings in the others.",
        .bad = "metadata:\n  name: [unclosed\n",
        .good = "metadata:\n  name: closed\n",
    },
    {
        .id = "node-double-managed",
        .category = CAT_CONFLICT,
        .default_sev = SEV_ERROR,
        .kinds = K_NODE | K_SLICE,
        .check = check_node_double_managed,
        .needs = K_NODE,
        .summary = "a node advertises a device-plugin resource while a "
                   "ResourceSlice of the mapped DRA driver publishes devices "
                   "on it",
        .hint = "migrate the node completely: remove the device plugin (its "
                "capacity must drop to zero) or stop the DRA driver's GPU "
                "publishing on that node",
        .why = "KEP 5004: one node cannot have both a device plugin and a "
               "DRA driver for the same devices. Each thinks it owns the "
               "GPUs, and nothing reconciles node.status.capacity with the "
               "slices, so a pod using nvidia.com/gpu and another using a "
               "claim can get the same physical device. Checked for Nodes "
               "and ResourceSlices of the input and the inventory; a slice "
               "is on the node by spec.nodeName, a simple nodeSelector, or "
               "per-device nodeName.",
        .bad = "kind: Node\nmetadata: {name: gpu-1}\nstatus:\n"
               "  allocatable:\n    nvidia.com/gpu: \"8\"\n---\n"
               "kind: ResourceSlice\nspec:\n  driver: gpu.nvidia.com\n"
               "  nodeName: gpu-1\n  devices: [...]\n",
        .good = "kind: Node\nmetadata: {name: gpu-1}\nstatus:\n"
                "  allocatable:\n    cpu: \"64\"\n",
    },
    {
        .id = "object-metadata",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_ALL,
        .check = check_object_metadata,
        .flags = RULE_APISERVER,
        .summary = "metadata the apiserver rejects: name or generateName, "
                   "labels, annotations, owner references, finalizers, a "
                   "template's metadata",
        .hint = "fix the metadata field as the message says (names are "
                "lowercase DNS subdomains, label keys [prefix/]name, label "
                "values at most 63 characters)",
        .why = "Every object's metadata is validated as apimachinery's "
               "ValidateObjectMeta does on create: a name (or the name "
               "generated from generateName) in the kind's format - a DNS "
               "subdomain, a DNS label for Namespaces, at most 52 characters "
               "for CronJobs -, a namespace that is a DNS label, label keys "
               "and values, annotation keys and at most 256 KiB of "
               "annotations, owner references with apiVersion, kind, name "
               "and uid and at most one controller, finalizer names. A pod "
               "template's labels and annotations are checked the same way, "
               "and a ResourceClaimTemplate's spec.metadata may only set "
               "labels and annotations. A missing namespace is not "
               "reported: kubectl takes it from the context.",
        .bad = "metadata:\n  name: GPU_Job\n  labels:\n"
               "    team: ml platform\n",
        .good = "metadata:\n  name: gpu-job\n  labels:\n"
                "    team: ml-platform\n",
    },
    {
        .id = "pod-claim-source",
        .category = CAT_REFERENCE,
        .default_sev = SEV_ERROR,
        .kinds = K_PODLIKE,
        .check = check_pod_claim_source,
        .summary = "a pod's claim entries the apiserver rejects: "
                   "spec.resourceClaims (DNS-label names, unique, exactly "
                   "one source that is an object name) or a container's "
                   "resources.claims (request names, repeats)",
        .hint = "set exactly one of resourceClaimName (a shared claim) or "
                "resourceClaimTemplateName (one claim per pod), and give "
                "each entry a unique name",
        .why = "The apiserver rejects a Pod whose spec.resourceClaims entry "
               "has no name or one that is not a DNS label, repeats a name, "
               "sets both or neither of resourceClaimName and "
               "resourceClaimTemplateName, or names a claim or template "
               "that is not a DNS subdomain; and a container whose "
               "resources.claims names a request that is not a DNS label or "
               "lists a claim twice (the whole claim and one of its "
               "requests count as twice). Ephemeral containers cannot have "
               "resources at all.",
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
        .id = "pool-incomplete",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_INFO,
        .kinds = K_SLICE,
        .check = check_pool_incomplete,
        .summary = "a pool whose slices are not all present "
                   "(resourceSliceCount): the allocator does not use it yet",
        .hint = "wait for the driver to publish the rest, or fix "
                "resourceSliceCount if it is wrong",
        .why = "A pool may span several ResourceSlices; each says how many "
               "the newest generation has (pool.resourceSliceCount). Until "
               "all of them are there, Kubernetes' allocator uses none of the "
               "pool's devices (allocationMode All even fails), so claims "
               "that need them wait. Checked against the ResourceSlices of "
               "the input and the inventory.",
        .bad = "pool: {name: worker-1, generation: 3, resourceSliceCount: 2}"
               "   # only one slice of generation 3\n",
        .good = "pool: {name: worker-1, generation: 3, resourceSliceCount: 1}"
                "\n",
    },
    {
        .id = "pool-invalid",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_ERROR,
        .kinds = K_SLICE,
        .check = check_pool_invalid,
        .summary = "a pool the allocator refuses: a device name twice, a "
                   "counter set defined twice or consumed but missing, "
                   "across its slices",
        .hint = "give every device of the pool its own name, define each "
                "counter set once in the pool, and consume only counters "
                "the pool defines",
        .why = "Kubernetes' allocator validates every pool across its "
               "slices: a device name used twice, a sharedCounters set "
               "defined twice, or a consumesCounters entry naming a counter "
               "set or counter the pool does not define make the pool "
               "invalid. None of its devices is used, and allocating a claim "
               "that could have used them fails with \"invalid resource "
               "pools were encountered\".",
        .bad = "devices:\n- name: gpu-0\n  consumesCounters:\n  - "
               "counterSet: gpu-0-memory   # not in sharedCounters\n",
        .good = "sharedCounters:\n- name: gpu-0-memory\n  counters:\n"
                "    memory: {value: 80Gi}\n",
    },
    {
        .id = "selector-foreign-domain",
        .category = CAT_SELECTOR,
        .default_sev = SEV_WARN,
        .kinds = K_CLAIMLIKE | K_CLASS,
        .check = check_selector_foreign_domain,
        .summary = "the class pins one driver, but a selector reads another "
                   "driver's attribute or capacity domain",
        .hint = "read the attributes of the pinned driver's own domain "
                "(e.g. device.attributes['gpu.nvidia.com']) or a shared one "
                "(resource.kubernetes.io); check for a copy-paste from "
                "another vendor's class",
        .why = "Attributes are grouped by domain, and a driver publishes its "
               "own domain (plus shared ones such as resource.kubernetes.io). "
               "When the DeviceClass or request pins device.driver == 'X', a "
               "lookup of device.attributes['Y'] for another driver's domain "
               "Y finds an empty map: the comparison is false, or a runtime "
               "error that aborts allocation. Almost always a copy-paste "
               "from another vendor's example.",
        .bad = "selectors:\n- cel:\n    expression: device.driver == "
               "'gpu.nvidia.com'\n- cel:\n    expression: device.attributes"
               "['gpu.amd.com'].family == 'MI300'\n",
        .good = "- cel:\n    expression: device.attributes['gpu.nvidia.com']"
                ".productName.startsWith('NVIDIA H100')\n",
    },
    {
        .id = "selector-invalid",
        .category = CAT_SELECTOR,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE | K_CLASS,
        .check = check_selector_invalid,
        .flags = RULE_APISERVER,
        .summary = "a CEL selector that does not compile in the DRA "
                   "environment, or is over the length or cost limits",
        .hint = "fix the expression at the column shown; `claimcheck cel "
                "EXPR` evaluates it in the DRA environment",
        .why = "The apiserver compiles every selector of a DeviceClass, "
               "ResourceClaim or ResourceClaimTemplate in the DRA CEL "
               "environment of its version and feature gates (device.driver, "
               "device.attributes, device.capacity, quantities, semver...) and "
               "rejects the object when one does not parse, does not type-"
               "check, is not boolean, is longer than 10 KiB or its "
               "estimated cost exceeds 1,000,000. device.allowMultiple"
               "Allocations needs DRAConsumableCapacity and includes() needs "
               "DRAListTypeAttributes.",
        .bad = "expression: device.attributes['gpu.example.com'].memory >= "
               "40Gi\n",
        .good = "expression: device.capacity['gpu.example.com'].memory."
                "compareTo(quantity('40Gi')) >= 0\n",
    },
    {
        .id = "selector-never-matches",
        .category = CAT_SELECTOR,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE | K_CLASS,
        .check = check_selector_never_matches,
        .summary = "the selectors of a request and its DeviceClass can never "
                   "all be true for one device",
        .hint = "remove the contradiction: all selectors of the class and "
                "the request must hold for the same device",
        .why = "All selectors of the DeviceClass and of the request must be "
               "true for one device. When they contradict each other (two "
               "different drivers, model == 'A' and model == 'B', "
               "memory >= 80Gi and memory < 40Gi, a constant false) no device "
               "can ever match and the claim stays unallocated. claimcheck "
               "reports this only with a proof, never a guess.",
        .bad = "# class: device.driver == 'gpu.nvidia.com'\nexpression: "
               "device.driver == 'gpu.amd.com'\n",
        .good = "expression: device.attributes['gpu.nvidia.com']."
                "productName == 'NVIDIA A100-SXM4-80GB'\n",
    },
    {
        .id = "selector-no-device",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE,
        .check = check_selector_no_device,
        .needs = K_SLICE,
        .summary = "no device of the inventory matches a request's class "
                   "and selectors",
        .hint = "compare the selector with the attributes the driver "
                "publishes (claimcheck match -i INVENTORY EXPR shows them "
                "device by device)",
        .why = "The class's selectors, the request's selectors and its "
               "capacity.requests must all hold for one device. When no "
               "device of the inventory passes them, the claim is never "
               "allocated and its Pods stay Pending; the scheduler only says "
               "so in events. The details count, clause by clause, how many "
               "devices each rejects, and show the nearest misses with "
               "their actual values.",
        .bad = "selectors:\n- cel:\n    expression: device.capacity['gpu."
               "example.com'].memory.compareTo(quantity('160Gi')) >= 0\n",
        .good = "selectors:\n- cel:\n    expression: device.capacity['gpu."
                "example.com'].memory.compareTo(quantity('80Gi')) >= 0\n",
    },
    {
        .id = "selector-runtime-error",
        .category = CAT_SATISFIABILITY,
        .default_sev = SEV_ERROR,
        .kinds = K_CLAIMLIKE | K_CLASS,
        .check = check_selector_runtime_error,
        .needs = K_SLICE,
        .summary = "a selector raises a CEL runtime error on a device the "
                   "class admits, or the claim's class has a selector that "
                   "does not compile, which aborts the claim's allocation",
        .hint = "guard the lookup with has(device.attributes[\"d\"].x) or "
                "use device.attributes[\"d\"].?x.orValue(default)",
        .why = "The scheduler evaluates every selector on every device the "
               "class admits. A runtime error (no such key for an attribute "
               "one device lacks, a type mismatch) is not a non-match: it "
               "aborts the allocation of the whole claim, even when other "
               "devices would match. A class selector that does not compile (a "
               "class stored before a CEL change) fails every claim of the "
               "class the same way. The details name the devices and the "
               "error.",
        .bad = "expression: device.attributes['gpu.example.com'].memoryGB > "
               "40   # some devices lack memoryGB\n",
        .good = "expression: device.attributes['gpu.example.com']."
                "?memoryGB.orValue(0) > 40\n",
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
        .id = "slice-schema",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_SLICE | K_TAINTRULE | K_POOLREQ,
        .check = check_slice_schema,
        .flags = RULE_APISERVER,
        .summary = "ResourceSlice, DeviceTaintRule or "
                   "ResourcePoolStatusRequest structure the apiserver "
                   "rejects",
        .hint = "fix the field as the message says; see the resource.k8s.io "
                "API reference for the version in apiVersion",
        .why = "Drivers publish ResourceSlices and administrators write "
               "DeviceTaintRules; the apiserver validates both strictly, and "
               "a slice it rejects leaves its devices unpublished. A slice "
               "names a driver (a DNS subdomain) and a pool (name, "
               "resourceSliceCount > 0, generation >= 0), selects nodes in "
               "exactly one way (nodeName, one-term nodeSelector, allNodes "
               "or perDeviceNodeSelection, and then each device in exactly "
               "one way), has devices or sharedCounters but not both, at "
               "most 128 devices (64 once one has taints, counters or list "
               "attributes), device names that are unique DNS labels, "
               "attribute and capacity names that are qualified names, one "
               "value per attribute (versions in semver, strings at most 64 "
               "bytes, at most 32 attributes and capacities and 48 values "
               "per device), at most 16 taints with label keys and effect "
               "NoSchedule, NoExecute or None, counter sets with DNS-label "
               "names and at most 32 counters, request policies only on "
               "devices that allow multiple allocations (validValues "
               "ascending, unique as whole numbers, within the capacity and "
               "listing the default; a validRange whose default and max "
               "are whole steps from min, within the capacity), and "
               "binding conditions that pair up. A DeviceTaintRule's "
               "selector names "
               "a driver, pool and device in those formats and its taint "
               "needs a key and an effect; a ResourcePoolStatusRequest names "
               "a driver and asks for 1 to 1000 pools. Paths are the "
               "apiserver's (v1beta1 `basic` fields without `basic`).",
        .bad = "spec:\n  driver: gpu.example.com\n  pool: {name: node-1, "
               "resourceSliceCount: 1}\n  nodeName: node-1\n  allNodes: true"
               "\n  devices:\n  - name: GPU_0\n",
        .good = "spec:\n  driver: gpu.example.com\n  pool: {name: node-1, "
                "resourceSliceCount: 1}\n  nodeName: node-1\n  devices:\n"
                "  - name: gpu-0\n",
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
    {
        .id = "unknown-field",
        .category = CAT_SCHEMA,
        .default_sev = SEV_ERROR,
        .kinds = K_ALL | K_OTHER,
        .check = check_unknown_field,
        .summary = "a field the kind and version do not have, or a key set "
                   "twice (kubectl's default --validate=strict)",
        .hint = "fix the field's name (names are case-sensitive) or its "
                "indentation; write each key once",
        .why = "Since 1.27 kubectl validates strictly by default "
               "(--validate=strict): the apiserver rejects an object with a "
               "field its type has in no Kubernetes version, naming the "
               "field's path, and with --validate=false the field is dropped "
               "silently, so the object behaves as if it were never set. "
               "Names are case-sensitive: ResourceClaims is not "
               "resourceClaims. A field that exists in another Kubernetes "
               "version than the target is feature-gate-disabled's to "
               "report. A key written twice in one mapping is collapsed by "
               "kubectl before it sends the object (the last value wins), so "
               "it is a warning: the earlier value is lost without a word. "
               "Kinds claimcheck has no field table for (ConfigMaps, custom "
               "resources) are not checked.",
        .bad = "apiVersion: resource.k8s.io/v1\nkind: ResourceClaim\n"
               "metadata:\n  name: gpu\nspec:\n  devices:\n    requests:\n"
               "    - name: gpu\n      exactly:\n"
               "        deviceClasName: gpu.example.com   # unknown field\n",
        .good = "    - name: gpu\n      exactly:\n"
                "        deviceClassName: gpu.example.com\n",
    },
};

const struct ruleset rules_builtin = {
    rules, sizeof(rules) / sizeof(rules[0])
};
