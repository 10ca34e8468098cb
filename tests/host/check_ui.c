/* tests/host/check_ui.c - the UI's path vetting and confinement
 * (host/ui/ui_path.c) and the bounded queue behind a streamed response
 * (host/http/stream.c). */
#include "check_tap.h"
#include "host/ui/ui_path.h"
#include "host/http/stream.h"
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

START_TEST(segments_are_vetted)
{
    static const char *good[] = {"index.html", "a", "app.min.js", "with space", "é.txt", "a..b"};
    static const char *bad[] = {"", ".", "..", ".git", ".htpasswd", "a/b", "..\\x", "a\\b",
                                "x\x01", "x\x7f", "\x1b"};
    char longname[300];
    size_t i;

    for (i = 0; i < sizeof good / sizeof good[0]; i++)
        ck_assert_msg(kh_ui_seg_ok(good[i]), "%s refused", good[i]);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(!kh_ui_seg_ok(bad[i]), "%s taken", bad[i]);
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = '\0';
    ck_assert(!kh_ui_seg_ok(longname));
    longname[KH_UI_NAME_MAX] = '\0';
    ck_assert(kh_ui_seg_ok(longname));
}
END_TEST

START_TEST(paths_are_joined_or_refused)
{
    char *ok[] = {"sub", "dir", "f.js"}, *dots[] = {"sub", "..", "f"}, *enc[] = {"a%2fb"};
    char *many[8];
    char out[64], seg[200];
    size_t i;

    ck_assert_int_eq(kh_ui_rel_path(ok, 3, out, sizeof out), 0);
    ck_assert_str_eq(out, "sub/dir/f.js");
    ck_assert_int_eq(kh_ui_rel_path(dots, 3, out, sizeof out), -1);
    ck_assert_int_eq(kh_ui_rel_path(enc, 1, out, sizeof out), 0);   /* a name, not a separator */
    ck_assert_str_eq(out, "a%2fb");
    ck_assert_int_eq(kh_ui_rel_path(ok, 0, out, sizeof out), -1);
    memset(seg, 'x', sizeof seg - 1);
    seg[sizeof seg - 1] = '\0';
    for (i = 0; i < 8; i++)
        many[i] = seg;
    ck_assert_int_eq(kh_ui_rel_path(many, 8, out, sizeof out), -1);   /* too long for out */
}
END_TEST

/* A real directory: a file inside opens, a link out or ".." does not. */
START_TEST(opening_stays_beneath_the_directory)
{
    char base[] = "/tmp/check_ui_XXXXXX", p[1100], root[512];
    int fd, dfd;

    ck_assert_ptr_nonnull(mkdtemp(base));
    snprintf(root, sizeof root, "%s/ui", base);
    ck_assert_int_eq(mkdir(root, 0700), 0);
    snprintf(p, sizeof p, "%s/secret", base);
    fd = open(p, O_CREAT | O_WRONLY, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
    snprintf(p, sizeof p, "%s/in.txt", root);
    fd = open(p, O_CREAT | O_WRONLY, 0600);
    close(fd);
    snprintf(p, sizeof p, "%s/out", root);
    ck_assert_int_eq(symlink("../secret", p), 0);
    snprintf(p, sizeof p, "%s/abs", root);
    {
        char target[600];
        snprintf(target, sizeof target, "%s/secret", base);
        ck_assert_int_eq(symlink(target, p), 0);
    }
    snprintf(p, sizeof p, "%s/same", root);
    ck_assert_int_eq(symlink("in.txt", p), 0);
    dfd = open(root, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(dfd, 0);

    fd = kh_ui_open(dfd, root, "in.txt");
    ck_assert_int_ge(fd, 0);
    close(fd);
    fd = kh_ui_open(dfd, root, "same");
    ck_assert_int_ge(fd, 0);
    close(fd);
    ck_assert_int_eq(kh_ui_open(dfd, root, "out"), -1);
    ck_assert_int_eq(kh_ui_open(dfd, root, "abs"), -1);
    ck_assert_int_eq(kh_ui_open(dfd, root, "../secret"), -1);
    ck_assert_int_eq(kh_ui_open(dfd, root, "/etc/passwd"), -1);
    close(dfd);
    snprintf(p, sizeof p, "rm -rf '%s'", base);
    ck_assert_int_eq(system(p), 0);
}
END_TEST

static int parks, wakes;
static void park(void *ud) { (void)ud; parks++; }
static void wake(void *ud) { (void)ud; wakes++; }

/* Written bytes come out in order; an empty queue parks, the next write
 * wakes; past the cap the stream is cut off and its queue dropped. */
START_TEST(stream_queue_is_bounded)
{
    struct kh_stream *s = kh_stream_new(16);
    char buf[64];

    parks = wakes = 0;
    kh_stream_set_wake(s, wake, NULL);
    ck_assert_int_eq(kh_stream_read(s, buf, sizeof buf, park, NULL), 0);
    ck_assert_int_eq(parks, 1);
    ck_assert_int_eq(kh_stream_write(s, "hello ", 6), 0);
    ck_assert_int_eq(wakes, 1);
    ck_assert_int_eq(kh_stream_write(s, "world", 5), 0);
    ck_assert_int_eq(wakes, 1);   /* not parked any more */
    ck_assert_int_eq(kh_stream_read(s, buf, 4, park, NULL), 4);
    ck_assert_int_eq(memcmp(buf, "hell", 4), 0);
    ck_assert_int_eq(kh_stream_read(s, buf, sizeof buf, park, NULL), 7);
    ck_assert_int_eq(memcmp(buf, "o world", 7), 0);
    ck_assert_int_eq(kh_stream_write(s, "0123456789", 10), 0);
    ck_assert_int_eq(kh_stream_write(s, "0123456789", 10), -2);   /* 20 > 16: cut off */
    ck_assert(kh_stream_done(s));
    ck_assert_uint_eq(kh_stream_queued(s), 0);
    ck_assert_int_eq(kh_stream_write(s, "x", 1), -1);
    ck_assert_int_eq(kh_stream_read(s, buf, sizeof buf, park, NULL), -1);   /* the end */
    kh_stream_unref(s);

    s = kh_stream_new(1024);   /* close: what is queued goes out first */
    kh_stream_write(s, "abc", 3);
    kh_stream_close(s);
    ck_assert_int_eq(kh_stream_read(s, buf, sizeof buf, park, NULL), 3);
    ck_assert_int_eq(kh_stream_read(s, buf, sizeof buf, park, NULL), -1);
    kh_stream_ref(s);
    kh_stream_unref(s);
    kh_stream_detach(s);
    ck_assert_int_eq(kh_stream_write(s, "x", 1), -1);
    kh_stream_unref(s);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ui");

    kytos_check_add(s, "segments_are_vetted", segments_are_vetted);
    kytos_check_add(s, "paths_are_joined_or_refused", paths_are_joined_or_refused);
    kytos_check_add(s, "opening_stays_beneath_the_directory", opening_stays_beneath_the_directory);
    kytos_check_add(s, "stream_queue_is_bounded", stream_queue_is_bounded);
    return kytos_check_run(s);
}
