/*
 * fuzz_common.h - what the libFuzzer harnesses of tests/fuzz/ share: a fixed
 * engine (default config) and a small fixed inventory (a DeviceClass, a
 * two-device ResourceSlice on node-1, the Node, a labelled Namespace, a
 * ResourceClaim and a ResourceClaimTemplate), built once per process and
 * never freed (libFuzzer's leak check only looks at per-input memory).
 * Header-only on purpose: every harness is one .c file plus this.
 */
#ifndef CLAIMCHECK_FUZZ_COMMON_H
#define CLAIMCHECK_FUZZ_COMMON_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../validate/config.h"
#include "../../validate/engine.h"
#include "../../validate/err.h"
#include "../../rules/rules.h"

static const char fuzz_inventory_text[] =
    "apiVersion: resource.k8s.io/v1\n"
    "kind: DeviceClass\n"
    "metadata: {name: gpu.example.com}\n"
    "spec:\n"
    "  selectors:\n"
    "  - cel: {expression: 'device.driver == \"gpu.example.com\"'}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceSlice\n"
    "metadata: {name: node-1-gpus}\n"
    "spec:\n"
    "  driver: gpu.example.com\n"
    "  nodeName: node-1\n"
    "  pool: {name: node-1, generation: 1, resourceSliceCount: 1}\n"
    "  devices:\n"
    "  - name: gpu-0\n"
    "    attributes:\n"
    "      model: {string: a100}\n"
    "      index: {int: 0}\n"
    "      driverVersion: {version: 1.2.3}\n"
    "      sriov: {bool: true}\n"
    "    capacity:\n"
    "      memory: {value: 40Gi}\n"
    "  - name: gpu-1\n"
    "    attributes:\n"
    "      model: {string: h100}\n"
    "      index: {int: 1}\n"
    "      driverVersion: {version: 2.0.0-rc.1}\n"
    "    capacity:\n"
    "      memory: {value: 80Gi}\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Node\n"
    "metadata:\n"
    "  name: node-1\n"
    "  labels: {kubernetes.io/hostname: node-1}\n"
    "status:\n"
    "  capacity: {nvidia.com/gpu: '2'}\n"
    "---\n"
    "apiVersion: v1\n"
    "kind: Namespace\n"
    "metadata:\n"
    "  name: ml\n"
    "  labels: {resource.kubernetes.io/admin-access: 'true'}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaim\n"
    "metadata: {name: shared-gpu, namespace: ml}\n"
    "spec:\n"
    "  devices:\n"
    "    requests:\n"
    "    - name: gpu\n"
    "      exactly: {deviceClassName: gpu.example.com}\n"
    "---\n"
    "apiVersion: resource.k8s.io/v1\n"
    "kind: ResourceClaimTemplate\n"
    "metadata: {name: one-gpu, namespace: default}\n"
    "spec:\n"
    "  spec:\n"
    "    devices:\n"
    "      requests:\n"
    "      - name: gpu\n"
    "        exactly:\n"
    "          deviceClassName: gpu.example.com\n"
    "          selectors:\n"
    "          - cel: {expression: 'device.attributes[\"gpu.example.com\"]"
    ".index >= 0'}\n";

#define FUZZ_NENGINES 4
static struct config fuzz_cfgs[FUZZ_NENGINES];
static struct engine *fuzz_engines[FUZZ_NENGINES];
static struct engine *fuzz_engine;     /* fuzz_engines[0]: the defaults */
static struct inventory *fuzz_inventory;

/* Builds the engines and the inventory once; aborts on failure (a broken
 * fixture must not look like a clean fuzz run). Engines: the defaults
 * (newest release); 1.31 (beta API, most gates off); 1.33 with
 * DRAPrioritizedList and resource.k8s.io/v1beta2; the defaults with the
 * sharing category off, a severity override and an extra device-plugin
 * mapping. */
static inline void fuzz_setup(void)
{
    struct err err;
    int i, rc = 0;

    if (fuzz_engine)
        return;
    for (i = 0; i < FUZZ_NENGINES; i++)
        config_init(&fuzz_cfgs[i]);
    rc |= config_set_kube_version(&fuzz_cfgs[1], "1.31", &err);
    rc |= config_set_kube_version(&fuzz_cfgs[2], "1.33", &err);
    rc |= config_add_gates(&fuzz_cfgs[2], "DRAPrioritizedList=true", &err);
    rc |= config_add_runtime(&fuzz_cfgs[2], "resource.k8s.io/v1beta2=true",
                             &err);
    rc |= config_add_enable(&fuzz_cfgs[3], "sharing", 0, &err);
    fuzz_cfgs[3].show_suppressed = 1;
    if (rc < 0) {
        fprintf(stderr, "fuzz: config: %s\n", err.msg);
        abort();
    }
    for (i = 0; i < FUZZ_NENGINES; i++) {
        fuzz_engines[i] = engine_new(&fuzz_cfgs[i], &rules_builtin, &err);
        if (!fuzz_engines[i]) {
            fprintf(stderr, "fuzz: engine_new %d: %s\n", i, err.msg);
            abort();
        }
    }
    fuzz_engine = fuzz_engines[0];
    fuzz_inventory = inventory_new();
    if (inventory_add_text(fuzz_inventory, "inventory.yaml",
                           fuzz_inventory_text,
                           sizeof(fuzz_inventory_text) - 1, &err) < 0) {
        fprintf(stderr, "fuzz: inventory: %s\n", err.msg);
        abort();
    }
}

#endif
