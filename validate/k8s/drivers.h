/*
 * drivers.h - the well-known DRA drivers of drivers.yaml: which driver
 * serves a DeviceClass name its deployment creates, and which device-plugin
 * extended resources manage the same hardware. The tables are generated
 * (drivers_data.c); the config's entries are looked up by the caller first.
 */
#ifndef CLAIMCHECK_K8S_DRIVERS_H
#define CLAIMCHECK_K8S_DRIVERS_H

#include <stddef.h>

struct plugin_map {
    const char *resource;           /* extended resource; a trailing '*'
                                       matches any suffix */
    const char *driver;             /* DRA driver of the same hardware */
    const char *hardware;           /* "NVIDIA GPUs", for messages */
};

struct class_map {
    const char *class_name;         /* DeviceClass name, exact */
    const char *driver;             /* the driver its selectors pin */
};

extern const struct plugin_map plugin_maps[];
extern const size_t plugin_map_count;
extern const struct class_map class_maps[];
extern const size_t class_map_count;

/* 1 if the extended resource name matches pattern (exact, or a prefix
 * when the pattern ends in '*'). */
int plugin_pattern_match(const char *pattern, const char *resource);
/* The built-in row for device-plugin resource res, or NULL. */
const struct plugin_map *plugin_map_find(const char *res);
/* The driver a well-known DeviceClass name stands for, or NULL. */
const char *class_map_driver(const char *class_name);

#endif
