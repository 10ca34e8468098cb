#!/bin/sh
# tests/install/out-of-tree.sh BUILD_DIR: the NApp kit as a NApp author uses
# it.  Installs kytos-c from BUILD_DIR into a staging root, relocated there
# as if installed at $K (its kytos-napp.pc's prefix rewritten; its libtool
# .la files removed, as distributions do), copies the installed template
# NApp to a temporary folder and runs, as is,
#     autoreconf -fi && ./configure --prefix=P && make distcheck
# twice: with Check, then configured without tests with Check hidden from
# pkg-config.  Each run then installs into its own prefix P.  The kit's
# install tree must be unchanged at the end (a checksum listing before and
# after).
set -eu
B=$(cd "$1" && pwd)
T=$(mktemp -d /tmp/kytos-oot-XXXXXX)
trap 'chmod -R u+w "$T" 2>/dev/null; rm -rf "$T"' EXIT
D=$T/stage
fail() { echo "out-of-tree: $1"; [ -z "${2:-}" ] || tail -40 "$2"; exit 1; }

prefix=$(sed -n 's/^prefix=//p' "$B/kytos-napp.pc")
make -C "$B" install DESTDIR="$D" >"$T/install.log" 2>&1 || fail "make install failed" "$T/install.log"
K=$D$prefix
pc=$(find "$K" -name kytos-napp.pc | head -1)
[ -n "$pc" ] || fail "no kytos-napp.pc installed"
sed -i "s|^prefix=.*|prefix=$K|" "$pc"      # every other variable derives from prefix
find "$K" -name '*.la' -exec rm -f {} +
template=$K/share/kytos-c/napp-template
for f in README.md configure.ac Makefile.am hello.c openapi.yml test_hello.c; do
  [ -f "$template/$f" ] || fail "the installed template lacks $f"
done

listing() { (cd "$K" && find . \( -type f -o -type l \) | LC_ALL=C sort | xargs sha256sum); }
listing >"$T/kit-before"

export PATH="$K/bin:$PATH"
export ACLOCAL_PATH="$K/share/aclocal"
unset LD_LIBRARY_PATH CONFIG_SITE || true
kitpc=$(dirname "$pc")

# run NAME CONFIGURE-ARGS...: the template, copied, through distcheck and install
run() {
  name=$1; shift
  W=$T/$name P=$T/$name-prefix
  cp -R "$template" "$W"
  chmod -R u+w "$W"
  (cd "$W" && autoreconf -fi) >"$T/$name-autoreconf.log" 2>&1 ||
    fail "$name: autoreconf -fi failed" "$T/$name-autoreconf.log"
  (cd "$W" && ./configure --prefix="$P" "$@") >"$T/$name-configure.log" 2>&1 ||
    fail "$name: configure failed" "$T/$name-configure.log"
  (cd "$W" && make distcheck DISTCHECK_CONFIGURE_FLAGS="$*") >"$T/$name-distcheck.log" 2>&1 ||
    fail "$name: make distcheck failed" "$T/$name-distcheck.log"
  (cd "$W" && make install) >"$T/$name-install.log" 2>&1 ||
    fail "$name: make install failed" "$T/$name-install.log"
  # the NApp went under its own prefix, and it is a NApp
  so=$P/lib/kytos-c/napps/hello.so
  [ -f "$so" ] || fail "$name: make install did not put hello.so in $P/lib/kytos-c/napps"
  nm -D --defined-only "$so" | grep -q ' kytos_napp_desc$' || fail "$name: $so exports no kytos_napp_desc"
}

# 1. with Check: the test runs, finding libkytos-test through its rpath only
PKG_CONFIG_PATH=$kitpc
export PKG_CONFIG_PATH
run with-check
grep -q '^PASS: test_hello' "$T/with-check-distcheck.log" ||
  fail "with-check: distcheck did not run test_hello" "$T/with-check-distcheck.log"
(cd "$T/with-check" && make check) >"$T/with-check-check.log" 2>&1 ||
  fail "with-check: make check failed" "$T/with-check-check.log"
bin=$T/with-check/test_hello
[ ! -f "$T/with-check/.libs/test_hello" ] || bin=$T/with-check/.libs/test_hello
readelf -d "$bin" | grep -E '(RPATH|RUNPATH)' | grep -q "$K" ||
  fail "with-check: test_hello has no rpath to the kit's libdir"

# 2. without Check: pkg-config sees only json-c and the kit
nocheck=$T/pc-nocheck
mkdir -p "$nocheck"
cp "$(pkg-config --variable=pcfiledir json-c)/json-c.pc" "$nocheck/"
PKG_CONFIG_LIBDIR=$nocheck:$kitpc
export PKG_CONFIG_LIBDIR
! pkg-config --exists check || fail "Check is still visible to pkg-config"
PKG_CONFIG_PATH=
run no-check --disable-tests
! grep -E -q 'PASS: test_hello|CC .*test_hello' "$T/no-check-distcheck.log" ||
  fail "no-check: a test was built without tests"
# by default, a missing Check only turns the tests off
(cd "$T/no-check" && ./configure --prefix="$T/no-check-prefix") >"$T/no-check-auto.log" 2>&1 ||
  fail "no-check: configure without --disable-tests and without Check failed" "$T/no-check-auto.log"
grep -q 'Check not found: building no tests' "$T/no-check-auto.log" ||
  fail "no-check: configure did not say the tests are off" "$T/no-check-auto.log"
unset PKG_CONFIG_LIBDIR

listing >"$T/kit-after"
cmp -s "$T/kit-before" "$T/kit-after" || {
  diff "$T/kit-before" "$T/kit-after" | head -20
  fail "the kit's install tree changed"
}
echo "out-of-tree NApp: the installed template passed make distcheck with Check and without,"
echo "installed under its own prefix, and left the kit's install tree unchanged"
