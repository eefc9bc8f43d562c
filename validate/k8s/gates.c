/*
 * gates.c - the rows of gates.h, maintained by hand from
 * ../shared/reference/dra-feature-gates.yaml (stages: kube_features.go
 * versionedSpecs; fields: the +featureGate tags of kubernetes/api) and
 * dra-api.md §1.2, §2, §5. When the reference changes, change the row and
 * run build/tests/test_gates, which checks that stages only move forward,
 * locks sit on GA gates, every path walks the objects it names, and the
 * device-plugin map is well-formed. 1.37 rows are pre-release.
 */
#include "gates.h"

#include <string.h>

#include "../object.h"

/* 1.26 1.27 1.28 1.29 1.30 1.31 1.32 1.33 1.34 1.35 1.36 1.37 */
const struct gate gate_table[] = {
    {"DynamicResourceAllocation", "4381",
     "A0 A0 A0 A0 A0 A0 B0 B0 G1 G1L G1L G1L", "1.38", NULL,
     "DRA itself: Pod spec.resourceClaims and containers' resources.claims",
     0},
    {"DRAControlPlaneController", "3063",
     "A0 A0 A0 A0 A0 A0 x x x x x x", NULL, NULL,
     "classic DRA with a control-plane controller (v1alpha3 spec.controller, "
     "DeviceClass suitableNodes)", 1},
    {"DRAAdminAccess", "5018",
     "- - - - - - A0 A0 B1 B1 G1L G1L", "1.39", NULL,
     "adminAccess in device requests", 0},
    {"DRAPrioritizedList", "4816",
     "- - - - - - - A0 B1 B1 G1 G1L", "1.40", NULL,
     "firstAvailable: a prioritized list of sub-requests", 0},
    {"DRADeviceTaints", "5055",
     "- - - - - - - A0 A0 A0 B1 G1", "1.41", NULL,
     "device taints in ResourceSlices and tolerations in requests", 0},
    {"DRADeviceTaintRules", "5055",
     "- - - - - - - - - A0 B0 G1", "1.41", NULL,
     "the DeviceTaintRule kind (needs resource.k8s.io/v1beta2 in 1.36)", 0},
    {"DRAPartitionableDevices", "4815",
     "- - - - - - - A0 A0 A0 B1 B1", NULL, NULL,
     "shared counters, counter consumption and per-device node selection in "
     "ResourceSlices", 0},
    {"DRAPartitionableDevicesType", "5677",
     "- - - - - - - - - - - A0", NULL, NULL,
     "ResourceSlice partitionTypeAttribute", 1},
    {"DRAResourceClaimDeviceStatus", "4817",
     "- - - - - - A0 B1 B1 B1 B1 G1L", "1.40", NULL,
     "ResourceClaim status.devices written by drivers", 0},
    {"DRAResourceClaimGranularStatusAuthorization", "4817",
     "- - - - - - - - - - B1 B1", NULL, NULL,
     "RBAC for ResourceClaim status writes (binding and driver "
     "subresources); no fields", 0},
    {"DRAResourcePoolStatus", "5677",
     "- - - - - - - - - - A0 A0", NULL, NULL,
     "the ResourcePoolStatusRequest kind", 0},
    {"DRAExtendedResource", "5004",
     "- - - - - - - - A0 A0 B1 G1L", "1.40", NULL,
     "DeviceClass extendedResourceName: extended resources served by DRA",
     0},
    {"DRAConsumableCapacity", "5075",
     "- - - - - - - - A0 A0 B1 B1", NULL, "GA planned for 1.38 by KEP 5075",
     "shared devices: allowMultipleAllocations, requestPolicy, capacity "
     "requests, distinctAttribute", 0},
    {"DRAFractionalCapacityRange", "5075",
     "- - - - - - - - - - - B1", NULL, NULL,
     "fractional requestPolicy.validRange values (semantics only)", 1},
    {"DRADeviceBindingConditions", "5007",
     "- - - - - - - - A0 A0 B1 B1", NULL, NULL,
     "bindsToNode and binding conditions of ResourceSlice devices "
     "(together with DRAResourceClaimDeviceStatus)", 0},
    {"DRASchedulerFilterTimeout", "4381",
     "- - - - - - - - B1 B1 B1 B1", NULL, NULL,
     "scheduler DynamicResources filterTimeout; no API fields", 0},
    {"DRAListTypeAttributes", "5491",
     "- - - - - - - - - - A0 A0", NULL, NULL,
     "list-valued device attributes (ints, bools, strings, versions) and "
     "CEL includes()", 0},
    {"DRANodeAllocatableResources", "5517",
     "- - - - - - - - - - A0 A0", NULL, NULL,
     "node-allocatable resources (cpu, memory) backed by devices", 1},
    {"DRAOptionalNodeOperations", "5945",
     "- - - - - - - - - - - A0", NULL, NULL,
     "ResourceSlice skipNodeOperations", 1},
    {"DRAWorkloadResourceClaims", "5729",
     "- - - - - - - - - - A0 B0", NULL, NULL,
     "resource claims of scheduling.k8s.io Workloads and PodGroups", 1},
    {"DRADerivedAttributes", "6080",
     "- - - - - - - - - - - A0", NULL, NULL,
     "derived device attributes (fields not published yet)", 1},
    {"DRADeviceCompatibilityGroups", "5963",
     "- - - - - - - - - - - A0", NULL, NULL,
     "device compatibility groups (fields not published yet)", 1},
    {"KubeletPodResourcesDynamicResources", "3695",
     "- A0 A0 A0 A0 A0 A0 A0 B1 B1 G1L G1L", NULL, NULL,
     "DRA devices in the kubelet PodResources API; no API fields", 0},
    {"KubeletPodResourcesGet", "3695",
     "- A0 A0 A0 A0 A0 A0 A0 B1 B1 G1L G1L", NULL, NULL,
     "the kubelet PodResources Get method; no API fields", 0},
    {"ResourceHealthStatus", "4680",
     "- - - - - A0 A0 A0 A0 A0 B1 B1", NULL, NULL,
     "device health in Pod status (allocatedResourcesStatus)", 0},
    {"ResourceHealthStatusMessage", "4680",
     "- - - - - - - - - - B1 B1", NULL, NULL,
     "health messages in Pod status allocatedResourcesStatus", 1},
};
const size_t gate_count = sizeof(gate_table) / sizeof(gate_table[0]);

/* ==== gated fields ====================================================== */

#define DROP_RUN "the Pod will run without its devices"
#define DROP_CTR "the container will run without its devices"
#define DROP_FA_V1 "the claim is then rejected because neither exactly nor " \
                   "firstAvailable remains"
#define DROP_FA_V1B1 "the request is then rejected because it has no " \
                     "deviceClassName"
#define DROP_TOL "the request no longer tolerates tainted devices"
#define DROP_TAINT "the devices are published without their taints and " \
                   "get allocated anyway"
#define DROP_CAP "the requested capacity is ignored"
#define DROP_COUNTERS "the counters are lost and partitions of one device " \
                      "can be allocated at the same time"
#define DROP_PLACE "the device loses its node placement"
#define DROP_BIND "the scheduler no longer waits for the device to be " \
                  "attached before binding the pod"
#define DROP_LIST "the attribute loses its list value"
#define DROP_NAR "the device's node-allocatable resources are not accounted"

const struct gated_field gated_fields[] = {
    /* Pods and pod templates */
    {"DynamicResourceAllocation", NULL, K_PODLIKE, SHAPE_ANY,
     "resourceClaims", 0, 0, DROP_RUN},
    {"DynamicResourceAllocation", NULL, K_PODLIKE, SHAPE_ANY,
     "containers[].resources.claims", 0, 0, DROP_CTR},
    {"DynamicResourceAllocation", NULL, K_PODLIKE, SHAPE_ANY,
     "initContainers[].resources.claims", 0, 0, DROP_CTR},
    {"DynamicResourceAllocation", NULL, K_PODLIKE, SHAPE_ANY,
     "ephemeralContainers[].resources.claims", 0, 0, DROP_CTR},
    {"DynamicResourceAllocation", NULL, K_PODLIKE, SHAPE_ANY,
     "resources.claims", 0, 0, DROP_RUN},
    /* 1.26-1.30 nested the claim reference under `source` (tombstoned) */
    {"DynamicResourceAllocation", NULL, K_PODLIKE, SHAPE_ANY,
     "resourceClaims[].source", 0, 31,
     "the entry then names no claim and the Pod is rejected"},

    /* classic DRA (v1alpha3 in 1.31 only) */
    {"DRAControlPlaneController", NULL, K_CLAIMLIKE, SHAPE_FLAT,
     "controller", 0, 0, "the claim is allocated by the scheduler instead "
     "of the named controller"},
    {"DRAControlPlaneController", NULL, K_CLASS, SHAPE_FLAT,
     "suitableNodes", 0, 0, "the class no longer limits the nodes"},

    /* ResourceClaims and ResourceClaimTemplates */
    {"DRAAdminAccess", NULL, K_CLAIMLIKE, SHAPE_EXACTLY,
     "devices.requests[].exactly.adminAccess", 0, 0,
     "the request then asks for ordinary access to unallocated devices"},
    /* v1alpha3 had adminAccess ungated in 1.31 */
    {"DRAAdminAccess", NULL, K_CLAIMLIKE, SHAPE_FLAT,
     "devices.requests[].adminAccess", 31, 0,
     "the request then asks for ordinary access to unallocated devices"},
    {"DRAPrioritizedList", NULL, K_CLAIMLIKE, SHAPE_EXACTLY,
     "devices.requests[].firstAvailable", 0, 0, DROP_FA_V1},
    {"DRAPrioritizedList", NULL, K_CLAIMLIKE, SHAPE_FLAT,
     "devices.requests[].firstAvailable", 0, 0, DROP_FA_V1B1},
    {"DRADeviceTaints", NULL, K_CLAIMLIKE, SHAPE_EXACTLY,
     "devices.requests[].exactly.tolerations", 0, 0, DROP_TOL},
    {"DRADeviceTaints", NULL, K_CLAIMLIKE, SHAPE_FLAT,
     "devices.requests[].tolerations", 0, 0, DROP_TOL},
    {"DRADeviceTaints", NULL, K_CLAIMLIKE, SHAPE_ANY,
     "devices.requests[].firstAvailable[].tolerations", 0, 0, DROP_TOL},
    {"DRAConsumableCapacity", NULL, K_CLAIMLIKE, SHAPE_EXACTLY,
     "devices.requests[].exactly.capacity", 0, 0, DROP_CAP},
    {"DRAConsumableCapacity", NULL, K_CLAIMLIKE, SHAPE_FLAT,
     "devices.requests[].capacity", 0, 0, DROP_CAP},
    {"DRAConsumableCapacity", NULL, K_CLAIMLIKE, SHAPE_ANY,
     "devices.requests[].firstAvailable[].capacity", 0, 0, DROP_CAP},
    {"DRAConsumableCapacity", NULL, K_CLAIMLIKE, SHAPE_ANY,
     "devices.constraints[].distinctAttribute", 0, 0,
     "the devices no longer need distinct values of that attribute"},

    /* DeviceClasses */
    {"DRAExtendedResource", NULL, K_CLASS, SHAPE_ANY,
     "extendedResourceName", 0, 0,
     "pods requesting that extended resource are not served by this class"},

    /* ResourceSlices, v1beta2/v1 shape */
    {"DRADeviceTaints", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].taints", 0, 0, DROP_TAINT},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_ANY,
     "sharedCounters", 0, 0, DROP_COUNTERS},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_ANY,
     "perDeviceNodeSelection", 0, 0,
     "the slice is then rejected because it names no node"},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].consumesCounters", 0, 0, DROP_COUNTERS},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].nodeName", 0, 0, DROP_PLACE},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].nodeSelector", 0, 0, DROP_PLACE},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].allNodes", 0, 0, DROP_PLACE},
    {"DRAConsumableCapacity", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].allowMultipleAllocations", 0, 0,
     "the device can then be allocated to one claim only"},
    {"DRAConsumableCapacity", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].capacity[*].requestPolicy", 0, 0,
     "the capacity's request policy is lost"},
    {"DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", K_SLICE,
     SHAPE_EXACTLY, "devices[].bindsToNode", 0, 0, DROP_BIND},
    {"DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", K_SLICE,
     SHAPE_EXACTLY, "devices[].bindingConditions", 0, 0, DROP_BIND},
    {"DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", K_SLICE,
     SHAPE_EXACTLY, "devices[].bindingFailureConditions", 0, 0, DROP_BIND},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].attributes[*].ints", 0, 0, DROP_LIST},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].attributes[*].bools", 0, 0, DROP_LIST},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].attributes[*].strings", 0, 0, DROP_LIST},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].attributes[*].versions", 0, 0, DROP_LIST},
    {"DRANodeAllocatableResources", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].nodeAllocatableResourceMappings", 0, 37, DROP_NAR},
    {"DRANodeAllocatableResources", NULL, K_SLICE, SHAPE_EXACTLY,
     "devices[].nodeAllocatableResources", 37, 0, DROP_NAR},
    {"DRAPartitionableDevicesType", NULL, K_SLICE, SHAPE_ANY,
     "partitionTypeAttribute", 0, 0,
     "the pool's partition type is not published"},
    {"DRAOptionalNodeOperations", NULL, K_SLICE, SHAPE_ANY,
     "skipNodeOperations", 0, 0,
     "the kubelet runs the node operations the driver asked to skip"},

    /* ResourceSlices, v1alpha3/v1beta1 shape: devices under `basic` */
    {"DRADeviceTaints", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.taints", 0, 0, DROP_TAINT},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.consumesCounters", 0, 0, DROP_COUNTERS},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.nodeName", 0, 0, DROP_PLACE},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.nodeSelector", 0, 0, DROP_PLACE},
    {"DRAPartitionableDevices", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.allNodes", 0, 0, DROP_PLACE},
    {"DRAConsumableCapacity", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.allowMultipleAllocations", 0, 0,
     "the device can then be allocated to one claim only"},
    {"DRAConsumableCapacity", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.capacity[*].requestPolicy", 0, 0,
     "the capacity's request policy is lost"},
    {"DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", K_SLICE,
     SHAPE_FLAT, "devices[].basic.bindsToNode", 0, 0, DROP_BIND},
    {"DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", K_SLICE,
     SHAPE_FLAT, "devices[].basic.bindingConditions", 0, 0, DROP_BIND},
    {"DRADeviceBindingConditions", "DRAResourceClaimDeviceStatus", K_SLICE,
     SHAPE_FLAT, "devices[].basic.bindingFailureConditions", 0, 0,
     DROP_BIND},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.attributes[*].ints", 0, 0, DROP_LIST},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.attributes[*].bools", 0, 0, DROP_LIST},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.attributes[*].strings", 0, 0, DROP_LIST},
    {"DRAListTypeAttributes", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.attributes[*].versions", 0, 0, DROP_LIST},
    {"DRANodeAllocatableResources", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.nodeAllocatableResourceMappings", 0, 37, DROP_NAR},
    {"DRANodeAllocatableResources", NULL, K_SLICE, SHAPE_FLAT,
     "devices[].basic.nodeAllocatableResources", 37, 0, DROP_NAR},
};
const size_t gated_field_count = sizeof(gated_fields)
                                 / sizeof(gated_fields[0]);

/* ==== resource.k8s.io versions ========================================== */

/* Beta versions added after 1.24 are off by default (KEP-3136), so
 * v1beta1/v1beta2 need --runtime-config; v1 is on from 1.34. v1alpha3
 * lists the claim/class/slice kinds: they left the tree in 1.34 (its
 * DeviceTaintRule and ResourcePoolStatusRequest kinds stay). */
const struct api_version api_versions[] = {
    {"v1alpha1", 26, 0, 27, 0, 0,
     "classic DRA (ResourceClass, PodScheduling)"},
    {"v1alpha2", 27, 0, 31, 0, 0, "classic DRA; ResourceSlice from 1.30"},
    {"v1alpha3", 31, 0, 34, 0, 0, "structured parameters (DeviceClass, "
     "ResourceClaim, ResourceClaimTemplate, ResourceSlice)"},
    {"v1beta1", 32, 35, 0, 38, 0, "flat requests, devices under basic"},
    {"v1beta2", 33, 36, 0, 39, 0, "exactly/firstAvailable requests"},
    {"v1", 34, 0, 0, 0, 1, "GA"},
};
const size_t api_version_count = sizeof(api_versions)
                                 / sizeof(api_versions[0]);

/* ==== device plugins <-> DRA drivers ==================================== */

const struct plugin_map plugin_maps[] = {
    {"nvidia.com/gpu", "gpu.nvidia.com", "NVIDIA GPUs"},
    {"nvidia.com/mig-*", "gpu.nvidia.com", "NVIDIA MIG devices"},
    {"amd.com/gpu", "gpu.amd.com", "AMD GPUs"},
    {"gpu.intel.com/*", "gpu.intel.com", "Intel GPUs"},
    {"habana.ai/gaudi", "gaudi.intel.com", "Intel Gaudi accelerators"},
    {"qat.intel.com/*", "qat.intel.com", "Intel QAT devices"},
    {"example.com/gpu", "gpu.example.com", "example GPUs"},
};
const size_t plugin_map_count = sizeof(plugin_maps) / sizeof(plugin_maps[0]);

/* ==== lookups =========================================================== */

int gate_find(const char *name)
{
    size_t i;

    for (i = 0; i < gate_count; i++)
        if (!strcmp(gate_table[i].name, name))
            return (int)i;
    return -1;
}

int gate_state_at(const struct gate *g, int minor, struct gate_state *out)
{
    const char *p = g->stages;
    int v = GATE_MIN_MINOR;

    memset(out, 0, sizeof(*out));
    if (minor < GATE_MIN_MINOR || minor > GATE_MAX_MINOR)
        return 0;
    for (;;) {
        const char *tok;
        size_t len;
        while (*p == ' ')
            p++;
        if (!*p)
            return -1;
        tok = p;
        while (*p && *p != ' ')
            p++;
        len = (size_t)(p - tok);
        if (v++ != minor)
            continue;
        if (len == 1 && tok[0] == '-')
            return 0;
        if (len == 1 && tok[0] == 'x') {
            out->stage = GATE_REMOVED;
            return 0;
        }
        if (len < 2 || len > 3 || (tok[1] != '0' && tok[1] != '1')
            || (len == 3 && tok[2] != 'L'))
            return -1;
        switch (tok[0]) {
        case 'A': out->stage = GATE_ALPHA; break;
        case 'B': out->stage = GATE_BETA; break;
        case 'G': out->stage = GATE_GA; break;
        default: return -1;
        }
        out->on = tok[1] == '1';
        out->locked = len == 3;
        return 0;
    }
}

static int first_minor(const struct gate *g, int (*pred)(
                           const struct gate_state *))
{
    int m;

    for (m = GATE_MIN_MINOR; m <= GATE_MAX_MINOR; m++) {
        struct gate_state s;
        if (gate_state_at(g, m, &s) == 0 && pred(&s))
            return m;
    }
    return 0;
}

static int is_ga(const struct gate_state *s)
{
    return s->stage == GATE_GA;
}

static int is_on(const struct gate_state *s)
{
    return s->on && s->stage != GATE_REMOVED && s->stage != GATE_ABSENT;
}

static int exists(const struct gate_state *s)
{
    return s->stage != GATE_ABSENT;
}

int gate_ga_minor(const struct gate *g)
{
    return first_minor(g, is_ga);
}

int gate_on_minor(const struct gate *g)
{
    return first_minor(g, is_on);
}

int gate_first_minor(const struct gate *g)
{
    return first_minor(g, exists);
}

const char *gate_stage_name(enum gate_stage s)
{
    switch (s) {
    case GATE_ALPHA: return "alpha";
    case GATE_BETA: return "beta";
    case GATE_GA: return "GA";
    case GATE_REMOVED: return "removed";
    case GATE_ABSENT: return "absent";
    }
    return "?";
}

int api_version_find(const char *version)
{
    size_t i;

    for (i = 0; i < api_version_count; i++)
        if (!strcmp(api_versions[i].version, version))
            return (int)i;
    return -1;
}

int api_version_served(const struct api_version *v, int minor)
{
    return minor >= v->introduced && (!v->removed || minor < v->removed);
}

int plugin_pattern_match(const char *pattern, const char *resource)
{
    size_t l = strlen(pattern);

    if (l && pattern[l - 1] == '*')
        return strncmp(pattern, resource, l - 1) == 0
               && resource[l - 1] != '\0';
    return strcmp(pattern, resource) == 0;
}
