/* tests/store/check_store_doc.c - unit tests of the document helpers:
 * paths, exact number order, updates, filters, projections. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "check_tap.h"
#include "host/store/store_doc.h"
#include "host/store/store_text.h"
#include "host/store/store_filter.h"
#include "host/store/store_bson.h"

static struct json_object *J(const char *t)
{
    struct json_object *o = json_tokener_parse(t);
    ck_assert_msg(o != NULL, "bad JSON %s", t);
    return o;
}

START_TEST(paths)
{
    struct kh_path p;
    struct kytos_error e = {0};
    char lit[128];
    size_t idx;
    static const char *const bad[] = {"", ".a", "a.", "a..b", "$a", "a.$", "a\"b", "a\nb", NULL};

    ck_assert_int_eq(kh_path_parse(&p, "flow.match.in_port", "t", &e), 0);
    ck_assert_int_eq(p.n, 3);
    ck_assert_str_eq(p.seg[2], "in_port");
    for (int k = 0; bad[k]; k++) {
        ck_assert_int_eq(kh_path_parse(&p, bad[k], "t", &e), KYTOS_EFILTER);
        ck_assert(e.message[0]);
    }
    ck_assert_int_eq(kh_path_parse(&p, "it's.x y", "t", &e), 0);
    ck_assert_int_eq(kh_path_sql_literal(&p, lit, sizeof(lit)), 0);
    ck_assert_str_eq(lit, "'$.\"it''s\".\"x y\"'");
    ck_assert_int_eq(kh_path_sql_literal(&p, lit, 8), -1);
    ck_assert(kh_seg_index("0", &idx) && idx == 0);
    ck_assert(kh_seg_index("12", &idx) && idx == 12);
    ck_assert(!kh_seg_index("01", &idx));
    ck_assert(!kh_seg_index("-1", &idx));
    ck_assert(!kh_seg_index("1a", &idx));
    ck_assert(!kh_seg_index("99999999999999999999", &idx));
    {
        char long_path[600];
        memset(long_path, 'a', sizeof(long_path));
        long_path[599] = '\0';
        ck_assert_int_eq(kh_path_parse(&p, long_path, "t", &e), KYTOS_EFILTER);
        for (int k = 0; k < 40; k++) {
            long_path[2 * k] = 'a';
            long_path[2 * k + 1] = '.';
        }
        long_path[80] = 'z';
        long_path[81] = '\0';
        ck_assert_int_eq(kh_path_parse(&p, long_path, "t", &e), KYTOS_EFILTER);
    }
}
END_TEST

START_TEST(numbers)
{
    struct json_object *a = json_object_new_uint64(UINT64_MAX), *b = json_object_new_double(18446744073709551616.0);
    struct json_object *c = json_object_new_uint64(9223372036854775809u), *d = json_object_new_int64(INT64_MAX);
    struct json_object *e = json_object_new_double(9223372036854775808.0), *f = json_object_new_int64(-3);
    struct json_object *g = json_object_new_double(-2.5), *h = json_object_new_double(-3.0);

    ck_assert_int_lt(kh_json_cmp(a, b), 0);
    ck_assert_int_gt(kh_json_cmp(c, e), 0);
    ck_assert_int_lt(kh_json_cmp(d, e), 0);
    ck_assert_int_lt(kh_json_cmp(d, c), 0);
    ck_assert_int_lt(kh_json_cmp(f, g), 0);
    ck_assert_int_eq(kh_json_cmp(f, h), 0);
    ck_assert(kh_json_equal(f, h));
    {
        struct json_object *no = json_object_new_boolean(0);
        ck_assert_int_gt(kh_json_cmp(no, a), 0); /* booleans sort after numbers */
        json_object_put(no);
    }
    json_object_put(a); json_object_put(b); json_object_put(c); json_object_put(d);
    json_object_put(e); json_object_put(f); json_object_put(g); json_object_put(h);
}
END_TEST

START_TEST(filters)
{
    struct kh_filter *f = NULL;
    struct kytos_error e = {0};
    struct json_object *doc = J("{\"a\": [{\"b\": 1}, {\"b\": [2, 3]}], \"c\": {\"d\": null}, \"n\": 5}");
    struct json_object *spec;
    static const struct { const char *filter; int match; } cases[] = {
        {"{\"a.b\": 1}", 1}, {"{\"a.b\": 3}", 1}, {"{\"a.b\": 4}", 0}, {"{\"a.1.b\": 2}", 1},
        {"{\"a.0.b\": 2}", 0}, {"{\"c.d\": null}", 1}, {"{\"c.e\": null}", 1}, {"{\"c.d\": {\"$exists\": true}}", 1},
        {"{\"c.e\": {\"$exists\": true}}", 0}, {"{\"n\": {\"$gt\": 4.5, \"$lt\": 5.5}}", 1},
        {"{\"n\": {\"$nin\": [1, 5]}}", 0}, {"{\"$or\": [{\"n\": 1}, {\"a.b\": 2}]}", 1},
        {"{\"$or\": [{\"n\": 1}, {\"a.b\": 9}]}", 0}, {"{\"a.b\": {\"$gte\": 3}}", 1},
        {"{\"a.b\": {\"$gt\": 3}}", 0}, {"{\"n\": {\"$ne\": null}}", 1},
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        spec = J(cases[k].filter);
        ck_assert_msg(kh_filter_compile(spec, &f, &e) == 0, "%s: %s", cases[k].filter, e.message);
        ck_assert_msg(kh_filter_match(f, doc) == cases[k].match, "%s", cases[k].filter);
        kh_filter_free(f);
        json_object_put(spec);
    }
    ck_assert_int_eq(kh_filter_compile(NULL, &f, &e), 0);
    ck_assert_ptr_null(f);
    ck_assert(kh_filter_match(NULL, doc));
    json_object_put(doc);
}
END_TEST

START_TEST(updates)
{
    struct kytos_error e = {0};
    struct json_object *doc = J("{\"_id\": \"x\", \"a\": [1], \"s\": 1}");
    struct json_object *u = J("{\"$set\": {\"a.3\": 4, \"o.p.q\": true}, \"$unset\": {\"s\": 1, \"zz.y\": 1}}");

    ck_assert_int_eq(kh_update_check(u, &e), 0);
    ck_assert_int_eq(kh_update_apply(doc, u, 0, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN),
                     "{\"_id\":\"x\",\"a\":[1,null,null,4],\"o\":{\"p\":{\"q\":true}}}");
    json_object_put(u);
    u = J("{\"$set\": {\"a.100001\": 1}}");
    ck_assert_int_eq(kh_update_check(u, &e), 0);
    ck_assert_int_eq(kh_update_apply(doc, u, 0, &e), KYTOS_EFILTER);
    json_object_put(u);
    u = J("{\"$unset\": {\"a.0\": 1}}");
    ck_assert_int_eq(kh_update_apply(doc, u, 0, &e), 0);
    ck_assert_str_eq(json_object_to_json_string_ext(json_object_object_get(doc, "a"), JSON_C_TO_STRING_PLAIN),
                     "[null,null,null,4]");
    json_object_put(u);
    json_object_put(doc);
}
END_TEST

/* ---- the writer and the splicer ---- */

static unsigned rnd_state = 12345;

static unsigned rnd(unsigned n)
{
    rnd_state = rnd_state * 1103515245u + 12345u;
    return (rnd_state >> 8) % n;
}

/* Strings with everything a writer must escape or keep: control bytes,
 * NUL, quotes, backslashes, '/', DEL, two- to four-byte UTF-8. */
static void rnd_text(char *buf, size_t *len, int nul_ok)
{
    static const char *const parts[] = {"a", "Z", "0", " ", "\"", "\\", "/", "\x7f", "\b", "\f", "\n",
                                        "\r", "\t", "\x01", "\x1f", "\xc3\xa9", "\xe2\x82\xac",
                                        "\xf0\x9f\x98\x80", "\x00", "flow", "."};
    size_t n = 0, parts_n = sizeof(parts) / sizeof(parts[0]);
    unsigned count = rnd(8);

    for (unsigned k = 0; k < count; k++) {
        unsigned i = rnd((unsigned)parts_n);
        size_t l = i == parts_n - 3 ? 1 : strlen(parts[i]); /* "\x00" is one byte */
        if (i == parts_n - 3 && !nul_ok)
            continue;
        memcpy(buf + n, parts[i], l);
        n += l;
    }
    buf[n] = '\0';
    *len = n;
}

static struct json_object *rnd_value(int depth)
{
    char text[64];
    size_t len;

    switch (rnd(depth > 4 ? 7 : 9)) {
    case 0: return NULL;
    case 1: return json_object_new_boolean((int)rnd(2));
    case 2: {
        static const int64_t ints[] = {0, 1, -1, 9, 10, 1099, INT64_MAX, INT64_MIN, -1234567890123};
        return json_object_new_int64(ints[rnd(9)]);
    }
    case 3: {
        static const uint64_t u[] = {(uint64_t)INT64_MAX + 1, UINT64_MAX, 0xAA00000000000001ull};
        return json_object_new_uint64(u[rnd(3)]);
    }
    case 4: {
        static const char *const d[] = {"1.50", "0.1", "-2.5e-3", "1E+20", "3.0"};
        struct json_object *o;
        if (rnd(2))
            return json_object_new_double(rnd(2) ? 0.1 : -1234.5);
        o = json_tokener_parse(d[rnd(5)]); /* json-c keeps the text */
        return o;
    }
    case 5:
    case 6:
        rnd_text(text, &len, 1);
        return json_object_new_string_len(text, (int)len);
    case 7: {
        struct json_object *o = json_object_new_object();
        for (unsigned k = rnd(4); k > 0; k--) {
            rnd_text(text, &len, 0);
            json_object_object_add(o, text, rnd_value(depth + 1));
        }
        return o;
    }
    default: {
        struct json_object *a = json_object_new_array();
        for (unsigned k = rnd(4); k > 0; k--)
            json_object_array_add(a, rnd_value(depth + 1));
        return a;
    }
    }
}

START_TEST(writer_is_jsonc)
{
    struct kytos_error e = {0};

    for (int k = 0; k < 3000; k++) {
        struct json_object *v = rnd_value(k % 3), *doc = json_object_new_object();
        struct ku_buf b = {0};
        char want[8192];
        const char *jc;
        ck_assert_int_eq(kh_json_write(&b, v, 1, "t", &e), 0);
        jc = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        ck_assert_msg(b.len == strlen(jc) && !memcmp(b.p, jc, b.len), "writer %s, json-c %s", b.p, jc);
        /* a document gets "_id" first when it has none */
        json_object_object_add(doc, "v", v);
        b.len = 0;
        ck_assert_int_eq(kh_doc_write(&b, doc, "i/d\"\xc3\xa9", &e), 0);
        snprintf(want, sizeof(want), "{\"_id\":\"i/d\\\"\xc3\xa9\",%s",
                 json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE) + 1);
        ck_assert_str_eq(b.p, want);
        json_object_put(doc);
        ku_buf_free(&b);
    }
}
END_TEST

/* json-c's text of the parse of text: what a find answers today. */
static char *jsonc_round_trip(const char *text)
{
    struct json_object *o = kh_doc_parse(text, strlen(text), "t", NULL);
    char *out = o ? strdup(json_object_to_json_string_ext(o, KH_TEXT_FLAGS)) : NULL;
    json_object_put(o);
    return out;
}

/* kh_text_canonical: 1 only where json-c writes the text back byte for
 * byte, and 1 for everything the store's writer writes. */
START_TEST(canonical_text_is_jsonc)
{
    static const struct {
        const char *text;
        int canonical;
    } cases[] = {
        {"{}", 1},
        {"{\"a\":\"\\u001f\\n\\\"\\\\\\b\\f\\r\\t\\u0000/\xc3\xa9\x7f\"}", 1},
        {"{\"a\":1.50,\"b\":-0.0,\"c\":1e5,\"d\":18446744073709551615,\"e\":-9223372036854775808,\"f\":0}", 1},
        {"{\"a\":[],\"b\":{},\"c\":[{\"x\":null,\"y\":true,\"z\":false}],\"k\\\"ey\":[1,[2]]}", 1},
        {"{\"a\":{\"a\":1},\"b\":{\"a\":2}}", 1},
        {"{ }", 0},
        {"{\"a\": 1}", 0},
        {"{\"a\":\"\\/\"}", 0},
        {"{\"a\":-0}", 0},
        {"{\"a\":1,\"a\":2}", 0},
        {"{\"a\":{\"b\":1,\"b\":1}}", 0},
        {"{\"a\":\"\\u0041\"}", 0},
        {"{\"a\":\"\\u000a\"}", 0},
        {"{\"a\":\"\\u001F\"}", 0},
        {"{\"a\":18446744073709551616}", 0},
        {"{\"a\":-9223372036854775809}", 0},
        {"{\"a\":01}", 0},
        {"{\"a\":tru}", 0},
        {"{\"a\":1}x", 0},
        {"{\"a\":1.}", 0},
        {"{\"a\":\"x}", 0},
        {"{\"a\":\"\x01\"}", 0},
        {"[1]", 0},
        {"", 0},
    };
    struct kytos_error e = {0};

    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        const char *t = cases[k].text;
        char *rt = jsonc_round_trip(t);
        ck_assert_msg(kh_text_canonical(t, strlen(t)) == cases[k].canonical, "case %zu: %s", k, t);
        if (cases[k].canonical)
            ck_assert_msg(rt && !strcmp(rt, t), "case %zu: %s, json-c %s", k, t, rt ? rt : "-");
        free(rt);
    }
    for (int k = 0; k < 3000; k++) {
        struct json_object *doc = json_object_new_object(), *tx, *spec;
        struct kh_proj *proj = NULL;
        struct ku_buf b = {0};
        char *rt;
        json_object_object_add(doc, "v", rnd_value(k % 3));
        json_object_object_add(doc, "w", rnd_value(k % 5));
        ck_assert_int_eq(kh_doc_write(&b, doc, "i/d\"\xc3\xa9", &e), 0);
        ck_assert_msg(kh_text_canonical(b.p, b.len), "the writer's text %s", b.p);
        rt = jsonc_round_trip(b.p);
        ck_assert_str_eq(rt, b.p);
        free(rt);
        /* projection {"_id": 0} on the text: json-c's text of the document without it */
        spec = json_tokener_parse("{\"_id\": 0}");
        ck_assert_int_eq(kh_proj_compile(spec, &proj, &e), 0);
        tx = kh_text_project(b.p, b.len, proj, "t", &e);
        ck_assert_str_eq(json_object_get_string(tx), json_object_to_json_string_ext(doc, KH_TEXT_FLAGS));
        json_object_put(tx);
        json_object_put(spec);
        kh_proj_free(proj);
        json_object_put(doc);
        ku_buf_free(&b);
    }
}
END_TEST

/* kh_text_sort orders texts as kh_sort_docs orders their documents, and
 * reads the keys from the text (nothing parsed whole). */
START_TEST(text_sort_is_doc_sort)
{
    static const char *const specs[] = {"{\"flow.priority\": -1, \"updated_at\": 1}", "{\"v\": 1}",
                                        "{\"w\": -1, \"v.a\": 1}", "{\"v.0\": 1}", "{\"n\": 1}"};
    struct kytos_error e = {0};
    enum { N = 400 };

    for (size_t sp = 0; sp < sizeof specs / sizeof *specs; sp++) {
        struct json_object *docs[N], *texts[N], *spec = json_tokener_parse(specs[sp]);
        struct kh_sort *sort = NULL;
        size_t parsed;
        ck_assert_int_eq(kh_sort_compile(spec, &sort, &e), 0);
        for (int k = 0; k < N; k++) {
            char id[16], *t;
            size_t len;
            struct json_object *flow = json_object_new_object();
            docs[k] = json_object_new_object();
            snprintf(id, sizeof id, "d%03d", (k * 7) % N);
            json_object_object_add(docs[k], "_id", json_object_new_string(id));
            json_object_object_add(flow, "priority", json_object_new_int(k % 3 ? (k % 5) * 100 : 7));
            json_object_object_add(docs[k], "flow", flow);
            json_object_object_add(docs[k], "updated_at", json_object_new_string(k % 4 ? "2026-12-01" : "2026-11-30"));
            json_object_object_add(docs[k], "v", rnd_value(k % 3));
            json_object_object_add(docs[k], "w", rnd_value(1));
            if (k % 2)
                json_object_object_add(docs[k], "n", json_object_new_uint64(UINT64_MAX - (uint64_t)(k % 7)));
            ck_assert_int_eq(kh_doc_encode(docs[k], id, &t, &len, &e), 0);
            texts[k] = json_object_new_string_len(t, (int)len);
            free(t);
        }
        kh_sort_docs(sort, docs, N);
        parsed = kh_text_sort(sort, texts, N);
        /* objects and scalars on the path: read from the text; arrays
         * (random values hold some) are MongoDB's rules: parsed */
        if (sp == 0 || sp == 4)
            ck_assert_uint_eq(parsed, 0);
        else
            ck_assert_uint_lt(parsed, N);
        for (int k = 0; k < N; k++) {
            ck_assert_str_eq(json_object_get_string(texts[k]),
                             json_object_to_json_string_ext(docs[k], KH_TEXT_FLAGS));
            json_object_put(docs[k]);
            json_object_put(texts[k]);
        }
        kh_sort_free(sort);
        json_object_put(spec);
    }
}
END_TEST

/* The writer refuses what kh_value_check refuses, with the same message. */
START_TEST(writer_checks)
{
    static const char *const bad_strings[] = {"\xff", "a\xc3", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80",
                                              "\xe2\x82", NULL};
    struct json_object *deep = json_object_new_object(), *cur = deep;

    for (int k = 0; bad_strings[k]; k++) {
        struct json_object *vals[2];
        vals[0] = json_object_new_string(bad_strings[k]);
        vals[1] = json_object_new_object();
        json_object_object_add(vals[1], bad_strings[k], json_object_new_int(1));
        for (int j = 0; j < 2; j++) {
            struct kytos_error e1 = {0}, e2 = {0};
            struct ku_buf b = {0};
            ck_assert_int_eq(kh_json_write(&b, vals[j], 1, "doc", &e1), KYTOS_EINVAL);
            ck_assert_int_eq(kh_value_check(vals[j], 1, "doc", &e2), KYTOS_EINVAL);
            ck_assert_str_eq(e1.message, e2.message);
            ku_buf_free(&b);
            json_object_put(vals[j]);
        }
    }
    for (int k = 0; k < 100; k++) {
        struct json_object *n = json_object_new_object();
        json_object_object_add(cur, "d", n);
        cur = n;
    }
    json_object_object_add(cur, "nan", json_object_new_double(0.0 / 0.0));
    {
        struct kytos_error e1 = {0}, e2 = {0};
        struct ku_buf b = {0};
        ck_assert_int_eq(kh_json_write(&b, deep, 1, "doc", &e1), KYTOS_EINVAL);
        ck_assert_int_eq(kh_value_check(deep, 1, "doc", &e2), KYTOS_EINVAL);
        ck_assert_str_eq(e1.message, e2.message);
        ck_assert_ptr_nonnull(strstr(e1.message, "deeper"));
        b.len = 0;
        ck_assert_int_eq(kh_json_write(&b, json_object_object_get(cur, "nan"), 100, "doc", &e1), KYTOS_EINVAL);
        ck_assert_ptr_nonnull(strstr(e1.message, "NaN"));
        ku_buf_free(&b);
    }
    json_object_put(deep);
}
END_TEST

/* Splicing a document's text = applying the update and writing it. */
START_TEST(splice_is_apply)
{
    static const char *const keys[] = {"a", "b", "state", "o", "x\\y", "\xc3\xa9", "0", "sl/ash"};
    static const char *const upaths[] = {"a", "b", "state", "o", "x\\y", "\xc3\xa9", "0", "sl/ash",
                                         "o.p", "o.q.r", "o.q.s", "n.m", "b.c", "o.\xc3\xa9"};
    struct kytos_error e = {0};
    int spliced = 0;

    for (int k = 0; k < 3000; k++) {
        struct json_object *doc = json_object_new_object(), *upd = json_object_new_object();
        struct json_object *set = json_object_new_object(), *unset = json_object_new_object(), *copy = NULL;
        struct ku_buf text = {0}, out = {0}, want = {0};
        struct kh_plan p;
        int rc;
        json_object_object_add(doc, "_id", json_object_new_string("id"));
        for (int j = 0; j < 8; j++) {
            if (!rnd(2) || (j == 4 && rnd(4))) /* "x\\y" is written escaped: the general path */
                continue;
            if (j == 3 && rnd(4)) {
                /* mostly an object, so that nested paths go into it */
                struct json_object *o = json_object_new_object();
                if (rnd(2))
                    json_object_object_add(o, "p", rnd_value(3));
                if (rnd(2))
                    json_object_object_add(o, "q", rnd(3) ? json_object_new_object() : rnd_value(3));
                json_object_object_add(o, "z", json_object_new_int(1));
                json_object_object_add(doc, keys[j], o);
            } else {
                json_object_object_add(doc, keys[j], rnd_value(2));
            }
        }
        for (int j = 0; j < 14; j++) {
            unsigned r = rnd(4);
            if (r == 1)
                json_object_object_add(set, upaths[j], rnd_value(2));
            else if (r == 2)
                json_object_object_add(unset, upaths[j], json_object_new_int(1));
        }
        if (!json_object_object_length(set) && !json_object_object_length(unset))
            json_object_object_add(set, "a", json_object_new_int(1));
        if (json_object_object_length(set))
            json_object_object_add(upd, "$set", set);
        else
            json_object_put(set);
        if (json_object_object_length(unset))
            json_object_object_add(upd, "$unset", unset);
        else
            json_object_put(unset);
        if (kh_update_check(upd, &e) < 0) /* paths in conflict */
            goto next;
        ck_assert_int_eq(kh_json_write(&text, doc, 1, "d", &e), 0);
        ck_assert_int_eq(kh_plan_make(&p, upd, &out, &e), 0);
        ck_assert(p.text_ok);
        size_t off = out.len;
        rc = kh_plan_splice(&p, text.p, text.len, &out, &e);
        ck_assert_int_ge(rc, 0);
        ck_assert_int_eq(json_object_deep_copy(doc, &copy, NULL), 0);
        if (kh_update_apply(copy, upd, 0, &e) < 0) {
            /* a scalar in the way: never spliced */
            ck_assert_int_eq(rc, 1);
            goto next;
        }
        ck_assert_int_eq(kh_json_write(&want, copy, 1, "d", &e), 0);
        if (rc == 0) {
            spliced++;
            ck_assert_msg(out.len - off == want.len && !memcmp(out.p + off, want.p, want.len),
                          "spliced %s\nwanted  %s\nupdate  %s", out.p + off, want.p,
                          json_object_to_json_string(upd));
        }
next:
        ku_buf_free(&text);
        ku_buf_free(&out);
        ku_buf_free(&want);
        json_object_put(doc);
        json_object_put(copy);
        json_object_put(upd);
    }
    ck_assert_int_gt(spliced, 500);
}
END_TEST

/* Stored text the splicer is not sure of goes to the general path. */
START_TEST(splice_checks)
{
    static const char *const unsure[] = {
        "", "[]", "{", "{\"a\":1", "{\"a\":1,}", "{\"a\":1}x", "{\"a\" 1}", "{a:1}", "{\"a\":01}",
        "{\"a\":1e999}", "{\"a\":-}", "{\"a\":1.}", "{\"a\":tru}", "{\"a\":\"\\u0041\"}", "{\"a\":\"\\ud800\"}", "{\"a\":\"\\u002f\"}", "{\"\\u0061\":1}",
        "{\"a\\\"\":1}", "{\"a\":\"\x01\"}", "{\"a\":\"\xff\"}", "{\"a\":[1,]}", "{\"a\":\"x\\q\"}",
        "{\"a\":184467440737095516150}", "{\"a\":18446744073709551616}", "{\"a\":-9223372036854775809}",
        "{\"a\":NaN}", "{\"a\":'x'}", NULL};
    struct json_object *upd = J("{\"$set\": {\"b\": 2}, \"$unset\": {\"c\": 1}}");
    struct kytos_error e = {0};
    struct kh_plan p;
    struct ku_buf b = {0};
    char deep[512];
    size_t off;

    ck_assert_int_eq(kh_plan_make(&p, upd, &b, &e), 0);
    off = b.len;
    for (int k = 0; unsure[k]; k++) {
        ck_assert_msg(kh_plan_splice(&p, unsure[k], strlen(unsure[k]), &b, &e) == 1, "%s", unsure[k]);
        ck_assert_int_eq(b.len, off);
    }
    /* nesting: 100 levels are a document's limit */
    for (int d = 99; d <= 100; d++) {
        int n = 0;
        n += snprintf(deep + n, sizeof(deep) - (size_t)n, "{\"a\":");
        for (int k = 1; k < d; k++)
            deep[n++] = '[';
        deep[n++] = '1';
        for (int k = 1; k < d; k++)
            deep[n++] = ']';
        n += snprintf(deep + n, sizeof(deep) - (size_t)n, "}");
        ck_assert_int_eq(kh_plan_splice(&p, deep, (size_t)n, &b, &e), d == 99 ? 0 : 1);
        b.len = off;
    }
    /* what JSON allows is read as JSON */
    {
        const char *t = " {\t\"c\" : [ 1 , { } , [ ] ] ,\r\n\"a\" : -0.5e-3 , \"u\":18446744073709551615,"
                        " \"i\":-9223372036854775808, \"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\xc3\xa9\" } ";
        ck_assert_int_eq(kh_plan_splice(&p, t, strlen(t), &b, &e), 0);
        ck_assert_str_eq(b.p + off, "{\"a\" : -0.5e-3,\"u\":18446744073709551615,\"i\":-9223372036854775808,"
                                    "\"s\":\"\\\"\\\\\\/\\b\\f\\n\\r\\t\xc3\xa9\",\"b\":2}");
        b.len = off;
        ck_assert_int_eq(kh_plan_splice(&p, "{}", 2, &b, &e), 0);
        ck_assert_str_eq(b.p + off, "{\"b\":2}");
    }
    ku_buf_free(&b);
    json_object_put(upd);
}
END_TEST

/* Kytos' users keep their password salt as BSON binary: it must survive a
 * trip through the MongoDB backend as extended JSON, byte for byte. */
START_TEST(bson_binary_round_trip)
{
    struct json_object *doc = json_tokener_parse(
        "{\"hash\": {\"salt\": {\"$binary\": {\"base64\": \"AAEC/w==\", \"subType\": \"00\"}}, \"n\": 8192}}");
    struct json_object *back;
    bson_t b = BSON_INITIALIZER;
    bson_iter_t it;
    bson_subtype_t st;
    uint32_t len = 0;
    const uint8_t *data;

    ck_assert_int_eq(kh_bson_append_object(&b, doc), 0);
    ck_assert(bson_iter_init(&it, &b) && bson_iter_find_descendant(&it, "hash.salt", &it));
    ck_assert_int_eq(bson_iter_type(&it), BSON_TYPE_BINARY);
    bson_iter_binary(&it, &st, &len, &data);
    ck_assert_int_eq(len, 4);
    ck_assert(data[0] == 0 && data[1] == 1 && data[2] == 2 && data[3] == 0xff);
    back = kh_bson_to_json(&b);
    ck_assert(json_object_equal(back, doc));
    json_object_put(back);
    json_object_put(doc);
    bson_destroy(&b);
    /* a bad one is refused, not stored as something else */
    doc = json_tokener_parse("{\"s\": {\"$binary\": {\"base64\": \"abc\"}}}");
    bson_init(&b);
    ck_assert_int_ne(kh_bson_append_object(&b, doc), 0);
    bson_destroy(&b);
    json_object_put(doc);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("store_doc");
    TCase *tc = tcase_create("doc");

    tcase_add_test(tc, paths);
    tcase_add_test(tc, numbers);
    tcase_add_test(tc, filters);
    tcase_add_test(tc, updates);
    tcase_add_test(tc, writer_is_jsonc);
    tcase_add_test(tc, writer_checks);
    tcase_add_test(tc, canonical_text_is_jsonc);
    tcase_add_test(tc, text_sort_is_doc_sort);
    tcase_add_test(tc, splice_is_apply);
    tcase_add_test(tc, splice_checks);
    suite_add_tcase(s, tc);
    kytos_check_add(s, "bson_binary_round_trip", bson_binary_round_trip);
    return kytos_check_run(s);
}
