/* tests/events/fake_napp.h - NApps for the bus' unit tests: the bus only
 * passes kytos_napp pointers to its hooks, so a small struct stands in. */
#ifndef KYTOS_TESTS_FAKE_NAPP_H
#define KYTOS_TESTS_FAKE_NAPP_H

#include "host/events/eventbus.h"
#include "host/events/event_conf.h"
#include <stdatomic.h>

struct fake_napp {
    atomic_int refs;      /* taken while a handler or timer of it may run */
    atomic_int max_refs;
    atomic_int active;
    char id[64];
};

extern const struct kh_napp_ops fake_ops;

void fake_napp_init(struct fake_napp *f, const char *id);
#define FAKE(f) ((kytos_napp *)(f))
#define FAKE_OF(n) ((struct fake_napp *)(n))

/* Small pools (sb 2, db 1, app 2) and Kytos' buffers; extra JSON for
 * event_buffer_conf may be NULL. */
void fake_conf(struct kh_bus_conf *c, const char *buffers_json);
kh_bus *fake_bus(const char *buffers_json);

#endif
