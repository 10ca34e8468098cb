/* tests/store/check_store_sqlite.c - the conformance suite on the embedded
 * store (on disk and in memory), plus what only the embedded store does:
 * reopening, schema versions, corrupt rows, options. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <sys/wait.h>
#include <sqlite3.h>
#include "check_tap.h"
#include "conformance.h"
#include "host/store/store_impl.h"
#include "host/store/store_sqlite.h"

static char dir[256];

static void rm_dir(void)
{
    char cmd[300];
    if (dir[0]) {
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "cannot remove %s\n", dir);
        dir[0] = '\0';
    }
}

static kh_store *open_dir(const char *d, const char *sync, struct kytos_error *err)
{
    struct kh_store_opts o = {.data_dir = d, .sync = sync};
    kh_store *s = NULL;

    if (kh_store_open(&s, &o, err) < 0)
        return NULL;
    return s;
}

static kh_store *open_disk(void)
{
    struct kytos_error e = {0};
    kh_store *s;

    snprintf(dir, sizeof(dir), "%s/kh-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (!mkdtemp(dir))
        return NULL;
    s = open_dir(dir, NULL, &e);
    if (!s)
        fprintf(stderr, "open: %s\n", e.message);
    return s;
}

static void close_disk(kh_store *s)
{
    kh_store_close(s);
    rm_dir();
}

static kh_store *open_mem(void)
{
    kh_store *s = NULL;
    struct kytos_error e = {0};
    if (kh_store_open(&s, NULL, &e) < 0)
        fprintf(stderr, "open: %s\n", e.message);
    return s;
}

#ifndef KH_CONF_MEMORY
/* ---- embedded-only tests (run once, in the on-disk program) ---- */

static void sql(const char *path, const char *stmt)
{
    sqlite3 *db;
    char *msg = NULL;

    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_msg(sqlite3_exec(db, stmt, NULL, NULL, &msg) == SQLITE_OK, "%s: %s", stmt, msg);
    sqlite3_close(db);
}

START_TEST(reopen_keeps_data_and_indexes)
{
    struct kytos_error e = {0};
    struct json_object *d = json_tokener_parse("{\"flow_id\": \"x\", \"cookie\": 18446744073709551615}");
    struct json_object *keys = json_tokener_parse("{\"flow_id\": 1}");
    struct json_object *o = NULL;
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_index(s, "flows", "flow_id", keys, KYTOS_STORE_UNIQUE, &e), 0);
    ck_assert_int_eq(kh_store_put(s, "flows", "a", d, &e), 0);
    kh_store_close(s);
    s = open_dir(dir, "full", &e);
    ck_assert_msg(s != NULL, "%s", e.message);
    ck_assert_int_eq(kh_store_get(s, "flows", "a", &o, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN),
                     "{\"_id\":\"a\",\"flow_id\":\"x\",\"cookie\":18446744073709551615}");
    json_object_put(o);
    /* the unique index is still enforced */
    ck_assert_int_eq(kh_store_put(s, "flows", "b", d, &e), KYTOS_EEXIST);
    ck_assert_int_eq(kh_store_index(s, "flows", "flow_id", keys, KYTOS_STORE_UNIQUE, &e), 0);
    json_object_put(d);
    json_object_put(keys);
    close_disk(s);
}
END_TEST

static int64_t status_num(kh_store *s, const char *key)
{
    struct json_object *st = kh_store_status(s), *v = NULL;
    int64_t n = json_object_object_get_ex(st, key, &v) ? json_object_get_int64(v) : -1;
    json_object_put(st);
    return n;
}

/* status' per-collection counter key[coll], or -1 */
static int64_t coll_counter(kh_store *s, const char *key, const char *coll)
{
    struct json_object *st = kh_store_status(s), *per = NULL, *v = NULL;
    int64_t n = json_object_object_get_ex(st, key, &per) && json_object_object_get_ex(per, coll, &v)
                    ? json_object_get_int64(v)
                    : -1;
    json_object_put(st);
    return n;
}

/* full_scans[coll]: finds and counts whose filter no index (nor _id) serves */
static int64_t full_scans(kh_store *s, const char *coll)
{
    return coll_counter(s, "full_scans", coll);
}

/* match_parses[coll]: documents parsed to be matched in C */
static int64_t match_parses(kh_store *s, const char *coll)
{
    return coll_counter(s, "match_parses", coll);
}

static int64_t find_n(kh_store *s, const char *coll, const char *filter)
{
    struct json_object *f = json_tokener_parse(filter), *d;
    struct kytos_error e = {0};
    kytos_cursor *c = NULL;
    int64_t n = 0;

    ck_assert_int_eq(kh_store_find(s, coll, &(struct kytos_find){.struct_size = sizeof(struct kytos_find),
                                                                 .filter = f},
                                   &c, &e),
                     0);
    while (kh_cursor_next(c, &d, &e) == 1) {
        json_object_put(d);
        n++;
    }
    kh_cursor_free(c);
    json_object_put(f);
    return n;
}

/* ---- key columns (store_sqlite_keycol.c) ---- */

/* The first column of every row of stmt on the file, joined by '|'. */
static char *sql_rows(const char *path, const char *stmt, int col)
{
    sqlite3 *db;
    sqlite3_stmt *st;
    size_t len = 0;
    char *out = calloc(1, 1);

    ck_assert_int_eq(sqlite3_open(path, &db), SQLITE_OK);
    ck_assert_msg(sqlite3_prepare_v2(db, stmt, -1, &st, NULL) == SQLITE_OK, "%s: %s", stmt, sqlite3_errmsg(db));
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *t = (const char *)sqlite3_column_text(st, col);
        size_t n = t ? strlen(t) : 4;
        out = realloc(out, len + n + 2);
        ck_assert_ptr_nonnull(out);
        len += (size_t)snprintf(out + len, n + 2, "%s%s", len ? "|" : "", t ? t : "NULL");
    }
    sqlite3_finalize(st);
    sqlite3_close(db);
    return out;
}

static void put_ok(kh_store *s, const char *coll, const char *id, const char *doc)
{
    struct kytos_error e = {0};
    struct json_object *d = json_tokener_parse(doc);

    ck_assert_ptr_nonnull(d);
    ck_assert_msg(kh_store_put(s, coll, id, d, &e) == 0, "%s", e.message);
    json_object_put(d);
}

static int patch_json(kh_store *s, const char *coll, const char *id, const char *upd, unsigned flags,
                      struct kytos_error *e)
{
    struct json_object *u = json_tokener_parse(upd);
    int rc;

    ck_assert_ptr_nonnull(u);
    rc = kh_store_patch(s, coll, id, u, flags, NULL, e);
    json_object_put(u);
    return rc;
}

static void index_json(kh_store *s, const char *coll, const char *name, const char *keys, unsigned flags)
{
    struct kytos_error e = {0};
    struct json_object *k = json_tokener_parse(keys);

    ck_assert_msg(kh_store_index(s, coll, name, k, flags, &e) == 0, "%s", e.message);
    json_object_put(k);
}

static void check_str(char *got, const char *want)
{
    ck_assert_str_eq(got, want);
    free(got);
}

/* flow_manager's indexes and a unique one; f1, f2 pending */
static kh_store *flows_with_indexes(char *path, size_t len)
{
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    snprintf(path, len, "%s/store.db", dir);
    index_json(s, "flows", "switch", "{\"switch\": 1}", 0);
    index_json(s, "flows", "cookie_switch", "{\"flow.cookie\": 1, \"switch\": 1}", 0);
    index_json(s, "flows", "state_switch", "{\"state\": 1, \"switch\": 1}", 0);
    index_json(s, "flows", "fid", "{\"flow_id\": 1}", KYTOS_STORE_UNIQUE);
    put_ok(s, "flows", "f1", "{\"switch\": \"s1\", \"state\": \"pending\", \"flow_id\": \"a\", \"flow\": {\"cookie\": 5}}");
    put_ok(s, "flows", "f2", "{\"switch\": \"s2\", \"state\": \"pending\", \"flow_id\": \"b\", \"flow\": {\"cookie\": 6}}");
    return s;
}

/* Every kind of write keeps the key columns the indexes are over: a patch
 * sets those its paths reach (the key itself, a parent object, $unset),
 * and leaves the others as they were; the finds that use the indexes see
 * it, and SQLite does use them. */
START_TEST(writes_keep_key_columns)
{
    struct kytos_error e = {0};
    char path[300];
    kh_store *s = flows_with_indexes(path, sizeof path);

    check_str(sql_rows(path, "SELECT \"x:switch\" || ',' || \"x:state\" || ',' || \"x:flow.cookie\" || ','"
                             " || \"u:flow_id\" FROM \"c:flows\" ORDER BY id", 0),
              "s1,pending,5,\"a\"|s2,pending,6,\"b\"");
    ck_assert_int_eq(patch_json(s, "flows", "f1", "{\"$set\": {\"state\": \"installed\"}}", 0, &e), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": \"installed\"}"), 1);
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": \"pending\", \"switch\": \"s2\"}"), 1);
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": \"pending\", \"switch\": \"s1\"}"), 0);
    /* a parent object of a key, then the key itself */
    ck_assert_int_eq(patch_json(s, "flows", "f1", "{\"$set\": {\"flow\": {\"cookie\": 7}}}", 0, &e), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"flow.cookie\": 5}"), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"flow.cookie\": 7, \"switch\": \"s1\"}"), 1);
    ck_assert_int_eq(patch_json(s, "flows", "f1", "{\"$set\": {\"flow.cookie\": 8}}", 0, &e), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"flow.cookie\": 8}"), 1);
    ck_assert_int_eq(find_n(s, "flows", "{\"flow.cookie\": 7}"), 0);
    ck_assert_int_eq(patch_json(s, "flows", "f1", "{\"$unset\": {\"switch\": 1}}", 0, &e), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s1\"}"), 0);
    check_str(sql_rows(path, "SELECT ifnull(\"x:switch\", 'null') || ',' || \"x:state\" || ',' ||"
                             " \"x:flow.cookie\" FROM \"c:flows\" WHERE id='f1'", 0),
              "null,installed,8");
    /* the unique index over its column */
    ck_assert_int_eq(patch_json(s, "flows", "f2", "{\"$set\": {\"flow_id\": \"a\"}}", 0, &e), KYTOS_EEXIST);
    ck_assert_msg(strstr(e.message, "flow_id") != NULL, "%s", e.message);
    /* an upsert that inserts, a put that replaces */
    ck_assert_int_eq(patch_json(s, "flows", "f3", "{\"$set\": {\"switch\": \"s3\", \"state\": \"pending\", \"flow_id\": \"c\"}}",
                                KYTOS_STORE_UPSERT, &e), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s3\", \"state\": \"pending\"}"), 1);
    put_ok(s, "flows", "f3", "{\"switch\": \"s4\", \"state\": \"installed\", \"flow_id\": \"c\"}");
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s3\"}"), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s4\", \"state\": \"installed\"}"), 1);
    ck_assert_int_eq(full_scans(s, "flows"), 0);
    /* what the finds ask SQLite goes through the indexes */
    {
        char *plan = sql_rows(path, "EXPLAIN QUERY PLAN SELECT doc FROM \"c:flows\" WHERE \"x:switch\"='s4'", 3);
        ck_assert_msg(strstr(plan, "INDEX i:flows:switch") != NULL, "%s", plan);
        free(plan);
        plan = sql_rows(path, "EXPLAIN QUERY PLAN SELECT doc FROM \"c:flows\" WHERE \"x:state\"='pending'"
                              " AND \"x:switch\"='s2'", 3);
        ck_assert_msg(strstr(plan, "INDEX i:flows:state_switch") != NULL, "%s", plan);
        free(plan);
    }
    close_disk(s);
}
END_TEST

/* Paths that differ only in case get columns of their own (SQLite's names
 * ignore case). */
START_TEST(key_columns_keep_case)
{
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    index_json(s, "c", "upper", "{\"A\": 1}", 0);
    index_json(s, "c", "lower", "{\"a\": 1}", 0);
    index_json(s, "c", "caret", "{\"^a\": 1}", 0);
    put_ok(s, "c", "d", "{\"A\": 1, \"a\": 2, \"^a\": 3}");
    ck_assert_int_eq(find_n(s, "c", "{\"A\": 1}"), 1);
    ck_assert_int_eq(find_n(s, "c", "{\"a\": 2}"), 1);
    ck_assert_int_eq(find_n(s, "c", "{\"^a\": 3}"), 1);
    ck_assert_int_eq(find_n(s, "c", "{\"a\": 1}"), 0);
    ck_assert_int_eq(find_n(s, "c", "{\"A\": 2}"), 0);
    ck_assert_int_eq(full_scans(s, "c"), 0);
    close_disk(s);
}
END_TEST

/* A file of schema 1 (kytosd before key columns: indexes over
 * json_extract(doc, ...)) is migrated when opened: its key columns added
 * and filled, its indexes made again over them, the documents kept. */
START_TEST(schema_1_file_migrated)
{
    struct kytos_error e = {0};
    char path[300];
    kh_store *s = flows_with_indexes(path, sizeof path);

    kh_store_close(s);
    /* what schema 1 left */
    sql(path, "DROP INDEX \"i:flows:switch\"; DROP INDEX \"i:flows:cookie_switch\";"
              "DROP INDEX \"i:flows:state_switch\"; DROP INDEX \"i:flows:fid\";"
              "ALTER TABLE \"c:flows\" DROP COLUMN \"x:switch\";"
              "ALTER TABLE \"c:flows\" DROP COLUMN \"x:flow.cookie\";"
              "ALTER TABLE \"c:flows\" DROP COLUMN \"x:state\";"
              "ALTER TABLE \"c:flows\" DROP COLUMN \"u:flow_id\";"
              "CREATE INDEX \"i:flows:switch\" ON \"c:flows\"(json_extract(doc,'$.\"switch\"'));"
              "CREATE INDEX \"i:flows:cookie_switch\" ON \"c:flows\"(json_extract(doc,'$.\"flow\".\"cookie\"'),"
              " json_extract(doc,'$.\"switch\"'));"
              "CREATE INDEX \"i:flows:state_switch\" ON \"c:flows\"(json_extract(doc,'$.\"state\"'),"
              " json_extract(doc,'$.\"switch\"'));"
              "CREATE UNIQUE INDEX \"i:flows:fid\" ON \"c:flows\"(ifnull(doc -> '$.\"flow_id\"','null'));"
              "PRAGMA user_version=1");
    check_str(sql_rows(path, "SELECT count(*) FROM pragma_table_info('c:flows')", 0), "2");
    s = open_dir(dir, NULL, &e);
    ck_assert_msg(s != NULL, "%s", e.message);
    check_str(sql_rows(path, "PRAGMA user_version", 0), "2");
    check_str(sql_rows(path, "SELECT sql FROM sqlite_schema WHERE name='i:flows:state_switch'", 0),
              "CREATE INDEX \"i:flows:state_switch\" ON \"c:flows\"(\"x:state\",\"x:switch\")");
    check_str(sql_rows(path, "SELECT \"x:switch\" || ',' || \"x:state\" || ',' || \"x:flow.cookie\" || ','"
                             " || \"u:flow_id\" FROM \"c:flows\" ORDER BY id", 0),
              "s1,pending,5,\"a\"|s2,pending,6,\"b\"");
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s1\", \"state\": \"pending\"}"), 1);
    ck_assert_int_eq(patch_json(s, "flows", "f1", "{\"$set\": {\"state\": \"installed\"}}", 0, &e), 0);
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": \"installed\", \"switch\": \"s1\"}"), 1);
    ck_assert_int_eq(find_n(s, "flows", "{\"flow.cookie\": 6}"), 1);
    ck_assert_int_eq(patch_json(s, "flows", "f2", "{\"$set\": {\"flow_id\": \"a\"}}", 0, &e), KYTOS_EEXIST);
    ck_assert_int_eq(full_scans(s, "flows"), 0);
    /* opened again: nothing more to do */
    kh_store_close(s);
    s = open_dir(dir, NULL, &e);
    ck_assert_msg(s != NULL, "%s", e.message);
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": \"installed\"}"), 1);
    close_disk(s);
}
END_TEST

START_TEST(full_scans_counted)
{
    struct kytos_error e = {0};
    struct json_object *keys = json_tokener_parse("{\"switch\": 1}");
    kh_store *s = open_disk();
    int64_t cnt = 0;

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_index(s, "flows", "switch", keys, 0, &e), 0);
    for (int i = 0; i < 6; i++) {
        char id[8], doc[96];
        snprintf(id, sizeof(id), "f%d", i);
        snprintf(doc, sizeof(doc), "{\"switch\": \"s%d\", \"state\": \"%s\"}", i % 2,
                 i % 3 ? "installed" : "pending");
        struct json_object *d = json_tokener_parse(doc);
        ck_assert_int_eq(kh_store_put(s, "flows", id, d, &e), 0);
        json_object_put(d);
    }
    ck_assert_int_eq(full_scans(s, "flows"), 0);
    /* served by an index, by _id, or a listing without a filter: none */
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s0\", \"state\": \"pending\"}"), 1);
    ck_assert_int_eq(find_n(s, "flows", "{\"_id\": {\"$in\": [\"f1\", \"f2\"]}}"), 2);
    ck_assert_int_eq(find_n(s, "flows", "{}"), 6);
    ck_assert_int_eq(full_scans(s, "flows"), 0);
    /* a field without an index: one each, finds and counts alike */
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": \"pending\"}"), 2);
    ck_assert_int_eq(full_scans(s, "flows"), 1);
    json_object_put(keys);
    keys = json_tokener_parse("{\"state\": \"installed\"}");
    ck_assert_int_eq(kh_store_count(s, "flows", keys, &cnt, &e), 0);
    ck_assert_int_eq(cnt, 4);
    ck_assert_int_eq(full_scans(s, "flows"), 2);
    json_object_put(keys);
    close_disk(s);
}
END_TEST

/* {"state": {"$ne": "deleted"}} on an indexed key: the rows whose key
 * column is exactly "deleted" are dropped by SQL, unparsed; every other
 * row still goes through kh_match(), so the answer is MongoDB's: a missing
 * state matches, a state that is an array holding "deleted" does not, a
 * number or another string matches. */
START_TEST(ne_on_a_key_column_skips_its_rows)
{
    static const char *const docs[][2] = {
        {"d1", "{\"switch\": \"s1\", \"state\": \"deleted\"}"},
        {"d2", "{\"switch\": \"s1\", \"state\": \"deleted\"}"},
        {"d3", "{\"switch\": \"s1\", \"state\": \"deleted\"}"},
        {"p1", "{\"switch\": \"s1\", \"state\": \"pending\"}"},
        {"i1", "{\"switch\": \"s1\", \"state\": \"installed\"}"},
        {"m1", "{\"switch\": \"s1\"}"},
        {"a1", "{\"switch\": \"s1\", \"state\": [\"deleted\"]}"},
        {"a2", "{\"switch\": \"s1\", \"state\": [\"installed\"]}"},
        {"n1", "{\"switch\": \"s1\", \"state\": 7}"},
        {"c1", "{\"switch\": \"s1\", \"state\": \"Deleted\"}"},
        {"o1", "{\"switch\": \"s2\", \"state\": \"deleted\"}"},
    };
    struct kytos_error e = {0};
    struct json_object *keys = json_tokener_parse("{\"state\": 1, \"switch\": 1}"), *f;
    kh_store *s = open_disk();
    int64_t before, cnt = 0;

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_index(s, "flows", "state_switch", keys, 0, &e), 0);
    json_object_put(keys);
    keys = json_tokener_parse("{\"switch\": 1}");
    ck_assert_int_eq(kh_store_index(s, "flows", "switch", keys, 0, &e), 0);
    json_object_put(keys);
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        struct json_object *d = json_tokener_parse(docs[i][1]);
        ck_assert_int_eq(kh_store_put(s, "flows", docs[i][0], d, &e), 0);
        json_object_put(d);
    }
    /* s1's 10 documents: all but the 3 deleted and the array holding it */
    before = match_parses(s, "flows");
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s1\", \"state\": {\"$ne\": \"deleted\"}}"), 6);
    ck_assert_int_eq(match_parses(s, "flows") - before, 7);   /* the 3 deleted ones were not parsed */
    f = json_tokener_parse("{\"switch\": \"s1\", \"state\": {\"$ne\": \"deleted\"}}");
    before = match_parses(s, "flows");
    ck_assert_int_eq(kh_store_count(s, "flows", f, &cnt, &e), 0);
    ck_assert_int_eq(cnt, 6);
    ck_assert_int_eq(match_parses(s, "flows") - before, 7);
    json_object_put(f);
    /* over the whole collection (switch served the first; here nothing
     * narrows by index: a full scan, still without the deleted ones) */
    before = match_parses(s, "flows");
    ck_assert_int_eq(find_n(s, "flows", "{\"state\": {\"$ne\": \"deleted\"}}"), 6);
    ck_assert_int_eq(match_parses(s, "flows") - before, 7);
    /* another value, and $ne of a number (not pushed: every row parsed) */
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s1\", \"state\": {\"$ne\": \"installed\"}}"), 8);
    before = match_parses(s, "flows");
    ck_assert_int_eq(find_n(s, "flows", "{\"switch\": \"s1\", \"state\": {\"$ne\": 7}}"), 9);
    ck_assert_int_eq(match_parses(s, "flows") - before, 10);
    close_disk(s);
}
END_TEST

/* The WAL as it stands, read from its file without touching it: the
 * salts of its header, which change when it starts over, and its frames
 * (the ones from the start whose salts are the header's, as SQLite's own
 * recovery counts them; a WAL that started over keeps the old frames
 * after its new ones). */
static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static void wal_state(const char *path, uint32_t *frames, uint64_t *salts)
{
    unsigned char hdr[32], fh[24];
    char p[320];
    uint32_t page;
    FILE *f;

    snprintf(p, sizeof p, "%s-wal", path);
    ck_assert_ptr_nonnull(f = fopen(p, "rb"));
    ck_assert_int_eq(fread(hdr, sizeof hdr, 1, f), 1);
    page = be32(hdr + 8);
    ck_assert_msg(page >= 512 && page <= 65536, "WAL page size %u", page);
    memcpy(salts, hdr + 16, 8);
    for (*frames = 0;; (*frames)++) {
        if (fseek(f, 32 + (long)*frames * (24 + (long)page), SEEK_SET) != 0 || fread(fh, sizeof fh, 1, f) != 1 ||
            memcmp(fh + 8, hdr + 16, 8) != 0)
            break;
    }
    fclose(f);
}

/* After a checkpoint that copied the whole WAL, the checkpointer makes the
 * commit that starts the WAL over (and fsyncs its header) itself, so no
 * write of the store's pays for it; idle, it does nothing at all. */
START_TEST(checkpointer_restarts_wal)
{
    struct kytos_error e = {0};
    kh_store *s = open_disk();
    char path[300], id[16];
    struct json_object *o = NULL, *doc = json_tokener_parse("{\"v\": 1}");
    int64_t restarts = 0, ckpts;
    uint32_t frames = 0, frames2;
    uint64_t salts = 0, salts0, salts2;
    int k;

    ck_assert_ptr_nonnull(s);
    snprintf(path, sizeof path, "%s/store.db", dir);
    for (k = 0; k < 20; k++) {
        snprintf(id, sizeof id, "d%d", k);
        ck_assert_int_eq(kh_store_put(s, "c", id, doc, &e), 0);
    }
    wal_state(path, &frames, &salts0);
    /* the checkpointer runs every 2 s: await the WAL started over by its
     * own commit, one frame (10 s at most) */
    for (k = 0; k < 200; k++) {
        restarts = status_num(s, "wal_restarts");
        wal_state(path, &frames, &salts);
        if (restarts >= 1 && frames == 1)
            break;
        usleep(50 * 1000);
    }
    ck_assert_int_ge(restarts, 1);
    ck_assert_int_eq(frames, 1);
    ck_assert_msg(salts != salts0, "the WAL started over");
    ck_assert_int_eq(kh_store_get(s, "c", "d19", &o, &e), 0);
    json_object_put(o);
    /* idle: no checkpoint and no restart for two of its periods */
    ckpts = status_num(s, "checkpoints");
    usleep(4500 * 1000);
    ck_assert_int_eq(status_num(s, "wal_restarts"), restarts);
    ck_assert_int_eq(status_num(s, "checkpoints"), ckpts);
    /* the next write goes after that frame, in the same WAL: it started
     * over already, so this write did not (nor fsync its header) */
    ck_assert_int_eq(kh_store_put(s, "c", "after", doc, &e), 0);
    json_object_put(doc);
    wal_state(path, &frames2, &salts2);
    ck_assert_int_gt(frames2, 1);
    ck_assert_msg(salts2 == salts, "the write appended to the restarted WAL");
    kh_store_close(s);
    s = open_dir(dir, NULL, &e);
    ck_assert_msg(s != NULL, "%s", e.message);
    ck_assert_int_eq(kh_store_get(s, "c", "after", &o, &e), 0);
    json_object_put(o);
    ck_assert_int_eq(kh_store_get(s, "c", "d0", &o, &e), 0);
    json_object_put(o);
    close_disk(s);
}
END_TEST

/* kh_store_put of a document given as JSON text: its return code */
static int put_json(kh_store *s, const char *coll, const char *id, const char *text)
{
    struct kytos_error e = {0};
    struct json_object *d = json_tokener_parse(text);
    int rc = kh_store_put(s, coll, id, d, &e);

    json_object_put(d);
    return rc;
}

/* count(*) of "c:c" and json_extract(doc, '$.k') of id, read by a new
 * connection through SQLite's own VFS */
static void read_back(const char *id, int *count, int *k)
{
    char path[300];
    sqlite3 *db;
    sqlite3_stmt *st;

    snprintf(path, sizeof path, "%s/store.db", dir);
    ck_assert_int_eq(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT count(*) FROM \"c:c\"", -1, &st, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(st), SQLITE_ROW);
    *count = sqlite3_column_int(st, 0);
    sqlite3_finalize(st);
    ck_assert_int_eq(sqlite3_prepare_v2(db, "SELECT json_extract(doc, '$.k') FROM \"c:c\" WHERE id=?1",
                                        -1, &st, NULL), SQLITE_OK);
    sqlite3_bind_text(st, 1, id, -1, SQLITE_STATIC);
    *k = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int(st, 0) : -1;
    sqlite3_finalize(st);
    sqlite3_close(db);
}

/* store_sqlite_walbuf.c: SQLite writes a WAL frame as two writes (header,
 * page); the shim hands a transaction's frames to the kernel in a few
 * writes, all of them before the commit returns. */
START_TEST(wal_frames_written_at_once_per_commit)
{
    struct kytos_error e = {0};
    kh_store *s = open_disk();
    struct kytos_write ops[300];
    char ids[300][8], big[3000];
    uint64_t w0, f0, w1, f1;
    int k, count, v;

    ck_assert_ptr_nonnull(s);
    ck_assert_str_eq(sq_walbuf_vfs(), "kh-walbuf");
    ck_assert_int_eq(put_json(s, "c", "first", "{\"k\": 0}"), 0);
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    for (k = 0; k < 300; k++) {
        struct json_object *d = json_object_new_object();
        json_object_object_add(d, "pad", json_object_new_string(big));
        json_object_object_add(d, "k", json_object_new_int(k));
        snprintf(ids[k], sizeof ids[k], "b%d", k);
        ops[k] = (struct kytos_write){.op = KYTOS_WRITE_PUT, .id = ids[k], .doc = d};
    }
    sq_walbuf_stats(&w0, &f0);
    ck_assert_int_eq(kh_store_bulk(s, "c", ops, 300, &e), 0);
    sq_walbuf_stats(&w1, &f1);
    for (k = 0; k < 300; k++)
        json_object_put(ops[k].doc);
    /* a page per document at least, two writes each; about 1.3 MB of
     * frames: one write-out when the 1 MiB buffer is full, one at commit */
    ck_assert_uint_ge(w1 - w0, 600);
    ck_assert_uint_ge(f1 - f0, 1);
    ck_assert_uint_le(f1 - f0, 3);
    /* all of it is in the file for any connection as soon as it returned */
    read_back("b299", &count, &v);
    ck_assert_int_eq(count, 301);
    ck_assert_int_eq(v, 299);
    /* a single small write: its frames in one write-out */
    ck_assert_int_eq(put_json(s, "c", "b299", "{\"k\": 1299}"), 0);
    sq_walbuf_stats(&w0, &f0);
    ck_assert_uint_eq(f0 - f1, 1);
    ck_assert_uint_ge(w0 - w1, 2);
    read_back("b299", &count, &v);
    ck_assert_int_eq(v, 1299);
    close_disk(s);
}
END_TEST

/* A write-out that fails fails the commit whose frames it held, as a
 * failed write of SQLite's own would: nothing of it is seen, before or
 * after a restart, and the store goes on. */
START_TEST(failed_wal_write_fails_the_commit)
{
    struct kytos_error e = {0};
    struct json_object *o = NULL;
    kh_store *s = open_disk();
    int count, v;

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(put_json(s, "c", "a", "{\"k\": 1}"), 0);
    sq_walbuf_fail_writes(1);
    ck_assert_int_lt(put_json(s, "c", "b", "{\"k\": 2}"), 0);
    sq_walbuf_fail_writes(0);
    ck_assert_int_eq(kh_store_get(s, "c", "b", &o, &e), KYTOS_ENOTFOUND);
    read_back("b", &count, &v);
    ck_assert_int_eq(count, 1);
    ck_assert_int_eq(v, -1);
    ck_assert_int_eq(put_json(s, "c", "c", "{\"k\": 3}"), 0);
    ck_assert_int_eq(kh_store_get(s, "c", "c", &o, &e), 0);
    json_object_put(o);
    kh_store_close(s);
    s = open_dir(dir, NULL, &e);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_get(s, "c", "a", &o, &e), 0);
    json_object_put(o);
    ck_assert_int_eq(kh_store_get(s, "c", "b", &o, &e), KYTOS_ENOTFOUND);
    ck_assert_int_eq(kh_store_get(s, "c", "c", &o, &e), 0);
    json_object_put(o);
    close_disk(s);
}
END_TEST

/* The checkpointer is woken when the WAL has grown SQ_CKPT_PAGES frames
 * since it was last woken, not after every commit once the WAL is that
 * long: during a burst the WAL does not start over, and checkpoints after
 * every commit wrote the pages that each commit changes (an index on
 * random ids) to the database once per commit.  A reader holding its
 * snapshot keeps the WAL from starting over, as a burst does. */
static void async_done(void *ud, int rc, const struct kytos_error *err)
{
    (void)err;
    atomic_store((_Atomic int *)ud, rc == 0 ? 1 : -1);
}

/* The field's value in coll/id, as JSON text ("" when missing). */
static const char *field_text(kh_store *s, const char *coll, const char *id, const char *path,
                              char *out, size_t len)
{
    struct kytos_error e = {0};
    struct json_object *o = NULL, *v;
    char key[64];

    out[0] = '\0';
    ck_assert_msg(kh_store_get(s, coll, id, &o, &e) == 0, "%s: %s", id, e.message);
    v = o;
    snprintf(key, sizeof key, "%s", path);
    for (char *seg = strtok(key, "."); seg && v; seg = strtok(NULL, "."))
        v = json_object_object_get(v, seg);
    if (v)
        snprintf(out, len, "%s", json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return out;
}

/* One update given to every op of a bulk (flow_manager's installed and
 * deleted marks) is planned once and applied to each document: also
 * around one that needs the general path (an escaped field name), and
 * not carried over to the next bulk, whose update may sit at the same
 * address. */
START_TEST(bulk_patches_share_one_update)
{
    struct kytos_error e = {0};
    kh_store *s = open_disk();
    struct kytos_write ops[12];
    char ids[12][8], buf[128];
    _Atomic int done = 0;
    int k;

    ck_assert_ptr_nonnull(s);
    for (k = 0; k < 12; k++) {
        char doc[128];
        snprintf(ids[k], sizeof ids[k], "f%d", k);
        snprintf(doc, sizeof doc, k == 5 ? "{\"a\": {\"b\": 1}, \"q\\\"x\": %d, \"v\": %d}"
                                         : "{\"a\": {\"b\": 1}, \"v\": %d, \"w\": %d}", k, k);
        ck_assert_int_eq(put_json(s, "c", ids[k], doc), 0);
    }
    for (int round = 0; round < 2; round++) {
        struct json_object *upd = json_tokener_parse(
            round ? "{\"$set\": {\"s\": \"deleted\"}}"
                  : "{\"$set\": {\"a.b\": 5, \"s\": \"installed\"}}");
        for (k = 0; k < 12; k++)
            ops[k] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = ids[k],
                                          .doc = k ? json_object_get(upd) : upd};
        if (round == 0) {   /* the caller's thread commits */
            ck_assert_msg(kh_store_bulk(s, "c", ops, 12, &e) == 0, "%s", e.message);
            for (k = 0; k < 12; k++)
                json_object_put(ops[k].doc);
        } else {            /* the writer's queue; it takes the references */
            ck_assert_int_eq(kh_store_bulk_async(s, "c", ops, 12, async_done, (void *)&done, &e), 0);
            for (k = 0; k < 500 && !atomic_load(&done); k++)
                usleep(10 * 1000);
            ck_assert_int_eq(atomic_load(&done), 1);
        }
        for (k = 0; k < 12; k++) {
            char want[16];
            ck_assert_str_eq(field_text(s, "c", ids[k], "a.b", buf, sizeof buf), "5");
            ck_assert_str_eq(field_text(s, "c", ids[k], "s", buf, sizeof buf),
                             round ? "\"deleted\"" : "\"installed\"");
            snprintf(want, sizeof want, "%d", k);
            ck_assert_str_eq(field_text(s, "c", ids[k], "v", buf, sizeof buf), want);
        }
    }
    ck_assert_str_eq(field_text(s, "c", "f5", "q\"x", buf, sizeof buf), "5");
    close_disk(s);
}
END_TEST

/* A bulk queued as flow_manager queues its adds: puts and upserts, each
 * written to text by the thread that queues it (kh_store_sqlite_bulk_prepare)
 * and applied by the writer from that text; an update too long to plan
 * takes the writer's own way, as before. */
static void queue_and_wait(kh_store *s, struct kytos_write *ops, size_t n, int want)
{
    struct kytos_error e = {0};
    _Atomic int done = 0;

    ck_assert_msg(kh_store_bulk_async(s, "c", ops, n, async_done, (void *)&done, &e) == 0, "%s",
                  e.message);
    for (int k = 0; k < 500 && !atomic_load(&done); k++)
        usleep(10 * 1000);
    ck_assert_int_eq(atomic_load(&done), want);
}

START_TEST(queued_upserts_written_by_their_thread)
{
    kh_store *s = open_disk();
    struct kytos_write ops[8];
    struct json_object *many = json_object_new_object(), *set = json_object_new_object();
    char buf[256];
    int n = 0;

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(put_json(s, "c", "e2", "{\"s\": \"old\", \"keep\": 1, \"at\": \"t0\"}"), 0);
    ck_assert_int_eq(put_json(s, "c", "e3", "{\"f0\": -1}"), 0);
    for (int f = 0; f < KH_PLAN_MAX_FIELDS + 1; f++) {
        char key[8];
        snprintf(key, sizeof key, "f%d", f);
        json_object_object_add(set, key, json_object_new_int(f));
    }
    json_object_object_add(many, "$set", set);
#define OP(kind, id_, text, fl) \
    ops[n++] = (struct kytos_write){.op = (kind), .id = (id_), .doc = json_tokener_parse(text), .flags = (fl)}
    OP(KYTOS_WRITE_PUT, "p0", "{\"x\": 1}", 0);
    OP(KYTOS_WRITE_PATCH, "u1",
       "{\"$set\": {\"s\": \"pending\", \"flow\": {\"m\": [1, 2]}}, \"$setOnInsert\": {\"at\": \"t1\"}}",
       KYTOS_STORE_UPSERT);
    OP(KYTOS_WRITE_PATCH, "e2",
       "{\"$set\": {\"s\": \"pending\", \"flow\": {\"m\": 3}}, \"$setOnInsert\": {\"at\": \"t2\"}}",
       KYTOS_STORE_UPSERT);
    ops[n++] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = "e3", .doc = many};
    OP(KYTOS_WRITE_PATCH, "e2", "{\"$set\": {\"n\": \"\\u00e9\"}, \"$unset\": {\"keep\": 1}}", 0);
    OP(KYTOS_WRITE_PUT, "p5", "{\"y\": [1, {\"z\": \"\\u00e9\"}]}", 0);
#undef OP
    queue_and_wait(s, ops, (size_t)n, 1);
    ck_assert_str_eq(field_text(s, "c", "p0", "x", buf, sizeof buf), "1");
    ck_assert_str_eq(field_text(s, "c", "u1", "flow", buf, sizeof buf), "{\"m\":[1,2]}");
    ck_assert_str_eq(field_text(s, "c", "u1", "at", buf, sizeof buf), "\"t1\"");
    ck_assert_str_eq(field_text(s, "c", "e2", "s", buf, sizeof buf), "\"pending\"");
    ck_assert_str_eq(field_text(s, "c", "e2", "flow.m", buf, sizeof buf), "3");
    ck_assert_str_eq(field_text(s, "c", "e2", "at", buf, sizeof buf), "\"t0\"");
    ck_assert_str_eq(field_text(s, "c", "e2", "n", buf, sizeof buf), "\"\xc3\xa9\"");
    ck_assert_str_eq(field_text(s, "c", "e2", "keep", buf, sizeof buf), "");
    ck_assert_str_eq(field_text(s, "c", "e3", "f0", buf, sizeof buf), "0");
    ck_assert_str_eq(field_text(s, "c", "e3", "f16", buf, sizeof buf), "16");
    ck_assert_str_eq(field_text(s, "c", "p5", "y", buf, sizeof buf), "[1,{\"z\":\"\xc3\xa9\"}]");
    /* an op that fails (a patch of a missing document) fails its bulk,
     * the ops before it too */
    ops[0] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = "p0",
                                  .doc = json_tokener_parse("{\"$set\": {\"x\": 2}}")};
    ops[1] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = "missing",
                                  .doc = json_tokener_parse("{\"$set\": {\"x\": 3}}")};
    queue_and_wait(s, ops, 2, -1);
    ck_assert_str_eq(field_text(s, "c", "p0", "x", buf, sizeof buf), "1");
    close_disk(s);
}
END_TEST

/* The queuing thread writes a bulk's patch values as text and checks them
 * on the way (check_bulk leaves them to it): a value a document may not
 * hold still refuses the whole bulk at once, as check_bulk said it, and
 * nothing is written.  Also an update the plan does not take (too many
 * fields), one shared by two patches, and one after a put the writer has
 * to write itself (its document is not valid). */
START_TEST(queued_patch_values_refused_at_once)
{
    kh_store *s = open_disk();
    struct kytos_error e = {0};
    _Atomic int done = 0;
    char buf[64];
    static const char *const bad[] = {
        "{\"$set\": {\"a\": 1, \"b\": \"\xff\"}}",       /* not UTF-8 */
        "{\"$setOnInsert\": {\"x\": {\"y\": 1e999}}}",    /* Infinity */
    };

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(put_json(s, "c", "k", "{\"v\": 1}"), 0);
    for (int shape = 0; shape < 4; shape++) {
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            struct kytos_write ops[3];
            struct json_object *good = json_tokener_parse("{\"$set\": {\"v\": 2}}");
            struct json_object *upd = json_tokener_parse(bad[b]);
            size_t n = 2, at = 1;
            ck_assert_ptr_nonnull(upd);
            if (shape == 1) {   /* too many fields to plan: the full check */
                struct json_object *set = json_object_object_get(upd, "$set");
                if (!set)
                    set = json_object_object_get(upd, "$setOnInsert");
                for (int f = 0; f < 80; f++) {
                    char key[16];
                    snprintf(key, sizeof key, "f%d", f);
                    json_object_object_add(set, key, json_object_new_int(f));
                }
            }
            ops[0] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = "k", .doc = good};
            ops[1] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = "k", .doc = upd,
                                          .flags = KYTOS_STORE_UPSERT};
            if (shape == 2) {   /* the same update again, after a put */
                ops[0] = (struct kytos_write){.op = KYTOS_WRITE_PUT, .id = "p",
                                              .doc = json_tokener_parse("{\"v\": 3}")};
                json_object_put(good);
                ops[2] = (struct kytos_write){.op = KYTOS_WRITE_PATCH, .id = "k",
                                              .doc = json_object_get(upd)};
                n = 3;
            }
            if (shape == 3) {   /* a put the queuing thread cannot write first */
                struct json_object *d = json_object_new_object();
                json_object_object_add(d, "d", json_object_new_double(1.0 / 0.0));
                ops[0] = (struct kytos_write){.op = KYTOS_WRITE_PUT, .id = "p", .doc = d};
                json_object_put(good);
            }
            ck_assert_int_eq(kh_store_bulk_async(s, "c", ops, n, async_done, (void *)&done, &e),
                             KYTOS_EINVAL);
            snprintf(buf, sizeof buf, "bulk op %zu: ", at);
            ck_assert_msg(strncmp(e.message, buf, strlen(buf)) == 0, "%s", e.message);
            ck_assert_msg(strstr(e.message, b ? "Infinity" : "UTF-8") != NULL, "%s", e.message);
        }
    }
    ck_assert_int_eq(kh_store_async_wait(s, 5000), 0);
    ck_assert_int_eq(atomic_load(&done), 0);   /* no callback: nothing was queued */
    ck_assert_str_eq(field_text(s, "c", "k", "v", buf, sizeof buf), "1");
    {
        struct json_object *o = NULL;
        ck_assert_int_eq(kh_store_get(s, "c", "p", &o, &e), KYTOS_ENOTFOUND);
    }
    close_disk(s);
}
END_TEST

START_TEST(checkpointer_woken_by_wal_growth_not_by_every_commit)
{
    struct kytos_error e = {0};
    kh_store *s = open_disk();
    /* past SQ_CKPT_PAGES frames in one commit (a document is about 2
     * pages and a half): the wake must come from the growth, not from the
     * idle timer (SQ_CKPT_IDLE_MS), which the wait below could also meet */
    enum { NDOC = SQ_CKPT_PAGES / 2 + 200 };
    struct kytos_write *ops = calloc(NDOC, sizeof *ops);
    char path[300], (*ids)[8] = calloc(NDOC, sizeof *ids), *big;
    sqlite3 *reader;
    int64_t c0, c1 = 0;
    int k;

    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(ops);
    ck_assert_ptr_nonnull(ids);
    ck_assert_ptr_nonnull(big = malloc(8200));
    ck_assert_int_eq(put_json(s, "c", "first", "{\"v\": 0}"), 0);
    snprintf(path, sizeof path, "%s/store.db", dir);
    ck_assert_int_eq(sqlite3_open_v2(path, &reader, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(reader, "BEGIN; SELECT count(*) FROM \"c:c\";", NULL, NULL, NULL),
                     SQLITE_OK);
    /* one commit of documents of 8 KB: one wake, well within the idle timer */
    memset(big, 'x', 8199);
    big[8199] = '\0';
    c0 = status_num(s, "checkpoints");
    for (k = 0; k < NDOC; k++) {
        struct json_object *d = json_object_new_object();
        json_object_object_add(d, "pad", json_object_new_string(big));
        snprintf(ids[k], sizeof ids[k], "b%d", k);
        ops[k] = (struct kytos_write){.op = KYTOS_WRITE_PUT, .id = ids[k], .doc = d};
    }
    ck_assert_int_eq(kh_store_bulk(s, "c", ops, NDOC, &e), 0);
    for (k = 0; k < NDOC; k++)
        json_object_put(ops[k].doc);
    free(ops);
    free(ids);
    for (k = 0; k < SQ_CKPT_IDLE_MS / 40 && (c1 = status_num(s, "checkpoints")) == c0; k++)
        usleep(20 * 1000);
    ck_assert_int_gt(c1, c0);
    /* then 40 small commits: no wake (the timer may run once meanwhile) */
    for (k = 0; k < 40; k++) {
        char id[16];
        snprintf(id, sizeof id, "s%d", k);
        ck_assert_int_eq(put_json(s, "c", id, "{\"v\": 1}"), 0);
    }
    for (k = 0; k < 25 && status_num(s, "checkpoints") <= c1 + 1; k++)
        usleep(20 * 1000);
    ck_assert_int_le(status_num(s, "checkpoints"), c1 + 1);
    sqlite3_exec(reader, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close(reader);
    free(big);
    close_disk(s);
}
END_TEST

/* A burst of commits from several threads: past
 * store_wal_max_mb (2 MB here) the writer is held for a checkpoint and the
 * WAL starts over, so its file stays a few MB (the checkpointer is woken
 * every 256 pages, half the limit) for about 100 MB written.  Here the checkpointer's
 * idle restart also finds moments between commits; in kytosd creating
 * 2,000 EVCs it found none and the WAL grew to 280 MB, which
 * tests/e2e/test_scale.py checks. */
struct burst {
    kh_store *s;
    const char *big, *path;
    int t;
    off_t most;
};

static void *burst_run(void *arg)
{
    struct burst *b = arg;
    struct kytos_error e = {0};
    struct kytos_write ops[10];
    char ids[10][16];
    struct stat sb;

    for (int k = 0; k < 300; k++) {
        for (int j = 0; j < 10; j++) {
            struct json_object *d = json_object_new_object();
            json_object_object_add(d, "pad", json_object_new_string(b->big));
            snprintf(ids[j], sizeof ids[j], "t%d-%d", b->t, (k * 10 + j) % 300);
            ops[j] = (struct kytos_write){.op = KYTOS_WRITE_PUT, .id = ids[j], .doc = d};
        }
        if (kh_store_bulk(b->s, "c", ops, 10, &e) != 0)
            b->most = -1;
        for (int j = 0; j < 10; j++)
            json_object_put(ops[j].doc);
        if (b->most >= 0 && stat(b->path, &sb) == 0 && sb.st_size > b->most)
            b->most = sb.st_size;
    }
    return NULL;
}

START_TEST(burst_of_commits_keeps_the_wal_bounded)
{
    struct kh_store_opts o = {.wal_max_mb = 2};
    struct kytos_error e = {0};
    struct burst b[4];
    pthread_t th[4];
    char path[300], *big;
    off_t most = 0;
    kh_store *s = NULL;
    int k;

    snprintf(dir, sizeof(dir), "%s/kh-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    o.data_dir = dir;
    ck_assert_int_eq(kh_store_open(&s, &o, &e), 0);
    snprintf(path, sizeof path, "%s/store.db-wal", dir);
    ck_assert_ptr_nonnull(big = malloc(8200));
    memset(big, 'x', 8199);
    big[8199] = '\0';
    /* A hold happens when a checkpoint finds the WAL past the limit and a
     * commit came meanwhile.  On a loaded machine (distcheck beside other
     * suites) a whole burst's checkpoints once each found a quiet moment
     * and started the WAL over without one: another burst, a few at most. */
    for (int round = 0; round < 5 && (round == 0 || status_num(s, "wal_restarts_held") < 1); round++) {
        for (k = 0; k < 4; k++) {
            b[k] = (struct burst){.s = s, .big = big, .path = path, .t = k};
            ck_assert_int_eq(pthread_create(&th[k], NULL, burst_run, &b[k]), 0);
        }
        for (k = 0; k < 4; k++) {
            pthread_join(th[k], NULL);
            ck_assert_int_ge(b[k].most, 0);
            if (b[k].most > most)
                most = b[k].most;
        }
        ck_assert_msg(most <= 16 << 20, "the WAL grew to %lld bytes", (long long)most);
    }
    ck_assert_int_ge(status_num(s, "wal_restarts_held"), 1);
    free(big);
    close_disk(s);
}
END_TEST

/* This program with --open-store dir in a fresh process (a fork would
 * share SQLite's idea of its locks): its wait status. */
static int open_elsewhere(void)
{
    int status = -1;
    pid_t pid;

    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        execl("/proc/self/exe", "check_store_sqlite", "--open-store", dir, (char *)NULL);
        _exit(99);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* The store's file is this process's while it is open: another process
 * (a second kytosd on the same data directory) is refused at once, with a
 * message that says why, and takes it once the first has closed it. */
START_TEST(file_is_this_process)
{
    struct kytos_error e = {0};
    kh_store *s = open_disk();
    int status;
    struct json_object *d = json_tokener_parse("{}");

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_put(s, "c", "a", d, &e), 0);
    json_object_put(d);
    status = open_elsewhere();
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "another process: %d", status);
    kh_store_close(s);
    status = open_elsewhere();
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "closed, it opens elsewhere: %d", status);
    rm_dir();
}
END_TEST

START_TEST(newer_schema_refused)
{
    struct kytos_error e = {0};
    char path[300];
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    kh_store_close(s);
    snprintf(path, sizeof(path), "%s/store.db", dir);
    sql(path, "PRAGMA user_version=99");
    ck_assert_ptr_null(open_dir(dir, NULL, &e));
    ck_assert_int_eq(e.code, KYTOS_EUNAVAIL);
    ck_assert_msg(strstr(e.message, "schema version 99") != NULL, "%s", e.message);
    rm_dir();
}
END_TEST

START_TEST(corrupt_rows_are_errors)
{
    struct kytos_error e = {0};
    struct json_object *d = json_tokener_parse("{\"a\": 1}"), *o = NULL, *f, *st;
    char path[300];
    kytos_cursor *c = NULL;
    int64_t n;
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_put(s, "c", "good", d, &e), 0);
    ck_assert_int_eq(kh_store_put(s, "c", "bad", d, &e), 0);
    kh_store_close(s);
    snprintf(path, sizeof(path), "%s/store.db", dir);
    sql(path, "UPDATE \"c:c\" SET doc='{\"a\": [1,' WHERE id='bad';"
              "INSERT INTO \"c:c\" VALUES('arr', '[1,2]');"
              "INSERT INTO kh_indexes VALUES('c', 'junk', 'not json', 0, 0);"
              "INSERT INTO kh_indexes VALUES('nope', 'x', '{\"a\":1}', 0, 0)");
    s = open_dir(dir, NULL, &e);
    ck_assert_msg(s != NULL, "%s", e.message);
    ck_assert_int_eq(kh_store_get(s, "c", "good", &o, &e), 0);
    json_object_put(o);
    o = NULL;
    ck_assert_int_eq(kh_store_get(s, "c", "bad", &o, &e), KYTOS_EIO);
    ck_assert_ptr_null(o);
    ck_assert_msg(strstr(e.message, "corrupt") != NULL, "%s", e.message);
    ck_assert_int_eq(kh_store_get(s, "c", "arr", &o, &e), KYTOS_EIO);
    ck_assert_int_eq(kh_store_find(s, "c", NULL, &c, &e), KYTOS_EIO);
    f = json_tokener_parse("{\"a\": 1}");
    ck_assert_int_eq(kh_store_count(s, "c", f, &n, &e), KYTOS_EIO);
    st = kh_store_status(s);
    ck_assert(!json_object_get_boolean(json_object_object_get(st, "healthy")));
    json_object_put(st);
    /* a good call clears the fault */
    ck_assert_int_eq(kh_store_delete(s, "c", "bad", &e), 0);
    ck_assert_int_eq(kh_store_delete(s, "c", "arr", &e), 0);
    ck_assert_int_eq(kh_store_count(s, "c", f, &n, &e), 0);
    ck_assert_int_eq(n, 1);
    st = kh_store_status(s);
    ck_assert(json_object_get_boolean(json_object_object_get(st, "healthy")));
    json_object_put(st);
    json_object_put(f);
    json_object_put(d);
    close_disk(s);
}
END_TEST

/* Patches of stored text that the store did not write: the fast paths
 * must not read it differently from json-c. */
START_TEST(patch_foreign_text)
{
    struct kytos_error e = {0};
    struct json_object *d = json_tokener_parse("{\"a\": 1}"), *o = NULL;
    char path[300];
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_put(s, "c", "seed", d, &e), 0);
    json_object_put(d);
    kh_store_close(s);
    snprintf(path, sizeof(path), "%s/store.db", dir);
    sql(path, "INSERT INTO \"c:c\" VALUES('bad', '{\"a\": [1,');"
              "INSERT INTO \"c:c\" VALUES('arr', '[1,2]');"
              "INSERT INTO \"c:c\" VALUES('esc', '{\"a\\u0062\": 1, \"n\": [1, 2]}');"
              "INSERT INTO \"c:c\" VALUES('ws', ' { \"a\" : 1 , \"b\" : [ 1 , 2 ] , \"c\" : { } } ');"
              "INSERT INTO \"c:c\" VALUES('inf', '{\"a\": 1e999}');"
              "INSERT INTO \"c:c\" VALUES('utf', '{\"a\": \"\xff\"}')");
    s = open_dir(dir, NULL, &e);
    ck_assert_msg(s != NULL, "%s", e.message);
    for (int k = 0; k < 2; k++) {
        const char *u = k ? "{\"$set\": {\"z.y\": 2}}" : "{\"$set\": {\"z\": 2}}";
        struct json_object *upd = json_tokener_parse(u);
        ck_assert_int_eq(kh_store_patch(s, "c", "bad", upd, 0, NULL, &e), KYTOS_EIO);
        ck_assert_msg(strstr(e.message, "corrupt") != NULL, "%s", e.message);
        ck_assert_int_eq(kh_store_patch(s, "c", "arr", upd, 0, NULL, &e), KYTOS_EIO);
        /* what a document may not hold, kept */
        ck_assert_int_eq(kh_store_patch(s, "c", "inf", upd, 0, NULL, &e), KYTOS_EINVAL);
        ck_assert_msg(strstr(e.message, "Infinity") != NULL, "%s", e.message);
        ck_assert_int_eq(kh_store_patch(s, "c", "utf", upd, 0, NULL, &e), KYTOS_EINVAL);
        ck_assert_msg(strstr(e.message, "UTF-8") != NULL, "%s", e.message);
        json_object_put(upd);
    }
    /* replaced, it is gone */
    d = json_tokener_parse("{\"$set\": {\"a\": 2}}");
    ck_assert_int_eq(kh_store_patch(s, "c", "inf", d, 0, NULL, &e), 0);
    json_object_put(d);
    /* "a\u0062" is "ab": replaced, not doubled */
    d = json_tokener_parse("{\"$set\": {\"ab\": 2}}");
    ck_assert_int_eq(kh_store_patch(s, "c", "esc", d, 0, NULL, &e), 0);
    json_object_put(d);
    ck_assert_int_eq(kh_store_get(s, "c", "esc", &o, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "{\"ab\":2,\"n\":[1,2]}");
    json_object_put(o);
    /* white space is JSON */
    d = json_tokener_parse("{\"$set\": {\"a\": 2, \"d\": 3}, \"$unset\": {\"c\": 1}}");
    ck_assert_int_eq(kh_store_patch(s, "c", "ws", d, 0, NULL, &e), 0);
    json_object_put(d);
    ck_assert_int_eq(kh_store_get(s, "c", "ws", &o, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "{\"a\":2,\"b\":[1,2],\"d\":3}");
    json_object_put(o);
    kh_store_close(s);
    rm_dir();
}
END_TEST

static void upsert(kh_store *s, const char *id, const char *update)
{
    struct kytos_error e = {0};
    struct json_object *u = json_tokener_parse(update);

    ck_assert_ptr_nonnull(u);
    ck_assert_msg(kh_store_patch(s, "c", id, u, KYTOS_STORE_UPSERT, NULL, &e) == 0, "%s: %s", id,
                  e.message);
    json_object_put(u);
}

static int64_t count_state(kh_store *s, const char *state)
{
    struct kytos_error e = {0};
    struct json_object *f = json_object_new_object();
    int64_t n = -1;

    json_object_object_add(f, "s", json_object_new_string(state));
    ck_assert_int_eq(kh_store_count(s, "c", f, &n, &e), 0);
    json_object_put(f);
    return n;
}

/* The writer tries an upsert's INSERT or its UPDATE first, by what the
 * collection's upserts did lately: after a run of new documents, existing
 * ones must still be updated ($setOnInsert left alone), and after a run of
 * updates, new ones still inserted; the index follows both. */
START_TEST(upserts_in_either_order)
{
    struct kytos_error e = {0};
    struct json_object *keys = json_tokener_parse("{\"s\": 1}"), *o = NULL, *v;
    kh_store *s = open_disk();
    char id[16];

    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(kh_store_index(s, "c", "s", keys, 0, &e), 0);
    json_object_put(keys);
    for (int i = 0; i < 40; i++) {   /* new: the INSERT comes first soon */
        snprintf(id, sizeof id, "d%d", i);
        upsert(s, id, "{\"$set\": {\"s\": \"pending\", \"k\": 7}, \"$setOnInsert\": {\"at\": 1}}");
    }
    for (int i = 0; i < 30; i++) {   /* stored: refused inserts, then updates */
        snprintf(id, sizeof id, "d%d", i);
        upsert(s, id, "{\"$set\": {\"s\": \"installed\"}, \"$setOnInsert\": {\"at\": 2}}");
    }
    for (int i = 0; i < 5; i++) {    /* new again, the UPDATE first now */
        snprintf(id, sizeof id, "n%d", i);
        upsert(s, id, "{\"$set\": {\"s\": \"pending\"}, \"$setOnInsert\": {\"at\": 3}}");
    }
    ck_assert_int_eq(count_state(s, "installed"), 30);
    ck_assert_int_eq(count_state(s, "pending"), 15);
    ck_assert_int_eq(kh_store_get(s, "c", "d3", &o, &e), 0);
    ck_assert(json_object_object_get_ex(o, "at", &v) && json_object_get_int(v) == 1);
    ck_assert(json_object_object_get_ex(o, "k", &v) && json_object_get_int(v) == 7);
    json_object_put(o);
    ck_assert_int_eq(kh_store_get(s, "c", "n4", &o, &e), 0);
    ck_assert(json_object_object_get_ex(o, "at", &v) && json_object_get_int(v) == 3);
    json_object_put(o);
    close_disk(s);
}
END_TEST

/* A patch may not grow a document past the limit, on any path. */
START_TEST(patch_too_big)
{
    struct kytos_error e = {0};
    size_t n = 9u << 20;
    char *big = malloc(n + 1);
    struct json_object *d = json_object_new_object(), *u1, *u2;
    kh_store *s = open_disk();

    ck_assert_ptr_nonnull(s);
    memset(big, 'x', n);
    big[n] = '\0';
    json_object_object_add(d, "x", json_object_new_string(big));
    json_object_object_add(d, "o", json_object_new_object());
    ck_assert_int_eq(kh_store_put(s, "c", "big", d, &e), 0);
    u1 = json_object_new_object();
    json_object_object_add(u1, "$set", json_object_new_object());
    json_object_object_add(json_object_object_get(u1, "$set"), "y", json_object_new_string(big));
    u2 = json_object_new_object();
    json_object_object_add(u2, "$set", json_object_new_object());
    json_object_object_add(json_object_object_get(u2, "$set"), "o.y", json_object_new_string(big));
    ck_assert_int_eq(kh_store_patch(s, "c", "big", u1, 0, NULL, &e), KYTOS_ETOOBIG);
    ck_assert_int_eq(kh_store_patch(s, "c", "big", u2, 0, NULL, &e), KYTOS_ETOOBIG);
    /* replacing the big value instead fits */
    json_object_object_del(json_object_object_get(u1, "$set"), "y");
    json_object_object_add(json_object_object_get(u1, "$set"), "x", json_object_new_string(big));
    ck_assert_int_eq(kh_store_patch(s, "c", "big", u1, 0, NULL, &e), 0);
    free(big);
    json_object_put(d);
    json_object_put(u1);
    json_object_put(u2);
    close_disk(s);
}
END_TEST

/* ---- queued patches of one document, merged (store_sqlite_merge.c merge_run) ---- */

static struct kh_async_write *qpatch(const char *id, struct json_object *upd, unsigned flags)
{
    struct kh_async_write *w = calloc(1, sizeof *w);
    ck_assert_ptr_nonnull(w);
    w->coll = strdup("m");
    w->ops = calloc(1, sizeof *w->ops);
    ck_assert_ptr_nonnull(w->ops);
    w->n = 1;
    w->ops[0] = (struct kytos_write){KYTOS_WRITE_PATCH, strdup(id), upd, flags};
    return w;
}

static struct kh_async_write *qset(const char *id, const char *update, unsigned flags)
{
    struct json_object *u = json_tokener_parse(update);
    ck_assert_msg(u != NULL, "%s", update);
    return qpatch(id, u, flags);
}

static char *text_of(struct kh_store_backend *b, const char *id)
{
    struct kytos_error e = {0};
    struct json_object *o = NULL;
    char *t;
    int rc = b->ops->get(b, "m", id, &o, &e);
    if (rc == KYTOS_ENOTFOUND)
        return strdup("-");
    ck_assert_msg(rc == 0, "get %s: %s", id, e.message);
    t = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
    json_object_put(o);
    return t;
}

static int64_t merged_count(struct kh_store_backend *b)
{
    struct json_object *st = json_object_new_object();
    int64_t n;
    b->ops->status(b, st);
    n = json_object_get_int64(json_object_object_get(st, "merged_writes"));
    json_object_put(st);
    return n;
}

#define EXPECT_DOC(b, id, want)                                                          \
    do {                                                                                 \
        char *got_ = text_of(b, id);                                                     \
        ck_assert_str_eq(got_, want);                                                    \
        free(got_);                                                                      \
    } while (0)

/* One batch as the writer thread runs it: every write keeps its own result,
 * the documents end as if each write had been applied alone, in order. */
START_TEST(queued_patches_merge)
{
    struct kh_store_opts o = {.data_dir = NULL};
    struct kh_store_backend *b = NULL;
    struct kytos_error e = {0};
    struct kh_async_write *w[24];
    struct json_object *bad;
    int n = 0, k;

    snprintf(dir, sizeof(dir), "%s/kh-store-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    o.data_dir = dir;
    ck_assert_msg(kh_store_sqlite_open(&b, &o, &e) == 0, "%s", e.message);
    {
        struct json_object *d = json_tokener_parse("{\"v\": -1, \"keep\": true}"),
                           *keys = json_tokener_parse("{\"tags\": 1}");
        ck_assert_int_eq(b->ops->put(b, "m", "f", d, 0, &e), 0);
        ck_assert_int_eq(b->ops->index(b, "m", "tags", keys, 0, &e), 0);
        json_object_put(d);
        json_object_put(keys);
    }
    /* f exists: three patches, one that fails alone (a value that is not
     * UTF-8), one that needs the general path (through an array), one more */
    w[n++] = qset("f", "{\"$set\": {\"v\": 0, \"n\": \"x\", \"arr\": [{\"a\": 1}]}}", KYTOS_STORE_UPSERT);
    w[n++] = qset("f", "{\"$set\": {\"v\": 1, \"o.p\": true}}", 0);
    bad = json_object_new_object();
    json_object_object_add(bad, "$set", json_object_new_object());
    json_object_object_add(json_object_object_get(bad, "$set"), "v", json_object_new_string("\xff"));
    w[n++] = qpatch("f", bad, 0);
    w[n++] = qset("f", "{\"$unset\": {\"n\": 1}, \"$set\": {\"w\": 2}}", 0);
    w[n++] = qset("f", "{\"$set\": {\"arr.0.a\": 5}}", 0);
    w[n++] = qset("f", "{\"$set\": {\"v\": 3}}", 0);
    /* g is created by the first upsert of its run; $setOnInsert only then */
    w[n++] = qset("g", "{\"$set\": {\"s\": \"pending\"}, \"$setOnInsert\": {\"at\": 1}}", KYTOS_STORE_UPSERT);
    w[n++] = qset("g", "{\"$set\": {\"s\": \"installed\"}, \"$setOnInsert\": {\"at\": 2}}", KYTOS_STORE_UPSERT);
    w[n++] = qset("g", "{\"$set\": {\"s\": \"pending\"}, \"$setOnInsert\": {\"at\": 3}}", KYTOS_STORE_UPSERT);
    /* a put after a merged run gets its own text */
    w[n] = qset("p", "{}", 0);
    w[n]->ops[0].op = KYTOS_WRITE_PUT;
    json_object_put(w[n]->ops[0].doc);
    w[n++]->ops[0].doc = json_tokener_parse("{\"x\": 1}");
    /* an array on an indexed path ends a run: the general path marks the
     * index multikey */
    w[n++] = qset("t", "{\"$set\": {\"tags\": \"a\"}}", KYTOS_STORE_UPSERT);
    w[n++] = qset("t", "{\"$set\": {\"tags\": [\"x\", \"y\"]}}", 0);
    w[n++] = qset("t", "{\"$set\": {\"v\": 1}}", 0);
    /* h is missing and nobody upserts it: both fail, nothing is created */
    w[n++] = qset("h", "{\"$set\": {\"v\": 1}}", 0);
    w[n++] = qset("h", "{\"$set\": {\"v\": 2}}", 0);
    for (k = 0; k < n - 1; k++)
        w[k]->next = w[k + 1];
    kh_store_sqlite_bulk_batch(b, w[0]);
    for (k = 0; k < n; k++) {
        int want = k == 2 ? KYTOS_EINVAL : k >= 13 ? KYTOS_ENOTFOUND : 0;
        ck_assert_msg(w[k]->rc == want, "write %d: %d (%s)", k, w[k]->rc, w[k]->err.message);
    }
    ck_assert_msg(strstr(w[2]->err.message, "UTF-8") != NULL, "%s", w[2]->err.message);
    ck_assert_msg(strstr(w[13]->err.message, "'h'") != NULL, "%s", w[13]->err.message);
    EXPECT_DOC(b, "f", "{\"_id\":\"f\",\"v\":3,\"keep\":true,\"arr\":[{\"a\":5}],\"o\":{\"p\":true},\"w\":2}");
    EXPECT_DOC(b, "g", "{\"_id\":\"g\",\"s\":\"pending\",\"at\":1}");
    EXPECT_DOC(b, "p", "{\"_id\":\"p\",\"x\":1}");
    EXPECT_DOC(b, "t", "{\"_id\":\"t\",\"tags\":[\"x\",\"y\"],\"v\":1}");
    EXPECT_DOC(b, "h", "-");
    /* f's run: 0,1,3 in one write (2 failed; 4 took the general path), then
     * 4 alone and 5 alone (one write is no run); g: 3 writes in one; t: the
     * array ends the run after its first write, the rest go alone */
    ck_assert_int_eq(merged_count(b), 2 + 2);
    for (k = 0; k < n; k++)
        kh_store_async_free(w[k]);

    /* a unique index: every write checks its own keys, none is merged */
    {
        struct json_object *keys = json_tokener_parse("{\"k\": 1}");
        ck_assert_int_eq(b->ops->del(b, "m", "f", &e), 0);   /* (no two docs without k) */
        ck_assert_int_eq(b->ops->del(b, "m", "g", &e), 0);
        ck_assert_int_eq(b->ops->del(b, "m", "p", &e), 0);
        ck_assert_int_eq(b->ops->del(b, "m", "t", &e), 0);
        ck_assert_int_eq(b->ops->index(b, "m", "k", keys, KYTOS_STORE_UNIQUE, &e), 0);
        json_object_put(keys);
    }
    n = 0;
    w[n++] = qset("u1", "{\"$set\": {\"k\": 1}}", KYTOS_STORE_UPSERT);
    w[n++] = qset("u2", "{\"$set\": {\"k\": 2}}", KYTOS_STORE_UPSERT);
    w[n++] = qset("u2", "{\"$set\": {\"k\": 1}}", 0);
    w[n++] = qset("u2", "{\"$set\": {\"k\": 3}}", 0);
    for (k = 0; k < n - 1; k++)
        w[k]->next = w[k + 1];
    kh_store_sqlite_bulk_batch(b, w[0]);
    ck_assert_int_eq(w[0]->rc, 0);
    ck_assert_int_eq(w[1]->rc, 0);
    ck_assert_int_eq(w[2]->rc, KYTOS_EEXIST);
    ck_assert_int_eq(w[3]->rc, 0);
    EXPECT_DOC(b, "u2", "{\"_id\":\"u2\",\"k\":3}");
    ck_assert_int_eq(merged_count(b), 4);
    for (k = 0; k < n; k++)
        kh_store_async_free(w[k]);
    b->ops->close(b);
    rm_dir();
}
END_TEST

START_TEST(options)
{
    struct kytos_error e = {0};
    struct kh_store_opts o = {.backend = "couchdb"};
    kh_store *s = NULL;
    struct json_object *st;

    ck_assert_int_eq(kh_store_open(&s, &o, &e), KYTOS_EINVAL);
    ck_assert_ptr_null(s);
    ck_assert_msg(strstr(e.message, "couchdb") != NULL, "%s", e.message);
    o = (struct kh_store_opts){.sync = "sometimes"};
    ck_assert_int_eq(kh_store_open(&s, &o, &e), KYTOS_EINVAL);
    o = (struct kh_store_opts){.data_dir = "/proc/no/such/dir"};
    ck_assert_int_eq(kh_store_open(&s, &o, &e), KYTOS_EUNAVAIL);
    s = open_disk();
    ck_assert_ptr_nonnull(s);
    st = kh_store_status(s);
    ck_assert_str_eq(json_object_get_string(json_object_object_get(st, "journal")), "wal");
    ck_assert_str_eq(json_object_get_string(json_object_object_get(st, "sync")), "normal");
    json_object_put(st);
    close_disk(s);
}
END_TEST

#endif

/* check_store_sqlite --open-store DIR (file_is_this_process): 0 when the
 * store opens and has document c/a, 2 when it is refused as in use by
 * another process, 1 otherwise. */
static int open_store_child(const char *d)
{
    struct kytos_error e = {0};
    struct json_object *o = NULL;
    kh_store *t = open_dir(d, NULL, &e);
    int rc;

    if (!t)
        return e.code == KYTOS_EUNAVAIL && strstr(e.message, "in use by another process") ? 2 : 1;
    rc = kh_store_get(t, "c", "a", &o, &e) == 0 ? 0 : 1;
    json_object_put(o);
    kh_store_close(t);
    return rc;
}

int main(int argc, char **argv)
{
    static const struct conf_backend disk = {"sqlite", open_disk, close_disk, 1};
    static const struct conf_backend mem = {"sqlite", open_mem, kh_store_close, 1};
    Suite *s;
    TCase *tc;

    if (argc == 3 && !strcmp(argv[1], "--open-store"))
        return open_store_child(argv[2]);
#ifdef KH_CONF_MEMORY
    /* the same suite in memory: one connection, no WAL */
    s = store_conformance_suite(&mem);
    (void)disk;
    (void)tc;
#else
    (void)mem;
    s = store_conformance_suite(&disk);
    tc = tcase_create("embedded");
    tcase_set_timeout(tc, 60);   /* checkpointer_restarts_wal waits for the checkpointer */
    tcase_add_test(tc, reopen_keeps_data_and_indexes);
    tcase_add_test(tc, ne_on_a_key_column_skips_its_rows);
    tcase_add_test(tc, newer_schema_refused);
    tcase_add_test(tc, corrupt_rows_are_errors);
    tcase_add_test(tc, patch_foreign_text);
    tcase_add_test(tc, patch_too_big);
    tcase_add_test(tc, upserts_in_either_order);
    tcase_add_test(tc, options);
    tcase_add_test(tc, queued_patches_merge);
    tcase_add_test(tc, checkpointer_restarts_wal);
    tcase_add_test(tc, bulk_patches_share_one_update);
    tcase_add_test(tc, queued_upserts_written_by_their_thread);
    tcase_add_test(tc, queued_patch_values_refused_at_once);
    tcase_add_test(tc, checkpointer_woken_by_wal_growth_not_by_every_commit);
    tcase_add_test(tc, wal_frames_written_at_once_per_commit);
    tcase_add_test(tc, failed_wal_write_fails_the_commit);
    tcase_add_test(tc, burst_of_commits_keeps_the_wal_bounded);
    tcase_add_test(tc, file_is_this_process);
    tcase_add_test(tc, full_scans_counted);
    tcase_add_test(tc, writes_keep_key_columns);
    tcase_add_test(tc, key_columns_keep_case);
    tcase_add_test(tc, schema_1_file_migrated);
    suite_add_tcase(s, tc);
#endif
    return kytos_check_run(s);
}
