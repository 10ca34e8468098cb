/* plugins/pathfinder/pathfinder.h - the NApp's state and its files'
 * functions (main.c, rest.c); the graph and the search are in pf.h. */
#ifndef PF_PATHFINDER_H
#define PF_PATHFINDER_H

#include <kytos/kytos.h>
#include <pthread.h>

#include "pf.h"

struct pf {
    kytos_napp *napp;
    pthread_mutex_t lock;           /* the graph pointer */
    pthread_mutex_t refresh_lock;   /* one rebuild at a time */
    struct pf_graph *graph;
};

/* The graph of topology's current snapshot (a reference: pf_graph_put). */
struct pf_graph *pf_current_graph(struct pf *pf);
/* POST v3/ */
int pf_rest_paths(kytos_req *req, void *ud);

#endif
