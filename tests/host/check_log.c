/* tests/host/check_log.c - the logger: sinks, per-logger levels, the
 * bounded queue and its drop counter.  Each test runs in its own process
 * (Check forks), so the logger's global state starts fresh. */
#include "check_tap.h"
#include "host/util/log.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    static char buf[1 << 18];
    size_t n;
    if (!f)
        return NULL;
    n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = '\0';
    fclose(f);
    return buf;
}

START_TEST(file_sink_format_and_levels)
{
    char path[] = "/tmp/kytos-log-XXXXXX";
    int fd = mkstemp(path);
    char *text;
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(kh_log_start(&(struct kh_log_opts){
        .level = KH_INFO, .console = 0, .file = path, .queue_max = 128,
        .levels_json = "{\"kytos.napps.kytos/chatty\": \"ERROR\", \"kytos.core.http\": \"DEBUG\"}"}), 0);
    kh_log("kytos.core.controller", KH_INFO, "hello %d", 42);
    kh_log("kytos.core.controller", KH_DEBUG, "hidden debug");
    kh_log("kytos.core.http", KH_DEBUG, "shown debug");
    kh_log("kytos.napps.kytos/chatty", KH_WARNING, "muted warning");
    kh_log("kytos.napps.kytos/chatty", KH_ERROR, "loud error");
    ck_assert(kh_log_enabled("kytos.core.http.sub", KH_DEBUG));   /* inherits its parent's level */
    ck_assert(!kh_log_enabled("kytos.core.controller", KH_DEBUG));
    kh_log_stop();                       /* flushes */
    text = slurp(path);
    unlink(path);
    ck_assert_ptr_nonnull(text);
    ck_assert_ptr_nonnull(strstr(text, " - INFO [kytos.core.controller] ("));
    ck_assert_ptr_nonnull(strstr(text, ") hello 42\n"));
    ck_assert_ptr_null(strstr(text, "hidden debug"));
    ck_assert_ptr_nonnull(strstr(text, "shown debug"));
    ck_assert_ptr_null(strstr(text, "muted warning"));
    ck_assert_ptr_nonnull(strstr(text, "ERROR [kytos.napps.kytos/chatty]"));
}
END_TEST

START_TEST(long_lines_are_cut_not_lost)
{
    char path[] = "/tmp/kytos-log-XXXXXX";
    int fd = mkstemp(path);
    char *big = malloc(200000), *text;
    close(fd);
    memset(big, 'x', 199999);
    big[199999] = '\0';
    ck_assert_int_eq(kh_log_start(&(struct kh_log_opts){.level = KH_INFO, .file = path, .queue_max = 16}), 0);
    kh_log("kytos.core.t", KH_INFO, "%s", big);
    kh_log("kytos.core.t", KH_INFO, "after");
    kh_log_stop();
    text = slurp(path);
    unlink(path);
    free(big);
    ck_assert_ptr_nonnull(strstr(text, "after"));
    ck_assert_uint_lt(strlen(text), 66000);   /* one message is cut at 64 KiB */
}
END_TEST

START_TEST(a_full_queue_drops_and_counts)
{
    char path[] = "/tmp/kytos-log-XXXXXX";
    int fd = mkstemp(path), i;
    close(fd);
    ck_assert_int_eq(kh_log_start(&(struct kh_log_opts){.level = KH_INFO, .file = path, .queue_max = 4}), 0);
    for (i = 0; i < 20000; i++)
        kh_log("kytos.core.t", KH_INFO, "line %d", i);
    kh_log_stop();
    unlink(path);
    /* the writer cannot keep up with 20000 pushes into a 4-line queue */
    ck_assert_uint_gt(kh_log_dropped(), 0);
    ck_assert_uint_lt(kh_log_dropped(), 20000);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("host_log");
    TCase *tc = tcase_create("log");
    tcase_add_test(tc, file_sink_format_and_levels);
    tcase_add_test(tc, long_lines_are_cut_not_lost);
    tcase_add_test(tc, a_full_queue_drops_and_counts);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
