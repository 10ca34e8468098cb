/* tests/util/check_util.c - the shared utility layer: percent-decoding (bad
 * escapes are errors naming their offset), hex digits, the string buffer
 * (caller storage, heap, take) and growable arrays. */
#include <string.h>
#include "check_tap.h"
#include "util/strbuf.h"
#include "util/text.h"

static long dec(const char *in, unsigned flags, char *out, size_t *bad)
{
    *bad = (size_t)-1;
    return ku_pct_decode(in, strlen(in), out, flags, bad);
}

START_TEST(pct_valid)
{
    char out[64];
    size_t bad;

    ck_assert_int_eq(dec("a%2Fb%2fc", 0, out, &bad), 5);
    ck_assert_str_eq(out, "a/b/c");
    ck_assert_int_eq(dec("%41%42", 0, out, &bad), 2);
    ck_assert_str_eq(out, "AB");
    ck_assert_int_eq(dec("a+b%20c", KU_PCT_PLUS, out, &bad), 5);
    ck_assert_str_eq(out, "a b c");
    ck_assert_int_eq(dec("a+b", 0, out, &bad), 3);
    ck_assert_str_eq(out, "a+b");
    ck_assert_int_eq(dec("", 0, out, &bad), 0);
    ck_assert_str_eq(out, "");
    ck_assert_uint_eq(bad, (size_t)-1);
}
END_TEST

START_TEST(pct_bad_escapes)
{
    char out[64];
    size_t bad;

    ck_assert_int_eq(dec("ab%zz", 0, out, &bad), -1);
    ck_assert_uint_eq(bad, 2);
    ck_assert_int_eq(dec("ab%", 0, out, &bad), -1);      /* trailing '%' */
    ck_assert_uint_eq(bad, 2);
    ck_assert_int_eq(dec("%4", 0, out, &bad), -1);       /* one digit */
    ck_assert_uint_eq(bad, 0);
    ck_assert_int_eq(dec("x%4g", 0, out, &bad), -1);
    ck_assert_uint_eq(bad, 1);
    ck_assert_int_eq(dec("%%41", 0, out, &bad), -1);
    ck_assert_uint_eq(bad, 0);
    /* %00 only where asked to refuse it */
    ck_assert_int_eq(dec("a%00b", 0, out, &bad), 3);
    ck_assert_int_eq(out[1], '\0');
    ck_assert_int_eq(dec("a%00b", KU_PCT_NO_NUL, out, &bad), -1);
    ck_assert_uint_eq(bad, 1);
    /* a decode stops at len, never reading past it */
    ck_assert_int_eq(ku_pct_decode("%4142", 2, out, 0, &bad), -1);
    ck_assert_int_eq(ku_pct_decode("%4142", 3, out, 0, NULL), 1);
    ck_assert_str_eq(out, "A");
    /* without out, only the escapes are checked */
    ck_assert_int_eq(ku_pct_decode("a%41+", 5, NULL, KU_PCT_PLUS, &bad), 3);
    ck_assert_int_eq(ku_pct_decode("a=%x1", 5, NULL, 0, &bad), -1);
    ck_assert_uint_eq(bad, 2);
}
END_TEST

START_TEST(hex_digits)
{
    ck_assert_int_eq(ku_hexval('0'), 0);
    ck_assert_int_eq(ku_hexval('9'), 9);
    ck_assert_int_eq(ku_hexval('a'), 10);
    ck_assert_int_eq(ku_hexval('F'), 15);
    ck_assert_int_eq(ku_hexval('g'), -1);
    ck_assert_int_eq(ku_hexval('/'), -1);
    ck_assert_int_eq(ku_hexval(0), -1);
    ck_assert_int_eq(ku_hexval(0xc3), -1);
}
END_TEST

START_TEST(buf_storage_then_heap)
{
    char small[8];
    struct ku_buf b = KU_BUF_ON(small);
    char *s;

    ck_assert_str_eq(ku_buf_str(&b), "");
    ck_assert_int_eq(ku_buf_adds(&b, "abc"), 0);
    ck_assert_ptr_eq(b.p, small);
    ck_assert_int_eq(ku_buf_printf(&b, "-%d-%s", 42, "0123456789"), 0);
    ck_assert(b.heap);
    ck_assert_str_eq(ku_buf_str(&b), "abc-42-0123456789");
    ck_assert_uint_eq(b.len, 17);
    ck_assert_int_eq(ku_buf_addc(&b, '!'), 0);
    s = ku_buf_take(&b);
    ck_assert_str_eq(s, "abc-42-0123456789!");
    ck_assert_uint_eq(b.len, 0);
    free(s);

    /* take from caller storage copies */
    b = (struct ku_buf)KU_BUF_ON(small);
    ku_buf_adds(&b, "hi");
    s = ku_buf_take(&b);
    ck_assert_ptr_ne(s, small);
    ck_assert_str_eq(s, "hi");
    free(s);
    ku_buf_free(&b);
}
END_TEST

START_TEST(buf_long_printf)
{
    struct ku_buf b = KU_BUF_INIT;
    char big[1000];

    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    ck_assert_int_eq(ku_buf_printf(&b, "<%s>", big), 0);
    ck_assert_uint_eq(b.len, 1001);
    ck_assert_int_eq(b.p[0], '<');
    ck_assert_int_eq(b.p[1000], '>');
    ku_buf_reset(&b);
    ck_assert_str_eq(ku_buf_str(&b), "");
    ku_buf_free(&b);
    ck_assert_ptr_null(b.p);
}
END_TEST

START_TEST(array_reserve)
{
    int *a = NULL;
    size_t cap = 0, n;

    for (n = 0; n < 100; n++) {
        ck_assert_int_eq(KU_RESERVE(a, cap, n + 1), 0);
        a[n] = (int)n;
    }
    ck_assert_uint_ge(cap, 100);
    ck_assert_uint_eq(cap, 128);
    for (n = 0; n < 100; n++)
        ck_assert_int_eq(a[n], (int)n);
    /* an impossible size fails and leaves the array as it was */
    ck_assert_int_eq(KU_RESERVE(a, cap, (size_t)-1 / 2), -1);
    ck_assert_uint_eq(cap, 128);
    ck_assert_int_eq(a[99], 99);
    free(a);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("util");
    TCase *tc = tcase_create("util");

    tcase_add_test(tc, pct_valid);
    tcase_add_test(tc, pct_bad_escapes);
    tcase_add_test(tc, hex_digits);
    tcase_add_test(tc, buf_storage_then_heap);
    tcase_add_test(tc, buf_long_printf);
    tcase_add_test(tc, array_reserve);
    suite_add_tcase(s, tc);
    return kytos_check_run(s);
}
