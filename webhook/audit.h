/*
 * audit.h - `claimcheck-webhook audit` (what `claimcheck audit` runs):
 * every rule on the objects of a live cluster, with its live inventory and
 * the devices its claims hold, reported in the linter's formats.
 */
#ifndef CLAIMCHECK_WEBHOOK_AUDIT_H
#define CLAIMCHECK_WEBHOOK_AUDIT_H

#include "../validate/arena.h"
#include "../validate/diag.h"
#include "clusterread.h"

struct config;
struct engine;
struct err;
struct inventory;
struct kubeapi;
struct render_opts;
struct run;

/* One audit's state: the objects read, the engine, the findings. */
struct audit {
    struct clusterread live;
    struct clusterread_fail fail;   /* why the reading stopped */
    struct engine *eng;
    struct inventory *inv;
    struct run *run;
    struct arena arena;             /* the run and its findings */
    struct diag_list diags;         /* sorted */
    char note[256];                 /* a version the gate table lacks:
                                       what it is judged as; "" none */
};

/* Reads the cluster through k and runs every rule in audit mode. cfg is
 * the settings (kube_version NULL: the apiserver's; its audit fields are
 * set here, now = the time of the reading); it must outlive a. 0, or -1
 * with err (and a->fail when the apiserver answered with an error). */
int audit_cluster(struct audit *a, struct kubeapi *k, struct config *cfg,
                  const struct clusterread_opts *o, struct err *err);
/* The render options every report of an audit shares. */
void audit_render_opts(struct audit *a, const char *server,
                       struct render_opts *ro);
void audit_release(struct audit *a);

/* argv[0] is "audit". Returns the exit status: 0 nothing at or above
 * --fail-on, 1 findings at or above it, 2 a usage error or a cluster that
 * could not be read. */
int audit_main(int argc, char **argv);

#endif
