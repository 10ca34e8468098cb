/* host/http/shed.c - the overload governor: answer some new requests 503 at once
 * when the process is saturated, so that the others are answered in time.
 *
 * Signal: both (1) the process used nearly all the CPU it may use over the
 * last tick (it cannot go faster: slow handlers that sleep do not count) and
 * (2) admitted requests take longer than api_shed_latency_ms from arrival
 * to answer (a closed-loop client at full speed is not overload: latency
 * stays low).  Then the shed share grows by 1/16 a tick, up to 15/16; else
 * it shrinks by 1/16.  The 503 keeps the connection open.  A 503 costs a
 * fraction of a served request (no handler, no store write, no events).
 *
 * Limit: "arrival" is when libmicrohttpd read the request.  Time spent
 * before that in the kernel's socket buffers is not seen (an estimate from
 * the previous answer on the connection counted clients' think time too,
 * and was dropped), so this acts on queueing inside kytosd: deferred and
 * pooled requests piling up while the CPU is saturated.  The accept loop
 * (acceptor.c) and poll keep the kernel-side wait short. */
#include "http/shed.h"
#include <sched.h>
#include <stdlib.h>
#include <time.h>

#define TICK_NS (50 * 1000000LL)
#define STEP 64u            /* of 1024 */
#define P_MAX (1024u - STEP)

static int64_t cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void kh_shed_init(struct kh_http_ctx *h, int64_t latency_ms)
{
    cpu_set_t set;
    int n = 0;

    h->shed.target_ns = latency_ms * 1000000LL;
    if (h->shed.target_ns < 0)
        h->shed.target_ns = 0;
    if (sched_getaffinity(0, sizeof set, &set) == 0)
        n = CPU_COUNT(&set);
    h->shed.cpus = n > 0 ? (unsigned)n : 1;
    h->shed.last_wall_ns = kh_mono_ns();
    h->shed.last_cpu_ns = cpu_ns();
}

void kh_shed_tick(struct kh_http_ctx *h)
{
    struct kh_shed *s = &h->shed;
    int64_t wall = kh_mono_ns(), cpu, dw;
    unsigned p;
    int hot;

    if (!s->target_ns || (dw = wall - s->last_wall_ns) < TICK_NS)
        return;
    cpu = cpu_ns();
    atomic_store(&s->cpu_permille,
                 (unsigned)((double)(cpu - s->last_cpu_ns) * 1000.0 / ((double)dw * s->cpus)));
    s->last_wall_ns = wall;
    s->last_cpu_ns = cpu;
    hot = kh_shed_saturated(h) && atomic_load(&s->lat_ewma_ns) > s->target_ns;
    p = atomic_load(&s->p);
    if (hot && p < P_MAX)
        atomic_store(&s->p, p + STEP);
    else if (!hot && p > 0)
        atomic_store(&s->p, p - STEP);
    if (!hot && atomic_load(&h->in_flight) == 0)
        atomic_store(&s->lat_ewma_ns, 0);   /* idle: forget */
}

int kh_shed_saturated(struct kh_http_ctx *h)
{
    return h->shed.target_ns && atomic_load_explicit(&h->shed.cpu_permille, memory_order_relaxed) >= 900;
}

int kh_shed_now(struct kh_http_ctx *h)
{
    static _Thread_local unsigned seed;
    unsigned p = atomic_load_explicit(&h->shed.p, memory_order_relaxed);

    if (!p)
        return 0;
    if (!seed)
        seed = (unsigned)(uintptr_t)&seed ^ (unsigned)kh_mono_ns();
    seed = seed * 1103515245u + 12345u;
    if (((seed >> 16) & 1023u) >= p)
        return 0;
    atomic_fetch_add(&h->shed.shed, 1);
    return 1;
}

void kh_shed_observe(struct kh_http_ctx *h, int64_t lat_ns)
{
    int64_t e = atomic_load_explicit(&h->shed.lat_ewma_ns, memory_order_relaxed);
    /* racy read-modify-write on purpose: an estimate, one lost update is fine */
    atomic_store_explicit(&h->shed.lat_ewma_ns, e + (lat_ns - e) / 16, memory_order_relaxed);
}

struct json_object *kh_shed_status(struct kh_http_ctx *h)
{
    struct json_object *o = json_object_new_object();
    json_object_object_add(o, "latency_target_ms", json_object_new_int64(h->shed.target_ns / 1000000));
    json_object_object_add(o, "latency_ms", json_object_new_double(atomic_load(&h->shed.lat_ewma_ns) / 1e6));
    json_object_object_add(o, "cpu_util", json_object_new_double(atomic_load(&h->shed.cpu_permille) / 1000.0));
    json_object_object_add(o, "shed_per_1024", json_object_new_int((int)atomic_load(&h->shed.p)));
    json_object_object_add(o, "shed", json_object_new_int64((int64_t)atomic_load(&h->shed.shed)));
    return o;
}
