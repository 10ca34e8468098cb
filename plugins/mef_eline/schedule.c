/* plugins/mef_eline/schedule.c - EVC schedules (Kytos' circuit_scheduler):
 * POST v2/evc/schedule/, PATCH and DELETE v2/evc/schedule/{schedule_id},
 * the index of schedules and the runner.
 *
 * A schedule lives in its EVC's document (circuit_scheduler[], stored with
 * the EVC).  The runner, a timer ticking once a second, runs each due one:
 * "create" enables and deploys the EVC, "remove" takes its flows off and
 * disables it.  "date" runs once (at once when the date is already past
 * when it is posted; a date past at start is not run again), "interval"
 * every interval from when it was indexed.  A cron "frequency" is checked,
 * stored and listed but never run (not implemented: it would need a cron
 * evaluator; Kytos uses APScheduler's CronTrigger). */
#include "me.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ---- the index (me->jobs under me->sched_lock) ---- */

static void job_drop_at(struct me *me, size_t i)
{
    me->jobs[i] = me->jobs[--me->njobs];
}

void me_sched_untrack(struct me *me, const char *sched_id)
{
    size_t i;
    pthread_mutex_lock(&me->sched_lock);
    for (i = 0; i < me->njobs; i++) {
        if (strcmp(me->jobs[i].id, sched_id) == 0) {
            job_drop_at(me, i);
            break;
        }
    }
    pthread_mutex_unlock(&me->sched_lock);
}

void me_sched_untrack_evc(struct me *me, const char *evc_id)
{
    size_t i;
    pthread_mutex_lock(&me->sched_lock);
    for (i = 0; i < me->njobs;) {
        if (strcmp(me->jobs[i].evc, evc_id) == 0)
            job_drop_at(me, i);
        else
            i++;
    }
    pthread_mutex_unlock(&me->sched_lock);
}

void me_sched_track(struct me *me, const char *evc_id, struct json_object *s, bool at_load)
{
    const char *id = json_object_get_string(json_object_object_get(s, "id"));
    const char *act = json_object_get_string(json_object_object_get(s, "action"));
    struct json_object *date;
    struct me_job j = {0};
    int64_t now = (int64_t)time(NULL), when;

    if (!id || strlen(id) > ME_ID_LEN || !act)
        return;
    snprintf(j.id, sizeof j.id, "%s", id);
    snprintf(j.evc, sizeof j.evc, "%s", evc_id);
    j.create = strcmp(act, "create") == 0;
    j.due = INT64_MAX;
    if (json_object_object_get_ex(s, "date", &date) && date &&
        me_sched_parse_date(json_object_get_string(date), &when) == 0) {
        j.due = at_load && when < now ? INT64_MAX : when;
    } else if ((j.every = me_sched_interval(s)) > 0) {
        j.due = now + j.every;
    }
    if (strcmp(act, "create") != 0 && strcmp(act, "remove") != 0)
        j.due = INT64_MAX;   /* stored by an older version: listed, never run */
    pthread_mutex_lock(&me->sched_lock);
    if (me->njobs == me->capjobs) {
        size_t cap = me->capjobs ? me->capjobs * 2 : 64;
        struct me_job *n = realloc(me->jobs, cap * sizeof *n);
        if (!n) {
            pthread_mutex_unlock(&me->sched_lock);
            kytos_log(me->napp, KYTOS_LOG_ERROR, "schedule %s not indexed: out of memory", id);
            return;
        }
        me->jobs = n;
        me->capjobs = cap;
    }
    me->jobs[me->njobs++] = j;
    pthread_mutex_unlock(&me->sched_lock);
}

void me_sched_track_all(struct me *me, const char *evc_id, struct json_object *arr, bool at_load)
{
    size_t i;
    for (i = 0; json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr); i++)
        me_sched_track(me, evc_id, json_object_array_get_idx(arr, i), at_load);
}

int me_sched_owner(struct me *me, const char *sched_id, char out[ME_ID_LEN + 1])
{
    size_t i;
    int rc = -1;
    pthread_mutex_lock(&me->sched_lock);
    for (i = 0; i < me->njobs && rc; i++) {
        if (strcmp(me->jobs[i].id, sched_id) == 0) {
            memcpy(out, me->jobs[i].evc, ME_ID_LEN + 1);
            rc = 0;
        }
    }
    pthread_mutex_unlock(&me->sched_lock);
    return rc;
}

/* ---- the runner ---- */

/* Is j still indexed as it was taken (not deleted or changed since)?  The
 * routes change the index under the EVC's lock, which the caller holds. */
static bool still_indexed(struct me *me, const struct me_job *j)
{
    size_t i;
    bool yes = false;
    pthread_mutex_lock(&me->sched_lock);
    for (i = 0; i < me->njobs && !yes; i++)
        yes = strcmp(me->jobs[i].id, j->id) == 0 && strcmp(me->jobs[i].evc, j->evc) == 0 &&
              me->jobs[i].create == j->create && me->jobs[i].every == j->every &&
              /* a date tick() took is marked ran; a PATCH since set a new one */
              (j->every > 0 || me->jobs[i].due == INT64_MAX);
    pthread_mutex_unlock(&me->sched_lock);
    return yes;
}

static void run_action(struct me *me, const struct me_job *j)
{
    struct me_evc *e = me_evc_get(me, j->evc);
    if (!e)
        return;
    pthread_mutex_lock(&e->lock);
    if (!e->archived && still_indexed(me, j)) {
        if (j->create) {
            e->enabled = true;
            me_deploy(me, e, NULL, 0);
        } else {
            me_undeploy(me, e);
            e->enabled = false;
        }
        me_evc_save(me, e);
        kytos_log(me->napp, KYTOS_LOG_INFO, "EVC(%s): schedule %s ran %s, active %d", e->id, j->id,
                  j->create ? "create" : "remove", e->active);
    }
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);
}

static void tick(kytos_napp *napp, void *ud)
{
    struct me *me = ud;
    struct me_job *due = NULL;
    size_t i, n = 0;
    int64_t now = (int64_t)time(NULL);

    (void)napp;
    me_wait_loaded(me);   /* a job's EVC may not be in the map yet */
    /* take the due jobs out under the lock, run them without it */
    pthread_mutex_lock(&me->sched_lock);
    for (i = 0; i < me->njobs; i++) {
        struct me_job *j = &me->jobs[i];
        struct me_job *grown;
        if (j->due > now)
            continue;
        grown = realloc(due, (n + 1) * sizeof *due);
        if (!grown)
            break;
        due = grown;
        due[n++] = *j;
        if (j->every > 0) {
            while (j->due <= now)
                j->due += j->every;
        } else {
            j->due = INT64_MAX;   /* ran; stays indexed (listed, editable) */
        }
    }
    pthread_mutex_unlock(&me->sched_lock);
    for (i = 0; i < n; i++)
        run_action(me, &due[i]);
    free(due);
}

int me_sched_start(struct me *me)
{
    return kytos_timer_add(me->napp, 1000, tick, me);
}

/* ---- routes ---- */

/* The index of schedule sched_id in the EVC's circuit_scheduler, or -1. */
static int find_in(struct json_object *arr, const char *sched_id)
{
    size_t i;
    for (i = 0; json_object_is_type(arr, json_type_array) && i < json_object_array_length(arr); i++) {
        const char *id = json_object_get_string(
            json_object_object_get(json_object_array_get_idx(arr, i), "id"));
        if (id && strcmp(id, sched_id) == 0)
            return (int)i;
    }
    return -1;
}

static struct json_object *sched_array(struct me_evc *e)
{
    struct json_object *arr;
    if (!json_object_object_get_ex(e->doc, "circuit_scheduler", &arr) ||
        !json_object_is_type(arr, json_type_array)) {
        arr = json_object_new_array();
        json_object_object_add(e->doc, "circuit_scheduler", arr);
    }
    return arr;
}

static struct json_object *copy_of(struct json_object *o)
{
    struct json_object *c = NULL;
    json_object_deep_copy(o, &c, NULL);
    return c;
}

/* POST v2/evc/schedule/ {"circuit_id", "schedule"} (spec: NewCircuitSchedule) */
static int h_create_schedule(kytos_req *req, void *ud)
{
    struct me *me = ud;
    struct json_object *body = kytos_req_json(req), *s, *arr, *out;
    const char *cid = json_object_get_string(json_object_object_get(body, "circuit_id"));
    char err[256], sid[ME_ID_LEN + 1];
    struct me_evc *e;

    if (!json_object_is_type(body, json_type_object) || !cid)
        return kytos_resp_error(req, 400, "The request body contains invalid API data.");
    e = me_evc_get(me, cid);
    if (!e || e->archived) {
        me_evc_unref(e);
        return kytos_resp_error(req, 404, "circuit_id %s not found", cid);
    }
    if (me_sched_check(json_object_object_get(body, "schedule"), err, sizeof err) != 0) {
        me_evc_unref(e);
        return kytos_resp_error(req, 400, "%s", err);
    }
    me_new_id(sid);
    s = me_sched_stored(json_object_object_get(body, "schedule"), sid);
    pthread_mutex_lock(&e->lock);
    if (e->archived) {   /* deleted meanwhile */
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        json_object_put(s);
        return kytos_resp_error(req, 404, "circuit_id %s not found", cid);
    }
    arr = sched_array(e);
    json_object_array_add(arr, s);
    if (me_evc_sync(me, e) != KYTOS_OK) {
        json_object_array_del_idx(arr, json_object_array_length(arr) - 1, 1);
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 500, "Failed to store the schedule");
    }
    out = copy_of(s);
    me_sched_track(me, e->id, s, false);
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);
    return kytos_resp_json_take(req, 201, out);
}

/* The live EVC holding schedule sched_id, locked, and the schedule's index. */
static struct me_evc *lock_owner(struct me *me, const char *sched_id, int *idx)
{
    char evc[ME_ID_LEN + 1];
    struct me_evc *e;

    if (me_sched_owner(me, sched_id, evc) != 0 || !(e = me_evc_get(me, evc)))
        return NULL;
    pthread_mutex_lock(&e->lock);
    if (e->archived || (*idx = find_in(json_object_object_get(e->doc, "circuit_scheduler"),
                                       sched_id)) < 0) {
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return NULL;
    }
    return e;
}

/* PATCH v2/evc/schedule/{schedule_id} (spec: CircuitSchedule): the
 * schedule is replaced by the body, keeping its id (Kytos' update_schedule). */
static int h_update_schedule(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *sid = kytos_req_param(req, "schedule_id");
    struct json_object *body = kytos_req_json(req), *arr, *old, *s, *out;
    struct me_evc *e;
    char err[256];
    int idx = -1;

    if (!(e = lock_owner(me, sid, &idx)))
        return kytos_resp_error(req, 404, "schedule_id %s not found", sid);
    if (me_sched_check(body, err, sizeof err) != 0) {
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 400, "%s", err);
    }
    arr = sched_array(e);
    old = json_object_get(json_object_array_get_idx(arr, (size_t)idx));
    s = me_sched_stored(body, sid);
    json_object_array_put_idx(arr, (size_t)idx, s);
    if (me_evc_sync(me, e) != KYTOS_OK) {
        json_object_array_put_idx(arr, (size_t)idx, old);
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 500, "Failed to store the schedule");
    }
    json_object_put(old);
    out = copy_of(s);
    me_sched_untrack(me, sid);
    me_sched_track(me, e->id, s, false);
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);
    return kytos_resp_json_take(req, 200, out);
}

/* DELETE v2/evc/schedule/{schedule_id} */
static int h_delete_schedule(kytos_req *req, void *ud)
{
    struct me *me = ud;
    const char *sid = kytos_req_param(req, "schedule_id");
    struct json_object *arr, *old;
    struct me_evc *e;
    size_t i;
    int idx = -1;

    if (!(e = lock_owner(me, sid, &idx)))
        return kytos_resp_error(req, 404, "schedule_id %s not found", sid);
    /* a new array without it: the old one, in its order, to put back */
    old = json_object_get(sched_array(e));
    arr = json_object_new_array();
    for (i = 0; i < json_object_array_length(old); i++)
        if (i != (size_t)idx)
            json_object_array_add(arr, json_object_get(json_object_array_get_idx(old, i)));
    json_object_object_add(e->doc, "circuit_scheduler", arr);
    if (me_evc_sync(me, e) != KYTOS_OK) {
        json_object_object_add(e->doc, "circuit_scheduler", old);
        pthread_mutex_unlock(&e->lock);
        me_evc_unref(e);
        return kytos_resp_error(req, 500, "Failed to store the EVC");
    }
    json_object_put(old);
    me_sched_untrack(me, sid);
    pthread_mutex_unlock(&e->lock);
    me_evc_unref(e);
    return kytos_resp_json_take(req, 200, json_object_new_string("Schedule removed"));
}

int me_rest_sched_register(struct me *me)
{
    /* before v2/evc/{circuit_id}...: the first matching route wins */
    static const struct me_route routes[] = {
        {"POST", "v2/evc/schedule/", h_create_schedule, KYTOS_ROUTE_VALIDATE},
        {"PATCH", "v2/evc/schedule/{schedule_id}", h_update_schedule, KYTOS_ROUTE_VALIDATE},
        {"DELETE", "v2/evc/schedule/{schedule_id}", h_delete_schedule, KYTOS_ROUTE_NO_VALIDATE},
    };

    return me_routes_add(me, routes, sizeof routes / sizeof routes[0]);
}
