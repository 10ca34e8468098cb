/* tests/store/crash_writer.c - helper of crash.sh.
 *
 *   crash_writer write DIR N   open the embedded store in DIR, write N
 *                              documents (puts, patches, 5-document bulks),
 *                              printing each _id once its call returned
 *   crash_writer check DIR FILE  reopen DIR; every _id listed in FILE (whole
 *                              lines only) must be there and intact
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "host/store/store.h"

#define PAYLOAD 300

static struct json_object *make_doc(long k)
{
    struct json_object *d = json_object_new_object();
    char payload[PAYLOAD + 1];

    memset(payload, 'a' + (int)(k % 26), PAYLOAD);
    payload[PAYLOAD] = '\0';
    json_object_object_add(d, "k", json_object_new_int64(k));
    json_object_object_add(d, "cookie", json_object_new_uint64(UINT64_MAX - (uint64_t)k));
    json_object_object_add(d, "payload", json_object_new_string(payload));
    return d;
}

static int do_write(const char *dir, long n)
{
    struct kh_store_opts o = {.data_dir = dir};
    struct kytos_error e = {0};
    kh_store *s;
    long base;
    char id[32];

    if (kh_store_open(&s, &o, &e) < 0) {
        fprintf(stderr, "open: %s\n", e.message);
        return 1;
    }
    /* continue numbering after an earlier run */
    if (kh_store_count(s, "crash", NULL, &base, &e) < 0)
        base = 0;
    base = base * 10 + 1000000;
    for (long k = base; k < base + n; k++) {
        struct json_object *d = make_doc(k);
        int rc;
        snprintf(id, sizeof(id), "w%ld", k);
        if (k % 10 == 3) {
            struct kytos_write ops[5];
            char ids[5][32];
            struct json_object *docs[5];
            for (int j = 0; j < 5; j++) {
                snprintf(ids[j], sizeof(ids[j]), "w%ld.%d", k, j);
                docs[j] = make_doc(k);
                ops[j] = (struct kytos_write){KYTOS_WRITE_PUT, ids[j], docs[j], 0};
            }
            rc = kh_store_bulk(s, "crash", ops, 5, &e);
            for (int j = 0; j < 5; j++)
                json_object_put(docs[j]);
            if (rc == 0)
                for (int j = 0; j < 5; j++)
                    printf("%s %ld\n", ids[j], k);
        } else if (k % 10 == 7) {
            /* an upsert patch: the whole document from $set */
            struct json_object *u = json_object_new_object();
            json_object_object_add(u, "$set", d);
            d = NULL;
            rc = kh_store_patch(s, "crash", id, u, KYTOS_STORE_UPSERT, NULL, &e);
            json_object_put(u);
            if (rc == 0)
                printf("%s %ld\n", id, k);
        } else {
            rc = kh_store_put(s, "crash", id, d, &e);
            if (rc == 0)
                printf("%s %ld\n", id, k);
        }
        json_object_put(d);
        if (rc < 0) {
            fprintf(stderr, "write %ld: %s\n", k, e.message);
            kh_store_close(s);
            return 1;
        }
        fflush(stdout);
    }
    kh_store_close(s);
    return 0;
}

static int do_check(const char *dir, const char *file)
{
    struct kh_store_opts o = {.data_dir = dir};
    struct kytos_error e = {0};
    char line[128];
    long checked = 0, bad = 0;
    kh_store *s;
    FILE *f = fopen(file, "r");

    if (!f || kh_store_open(&s, &o, &e) < 0) {
        fprintf(stderr, "open: %s\n", f ? e.message : file);
        return 1;
    }
    while (fgets(line, sizeof(line), f)) {
        char id[64];
        long k;
        struct json_object *d = NULL, *want;
        if (!strchr(line, '\n'))
            break; /* the writer died while printing this one */
        if (sscanf(line, "%63s %ld", id, &k) != 2) {
            fprintf(stderr, "bad line: %s", line);
            bad++;
            continue;
        }
        if (kh_store_get(s, "crash", id, &d, &e) < 0) {
            fprintf(stderr, "acknowledged %s is missing: %s\n", id, e.message);
            bad++;
            continue;
        }
        want = make_doc(k);
        json_object_object_del(d, "_id");
        if (!json_object_equal(d, want)) {
            fprintf(stderr, "%s differs: %s\n", id, json_object_to_json_string(d));
            bad++;
        }
        json_object_put(want);
        json_object_put(d);
        checked++;
    }
    fclose(f);
    kh_store_close(s);
    printf("%ld checked, %ld bad\n", checked, bad);
    return bad || checked == 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "write"))
        return do_write(argv[2], atol(argv[3]));
    if (argc == 4 && !strcmp(argv[1], "check"))
        return do_check(argv[2], argv[3]);
    fprintf(stderr, "usage: %s write DIR N | check DIR FILE\n", argv[0]);
    return 2;
}
