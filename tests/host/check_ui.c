/* tests/host/check_ui.c - the UI's path vetting and confinement
 * (host/ui/ui_path.c) and the bounded queue behind a streamed response
 * (host/http/stream.c). */
#include "check_tap.h"
#include "host/ui/ui_path.h"
#include "host/ui/napp_files.h"
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

/* The table as kytos-embed --ui writes it: vetted, indexed, found. */
START_TEST(napp_ui_table_is_indexed)
{
    static const struct kytos_napp_ui_file files[] = {
        {"k-toolbar/main.kytos", "<template>T</template>", 21},
        {"app.js", "x", 1},
        {"empty.txt", NULL, 0},
    };
    struct kytos_napp_ui t = {KYTOS_NAPP_UI_MAGIC, sizeof t, 3, files};
    char err[256] = "";
    struct kh_ui_napp_files *f = kh_ui_napp_files_new(&t, err, sizeof err);
    const struct kh_ui_napp_file *e;

    ck_assert_msg(f != NULL, "%s", err);
    ck_assert_uint_eq(kh_ui_napp_files_count(f), 3);
    e = kh_ui_napp_files_find(f, "k-toolbar/main.kytos");
    ck_assert_ptr_nonnull(e);
    ck_assert_ptr_eq(e->data, files[0].data);   /* borrowed, not copied */
    ck_assert_uint_eq(e->len, 21);
    ck_assert_int_eq(e->etag[0], '"');
    ck_assert_str_ne(e->etag, kh_ui_napp_files_find(f, "app.js")->etag);
    e = kh_ui_napp_files_find(f, "empty.txt");
    ck_assert(e && e->len == 0 && e->data && e->data[0] == '\0');
    ck_assert_ptr_null(kh_ui_napp_files_find(f, "k-toolbar"));
    ck_assert_ptr_null(kh_ui_napp_files_find(f, "main.kytos"));
    ck_assert_ptr_null(kh_ui_napp_files_find(NULL, "app.js"));
    kh_ui_napp_files_free(f);
    t.count = 0;
    t.files = NULL;
    f = kh_ui_napp_files_new(&t, err, sizeof err);   /* an empty table is fine */
    ck_assert(f && kh_ui_napp_files_count(f) == 0 && !kh_ui_napp_files_find(f, "app.js"));
    kh_ui_napp_files_free(f);
}
END_TEST

/* Each way a table can be malformed: refused, saying what was wrong. */
START_TEST(napp_ui_table_is_vetted)
{
    static char longname[KYTOS_NAPP_UI_MAX_NAME + 8], longpart[300];
    struct kytos_napp_ui_file one[1] = {{"a.js", "x", 1}}, two[2];
    struct kytos_napp_ui t;
    char err[256];
    static const struct {
        const char *path, *data;
        size_t len;
        const char *says;
    } bad[] = {
        {NULL, "x", 1, "has no path"},
        {"", "x", 1, "empty"},
        {"../secret", "x", 1, "'..'"},
        {"a/../../secret", "x", 1, "'..'"},
        {"/etc/passwd", "x", 1, "bad path"},
        {"a//b", "x", 1, "bad path"},
        {"a/", "x", 1, "bad path"},
        {"./a", "x", 1, "bad path"},
        {".git/config", "x", 1, "'.git'"},
        {"a\\..\\b", "x", 1, "bad path"},
        {"a\x01b", "x", 1, "bad path"},
        {"a.js", NULL, 5, "no data"},
        {"big.bin", "x", (size_t)KYTOS_NAPP_UI_MAX_TOTAL + 1, "over"},
    };
    size_t i;

    memset(longname, 'a', sizeof longname - 1);
    memset(longpart, 'b', sizeof longpart - 1);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        struct kytos_napp_ui_file f = {bad[i].path, bad[i].data, bad[i].len};
        t = (struct kytos_napp_ui){KYTOS_NAPP_UI_MAGIC, sizeof t, 1, &f};
        err[0] = '\0';
        ck_assert_msg(!kh_ui_napp_files_new(&t, err, sizeof err), "'%s' taken", bad[i].path);
        ck_assert_msg(strstr(err, bad[i].says), "'%s': '%s' does not say '%s'", bad[i].path, err,
                      bad[i].says);
    }
#define REFUSED(says)                                                                  \
    do {                                                                               \
        err[0] = '\0';                                                                 \
        ck_assert(!kh_ui_napp_files_new(&t, err, sizeof err));                         \
        ck_assert_msg(strstr(err, says), "'%s' does not say '%s'", err, says);         \
    } while (0)
    t = (struct kytos_napp_ui){0x12345678, sizeof t, 1, one};
    REFUSED("magic 0x12345678");
    t = (struct kytos_napp_ui){KYTOS_NAPP_UI_MAGIC, 8, 1, one};
    REFUSED("table of 8 bytes");
    t = (struct kytos_napp_ui){KYTOS_NAPP_UI_MAGIC, sizeof t, KYTOS_NAPP_UI_MAX_FILES + 1, one};
    REFUSED("1025 files, at most 1024");   /* refused before a file is read */
    t = (struct kytos_napp_ui){KYTOS_NAPP_UI_MAGIC, sizeof t, 2, NULL};
    REFUSED("no file list");
    one[0].path = longname;   /* not NUL-terminated within the bound */
    t = (struct kytos_napp_ui){KYTOS_NAPP_UI_MAGIC, sizeof t, 1, one};
    REFUSED("longer than 1024 bytes");
    one[0].path = longpart;
    REFUSED("a part longer than 255 bytes");
    two[0] = (struct kytos_napp_ui_file){"k/x.kytos", "1", 1};
    two[1] = (struct kytos_napp_ui_file){"k/x.kytos", "2", 1};
    t = (struct kytos_napp_ui){KYTOS_NAPP_UI_MAGIC, sizeof t, 2, two};
    REFUSED("'k/x.kytos' is there twice");
    /* the total: two files each under the bound, together over it */
    two[0] = (struct kytos_napp_ui_file){"a", "x", KYTOS_NAPP_UI_MAX_TOTAL / 2 + 1};
    two[1] = (struct kytos_napp_ui_file){"b", "x", KYTOS_NAPP_UI_MAX_TOTAL / 2 + 1};
    REFUSED("file 1 ('b'): over 67108864 bytes");
#undef REFUSED
}
END_TEST

int main(void)
{
    Suite *s = suite_create("ui");

    kytos_check_add(s, "segments_are_vetted", segments_are_vetted);
    kytos_check_add(s, "paths_are_joined_or_refused", paths_are_joined_or_refused);
    kytos_check_add(s, "opening_stays_beneath_the_directory", opening_stays_beneath_the_directory);
    kytos_check_add(s, "stream_queue_is_bounded", stream_queue_is_bounded);
    kytos_check_add(s, "napp_ui_table_is_indexed", napp_ui_table_is_indexed);
    kytos_check_add(s, "napp_ui_table_is_vetted", napp_ui_table_is_vetted);
    return kytos_check_run(s);
}
