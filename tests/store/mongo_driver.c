/* tests/store/mongo_driver.c - the client half of mongo_wire.py: a fixed
 * script of store calls against the MongoDB backend, one result line each:
 *     <step> <status> <JSON result or error message>
 * The Python half plays the server (mockupdb) and checks what was sent.
 *   mongo_driver script   run the script (MONGO_* from the environment)
 *   mongo_driver wait     open with wait_for_server (2 quick tries) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host/store/store.h"

static kh_store *S;
static struct kytos_error E;

static void report(const char *step, int rc, struct json_object *o)
{
    if (rc < 0)
        printf("%s %d %s\n", step, rc, E.message);
    else
        printf("%s %d %s\n", step, rc,
               o ? json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)
                 : "null");
    fflush(stdout);
    json_object_put(o);
    memset(&E, 0, sizeof(E));
}

static struct json_object *J(const char *t)
{
    return json_tokener_parse(t);
}

static void logger(void *ud, int level, const char *msg)
{
    (void)ud;
    fprintf(stderr, "log %d: %s\n", level, msg);
}

int main(int argc, char **argv)
{
    struct kh_store_opts o = {.backend = "mongodb", .log = logger};
    struct json_object *d, *out = NULL, *arr;
    kytos_cursor *cur = NULL;
    int rc;

    if (argc == 2 && !strcmp(argv[1], "wait")) {
        o.wait_for_server = 1;
        o.wait_tries = 2;
        o.wait_interval_ms = 100;
        rc = kh_store_open(&S, &o, &E);
        report("wait", rc, NULL);
        kh_store_close(S);
        return 0;
    }
    o.wait_for_server = 1;
    o.wait_tries = 3;
    o.wait_interval_ms = 200;
    rc = kh_store_open(&S, &o, &E);
    report("open", rc, NULL);
    if (rc < 0)
        return 1;

    d = J("{\"switch\": \"s1\", \"flow\": {\"cookie\": 18446744073709551615, \"priority\": 10}, \"n\": 5000000000}");
    report("put", kh_store_put(S, "flows", "f1", d, &E), NULL);
    report("insert_dup", kh_store_insert(S, "flows", "f1", d, &E), NULL);
    json_object_put(d);

    rc = kh_store_get(S, "flows", "f1", &out, &E);
    report("get", rc, out);
    out = NULL;
    rc = kh_store_get(S, "flows", "missing", &out, &E);
    report("get_missing", rc, out);

    d = J("{\"$set\": {\"state\": \"installed\"}, \"$setOnInsert\": {\"inserted_at\": \"t0\"}}");
    out = NULL;
    rc = kh_store_patch(S, "flows", "f9", d, KYTOS_STORE_UPSERT, &out, &E);
    report("patch_upsert", rc, out);
    out = NULL;
    rc = kh_store_patch(S, "flows", "f8", d, 0, &out, &E);
    report("patch_missing", rc, out);
    json_object_put(d);

    report("delete_missing", kh_store_delete(S, "flows", "nope", &E), NULL);

    {
        struct kytos_find q = {.struct_size = sizeof(q),
                               .filter = J("{\"switch\": \"s1\", \"flow.cookie\": {\"$gte\": 12249790986447749121}}"),
                               .sort = J("{\"flow.priority\": -1}"),
                               .skip = 1,
                               .limit = 2,
                               .projection = J("{\"flow\": 1}")};
        rc = kh_store_find(S, "flows", &q, &cur, &E);
        arr = json_object_new_array();
        if (rc == 0) {
            struct json_object *doc;
            while ((rc = kh_cursor_next(cur, &doc, &E)) == 1)
                json_object_array_add(arr, doc);
            kh_cursor_free(cur);
        }
        report("find", rc, arr);
        json_object_put(q.filter);
        json_object_put(q.sort);
        json_object_put(q.projection);
    }
    {
        /* nothing matches: the cursor ends at once, without an error */
        struct kytos_find q = {.struct_size = sizeof(q), .filter = J("{\"switch\": \"none\"}")};
        struct json_object *doc;
        rc = kh_store_find(S, "flows", &q, &cur, &E);
        if (rc == 0) {
            rc = kh_cursor_next(cur, &doc, &E);
            kh_cursor_free(cur);
        }
        report("find_empty", rc, NULL);
        json_object_put(q.filter);
    }
    {
        int64_t n = -1;
        d = J("{\"state\": {\"$in\": [\"pending\", \"installed\"]}}");
        rc = kh_store_count(S, "flows", d, &n, &E);
        report("count", rc, json_object_new_int64(n));
        json_object_put(d);
    }
    d = J("{\"flow_id\": 1}");
    report("index", kh_store_index(S, "flows", "flow_id", d, KYTOS_STORE_UNIQUE, &E), NULL);
    report("index_conflict", kh_store_index(S, "flows", "flow_id", d, 0, &E), NULL);
    json_object_put(d);
    {
        struct kytos_write ops[3] = {
            {KYTOS_WRITE_PUT, "b1", J("{\"v\": 1}"), 0},
            {KYTOS_WRITE_PATCH, "b2", J("{\"$set\": {\"v\": 2}}"), KYTOS_STORE_UPSERT},
            {KYTOS_WRITE_DELETE, "b3", NULL, 0},
        };
        report("bulk", kh_store_bulk(S, "flows", ops, 3, &E), NULL);
        report("bulk_dup", kh_store_bulk(S, "flows", ops, 1, &E), NULL);
        json_object_put(ops[0].doc);
        json_object_put(ops[1].doc);
    }
    /* errors the server sends, and a connection that drops */
    out = NULL;
    rc = kh_store_get(S, "flows", "slow", &out, &E);
    report("get_timeout", rc, out);
    out = NULL;
    rc = kh_store_get(S, "flows", "hangup", &out, &E);
    report("get_hangup", rc, out);
    /* bad filters never reach the server */
    d = J("{\"a\": {\"$where\": 1}}");
    {
        int64_t n;
        report("count_badfilter", kh_store_count(S, "flows", d, &n, &E), NULL);
    }
    json_object_put(d);
    /* and the store recovers */
    out = NULL;
    rc = kh_store_get(S, "flows", "f1", &out, &E);
    report("get_again", rc, out);
    report("status", 0, kh_store_status(S));
    kh_store_close(S);
    printf("done\n");
    return 0;
}
