/*
 * drivers.c - look-ups in the well-known driver tables of drivers.yaml
 * (drivers_data.c): device-plugin resource patterns and DeviceClass names.
 */
#include <string.h>

#include "drivers.h"

int plugin_pattern_match(const char *pattern, const char *resource)
{
    size_t l = strlen(pattern);

    if (l && pattern[l - 1] == '*')
        return strncmp(pattern, resource, l - 1) == 0
               && resource[l - 1] != '\0';
    return strcmp(pattern, resource) == 0;
}

const struct plugin_map *plugin_map_find(const char *res)
{
    size_t i;

    for (i = 0; i < plugin_map_count; i++)
        if (plugin_pattern_match(plugin_maps[i].resource, res))
            return &plugin_maps[i];
    return NULL;
}

const char *class_map_driver(const char *class_name)
{
    size_t i;

    for (i = 0; i < class_map_count; i++)
        if (!strcmp(class_maps[i].class_name, class_name))
            return class_maps[i].driver;
    return NULL;
}
