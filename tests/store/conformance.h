/* tests/store/conformance.h - the store conformance suite, one Check suite
 * per backend.  Every API call and its edge cases; the same expectations on
 * every backend except where a backend documents otherwise (caps). */
#ifndef KYTOS_TESTS_STORE_CONFORMANCE_H
#define KYTOS_TESTS_STORE_CONFORMANCE_H

#include <check.h>
#include "host/store/store.h"

struct conf_backend {
    const char *name;
    /* open a fresh, empty store (called in each forked test) */
    kh_store *(*open)(void);
    void (*close)(kh_store *s);
    int atomic_bulk;      /* bulk writes are all or nothing */
};

Suite *store_conformance_suite(const struct conf_backend *b);

#endif
