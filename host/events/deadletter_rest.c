/* host/events/deadletter_rest.c - the dead letter's core routes: HTTP glue over
 * deadletter_ops.c. */
#include "events/deadletter_ops.h"
#include "http/req_api.h"
#include "util/log.h"

#define DL_PATH "/api/kytos/core/dead_letter/"

static int send_reply(kytos_req *req, struct kh_dl_reply *r)
{
    int rc;

    if (r->body)
        rc = kh_resp_json(req, r->status, r->body);
    else
        rc = kh_resp_error(req, r->status, "%s", r->description ? r->description : "error");
    kh_dl_reply_clear(r);
    return rc < 0 ? rc : KYTOS_OK;
}

static int dl_get(kytos_req *req, void *ud)
{
    struct kh_dl_reply r;

    kh_dl_do_get(ud, kh_req_query(req, "event_name"), &r);
    return send_reply(req, &r);
}

static int dl_patch(kytos_req *req, void *ud)
{
    struct kh_dl_reply r;

    kh_dl_do_patch(ud, kh_req_json(req), &r);
    return send_reply(req, &r);
}

static int dl_delete(kytos_req *req, void *ud)
{
    struct kh_dl_reply r;

    kh_dl_do_delete(ud, kh_req_json(req), &r);
    return send_reply(req, &r);
}

int kh_bus_register_core_routes(kh_bus *b, kh_core_route_fn add, void *add_ud)
{
    int rc;

    if ((rc = add(add_ud, "GET", DL_PATH, dl_get, b, 0)) != 0 ||
        (rc = add(add_ud, "PATCH", DL_PATH, dl_patch, b, 0)) != 0 ||
        (rc = add(add_ud, "DELETE", DL_PATH, dl_delete, b, 0)) != 0)
        kh_log("kytos.core.events", KH_ERROR, "cannot register the dead letter routes: %s",
               kh_strerror(rc));
    return rc;
}
