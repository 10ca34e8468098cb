/* tests/events/fake_napp.c - see fake_napp.h. */
#include "fake_napp.h"
#include <stdio.h>
#include <stdlib.h>

static void fake_ref(kytos_napp *n)
{
    struct fake_napp *f = FAKE_OF(n);
    int now = atomic_fetch_add(&f->refs, 1) + 1, max = atomic_load(&f->max_refs);

    while (now > max && !atomic_compare_exchange_weak(&f->max_refs, &max, now))
        ;
}

static void fake_unref(kytos_napp *n)
{
    if (atomic_fetch_sub(&FAKE_OF(n)->refs, 1) <= 0)
        abort(); /* unbalanced: the test must fail loudly */
}

static int fake_is_active(const kytos_napp *n) { return atomic_load(&((const struct fake_napp *)n)->active); }
static const char *fake_id(const kytos_napp *n) { return ((const struct fake_napp *)n)->id; }

const struct kh_napp_ops fake_ops = {.ref = fake_ref, .unref = fake_unref, .is_active = fake_is_active, .id = fake_id};

void fake_napp_init(struct fake_napp *f, const char *id)
{
    atomic_init(&f->refs, 0);
    atomic_init(&f->max_refs, 0);
    atomic_init(&f->active, 1);
    snprintf(f->id, sizeof f->id, "%s", id);
}

void fake_conf(struct kh_bus_conf *c, const char *buffers_json)
{
    struct json_object *pools = json_tokener_parse("{\"sb\": 2, \"db\": 1, \"app\": 2}");
    struct json_object *bufs = buffers_json ? json_tokener_parse(buffers_json) : NULL;
    char err[256];

    kh_bus_conf_defaults(c);
    if (kh_bus_conf_apply(c, pools, bufs, NULL, NULL, NULL, err, sizeof err) != 0) {
        fprintf(stderr, "fake_conf: %s\n", err);
        abort();
    }
    c->submit_retry_ms = 20;
    json_object_put(pools);
    json_object_put(bufs);
}

kh_bus *fake_bus(const char *buffers_json)
{
    struct kh_bus_conf c;
    char err[256];
    kh_bus *b;

    fake_conf(&c, buffers_json);
    b = kh_bus_new_conf(&c, &fake_ops, err, sizeof err);
    if (!b) {
        fprintf(stderr, "fake_bus: %s\n", err);
        abort();
    }
    return b;
}
