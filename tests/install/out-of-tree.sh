#!/bin/sh
# tests/install/out-of-tree.sh BUILD_DIR: install kytos-c into a staging
# root (make install DESTDIR=...), then build plugins/hello as an
# out-of-tree NApp with its own configure.ac (KYTOS_NAPP_INIT, found through
# kytos-napp.pc) and run its `make check` against the installed test host.
set -eu
B=$(cd "$1" && pwd)
S=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d /tmp/kytos-oot-XXXXXX)
trap 'rm -rf "$T"' EXIT
D=$T/root
prefix=$(sed -n 's/^prefix=//p' "$B/kytos-napp.pc")
make -C "$B" install DESTDIR="$D" >"$T/install.log" 2>&1 || { tail -20 "$T/install.log"; exit 1; }
P=$D$prefix
mkdir -p "$T/hello"
cp "$S/plugins/hello/hello.c" "$S/plugins/hello/openapi.yml" "$S/tests/napps/test_hello.c" \
   "$S/tests/check_tap.h" "$T/hello/"
cd "$T/hello"
cat > configure.ac <<'AC'
AC_INIT([kytos-hello], [1.0.0])
AC_CONFIG_AUX_DIR([build-aux])
AC_CONFIG_MACRO_DIR([m4])
AM_INIT_AUTOMAKE([foreign subdir-objects])
AC_PROG_CC
LT_INIT([shared disable-static])
KYTOS_NAPP_INIT
AC_CONFIG_FILES([Makefile])
AC_OUTPUT
AC
cat > Makefile.am <<'AM'
ACLOCAL_AMFLAGS = -I m4
napps_LTLIBRARIES = hello.la
hello_la_SOURCES = hello.c
nodist_hello_la_SOURCES = openapi_spec.c
hello_la_CFLAGS = $(KYTOS_NAPP_CFLAGS)
hello_la_LDFLAGS = $(KYTOS_NAPP_LDFLAGS)
hello_la_LIBADD = $(KYTOS_NAPP_LIBS)
openapi_spec.c: $(srcdir)/openapi.yml
	kytos-embed $(srcdir)/openapi.yml hello_openapi > $@
BUILT_SOURCES = openapi_spec.c
CLEANFILES = openapi_spec.c
check_PROGRAMS = test_hello
test_hello_SOURCES = test_hello.c check_tap.h
test_hello_CFLAGS = $(KYTOS_NAPP_CFLAGS) $(KYTOS_CHECK_CFLAGS) -DNAPP_DIR='"$(abs_builddir)/.libs"'
test_hello_LDADD = $(KYTOS_TEST_LIBS) $(KYTOS_CHECK_LIBS) $(KYTOS_NAPP_LIBS)
TESTS = test_hello
AM
mkdir -p m4
export PATH="$P/bin:$PATH"
export PKG_CONFIG_PATH="$P/lib/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$D"
export LD_LIBRARY_PATH="$P/lib"
autoreconf -i -I "$P/share/aclocal" >"$T/autoreconf.log" 2>&1 || { cat "$T/autoreconf.log"; exit 1; }
./configure KYTOS_TEST_LIBS="-L$P/lib -lkytos-test" nappsdir="$T/napps" >"$T/configure.log" 2>&1 || { tail -30 "$T/configure.log"; exit 1; }
make >"$T/make.log" 2>&1 || { tail -30 "$T/make.log"; exit 1; }
make check >"$T/check.log" 2>&1 || { cat test_hello.log 2>/dev/null || tail -30 "$T/check.log"; exit 1; }
grep -q '^# PASS: *1$' "$T/check.log" || grep -q 'PASS: test_hello' "$T/check.log"
nm -D --defined-only .libs/hello.so | grep -q ' kytos_napp_desc$'
echo "out-of-tree NApp: built and passed make check against the installed kytos-c"
