/* tests/host/check_idle_conns.c - idle keep-alive connections reclaimed oldest
 * first (host/http/idle_conns.c). */
#include "check_tap.h"
#include "host/addr.h"
#include "host/http/idle_conns.h"
#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* The oldest idle connection goes first, and only once it has been idle
 * long enough and nothing waits unread on it; a busy one is never taken; a
 * taken one's peer reads the end of the stream, and its close reports its
 * slot as given away. */
START_TEST(idle_connections_are_reclaimed_oldest_first)
{
    struct kh_idle_conns *set = kh_idle_conns_new();
    struct kh_idle_link l[3] = {{0}};
    int sv[3][2];
    struct sockaddr_storage got;
    struct sockaddr_in want = v4("10.0.0.2", 7);
    char c;

    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv[i]), 0);
        l[i].fd = sv[i][0];
        memcpy(&l[i].addr, &want, sizeof want);
        ((struct sockaddr_in *)&l[i].addr)->sin_port = htons((uint16_t)i);
    }
    kh_idle_enter(set, &l[0], 100);
    kh_idle_enter(set, &l[1], 200);
    kh_idle_enter(set, &l[2], 300);
    ck_assert_uint_eq(kh_idle_count(set), 3);
    kh_idle_leave(set, &l[0]);   /* a request began on the oldest */
    ck_assert_int_eq(kh_idle_reclaim(set, 1150, 1000, &got), -1);   /* l[1] idle 950 ms */
    ck_assert_int_eq(send(sv[1][1], "G", 1, 0), 1);   /* its next request arriving */
    ck_assert_int_eq(kh_idle_reclaim(set, 1200, 1000, &got), -1);
    ck_assert_int_eq(recv(sv[1][0], &c, 1, 0), 1);   /* read: idle again */
    ck_assert_int_eq(kh_idle_reclaim(set, 1200, 1000, &got), 0);
    ck_assert_int_eq(ntohs(((struct sockaddr_in *)&got)->sin_port), 1);
    ck_assert_int_eq(recv(sv[1][1], &c, 1, MSG_DONTWAIT), 0);   /* shut down: end of stream */
    ck_assert_int_eq(recv(sv[2][1], &c, 1, MSG_DONTWAIT), -1);  /* the others untouched */
    ck_assert_int_eq(errno, EAGAIN);
    kh_idle_enter(set, &l[1], 1300);   /* its answer, after: it stays off */
    ck_assert_uint_eq(kh_idle_count(set), 1);
    ck_assert_int_eq(kh_idle_reclaim(set, 1300, 1000, &got), 0);   /* l[2], idle since 300 */
    ck_assert_int_eq(ntohs(((struct sockaddr_in *)&got)->sin_port), 2);
    ck_assert_int_eq(kh_idle_reclaim(set, 9999, 0, &got), -1);   /* l[0] is busy */
    kh_idle_enter(set, &l[0], 2000);
    ck_assert(!kh_idle_closed(set, &l[0]));   /* closed by its client: its own slot */
    ck_assert(kh_idle_closed(set, &l[1]));
    ck_assert(kh_idle_closed(set, &l[2]));
    ck_assert_uint_eq(kh_idle_count(set), 0);
    ck_assert_int_eq(kh_idle_reclaim(set, 9999, 0, &got), -1);
    for (int i = 0; i < 3; i++) {
        close(sv[i][0]);
        close(sv[i][1]);
    }
    kh_idle_conns_free(set);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("idle_conns");

    kytos_check_add(s, "idle_connections_are_reclaimed_oldest_first", idle_connections_are_reclaimed_oldest_first);
    return kytos_check_run(s);
}
