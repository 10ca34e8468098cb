/* tests/napps/test_topology_seed.c - a test-only NApp that writes any
 * document into any store collection, so test_topology can hand kytos/
 * topology hostile stored documents:
 *   PUT /api/kytos/topo_seed/v1/{coll}/{id}   body: the document (any JSON)
 * and read back what topology stored:
 *   GET /api/kytos/topo_seed/v1/{coll}/{id}   200 the document, 404 */
#include <kytos/kytos.h>

static int put_doc(kytos_req *req, void *ud)
{
    struct json_object *doc = kytos_req_json(req), *s;
    struct kytos_error err = {0};
    int rc;

    (void)ud;
    rc = kytos_store_put(kytos_req_napp(req), kytos_req_param(req, "coll"), kytos_req_param(req, "id"),
                         doc, &err);
    if (rc < 0)
        return kytos_resp_error(req, 400, "%s", err.message);
    s = json_object_new_string("stored");
    rc = kytos_resp_json(req, 201, s);
    json_object_put(s);
    return rc;
}

static int get_doc(kytos_req *req, void *ud)
{
    struct json_object *doc = NULL;
    struct kytos_error err = {0};
    int rc;

    (void)ud;
    rc = kytos_store_get(kytos_req_napp(req), kytos_req_param(req, "coll"), kytos_req_param(req, "id"),
                         &doc, &err);
    if (rc < 0)
        return kytos_resp_error(req, 404, "%s", err.message);
    return kytos_resp_json_take(req, 200, doc);
}

static int seed_init(kytos_napp *napp, char **errmsg)
{
    int rc;

    (void)errmsg;
    rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                     .method = "PUT",
                                                     .path = "v1/{coll}/{id}",
                                                     .handler = put_doc});
    if (rc == KYTOS_OK)
        rc = kytos_route_add(napp, &(struct kytos_route){.struct_size = sizeof(struct kytos_route),
                                                         .method = "GET",
                                                         .path = "v1/{coll}/{id}",
                                                         .handler = get_doc});
    return rc;
}

KYTOS_NAPP_DEFINE("kytos", "topo_seed", "0.0.1", KYTOS_NO_DEPS, NULL, 0, 0, seed_init, NULL, NULL);
