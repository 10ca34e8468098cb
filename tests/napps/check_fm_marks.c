/* tests/napps/check_fm_marks.c - kytos/flow_manager's kept "installed"
 * marks (plugins/flow_manager/marks.c) on their own: kept only while a
 * flow write is in flight, written once the writes are quiet, oldest
 * first, one chunk at a time, never over a newer write of the flow.  The
 * host and acks.c are stand-ins here that record what marks.c asks of
 * them; the test plays the store, committing the chunks queued. */
#include "check_tap.h"
#include "await.h"
#include "fm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- stand-ins: the host's table and acks.c's side ---- */

#define MAX_JOBS 64

static struct fm_confirm_job *jobs[MAX_JOBS];
static size_t njobs, done_jobs, published, bulk_ops, bulk_calls;   /* njobs: under ctx.order */
static char last_published[64];

static int fake_publish_give(kytos_napp *n, const char *name, struct json_object *c,
                             const struct kytos_pub_opts *o)
{
    (void)n, (void)o;
    snprintf(last_published, sizeof last_published, "%s",
             json_object_get_string(json_object_object_get(c, "flow")));
    ck_assert_str_eq(name, FM_EV_ADDED);
    published++;
    json_object_put(c);
    return KYTOS_OK;
}

static void fake_logv(const kytos_napp *n, int level, const char *fmt, va_list ap)
{
    (void)n, (void)level, (void)fmt, (void)ap;
}

static int fake_bulk(kytos_napp *n, const char *coll, const struct kytos_write *ops, size_t count,
                     struct kytos_error *err)
{
    struct json_object *set;

    (void)n, (void)err;
    ck_assert_str_eq(coll, FM_COLL);
    for (size_t i = 0; i < count; i++) {
        ck_assert_int_eq(ops[i].op, KYTOS_WRITE_PATCH);
        ck_assert(json_object_object_get_ex(ops[i].doc, "$set", &set));
        ck_assert_str_eq(json_object_get_string(json_object_object_get(set, "state")), "installed");
    }
    bulk_ops += count;
    bulk_calls++;
    return KYTOS_OK;
}

static struct kytos_api api;
const struct kytos_api *kytos__api = &api;

struct fm_confirm_job *fm_confirm_job_new(struct fm_ctx *ctx, size_t n)
{
    struct fm_confirm_job *j = calloc(1, sizeof *j + n * sizeof j->it[0]);
    j->ctx = ctx;
    return j;
}

int fm_confirm_submit_locked(struct fm_confirm_job *j)
{
    ck_assert_uint_lt(njobs, MAX_JOBS);
    jobs[njobs++] = j;
    return KYTOS_OK;
}

struct json_object *fm_installed_update(void)
{
    return json_tokener_parse("{\"$set\": {\"state\": \"installed\"}}");
}

static void job_free(struct fm_confirm_job *j)
{
    for (size_t i = 0; i < j->n; i++) {
        free(j->it[i].id);
        json_object_put(j->it[i].ev);
    }
    free(j);
}

/* ---- the fixture ---- */

static struct fm_ctx ctx;

static void setup(void)
{
    api.struct_size = sizeof api;
    api.event_publish_give = fake_publish_give;
    api.logv = fake_logv;
    api.store_bulk = fake_bulk;
    memset(&ctx, 0, sizeof ctx);
    pthread_mutex_init(&ctx.order, NULL);
    ck_assert_ptr_nonnull(ctx.marks = fm_marks_new());
    ck_assert_int_eq(fm_marks_start(&ctx), KYTOS_OK);
    njobs = done_jobs = published = bulk_ops = bulk_calls = 0;
}

static size_t jobs_queued(void)
{
    size_t n;

    pthread_mutex_lock(&ctx.order);
    n = njobs;
    pthread_mutex_unlock(&ctx.order);
    return n;
}

/* The store commits the chunks queued so far (each may queue the next). */
static void commit_chunks(void)
{
    while (done_jobs < jobs_queued()) {
        done_jobs++;
        fm_marks_chunk_done(&ctx);
    }
}

static void teardown(void)
{
    commit_chunks();
    fm_marks_stop(&ctx);
    for (size_t i = 0; i < njobs; i++)
        job_free(jobs[i]);
    fm_marks_free(ctx.marks);
    pthread_mutex_destroy(&ctx.order);
}

/* n flow writes queued (under ctx.order, as fm_store_ordered does) / done */
static void writes_queued(int n)
{
    pthread_mutex_lock(&ctx.order);
    for (int i = 0; i < n; i++)
        fm_marks_write_queued(&ctx);
    pthread_mutex_unlock(&ctx.order);
}

static void writes_done(int n)
{
    for (int i = 0; i < n; i++)
        fm_marks_write_done(&ctx, 0);
}

static void id_of(char out[33], unsigned i)
{
    /* not in id order: the chunks must follow the order they came in */
    snprintf(out, 33, "%08x%024x", (i * 2654435761u) ^ 0x5bd1e995u, i);
}

/* Keep marks i in [from, to), as queue_installed does (ctx.order held). */
static void keep(unsigned from, unsigned to)
{
    char id[33];

    pthread_mutex_lock(&ctx.order);
    for (unsigned i = from; i < to; i++) {
        id_of(id, i);
        ck_assert(fm_marks_keeping(&ctx));
        ck_assert_int_eq(fm_marks_keep(&ctx, id, NULL), 0);
    }
    fm_marks_kept(&ctx);
    pthread_mutex_unlock(&ctx.order);
}

static bool a_chunk_queued(const void *want)
{
    return jobs_queued() >= *(const size_t *)want;
}

/* Until marks.c's thread queued chunk number want (1-based); fails after 2 s. */
static void await_chunks(size_t want)
{
    ck_assert_msg(await_until(a_chunk_queued, &want, 2000), "chunk %zu never queued", want);
}

/* Nothing queued for a while: QUIET_MS (25) more than twice over, less
 * than BUSY_MS (100). */
static void assert_none_queued_for_a_while(size_t n)
{
    struct timespec step = {0, 60 * 1000000L};

    nanosleep(&step, NULL);
    ck_assert_uint_eq(jobs_queued(), n);
}

static void assert_chunk(size_t k, unsigned from, unsigned to)
{
    char id[33];

    ck_assert_uint_eq(jobs[k]->n, to - from);
    ck_assert_int_eq(jobs[k]->chained, 1);
    for (unsigned i = from; i < to; i++) {
        id_of(id, i);
        ck_assert_str_eq(jobs[k]->it[i - from].id, id);
        ck_assert_int_eq(jobs[k]->it[i - from].check, 0);
    }
}

START_TEST(nothing_in_flight_nothing_kept)
{
    pthread_mutex_lock(&ctx.order);
    ck_assert(!fm_marks_keeping(&ctx));
    pthread_mutex_unlock(&ctx.order);
    writes_queued(1);
    writes_done(1);
    pthread_mutex_lock(&ctx.order);
    ck_assert(!fm_marks_keeping(&ctx));
    pthread_mutex_unlock(&ctx.order);
}
END_TEST

/* One install: its FlowMods go out from its write's commit, so their
 * barriers' confirmations find it in flight; they are written as soon as
 * it is done, not after the quiet. */
START_TEST(a_lone_install_is_marked_at_once)
{
    writes_queued(1);
    keep(0, 10);
    ck_assert_uint_eq(jobs_queued(), 0);
    writes_done(1);
    ck_assert_uint_eq(jobs_queued(), 1);
    assert_chunk(0, 0, 10);
}
END_TEST

START_TEST(kept_while_a_write_is_in_flight_then_written_oldest_first)
{
    writes_queued(3);   /* a burst: writes that overlap */
    keep(0, 2500);
    /* in flight: nothing is written, however long */
    assert_none_queued_for_a_while(0);
    writes_queued(1);   /* the burst goes on */
    writes_done(4);
    ck_assert_uint_eq(jobs_queued(), 0);   /* a burst's last write: not before the quiet */
    await_chunks(1);
    assert_chunk(0, 0, 1024);
    /* one chunk at a time: the next once the first is committed */
    assert_none_queued_for_a_while(1);
    done_jobs++;
    fm_marks_chunk_done(&ctx);
    ck_assert_uint_eq(jobs_queued(), 2);
    assert_chunk(1, 1024, 2048);
    done_jobs++;
    fm_marks_chunk_done(&ctx);
    ck_assert_uint_eq(jobs_queued(), 3);
    assert_chunk(2, 2048, 2500);
    done_jobs++;
    fm_marks_chunk_done(&ctx);
    assert_none_queued_for_a_while(3);
    pthread_mutex_lock(&ctx.order);
    ck_assert(!fm_marks_keeping(&ctx));
    pthread_mutex_unlock(&ctx.order);
}
END_TEST

START_TEST(a_write_in_flight_holds_the_rest_back)
{
    writes_queued(3);
    keep(0, 1500);
    writes_done(3);
    await_chunks(1);
    writes_queued(2);   /* the movers' next writes */
    done_jobs++;
    fm_marks_chunk_done(&ctx);
    assert_none_queued_for_a_while(1);   /* not ahead of them */
    writes_queued(1);   /* the burst goes on (however slow this machine) */
    writes_done(3);
    ck_assert_uint_eq(jobs_queued(), 1);   /* still a burst: the quiet first */
    await_chunks(2);
    assert_chunk(1, 1024, 1500);
}
END_TEST

START_TEST(a_newer_write_drops_the_mark_and_its_event_still_goes)
{
    char a[33], b[33];
    struct json_object *ev = json_object_new_object();
    struct kytos_write w = {.op = KYTOS_WRITE_DELETE};

    id_of(a, 0);
    id_of(b, 1);
    json_object_object_add(ev, "flow", json_object_new_string("flow-a"));
    writes_queued(1);
    pthread_mutex_lock(&ctx.order);
    ck_assert_int_eq(fm_marks_keep(&ctx, a, ev), 0);
    ck_assert_int_eq(fm_marks_keep(&ctx, b, NULL), 0);
    ck_assert_int_eq(fm_marks_keep(&ctx, b, NULL), 0);   /* confirmed twice: kept once */
    w.id = a;
    fm_marks_written(&ctx, &w, 1);   /* a's delete, queued after its mark was kept */
    pthread_mutex_unlock(&ctx.order);
    ck_assert_uint_eq(published, 1);
    ck_assert_str_eq(last_published, "flow-a");
    writes_done(1);
    ck_assert_uint_eq(jobs_queued(), 1);
    ck_assert_uint_eq(jobs[0]->n, 1);
    ck_assert_str_eq(jobs[0]->it[0].id, b);
}
END_TEST

/* marks.c's MAX: past it a confirmation is not kept but written at once
 * (fm_marks_keep -1), also while a chunk of the kept ones is in flight. */
#define MARKS_MAX 262144u

static int keep_one(unsigned i)
{
    char id[33];

    id_of(id, i);
    return fm_marks_keep(&ctx, id, NULL);
}

START_TEST(at_most_max_are_kept)
{
    unsigned i;

    writes_queued(3);   /* a burst in flight: nothing is quiet */
    pthread_mutex_lock(&ctx.order);
    for (i = 0; i < MARKS_MAX; i++)
        ck_assert_int_eq(keep_one(i), 0);
    ck_assert_int_eq(keep_one(i), -1);   /* full: the caller writes it now */
    ck_assert_int_eq(keep_one(0), 0);    /* one kept already is still one */
    fm_marks_kept(&ctx);                 /* full: a chunk goes, however busy */
    ck_assert_uint_eq(njobs, 1);
    pthread_mutex_unlock(&ctx.order);
    assert_chunk(0, 0, 1024);
    /* with that chunk in flight: room for as many as it took, no more */
    pthread_mutex_lock(&ctx.order);
    for (; i < MARKS_MAX + 1024; i++)
        ck_assert_int_eq(keep_one(i), 0);
    ck_assert_int_eq(keep_one(i), -1);
    pthread_mutex_unlock(&ctx.order);
}
END_TEST

START_TEST(what_is_kept_at_stop_is_written_then)
{
    writes_queued(1);
    keep(0, 300);
    fm_marks_stop(&ctx);   /* as fm_stop does first */
    fm_marks_flush_sync(&ctx);
    ck_assert_uint_eq(bulk_ops, 300);
    ck_assert_uint_eq(bulk_calls, 2);
    ck_assert_uint_eq(jobs_queued(), 0);   /* still in flight: none queued */
}
END_TEST

static Suite *suite(void)
{
    Suite *s = suite_create("fm_marks");
    TCase *tc = kytos_check_case(s, "marks", setup, teardown, 10);

    tcase_add_test(tc, nothing_in_flight_nothing_kept);
    tcase_add_test(tc, a_lone_install_is_marked_at_once);
    tcase_add_test(tc, kept_while_a_write_is_in_flight_then_written_oldest_first);
    tcase_add_test(tc, a_write_in_flight_holds_the_rest_back);
    tcase_add_test(tc, a_newer_write_drops_the_mark_and_its_event_still_goes);
    tcase_add_test(tc, what_is_kept_at_stop_is_written_then);
    tcase_add_test(tc, at_most_max_are_kept);
    return s;
}

int main(void)
{
    return kytos_check_run(suite());
}
