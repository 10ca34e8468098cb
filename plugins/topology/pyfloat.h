/* plugins/topology/pyfloat.h - Python's repr() of a float.
 *
 * Kytos renders floats with Python's json module, i.e. repr(): the shortest
 * text that reads back to the same double, with ".0" on integral values and
 * an exponent outside 1e-4 <= |x| < 1e16 ("1250000000.0", "0.1", "1e+16").
 * json-c prints "%.17g", so values Kytos prints as floats are created with
 * json_object_new_double_s() and this text. */
#ifndef TOPO_PYFLOAT_H
#define TOPO_PYFLOAT_H

#include <stddef.h>
#include <json-c/json.h>

#define TOPO_PYFLOAT_MAX 32

/* Write repr(x) into buf (TOPO_PYFLOAT_MAX bytes).  NaN and infinities give
 * "NaN", "Infinity", "-Infinity" (what json.dumps would print). */
void topo_pyfloat(double x, char buf[TOPO_PYFLOAT_MAX]);

/* A json-c double that serialises as Python would print it.  New ref. */
struct json_object *topo_json_pyfloat(double x);

#endif
