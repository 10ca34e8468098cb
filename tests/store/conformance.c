/* tests/store/conformance.c - the store conformance suite (see .h). */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "conformance.h"
#include "check_tap.h"

static const struct conf_backend *B;
static kh_store *S;
static struct kytos_error E;

/* objects made by a test, freed at teardown (leak checkers stay quiet) */
#define MAX_OBJS 4096
static struct json_object *objs[MAX_OBJS];
static int nobjs;

static struct json_object *keep(struct json_object *o)
{
    if (o && nobjs < MAX_OBJS)
        objs[nobjs++] = o;
    return o;
}

static struct json_object *J(const char *text)
{
    struct json_object *o = json_tokener_parse(text);
    ck_assert_msg(o != NULL, "bad test JSON: %s", text);
    return keep(o);
}

static const char *T(struct json_object *o)
{
    return json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
}

/* A collection name unique to this test run (MongoDB keeps data). */
static char run_tag[32];
static char cnames[64][128];
static int ncnames;
static const char *C(const char *base)
{
    char *n = cnames[ncnames++ % 64];
    snprintf(n, 128, "%s_%s", base, run_tag);
    return n;
}

static void setup(void)
{
    snprintf(run_tag, sizeof(run_tag), "%lx%x", (unsigned long)time(NULL), (unsigned)getpid());
    memset(&E, 0, sizeof(E));
    S = B->open();
    ck_assert_msg(S != NULL, "cannot open the %s store", B->name);
}

static void teardown(void)
{
    B->close(S);
    S = NULL;
    for (int k = 0; k < nobjs; k++)
        json_object_put(objs[k]);
    nobjs = 0;
}

#define OK(expr)                                                                        \
    do {                                                                                \
        int rc_ = (expr);                                                               \
        ck_assert_msg(rc_ == 0, "%s -> %d (%s)", #expr, rc_, E.message);                \
    } while (0)
#define FAILS(want, expr)                                                               \
    do {                                                                                \
        memset(&E, 0, sizeof(E));                                                       \
        int rc_ = (expr);                                                               \
        ck_assert_msg(rc_ == (want), "%s -> %d (%s), expected %d", #expr, rc_, E.message, \
                      (want));                                                          \
        ck_assert_int_eq(E.code, (want));                                               \
        ck_assert_msg(E.message[0] != '\0', "%s: no error message", #expr);             \
    } while (0)

static struct json_object *get(const char *coll, const char *id)
{
    struct json_object *o = NULL;
    OK(kh_store_get(S, coll, id, &o, &E));
    return keep(o);
}

static void assert_json(struct json_object *got, const char *want)
{
    struct json_object *w = J(want);
    ck_assert_msg(json_object_equal(got, w), "got %s, want %s", T(got), want);
}

/* find -> array of the documents' JSON, in order */
static struct json_object *find(const char *coll, const char *filter, const char *sort, int64_t skip,
                                int64_t limit, const char *proj)
{
    struct kytos_find q = {.struct_size = sizeof(q),
                           .filter = filter ? J(filter) : NULL,
                           .sort = sort ? J(sort) : NULL,
                           .skip = skip,
                           .limit = limit,
                           .projection = proj ? J(proj) : NULL};
    struct json_object *arr = keep(json_object_new_array()), *doc;
    kytos_cursor *c = NULL;
    int rc;

    OK(kh_store_find(S, coll, &q, &c, &E));
    while ((rc = kh_cursor_next(c, &doc, &E)) == 1)
        json_object_array_add(arr, doc);
    ck_assert_msg(rc == 0, "cursor_next -> %d (%s)", rc, E.message);
    kh_cursor_free(c);
    return arr;
}

/* the _ids of a find, joined by ',' */
static const char *ids(const char *coll, const char *filter, const char *sort, int64_t skip,
                       int64_t limit)
{
    static char buf[4096];
    struct json_object *arr = find(coll, filter, sort, skip, limit, NULL);
    size_t n = json_object_array_length(arr), o = 0;

    buf[0] = '\0';
    for (size_t k = 0; k < n; k++) {
        struct json_object *id;
        ck_assert(json_object_object_get_ex(json_object_array_get_idx(arr, k), "_id", &id));
        o += (size_t)snprintf(buf + o, sizeof(buf) - o, "%s%s", k ? "," : "", json_object_get_string(id));
    }
    return buf;
}

/* ids sorted by _id, for order-free comparisons */
static const char *idset(const char *coll, const char *filter)
{
    return ids(coll, filter, "{\"_id\": 1}", 0, 0);
}

static int64_t count(const char *coll, const char *filter)
{
    int64_t n = -1;
    OK(kh_store_count(S, coll, filter ? J(filter) : NULL, &n, &E));
    return n;
}

static void put(const char *coll, const char *id, const char *doc)
{
    OK(kh_store_put(S, coll, id, J(doc), &E));
}

/* ---------------------------------------------------------------- tests */

START_TEST(get_missing)
{
    struct json_object *o = (struct json_object *)1;
    const char *c = C("things");

    FAILS(KYTOS_ENOTFOUND, kh_store_get(S, c, "nope", &o, &E));
    ck_assert_ptr_null(o);
    put(c, "a", "{\"x\": 1}");
    FAILS(KYTOS_ENOTFOUND, kh_store_get(S, c, "nope", &o, &E));
    ck_assert_ptr_null(o);
    ck_assert_int_eq(count(C("never_written"), NULL), 0);
    ck_assert_str_eq(ids(C("never_written"), NULL, NULL, 0, 0), "");
}
END_TEST

START_TEST(put_get_replace)
{
    const char *c = C("switches");
    struct json_object *o;

    put(c, "00:01", "{\"enabled\": true, \"metadata\": {\"a\": [1, 2.5, \"x\", null, {\"b\": false}]}}");
    o = get(c, "00:01");
    assert_json(o, "{\"_id\": \"00:01\", \"enabled\": true,"
                   " \"metadata\": {\"a\": [1, 2.5, \"x\", null, {\"b\": false}]}}");
    /* _id comes first, as in MongoDB */
    ck_assert(strncmp(T(o), "{\"_id\":", 7) == 0);
    put(c, "00:01", "{\"enabled\": false}");
    assert_json(get(c, "00:01"), "{\"_id\": \"00:01\", \"enabled\": false}");
    /* an _id inside the document must agree with the argument */
    OK(kh_store_put(S, c, "00:02", J("{\"_id\": \"00:02\", \"v\": 2}"), &E));
    assert_json(get(c, "00:02"), "{\"_id\": \"00:02\", \"v\": 2}");
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "00:03", J("{\"_id\": \"other\"}"), &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "00:03", J("{\"_id\": 3}"), &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "00:03", J("[1, 2]"), &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "00:03", NULL, &E));
    /* an empty document is fine */
    put(c, "empty", "{}");
    assert_json(get(c, "empty"), "{\"_id\": \"empty\"}");
}
END_TEST

START_TEST(insert_duplicate)
{
    const char *c = C("links");

    OK(kh_store_insert(S, c, "l1", J("{\"n\": 1}"), &E));
    FAILS(KYTOS_EEXIST, kh_store_insert(S, c, "l1", J("{\"n\": 2}"), &E));
    ck_assert_ptr_nonnull(strstr(E.message, "l1"));
    assert_json(get(c, "l1"), "{\"_id\": \"l1\", \"n\": 1}");
}
END_TEST

START_TEST(delete_doc)
{
    const char *c = C("evcs");

    FAILS(KYTOS_ENOTFOUND, kh_store_delete(S, c, "e1", &E));
    put(c, "e1", "{\"a\": 1}");
    put(c, "e2", "{\"a\": 2}");
    OK(kh_store_delete(S, c, "e1", &E));
    FAILS(KYTOS_ENOTFOUND, kh_store_delete(S, c, "e1", &E));
    ck_assert_int_eq(count(c, NULL), 1);
}
END_TEST

START_TEST(patch_set_unset)
{
    const char *c = C("switches");
    struct json_object *out = NULL;

    put(c, "s1", "{\"enabled\": true, \"metadata\": {\"a\": 1, \"b\": 2}, \"keep\": \"k\"}");
    OK(kh_store_patch(S, c, "s1",
                      J("{\"$set\": {\"enabled\": false, \"metadata.c.d\": [1], \"new\": {\"x\": 1}},"
                        " \"$unset\": {\"metadata.a\": \"\", \"not.there\": 1}}"),
                      0, &out, &E));
    keep(out);
    assert_json(out, "{\"_id\": \"s1\", \"enabled\": false, \"metadata\": {\"b\": 2, \"c\": {\"d\": [1]}},"
                     " \"keep\": \"k\", \"new\": {\"x\": 1}}");
    assert_json(get(c, "s1"), T(out));
    /* out may be NULL */
    OK(kh_store_patch(S, c, "s1", J("{\"$set\": {\"metadata.b\": 3}}"), 0, NULL, &E));
    assert_json(get(c, "s1"), "{\"_id\": \"s1\", \"enabled\": false, \"metadata\": {\"b\": 3, \"c\": {\"d\": [1]}},"
                              " \"keep\": \"k\", \"new\": {\"x\": 1}}");
    /* arrays by index */
    put(c, "s2", "{\"a\": [10, 20, 30], \"o\": [{\"e\": 1}, {\"e\": 2}]}");
    OK(kh_store_patch(S, c, "s2", J("{\"$set\": {\"a.1\": 21, \"o.1.e\": 3}}"), 0, NULL, &E));
    assert_json(get(c, "s2"), "{\"_id\": \"s2\", \"a\": [10, 21, 30], \"o\": [{\"e\": 1}, {\"e\": 3}]}");
}
END_TEST

START_TEST(patch_upsert)
{
    const char *c = C("flows");
    struct json_object *out = NULL;

    FAILS(KYTOS_ENOTFOUND, kh_store_patch(S, c, "f1", J("{\"$set\": {\"a\": 1}}"), 0, &out, &E));
    ck_assert_ptr_null(out);
    put(c, "other", "{}");
    FAILS(KYTOS_ENOTFOUND, kh_store_patch(S, c, "f1", J("{\"$set\": {\"a\": 1}}"), 0, &out, &E));
    OK(kh_store_patch(S, c, "f1",
                      J("{\"$set\": {\"a.b\": 1}, \"$setOnInsert\": {\"inserted_at\": \"t0\"}}"),
                      KYTOS_STORE_UPSERT, &out, &E));
    keep(out);
    assert_json(out, "{\"_id\": \"f1\", \"a\": {\"b\": 1}, \"inserted_at\": \"t0\"}");
    OK(kh_store_patch(S, c, "f1",
                      J("{\"$set\": {\"a.b\": 2}, \"$setOnInsert\": {\"inserted_at\": \"t1\"}}"),
                      KYTOS_STORE_UPSERT, &out, &E));
    keep(out);
    assert_json(get(c, "f1"), "{\"_id\": \"f1\", \"a\": {\"b\": 2}, \"inserted_at\": \"t0\"}");
}
END_TEST

START_TEST(patch_errors)
{
    const char *c = C("evcs");

    put(c, "e", "{\"a\": 5, \"arr\": [1]}");
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$inc\": {\"a\": 1}}"), 0, NULL, &E));
    ck_assert_ptr_nonnull(strstr(E.message, "$inc"));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"a\": 1}"), 0, NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{}"), 0, NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": 1}"), 0, NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": {\"x\": 1, \"x.y\": 2}}"), 0, NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": {\"x\": 1}, \"$unset\": {\"x\": 1}}"), 0,
                                        NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": {\"a..b\": 1}}"), 0, NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": {\"a.$x\": 1}}"), 0, NULL, &E));
    FAILS(KYTOS_EINVAL, kh_store_patch(S, c, "e", J("{\"$set\": {\"_id\": \"z\"}}"), 0, NULL, &E));
    /* a scalar in the way */
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": {\"a.b\": 1}}"), 0, NULL, &E));
    FAILS(KYTOS_EFILTER, kh_store_patch(S, c, "e", J("{\"$set\": {\"arr.x\": 1}}"), 0, NULL, &E));
    FAILS(KYTOS_EINVAL, kh_store_patch(S, c, "e", J("{\"$set\": {\"a\": 1}}"), 0x100, NULL, &E));
    /* nothing changed */
    assert_json(get(c, "e"), "{\"_id\": \"e\", \"a\": 5, \"arr\": [1]}");
}
END_TEST

/* Patch a copy of doc both ways (with out, and without out, which the
 * embedded store applies to the stored text); both must give want, or
 * both fail with code. */
static void patch_both(const char *c, const char *doc, const char *upd, unsigned flags, int code,
                       const char *want)
{
    struct json_object *out = NULL, *a, *b;

    if (doc) {
        put(c, "via_out", doc);
        put(c, "via_text", doc);
    }
    if (code) {
        FAILS(code, kh_store_patch(S, c, "via_out", J(upd), flags, &out, &E));
        FAILS(code, kh_store_patch(S, c, "via_text", J(upd), flags, NULL, &E));
    } else {
        OK(kh_store_patch(S, c, "via_out", J(upd), flags, &out, &E));
        keep(out);
        OK(kh_store_patch(S, c, "via_text", J(upd), flags, NULL, &E));
    }
    a = keep(json_object_get(get(c, "via_out")));
    b = keep(json_object_get(get(c, "via_text")));
    json_object_object_del(a, "_id");
    json_object_object_del(b, "_id");
    /* the same members in the same order */
    ck_assert_msg(!strcmp(T(a), T(b)), "with out: %s, without: %s (%s)", T(a), T(b), upd);
    if (want)
        assert_json(a, want);
    if (out) {
        json_object_object_del(out, "_id");
        ck_assert_msg(!strcmp(T(out), T(a)), "out %s, stored %s", T(out), T(a));
    }
}

START_TEST(patch_paths)
{
    const char *c = C("paths");
    const char *doc = "{\"a\": 5, \"s\": \"x\", \"o\": {\"p\": 1, \"q\": {\"r\": [1, 2]}}, \"arr\": [10, {\"e\": 1}],"
                      " \"n\": null, \"cookie\": 18446744073709551615}";

    /* one segment: in place, appended, removed */
    patch_both(c, doc, "{\"$set\": {\"s\": \"y\", \"new\": {\"k\": [1, {\"z\": null}]}, \"a\": 6},"
                       " \"$unset\": {\"n\": 1, \"missing\": 1}}", 0, 0,
               "{\"a\": 6, \"s\": \"y\", \"o\": {\"p\": 1, \"q\": {\"r\": [1, 2]}}, \"arr\": [10, {\"e\": 1}],"
               " \"cookie\": 18446744073709551615, \"new\": {\"k\": [1, {\"z\": null}]}}");
    /* setting an object or array over another value, and back */
    patch_both(c, doc, "{\"$set\": {\"o\": [1, 2, 3], \"arr\": {\"x\": 1}}}", 0, 0, NULL);
    /* nested: created, replaced, removed */
    patch_both(c, doc, "{\"$set\": {\"o.q.r\": \"flat\", \"o.t.u\": 1, \"x.y.z\": true},"
                       " \"$unset\": {\"o.p\": 1, \"nope.nope\": 1}}", 0, 0,
               "{\"a\": 5, \"s\": \"x\", \"o\": {\"q\": {\"r\": \"flat\"}, \"t\": {\"u\": 1}},"
               " \"arr\": [10, {\"e\": 1}], \"n\": null, \"cookie\": 18446744073709551615,"
               " \"x\": {\"y\": {\"z\": true}}}");
    /* through arrays by index */
    patch_both(c, doc, "{\"$set\": {\"arr.1.e\": 2, \"o.q.r.0\": 7}, \"$unset\": {\"arr.0\": 1}}", 0, 0,
               "{\"a\": 5, \"s\": \"x\", \"o\": {\"p\": 1, \"q\": {\"r\": [7, 2]}}, \"arr\": [null, {\"e\": 2}],"
               " \"n\": null, \"cookie\": 18446744073709551615}");
    /* a scalar or null in the way: nothing changes */
    patch_both(c, doc, "{\"$set\": {\"a.b\": 1}}", 0, KYTOS_EFILTER, NULL);
    patch_both(c, doc, "{\"$set\": {\"s.b.c\": 1, \"ok\": 1}}", 0, KYTOS_EFILTER, NULL);
    patch_both(c, doc, "{\"$set\": {\"n.b\": 1}}", 0, KYTOS_EFILTER, NULL);
    /* $unset under a scalar: nothing to remove */
    patch_both(c, doc, "{\"$unset\": {\"a.b\": 1, \"s.0\": 1}}", 0, 0, NULL);
    /* field names that need care: escaped in JSON, not ASCII, digits */
    patch_both(c, "{\"a\\\\b\": 1, \"q\\\"t\": 2, \"\\u00e9t\\u00e9\": 3, \"0\": 4}",
               "{\"$set\": {\"a\\\\b\": 10, \"\\u00e9t\\u00e9\": 30, \"0\": 40, \"sl/ash\": 5}}", 0, 0,
               "{\"a\\\\b\": 10, \"q\\\"t\": 2, \"\\u00e9t\\u00e9\": 30, \"0\": 40, \"sl/ash\": 5}");
    patch_both(c, NULL, "{\"$set\": {\"a\\\\b\": 11}, \"$unset\": {\"0\": 1}}", 0, 0,
               "{\"a\\\\b\": 11, \"q\\\"t\": 2, \"\\u00e9t\\u00e9\": 30, \"sl/ash\": 5}");
    /* strings with escapes and control characters, kept exactly */
    patch_both(c, doc, "{\"$set\": {\"s\": \"tab\\t nl\\n nul\\u0000 q\\\" bs\\\\ sl/ \\u001f \\u00e9\"}}", 0, 0,
               NULL);
    /* only $setOnInsert on an existing document: nothing changes */
    patch_both(c, doc, "{\"$setOnInsert\": {\"a\": 1}}", KYTOS_STORE_UPSERT, 0, NULL);
    assert_json(get(c, "via_text"), "{\"_id\": \"via_text\", \"a\": 5, \"s\": \"x\", \"o\": {\"p\": 1,"
                                    " \"q\": {\"r\": [1, 2]}}, \"arr\": [10, {\"e\": 1}], \"n\": null,"
                                    " \"cookie\": 18446744073709551615}");
}
END_TEST

START_TEST(patch_upsert_paths)
{
    const char *c = C("upserts");
    struct json_object *out = NULL;
    const char *upds[] = {
        "{\"$set\": {\"state\": \"pending\", \"flow\": {\"cookie\": 18446744073709551615}},"
        " \"$setOnInsert\": {\"inserted_at\": \"t0\"}, \"$unset\": {\"gone\": 1}}",
        "{\"$setOnInsert\": {\"inserted_at\": \"t0\"}, \"$set\": {\"a.b\": 1, \"a.c\": [2]}}",
        "{\"$set\": {\"x\": 1}}",
    };
    const char *wants[] = {
        "{\"state\": \"pending\", \"flow\": {\"cookie\": 18446744073709551615}, \"inserted_at\": \"t0\"}",
        "{\"inserted_at\": \"t0\", \"a\": {\"b\": 1, \"c\": [2]}}",
        "{\"x\": 1}",
    };

    for (int k = 0; k < 3; k++) {
        char id1[16], id2[16];
        struct json_object *a, *b;
        snprintf(id1, sizeof(id1), "o%d", k);
        snprintf(id2, sizeof(id2), "t%d", k);
        OK(kh_store_patch(S, c, id1, J(upds[k]), KYTOS_STORE_UPSERT, &out, &E));
        keep(out);
        OK(kh_store_patch(S, c, id2, J(upds[k]), KYTOS_STORE_UPSERT, NULL, &E));
        a = keep(json_object_get(get(c, id1)));
        b = keep(json_object_get(get(c, id2)));
        json_object_object_del(a, "_id");
        json_object_object_del(b, "_id");
        ck_assert_msg(!strcmp(T(a), T(b)), "with out: %s, without: %s", T(a), T(b));
        assert_json(a, wants[k]);
        /* again: now an update, $setOnInsert left alone */
        OK(kh_store_patch(S, c, id2, J("{\"$set\": {\"later\": 1}, \"$setOnInsert\": {\"inserted_at\": \"t9\"}}"),
                          KYTOS_STORE_UPSERT, NULL, &E));
        ck_assert_str_eq(json_object_get_string(json_object_object_get(get(c, id2), "later")), "1");
        if (k < 2)
            ck_assert_str_eq(json_object_get_string(json_object_object_get(get(c, id2), "inserted_at")), "t0");
    }
    /* without upsert, nothing is made */
    FAILS(KYTOS_ENOTFOUND, kh_store_patch(S, c, "none", J("{\"$set\": {\"x\": 1}}"), 0, NULL, &E));
    FAILS(KYTOS_ENOTFOUND, kh_store_patch(S, c, "none", J("{\"$set\": {\"x.y\": 1}}"), 0, NULL, &E));
    FAILS(KYTOS_ENOTFOUND, kh_store_get(S, c, "none", &out, &E));
}
END_TEST

START_TEST(patch_indexes)
{
    const char *c = C("pidx");

    OK(kh_store_index(S, c, "tags", J("{\"tags\": 1}"), 0, &E));
    OK(kh_store_index(S, c, "deep", J("{\"m.n\": 1}"), 0, &E));
    OK(kh_store_index(S, c, "fid", J("{\"flow_id\": 1}"), KYTOS_STORE_UNIQUE, &E));
    put(c, "a", "{\"tags\": \"x\", \"m\": {\"n\": 1}, \"flow_id\": \"fa\"}");
    put(c, "b", "{\"tags\": \"y\", \"m\": {\"n\": 2}, \"flow_id\": \"fb\"}");
    ck_assert_str_eq(idset(c, "{\"tags\": \"x\"}"), "a");
    /* patches that turn the indexes multikey: finds still see into the arrays */
    OK(kh_store_patch(S, c, "b", J("{\"$set\": {\"tags\": [\"x\", \"z\"]}}"), 0, NULL, &E));
    ck_assert_str_eq(idset(c, "{\"tags\": \"x\"}"), "a,b");
    ck_assert_str_eq(idset(c, "{\"tags\": \"z\"}"), "b");
    OK(kh_store_patch(S, c, "a", J("{\"$set\": {\"m\": [{\"n\": 5}]}}"), 0, NULL, &E));
    ck_assert_str_eq(idset(c, "{\"m.n\": 5}"), "a");
    OK(kh_store_patch(S, c, "c", J("{\"$set\": {\"m.n\": 7}, \"$setOnInsert\": {\"tags\": [\"w\"]}}"),
                      KYTOS_STORE_UPSERT, NULL, &E));
    ck_assert_str_eq(idset(c, "{\"tags\": \"w\"}"), "c");
    ck_assert_str_eq(idset(c, "{\"m.n\": 7}"), "c");
    /* the unique index holds on every path */
    FAILS(KYTOS_EEXIST, kh_store_patch(S, c, "b", J("{\"$set\": {\"flow_id\": \"fa\"}}"), 0, NULL, &E));
    FAILS(KYTOS_EEXIST, kh_store_patch(S, c, "b", J("{\"$set\": {\"flow_id\": \"fa\", \"m.n\": 3}}"), 0, NULL, &E));
    FAILS(KYTOS_EEXIST, kh_store_patch(S, c, "d", J("{\"$set\": {\"flow_id\": \"fa\"}}"), KYTOS_STORE_UPSERT,
                                       NULL, &E));
    ck_assert_str_eq(json_object_get_string(json_object_object_get(get(c, "b"), "flow_id")), "fb");
    ck_assert_str_eq(idset(c, "{\"flow_id\": \"fa\"}"), "a");
    OK(kh_store_patch(S, c, "b", J("{\"$set\": {\"flow_id\": \"fb2\"}}"), 0, NULL, &E));
    ck_assert_str_eq(idset(c, "{\"flow_id\": \"fb2\"}"), "b");
    ck_assert_int_eq(count(c, "{\"flow_id\": \"fb\"}"), 0);
}
END_TEST

static void load_flows(const char *c)
{
    put(c, "f1", "{\"switch\": \"s1\", \"state\": \"installed\", \"flow\": {\"priority\": 10, \"cookie\": 1,"
                 " \"match\": {\"in_port\": 1}}, \"tags\": [\"a\", \"b\"]}");
    put(c, "f2", "{\"switch\": \"s1\", \"state\": \"pending\", \"flow\": {\"priority\": 20, \"cookie\": 2,"
                 " \"match\": {\"in_port\": 2}}, \"tags\": [\"b\"]}");
    put(c, "f3", "{\"switch\": \"s2\", \"state\": \"installed\", \"flow\": {\"priority\": 30, \"cookie\": 3,"
                 " \"match\": {}}, \"tags\": []}");
    put(c, "f4", "{\"switch\": \"s2\", \"state\": \"deleted\", \"flow\": {\"priority\": 20.5, \"cookie\": 4}}");
    put(c, "f5", "{\"switch\": null, \"state\": \"pending\", \"flow\": {\"priority\": \"high\"}}");
}

START_TEST(find_equality)
{
    const char *c = C("flows");

    load_flows(c);
    ck_assert_str_eq(idset(c, NULL), "f1,f2,f3,f4,f5");
    ck_assert_str_eq(idset(c, "{}"), "f1,f2,f3,f4,f5");
    ck_assert_str_eq(idset(c, "{\"switch\": \"s1\"}"), "f1,f2");
    ck_assert_str_eq(idset(c, "{\"switch\": \"s1\", \"state\": \"pending\"}"), "f2");
    ck_assert_str_eq(idset(c, "{\"flow.match.in_port\": 2}"), "f2");
    ck_assert_str_eq(idset(c, "{\"flow.match\": {}}"), "f3");
    ck_assert_str_eq(idset(c, "{\"_id\": \"f3\"}"), "f3");
    ck_assert_str_eq(idset(c, "{\"_id\": {\"$in\": [\"f3\", \"f1\", \"zz\"]}}"), "f1,f3");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": 20}"), "f2");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": 20.5}"), "f4");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": 10.0}"), "f1");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": \"10\"}"), "");
    /* null matches null and missing */
    ck_assert_str_eq(idset(c, "{\"switch\": null}"), "f5");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": null}"), "f5");
    ck_assert_str_eq(idset(c, "{\"flow.match.in_port\": {\"$exists\": true}}"), "f1,f2");
    ck_assert_str_eq(idset(c, "{\"flow.match\": {\"$exists\": false}}"), "f4,f5");
    ck_assert_int_eq(count(c, "{\"switch\": \"s2\"}"), 2);
    ck_assert_int_eq(count(c, NULL), 5);
    ck_assert_int_eq(count(c, "{\"switch\": \"nope\"}"), 0);
}
END_TEST

START_TEST(find_operators)
{
    const char *c = C("flows");

    load_flows(c);
    ck_assert_str_eq(idset(c, "{\"state\": {\"$in\": [\"pending\", \"deleted\"]}}"), "f2,f4,f5");
    ck_assert_str_eq(idset(c, "{\"state\": {\"$nin\": [\"pending\", \"deleted\"]}}"), "f1,f3");
    ck_assert_str_eq(idset(c, "{\"state\": {\"$ne\": \"installed\"}}"), "f2,f4,f5");
    ck_assert_str_eq(idset(c, "{\"state\": {\"$eq\": \"installed\"}}"), "f1,f3");
    /* ranges compare numbers with numbers only */
    ck_assert_str_eq(idset(c, "{\"flow.priority\": {\"$gt\": 20}}"), "f3,f4");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": {\"$gte\": 20}}"), "f2,f3,f4");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": {\"$lt\": 20}}"), "f1");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": {\"$lte\": 20.5, \"$gt\": 10}}"), "f2,f4");
    ck_assert_str_eq(idset(c, "{\"flow.priority\": {\"$gte\": \"a\"}}"), "f5");
    ck_assert_str_eq(idset(c, "{\"_id\": {\"$gt\": \"f2\", \"$lte\": \"f4\"}}"), "f3,f4");
    ck_assert_str_eq(idset(c, "{\"$or\": [{\"switch\": \"s2\"}, {\"state\": \"pending\"}]}"), "f2,f3,f4,f5");
    ck_assert_str_eq(idset(c, "{\"$and\": [{\"switch\": \"s2\"}, {\"state\": \"deleted\"}]}"), "f4");
    ck_assert_str_eq(idset(c, "{\"switch\": \"s1\", \"$or\": [{\"flow.cookie\": 2}, {\"flow.cookie\": 3}]}"),
                     "f2");
    ck_assert_int_eq(count(c, "{\"flow.priority\": {\"$gte\": 20}}"), 3);
}
END_TEST

START_TEST(find_arrays)
{
    const char *c = C("switches");

    load_flows(c);
    /* an array matches when an element does */
    ck_assert_str_eq(idset(c, "{\"tags\": \"b\"}"), "f1,f2");
    ck_assert_str_eq(idset(c, "{\"tags\": {\"$in\": [\"a\", \"x\"]}}"), "f1");
    ck_assert_str_eq(idset(c, "{\"tags\": [\"b\"]}"), "f2");
    ck_assert_str_eq(idset(c, "{\"tags\": []}"), "f3");
    ck_assert_str_eq(idset(c, "{\"tags.0\": \"b\"}"), "f2");
    ck_assert_str_eq(idset(c, "{\"tags\": {\"$ne\": \"b\"}}"), "f3,f4,f5");
    put(c, "sw", "{\"interfaces\": [{\"id\": \"sw:1\", \"speed\": 10}, {\"id\": \"sw:2\", \"speed\": 100}]}");
    put(c, "sx", "{\"interfaces\": [{\"id\": \"sx:1\", \"speed\": 1}]}");
    ck_assert_str_eq(idset(c, "{\"interfaces.id\": \"sw:2\"}"), "sw");
    ck_assert_str_eq(idset(c, "{\"interfaces.speed\": {\"$gt\": 50}}"), "sw");
    ck_assert_str_eq(idset(c, "{\"interfaces.1.id\": \"sw:2\"}"), "sw");
    ck_assert_int_eq(count(c, "{\"interfaces.id\": {\"$in\": [\"sx:1\", \"sw:1\"]}}"), 2);
}
END_TEST

START_TEST(find_types)
{
    const char *c = C("types");

    put(c, "t", "{\"v\": true}");
    put(c, "one", "{\"v\": 1}");
    put(c, "zero", "{\"v\": 0}");
    put(c, "f", "{\"v\": false}");
    put(c, "s", "{\"v\": \"1\"}");
    put(c, "n", "{\"v\": null}");
    put(c, "o", "{\"v\": {\"a\": 1}}");
    put(c, "d", "{\"v\": 1.0}");
    ck_assert_str_eq(idset(c, "{\"v\": true}"), "t");
    ck_assert_str_eq(idset(c, "{\"v\": 1}"), "d,one");
    ck_assert_str_eq(idset(c, "{\"v\": false}"), "f");
    ck_assert_str_eq(idset(c, "{\"v\": \"1\"}"), "s");
    ck_assert_str_eq(idset(c, "{\"v\": {\"a\": 1}}"), "o");
    ck_assert_str_eq(idset(c, "{\"v\": {\"$gte\": 0}}"), "d,one,zero");
    /* MongoDB's cross-type order: null < numbers < strings < objects < booleans */
    ck_assert_str_eq(ids(c, NULL, "{\"v\": 1, \"_id\": 1}", 0, 0), "n,zero,d,one,s,o,f,t");
}
END_TEST

START_TEST(find_sort_skip_limit)
{
    const char *c = C("flows");

    load_flows(c);
    ck_assert_str_eq(ids(c, NULL, "{\"_id\": -1}", 0, 0), "f5,f4,f3,f2,f1");
    ck_assert_str_eq(ids(c, "{\"switch\": {\"$in\": [\"s1\", \"s2\"]}}", "{\"flow.priority\": -1}", 0, 0),
                     "f3,f4,f2,f1");
    ck_assert_str_eq(ids(c, NULL, "{\"switch\": 1, \"flow.priority\": -1}", 0, 0), "f5,f2,f1,f3,f4");
    ck_assert_str_eq(ids(c, NULL, "{\"_id\": 1}", 1, 2), "f2,f3");
    ck_assert_str_eq(ids(c, NULL, "{\"_id\": 1}", 4, 10), "f5");
    ck_assert_str_eq(ids(c, NULL, "{\"_id\": 1}", 10, 0), "");
    ck_assert_str_eq(ids(c, NULL, "{\"_id\": 1}", 0, 1), "f1");
    /* without a sort: how many, not which */
    ck_assert_int_eq(json_object_array_length(find(c, NULL, NULL, 1, 2, NULL)), 2);
    ck_assert_int_eq(json_object_array_length(find(c, "{\"switch\": \"s1\"}", NULL, 0, 10, NULL)), 2);
    ck_assert_int_eq(json_object_array_length(find(c, NULL, NULL, 3, 0, NULL)), 2);
    /* array sort keys: smallest element ascending, largest descending */
    ck_assert_str_eq(ids(c, "{\"tags\": {\"$exists\": true}}", "{\"tags\": 1, \"_id\": 1}", 0, 0), "f3,f1,f2");
}
END_TEST

START_TEST(find_projection)
{
    const char *c = C("flows");
    struct json_object *r;

    load_flows(c);
    r = find(c, "{\"_id\": \"f1\"}", NULL, 0, 0, "{\"switch\": 1, \"flow.cookie\": 1}");
    assert_json(r, "[{\"_id\": \"f1\", \"switch\": \"s1\", \"flow\": {\"cookie\": 1}}]");
    r = find(c, "{\"_id\": \"f1\"}", NULL, 0, 0, "{\"switch\": 1, \"_id\": 0}");
    assert_json(r, "[{\"switch\": \"s1\"}]");
    r = find(c, "{\"_id\": \"f2\"}", NULL, 0, 0, "{\"flow\": 0, \"tags\": 0}");
    assert_json(r, "[{\"_id\": \"f2\", \"switch\": \"s1\", \"state\": \"pending\"}]");
    r = find(c, "{\"_id\": \"f2\"}", NULL, 0, 0, "{\"flow.match\": 0, \"_id\": 0, \"tags\": 0, \"state\": 0}");
    assert_json(r, "[{\"switch\": \"s1\", \"flow\": {\"priority\": 20, \"cookie\": 2}}]");
    put(c, "sw", "{\"interfaces\": [{\"id\": \"a\", \"speed\": 1}, {\"id\": \"b\", \"speed\": 2}], \"x\": 1}");
    r = find(c, "{\"_id\": \"sw\"}", NULL, 0, 0, "{\"interfaces.id\": 1, \"_id\": 0}");
    assert_json(r, "[{\"interfaces\": [{\"id\": \"a\"}, {\"id\": \"b\"}]}]");
}
END_TEST

/* KYTOS_FIND_TEXT gives, in the same order, exactly the text json-c
 * writes for each document find gives (same filter, sort, projection). */
static void same_as_text(const char *coll, const char *filter, const char *sort, int64_t skip,
                         int64_t limit, const char *proj)
{
    struct json_object *docs = find(coll, filter, sort, skip, limit, proj), *t;
    struct kytos_find q = {.struct_size = sizeof(q),
                           .filter = filter ? J(filter) : NULL,
                           .sort = sort ? J(sort) : NULL,
                           .skip = skip,
                           .limit = limit,
                           .projection = proj ? J(proj) : NULL,
                           .flags = KYTOS_FIND_TEXT};
    kytos_cursor *c = NULL;
    size_t k = 0;
    int rc;

    OK(kh_store_find(S, coll, &q, &c, &E));
    while ((rc = kh_cursor_next(c, &t, &E)) == 1) {
        const char *want;
        ck_assert_msg(k < json_object_array_length(docs), "more texts than documents");
        ck_assert_msg(json_object_is_type(t, json_type_string), "not a string: %s", T(t));
        want = json_object_to_json_string_ext(json_object_array_get_idx(docs, k++),
                                              JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        ck_assert_msg(strlen(want) == (size_t)json_object_get_string_len(t) &&
                          !memcmp(want, json_object_get_string(t), strlen(want)),
                      "%s %s %s: text %s, document %s", filter ? filter : "-", sort ? sort : "-",
                      proj ? proj : "-", json_object_get_string(t), want);
        json_object_put(t);
    }
    ck_assert_msg(rc == 0, "cursor_next -> %d (%s)", rc, E.message);
    ck_assert_uint_eq(k, json_object_array_length(docs));
    kh_cursor_free(c);
}

START_TEST(find_text)
{
    const char *c = C("flows");
    static const char *const sorts[] = {NULL, "{\"flow.priority\": -1, \"_id\": 1}",
                                        "{\"flow.priority\": -1, \"updated_at\": 1}",
                                        "{\"tags\": 1}", "{\"tags\": -1, \"flow.cookie\": 1}",
                                        "{\"flow\": 1}", "{\"flow.match.in_port\": -1, \"flow\": 1}",
                                        "{\"a.b\": 1}"};
    static const char *const projs[] = {NULL, "{\"_id\": 0}", "{\"_id\": 1}", "{\"switch\": 1}",
                                        "{\"flow.match\": 0, \"_id\": 0}"};
    struct json_object *mid = J("{\"switch\": \"s3\", \"_id\": \"f9\", \"flow\": {\"priority\": 5}}");

    load_flows(c);
    put(c, "f6", "{\"switch\": \"s\\u00e9/\\u0001\\t\", \"flow\": {\"priority\": 10, \"cookie\": 18446744073709551615,"
                 " \"x\": -9223372036854775808, \"d\": 1.50, \"e\": -0.0, \"f\": 1e5}, \"updated_at\": \"2026\","
                 " \"empty\": {}, \"none\": [], \"k\\\"ey\": [{\"a\": null}, true, false]}");
    put(c, "f7", "{\"flow\": {\"priority\": 10}, \"updated_at\": \"2025\", \"a\": [{\"b\": 3}, {\"b\": 1}],"
                 " \"tags\": [\"c\", \"a\"]}");
    put(c, "f8", "{\"a\": {\"b\": [2, 9]}, \"flow\": [{\"priority\": 40}, {\"priority\": 1}]}");
    put(c, "only_id", "{}");
    OK(kh_store_put(S, c, "f9", mid, &E));   /* "_id" in the middle */
    for (size_t i = 0; i < sizeof sorts / sizeof *sorts; i++)
        for (size_t j = 0; j < sizeof projs / sizeof *projs; j++)
            same_as_text(c, NULL, sorts[i] ? sorts[i] : "{\"_id\": 1}", 0, 0, projs[j]);
    same_as_text(c, "{\"switch\": {\"$in\": [\"s1\", \"s2\"]}}", "{\"flow.priority\": -1}", 0, 0, "{\"_id\": 0}");
    same_as_text(c, "{\"state\": \"installed\"}", NULL, 0, 0, NULL);
    same_as_text(c, NULL, "{\"_id\": -1}", 2, 3, "{\"_id\": 0}");
    same_as_text(c, "{\"switch\": \"none\"}", "{\"_id\": 1}", 0, 0, "{\"_id\": 0}");
    /* an unknown flag is refused */
    {
        struct kytos_find q = {.struct_size = sizeof(q), .flags = 1u << 7};
        kytos_cursor *cur = NULL;
        FAILS(KYTOS_EINVAL, kh_store_find(S, c, &q, &cur, &E));
    }
}
END_TEST

START_TEST(bad_queries)
{
    const char *c = C("flows");
    struct kytos_find q = {.struct_size = sizeof(q)};
    kytos_cursor *cur = (kytos_cursor *)1;
    int64_t n;
    static const char *const bad_filters[] = {
        "{\"a\": {\"$regex\": \"x\"}}", "{\"a\": {\"$in\": 5}}", "{\"a\": {\"$gt\": 1, \"b\": 2}}",
        "{\"$where\": \"1\"}", "{\"$or\": []}", "{\"$or\": {}}", "{\"a..b\": 1}", "{\"a.$b\": 1}",
        "{\"\": 1}", "[1]", "{\"a\": {\"$exists\": \"yes\"}}", NULL};

    load_flows(c);
    for (int k = 0; bad_filters[k]; k++) {
        q.filter = J(bad_filters[k]);
        FAILS(KYTOS_EFILTER, kh_store_find(S, c, &q, &cur, &E));
        ck_assert_ptr_null(cur);
        FAILS(KYTOS_EFILTER, kh_store_count(S, c, q.filter, &n, &E));
    }
    q.filter = NULL;
    q.sort = J("{\"a\": 2}");
    FAILS(KYTOS_EFILTER, kh_store_find(S, c, &q, &cur, &E));
    q.sort = J("{\"a\": \"asc\"}");
    FAILS(KYTOS_EFILTER, kh_store_find(S, c, &q, &cur, &E));
    q.sort = NULL;
    q.projection = J("{\"a\": 1, \"b\": 0}");
    FAILS(KYTOS_EFILTER, kh_store_find(S, c, &q, &cur, &E));
    q.projection = J("{\"a\": \"yes\"}");
    FAILS(KYTOS_EFILTER, kh_store_find(S, c, &q, &cur, &E));
    q.projection = NULL;
    q.skip = -1;
    FAILS(KYTOS_EINVAL, kh_store_find(S, c, &q, &cur, &E));
    q.skip = 0;
    q.limit = -5;
    FAILS(KYTOS_EINVAL, kh_store_find(S, c, &q, &cur, &E));
    FAILS(KYTOS_EINVAL, kh_store_find(S, c, NULL, NULL, &E));
    /* a NULL query is "everything" */
    OK(kh_store_find(S, c, NULL, &cur, &E));
    kh_cursor_free(cur);
    /* and err may be NULL everywhere */
    ck_assert_int_eq(kh_store_get(S, c, "missing", &(struct json_object *){NULL}, NULL), KYTOS_ENOTFOUND);
}
END_TEST

START_TEST(names)
{
    struct json_object *d = J("{}"), *o;
    char longname[300], longid[2000];
    static const char *const bad[] = {"", "a b", "a/b", "a$", "sqlite_master", "system.users", "ü", "a\"b", NULL};

    for (int k = 0; bad[k]; k++)
        FAILS(KYTOS_EINVAL, kh_store_put(S, bad[k], "x", d, &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, NULL, "x", d, &E));
    memset(longname, 'a', sizeof(longname));
    longname[sizeof(longname) - 1] = '\0';
    FAILS(KYTOS_EINVAL, kh_store_put(S, longname, "x", d, &E));
    FAILS(KYTOS_EINVAL, kh_store_get(S, longname, "x", &o, &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, C("ok"), "", d, &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, C("ok"), NULL, d, &E));
    memset(longid, 'i', sizeof(longid));
    longid[sizeof(longid) - 1] = '\0';
    FAILS(KYTOS_EINVAL, kh_store_put(S, C("ok"), longid, d, &E));
    FAILS(KYTOS_EINVAL, kh_store_put(S, C("ok"), "bad\xff", d, &E));
    /* the allowed alphabet, and ids with any printable text */
    OK(kh_store_put(S, C("Ok.name-1_x"), "a b/c:\"d\"'e", d, &E));
    assert_json(get(C("Ok.name-1_x"), "a b/c:\"d\"'e"), "{\"_id\": \"a b/c:\\\"d\\\"'e\"}");
}
END_TEST

START_TEST(unicode)
{
    const char *c = C("unicode");

    put(c, "ключ-🔑", "{\"name\": \"café ☕ 🚀\", \"ключ\": {\"ü\": \"ñ\"}, \"esc\": \"a\\u0000b\\n\\t\\\"\"}");
    assert_json(get(c, "ключ-🔑"),
                "{\"_id\": \"ключ-🔑\", \"name\": \"café ☕ 🚀\", \"ключ\": {\"ü\": \"ñ\"}, \"esc\": \"a\\u0000b\\n\\t\\\"\"}");
    ck_assert_str_eq(idset(c, "{\"ключ.ü\": \"ñ\"}"), "ключ-🔑");
    ck_assert_str_eq(idset(c, "{\"name\": \"café ☕ 🚀\"}"), "ключ-🔑");
    ck_assert_str_eq(idset(c, "{\"esc\": \"a\\u0000b\\n\\t\\\"\"}"), "ключ-🔑");
}
END_TEST

START_TEST(invalid_values)
{
    const char *c = C("bad");
    struct json_object *d = keep(json_object_new_object());

    json_object_object_add(d, "s", json_object_new_string_len("\xc3\x28", 2));
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "x", d, &E));
    d = keep(json_object_new_object());
    json_object_object_add(d, "nan", json_object_new_double(0.0 / 0.0));
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "x", d, &E));
    d = keep(json_object_new_object());
    json_object_object_add(d, "inf", json_object_new_double(1.0 / 0.0));
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "x", d, &E));
    d = keep(json_object_new_object());
    json_object_object_add(d, "$set", json_object_new_object());
    json_object_object_add(json_object_object_get(d, "$set"), "nan", json_object_new_double(0.0 / 0.0));
    FAILS(KYTOS_EINVAL, kh_store_patch(S, c, "x", d, KYTOS_STORE_UPSERT, NULL, &E));
    ck_assert_int_eq(count(c, NULL), 0);
}
END_TEST

START_TEST(big_integers)
{
    const char *c = C("flows");
    struct json_object *o, *v;
    int ok;

    /* EVC cookies are >= 2^63; flow_manager stores the full uint64 */
    put(c, "max", "{\"flow\": {\"cookie\": 18446744073709551615}}");
    put(c, "a", "{\"flow\": {\"cookie\": 12249790986447749121}}");   /* 0xAA00...01 */
    put(c, "b", "{\"flow\": {\"cookie\": 12249790986447749122}}");   /* +1: same double */
    put(c, "top", "{\"flow\": {\"cookie\": 9223372036854775807}}");
    put(c, "min", "{\"flow\": {\"cookie\": -9223372036854775808}}");
    put(c, "d", "{\"flow\": {\"cookie\": 12249790986447749120.0}}");
    o = get(c, "max");
    ck_assert(json_object_object_get_ex(json_object_object_get(o, "flow"), "cookie", &v));
    ck_assert_uint_eq(json_object_get_uint64(v), UINT64_MAX);
    ck_assert(strstr(T(o), "18446744073709551615") != NULL);
    o = get(c, "min");
    ck_assert_int_eq(json_object_get_int64(json_object_object_get(json_object_object_get(o, "flow"), "cookie")),
                     INT64_MIN);
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": 12249790986447749121}"), "a");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": 12249790986447749122}"), "b");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": {\"$gt\": 12249790986447749121}}"), "b,max");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": {\"$gte\": 12249790986447749120}}"), "a,b,d,max");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": {\"$lt\": 12249790986447749121, \"$gt\": 0}}"), "d,top");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": {\"$in\": [18446744073709551615, -9223372036854775808]}}"),
                     "max,min");
    ck_assert_str_eq(ids(c, NULL, "{\"flow.cookie\": 1}", 0, 0), "min,top,d,a,b,max");
    /* the same through an index */
    OK(kh_store_index(S, c, "cookie", J("{\"flow.cookie\": 1}"), 0, &E));
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": 12249790986447749122}"), "b");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": {\"$gt\": 12249790986447749121}}"), "b,max");
    ck_assert_str_eq(idset(c, "{\"flow.cookie\": {\"$lt\": 12249790986447749122, \"$gt\": 12249790986447749120}}"),
                     "a");
    /* patch keeps them too */
    OK(kh_store_patch(S, c, "a", J("{\"$set\": {\"flow.cookie2\": 18446744073709551614}}"), 0, &o, &E));
    keep(o);
    ok = strstr(T(get(c, "a")), "\"cookie\":12249790986447749121,\"cookie2\":18446744073709551614") != NULL;
    ck_assert_msg(ok, "got %s", T(get(c, "a")));
}
END_TEST

START_TEST(large_document)
{
    const char *c = C("large");
    size_t n = 4u << 20;
    char *big = malloc(n + 1);
    struct json_object *d = keep(json_object_new_object()), *o;

    memset(big, 'x', n);
    big[n] = '\0';
    json_object_object_add(d, "blob", json_object_new_string(big));
    for (int k = 0; k < 2000; k++) {
        char key[16];
        snprintf(key, sizeof(key), "k%d", k);
        json_object_object_add(d, key, json_object_new_int(k));
    }
    OK(kh_store_put(S, c, "big", d, &E));
    o = get(c, "big");
    ck_assert_int_eq(json_object_get_string_len(json_object_object_get(o, "blob")), (int)n);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(o, "k1999")), 1999);
    ck_assert_int_eq(json_object_object_length(o), 2002);
    free(big);
    /* past 16 MiB */
    n = 17u << 20;
    big = malloc(n + 1);
    memset(big, 'y', n);
    big[n] = '\0';
    d = keep(json_object_new_object());
    json_object_object_add(d, "blob", json_object_new_string(big));
    free(big);
    FAILS(KYTOS_ETOOBIG, kh_store_put(S, c, "huge", d, &E));
}
END_TEST

START_TEST(deep_document)
{
    const char *c = C("deep");
    struct json_object *root = keep(json_object_new_object()), *cur = root;

    for (int k = 0; k < 98; k++) {
        struct json_object *n = json_object_new_object();
        json_object_object_add(cur, "d", n);
        cur = n;
    }
    OK(kh_store_put(S, c, "ok", root, &E));
    ck_assert_int_eq(count(c, NULL), 1);
    for (int k = 0; k < 10; k++) {
        struct json_object *n = json_object_new_object();
        json_object_object_add(cur, "d", n);
        cur = n;
    }
    FAILS(KYTOS_EINVAL, kh_store_put(S, c, "deep", root, &E));
}
END_TEST

START_TEST(index_unique)
{
    const char *c = C("flows");

    put(c, "f1", "{\"flow_id\": \"aaa\", \"n\": 1}");
    put(c, "f2", "{\"flow_id\": \"bbb\", \"n\": 1}");
    OK(kh_store_index(S, c, "flow_id", J("{\"flow_id\": 1}"), KYTOS_STORE_UNIQUE, &E));
    /* again: nothing to do */
    OK(kh_store_index(S, c, "flow_id", J("{\"flow_id\": 1}"), KYTOS_STORE_UNIQUE, &E));
    FAILS(KYTOS_EEXIST, kh_store_insert(S, c, "f3", J("{\"flow_id\": \"aaa\"}"), &E));
    ck_assert_ptr_nonnull(strstr(E.message, "flow_id"));
    FAILS(KYTOS_EEXIST, kh_store_put(S, c, "f3", J("{\"flow_id\": \"bbb\"}"), &E));
    FAILS(KYTOS_EEXIST, kh_store_patch(S, c, "f2", J("{\"$set\": {\"flow_id\": \"aaa\"}}"), 0, NULL, &E));
    /* replacing a document with its own key is fine */
    put(c, "f1", "{\"flow_id\": \"aaa\", \"n\": 2}");
    put(c, "f3", "{\"flow_id\": \"ccc\"}");
    ck_assert_str_eq(idset(c, "{\"flow_id\": \"aaa\"}"), "f1");
    ck_assert_str_eq(idset(c, "{\"flow_id\": {\"$in\": [\"ccc\", \"bbb\"]}}"), "f2,f3");
    ck_assert_int_eq(count(c, NULL), 3);
    /* same name, other keys */
    FAILS(KYTOS_EEXIST, kh_store_index(S, c, "flow_id", J("{\"n\": 1}"), 0, &E));
    /* a unique index over duplicates */
    put(c, "f1", "{\"flow_id\": \"aaa\", \"n\": 1}");
    FAILS(KYTOS_EEXIST, kh_store_index(S, c, "n_unique", J("{\"n\": 1}"), KYTOS_STORE_UNIQUE, &E));
    put(c, "f1", "{\"flow_id\": \"aaa\", \"n\": 3}");
    OK(kh_store_index(S, c, "n_unique", J("{\"n\": 1}"), KYTOS_STORE_UNIQUE, &E));
    /* as in MongoDB, a missing field is a null key: f3 has none already */
    FAILS(KYTOS_EEXIST, kh_store_insert(S, c, "f4", J("{\"flow_id\": \"ddd\"}"), &E));
    OK(kh_store_insert(S, c, "f4", J("{\"flow_id\": \"ddd\", \"n\": 4}"), &E));
}
END_TEST

START_TEST(index_compound)
{
    const char *c = C("flows");
    char id[16];

    for (int k = 0; k < 60; k++) {
        char doc[200];
        snprintf(id, sizeof(id), "f%02d", k);
        snprintf(doc, sizeof(doc),
                 "{\"switch\": \"s%d\", \"state\": \"%s\", \"flow\": {\"priority\": %d, \"cookie\": %d}}", k % 3,
                 k % 2 ? "installed" : "pending", k, k * 7);
        put(c, id, doc);
    }
    OK(kh_store_index(S, c, "by_switch", J("{\"switch\": 1, \"flow.cookie\": 1, \"state\": 1,"
                                           " \"flow.priority\": -1}"), 0, &E));
    OK(kh_store_index(S, c, "state", J("{\"state\": 1}"), 0, &E));
    OK(kh_store_index(S, c, "prio", J("{\"flow.priority\": -1}"), 0, &E));
    ck_assert_int_eq(count(c, "{\"switch\": \"s1\"}"), 20);
    ck_assert_int_eq(count(c, "{\"switch\": \"s1\", \"state\": \"installed\"}"), 10);
    ck_assert_int_eq(count(c, "{\"switch\": \"s1\", \"flow.cookie\": {\"$gte\": 70, \"$lt\": 140}}"), 4);
    ck_assert_str_eq(ids(c, "{\"switch\": \"s2\", \"state\": \"pending\"}", "{\"flow.priority\": -1}", 0, 3),
                     "f56,f50,f44");
    ck_assert_int_eq(count(c, "{\"state\": {\"$in\": [\"pending\", \"deleted\"]}}"), 30);
    ck_assert_int_eq(count(c, "{\"flow.priority\": {\"$gt\": 49}}"), 10);
    /* writes after the index keep it right */
    OK(kh_store_patch(S, c, "f01", J("{\"$set\": {\"switch\": \"s9\"}}"), 0, NULL, &E));
    OK(kh_store_delete(S, c, "f04", &E));
    ck_assert_int_eq(count(c, "{\"switch\": \"s1\"}"), 18);
    ck_assert_str_eq(idset(c, "{\"switch\": \"s9\"}"), "f01");
    FAILS(KYTOS_EINVAL, kh_store_index(S, c, "bad", J("{\"a\": 2}"), 0, &E));
    FAILS(KYTOS_EINVAL, kh_store_index(S, c, "bad", J("{}"), 0, &E));
    FAILS(KYTOS_EINVAL, kh_store_index(S, c, "bad name", J("{\"a\": 1}"), 0, &E));
    FAILS(KYTOS_EINVAL, kh_store_index(S, c, "bad", J("{\"a..b\": 1}"), 0, &E));
}
END_TEST

START_TEST(index_multikey)
{
    const char *c = C("switches");

    put(c, "s1", "{\"interfaces\": [{\"id\": \"s1:1\"}, {\"id\": \"s1:2\"}]}");
    OK(kh_store_index(S, c, "intf", J("{\"interfaces.id\": 1}"), 0, &E));
    put(c, "s2", "{\"interfaces\": [{\"id\": \"s2:1\"}]}");
    put(c, "s3", "{\"interfaces\": {\"id\": \"s3:1\"}}");
    ck_assert_str_eq(idset(c, "{\"interfaces.id\": \"s1:2\"}"), "s1");
    ck_assert_str_eq(idset(c, "{\"interfaces.id\": \"s2:1\"}"), "s2");
    ck_assert_str_eq(idset(c, "{\"interfaces.id\": \"s3:1\"}"), "s3");
    /* an index that turns multikey after it is built */
    OK(kh_store_index(S, C("links"), "ep", J("{\"endpoints\": 1}"), 0, &E));
    put(C("links"), "l1", "{\"endpoints\": \"a\"}");
    ck_assert_str_eq(idset(C("links"), "{\"endpoints\": \"a\"}"), "l1");
    put(C("links"), "l2", "{\"endpoints\": [\"a\", \"b\"]}");
    ck_assert_str_eq(idset(C("links"), "{\"endpoints\": \"a\"}"), "l1,l2");
    ck_assert_str_eq(idset(C("links"), "{\"endpoints\": \"b\"}"), "l2");
}
END_TEST

START_TEST(bulk_writes)
{
    const char *c = C("flows");
    struct kytos_write ops[5];
    struct kytos_write bad[3];

    put(c, "gone", "{\"x\": 1}");
    put(c, "p", "{\"state\": \"pending\"}");
    ops[0] = (struct kytos_write){KYTOS_WRITE_PUT, "a", J("{\"v\": 1}"), 0};
    ops[1] = (struct kytos_write){KYTOS_WRITE_INSERT, "b", J("{\"v\": 2}"), 0};
    ops[2] = (struct kytos_write){KYTOS_WRITE_PATCH, "p", J("{\"$set\": {\"state\": \"installed\"}}"), 0};
    ops[3] = (struct kytos_write){KYTOS_WRITE_DELETE, "gone", NULL, 0};
    ops[4] = (struct kytos_write){KYTOS_WRITE_PATCH, "u", J("{\"$set\": {\"v\": 5}}"), KYTOS_STORE_UPSERT};
    OK(kh_store_bulk(S, c, ops, 5, &E));
    ck_assert_str_eq(idset(c, NULL), "a,b,p,u");
    assert_json(get(c, "p"), "{\"_id\": \"p\", \"state\": \"installed\"}");
    assert_json(get(c, "u"), "{\"_id\": \"u\", \"v\": 5}");
    /* a missing document is not an error for a bulk delete */
    OK(kh_store_bulk(S, c, &(struct kytos_write){KYTOS_WRITE_DELETE, "never", NULL, 0}, 1, &E));
    OK(kh_store_bulk(S, c, ops, 0, &E));
    /* an error stops the bulk (and undoes it where the backend is atomic) */
    bad[0] = (struct kytos_write){KYTOS_WRITE_PUT, "c", J("{\"v\": 3}"), 0};
    bad[1] = (struct kytos_write){KYTOS_WRITE_INSERT, "a", J("{\"v\": 9}"), 0};
    bad[2] = (struct kytos_write){KYTOS_WRITE_PUT, "d", J("{\"v\": 4}"), 0};
    FAILS(KYTOS_EEXIST, kh_store_bulk(S, c, bad, 3, &E));
    ck_assert_msg(strstr(E.message, "op 1") != NULL, "message: %s", E.message);
    ck_assert_str_eq(idset(c, "{\"_id\": \"d\"}"), "");
    ck_assert_str_eq(idset(c, "{\"_id\": \"c\"}"), B->atomic_bulk ? "" : "c");
    assert_json(get(c, "a"), "{\"_id\": \"a\", \"v\": 1}");
    /* patch of a missing document without upsert */
    bad[0] = (struct kytos_write){KYTOS_WRITE_PATCH, "zz", J("{\"$set\": {\"v\": 1}}"), 0};
    FAILS(KYTOS_ENOTFOUND, kh_store_bulk(S, c, bad, 1, &E));
    /* bad ops are refused before anything is written */
    bad[0] = (struct kytos_write){KYTOS_WRITE_PUT, "e", J("{\"v\": 3}"), 0};
    bad[1] = (struct kytos_write){99, "f", J("{}"), 0};
    FAILS(KYTOS_EINVAL, kh_store_bulk(S, c, bad, 2, &E));
    bad[1] = (struct kytos_write){KYTOS_WRITE_PATCH, "f", J("{\"$bad\": {}}"), 0};
    FAILS(KYTOS_EFILTER, kh_store_bulk(S, c, bad, 2, &E));
    bad[1] = (struct kytos_write){KYTOS_WRITE_PUT, "", J("{}"), 0};
    FAILS(KYTOS_EINVAL, kh_store_bulk(S, c, bad, 2, &E));
    ck_assert_str_eq(idset(c, "{\"_id\": \"e\"}"), "");
}
END_TEST

/* kytos_store_bulk_async: what each write's done callback said, in order */
struct async_log {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int n;
    int rc[256];
    char msg[256][160];
    pthread_t th[256];   /* the thread that ran each callback */
};

static void async_done(void *ud, int rc, const struct kytos_error *err)
{
    struct async_log *l = ud;
    pthread_mutex_lock(&l->mu);
    if (l->n < 256) {
        l->rc[l->n] = rc;
        l->th[l->n] = pthread_self();
        snprintf(l->msg[l->n], sizeof l->msg[0], "%.150s", err ? err->message : "");
    }
    l->n++;
    pthread_cond_broadcast(&l->cv);
    pthread_mutex_unlock(&l->mu);
}

static int async_wait(struct async_log *l, int n)
{
    struct timespec ts;
    int got;

    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += 10;
    pthread_mutex_lock(&l->mu);
    while (l->n < n && pthread_cond_timedwait(&l->cv, &l->mu, &ts) == 0)
        ;
    got = l->n;
    pthread_mutex_unlock(&l->mu);
    return got;
}

/* a write for the async calls, which take the doc over (no keep()) */
static struct kytos_write W(int op, const char *id, const char *doc, unsigned flags)
{
    return (struct kytos_write){op, id, doc ? json_tokener_parse(doc) : NULL, flags};
}

START_TEST(bulk_async)
{
    const char *c = C("flows");
    /* static: a callback may outlive a failed assertion (teardown closes the
     * store); reset here, so each run of the test starts from nothing */
    static struct async_log l;
    memset(&l, 0, sizeof l);
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    struct kytos_write w[2];
    char upd[64];
    int k;

    /* queued writes to one document apply in the order they were queued */
    for (k = 0; k < 8; k++) {
        snprintf(upd, sizeof upd, "{\"$set\": {\"v\": %d}}", k);
        w[0] = W(KYTOS_WRITE_PATCH, "f", upd, KYTOS_STORE_UPSERT);
        OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    }
    /* a failing bulk among them is undone alone; the next one commits */
    w[0] = W(KYTOS_WRITE_PUT, "x", "{\"v\": 1}", 0);
    w[1] = W(KYTOS_WRITE_INSERT, "f", "{\"v\": 9}", 0);
    OK(kh_store_bulk_async(S, c, w, 2, async_done, &l, &E));
    w[0] = W(KYTOS_WRITE_PUT, "y", "{\"v\": 2}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    ck_assert_int_eq(async_wait(&l, 10), 10);
    for (k = 0; k < 8; k++)
        ck_assert_msg(l.rc[k] == 0, "write %d: %d %s", k, l.rc[k], l.msg[k]);
    ck_assert_int_eq(l.rc[8], KYTOS_EEXIST);
    ck_assert_msg(strstr(l.msg[8], "op 1") != NULL, "message: %s", l.msg[8]);
    ck_assert_int_eq(l.rc[9], 0);
    assert_json(get(c, "f"), "{\"_id\": \"f\", \"v\": 7}");
    ck_assert_str_eq(idset(c, "{\"_id\": \"x\"}"), B->atomic_bulk ? "" : "x");
    assert_json(get(c, "y"), "{\"_id\": \"y\", \"v\": 2}");
    /* alone in its commit (the writer idle when it is queued): a failing
     * bulk is undone whole all the same, and the writer goes on */
    w[0] = W(KYTOS_WRITE_PUT, "solo", "{\"v\": 1}", 0);
    w[1] = W(KYTOS_WRITE_INSERT, "f", "{\"v\": 9}", 0);
    OK(kh_store_bulk_async(S, c, w, 2, async_done, &l, &E));
    ck_assert_int_eq(async_wait(&l, 11), 11);
    ck_assert_int_eq(l.rc[10], KYTOS_EEXIST);
    ck_assert_msg(strstr(l.msg[10], "op 1") != NULL, "message: %s", l.msg[10]);
    ck_assert_str_eq(idset(c, "{\"_id\": \"solo\"}"), B->atomic_bulk ? "" : "solo");
    w[0] = W(KYTOS_WRITE_PATCH, "nowhere", "{\"$set\": {\"v\": 1}}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    ck_assert_int_eq(async_wait(&l, 12), 12);
    ck_assert_int_eq(l.rc[11], KYTOS_ENOTFOUND);
    /* refused at once (done is never called; the docs are freed all the same) */
    w[0] = W(99, "z", "{}", 0);
    FAILS(KYTOS_EINVAL, kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    w[0] = W(KYTOS_WRITE_PATCH, "z", "{\"$bad\": 1}", 0);
    FAILS(KYTOS_EFILTER, kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    w[0] = W(KYTOS_WRITE_PUT, "z", "{}", 0);
    FAILS(KYTOS_EINVAL, kh_store_bulk_async(S, c, w, 1, NULL, &l, &E));
    FAILS(KYTOS_EINVAL, kh_store_bulk_async(S, c, w, 0, async_done, &l, &E));
    /* a refused write never answers: nothing came after the first 12 (the
     * writer answers in order, so a stray callback would be before the
     * next queued write's, which is awaited below) */
    w[0] = W(KYTOS_WRITE_PUT, "after", "{}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    ck_assert_int_eq(async_wait(&l, 13), 13);
    pthread_mutex_lock(&l.mu);
    ck_assert_int_eq(l.n, 13);
    ck_assert_int_eq(l.rc[12], 0);
    pthread_mutex_unlock(&l.mu);
    assert_json(get(c, "after"), "{\"_id\": \"after\"}");
    /* closing the store answers every write still queued */
    for (k = 0; k < 100; k++) {
        char id[16];
        snprintf(id, sizeof id, "q%d", k);
        w[0] = W(KYTOS_WRITE_PUT, id, "{\"v\": 1}", 0);
        OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    }
    B->close(S);
    S = NULL;
    pthread_mutex_lock(&l.mu);
    ck_assert_int_eq(l.n, 113);
    for (k = 13; k < 113; k++)
        ck_assert_int_eq(l.rc[k], 0);
    pthread_mutex_unlock(&l.mu);
    S = B->open();   /* for teardown */
}
END_TEST

/* Claims (store_async.c): an inline handler's write that finds the writer
 * idle is committed by the handler's thread at kh_store_claims_run, with
 * the writes queued behind it, in order; released, the writer runs it;
 * not allowed (or a backend that does not take claims), the writer. */
static struct async_log claims_log;

static void *submit_other(void *coll)
{
    struct kytos_write w = W(KYTOS_WRITE_PATCH, "a", "{\"$set\": {\"v\": 11}}", 0);
    struct kytos_error e = {0};

    if (kh_store_bulk_async(S, coll, &w, 1, async_done, &claims_log, &e) != 0)
        fprintf(stderr, "submit from another thread: %s\n", e.message);
    return NULL;
}

START_TEST(bulk_async_claims)
{
    const char *c = C("flows");
    struct async_log *lp = &claims_log;
#define l (*lp)
    int claims = !strcmp(B->name, "sqlite");
    pthread_t me = pthread_self();
    struct kytos_write w[1];

    memset(&l, 0, sizeof l);
    pthread_mutex_init(&l.mu, NULL);
    pthread_cond_init(&l.cv, NULL);
    /* the writer's first write starts it; then it sleeps, idle */
    w[0] = W(KYTOS_WRITE_PUT, "a", "{\"v\": 0}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    ck_assert_int_eq(async_wait(&l, 1), 1);
    OK(kh_store_async_wait(S, 5000));
    ck_assert_msg(!pthread_equal(l.th[0], me), "the writer answers a write nobody claims");

    ck_assert_int_eq(kh_store_claims_allow(1), 0);
    w[0] = W(KYTOS_WRITE_PATCH, "a", "{\"$set\": {\"v\": 1}}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    w[0] = W(KYTOS_WRITE_PATCH, "a", "{\"$set\": {\"v\": 2}}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    ck_assert_int_eq(kh_store_claims_allow(0), 1);
    if (claims) {
        /* claimed: nobody runs them until this thread does (the writer
         * waits for the claim, so this reads no race) */
        pthread_mutex_lock(&l.mu);
        ck_assert_int_eq(l.n, 1);
        pthread_mutex_unlock(&l.mu);
        kh_store_claims_run();
        pthread_mutex_lock(&l.mu);
        ck_assert_int_eq(l.n, 3);
        ck_assert_msg(pthread_equal(l.th[1], me) && pthread_equal(l.th[2], me),
                      "the claiming thread runs the batch and its callbacks");
        pthread_mutex_unlock(&l.mu);
    } else {
        kh_store_claims_run();   /* nothing claimed: nothing to do */
        ck_assert_int_eq(async_wait(&l, 3), 3);
        ck_assert_msg(!pthread_equal(l.th[1], me), "%s takes no claims", B->name);
    }
    ck_assert_int_eq(l.rc[1], 0);
    ck_assert_int_eq(l.rc[2], 0);
    assert_json(get(c, "a"), "{\"_id\": \"a\", \"v\": 2}");

    /* released (the thread is about to wait): the writer runs it */
    OK(kh_store_async_wait(S, 5000));
    kh_store_claims_allow(1);
    w[0] = W(KYTOS_WRITE_PATCH, "a", "{\"$set\": {\"v\": 3}}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    kh_store_claims_allow(0);
    kh_store_claims_release();
    ck_assert_int_eq(async_wait(&l, 4), 4);
    ck_assert_msg(!pthread_equal(l.th[3], me), "a released claim is the writer's");
    kh_store_claims_run();   /* nothing left to run */
    OK(kh_store_async_wait(S, 5000));
    pthread_mutex_lock(&l.mu);
    ck_assert_int_eq(l.n, 4);
    pthread_mutex_unlock(&l.mu);

    /* another thread's write takes the claim back: the writer runs both,
     * in order (a claim never holds up another thread's write) */
    if (claims) {
        pthread_t other;
        OK(kh_store_async_wait(S, 5000));
        kh_store_claims_allow(1);
        w[0] = W(KYTOS_WRITE_PATCH, "a", "{\"$set\": {\"v\": 10}}", 0);
        OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
        kh_store_claims_allow(0);
        pthread_mutex_lock(&l.mu);
        ck_assert_int_eq(l.n, 4);   /* claimed: not run yet */
        pthread_mutex_unlock(&l.mu);
        ck_assert_int_eq(pthread_create(&other, NULL, submit_other, (void *)c), 0);
        ck_assert_int_eq(async_wait(&l, 6), 6);
        pthread_join(other, NULL);
        ck_assert_msg(!pthread_equal(l.th[4], me) && !pthread_equal(l.th[5], me),
                      "the writer ran the claimed write and the other thread's");
        kh_store_claims_run();   /* taken back: nothing to run */
        assert_json(get(c, "a"), "{\"_id\": \"a\", \"v\": 11}");
        pthread_mutex_lock(&l.mu);
        ck_assert_int_eq(l.n, 6);
        l.n = 4;   /* the checks below count from here */
        pthread_mutex_unlock(&l.mu);
    }

    /* not allowed: the writer, as before */
    w[0] = W(KYTOS_WRITE_PATCH, "a", "{\"$set\": {\"v\": 4}}", 0);
    OK(kh_store_bulk_async(S, c, w, 1, async_done, &l, &E));
    kh_store_claims_run();
    ck_assert_int_eq(async_wait(&l, 5), 5);
    ck_assert_msg(!pthread_equal(l.th[4], me), "no claim without allow");
    assert_json(get(c, "a"), "{\"_id\": \"a\", \"v\": 4}");
    if (claims) {
        struct json_object *st = kh_store_status(S), *as = NULL, *n = NULL;
        ck_assert(json_object_object_get_ex(st, "async", &as));
        ck_assert(json_object_object_get_ex(as, "claimed_batches", &n));
        ck_assert_int_eq(json_object_get_int64(n), 1);
        json_object_put(st);
    }
}
#undef l
END_TEST

START_TEST(bulk_thousand)
{
    const char *c = C("flows");
    struct kytos_write *ops = calloc(1000, sizeof(*ops));
    char (*idbuf)[16] = calloc(1000, 16);

    for (int k = 0; k < 1000; k++) {
        char doc[100];
        snprintf(idbuf[k], 16, "id%04d", k);
        snprintf(doc, sizeof(doc), "{\"n\": %d, \"state\": \"pending\"}", k);
        ops[k] = (struct kytos_write){KYTOS_WRITE_PUT, idbuf[k], J(doc), 0};
    }
    OK(kh_store_bulk(S, c, ops, 1000, &E));
    ck_assert_int_eq(count(c, NULL), 1000);
    ck_assert_int_eq(count(c, "{\"n\": {\"$gte\": 500}}"), 500);
    free(ops);
    free(idbuf);
}
END_TEST

struct writer_arg {
    const char *coll;
    int t;
    int failures;
    char msg[256];
};

#define THREADS 4
#define PER_THREAD 150

static void *writer(void *p)
{
    struct writer_arg *a = p;
    struct kytos_error e = {0};

    for (int k = 0; k < PER_THREAD; k++) {
        char id[32], upd[128];
        struct json_object *d = json_object_new_object(), *u, *o = NULL;
        snprintf(id, sizeof(id), "t%d-%d", a->t, k);
        json_object_object_add(d, "t", json_object_new_int(a->t));
        json_object_object_add(d, "k", json_object_new_int(k));
        if (kh_store_put(S, a->coll, id, d, &e) < 0 || kh_store_get(S, a->coll, id, &o, &e) < 0) {
            a->failures++;
            snprintf(a->msg, sizeof(a->msg), "%s", e.message);
        }
        json_object_put(d);
        json_object_put(o);
        /* everyone patches one shared document, each its own field */
        snprintf(upd, sizeof(upd), "{\"$set\": {\"by.t%d\": %d}}", a->t, k);
        u = json_tokener_parse(upd);
        if (kh_store_patch(S, a->coll, "shared", u, KYTOS_STORE_UPSERT, NULL, &e) < 0) {
            a->failures++;
            snprintf(a->msg, sizeof(a->msg), "%s", e.message);
        }
        json_object_put(u);
    }
    return NULL;
}

START_TEST(concurrent_writers)
{
    const char *c = C("conc");
    pthread_t th[THREADS];
    struct writer_arg args[THREADS];
    struct json_object *shared;

    for (int t = 0; t < THREADS; t++) {
        args[t] = (struct writer_arg){.coll = c, .t = t};
        ck_assert_int_eq(pthread_create(&th[t], NULL, writer, &args[t]), 0);
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        ck_assert_msg(args[t].failures == 0, "thread %d: %d failures (%s)", t, args[t].failures, args[t].msg);
    }
    ck_assert_int_eq(count(c, NULL), THREADS * PER_THREAD + 1);
    ck_assert_int_eq(count(c, "{\"t\": 2}"), PER_THREAD);
    shared = get(c, "shared");
    for (int t = 0; t < THREADS; t++) {
        char key[8];
        snprintf(key, sizeof(key), "t%d", t);
        ck_assert_int_eq(json_object_get_int(json_object_object_get(json_object_object_get(shared, "by"), key)),
                         PER_THREAD - 1);
    }
}
END_TEST

START_TEST(status_counts)
{
    const char *c = C("st");
    struct json_object *st, *ops, *v;
    struct json_object *o;

    put(c, "a", "{}");
    kh_store_get(S, c, "a", &o, &E);
    json_object_put(o);
    kh_store_get(S, c, "missing", &o, &E);
    st = keep(kh_store_status(S));
    ck_assert_ptr_nonnull(st);
    ck_assert(json_object_object_get_ex(st, "backend", &v));
    ck_assert_str_eq(json_object_get_string(v), B->name);
    ck_assert(json_object_object_get_ex(st, "healthy", &v));
    ck_assert(json_object_get_boolean(v));
    ck_assert(json_object_object_get_ex(st, "ops", &ops));
    ck_assert_int_ge(json_object_get_int(json_object_object_get(ops, "put")), 1);
    ck_assert_int_ge(json_object_get_int(json_object_object_get(ops, "get")), 2);
    ck_assert_int_ge(json_object_get_int(json_object_object_get(st, "errors")), 1);
    ck_assert_int_eq(json_object_get_int(json_object_object_get(st, "unavailable")), 0);
}
END_TEST

Suite *store_conformance_suite(const struct conf_backend *b)
{
    Suite *s = suite_create(b->name);
    TCase *tc;

    B = b;
    tc = kytos_check_case(s, "documents", setup, teardown, 60);
    tcase_add_test(tc, get_missing);
    tcase_add_test(tc, put_get_replace);
    tcase_add_test(tc, insert_duplicate);
    tcase_add_test(tc, delete_doc);
    tcase_add_test(tc, names);
    tcase_add_test(tc, unicode);
    tcase_add_test(tc, invalid_values);
    tcase_add_test(tc, big_integers);
    tcase_add_test(tc, large_document);
    tcase_add_test(tc, deep_document);
    tc = kytos_check_case(s, "patch", setup, teardown, 60);
    tcase_add_test(tc, patch_set_unset);
    tcase_add_test(tc, patch_upsert);
    tcase_add_test(tc, patch_errors);
    tcase_add_test(tc, patch_paths);
    tcase_add_test(tc, patch_upsert_paths);
    tcase_add_test(tc, patch_indexes);
    tc = kytos_check_case(s, "find", setup, teardown, 60);
    tcase_add_test(tc, find_equality);
    tcase_add_test(tc, find_operators);
    tcase_add_test(tc, find_arrays);
    tcase_add_test(tc, find_types);
    tcase_add_test(tc, find_sort_skip_limit);
    tcase_add_test(tc, find_projection);
    tcase_add_test(tc, bad_queries);
    tc = kytos_check_case(s, "indexes", setup, teardown, 60);
    tcase_add_test(tc, index_unique);
    tcase_add_test(tc, index_compound);
    tcase_add_test(tc, index_multikey);
    tc = kytos_check_case(s, "bulk", setup, teardown, 60);
    tcase_add_test(tc, bulk_writes);
    tcase_add_test(tc, find_text);
    tcase_add_test(tc, bulk_thousand);
    tcase_add_test(tc, bulk_async);
    tcase_add_test(tc, bulk_async_claims);
    tcase_add_test(tc, concurrent_writers);
    tcase_add_test(tc, status_counts);
    return s;
}
