/*
 * `cuzk cluster load --mix`: N simulated daemons, each issuing every
 * statement a daemon of the cluster issues, at a daemon's pace, through
 * the cluster layer's own calls (docs/scale.md derives the mix).
 */
#ifndef CUZK_CLI_CLUSTER_MIX_H
#define CUZK_CLI_CLUSTER_MIX_H

#include <stdint.h>

#include "cuzk/cluster/cluster.h"

typedef struct cluster_mix_cfg {
    unsigned hosts;      /* simulated daemons */
    unsigned seconds;    /* measured run, after a warm-up of one lease */
    unsigned partitions; /* per job (10: a 32 GiB PoRep) */
    unsigned slots;      /* claims a daemon holds (2: one prover worker) */
    unsigned prove_ms;   /* one partition on the GPU (1500: an H200) */
    double load;         /* submissions as a share of the hosts' proving rate */
    double status_per_s; /* GetStatus calls a daemon answers per second */
} cluster_mix_cfg;

/* Runs the mix against o's database and prints what each statement kind
 * cost; 0 when every call succeeded, 1 otherwise. */
int cluster_mix_run(const cuzk_cluster_opts *o, const cluster_mix_cfg *c);

#endif
