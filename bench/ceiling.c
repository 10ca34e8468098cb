/* bench/ceiling.c - the ceiling: a bare libmicrohttpd server with the same
 * threading as kytosd (internal thread pool, poll), answering GET with the
 * fixed 8 KB JSON and POST with 202 after reading the body.  Answers on the
 * second call so keep-alive works on 0.9.75, as kytosd does.
 * usage: ceiling PORT [THREADS [BODYFILE]]   (BODYFILE: answer GET with its
 * bytes instead, e.g. a saved GET topology/v3 body) */
#include "body8k.h"
#include <microhttpd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *body, small[8700];
static size_t body_len;
static struct MHD_Response *get_resp, *post_resp;
static int marker;

static enum MHD_Result handler(void *cls, struct MHD_Connection *c, const char *url,
                               const char *method, const char *version, const char *data,
                               size_t *size, void **ctx)
{
    (void)cls;
    (void)url;
    (void)version;
    (void)data;
    if (!*ctx) {
        *ctx = &marker;
        return MHD_YES;
    }
    if (*size) {
        *size = 0;   /* read and drop the body */
        return MHD_YES;
    }
    if (!strcmp(method, "POST"))
        return MHD_queue_response(c, 202, post_resp);
    return MHD_queue_response(c, 200, get_resp);
}

int main(int argc, char **argv)
{
    unsigned port = argc > 1 ? (unsigned)atoi(argv[1]) : 18080;
    unsigned threads = argc > 2 ? (unsigned)atoi(argv[2]) : (unsigned)sysconf(_SC_NPROCESSORS_ONLN);
    static const char accepted[] = "{\"response\":\"FlowMod Messages Sent\"}";
    struct MHD_Daemon *d;
    sigset_t set;
    int sig;

    body = small;
    body_len = bench_body8k(small, sizeof small);
    if (argc > 3) {
        FILE *f = fopen(argv[3], "rb");
        long n;
        if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > (64L << 20) ||
            fseek(f, 0, SEEK_SET) != 0 || !(body = malloc((size_t)n + 1)) ||
            fread(body, 1, (size_t)n, f) != (size_t)n) {
            fprintf(stderr, "ceiling: cannot read %s\n", argv[3]);
            return 1;
        }
        fclose(f);
        body_len = (size_t)n;
    }
    get_resp = MHD_create_response_from_buffer(body_len, body, MHD_RESPMEM_PERSISTENT);
    post_resp = MHD_create_response_from_buffer(sizeof accepted - 1, (void *)accepted,
                                                MHD_RESPMEM_PERSISTENT);
    MHD_add_response_header(get_resp, "Content-Type", "application/json");
    MHD_add_response_header(post_resp, "Content-Type", "application/json");
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set, NULL);
    d = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_POLL, (uint16_t)port, NULL, NULL,
                         handler, NULL, MHD_OPTION_THREAD_POOL_SIZE, threads,
                         MHD_OPTION_CONNECTION_LIMIT, 4096u, MHD_OPTION_CONNECTION_TIMEOUT, 60u,
                         MHD_OPTION_END);
    if (!d) {
        fprintf(stderr, "ceiling: cannot listen on %u\n", port);
        return 1;
    }
    sigwait(&set, &sig);
    MHD_stop_daemon(d);
    MHD_destroy_response(get_resp);
    MHD_destroy_response(post_resp);
    return 0;
}
