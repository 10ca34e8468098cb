/* bench/store_bench.c - embedded store throughput and latency.
 *
 *   store_bench [-t THREADS] [-n OPS] [-d DIR] [-s normal|full] [-m]
 *
 * Runs put, get, patch and find from THREADS threads (OPS calls each) on
 * flow-like documents (~600 bytes, as flow_manager stores them), then times
 * one 1,000-document bulk write.  Prints ops/s and p50/p99 latency per
 * phase.  -m uses the in-memory store; -d keeps the database in DIR
 * (default: a temporary directory, removed at the end). */
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "host/store/store.h"

static kh_store *S;
static int threads = 4, ops = 4000;
static const char *phase;
static atomic_long found_docs;

struct worker {
    int t;
    unsigned seed;
    double *lat; /* microseconds */
    int failures;
    char msg[256];
};

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static struct json_object *flow_doc(int t, int k)
{
    char text[1024];
    snprintf(text, sizeof(text),
             "{\"id\": \"%08x%08x\", \"switch\": \"00:00:00:00:00:00:00:%02x\", \"flow_id\": \"f%d-%d\","
             " \"state\": \"pending\", \"flow\": {\"table_id\": 0, \"owner\": \"mef_eline\","
             " \"table_group\": \"evpl\", \"priority\": %d, \"cookie\": %llu, \"idle_timeout\": 0,"
             " \"hard_timeout\": 0, \"match\": {\"in_port\": %d, \"dl_vlan\": %d},"
             " \"instructions\": [{\"instruction_type\": \"apply_actions\", \"actions\": ["
             "{\"action_type\": \"set_vlan\", \"vlan_id\": %d}, {\"action_type\": \"output\", \"port\": %d}]}]},"
             " \"inserted_at\": \"2026-01-01T00:00:00\", \"updated_at\": \"2026-01-01T00:00:00\"}",
             t, k, k % 16, t, k, 1000 + k % 100, 0xAA00000000000000ull + (unsigned long long)k, k % 48 + 1,
             k % 4000 + 1, k % 4000 + 1, (k + 1) % 48 + 1);
    return json_tokener_parse(text);
}

static void fail(struct worker *w, const struct kytos_error *e)
{
    w->failures++;
    snprintf(w->msg, sizeof(w->msg), "%s", e->message);
}

static void *run(void *p)
{
    struct worker *w = p;
    struct kytos_error e = {0};
    struct json_object *upd = json_tokener_parse("{\"$set\": {\"state\": \"installed\", "
                                                 "\"updated_at\": \"2026-01-01T00:00:01\"}}");

    int n = strcmp(phase, "find") ? ops : ops / 10; /* a find reads ~1/16 of the flows */

    for (int k = 0; k < n; k++) {
        char id[32];
        int rc = 0;
        double t0;
        int tk = (int)(rand_r(&w->seed) % (unsigned)ops);
        if (!strcmp(phase, "put")) {
            struct json_object *d = flow_doc(w->t, k);
            snprintf(id, sizeof(id), "t%d-%d", w->t, k);
            t0 = now_us();
            rc = kh_store_put(S, "flows", id, d, &e);
            w->lat[k] = now_us() - t0;
            json_object_put(d);
        } else if (!strcmp(phase, "get")) {
            struct json_object *o = NULL;
            snprintf(id, sizeof(id), "t%d-%d", (int)(rand_r(&w->seed) % (unsigned)threads), tk);
            t0 = now_us();
            rc = kh_store_get(S, "flows", id, &o, &e);
            w->lat[k] = now_us() - t0;
            json_object_put(o);
        } else if (!strcmp(phase, "patch")) {
            snprintf(id, sizeof(id), "t%d-%d", w->t, tk);
            t0 = now_us();
            rc = kh_store_patch(S, "flows", id, upd, 0, NULL, &e);
            w->lat[k] = now_us() - t0;
        } else {
            /* flow_manager's stored flows of one switch, one state: ~THREADS*OPS/32 docs */
            char f[160];
            struct json_object *filter, *o;
            kytos_cursor *c = NULL;
            snprintf(f, sizeof(f), "{\"switch\": \"00:00:00:00:00:00:00:%02x\", \"flow.match.in_port\": %d}",
                     tk % 16, tk % 48 + 1);
            filter = json_tokener_parse(f);
            t0 = now_us();
            rc = kh_store_find(S, "flows", &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                                                 .filter = filter}, &c, &e);
            while (rc == 0 && kh_cursor_next(c, &o, &e) == 1) {
                json_object_put(o);
                atomic_fetch_add(&found_docs, 1);
            }
            kh_cursor_free(c);
            w->lat[k] = now_us() - t0;
            json_object_put(filter);
        }
        if (rc < 0)
            fail(w, &e);
    }
    json_object_put(upd);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static void run_phase(const char *name, const char *note)
{
    pthread_t th[64];
    struct worker w[64];
    int per = strcmp(name, "find") ? ops : ops / 10;
    double *all = malloc(sizeof(double) * (size_t)ops * (size_t)threads), t0, secs;
    size_t n = (size_t)per * (size_t)threads;
    int failures = 0;

    phase = name;
    t0 = now_us();
    for (int t = 0; t < threads; t++) {
        w[t] = (struct worker){.t = t, .seed = (unsigned)(t * 7919 + 1), .lat = all + (size_t)t * (size_t)per};
        pthread_create(&th[t], NULL, run, &w[t]);
    }
    for (int t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
        failures += w[t].failures;
        if (w[t].failures)
            fprintf(stderr, "%s: %d failures (%s)\n", name, w[t].failures, w[t].msg);
    }
    secs = (now_us() - t0) / 1e6;
    qsort(all, n, sizeof(double), cmp_double);
    printf("%-6s %2d threads %7zu ops %9.0f ops/s  p50 %7.1f us  p99 %8.1f us%s%s\n", name, threads, n,
           (double)n / secs, all[n / 2], all[(size_t)((double)n * 0.99)], note ? "  " : "", note ? note : "");
    free(all);
}

static void bulk_phase(void)
{
    struct kytos_write *w = calloc(1000, sizeof(*w));
    char (*ids)[32] = calloc(1000, 32);
    struct kytos_error e = {0};
    double best = 1e18, times[5];

    for (int r = 0; r < 5; r++) {
        double t0;
        for (int k = 0; k < 1000; k++) {
            snprintf(ids[k], 32, "bulk%d-%d", r, k);
            w[k] = (struct kytos_write){KYTOS_WRITE_PUT, ids[k], flow_doc(100 + r, k), 0};
        }
        t0 = now_us();
        if (kh_store_bulk(S, "flows", w, 1000, &e) < 0)
            fprintf(stderr, "bulk: %s\n", e.message);
        times[r] = now_us() - t0;
        if (times[r] < best)
            best = times[r];
        for (int k = 0; k < 1000; k++)
            json_object_put(w[k].doc);
    }
    qsort(times, 5, sizeof(double), cmp_double);
    printf("bulk   1000 puts in one call: median %.1f ms, best %.1f ms (%.0f docs/s)\n", times[2] / 1e3,
           best / 1e3, 1000.0 / (times[2] / 1e6));
    free(w);
    free(ids);
}

int main(int argc, char **argv)
{
    struct kh_store_opts o = {0};
    struct kytos_error e = {0};
    char tmp[256] = "";
    const char *dir = NULL;
    int memory = 0, c;
    struct json_object *keys;

    while ((c = getopt(argc, argv, "t:n:d:s:m")) != -1) {
        switch (c) {
        case 't': threads = atoi(optarg); break;
        case 'n': ops = atoi(optarg); break;
        case 'd': dir = optarg; break;
        case 's': o.sync = optarg; break;
        case 'm': memory = 1; break;
        default:
            fprintf(stderr, "usage: %s [-t threads] [-n ops] [-d dir] [-s normal|full] [-m]\n", argv[0]);
            return 2;
        }
    }
    if (threads < 1 || threads > 64 || ops < 10) {
        fprintf(stderr, "threads must be 1..64 and ops >= 10\n");
        return 2;
    }
    if (!memory && !dir) {
        snprintf(tmp, sizeof(tmp), "%s/kh-store-bench-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmp)) {
            perror("mkdtemp");
            return 1;
        }
        dir = tmp;
    }
    o.data_dir = memory ? NULL : dir;
    if (kh_store_open(&S, &o, &e) < 0) {
        fprintf(stderr, "open: %s\n", e.message);
        return 1;
    }
    keys = json_tokener_parse("{\"switch\": 1}");
    kh_store_index(S, "flows", "switch", keys, 0, &e);
    json_object_put(keys);
    keys = json_tokener_parse("{\"flow_id\": 1}");
    kh_store_index(S, "flows", "flow_id", keys, KYTOS_STORE_UNIQUE, &e);
    json_object_put(keys);
    printf("store_bench: embedded SQLite (%s, sync=%s), %d threads x %d ops, ~600-byte flow documents,"
           " indexes on switch and flow_id (unique)\n", memory ? "memory" : "WAL", o.sync ? o.sync : "normal",
           threads, ops);
    run_phase("put", "(one call each; concurrent calls share commits)");
    run_phase("get", "(by _id)");
    run_phase("patch", "($set 2 fields)");
    {
        char note[160];
        atomic_store(&found_docs, 0);
        run_phase("find", NULL);
        snprintf(note, sizeof(note), "       (find: switch = X (indexed) and flow.match.in_port = Y (not indexed): "
                 "%.0f of %d flows returned per call)", (double)atomic_load(&found_docs) / (threads * (ops / 10)),
                 threads * ops);
        puts(note);
    }
    bulk_phase();
    {
        struct json_object *st = kh_store_status(S), *gc, *w;
        if (json_object_object_get_ex(st, "group_commits", &gc) && json_object_object_get_ex(st, "group_writes", &w) &&
            json_object_get_int64(gc) > 0)
            printf("group commit: %.2f single writes per commit (%" PRId64 " commits)\n",
                   (double)json_object_get_int64(w) / (double)json_object_get_int64(gc), json_object_get_int64(gc));
        json_object_put(st);
    }
    kh_store_close(S);
    if (tmp[0]) {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmp);
    }
    return 0;
}
