/* tests/store/check_store_mongo.c - the conformance suite on a real MongoDB
 * server: set KYTOS_TEST_MONGODB_URI (e.g. mongodb://localhost:27017/kytos_test,
 * a replica set for majority concerns).  Each test writes its own collections
 * (names carry a per-run tag).  Skipped without the variable. */
#include <stdio.h>
#include <stdlib.h>
#include "check_tap.h"
#include "conformance.h"

static kh_store *open_mongo(void)
{
    struct kh_store_opts o = {.backend = "mongodb", .mongo_uri = getenv("KYTOS_TEST_MONGODB_URI"),
                              .wait_for_server = 1, .wait_tries = 2, .wait_interval_ms = 500};
    struct kytos_error e = {0};
    kh_store *s = NULL;

    if (kh_store_open(&s, &o, &e) < 0)
        fprintf(stderr, "open: %s\n", e.message);
    return s;
}

int main(void)
{
    static const struct conf_backend mongo = {"mongodb", open_mongo, kh_store_close, 0};
    const char *uri = getenv("KYTOS_TEST_MONGODB_URI");

    if (!uri || !*uri) {
        printf("1..0 # SKIP KYTOS_TEST_MONGODB_URI is not set (no MongoDB server to test against)\n");
        return 0;
    }
    return kytos_check_run(store_conformance_suite(&mongo));
}
