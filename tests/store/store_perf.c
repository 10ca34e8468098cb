/* tests/store/store_perf.c - one kind of store write, N times, for
 * instruction counts (wall-clock is too noisy on a shared machine).
 *
 *   store_perf [-n N] [-b BULK] [-m] KIND
 *
 * KIND: put, insert, patch ($set of 2 fields, as flow_manager's ack),
 * upsert-new / upsert (flow_manager's add: a bulk of BULK upsert patches
 * that $set the whole flow and $setOnInsert inserted_at, on new or on
 * existing documents), bulk-patch (BULK acks per bulk call), bulk-put
 * (BULK puts per bulk call), get.
 * Documents are ~600-byte flows with a uint64 cookie; the collection has
 * flow_manager's indexes (switch, state).  Only perf_run() does store
 * writes that count, so:
 *
 *   valgrind --tool=callgrind --collect-atstart=no --toggle-collect=perf_run \
 *       tests/store/store_perf -n 2000 patch
 *
 * gives the instructions of N operations (per op = total / N).  -m uses the
 * in-memory store; by default a temporary WAL store on disk. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "host/store/store.h"

#define COLL "flows"

static kh_store *S;
static int n_ops = 2000, bulk = 10;

static struct json_object *flow(int k)
{
    char text[1024];
    snprintf(text, sizeof(text),
             "{\"table_id\": 0, \"owner\": \"mef_eline\", \"table_group\": \"evpl\", \"priority\": %d,"
             " \"cookie\": %llu, \"idle_timeout\": 0, \"hard_timeout\": 0,"
             " \"match\": {\"in_port\": %d, \"dl_vlan\": %d},"
             " \"instructions\": [{\"instruction_type\": \"apply_actions\", \"actions\": ["
             "{\"action_type\": \"set_vlan\", \"vlan_id\": %d}, {\"action_type\": \"output\", \"port\": %d}]}]}",
             1000 + k % 100, 0xAA00000000000000ull + (unsigned long long)k, k % 48 + 1, k % 4000 + 1,
             k % 4000 + 1, (k + 1) % 48 + 1);
    return json_tokener_parse(text);
}

static void id_of(int k, char *id, size_t len)
{
    snprintf(id, len, "%032x", k * 2654435761u);
}

/* A stored flow as flow_manager writes it. */
static struct json_object *flow_doc(int k)
{
    struct json_object *d = json_object_new_object();
    char id[40], fid[40];

    id_of(k, id, sizeof(id));
    snprintf(fid, sizeof(fid), "f%031d", k);
    json_object_object_add(d, "id", json_object_new_string(id));
    json_object_object_add(d, "switch", json_object_new_string("00:00:00:00:00:00:00:01"));
    json_object_object_add(d, "flow_id", json_object_new_string(fid));
    json_object_object_add(d, "state", json_object_new_string("pending"));
    json_object_object_add(d, "flow", flow(k));
    json_object_object_add(d, "inserted_at", json_object_new_string("2026-01-01T00:00:00"));
    json_object_object_add(d, "updated_at", json_object_new_string("2026-01-01T00:00:00"));
    return d;
}

/* flow_manager's add: $set everything but inserted_at, $setOnInsert that. */
static struct json_object *upsert_update(int k)
{
    struct json_object *d = flow_doc(k), *upd = json_object_new_object(), *ins = json_object_new_object(),
                       *v;

    json_object_object_get_ex(d, "inserted_at", &v);
    json_object_object_add(ins, "inserted_at", json_object_get(v));
    json_object_object_del(d, "inserted_at");
    json_object_object_add(upd, "$set", d);
    json_object_object_add(upd, "$setOnInsert", ins);
    return upd;
}

static void die(const char *what, const struct kytos_error *e)
{
    fprintf(stderr, "store_perf: %s: %s\n", what, e->message);
    exit(1);
}

static void setup_docs(void)
{
    struct kytos_error e = {0};
    char id[40];

    for (int k = 0; k < n_ops; k++) {
        struct json_object *d = flow_doc(k);
        id_of(k, id, sizeof(id));
        if (kh_store_put(S, COLL, id, d, &e) < 0)
            die("setup put", &e);
        json_object_put(d);
    }
}

struct work {
    char (*ids)[40];
    struct json_object **docs;
    struct kytos_write *ops;
    struct json_object *ack;
};

/* Everything counted happens in here. */
__attribute__((noinline)) int perf_run(const char *kind, struct work *w);
__attribute__((noinline)) int perf_run(const char *kind, struct work *w)
{
    struct kytos_error e = {0};
    int fails = 0;

    if (!strcmp(kind, "put") || !strcmp(kind, "insert")) {
        int ins = kind[0] == 'i';
        for (int k = 0; k < n_ops; k++)
            if ((ins ? kh_store_insert : kh_store_put)(S, COLL, w->ids[k], w->docs[k], &e) < 0)
                fails++;
    } else if (!strcmp(kind, "patch")) {
        for (int k = 0; k < n_ops; k++)
            if (kh_store_patch(S, COLL, w->ids[k], w->ack, 0, NULL, &e) < 0)
                fails++;
    } else if (!strcmp(kind, "get")) {
        for (int k = 0; k < n_ops; k++) {
            struct json_object *o = NULL;
            if (kh_store_get(S, COLL, w->ids[k], &o, &e) < 0)
                fails++;
            json_object_put(o);
        }
    } else {
        for (int k = 0; k < n_ops; k += bulk) {
            size_t n = (size_t)(n_ops - k < bulk ? n_ops - k : bulk);
            if (kh_store_bulk(S, COLL, w->ops + k, n, &e) < 0)
                fails++;
        }
    }
    if (fails)
        fprintf(stderr, "store_perf: %s: %d failures (%s)\n", kind, fails, e.message);
    return fails;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The last document must read back as written (exact uint64 cookie). */
static int verify(const char *kind)
{
    struct kytos_error e = {0};
    struct json_object *o = NULL, *st, *fl, *ck;
    int k = n_ops - 1, ok;
    char id[40];

    id_of(k, id, sizeof(id));
    if (kh_store_get(S, COLL, id, &o, &e) < 0)
        die("verify get", &e);
    ok = json_object_object_get_ex(o, "flow", &fl) && json_object_object_get_ex(fl, "cookie", &ck) &&
         json_object_get_uint64(ck) == 0xAA00000000000000ull + (uint64_t)k &&
         json_object_object_get_ex(o, "state", &st) &&
         !strcmp(json_object_get_string(st), strstr(kind, "patch") ? "installed" : "pending") &&
         json_object_object_get_ex(o, "inserted_at", &st);
    if (!ok)
        fprintf(stderr, "store_perf: %s: read back %s\n", kind, json_object_to_json_string(o));
    json_object_put(o);
    return ok ? 0 : 1;
}

int main(int argc, char **argv)
{
    struct kh_store_opts o = {0};
    struct kytos_error e = {0};
    struct work w = {0};
    char tmp[256] = "";
    const char *kind;
    int memory = 0, c, rc;
    double t0, secs;

    while ((c = getopt(argc, argv, "n:b:m")) != -1) {
        switch (c) {
        case 'n': n_ops = atoi(optarg); break;
        case 'b': bulk = atoi(optarg); break;
        case 'm': memory = 1; break;
        default: goto usage;
        }
    }
    if (optind != argc - 1 || n_ops < 1 || bulk < 1)
        goto usage;
    kind = argv[optind];
    if (strcmp(kind, "put") && strcmp(kind, "insert") && strcmp(kind, "patch") && strcmp(kind, "get") &&
        strcmp(kind, "upsert-new") && strcmp(kind, "upsert") && strcmp(kind, "bulk-patch") &&
        strcmp(kind, "bulk-put"))
        goto usage;
    if (!memory) {
        snprintf(tmp, sizeof(tmp), "%s/kh-store-perf-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (!mkdtemp(tmp)) {
            perror("mkdtemp");
            return 1;
        }
        o.data_dir = tmp;
    }
    if (kh_store_open(&S, &o, &e) < 0)
        die("open", &e);
    for (int k = 0; k < 2; k++) {
        struct json_object *keys = json_object_new_object();
        const char *f = k ? "state" : "switch";
        json_object_object_add(keys, f, json_object_new_int(1));
        if (kh_store_index(S, COLL, f, keys, 0, &e) < 0)
            die("index", &e);
        json_object_put(keys);
    }
    w.ids = calloc((size_t)n_ops, sizeof(*w.ids));
    w.docs = calloc((size_t)n_ops, sizeof(*w.docs));
    w.ops = calloc((size_t)n_ops, sizeof(*w.ops));
    w.ack = json_tokener_parse("{\"$set\": {\"state\": \"installed\", \"updated_at\": \"2026-01-01T00:00:01\"}}");
    for (int k = 0; k < n_ops; k++) {
        id_of(k, w.ids[k], sizeof(w.ids[k]));
        if (!strcmp(kind, "put") || !strcmp(kind, "insert") || !strcmp(kind, "bulk-put"))
            w.docs[k] = flow_doc(k);
        else if (!strncmp(kind, "upsert", 6))
            w.docs[k] = upsert_update(k);
        w.ops[k] = (struct kytos_write){KYTOS_WRITE_PATCH, w.ids[k], w.docs[k] ? w.docs[k] : w.ack,
                                        w.docs[k] ? KYTOS_STORE_UPSERT : 0};
        if (!strcmp(kind, "bulk-put"))
            w.ops[k] = (struct kytos_write){KYTOS_WRITE_PUT, w.ids[k], w.docs[k], 0};
    }
    if (strcmp(kind, "put") && strcmp(kind, "insert") && strcmp(kind, "upsert-new") && strcmp(kind, "bulk-put"))
        setup_docs();
    t0 = now_s();
    rc = perf_run(kind, &w);
    secs = now_s() - t0;
    rc |= verify(kind);
    printf("store_perf: %s x %d%s: %.3f s, %.1f us/op\n", kind, n_ops,
           strncmp(kind, "put", 3) && strcmp(kind, "insert") && strcmp(kind, "patch") && strcmp(kind, "get")
               ? " (bulks)" : "", secs, secs * 1e6 / n_ops);
    for (int k = 0; k < n_ops; k++)
        json_object_put(w.docs[k]);
    json_object_put(w.ack);
    free(w.ids);
    free(w.docs);
    free(w.ops);
    kh_store_close(S);
    if (tmp[0]) {
        char cmd[300];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", tmp);
    }
    return rc ? 1 : 0;
usage:
    fprintf(stderr, "usage: store_perf [-n N] [-b BULK] [-m] put|insert|patch|get|upsert-new|upsert|bulk-patch|"
                    "bulk-put\n");
    return 2;
}
