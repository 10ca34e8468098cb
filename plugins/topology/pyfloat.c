/* plugins/topology/pyfloat.c - Python float repr (see pyfloat.h). */
#include "pyfloat.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Shortest "%.*e" that round-trips: digits without the dot in dig, decimal
 * exponent in *exp10 (value = 0.d1d2d3... * 10^(exp10+1)). */
static void shortest_digits(double x, char *dig, size_t cap, int *exp10)
{
    char tmp[40];

    for (int prec = 0; prec <= 17; prec++) {
        snprintf(tmp, sizeof(tmp), "%.*e", prec, x);
        if (strtod(tmp, NULL) == x || prec == 17)
            break;
    }
    /* tmp is d[.ddd]e[+-]xx */
    size_t n = 0;
    const char *p = tmp;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9' && n + 1 < cap)
            dig[n++] = *p;
    dig[n] = '\0';
    *exp10 = (*p == 'e') ? atoi(p + 1) : 0;
    /* trailing zeros carry no information */
    while (n > 1 && dig[n - 1] == '0')
        dig[--n] = '\0';
}

void topo_pyfloat(double x, char buf[TOPO_PYFLOAT_MAX])
{
    char dig[24];
    int e, nd, pos = 0;

    if (isnan(x)) {
        snprintf(buf, TOPO_PYFLOAT_MAX, "NaN");
        return;
    }
    if (isinf(x)) {
        snprintf(buf, TOPO_PYFLOAT_MAX, x > 0 ? "Infinity" : "-Infinity");
        return;
    }
    if (x == 0.0) {
        snprintf(buf, TOPO_PYFLOAT_MAX, signbit(x) ? "-0.0" : "0.0");
        return;
    }
    if (x < 0) {
        buf[pos++] = '-';
        x = -x;
    }
    shortest_digits(x, dig, sizeof(dig), &e);
    nd = (int)strlen(dig);
    /* Python: scientific when the decimal point position is < -4 or > 16 */
    int decpt = e + 1;
    if (decpt > -4 && decpt <= 16) {
        if (decpt <= 0) {
            pos += snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "0.");
            for (int i = 0; i < -decpt; i++)
                buf[pos++] = '0';
            pos += snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "%s", dig);
        } else if (decpt >= nd) {
            pos += snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "%s", dig);
            for (int i = nd; i < decpt; i++)
                buf[pos++] = '0';
            buf[pos] = '\0';
            snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), ".0");
        } else {
            snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "%.*s.%s", decpt, dig,
                     dig + decpt);
        }
    } else {
        if (nd > 1)
            pos += snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "%c.%se", dig[0],
                            dig + 1);
        else
            pos += snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "%ce", dig[0]);
        snprintf(buf + pos, (size_t)(TOPO_PYFLOAT_MAX - pos), "%c%02d", e < 0 ? '-' : '+',
                 e < 0 ? -e : e);
    }
}

struct json_object *topo_json_pyfloat(double x)
{
    char buf[TOPO_PYFLOAT_MAX];

    topo_pyfloat(x, buf);
    return json_object_new_double_s(x, buf);
}
